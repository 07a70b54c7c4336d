// Constrained forward dynamics and the activation jump for frames held in the world, on
// generator scalars (docs/codegen.md). The same equations as the runtime range-space solver
// (docs/solvers.md) and velocity_jump's full form (docs/activation.md):
//   M v̇ + h = τ + Jᵀ λ,  J v̇ + γ = 0;      [M Jᵀ; J 0] [Δv; Λ] = [0; −J v⁻].
#include "codegen/constrained.hpp"

#include <stdexcept>

#include "codegen/recursions.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula::codegen {
namespace {

/// The rows of the held frames: J (m × nv), and for the dynamics the stabilized drift
/// γ = J̇ v + kd J v + kp e (FrameConstraint with its Baumgarte terms, docs/constraints.md).
struct Rows {
  SymMatrix J;
  std::vector<Sym> gamma;
};

Rows frame_rows(const Model& model, const std::vector<HeldFrame>& held, const std::vector<STransform>& X,
                const SymVector* v) {
  Emitter& e = Emitter::active();
  const int nb = model.njoints, nv = model.nv;
  std::vector<STransform> oM(nb);
  std::vector<SMotion> vel(nb), acc(nb);
  std::vector<SMotion> Jw(nv);  // world joint columns ⁰X_i S_i
  for (Index i = 0; i < nb; ++i) {
    const Index p = model.parents[i];
    oM[i] = p == kWorld ? X[i] : oM[p] * X[i];
    for (int k = model.idx_v[i]; k < model.idx_v[i] + model.nv_joint[i]; ++k)
      Jw[k] = oM[i].act(SMotion::from(subspace_column(model, k)));
    if (v) {  // body velocities and bias accelerations (v̇ = 0, no gravity), body coordinates
      const SMotion vJ = joint_motion(model, i, *v);
      vel[i] = (p == kWorld ? SMotion::Zero() : X[i].act_inv(vel[p])) + vJ;
      acc[i] = (p == kWorld ? SMotion::Zero() : X[i].act_inv(acc[p])) + vel[i].cross(vJ);
    }
  }
  Rows rows;
  for (std::size_t f = 0; f < held.size(); ++f) {
    const Frame& frame = model.frames[model.frame_id(held[f].frame)];
    const Index b = frame.parent;
    const STransform P = frame.placement.cast<Sym>();
    const STransform oMf = oM[b] * P;
    std::vector<bool> support(nv, false);
    for (Index j = b; j != kWorld; j = model.parents[j])
      for (int c = model.idx_v[j]; c < model.idx_v[j] + model.nv_joint[j]; ++c) support[c] = true;
    const int dim = held[f].weld ? 6 : 3;
    // Local-world-aligned Jacobian: column c = [v_c + ω_c × p_f; ω_c] (frame_jacobian()).
    SymMatrix J(dim, std::vector<Sym>(nv, Sym(0.0)));
    for (int c = 0; c < nv; ++c) {
      if (!support[c]) continue;
      const SVector3 lin = Jw[c].v + Jw[c].w.cross(oMf.p);
      for (int k = 0; k < 3; ++k) {
        J[k][c] = lin[k];
        if (dim == 6) J[3 + k][c] = Jw[c].w[k];
      }
    }
    if (v) {
      // Drift: the frame origin's classical acceleration R_f (a_f + ω_f × v_f) and R_f ω̇_f
      // from the frame's local velocity and bias acceleration (frame_acceleration()).
      const SMotion vf = P.act_inv(vel[b]), af = P.act_inv(acc[b]);
      const SVector3 drift_lin = oMf.R * (af.v + vf.w.cross(vf.v));
      const SVector3 drift_ang = oMf.R * af.w;
      // Error e = [p_f − p_ref; log₃(R_f R_refᵀ)], reference pose from ref[12 f …].
      const int r0 = 12 * static_cast<int>(f);
      SVector3 err_lin;
      for (int k = 0; k < 3; ++k) err_lin[k] = oMf.p[k] - e.input(at("ref", r0 + k));
      SVector3 err_ang;
      if (dim == 6) {
        SMatrix3 Rref;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Rref(r, c) = e.input(at("ref", r0 + 3 + r + 3 * c));  // column-major
        SMatrix3 Rerr;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Rerr(r, c) = oMf.R.row(r).dot(Rref.row(c));  // R_f R_refᵀ
        const std::string m = e.fresh_name("Rerr"), l = e.fresh_name("log");
        std::string init = "::articula::Matrix3 " + m + ";\n  " + m + " << ";
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) init += e.ref(Rerr(r, c)) + (r == 2 && c == 2 ? ";" : ", ");
        e.raw(init);
        e.raw("const ::articula::Vector3 " + l + " = ::articula::log3(" + m + ");");
        for (int k = 0; k < 3; ++k) err_ang[k] = e.input(l + "[" + std::to_string(k) + "]");
      }
      const Sym kp = e.input(at("kp", static_cast<int>(f))), kd = e.input(at("kd", static_cast<int>(f)));
      for (int r = 0; r < dim; ++r) {
        Sym Jv = Sym(0.0);
        for (int c = 0; c < nv; ++c) Jv = e.add(Jv, e.mul(J[r][c], (*v)[c]));
        const Sym drift = r < 3 ? drift_lin[r] : drift_ang[r - 3];
        const Sym err = r < 3 ? err_lin[r] : err_ang[r - 3];
        rows.gamma.push_back(e.add(e.add(drift, e.mul(kd, Jv)), e.mul(kp, err)));
      }
    }
    for (auto& row : J) rows.J.push_back(std::move(row));
  }
  return rows;
}

