// The symbolic recursions of the generated kernels (codegen/recursions.hpp).
#include "codegen/recursions.hpp"

namespace articula::codegen {

using N = Emitter;

std::string at(const char* array, int index) { return std::string(array) + "[" + std::to_string(index) + "]"; }

namespace {

/// Rotation matrix of a quaternion [x y z w] read from q[iq..iq+3] (Eigen's
/// Quaternion::toRotationMatrix formula, unit quaternion assumed).
M3 quaternion_rotation(Emitter& e, int iq) {
  const Sym x = e.input(at("q", iq)), y = e.input(at("q", iq + 1)), z = e.input(at("q", iq + 2)),
            w = e.input(at("q", iq + 3));
  const Sym two = N::number(2.0), one = N::number(1.0);
  const Sym tx = e.mul(two, x), ty = e.mul(two, y), tz = e.mul(two, z);
  const Sym twx = e.mul(tx, w), twy = e.mul(ty, w), twz = e.mul(tz, w);
  const Sym txx = e.mul(tx, x), txy = e.mul(ty, x), txz = e.mul(tz, x);
  const Sym tyy = e.mul(ty, y), tyz = e.mul(tz, y), tzz = e.mul(tz, z);
  return {V3{e.sub(one, e.add(tyy, tzz)), e.sub(txy, twz), e.add(txz, twy)},
          V3{e.add(txy, twz), e.sub(one, e.add(txx, tzz)), e.sub(tyz, twx)},
          V3{e.sub(txz, twy), e.add(tyz, twx), e.sub(one, e.add(txx, tyy))}};
}

/// X_J(q) of joint i (model/joint.hpp conventions): a rotation about the axis by q (revolute),
/// a translation along it (prismatic), a quaternion rotation (spherical), or both (free-flyer).
STransform joint_transform(Spatial& s, const Model& model, Index i) {
  Emitter& e = s.e;
  const int iq = model.idx_q[i];
  const Vector3& axis = model.axes[i];
  STransform X{s.identity3(), s.zero3()};
  switch (model.joint_types[i]) {
    case JointType::Revolute:
    case JointType::Continuous: {
      Sym sn, cs;
      e.sincos(e.input(at("q", iq)), sn, cs);
      int k = -1;
      for (int j = 0; j < 3; ++j)
        if (std::abs(axis[j]) == 1.0 && axis.norm() == 1.0) k = j;
      if (k >= 0) {  // rotation by ±q about e_k (RBDA Table 2.2)
        const int a = (k + 1) % 3, b = (k + 2) % 3;
        const Sym ss = e.mul(N::number(axis[k]), sn);
        X.R[a][a] = cs;
        X.R[b][b] = cs;
        X.R[a][b] = e.neg(ss);
        X.R[b][a] = ss;
      } else {  // Rodrigues: R = c 1 + s â + (1 − c) a aᵀ
        const Sym omc = e.sub(N::number(1.0), cs);
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) {
            const double hat = r == c ? 0.0
                                      : (r == 0   ? (c == 1 ? -axis[2] : axis[1])
                                         : r == 1 ? (c == 0 ? axis[2] : -axis[0])
                                                  : (c == 0 ? -axis[1] : axis[0]));
            Sym v = e.add(e.mul(N::number(hat), sn), e.mul(N::number(axis[r] * axis[c]), omc));
            X.R[r][c] = r == c ? e.add(cs, v) : v;
          }
      }
      break;
    }
    case JointType::Prismatic:
      X.p = s.scale(e.input(at("q", iq)), s.num(axis));
      break;
    case JointType::Spherical:
      X.R = quaternion_rotation(e, iq);
      break;
    case JointType::FreeFlyer:
      X.R = quaternion_rotation(e, iq + 3);
      X.p = {e.input(at("q", iq)), e.input(at("q", iq + 1)), e.input(at("q", iq + 2))};
      break;
  }
  return X;
}

}  // namespace

