// The symbolic recursions of the generated kernels (codegen/recursions.hpp).
#include "codegen/recursions.hpp"

#include "dynamics/rnea_passes.hpp"

namespace articula::codegen {

std::string at(const char* array, int index) { return std::string(array) + "[" + std::to_string(index) + "]"; }

SymVector inputs(const char* array, int n) {
  SymVector out(n);
  for (int k = 0; k < n; ++k) out[k] = Emitter::active().input(at(array, k));
  return out;
}

std::vector<STransform> placements(const Model& model, const SymVector& q) {
  std::vector<STransform> out(static_cast<std::size_t>(model.njoints));
  for (Index i = 0; i < model.njoints; ++i) joint_placement(model, i, q.data() + model.idx_q[i], out[i]);
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

}  // namespace

SymVector rnea(const Model& model, const SymVector& q, const SymVector& v, const SymVector& a,
               const std::vector<SForce>& f_ext) {
  RneaWorkspace ws(model);
  SymVector tau = SymVector::Zero(model.nv);
  using In = Eigen::Ref<const SymVector>;
  rnea_passes<Sym, true>(model, ws, In(q), In(v), In(a), true, std::span<const SForce>(f_ext),
                         Eigen::Ref<SymVector>(tau));
  return tau;
}

SymMatrix crba(const Model& model, const std::vector<STransform>& X, std::vector<std::vector<bool>>* pattern) {
  std::vector<SInertia> Ic;
  for (Index i = 0; i < model.njoints; ++i) Ic.push_back(model.inertias[i].cast<Sym>());
  const int nv = model.nv;
  SymMatrix M(nv, std::vector<Sym>(nv, Sym(0.0)));
  if (pattern) pattern->assign(nv, std::vector<bool>(nv, false));
  auto store = [&](int r, int c, Sym x) {
    M[r][c] = x;
    M[c][r] = x;
    if (pattern) (*pattern)[r][c] = (*pattern)[c][r] = true;
  };
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const int iv = model.idx_v[i];
    for (int k = iv; k < iv + model.nv_joint[i]; ++k) {
      const SForce F = Ic[i] * SMotion::from(subspace_column(model, k));
      store(k, k, subspace_column(model, k).dot(F.vector()) + model.armature[k]);
      for (int l = iv; l < k; ++l) store(l, k, subspace_column(model, l).dot(F.vector()));
      SForce Fj = F;
      for (Index j = i; model.parents[j] != kWorld; j = model.parents[j]) {
        Fj = X[j].act(Fj);
        const Index pj = model.parents[j];
        for (int l = model.idx_v[pj]; l < model.idx_v[pj] + model.nv_joint[pj]; ++l)
          store(l, k, subspace_column(model, l).dot(Fj.vector()));
      }
    }
    const Index p = model.parents[i];
    if (p != kWorld) Ic[p] = Ic[p] + Ic[i].transformed(X[i]);
  }
  return M;
}

/// Inverse of a symmetric positive-definite n × n matrix (n ≤ 6) by D = L diag(d) Lᵀ,
/// D⁻¹ = L⁻ᵀ diag(1/d) L⁻¹ (Golub & Van Loan, Matrix Computations, §4.1).
SymMatrix spd_inverse(const SymMatrix& A) {
  Emitter& e = Emitter::active();
  const int n = static_cast<int>(A.size());
  SymMatrix L(n, std::vector<Sym>(n, Sym(0.0))), Li = L, out = L;
  std::vector<Sym> d(n), dinv(n);
  for (int j = 0; j < n; ++j) {
    Sym dj = A[j][j];
    for (int k = 0; k < j; ++k) dj = e.sub(dj, e.mul(e.mul(L[j][k], L[j][k]), d[k]));
    d[j] = dj;
    dinv[j] = e.div(Sym(1.0), dj);
    L[j][j] = Sym(1.0);
    for (int i = j + 1; i < n; ++i) {
      Sym x = A[i][j];
      for (int k = 0; k < j; ++k) x = e.sub(x, e.mul(e.mul(L[i][k], L[j][k]), d[k]));
      L[i][j] = e.mul(x, dinv[j]);
    }
  }
  for (int j = 0; j < n; ++j) {  // Li = L⁻¹ (unit lower triangular)
    Li[j][j] = Sym(1.0);
    for (int i = j + 1; i < n; ++i) {
      Sym x = Sym(0.0);
      for (int k = j; k < i; ++k) x = e.sub(x, e.mul(L[i][k], Li[k][j]));
      Li[i][j] = x;
    }
  }
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      Sym x = Sym(0.0);
      for (int k = i; k < n; ++k) x = e.add(x, e.mul(e.mul(Li[k][i], Li[k][j]), dinv[k]));
      out[i][j] = x;
      out[j][i] = x;
    }
  return out;
}

