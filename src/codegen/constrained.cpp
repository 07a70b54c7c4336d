// Constrained forward dynamics and the activation jump for frames held in the world, on
// generator scalars (docs/codegen.md). The same equations as the runtime range-space solver
// (docs/solvers.md) and velocity_jump's full form (docs/activation.md):
//   M v̇ + h = τ + Jᵀ λ,  J v̇ + γ = 0;      [M Jᵀ; J 0] [Δv; Λ] = [0; −J v⁻].
#include "codegen/constrained.hpp"

#include <stdexcept>

#include "codegen/recursions.hpp"
#include "dynamics/joint_motion.hpp"
#include "dynamics/ltdl.hpp"

namespace articula::codegen {
namespace {

/// The rows of the held frames: J (m × nv), and for the dynamics the stabilized drift
/// γ = J̇ v + kd J v + kp e (FrameConstraint with its Baumgarte terms, docs/constraints.md).
struct Rows {
  SymMatrix J;
  std::vector<Sym> gamma;
};

/// Forward kinematics (RBDA §4.4 and the velocity pass of §5.3): the world placements
/// ⁰M_i = ⁰M_λ ^λX_i and, with v, the body velocities v_i = ⁱX_λ v_λ + S_i q̇_i and the bias
/// accelerations c_i = ⁱX_λ c_λ + v_i × S_i q̇_i (v̇ = 0, no gravity), in body coordinates.
struct BodyMotion {
  std::vector<STransform> oM;
  std::vector<SMotion> vel, acc;
};

BodyMotion body_motion(const Model& model, const std::vector<STransform>& X, const SymVector* v) {
  const int nb = model.njoints;
  BodyMotion out{std::vector<STransform>(nb), std::vector<SMotion>(nb), std::vector<SMotion>(nb)};
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    out.oM[i] = p == kWorld ? X[i] : out.oM[p] * X[i];
    if (v) {
      const SMotion vJ = joint_motion(model, i, *v);
      out.vel[i] = (p == kWorld ? SMotion::Zero() : X[i].act_inv(out.vel[p])) + vJ;
      out.acc[i] = (p == kWorld ? SMotion::Zero() : X[i].act_inv(out.acc[p])) + out.vel[i].cross(vJ);
    }
  }
  return out;
}

/// A frame's world kinematics (FramePairConstraint's FrameMotion, frame_jacobian()): its
/// placement, with v the classical velocity and drift acceleration (v̇ = 0) of its origin in world
/// axes, and its local-world-aligned Jacobian columns [v_c + ω_c × p_f; ω_c] (zero off the frame's
/// support). A frame on the world is constant: every velocity and column is the number 0.
struct FrameKinematics {
  STransform oMf;
  SVector3 v = SVector3::Constant(Sym(0.0)), w = SVector3::Constant(Sym(0.0));
  SVector3 a = SVector3::Constant(Sym(0.0)), dw = SVector3::Constant(Sym(0.0));
  std::vector<SMotion> J;  // [linear; angular] per dof
};

FrameKinematics frame_kinematics(const Model& model, const BodyMotion& bm, const std::vector<SMotion>& Jw,
                                 Index frame_id, bool with_motion) {
  const Frame& frame = model.frames[frame_id];
  const Index b = frame.parent;
  const STransform P = frame.placement.cast<Sym>();
  FrameKinematics k;
  k.J.assign(static_cast<std::size_t>(model.nv), SMotion::Zero());
  if (b == kWorld) {
    k.oMf = P;
    return k;
  }
  k.oMf = bm.oM[b] * P;
  for (Index j = b; j != kWorld; j = model.parents[j])
    for (int c = model.idx_v[j]; c < model.idx_v[j] + model.nv_joint[j]; ++c)
      k.J[c] = SMotion{Jw[c].v + Jw[c].w.cross(k.oMf.p), Jw[c].w};
  if (with_motion) {
    // The frame's local velocity and bias acceleration, in world axes: v = R_f v_f, ω = R_f ω_f,
    // a = R_f (a_f + ω_f × v_f), ω̇ = R_f ω̇_f (frame_velocity(), frame_acceleration()).
    const SMotion vf = P.act_inv(bm.vel[b]), af = P.act_inv(bm.acc[b]);
    k.v = k.oMf.R * vf.v;
    k.w = k.oMf.R * vf.w;
    k.a = k.oMf.R * (af.v + vf.w.cross(vf.v));
    k.dw = k.oMf.R * af.w;
  }
  return k;
}

/// The bodies' motion and the world joint columns ⁰X_i S_i, once for every row.
struct TreeKinematics {
  BodyMotion bm;
  std::vector<SMotion> Jw;
};

TreeKinematics tree_kinematics(const Model& model, const std::vector<STransform>& X, const SymVector* v) {
  TreeKinematics t{body_motion(model, X, v), std::vector<SMotion>(static_cast<std::size_t>(model.nv))};
  for (Index i = 0; i < model.njoints; ++i)
    for (int k = model.idx_v[i]; k < model.idx_v[i] + model.nv_joint[i]; ++k)
      t.Jw[k] = t.bm.oM[i].act(SMotion::from(subspace_column(model, k)));
  return t;
}

/// The rows of the held frames, as FramePairConstraint::compute (docs/constraints.md, "Frame
/// and loop rows"): with d = p_A − p_B and R_B B's orientation (the identity for the world),
///   linear:  J = R_Bᵀ (J_A,v − J_B,v + [d]× J_B,ω),  e = R_Bᵀ d − r₀,
///            drift R_Bᵀ (a_A − a_B − ω̇_B × d − ω_B × (v_A − v_B) − ω_B × u),  u = v_A − v_B − ω_B × d
///   angular: J = R_Bᵀ (J_A,ω − J_B,ω),  e = log₃(R_Bᵀ R_A R₀ᵀ),  drift R_Bᵀ (ω̇_A − ω̇_B − ω_B × (ω_A − ω_B))
/// and γ = drift + kd J v + kp e. For the world, B's terms are the numbers 0 and 1 and fold away.
Rows frame_rows(const Model& model, const std::vector<HeldFrame>& held, const TreeKinematics& tk, const SymVector* v) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  const BodyMotion& bm = tk.bm;
  const std::vector<SMotion>& Jw = tk.Jw;
  Rows rows;
  for (std::size_t f = 0; f < held.size(); ++f) {
    const bool with_b = !held[f].relative_to.empty();
    const FrameKinematics A = frame_kinematics(model, bm, Jw, model.frame_id(held[f].frame), v != nullptr);
    FrameKinematics B;
    if (with_b) {
      B = frame_kinematics(model, bm, Jw, model.frame_id(held[f].relative_to), v != nullptr);
    } else {
      B.oMf = STransform::Identity();
      B.J.assign(static_cast<std::size_t>(nv), SMotion::Zero());
    }
    const SMatrix3 RbT = B.oMf.R.transpose();
    const SVector3 d = A.oMf.p - B.oMf.p;
    // All six rows (linear, then angular), then those of the mask's axes.
    const AxisMask mask = held[f].mask();
    bool angular = false;
    for (int k = 3; k < 6; ++k) angular = angular || mask.axis[k];
    SymMatrix J(6, std::vector<Sym>(nv, Sym(0.0)));
    for (int c = 0; c < nv; ++c) {
      const SVector3 lin = RbT * (A.J[c].v - B.J[c].v + d.cross(B.J[c].w));
      const SVector3 ang = angular ? SVector3(RbT * (A.J[c].w - B.J[c].w)) : SVector3::Constant(Sym(0.0));
      for (int k = 0; k < 3; ++k) {
        J[k][c] = lin[k];
        J[3 + k][c] = ang[k];
      }
    }
    if (v) {
      const SVector3 u = A.v - B.v - B.w.cross(d);
      const SVector3 drift_lin = RbT * (A.a - B.a - B.dw.cross(d) - B.w.cross(A.v - B.v) - B.w.cross(u));
      const SVector3 drift_ang = RbT * (A.dw - B.dw - B.w.cross(A.w - B.w));
      // Error e = [R_Bᵀ d − p_ref; log₃(R_Bᵀ R_A R_refᵀ)], reference pose from ref[12 f …].
      const int r0 = 12 * static_cast<int>(f);
      const SVector3 rel_p = RbT * d;
      SVector3 err_lin;
      for (int k = 0; k < 3; ++k) err_lin[k] = rel_p[k] - e.input(at("ref", r0 + k));
      SVector3 err_ang;
      if (angular) {
        const SMatrix3 Rrel = with_b ? SMatrix3(RbT * A.oMf.R) : A.oMf.R;
        SMatrix3 Rref;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Rref(r, c) = e.input(at("ref", r0 + 3 + r + 3 * c));  // column-major
        SMatrix3 Rerr;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Rerr(r, c) = Rrel.row(r).dot(Rref.row(c));  // R_rel R_refᵀ
        const std::string m = e.fresh_name("Rerr"), l = e.fresh_name("log");
        std::string init = "::articula::Matrix3 " + m + ";\n  " + m + " << ";
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) init += e.ref(Rerr(r, c)) + (r == 2 && c == 2 ? ";" : ", ");
        e.raw(init);
        e.raw("const ::articula::Vector3 " + l + " = ::articula::log3(" + m + ");");
        for (int k = 0; k < 3; ++k) err_ang[k] = e.input(l + "[" + std::to_string(k) + "]", true);
      }
      const Sym kp = e.input(at("kp", static_cast<int>(f))), kd = e.input(at("kd", static_cast<int>(f)));
      for (int r = 0; r < 6; ++r) {
        if (!mask.axis[r]) continue;
        Sym Jv = Sym(0.0);
        for (int c = 0; c < nv; ++c) Jv = e.add(Jv, e.mul(J[r][c], (*v)[c]));
        const Sym drift = r < 3 ? drift_lin[r] : drift_ang[r - 3];
        const Sym err = r < 3 ? err_lin[r] : err_ang[r - 3];
        rows.gamma.push_back(e.add(e.add(drift, e.mul(kd, Jv)), e.mul(kp, err)));
      }
    }
    for (int r = 0; r < 6; ++r)
      if (mask.axis[r]) rows.J.push_back(std::move(J[r]));
  }
  return rows;
}