/// liMi = X_T,i X_J,i(q) (RBDA eq. 4.3) for every joint.
std::vector<STransform> placements(Spatial& s, const Model& model) {
  std::vector<STransform> out;
  for (Index i = 0; i < model.njoints; ++i) {
    const STransform T = s.num(model.joint_placements[i]);
    const STransform J = joint_transform(s, model, i);
    out.push_back({s.mul(T.R, J.R), s.add(s.mul(T.R, J.p), T.p)});
  }
  return out;
}

V6 subspace_column(const Model& model, int k) {
  V6 out;
  for (int r = 0; r < 6; ++r) out[r] = N::number(model.S(r, k));
  return out;
}

/// S_i x_i for the joint's slice of an input array ("v", "a", ...).
SMotion joint_motion(Spatial& s, const Model& model, Index i, const std::vector<Sym>& x) {
  V6 out;
  out.fill(N::number(0.0));
  for (int k = model.idx_v[i]; k < model.idx_v[i] + model.nv_joint[i]; ++k) {
    const V6 col = subspace_column(model, k);
    for (int r = 0; r < 6; ++r) out[r] = s.e.add(out[r], s.e.mul(col[r], x[k]));
  }
  return s.motion(out);
}

std::vector<Sym> inputs(Emitter& e, const char* array, int n) {
  std::vector<Sym> out;
  for (int k = 0; k < n; ++k) out.push_back(e.input(at(array, k)));
  return out;
}

SMotion gravity_acceleration(Spatial& s, const Model& model) {  // a_0 = −g (RBDA §5.3)
  return {s.num(Vector3(-model.gravity.v)), s.num(Vector3(-model.gravity.w))};
}

std::vector<Sym> rnea(Spatial& s, const Model& model, const std::vector<STransform>& X, const std::vector<Sym>& v,
                      const std::vector<Sym>& a) {
  Emitter& e = s.e;
  const SMotion a0 = gravity_acceleration(s, model);
  std::vector<Sym> tau(model.nv);
  std::vector<SMotion> vel(model.njoints), acc(model.njoints);
  std::vector<SForce> f(model.njoints);
  for (Index i = 0; i < model.njoints; ++i) {
    const Index p = model.parents[i];
    const SMotion vJ = joint_motion(s, model, i, v);
    const SMotion vp = p == kWorld ? s.zero_motion() : s.act_inv(X[i], vel[p]);
    vel[i] = s.add(vp, vJ);
    acc[i] =
        s.add(s.add(s.act_inv(X[i], p == kWorld ? a0 : acc[p]), joint_motion(s, model, i, a)), s.cross(vel[i], vJ));
    const SInertia I = s.num(model.inertias[i]);
    f[i] = s.add(s.mul(I, acc[i]), s.cross(vel[i], s.mul(I, vel[i])));
  }
  for (Index i = model.njoints - 1; i >= 0; --i) {
    for (int k = model.idx_v[i]; k < model.idx_v[i] + model.nv_joint[i]; ++k)
      tau[k] = e.add(s.dot(subspace_column(model, k), s.vec(f[i])), e.mul(N::number(model.armature[k]), a[k]));
    const Index p = model.parents[i];
    if (p != kWorld) f[p] = s.add(f[p], s.act(X[i], f[i]));
  }
  return tau;
}

SymMatrix crba(Spatial& s, const Model& model, const std::vector<STransform>& X,
               std::vector<std::vector<bool>>* pattern) {
  Emitter& e = s.e;
  std::vector<SInertia> Ic;
  for (Index i = 0; i < model.njoints; ++i) Ic.push_back(s.num(model.inertias[i]));
  const int nv = model.nv;
  SymMatrix M(nv, std::vector<Sym>(nv, N::number(0.0)));
  if (pattern) pattern->assign(nv, std::vector<bool>(nv, false));
  auto store = [&](int r, int c, Sym x) {
    M[r][c] = x;
    M[c][r] = x;
    if (pattern) (*pattern)[r][c] = (*pattern)[c][r] = true;
  };
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const int iv = model.idx_v[i];
    for (int k = iv; k < iv + model.nv_joint[i]; ++k) {
      const SForce F = s.mul(Ic[i], s.motion(subspace_column(model, k)));
      store(k, k, e.add(s.dot(subspace_column(model, k), s.vec(F)), N::number(model.armature[k])));
      for (int l = iv; l < k; ++l) store(l, k, s.dot(subspace_column(model, l), s.vec(F)));
      SForce Fj = F;
      for (Index j = i; model.parents[j] != kWorld; j = model.parents[j]) {
        Fj = s.act(X[j], Fj);
        const Index pj = model.parents[j];
        for (int l = model.idx_v[pj]; l < model.idx_v[pj] + model.nv_joint[pj]; ++l)
          store(l, k, s.dot(subspace_column(model, l), s.vec(Fj)));
      }
    }
    const Index p = model.parents[i];
    if (p != kWorld) Ic[p] = s.add(Ic[p], s.transformed(X[i], Ic[i]));
  }
  return M;
}

