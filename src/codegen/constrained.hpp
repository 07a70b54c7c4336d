#pragma once
/// The constrained kernels of `articula codegen --hold`: constrained forward dynamics and the
/// velocity jump at activation for frames held in the world (docs/codegen.md).
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "articula/model/model.hpp"

namespace articula::codegen {

struct ConstrainedText {
  std::string declarations;  // for NAME.hpp (empty without held frames)
  std::string definitions;   // for NAME.cpp
};

/// Emits into the active Emitter (Emitter::Active).
ConstrainedText constrained_kernels(const Model& model, const std::vector<HeldFrame>& held);

}  // namespace articula::codegen