/// Appends the rows of the held distances, as DistanceConstraint::compute (docs/constraints.md):
/// with d = p_A − p_B, ℓ = max(‖d‖, 1e-300), n = d / ℓ and ḋ = v_A − v_B,
///   J = nᵀ (J_A,v − J_B,v),  e = ℓ − d₀,  drift nᵀ (a_A − a_B) + (‖ḋ‖² − (nᵀḋ)²) / ℓ,
/// γ = drift + kd J v + kp e; distance i is declared constraint first_slot + i, its d₀ in `ref`.
void distance_rows(const Model& model, const std::vector<HeldDistance>& distances, const ConstrainedLayout& layout,
                   int first_slot, const TreeKinematics& tk, const SymVector* v, Rows& rows) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  for (std::size_t i = 0; i < distances.size(); ++i) {
    const int slot = first_slot + static_cast<int>(i);
    const FrameKinematics A = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(distances[i].frame_a), v != nullptr);
    const FrameKinematics B = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(distances[i].frame_b), v != nullptr);
    const SVector3 d = A.oMf.p - B.oMf.p;
    const std::string len_name = e.fresh_name("len");
    e.raw("const double " + len_name + " = std::fmax(std::sqrt(" + e.ref(d.dot(d)) + "), 1e-300);");
    const Sym len = e.input(len_name, true);
    const SVector3 n = d * e.div(Sym(1.0), len);
    std::vector<Sym> J(nv, Sym(0.0));
    for (int c = 0; c < nv; ++c) J[c] = n.dot(A.J[c].v - B.J[c].v);
    if (v) {
      const SVector3 dd = A.v - B.v;
      const Sym ndd = n.dot(dd);
      const Sym drift = n.dot(A.a - B.a) + (dd.dot(dd) - ndd * ndd) * e.div(Sym(1.0), len);
      const Sym err = len - e.input(at("ref", layout.declared[slot].ref));
      const Sym kp = e.input(at("kp", slot)), kd = e.input(at("kd", slot));
      Sym Jv = Sym(0.0);
      for (int c = 0; c < nv; ++c) Jv = e.add(Jv, e.mul(J[c], (*v)[c]));
      rows.gamma.push_back(e.add(e.add(drift, e.mul(kd, Jv)), e.mul(kp, err)));
    }
    rows.J.push_back(std::move(J));
  }
}

