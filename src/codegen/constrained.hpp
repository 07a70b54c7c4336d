#pragma once
/// The constrained kernels of `articula codegen --hold`: constrained forward dynamics and the
/// velocity jump at activation for frames held in the world (docs/codegen.md).
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "articula/model/model.hpp"

namespace articula::codegen {

struct ConstrainedText {
  std::string declarations;              // for NAME.hpp (empty without held frames)
  std::vector<std::string> definitions;  // for NAME.cpp, one function each (a unit each)
};

/// Emits into the active Emitter (Emitter::Active). With `external_forces`, also
/// constrained_dynamics_fext (CodegenOptions::external_forces).
ConstrainedText constrained_kernels(const Model& model, const std::vector<HeldFrame>& held, bool external_forces);

}  // namespace articula::codegen
