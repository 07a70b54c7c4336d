#pragma once
/// The kernels of the elastic contacts: body_states (the contacts' bodies' kinematics, for the
/// engine's runtime contact forces) and aba_contacts (the contacts' forces and ABA in one
/// function; docs/codegen.md, "Contacts").
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "codegen/kernel_text.hpp"

namespace articula::codegen {

/// Emits body_states for `frames` (none when empty) and appends it to `kernels`; returns the
/// constant for NAME.hpp (state_frames).
std::string body_states_kernel(const Model& model, const std::vector<std::string>& frames, int max_statements,
                               std::vector<KernelText>& kernels);

/// Emits aba_contacts for `contacts` (none when empty) and appends it to `kernels`; returns the
/// constant for NAME.hpp (contacts). Throws std::invalid_argument for an unknown frame, a
/// non-finite offset or point, or a normal that is zero or not finite.
std::string aba_contacts_kernel(const Model& model, const std::vector<DeclaredContact>& contacts, int max_statements,
                                std::vector<KernelText>& kernels);

}  // namespace articula::codegen
