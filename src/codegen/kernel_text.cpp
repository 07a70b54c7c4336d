#include "codegen/kernel_text.hpp"

namespace articula::codegen {

KernelText kernel_text(Emitter& e, std::string declaration, const std::string& comment, const std::string& ret,
                       const std::string& name, const std::vector<std::string>& params, const std::string& setup,
                       int max_statements) {
  const bool returns = ret == "bool";
  std::string list, args, unused;
  for (const std::string& p : params) {
    const std::string arg = p.substr(p.find_last_of("* ") + 1);
    list += (list.empty() ? "" : ", ") + p;
    args += (args.empty() ? "" : ", ") + arg;
    unused += (unused.empty() ? "(void)" : ", (void)") + arg;
  }
  const Emitter::Parts parts = e.take_parts(max_statements);
  const std::string end = returns ? "  return true;\n}\n" : "}\n";
  KernelText out{std::move(declaration), {}};
  const std::string head =
      "\n// " + comment + "\n" + ret + " " + name + "(" + list + ") {\n  " + unused + ";\n" + setup;
  if (parts.bodies.size() == 1) {
    out.definitions.push_back(head + parts.bodies.front() + end);
    return out;
  }
  auto part = [&](std::size_t k) { return name + "_part" + std::to_string(k); };
  std::string kernel = "\n// " + name + " in " + std::to_string(parts.bodies.size()) + " parts (units of their own).\n";
  for (std::size_t k = 0; k < parts.bodies.size(); ++k) kernel += ret + " " + part(k) + "(" + list + ", double* w);\n";
  kernel += head + "  double w[" + std::to_string(parts.spills) + "];\n";
  for (std::size_t k = 0; k < parts.bodies.size(); ++k)
    kernel +=
        returns ? "  if (!" + part(k) + "(" + args + ", w)) return false;\n" : "  " + part(k) + "(" + args + ", w);\n";
  kernel += end;
  for (std::size_t k = 0; k < parts.bodies.size(); ++k) {
    const std::string text = "\n// Part " + std::to_string(k) + " of " + name + ".\n" + ret + " " + part(k) + "(" +
                             list + ", double* __restrict w) {\n  " + unused + ", (void)w;\n" + parts.bodies[k] + end;
    if (k == 0)
      out.definitions.push_back(text + kernel);
    else
      out.definitions.push_back(text);
  }
  return out;
}

}  // namespace articula::codegen