/// M = Lᵀ D L in place on the tree's pattern (RBDA §6.5, Table 6.3): afterwards H[k][i] = L_ki
/// for the ancestors i of k and H[k][k] = D_k. No fill-in outside the pattern.
void factor_ltdl(Emitter& e, const Model& model, SymMatrix& H) {
  const auto& parent = model.dof_parent;
  for (int k = model.nv - 1; k >= 0; --k)
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const Sym a = e.div(H[k][i], H[k][k]);
      for (int j = i; j >= 0; j = parent[j]) H[i][j] = e.sub(H[i][j], e.mul(a, H[k][j]));
      H[k][i] = a;
    }
}

/// y ← L⁻ᵀ y (Lᵀ unit upper triangular on the pattern).
void solve_lt(Emitter& e, const Model& model, const SymMatrix& H, std::vector<Sym>& y) {
  for (int k = model.nv - 1; k >= 0; --k)
    for (int i = model.dof_parent[k]; i >= 0; i = model.dof_parent[i]) y[i] = e.sub(y[i], e.mul(H[k][i], y[k]));
}

/// y ← L⁻¹ y.
void solve_l(Emitter& e, const Model& model, const SymMatrix& H, std::vector<Sym>& y) {
  for (int k = 0; k < model.nv; ++k)
    for (int i = model.dof_parent[k]; i >= 0; i = model.dof_parent[i]) y[k] = e.sub(y[k], e.mul(H[k][i], y[i]));
}