/// Appends the rows of the wheels, as WheelConstraint::compute (docs/constraints.md, "Wheel
/// rows"), the wheel's numbers folded in: with â = R axis, t = n − (nᵀâ)â, u = t / ‖t‖ and the
/// contact point p = c − r u,
///   J = J_c,v + r [u]× J_ω,  e = n (nᵀp − h),  drift a_c + r u × ω̇ + r u̇ × ω,
///   u̇ = (ṫ − u (uᵀṫ)) / ‖t‖,  ṫ = −(nᵀâ̇) â − (nᵀâ) â̇,  â̇ = ω × â,
/// γ = drift + kd J v + kp e. A wheel flat on its plane (‖t‖ ≤ 1e-9) has no contact point: the
/// kernel returns false (the runtime's constraint then reports it). Wheel i is declared
/// constraint first_slot + i.
void wheel_rows(const Model& model, const std::vector<HeldWheel>& wheels, int first_slot, const TreeKinematics& tk,
                const SymVector* v, Rows& rows) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const HeldWheel& w = wheels[i];
    const int slot = first_slot + static_cast<int>(i);
    const FrameKinematics C = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(w.frame), v != nullptr);
    const Sym r = Sym(w.radius);
    const SVector3 n = w.normal.normalized().cast<Sym>();
    const SVector3 a = C.oMf.R * SVector3(w.axis.normalized().cast<Sym>());
    const Sym na = n.dot(a);
    const SVector3 t = n - a * na;
    const std::string tn_name = e.fresh_name("tn");
    e.raw("const double " + tn_name + " = std::sqrt(" + e.ref(t.dot(t)) + ");");
    e.raw("if (!(" + tn_name + " > 1e-9)) return false;  // wheel " + w.frame + " flat on its plane");
    const Sym tn = e.input(tn_name, true), inv_tn = e.div(Sym(1.0), tn);
    const SVector3 u = t * inv_tn;
    for (int k = 0; k < 3; ++k) {
      std::vector<Sym> J(nv, Sym(0.0));
      for (int c = 0; c < nv; ++c) J[c] = C.J[c].v[k] + r * u.cross(C.J[c].w)[k];
      rows.J.push_back(std::move(J));
    }
    if (!v) continue;
    const SVector3 a_dot = C.w.cross(a);
    const SVector3 t_dot = -(a * n.dot(a_dot)) - a_dot * na;
    const SVector3 u_dot = (t_dot - u * u.dot(t_dot)) * inv_tn;
    const SVector3 drift = C.a + u.cross(C.dw) * r + u_dot.cross(C.w) * r;
    const SVector3 contact = C.oMf.p - u * r;
    const Sym gap = n.dot(contact) - Sym(w.height);
    const Sym kp = e.input(at("kp", slot)), kd = e.input(at("kd", slot));
    const std::size_t row0 = rows.J.size() - 3;
    for (int k = 0; k < 3; ++k) {
      Sym Jv = Sym(0.0);
      for (int c = 0; c < nv; ++c) Jv = e.add(Jv, e.mul(rows.J[row0 + k][c], (*v)[c]));
      rows.gamma.push_back(e.add(e.add(drift[k], e.mul(kd, Jv)), e.mul(kp, n[k] * gap)));
    }
  }
}