/// Inverse of a symmetric positive-definite n × n matrix (n ≤ 6) by D = L diag(d) Lᵀ,
/// D⁻¹ = L⁻ᵀ diag(1/d) L⁻¹ (Golub & Van Loan, Matrix Computations, §4.1).
SymMatrix spd_inverse(Emitter& e, const SymMatrix& A) {
  const int n = static_cast<int>(A.size());
  SymMatrix L(n, std::vector<Sym>(n, N::number(0.0))), Li = L, out = L;
  std::vector<Sym> d(n), dinv(n);
  for (int j = 0; j < n; ++j) {
    Sym dj = A[j][j];
    for (int k = 0; k < j; ++k) dj = e.sub(dj, e.mul(e.mul(L[j][k], L[j][k]), d[k]));
    d[j] = dj;
    dinv[j] = e.div(N::number(1.0), dj);
    L[j][j] = N::number(1.0);
    for (int i = j + 1; i < n; ++i) {
      Sym x = A[i][j];
      for (int k = 0; k < j; ++k) x = e.sub(x, e.mul(e.mul(L[i][k], L[j][k]), d[k]));
      L[i][j] = e.mul(x, dinv[j]);
    }
  }
  for (int j = 0; j < n; ++j) {  // Li = L⁻¹ (unit lower triangular)
    Li[j][j] = N::number(1.0);
    for (int i = j + 1; i < n; ++i) {
      Sym x = N::number(0.0);
      for (int k = j; k < i; ++k) x = e.sub(x, e.mul(L[i][k], Li[k][j]));
      Li[i][j] = x;
    }
  }
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      Sym x = N::number(0.0);
      for (int k = i; k < n; ++k) x = e.add(x, e.mul(e.mul(Li[k][i], Li[k][j]), dinv[k]));
      out[i][j] = x;
      out[j][i] = x;
    }
  return out;
}

