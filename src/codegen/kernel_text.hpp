#pragma once
/// The text of one generated kernel from the body the active Emitter holds: its declaration
/// for NAME.hpp and its definitions, one translation unit each (docs/codegen.md, "Compile time").
#include <string>
#include <vector>

#include "codegen/emitter.hpp"

namespace articula::codegen {

/// One generated function: its declaration (for NAME.hpp) and its definitions, each a unit of
/// its own — the kernel (with its first part when it is split), then its other parts.
struct KernelText {
  std::string declaration;
  std::vector<std::string> definitions;
};

/// The kernel `ret name(params)` (ret "void" or "bool"; params such as "const double* q")
/// whose body is the Emitter's function (Emitter::take_parts). `comment` heads the
/// definition; `setup` is C++ run before the body (defaults of arguments). A bool kernel
/// returns true at its end and false where its body does. With max_statements > 0 a longer
/// body is cut into parts, functions name_part0, name_part1, … of the kernel's parameters and
/// the array w of the temporaries passed between them; the kernel calls them in order.
KernelText kernel_text(Emitter& e, std::string declaration, const std::string& comment, const std::string& ret,
                       const std::string& name, const std::vector<std::string>& params, const std::string& setup,
                       int max_statements);

}  // namespace articula::codegen
