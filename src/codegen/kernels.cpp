#include "articula/codegen/kernels.hpp"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "codegen/constrained.hpp"
#include "codegen/contacts.hpp"
#include "codegen/fnv.hpp"
#include "codegen/recursions.hpp"
#include "dynamics/energy_sums.hpp"

namespace articula {
namespace codegen {
namespace {

void rnea_body(Emitter& e, const Model& model) {
  const SymVector tau = rnea(model, inputs("q", model.nq), inputs("v", model.nv), inputs("a", model.nv));
  for (int k = 0; k < model.nv; ++k) e.assign(at("tau", k), tau[k]);
}

void crba_body(Emitter& e, const Model& model) {
  std::vector<std::vector<bool>> pattern;
  const SymMatrix M = crba(model, inputs("q", model.nq), &pattern);
  for (int c = 0; c < model.nv; ++c)
    for (int r = 0; r < model.nv; ++r)
      if (pattern[r][c]) e.assign(at("M", r + model.nv * c), M[r][c]);
}

void aba_body(Emitter& e, const Model& model, bool with_forces) {
  const SymVector q = inputs("q", model.nq), v = inputs("v", model.nv), tau = inputs("tau", model.nv);
  const SymVector qdd = aba(model, q, v, tau, with_forces ? force_inputs(model, "f_ext") : std::vector<SForce>{});
  for (int k = 0; k < model.nv; ++k) e.assign(at("qdd", k), qdd[k]);
}

// T and V from the traced kinematics pass (dynamics/energy_sums.hpp, as mechanical_energy()).
void energy_body(Emitter& e, const Model& model) {
  const SymVector q = inputs("q", model.nq), v = inputs("v", model.nv);
  const BodyMotion bm = body_motion(model, q, &v);
  e.assign("out[0]", energy_sums::kinetic<Sym>(model, bm.v, v));
  e.assign("out[1]", energy_sums::potential<Sym>(model, bm.oMi));
}

/// The numbers the kernels are generated from (CodegenOptions::snap).
Model snapped(const Model& model, double snap) {
  Model out = model;
  if (snap <= 0.0) return out;
  for (Transform& X : out.joint_placements)
    for (double& x : X.R.reshaped())
      for (double target : {0.0, 1.0, -1.0})
        if (std::abs(x - target) <= snap) x = target;
  auto clean = [](auto& m) {
    const double scale = m.cwiseAbs().maxCoeff();
    for (double& x : m.reshaped())
      if (std::abs(x) < 1e-15 * scale) x = 0.0;
  };
  for (Inertia& I : out.inertias) {
    clean(I.h);
    clean(I.Io);
  }
  return out;
}

}  // namespace
}  // namespace codegen

std::string model_digest(const Model& model) {
  codegen::Fnv fnv;
  auto bytes = [&](const void* data, std::size_t n) { fnv.bytes(data, n); };
  auto num = [&](double x) { bytes(&x, sizeof x); };
  auto vec = [&](const auto& m) {
    for (Eigen::Index k = 0; k < m.size(); ++k) num(m.data()[k]);
  };
  bytes(&model.njoints, sizeof model.njoints);
  for (Index i = 0; i < model.njoints; ++i) {
    bytes(model.joint_names[i].data(), model.joint_names[i].size() + 1);
    const int t = static_cast<int>(model.joint_types[i]);
    bytes(&t, sizeof t);
    bytes(&model.parents[i], sizeof model.parents[i]);
    vec(model.joint_placements[i].R);
    vec(model.joint_placements[i].p);
    vec(model.axes[i]);
    num(model.inertias[i].m);
    vec(model.inertias[i].h);
    vec(model.inertias[i].Io);
  }
  vec(model.armature);
  vec(model.gravity.v);
  vec(model.gravity.w);
  return codegen::hex(fnv.value());
}

GeneratedKernels generate_kernels(const Model& original, const std::string& name, const CodegenOptions& options) {
  const bool identifier =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') &&
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos;
  if (!identifier)
    throw std::invalid_argument("codegen: name '" + name +
                                "' is not a C++ identifier (letters, digits and '_', not starting with a digit)");
  if (!(options.snap >= 0.0) || options.snap > 1e-3)
    throw std::invalid_argument("codegen: snap " + std::to_string(options.snap) + " is not in [0, 1e-3]");
  const Model model = codegen::snapped(original, options.snap);
  // Which kernels (CodegenOptions::engine_kernels_only: those a Simulator calls).
  codegen::KernelSelection which = codegen::kernel_selection(options, options.engine_kernels_only);
  which.max_statements = options.max_statements;
  const bool all = which.jump;
  codegen::Emitter e;
  const codegen::Emitter::Active active(e);
  std::vector<codegen::KernelText> kernels;
  auto kernel = [&](std::string declaration, const std::string& comment, const std::string& fn,
                    const std::vector<std::string>& params) {
    kernels.push_back(
        codegen::kernel_text(e, std::move(declaration), comment, "void", fn, params, "", options.max_statements));
  };
  if (all) {
    codegen::rnea_body(e, model);
    kernel(
        "/// tau = M(q) a + h(q, v): articula::rnea without external forces.\n"
        "void rnea(const double* q, const double* v, const double* a, double* tau);\n",
        "RNEA, RBDA §5.3 Table 5.1, body coordinates.", "rnea",
        {"const double* q", "const double* v", "const double* a", "double* tau"});
    codegen::crba_body(e, model);
    kernel(
        "/// The joint-space inertia matrix with armature, as articula::crba. Writes the entries of the\n"
        "/// tree's sparsity pattern (both triangles) and leaves the others (zero them once).\n"
        "void crba(const double* q, double* M);\n",
        "CRBA, RBDA §6.2 Table 6.2, body coordinates.", "crba", {"const double* q", "double* M"});
  }
  if (which.plain) {
    codegen::aba_body(e, model, false);
    kernel(
        "/// qdd = M(q)^-1 (tau - h(q, v)): articula::aba without external forces.\n"
        "void aba(const double* q, const double* v, const double* tau, double* qdd);\n",
        "ABA, RBDA §7.3 Table 7.1, body coordinates.", "aba",
        {"const double* q", "const double* v", "const double* tau", "double* qdd"});
  }
  if (which.fext) {
    codegen::aba_body(e, model, true);
    kernel(
        "/// qdd = M(q)^-1 (tau - h(q, v) + sum J_i^T f_ext_i): articula::aba with external forces, 6 per\n"
        "/// body in joint order, [force; moment] in the body's frame.\n"
        "void aba_fext(const double* q, const double* v, const double* tau, const double* f_ext, double* qdd);\n",
        "ABA with external forces, RBDA §7.3 Table 7.1, body coordinates.", "aba_fext",
        {"const double* q", "const double* v", "const double* tau", "const double* f_ext", "double* qdd"});
  }
  codegen::energy_body(e, model);
  kernel(
      "/// out[0] = kinetic energy (armature included), out[1] = potential energy: articula::mechanical_energy.\n"
      "void energy(const double* q, const double* v, double* out);\n",
      "Mechanical energies from the kinematics pass, RBDA §2.13.", "energy",
      {"const double* q", "const double* v", "double* out"});
  const std::string state_declarations =
      codegen::body_states_kernel(model, options.state_frames, options.max_statements, kernels);
  const std::string contact_declarations =
      codegen::aba_contacts_kernel(model, options.contacts, options.max_statements, kernels);
  const std::string constrained_declarations = codegen::constrained_kernels(model, options, which, kernels);
  GeneratedKernels out;
  out.lines = e.lines();
  const std::string digest = model_digest(original);
  char snap[64];
  std::snprintf(snap, sizeof snap, "%g", options.snap);
  const std::string heading = "// Generated by `articula codegen` from " +
                              (options.origin.empty() ? model.name : options.origin) + " (model digest " + digest +
                              ", snap " + snap + "). Do not edit: regenerate.\n";
  out.header = heading +
               "// Kernels of this one model, with its gravity and armature (docs/codegen.md). Arrays are\n"
               "// articula's coordinates (docs/notation.md); M is nv x nv, column-major.\n"
               "#pragma once\n\nnamespace articula::generated::" +
               name + " {\n\ninline constexpr int nq = " + std::to_string(model.nq) +
               ";\ninline constexpr int nv = " + std::to_string(model.nv) +
               ";\n/// articula::model_digest() of the model these kernels were generated from.\n"
               "inline constexpr const char* model_digest = \"" +
               digest + "\";\n" + state_declarations + contact_declarations + constrained_declarations + "\n";
  for (const codegen::KernelText& k : kernels) out.header += k.declaration;
  out.header += "\n}  // namespace articula::generated::" + name + "\n";
  // One prologue for every unit; NAME.cpp is the prologue with every function. A unit includes
  // only what it calls: sincos.hpp (and so <cmath>) where it calls fast_sincos, model/joint.hpp
  // (and so Eigen, about a second to read) where it calls log3 or joint_difference; the rest
  // are compiler builtins (emitter.cpp). A unit with no header compiles in ~0.03 s against ~0.2 s
  // with <cmath>: talos's kernels are 100–200 units.
  auto prologue = [&](bool sincos, bool joint) {
    return heading + "#include \"" + name + ".hpp\"\n" + (sincos ? "#include \"articula/common/sincos.hpp\"\n" : "") +
           (joint ? "#include \"articula/model/joint.hpp\"  // log3, joint_difference\n" : "") +
           "\n// Every product is a named temporary; those a kernel does not need are dropped by the compiler.\n"
           "#if defined(__GNUC__)\n#pragma GCC diagnostic ignored \"-Wunused-variable\"\n#endif\n\nnamespace "
           "articula::generated::" +
           name + " {\n";
  };
  const std::string epilogue = "\n}  // namespace articula::generated::" + name + "\n";
  bool sincos = false, joint = false;
  std::string definitions;
  for (const codegen::KernelText& k : kernels)
    for (const std::string& d : k.definitions) {
      const bool calls_sincos = d.find("::articula::fast_sincos") != std::string::npos;
      const bool calls_joint = d.find("::articula::log3") != std::string::npos ||
                               d.find("::articula::joint_difference") != std::string::npos;
      sincos = sincos || calls_sincos;
      joint = joint || calls_joint;
      definitions += d;
      out.units.push_back(prologue(calls_sincos, calls_joint) + d + epilogue);
    }
  out.source = prologue(sincos, joint) + definitions;
  out.source += epilogue;
  return out;
}

}  // namespace articula
