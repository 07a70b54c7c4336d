#pragma once
/// The constrained kernels of `articula codegen --hold/--lock`: constrained forward dynamics and
/// the velocity jump at activation for frames held in the world and locked joints, any subset
/// of them active (docs/codegen.md).
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "articula/model/model.hpp"
#include "codegen/kernel_text.hpp"

namespace articula::codegen {

/// Which forms to generate: without external forces (aba, constrained_dynamics), with them
/// (aba_fext, constrained_dynamics_fext), and the velocity jump.
struct KernelSelection {
  bool plain = true;
  bool fext = false;
  bool jump = true;
  int max_statements = 0;  // kernel_text(): parts of about this many statements (0: whole)
};

/// Which forms generate_kernels emits for `d` (engine_kernels_only: those a Simulator calls:
/// without external forces only when there are neither external forces nor contacts).
KernelSelection kernel_selection(const KernelDeclarations& d, bool engine_kernels_only);

/// Emits the constrained kernels of the declared held frames, locked joints, distances and
/// wheels (none when all are empty) into the active Emitter (Emitter::Active) and appends them
/// to `kernels`; returns the constants for NAME.hpp (held_frames, locked_joints, distances,
/// wheels, constraints, ref_size, frame_rows, m).
std::string constrained_kernels(const Model& model, const KernelDeclarations& d, const KernelSelection& which,
                                std::vector<KernelText>& kernels);

}  // namespace articula::codegen