/// The range-space solve shared by both kernels (docs/solvers.md, "range space"): with
/// Z = L⁻ᵀ Jᵀ and w = L⁻ᵀ b, S = Zᵀ D⁻¹ Z = J M⁻¹ Jᵀ and S x = rhs − Zᵀ D⁻¹ w by an unpivoted
/// LDLᵀ of S (Golub & Van Loan §4.1) whose pivots are tested (a pivot below 1e-10 of its
/// diagonal entry: dependent rows, the kernel returns false); returns x and
/// y = L⁻¹ D⁻¹ (w + sign Z x) = M⁻¹ (b + sign Jᵀ x).
void range_space(Emitter& e, const Model& model, const SymMatrix& M, const SymMatrix& J, std::vector<Sym> b,
                 std::vector<Sym> rhs, double sign, std::vector<Sym>& x_out, std::vector<Sym>& y) {
  const int nv = model.nv;
  SymMatrix H = M;
  factor_ltdl(e, model, H);
  std::vector<Sym> dinv(nv);
  for (int k = 0; k < nv; ++k) dinv[k] = e.div(Sym(1.0), H[k][k]);
  // A row that is zero for every q (e.g. the out-of-plane row of a point on a planar arm) is
  // dependent: its multiplier is 0 (the minimum-norm one, as the runtime solvers give) and
  // its equation 0 = rhs must hold (else the kernel returns false: inconsistent rows).
  std::vector<int> live;
  for (int r = 0; r < static_cast<int>(J.size()); ++r) {
    bool zero = true;
    for (const Sym& x : J[r]) zero = zero && x.is(0.0);
    if (!zero) {
      live.push_back(r);
    } else if (!rhs[r].is(0.0)) {
      e.raw("if (!(std::abs(" + e.ref(rhs[r]) + ") <= 1e-9)) return false;  // inconsistent row " + std::to_string(r));
    }
  }
  const int m = static_cast<int>(live.size());
  SymMatrix Z;
  for (int r : live) Z.push_back(J[r]);
  for (auto& z : Z) solve_lt(e, model, H, z);
  solve_lt(e, model, H, b);
  for (int i = 0; i < m; ++i) rhs[i] = rhs[live[i]];
  rhs.resize(m);
  SymMatrix S(m, std::vector<Sym>(m));
  for (int r = 0; r < m; ++r) {
    std::vector<Sym> zd(nv);
    for (int k = 0; k < nv; ++k) zd[k] = e.mul(Z[r][k], dinv[k]);
    for (int c = r; c < m; ++c) {
      Sym acc = Sym(0.0);
      for (int k = 0; k < nv; ++k) acc = e.add(acc, e.mul(zd[k], Z[c][k]));
      S[r][c] = S[c][r] = acc;
    }
    Sym zw = Sym(0.0);
    for (int k = 0; k < nv; ++k) zw = e.add(zw, e.mul(zd[k], b[k]));
    rhs[r] = e.sub(rhs[r], e.mul(Sym(sign), zw));
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
      Sym a = S[i][j];
      for (int k = 0; k < j; ++k) a = e.sub(a, e.mul(e.mul(L[i][k], L[j][k]), d[k]));
      L[i][j] = e.mul(a, di[j]);
    }
  }
  std::vector<Sym> x = rhs;
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < i; ++k) x[i] = e.sub(x[i], e.mul(L[i][k], x[k]));
  for (int i = 0; i < m; ++i) x[i] = e.mul(x[i], di[i]);
  for (int i = m - 1; i >= 0; --i)
    for (int k = i + 1; k < m; ++k) x[i] = e.sub(x[i], e.mul(L[k][i], x[k]));
  y = b;
  for (int r = 0; r < m; ++r)
    for (int k = 0; k < nv; ++k) y[k] = e.add(y[k], e.mul(e.mul(Sym(sign), Z[r][k]), x[r]));
  for (int k = 0; k < nv; ++k) y[k] = e.mul(y[k], dinv[k]);
  solve_l(e, model, H, y);
  x_out.assign(J.size(), Sym(0.0));
  for (int i = 0; i < m; ++i) x_out[live[i]] = x[i];
}

}  // namespace

