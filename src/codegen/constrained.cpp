// Constrained forward dynamics and the activation jump for frames held in the world, on
// generator scalars (docs/codegen.md). The same equations as the runtime range-space solver
// (docs/solvers.md) and velocity_jump's full form (docs/activation.md):
//   M v̇ + h = τ + Jᵀ λ,  J v̇ + γ = 0;      [M Jᵀ; J 0] [Δv; Λ] = [0; −J v⁻].
#include "codegen/constrained.hpp"

#include <stdexcept>

#include "codegen/recursions.hpp"
#include "constraints/row_formulas.hpp"
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

/// A frame's motion and its local-world-aligned Jacobian columns (zero off the frame's support),
/// the inputs of the shared row formulas (constraints/row_formulas.hpp). A frame on the world
/// is constant: every velocity and column is the number 0.
struct FrameKinematics {
  rows::FrameMotion<Sym> m;
  std::vector<rows::Vec6<Sym>> J;  // [linear; angular] per dof
};

FrameKinematics frame_kinematics(const Model& model, const BodyMotion& bm, const std::vector<SMotion>& Jw,
                                 Index frame_id, bool with_motion) {
  FrameKinematics k;
  k.J.assign(static_cast<std::size_t>(model.nv), rows::Vec6<Sym>::Zero());
  if (frame_id < 0) return k;  // the world
  const Frame& frame = model.frames[frame_id];
  const Index b = frame.parent;
  const STransform P = frame.placement.cast<Sym>();
  if (b == kWorld) {
    k.m.p = P.p;
    k.m.R = P.R;
    return k;
  }
  if (with_motion) {
    k.m = rows::frame_motion<Sym>(bm.oMi[b], bm.v[b], bm.a[b], P);
  } else {
    const STransform oMf = bm.oMi[b] * P;
    k.m.p = oMf.p;
    k.m.R = oMf.R;
  }
  for (Index j = b; j != kWorld; j = model.parents[j])
    for (int c = model.idx_v[j]; c < model.idx_v[j] + model.nv_joint[j]; ++c)
      k.J[c] = rows::origin_column<Sym>(Jw[c].v, Jw[c].w, k.m.p);
  return k;
}

/// The bodies' motion and the world joint columns ⁰X_i S_i, once for every row.
struct TreeKinematics {
  BodyMotion bm;
  std::vector<SMotion> Jw;
};

TreeKinematics tree_kinematics(const Model& model, const SymVector& q, const SymVector* v) {
  TreeKinematics t{body_motion(model, q, v), std::vector<SMotion>(static_cast<std::size_t>(model.nv))};
  for (Index i = 0; i < model.njoints; ++i)
    for (int k = model.idx_v[i]; k < model.idx_v[i] + model.nv_joint[i]; ++k)
      t.Jw[k] = t.bm.oMi[i].act(SMotion::from(subspace_column(model, k)));
  return t;
}

/// γ = drift + kd J v + kp e of one row.
Sym stabilized(Emitter& e, const std::vector<Sym>& J, const SymVector& v, const Sym& drift, const Sym& kd,
               const Sym& kp, const Sym& err) {
  Sym Jv = Sym(0.0);
  for (std::size_t c = 0; c < J.size(); ++c) Jv = e.add(Jv, e.mul(J[c], v[static_cast<Index>(c)]));
  return e.add(e.add(drift, e.mul(kd, Jv)), e.mul(kp, err));
}