/// The masks of the declared constraints (CodegenOptions: held frames, locked joints, distances, wheels) as
/// the kernel's `active` input gives them: a row of an inactive frame drops out, a locked dof
/// of an active lock has its value prescribed. Numbers fold (x·1 = x, x·0 = 0), so a dof that
/// no declared lock holds costs nothing.
struct Masks {
  std::vector<Sym> row;    // per row of J: 1 on, 0 off
  std::vector<Sym> lock;   // per dof: 1 held by an active lock, else 0 (the number 0 when never)
  std::vector<Sym> alpha;  // per dof: the value a held dof is given (v̇ or Δv)
};

/// The range-space solve shared by the kernels (docs/solvers.md, "range space"), for
///   M y = b + sign (Jᵀ x + E_Lᵀ x_L),  J y = sign · rhs,  y_L = α_L
/// with J the rows of the active frames and E_L the unit rows of the held dofs (joint locks).
/// The held dofs are taken out as in hybrid dynamics (Featherstone, RBDA §9.2): with m the
/// dofs' lock mask and m̄ = 1 − m, M' = m̄ M m̄ + diag(m), b' = m̄ (b − M m α) + m α,
/// J' = J m̄ and rhs' = rhs − sign J m α, which keeps the tree's pattern of M. The rows of
/// inactive frames are masked in S' = a S a + diag(1 − a), so their multipliers are exactly 0.
/// Then with Z = L⁻ᵀ J'ᵀ and w = L⁻ᵀ b', S = Zᵀ D⁻¹ Z = J' M'⁻¹ J'ᵀ and S x = rhs' − sign Zᵀ D⁻¹ w by an
/// unpivoted LDLᵀ of S (Golub & Van Loan §4.1) whose pivots are tested (a pivot below 1e-10 of its
/// diagonal entry: dependent rows, the kernel returns false); y = L⁻¹ D⁻¹ (w + sign Z x) and the
/// locks' multipliers x_L = sign m (M y − b − sign Jᵀ x) from the first equation.
void range_space(Emitter& e, const Model& model, const SymMatrix& M, const SymMatrix& J, const std::vector<Sym>& b,
                 std::vector<Sym> rhs, double sign, const Masks& mask, std::vector<Sym>& x_out, std::vector<Sym>& y,
                 std::vector<Sym>& x_lock) {
  const int nv = model.nv;
  std::vector<Sym> free(nv), held(nv);  // m̄ and m α
  for (int k = 0; k < nv; ++k) {
    free[k] = Sym(1.0) - mask.lock[k];
    held[k] = mask.lock[k] * mask.alpha[k];
  }
  SymMatrix H = M;
  std::vector<Sym> bm(nv);
  for (int i = 0; i < nv; ++i) {
    Sym Ma = Sym(0.0);
    for (int j = 0; j < nv; ++j) {
      if (!held[j].is(0.0)) Ma = Ma + M[i][j] * held[j];
      H[i][j] = i == j ? free[i] * M[i][i] + mask.lock[i] : free[i] * free[j] * M[i][j];
    }
    bm[i] = free[i] * (b[i] - Ma) + held[i];
  }
  SymMatrix Jm = J;
  for (std::size_t r = 0; r < J.size(); ++r) {
    Sym Ja = Sym(0.0);
    for (int k = 0; k < nv; ++k) {
      Ja = Ja + J[r][k] * held[k];
      Jm[r][k] = J[r][k] * free[k];
    }
    rhs[r] = rhs[r] - Sym(sign) * Ja;
  }
  // H = Lᵀ D L, the runtime's factorization traced (dynamics/ltdl.hpp, RBDA §6.5 Table 6.3).
  std::vector<Sym> Lf(static_cast<std::size_t>(model.ancestor_offset[nv])), Df(nv), dinv(nv);  // L packed, D, D⁻¹
  ltdl_factor<Sym>(
      model, [&H](int r, int c) { return H[r][c]; }, Lf.data(), Df.data(), dinv.data());
  // A row that is zero for every q (e.g. the out-of-plane row of a point on a planar arm) is
  // dependent: its multiplier is 0 (the minimum-norm one, as the runtime solvers give) and
  // its equation 0 = rhs must hold when it is active (else the kernel returns false:
  // inconsistent rows).
  std::vector<int> live;
  for (int r = 0; r < static_cast<int>(Jm.size()); ++r) {
    bool zero = true;
    for (const Sym& x : Jm[r]) zero = zero && x.is(0.0);
    const Sym check = mask.row[r] * rhs[r];
    if (!zero) {
      live.push_back(r);
    } else if (!check.is(0.0)) {
      e.raw("if (!(std::abs(" + e.ref(check) + ") <= 1e-9)) return false;  // inconsistent row " + std::to_string(r));
    }
  }
  const int m = static_cast<int>(live.size());
  SymMatrix Z;
  for (int r : live) Z.push_back(Jm[r]);
  for (auto& z : Z) ltdl_solve_lt(model, Lf.data(), z.data());
  std::vector<Sym> w = bm;
  ltdl_solve_lt(model, Lf.data(), w.data());
  std::vector<Sym> a(m);
  for (int i = 0; i < m; ++i) {
    a[i] = mask.row[live[i]];
    rhs[i] = rhs[live[i]];
  }
  rhs.resize(m);
  SymMatrix S(m, std::vector<Sym>(m));
  for (int r = 0; r < m; ++r) {
    std::vector<Sym> zd(nv);
    for (int k = 0; k < nv; ++k) zd[k] = e.mul(Z[r][k], dinv[k]);
    for (int c = r; c < m; ++c) {
      Sym acc = Sym(0.0);
      for (int k = 0; k < nv; ++k) acc = e.add(acc, e.mul(zd[k], Z[c][k]));
      S[r][c] = S[c][r] = c == r ? a[r] * acc + (Sym(1.0) - a[r]) : a[r] * a[c] * acc;
    }
    Sym zw = Sym(0.0);
    for (int k = 0; k < nv; ++k) zw = e.add(zw, e.mul(zd[k], w[k]));
    rhs[r] = a[r] * e.sub(rhs[r], e.mul(Sym(sign), zw));
  }
  // S = L_S diag(d) L_Sᵀ, unit lower L_S.
  SymMatrix L(m, std::vector<Sym>(m, Sym(0.0)));
  std::vector<Sym> d(m), di(m);
  for (int j = 0; j < m; ++j) {
    Sym dj = S[j][j];
    for (int k = 0; k < j; ++k) dj = e.sub(dj, e.mul(e.mul(L[j][k], L[j][k]), d[k]));
    d[j] = dj;
    e.raw("if (!(" + e.ref(dj) + " > 1e-10 * " + e.ref(S[j][j]) + ")) return false;  // dependent rows");
    di[j] = e.div(Sym(1.0), dj);
    for (int i = j + 1; i < m; ++i) {
      Sym acc = S[i][j];
      for (int k = 0; k < j; ++k) acc = e.sub(acc, e.mul(e.mul(L[i][k], L[j][k]), d[k]));
      L[i][j] = e.mul(acc, di[j]);
    }
  }
  std::vector<Sym> x = rhs;
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < i; ++k) x[i] = e.sub(x[i], e.mul(L[i][k], x[k]));
  for (int i = 0; i < m; ++i) x[i] = e.mul(x[i], di[i]);
  for (int i = m - 1; i >= 0; --i)
    for (int k = i + 1; k < m; ++k) x[i] = e.sub(x[i], e.mul(L[k][i], x[k]));
  y = w;
  for (int r = 0; r < m; ++r)
    for (int k = 0; k < nv; ++k) y[k] = e.add(y[k], e.mul(e.mul(Sym(sign), Z[r][k]), x[r]));
  for (int k = 0; k < nv; ++k) y[k] = e.mul(y[k], dinv[k]);
  ltdl_solve_l(model, Lf.data(), y.data());
  x_out.assign(J.size(), Sym(0.0));
  for (int i = 0; i < m; ++i) x_out[live[i]] = x[i];
  x_lock.assign(nv, Sym(0.0));
  for (int k = 0; k < nv; ++k) {
    if (mask.lock[k].is(0.0)) continue;
    Sym r = -b[k];
    for (int j = 0; j < nv; ++j) r = r + M[k][j] * y[j];
    for (std::size_t i = 0; i < J.size(); ++i) r = r - Sym(sign) * J[i][k] * x_out[i];
    x_lock[k] = Sym(sign) * mask.lock[k] * r;
  }
}

}  // namespace

