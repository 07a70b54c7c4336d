// The symbolic recursions of the generated kernels (codegen/recursions.hpp).
#include "codegen/recursions.hpp"

#include "dynamics/aba_passes.hpp"
#include "dynamics/crba_passes.hpp"
#include "dynamics/kinematics_pass.hpp"
#include "dynamics/rnea_passes.hpp"

namespace articula::codegen {

std::string at(const char* array, int index) { return std::string(array) + "[" + std::to_string(index) + "]"; }

SymVector inputs(const char* array, int n) {
  SymVector out(n);
  for (int k = 0; k < n; ++k) out[k] = Emitter::active().input(at(array, k));
  return out;
}

std::vector<SForce> force_inputs(const Model& model, const char* array) {
  std::vector<SForce> out(static_cast<std::size_t>(model.njoints));
  for (Index i = 0; i < model.njoints; ++i)
    for (int k = 0; k < 3; ++k) {
      out[i].f[k] = Emitter::active().input(at(array, 6 * i + k));
      out[i].n[k] = Emitter::active().input(at(array, 6 * i + 3 + k));
    }
  return out;
}

SVector6 subspace_column(const Model& model, int k) { return model.S.col(k).cast<Sym>(); }

namespace {

/// The workspace of the shared RNEA passes on Sym (as Data's members of the same names; no
/// world placements: the passes skip them).
struct RneaWorkspace {
  explicit RneaWorkspace(const Model& model)
      : liMi(static_cast<std::size_t>(model.njoints)), v(liMi.size()), a_gf(liMi.size()), f(liMi.size()) {}
  std::vector<STransform> liMi;
  std::vector<SMotion> v, a_gf;
  std::vector<SForce> f;
};

/// The workspace of the shared CRBA and ABA passes on Sym, in body coordinates (no world
/// placements).
struct BodyWorkspace {
  explicit BodyWorkspace(const Model& model)
      : liMi(static_cast<std::size_t>(model.njoints)),
        v(liMi.size()),
        a_gf(liMi.size()),
        pA(liMi.size()),
        IA(liMi.size()),
        Dinv(liMi.size()),
        Ycrb(liMi.size()),
        J(6, model.nv),
        U(6, model.nv),
        M(model.nv, model.nv),
        u(model.nv),
        ddq(model.nv) {
    M.setConstant(Sym(0.0));
  }
  std::vector<STransform> liMi;
  std::vector<SMotion> v, a_gf;
  std::vector<SForce> pA;
  std::vector<SMatrix6> IA, Dinv;
  std::vector<SInertia> Ycrb;
  Eigen::Matrix<Sym, 6, Eigen::Dynamic> J, U;
  Eigen::Matrix<Sym, Eigen::Dynamic, Eigen::Dynamic> M;
  SymVector u, ddq;
};

}  // namespace

BodyMotion body_motion(const Model& model, const SymVector& q, const SymVector* v) {
  BodyMotion out(model);
  if (v)
    kinematics_pass<2, Sym>(model, out, q, v->data(), nullptr);
  else
    kinematics_pass<0, Sym>(model, out, q, nullptr, nullptr);
  return out;
}

SymVector rnea(const Model& model, const SymVector& q, const SymVector& v, const SymVector& a,
               const std::vector<SForce>& f_ext) {
  RneaWorkspace ws(model);
  SymVector tau = SymVector::Zero(model.nv);
  using In = Eigen::Ref<const SymVector>;
  rnea_passes<Sym, true>(model, ws, In(q), In(v), In(a), true, std::span<const SForce>(f_ext),
                         Eigen::Ref<SymVector>(tau));
  return tau;
}

SymMatrix crba(const Model& model, const SymVector& q, std::vector<std::vector<bool>>* pattern) {
  BodyWorkspace ws(model);
  crba_passes<Sym, Coordinates::Body>(model, ws, q);
  const int nv = model.nv;
  SymMatrix M(nv, std::vector<Sym>(nv));
  for (int r = 0; r < nv; ++r)
    for (int c = 0; c < nv; ++c) M[r][c] = ws.M(r, c);
  if (pattern) {  // the diagonal and each dof's ancestors (the entries crba_composite_pass writes)
    pattern->assign(nv, std::vector<bool>(nv, false));
    for (int k = 0; k < nv; ++k) {
      (*pattern)[k][k] = true;
      for (int t = 0; t < model.ancestor_count(k); ++t) {
        const int j = model.ancestors_of(k)[t];
        (*pattern)[j][k] = (*pattern)[k][j] = true;
      }
    }
  }
  return M;
}

SymVector aba(const Model& model, const SymVector& q, const SymVector& v, const SymVector& tau,
              const std::vector<SForce>& f_ext) {
  BodyWorkspace ws(model);
  aba_passes<Sym, Coordinates::Body, false>(model, ws, q, v, tau, std::span<const SForce>(f_ext), nullptr, nullptr,
                                            nullptr);
  return ws.ddq;
}

}  // namespace articula::codegen