/// The rows of the held frames (rows::FramePair, as FramePairConstraint::compute), the masked
/// ones; with v, γ = drift + kd J v + kp e with the reference pose of frame f in ref[12 f …]
/// (position, then rotation column-major). log₃ is the runtime's, called from the kernel.
Rows frame_rows(const Model& model, const std::vector<HeldFrame>& held, const TreeKinematics& tk, const SymVector* v) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  Rows rows;
  for (std::size_t f = 0; f < held.size(); ++f) {
    const bool loop = !held[f].relative_to.empty();
    const FrameKinematics A = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(held[f].frame), v != nullptr);
    const FrameKinematics B =
        frame_kinematics(model, tk.bm, tk.Jw, loop ? model.frame_id(held[f].relative_to) : -1, v != nullptr);
    const rows::FramePair<Sym> pair(A.m.p, B.m.p, B.m.R, loop);
    const AxisMask mask = held[f].mask();
    bool angular = false;
    for (int k = 3; k < 6; ++k) angular = angular || mask.axis[k];
    SymMatrix J(6, std::vector<Sym>(nv, Sym(0.0)));
    for (int c = 0; c < nv; ++c) {
      const rows::Vec6<Sym> col = pair.column(A.J[c], B.J[c]);
      for (int k = 0; k < 6; ++k) J[k][c] = col[k];
    }
    if (v) {
      const rows::Vec6<Sym> drift = pair.drift(A.m, B.m);
      const int r0 = 12 * static_cast<int>(f);
      SVector3 ref_p;
      for (int k = 0; k < 3; ++k) ref_p[k] = e.input(at("ref", r0 + k));
      rows::Vec6<Sym> err;
      err.head<3>() = pair.linear_error(ref_p);
      err.tail<3>().setConstant(Sym(0.0));
      if (angular) {
        SMatrix3 Rref;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) Rref(r, c) = e.input(at("ref", r0 + 3 + r + 3 * c));  // column-major
        const SMatrix3 Rerr = pair.rotation_error(A.m.R, Rref);
        const std::string m = e.fresh_name("Rerr"), l = e.fresh_name("log");
        std::string init = "::articula::Matrix3 " + m + ";\n  " + m + " << ";
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) init += e.ref(Rerr(r, c)) + (r == 2 && c == 2 ? ";" : ", ");
        e.raw(init);
        e.raw("const ::articula::Vector3 " + l + " = ::articula::log3(" + m + ");");
        for (int k = 0; k < 3; ++k) err[3 + k] = e.input(l + "[" + std::to_string(k) + "]", true);
      }
      const Sym kp = e.input(at("kp", static_cast<int>(f))), kd = e.input(at("kd", static_cast<int>(f)));
      for (int r = 0; r < 6; ++r)
        if (mask.axis[r]) rows.gamma.push_back(stabilized(e, J[r], *v, drift[r], kd, kp, err[r]));
    }
    for (int r = 0; r < 6; ++r)
      if (mask.axis[r]) rows.J.push_back(std::move(J[r]));
  }
  return rows;
}

/// Appends the rows of the held distances (rows::Distance, as DistanceConstraint::compute), with
/// ℓ = max(‖d‖, 1e-300) computed in the kernel; distance i is declared constraint
/// first_slot + i, its d₀ in `ref`.
void distance_rows(const Model& model, const std::vector<HeldDistance>& distances, const ConstrainedLayout& layout,
                   int first_slot, const TreeKinematics& tk, const SymVector* v, Rows& rows) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  const auto length = [&e](const SVector3& d) {
    const std::string name = e.fresh_name("len");
    e.raw("const double " + name + " = __builtin_fmax(__builtin_sqrt(" + e.ref(d.dot(d)) + "), 1e-300);");
    return e.input(name, true);
  };
  for (std::size_t i = 0; i < distances.size(); ++i) {
    const int slot = first_slot + static_cast<int>(i);
    const FrameKinematics A = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(distances[i].frame_a), v != nullptr);
    const FrameKinematics B = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(distances[i].frame_b), v != nullptr);
    const rows::Distance<Sym> dist(A.m.p, B.m.p, length);
    std::vector<Sym> J(nv, Sym(0.0));
    for (int c = 0; c < nv; ++c) J[c] = dist.column(A.J[c], B.J[c]);
    if (v) {
      const Sym err = dist.error(e.input(at("ref", layout.declared[slot].ref)));
      rows.gamma.push_back(
          stabilized(e, J, *v, dist.drift(A.m, B.m), e.input(at("kd", slot)), e.input(at("kp", slot)), err));
    }
    rows.J.push_back(std::move(J));
  }
}