std::vector<Sym> aba(Spatial& s, const Model& model, const std::vector<STransform>& X, const std::vector<Sym>& v,
                     const std::vector<Sym>& tau) {
  Emitter& e = s.e;
  const int nb = model.njoints;
  std::vector<Sym> out(model.nv);
  std::vector<SMotion> vel(nb), c(nb), acc(nb);
  std::vector<M6> IA(nb);
  std::vector<SForce> pA(nb);
  // Pass 1: v_i = ⁱX_λ v_λ + S q̇, c_i = v_i × S q̇, IA_i = I_i, pA_i = v_i ×* I_i v_i.
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    const SMotion vJ = joint_motion(s, model, i, v);
    vel[i] = s.add(p == kWorld ? s.zero_motion() : s.act_inv(X[i], vel[p]), vJ);
    c[i] = s.cross(vel[i], vJ);
    const SInertia I = s.num(model.inertias[i]);
    IA[i] = s.matrix(I);
    pA[i] = s.cross(vel[i], s.mul(I, vel[i]));
  }
  // Pass 2 (leaves to root): U = IA S, D = Sᵀ U + armature, u = τ − Sᵀ pA;
  // IA_λ += λX_i* (IA − U D⁻¹ Uᵀ) ⁱX_λ, pA_λ += λX_i* (pA + Ia c + U D⁻¹ u).
  std::vector<std::vector<V6>> U(nb), UD(nb);
  std::vector<std::vector<Sym>> u(nb);
  std::vector<SymMatrix> Dinv(nb);
  for (Index i = nb - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], n = model.nv_joint[i];
    std::vector<V6> S;
    for (int k = 0; k < n; ++k) S.push_back(subspace_column(model, iv + k));
    for (int k = 0; k < n; ++k) U[i].push_back(s.mul(IA[i], S[k]));
    SymMatrix D(n, std::vector<Sym>(n));
    for (int r = 0; r < n; ++r)
      for (int k = r; k < n; ++k) {
        Sym x = s.dot(S[r], U[i][k]);
        if (r == k) x = e.add(x, N::number(model.armature[iv + k]));
        D[r][k] = x;
        D[k][r] = x;
      }
    for (int k = 0; k < n; ++k) u[i].push_back(e.sub(tau[iv + k], s.dot(S[k], s.vec(pA[i]))));
    if (n == 1)
      Dinv[i] = {{e.div(N::number(1.0), D[0][0])}};
    else
      Dinv[i] = spd_inverse(e, D);
    for (int k = 0; k < n; ++k) {  // UD = U D⁻¹
      V6 col;
      for (int r = 0; r < 6; ++r) {
        Sym x = N::number(0.0);
        for (int l = 0; l < n; ++l) x = e.add(x, e.mul(U[i][l][r], Dinv[i][l][k]));
        col[r] = x;
      }
      UD[i].push_back(col);
    }
    const Index p = model.parents[i];
    if (p == kWorld) continue;
    M6 Ia;
    for (int r = 0; r < 6; ++r)
      for (int k = r; k < 6; ++k) {
        Sym x = IA[i][r][k];
        for (int l = 0; l < n; ++l) x = e.sub(x, e.mul(UD[i][l][r], U[i][l][k]));
        Ia[r][k] = x;
        Ia[k][r] = x;
      }
    V6 pa = s.add6(s.vec(pA[i]), s.mul(Ia, s.vec(c[i])));
    for (int l = 0; l < n; ++l)
      for (int r = 0; r < 6; ++r) pa[r] = e.add(pa[r], e.mul(UD[i][l][r], u[i][l]));
    // λX_i* Ia (λX_i*)ᵀ: carry each column of Ia to the parent, then each row of the result.
    M6 T;
    for (int k = 0; k < 6; ++k) {
      const V6 col = s.vec(s.act(X[i], s.force(V6{Ia[0][k], Ia[1][k], Ia[2][k], Ia[3][k], Ia[4][k], Ia[5][k]})));
      for (int r = 0; r < 6; ++r) T[r][k] = col[r];
    }
    for (int r = 0; r < 6; ++r) {
      const V6 row = s.vec(s.act(X[i], s.force(T[r])));
      for (int k = r; k < 6; ++k) {
        const Sym x = e.add(IA[p][r][k], row[k]);
        IA[p][r][k] = x;
        IA[p][k][r] = x;
      }
    }
    pA[p] = s.add(pA[p], s.act(X[i], s.force(pa)));
  }
  // Pass 3 (root to leaves): a' = ⁱX_λ a_λ + c, q̈ = D⁻¹ (u − Uᵀ a'), a_i = a' + S q̈.
  const SMotion a0 = gravity_acceleration(s, model);
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    const int iv = model.idx_v[i], n = model.nv_joint[i];
    const SMotion ap = s.add(s.act_inv(X[i], p == kWorld ? a0 : acc[p]), c[i]);
    const V6 apv = s.vec(ap);
    std::vector<Sym> r(n), qdd(n, N::number(0.0));
    for (int k = 0; k < n; ++k) r[k] = e.sub(u[i][k], s.dot(U[i][k], apv));
    for (int k = 0; k < n; ++k) {
      for (int l = 0; l < n; ++l) qdd[k] = e.add(qdd[k], e.mul(Dinv[i][k][l], r[l]));
      out[iv + k] = qdd[k];
    }
    acc[i] = s.add(ap, joint_motion(s, model, i, [&] {
                     std::vector<Sym> x(model.nv, N::number(0.0));
                     for (int k = 0; k < n; ++k) x[iv + k] = qdd[k];
                     return x;
                   }()));
  }
  return out;
}

}  // namespace articula::codegen
