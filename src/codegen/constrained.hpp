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

/// Emits body_states for `frames` (none when empty) and appends it to `kernels`; returns the
/// constant for NAME.hpp (state_frames).
std::string body_states_kernel(const Model& model, const std::vector<std::string>& frames, int max_statements,
                               std::vector<KernelText>& kernels);

/// Emits the constrained kernels of the frames `held`, the joints `locked`, the `distances` and
/// the `wheels` (none when all are empty) into the active Emitter (Emitter::Active) and appends them to
/// `kernels`; returns the constants for NAME.hpp (held_frames, locked_joints, distances,
/// wheels, constraints, ref_size, frame_rows, m).
std::string constrained_kernels(const Model& model, const std::vector<HeldFrame>& held,
                                const std::vector<std::string>& locked, const std::vector<HeldDistance>& distances,
                                const std::vector<HeldWheel>& wheels, const KernelSelection& which,
                                std::vector<KernelText>& kernels);

}  // namespace articula::codegen