std::string body_states_kernel(const Model& model, const std::vector<std::string>& frames, int max_statements,
                               std::vector<KernelText>& kernels) {
  if (frames.empty()) return "";
  Emitter& e = Emitter::active();
  std::string list;
  for (const std::string& f : frames) {
    if (!model.has_frame(f)) model.frame_id(f);  // throws, naming the frame and listing the valid ones
    if (model.frames[model.frame_id(f)].parent == kWorld)
      throw std::invalid_argument("codegen: frame '" + f + "' is on the world: it has no body state");
    list += (list.empty() ? "" : ", ") + f;
  }
  const SymVector q = inputs("q", model.nq), v = inputs("v", model.nv);
  const BodyMotion bm = body_motion(model, placements(model, q), &v);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    const Index b = model.frames[model.frame_id(frames[f])].parent;
    const int o = 18 * static_cast<int>(f);
    for (int k = 0; k < 9; ++k) e.assign(at("out", o + k), bm.oM[b].R(k % 3, k / 3));  // column-major
    for (int k = 0; k < 3; ++k) {
      e.assign(at("out", o + 9 + k), bm.oM[b].p[k]);
      e.assign(at("out", o + 12 + k), bm.vel[b].v[k]);
      e.assign(at("out", o + 15 + k), bm.vel[b].w[k]);
    }
  }
  kernels.push_back(
      kernel_text(e,
                  "/// The kinematics of the bodies that carry these frames (the elastic contacts'): for each\n"
                  "/// frame, 18 numbers: its body's world placement oMi (rotation column-major, then position)\n"
                  "/// and velocity in the body's frame (linear, then angular), as forward_kinematics() gives\n"
                  "/// data.oMi and data.v. Only the bodies' chains to the root are computed.\n"
                  "void body_states(const double* q, const double* v, double* out);\n",
                  "Forward kinematics of the bodies of: " + list + " (RBDA §4.4, §5.3).", "void", "body_states",
                  {"const double* q", "const double* v", "double* out"}, "", max_statements));
  return "\n/// Frames whose bodies body_states reports (18 numbers each, in this order): " + list +
         ".\ninline constexpr int state_frames = " + std::to_string(frames.size()) + ";\n";
}