/// Appends the rows of the wheels (rows::Wheel, as WheelConstraint::compute), the wheel's
/// numbers folded in. A wheel flat on its plane (‖t‖ ≤ 1e-9) has no contact point: the kernel
/// returns false (the runtime's constraint then reports it). Wheel i is declared constraint
/// first_slot + i.
void wheel_rows(const Model& model, const std::vector<HeldWheel>& wheels, int first_slot, const TreeKinematics& tk,
                const SymVector* v, Rows& rows) {
  Emitter& e = Emitter::active();
  const int nv = model.nv;
  for (std::size_t i = 0; i < wheels.size(); ++i) {
    const HeldWheel& w = wheels[i];
    const int slot = first_slot + static_cast<int>(i);
    const FrameKinematics C = frame_kinematics(model, tk.bm, tk.Jw, model.frame_id(w.frame), v != nullptr);
    const auto tangent_norm = [&](const SVector3& t) {
      const std::string name = e.fresh_name("tn");
      e.raw("const double " + name + " = __builtin_sqrt(" + e.ref(t.dot(t)) + ");");
      e.raw("if (!(" + name + " > 1e-9)) return false;  // wheel " + w.frame + " flat on its plane");
      return e.input(name, true);
    };
    const rows::Wheel<Sym> wheel(C.m, Sym(w.radius), w.axis.normalized().cast<Sym>(), w.normal.normalized().cast<Sym>(),
                                 tangent_norm);
    std::vector<std::vector<Sym>> J(3, std::vector<Sym>(nv, Sym(0.0)));
    for (int c = 0; c < nv; ++c) {
      const SVector3 col = wheel.column(C.J[c]);
      for (int k = 0; k < 3; ++k) J[k][c] = col[k];
    }
    if (v) {
      const SVector3 drift = wheel.drift(C.m), err = wheel.error(Sym(w.height));
      const Sym kp = e.input(at("kp", slot)), kd = e.input(at("kd", slot));
      for (int k = 0; k < 3; ++k) rows.gamma.push_back(stabilized(e, J[k], *v, drift[k], kd, kp, err[k]));
    }
    for (int k = 0; k < 3; ++k) rows.J.push_back(std::move(J[k]));
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
      e.raw("if (!(__builtin_fabs(" + e.ref(check) + ") <= 1e-9)) return false;  // inconsistent row " +
            std::to_string(r));
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

KernelSelection kernel_selection(const KernelDeclarations& d, bool engine_kernels_only) {
  KernelSelection w;
  w.jump = !engine_kernels_only;
  w.plain = w.jump || (!d.external_forces && d.contacts.empty());
  w.fext = d.external_forces;
  return w;
}

std::string constrained_kernels(const Model& model, const KernelDeclarations& d, const KernelSelection& which,
                                std::vector<KernelText>& kernels) {
  if (!d.constrained()) return "";
  const std::vector<HeldFrame>& held = d.held_frames;
  const std::vector<std::string>& locked = d.locked_joints;
  const std::vector<HeldDistance>& distances = d.distances;
  const std::vector<HeldWheel>& wheels = d.wheels;
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
  auto position_rows = [&](const SymVector& q, const SymVector* v) {
    const TreeKinematics tk = tree_kinematics(model, q, v);
    Rows rows = frame_rows(model, held, tk, v);
    distance_rows(model, distances, layout, first_distance, tk, v, rows);
    wheel_rows(model, wheels, first_wheel, tk, v, rows);
    return rows;
  };
  // The joints' placements, emitted before the velocity inputs are read: the kinematics pass of
  // the rows then finds them (hash-consed, no line twice). In this order the compiled kernels
  // ran 10-18 % faster (solo12, bench_constrained) than with every input read first.
  auto place_first = [&](const SymVector& q) { (void)body_motion(model, q, nullptr); };
  // Constrained forward dynamics, without or with external forces (b = τ − h + Σ J_iᵀ f_ext,i,
  // the RNEA with f_ext at a = 0). A lock's rows are J = E, γ = 0, e = q ⊖ q_ref (JointLock):
  // its dofs are given v̇ = −kd v − kp e.
  auto dynamics = [&](bool with_forces) {
    const std::vector<Sym> a = activity();
    const SymVector q = inputs("q", model.nq);
    place_first(q);
    const SymVector v = inputs("v", nv), tau = inputs("tau", nv);
    const std::vector<SForce> f_ext = with_forces ? force_inputs(model, "f_ext") : std::vector<SForce>{};
    const Rows rows = position_rows(q, &v);
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
    place_first(q);
    const SymVector v = inputs("v_minus", nv);
    const Rows rows = position_rows(q, nullptr);
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