std::string constrained_kernels(const Model& model, const std::vector<HeldFrame>& held, const KernelSelection& which,
                                std::vector<KernelText>& kernels) {
  if (held.empty()) return "";
  int m = 0;
  std::string list;
  for (const HeldFrame& h : held) {
    if (!model.has_frame(h.frame)) model.frame_id(h.frame);  // throws, naming the frame and listing the valid ones
    if (model.frames[model.frame_id(h.frame)].parent == kWorld)
      throw std::invalid_argument("codegen: frame '" + h.frame + "' is on the world: holding it constrains nothing");
    m += h.weld ? 6 : 3;
    list += std::string(list.empty() ? "" : ", ") + (h.weld ? "weld " : "point ") + h.frame;
  }
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  // Constrained forward dynamics, without or with external forces (b = τ − h + Σ J_iᵀ f_ext,i,
  // the RNEA with f_ext at a = 0).
  auto dynamics = [&](bool with_forces) {
    const SymVector q = inputs("q", model.nq);
    const auto X = placements(model, q);
    const SymVector v = inputs("v", nv), tau = inputs("tau", nv);
    const std::vector<SForce> f_ext = with_forces ? force_inputs(model, "f_ext") : std::vector<SForce>{};
    const Rows rows = frame_rows(model, held, X, &v);
    const SymMatrix M = crba(model, X);
    const SymVector h = rnea(model, q, v, SymVector::Zero(nv), f_ext);
    std::vector<Sym> b(nv), rhs(m), lambda, qdd;
    for (int k = 0; k < nv; ++k) b[k] = e.sub(tau[k], h[k]);
    for (int r = 0; r < m; ++r) rhs[r] = e.neg(rows.gamma[r]);
    range_space(e, model, M, rows.J, b, rhs, 1.0, lambda, qdd);
    for (int k = 0; k < nv; ++k) e.assign(at("qdd", k), qdd[k]);
    for (int r = 0; r < m; ++r) e.assign(at("lambda", r), lambda[r]);
    e.raw("return true;");
    return e.take();
  };
  if (which.plain)
    kernels.push_back(
        {"/// Constrained forward dynamics, as articula::constrained_forward_dynamics with one FrameConstraint\n"
         "/// per held frame: M qdd + h = tau + J^T lambda, J qdd + gamma = 0, gamma = Jdot v + kd J v + kp e.\n"
         "/// ref: 12 numbers per held frame, the reference pose (position, then rotation column-major; a\n"
         "/// point uses the position); kp, kd: the Baumgarte gains per held frame (0 = off). Returns false,\n"
         "/// with qdd and lambda unspecified, when J M^-1 J^T is singular (dependent rows).\n"
         "bool constrained_dynamics(const double* q, const double* v, const double* tau, const double* ref,\n"
         "                          const double* kp, const double* kd, double* qdd, double* lambda);\n",
         "\n// Constrained forward dynamics, range space (docs/solvers.md), frames held: " + list +
             ".\nbool constrained_dynamics(const double* q, const double* v, const double* tau, const double* "
             "ref,\n                          const double* kp, const double* kd, double* qdd, double* lambda) "
             "{\n  (void)q, (void)v, (void)tau, (void)ref, (void)kp, (void)kd, (void)qdd, (void)lambda;\n" +
             dynamics(false) + "}\n"});
  if (which.fext)
    kernels.push_back(
        {"/// Constrained forward dynamics with external forces on the bodies (f_ext as in aba_fext; the\n"
         "/// other arguments as constrained_dynamics).\n"
         "bool constrained_dynamics_fext(const double* q, const double* v, const double* tau,\n"
         "                               const double* f_ext, const double* ref, const double* kp,\n"
         "                               const double* kd, double* qdd, double* lambda);\n",
         "\n// Constrained forward dynamics with external forces, range space (docs/solvers.md), frames held: " + list +
             ".\nbool constrained_dynamics_fext(const double* q, const double* v, const double* tau, const double* "
             "f_ext,\n                               const double* ref, const double* kp, const double* kd, double* "
             "qdd,\n                               double* lambda) {\n  (void)q, (void)v, (void)tau, (void)f_ext, "
             "(void)ref, (void)kp, (void)kd, (void)qdd, (void)lambda;\n" +
             dynamics(true) + "}\n"});
  if (which.jump) {
    // Velocity jump: S Λ = J v⁻, v⁺ = v⁻ − M⁻¹ Jᵀ Λ.
    const SymVector q = inputs("q", model.nq);
    const auto X = placements(model, q);
    const SymVector v = inputs("v_minus", nv);
    const Rows rows = frame_rows(model, held, X, nullptr);
    const SymMatrix M = crba(model, X);
    std::vector<Sym> rhs(m), Lambda, dv;
    for (int r = 0; r < m; ++r) {
      Sym acc = Sym(0.0);
      for (int c = 0; c < nv; ++c) acc = e.add(acc, e.mul(rows.J[r][c], v[c]));
      rhs[r] = acc;
    }
    range_space(e, model, M, rows.J, std::vector<Sym>(nv, Sym(0.0)), rhs, -1.0, Lambda, dv);
    for (int k = 0; k < nv; ++k) e.assign(at("v_plus", k), e.add(v[k], dv[k]));
    for (int r = 0; r < m; ++r) e.assign(at("Lambda", r), Lambda[r]);
    e.raw("return true;");
    kernels.push_back(
        {"/// The plastic velocity jump when the held frames switch on, as articula::velocity_jump (full form):\n"
         "/// [M J^T; J 0] [v_plus - v_minus; Lambda] = [0; -J v_minus]. Returns false as constrained_dynamics.\n"
         "bool velocity_jump(const double* q, const double* v_minus, double* v_plus, double* Lambda);\n",
         "\n// Velocity jump at activation, full form in range space (docs/activation.md).\nbool "
         "velocity_jump(const double* q, const double* v_minus, double* v_plus, double* Lambda) {\n  "
         "(void)q, (void)v_minus, (void)v_plus, (void)Lambda;\n" +
             e.take() + "}\n"});
  }
  return "\n/// Frames held in the world (rows in this order): " + list +
         ".\ninline constexpr int held_frames = " + std::to_string(held.size()) +
         ";\ninline constexpr int m = " + std::to_string(m) + ";\n";
}

}  // namespace articula::codegen