std::string constrained_kernels(const Model& model, const std::vector<HeldFrame>& held,
                                const std::vector<std::string>& locked, const std::vector<HeldDistance>& distances,
                                const std::vector<HeldWheel>& wheels, const KernelSelection& which,
                                std::vector<KernelText>& kernels) {
  if (held.empty() && locked.empty() && distances.empty() && wheels.empty()) return "";
  const ConstrainedLayout layout = constrained_layout(model, held, locked, distances, wheels);  // checks the names
  // Rows of J: the held frames' (m of them), then the distances' and the wheels' (nd of them);
  // the locks' are taken out.
  const int m = layout.frame_rows, ref_size = layout.ref_size, lock_rows = layout.lock_rows;
  const int first_distance = static_cast<int>(held.size() + locked.size());
  const int first_wheel = first_distance + static_cast<int>(distances.size());
  const int nd = static_cast<int>(distances.size() + 3 * wheels.size());
  std::string list;
  for (const HeldFrame& h : held)
    list += std::string(list.empty() ? "" : ", ") + h.kind() + " " + h.frame +
            (h.relative_to.empty() ? "" : " to " + h.relative_to);
  // The locked joints: their ids, and where their reference configuration starts in `ref`.
  std::vector<Index> joints;
  std::vector<int> ref_at;
  for (std::size_t l = 0; l < locked.size(); ++l) {
    joints.push_back(model.joint_id(locked[l]));
    ref_at.push_back(layout.declared[held.size() + l].ref);
    list += std::string(list.empty() ? "" : ", ") + "lock " + locked[l];
  }
  for (const HeldDistance& d : distances)
    list += std::string(list.empty() ? "" : ", ") + "distance " + d.frame_a + " to " + d.frame_b;
  for (const HeldWheel& w : wheels) list += std::string(list.empty() ? "" : ", ") + "wheel " + w.frame;
  const int declared = static_cast<int>(held.size() + joints.size() + distances.size() + wheels.size());
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  // `active`, one per declared constraint; nullptr means all on (the kernels' setup lines).
  std::string ones;
  for (int c = 0; c < declared; ++c) ones += std::string(c ? ", " : "") + "1.0";
  const std::string setup = "  static const double all_on[" + std::to_string(declared) + "] = {" + ones +
                            "};\n  if (active == nullptr) active = all_on;\n";
  auto activity = [&] {
    std::vector<Sym> a(declared);
    for (int c = 0; c < declared; ++c) a[c] = e.input(at("active", c));
    return a;
  };
  // The masks for the rows of `held` and the distances and for the locked dofs; alpha(lock,
  // dof) is the value an active lock gives its dof.
  auto masks = [&](const std::vector<Sym>& a, const auto& alpha) {
    Masks mk;
    for (std::size_t f = 0; f < held.size(); ++f)
      for (int r = 0; r < held[f].mask().count(); ++r) mk.row.push_back(a[f]);
    for (std::size_t i = 0; i < distances.size(); ++i) mk.row.push_back(a[first_distance + static_cast<int>(i)]);
    for (std::size_t i = 0; i < wheels.size(); ++i)
      for (int k = 0; k < 3; ++k) mk.row.push_back(a[first_wheel + static_cast<int>(i)]);
    mk.lock.assign(nv, Sym(0.0));
    mk.alpha.assign(nv, Sym(0.0));
    for (std::size_t l = 0; l < joints.size(); ++l)
      for (int k = 0; k < model.nv_joint[joints[l]]; ++k) {
        const int dof = model.idx_v[joints[l]] + k;
        mk.lock[dof] = a[held.size() + l];
        mk.alpha[dof] = alpha(static_cast<int>(l), k, dof);
      }
    return mk;
  };
  // Writes the multipliers: the frames' rows, then the locked dofs, then the distances' and the wheels'.
  auto outputs = [&](const char* array, const std::vector<Sym>& x, const std::vector<Sym>& x_lock) {
    for (int r = 0; r < m; ++r) e.assign(at(array, r), x[r]);
    int r = m;
    for (Index j : joints)
      for (int k = 0; k < model.nv_joint[j]; ++k) e.assign(at(array, r++), x_lock[model.idx_v[j] + k]);
    for (int i = 0; i < nd; ++i) e.assign(at(array, r++), x[m + i]);
  };
  // The rows of J: the held frames', the distances', the wheels' (with v: their drift and Baumgarte terms).
  auto position_rows = [&](const std::vector<STransform>& X, const SymVector* v) {
    const TreeKinematics tk = tree_kinematics(model, X, v);
    Rows rows = frame_rows(model, held, tk, v);
    distance_rows(model, distances, layout, first_distance, tk, v, rows);
    wheel_rows(model, wheels, first_wheel, tk, v, rows);
    return rows;
  };
  // Constrained forward dynamics, without or with external forces (b = τ − h + Σ J_iᵀ f_ext,i,
  // the RNEA with f_ext at a = 0). A lock's rows are J = E, γ = 0, e = q ⊖ q_ref (JointLock):
  // its dofs are given v̇ = −kd v − kp e.
  auto dynamics = [&](bool with_forces) {
    const std::vector<Sym> a = activity();
    const SymVector q = inputs("q", model.nq);
    const auto X = placements(model, q);
    const SymVector v = inputs("v", nv), tau = inputs("tau", nv);
    const std::vector<SForce> f_ext = with_forces ? force_inputs(model, "f_ext") : std::vector<SForce>{};
    const Rows rows = position_rows(X, &v);
    const SymMatrix M = crba(model, q);
    const SymVector h = rnea(model, q, v, SymVector::Zero(nv), f_ext);
    std::vector<Sym> b(nv), rhs(m + nd), lambda, qdd, lambda_lock;
    for (int k = 0; k < nv; ++k) b[k] = e.sub(tau[k], h[k]);
    for (int r = 0; r < m + nd; ++r) rhs[r] = e.neg(rows.gamma[r]);
    std::vector<std::vector<Sym>> err(joints.size());
    for (std::size_t l = 0; l < joints.size(); ++l) {
      const Index j = joints[l];
      const int iq = model.idx_q[j], r0 = ref_at[l];
      const JointType type = model.joint_types[j];
      if (model.nq_joint[j] == 1) {
        err[l] = {e.sub(q[iq], e.input(at("ref", r0)))};
      } else {  // the runtime's joint_difference on the manifold, called from the kernel
        const std::string out = e.fresh_name("lock_err");
        e.raw("double " + out + "[" + std::to_string(model.nv_joint[j]) + "];");
        e.raw("::articula::joint_difference(::articula::JointType::" +
              std::string(type == JointType::Spherical ? "Spherical" : "FreeFlyer") + ", ref + " + std::to_string(r0) +
              ", q + " + std::to_string(iq) + ", " + out + ");");
        for (int k = 0; k < model.nv_joint[j]; ++k)
          err[l].push_back(e.input(out + "[" + std::to_string(k) + "]", true));
      }
    }
    const Masks mk = masks(a, [&](int l, int k, int dof) {
      const int c = static_cast<int>(held.size()) + l;
      return -(e.input(at("kd", c)) * v[dof]) - e.input(at("kp", c)) * err[l][k];
    });
    range_space(e, model, M, rows.J, b, rhs, 1.0, mk, lambda, qdd, lambda_lock);
    for (int k = 0; k < nv; ++k) e.assign(at("qdd", k), qdd[k]);
    outputs("lambda", lambda, lambda_lock);
  };
  const std::string inputs_doc =
      "/// ref: the references, 12 numbers per held frame (position, then rotation column-major; a\n"
      "/// point uses the position; in the other frame for a loop), then each locked joint's nq\n"
      "/// coordinates, then each distance; kp, kd: the Baumgarte gains per declared constraint\n"
      "/// (0 = off); active: 1 (on) or 0 (off) per declared constraint, nullptr = all on. lambda:\n"
      "/// the frames' rows, then the locked dofs', the distances', the wheels' (0 for those off).\n"
      "/// Returns false, with qdd and lambda unspecified, when the active rows are dependent.\n";
  auto kernel = [&](std::string declaration, const std::string& comment, const std::string& fn,
                    const std::vector<std::string>& params) {
    kernels.push_back(kernel_text(e, std::move(declaration), comment + " Declared: " + list + ".", "bool", fn, params,
                                  setup, which.max_statements));
  };
  if (which.plain) {
    dynamics(false);
    kernel(
        "/// Constrained forward dynamics, as articula::constrained_forward_dynamics with the declared\n"
        "/// constraints that are active (FrameConstraint or LoopConstraint per held frame, JointLock per\n"
        "/// locked joint, DistanceConstraint per distance, WheelConstraint per wheel):\n"
        "/// M qdd + h = tau + J^T lambda, J qdd + gamma = 0, gamma = Jdot v + kd J v + kp e.\n" +
            inputs_doc +
            "bool constrained_dynamics(const double* q, const double* v, const double* tau, const double* ref,\n"
            "                          const double* kp, const double* kd, const double* active, double* qdd,\n"
            "                          double* lambda);\n",
        "Constrained forward dynamics, range space (docs/solvers.md).", "constrained_dynamics",
        {"const double* q", "const double* v", "const double* tau", "const double* ref", "const double* kp",
         "const double* kd", "const double* active", "double* qdd", "double* lambda"});
  }
  if (which.fext) {
    dynamics(true);
    kernel(
        "/// Constrained forward dynamics with external forces on the bodies (f_ext as in aba_fext; the\n"
        "/// other arguments as constrained_dynamics).\n"
        "bool constrained_dynamics_fext(const double* q, const double* v, const double* tau,\n"
        "                               const double* f_ext, const double* ref, const double* kp,\n"
        "                               const double* kd, const double* active, double* qdd, double* lambda);\n",
        "Constrained forward dynamics with external forces, range space (docs/solvers.md).",
        "constrained_dynamics_fext",
        {"const double* q", "const double* v", "const double* tau", "const double* f_ext", "const double* ref",
         "const double* kp", "const double* kd", "const double* active", "double* qdd", "double* lambda"});
  }
  if (which.jump) {
    // Velocity jump: S Λ = J v⁻, v⁺ = v⁻ − M⁻¹ Jᵀ Λ; a locked dof gets Δv = −v⁻ (v⁺ = 0).
    const std::vector<Sym> a = activity();
    const SymVector q = inputs("q", model.nq);
    const auto X = placements(model, q);
    const SymVector v = inputs("v_minus", nv);
    const Rows rows = position_rows(X, nullptr);
    const SymMatrix M = crba(model, q);
    std::vector<Sym> rhs(m + nd), Lambda, dv, Lambda_lock;
    for (int r = 0; r < m + nd; ++r) {
      Sym acc = Sym(0.0);
      for (int c = 0; c < nv; ++c) acc = e.add(acc, e.mul(rows.J[r][c], v[c]));
      rhs[r] = acc;
    }
    const Masks mk = masks(a, [&](int, int, int dof) { return -v[dof]; });
    range_space(e, model, M, rows.J, std::vector<Sym>(nv, Sym(0.0)), rhs, -1.0, mk, Lambda, dv, Lambda_lock);
    for (int k = 0; k < nv; ++k) e.assign(at("v_plus", k), e.add(v[k], dv[k]));
    outputs("Lambda", Lambda, Lambda_lock);
    kernel(
        "/// The plastic velocity jump when the active declared constraints switch on, as\n"
        "/// articula::velocity_jump (full form): [M J^T; J 0] [v_plus - v_minus; Lambda] = [0; -J v_minus].\n"
        "/// active and Lambda as in constrained_dynamics. Returns false as constrained_dynamics.\n"
        "bool velocity_jump(const double* q, const double* v_minus, const double* active, double* v_plus,\n"
        "                   double* Lambda);\n",
        "Velocity jump at activation, full form in range space (docs/activation.md).", "velocity_jump",
        {"const double* q", "const double* v_minus", "const double* active", "double* v_plus", "double* Lambda"});
  }
  return "\n/// The declared constraints (rows in this order): " + list +
         ".\ninline constexpr int held_frames = " + std::to_string(held.size()) +
         ";\ninline constexpr int locked_joints = " + std::to_string(joints.size()) +
         ";\ninline constexpr int distances = " + std::to_string(distances.size()) +
         ";\ninline constexpr int wheels = " + std::to_string(wheels.size()) +
         ";\n/// Entries of `active`, `kp` and `kd`; of `ref`.\ninline constexpr int constraints = " +
         std::to_string(declared) + ";\ninline constexpr int ref_size = " + std::to_string(ref_size) +
         ";\n/// Rows: of the held frames, and in all (the size of lambda).\ninline constexpr int frame_rows = " +
         std::to_string(m) + ";\ninline constexpr int m = " + std::to_string(m + lock_rows + nd) + ";\n";
}

}  // namespace articula::codegen