SymVector aba(const Model& model, const std::vector<STransform>& X, const SymVector& v, const SymVector& tau,
              const std::vector<SForce>& f_ext) {
  Emitter& e = Emitter::active();
  const int nb = model.njoints;
  SymVector out(model.nv);
  std::vector<SMotion> vel(nb), c(nb), acc(nb);
  std::vector<SMatrix6> IA(nb);
  std::vector<SForce> pA(nb);
  // Pass 1: v_i = ⁱX_λ v_λ + S q̇, c_i = v_i × S q̇, IA_i = I_i, pA_i = v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    const SMotion vJ = joint_motion(model, i, v);
    vel[i] = (p == kWorld ? SMotion::Zero() : X[i].act_inv(vel[p])) + vJ;
    c[i] = vel[i].cross(vJ);
    const SInertia I = model.inertias[i].cast<Sym>();
    IA[i] = I.matrix();
    pA[i] = vel[i].cross(I * vel[i]);
    if (!f_ext.empty()) pA[i] = pA[i] - f_ext[i];
  }
  // Pass 2 (leaves to root): U = IA S, D = Sᵀ U + armature, u = τ − Sᵀ pA;
  // IA_λ += λX_i* (IA − U D⁻¹ Uᵀ) ⁱX_λ, pA_λ += λX_i* (pA + Ia c + U D⁻¹ u).
  std::vector<std::vector<SVector6>> U(nb), UD(nb);
  std::vector<std::vector<Sym>> u(nb);
  std::vector<SymMatrix> Dinv(nb);
  for (Index i = nb - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], n = model.nv_joint[i];
    std::vector<SVector6> S;
    for (int k = 0; k < n; ++k) S.push_back(subspace_column(model, iv + k));
    for (int k = 0; k < n; ++k) U[i].push_back(IA[i] * S[k]);
    SymMatrix D(n, std::vector<Sym>(n));
    for (int r = 0; r < n; ++r)
      for (int k = r; k < n; ++k) {
        Sym x = S[r].dot(U[i][k]);
        if (r == k) x = e.add(x, Sym(model.armature[iv + k]));
        D[r][k] = x;
        D[k][r] = x;
      }
    for (int k = 0; k < n; ++k) u[i].push_back(e.sub(tau[iv + k], S[k].dot(pA[i].vector())));
    if (n == 1)
      Dinv[i] = {{e.div(Sym(1.0), D[0][0])}};
    else
      Dinv[i] = spd_inverse(D);
    for (int k = 0; k < n; ++k) {  // UD = U D⁻¹
      SVector6 col;
      for (int r = 0; r < 6; ++r) {
        Sym x = Sym(0.0);
        for (int l = 0; l < n; ++l) x = e.add(x, e.mul(U[i][l][r], Dinv[i][l][k]));
        col[r] = x;
      }
      UD[i].push_back(col);
    }
    const Index p = model.parents[i];
    if (p == kWorld) continue;
    SMatrix6 Ia;
    for (int r = 0; r < 6; ++r)
      for (int k = r; k < 6; ++k) {
        Sym x = IA[i](r, k);
        for (int l = 0; l < n; ++l) x = e.sub(x, e.mul(UD[i][l][r], U[i][l][k]));
        Ia(r, k) = x;
        Ia(k, r) = x;
      }
    SVector6 pa = pA[i].vector() + Ia * c[i].vector();
    for (int l = 0; l < n; ++l)
      for (int r = 0; r < 6; ++r) pa[r] = e.add(pa[r], e.mul(UD[i][l][r], u[i][l]));
    // λX_i* Ia (λX_i*)ᵀ: carry each column of Ia to the parent, then each row of the result.
    SMatrix6 T;
    for (int k = 0; k < 6; ++k) T.col(k) = X[i].act(SForce::from(Ia.col(k))).vector();
    for (int r = 0; r < 6; ++r) {
      const SVector6 row = X[i].act(SForce::from(T.row(r).transpose())).vector();
      for (int k = r; k < 6; ++k) {
        const Sym x = e.add(IA[p](r, k), row[k]);
        IA[p](r, k) = x;
        IA[p](k, r) = x;
      }
    }
    pA[p] = pA[p] + X[i].act(SForce::from(pa));
  }
  // Pass 3 (root to leaves): a' = ⁱX_λ a_λ + c, q̈ = D⁻¹ (u − Uᵀ a'), a_i = a' + S q̈.
  const SMotion a0 = (-model.gravity).cast<Sym>();  // a_0 = −g (RBDA §5.3)
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    const int iv = model.idx_v[i], n = model.nv_joint[i];
    const SMotion ap = X[i].act_inv(p == kWorld ? a0 : acc[p]) + c[i];
    const SVector6 apv = ap.vector();
    std::vector<Sym> r(n), qdd(n, Sym(0.0));
    for (int k = 0; k < n; ++k) r[k] = e.sub(u[i][k], U[i][k].dot(apv));
    for (int k = 0; k < n; ++k) {
      for (int l = 0; l < n; ++l) qdd[k] = e.add(qdd[k], e.mul(Dinv[i][k][l], r[l]));
      out[iv + k] = qdd[k];
    }
    SymVector x = SymVector::Zero(model.nv);
    for (int k = 0; k < n; ++k) x[iv + k] = qdd[k];
    acc[i] = ap + joint_motion(model, i, x);
  }
  return out;
}

}  // namespace articula::codegen
