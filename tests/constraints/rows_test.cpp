// The rows of every constraint type against finite differences, on several models at
// random (q, v):
//  - holonomic rows: J equals the derivative of the position error e along q ⊕ δ e_k
//    (central differences on the manifold);
//  - every row: the raw drift γ (ConstraintSet::drift()) equals d/dt (J(q(t))) v along
//    q(t) = q ⊕ t v with v held fixed (v̇ = 0), by central differences;
//  - the stabilized γ is drift + kd J v + kp e;
//  - the wheel: J v equals the velocity of the rim point at the contact computed by hand
//    (finite difference of the body-fixed point's world position), the contact point is
//    the one of the docs, and the normal row is the gradient of the contact height.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

constexpr double kDelta = 1e-6;  // configuration step for ∂e/∂q
constexpr double kTime = 1e-5;   // time step for d/dt J(q(t)) v
constexpr double kTol = 1e-6;    // relative tolerance of the finite differences

struct Rows {
  MatrixX J;
  VectorX drift, gamma, error;
};

Rows rows_at(const Model& model, Data& data, ConstraintSet& set, const VectorX& q, const VectorX& v) {
  set.compute_rows(model, data, q, v);
  return {set.J(), set.drift(), set.gamma(), set.error()};
}

// Column k: (e(q ⊕ δ e_k) − e(q ⊕ −δ e_k)) / 2δ.
MatrixX fd_error_jacobian(const Model& model, Data& data, ConstraintSet& set, const VectorX& q) {
  const VectorX zero = VectorX::Zero(model.nv);
  MatrixX out(set.dim(), model.nv);
  for (int k = 0; k < model.nv; ++k) {
    const VectorX ek = VectorX::Unit(model.nv, k);
    const VectorX ep = rows_at(model, data, set, integrate(model, q, ek, kDelta), zero).error;
    const VectorX em = rows_at(model, data, set, integrate(model, q, ek, -kDelta), zero).error;
    out.col(k) = (ep - em) / (2 * kDelta);
  }
  return out;
}

// (J(q(h)) − J(q(−h))) v / 2h with q(t) = q ⊕ t v.
VectorX fd_drift(const Model& model, Data& data, ConstraintSet& set, const VectorX& q, const VectorX& v) {
  const MatrixX Jp = rows_at(model, data, set, integrate(model, q, v, kTime), v).J;
  const MatrixX Jm = rows_at(model, data, set, integrate(model, q, v, -kTime), v).J;
  return (Jp - Jm) * v / (2 * kTime);
}

// The last frame on a moving body (deep in the last branch).
Index last_moving_frame(const Model& model) {
  Index a = static_cast<Index>(model.frames.size()) - 1;
  while (model.frames[a].parent == kWorld) --a;
  return a;
}

// Frames used on a model: A = last_moving_frame(), B = a frame on the moving body nearest the
// root (so that many joints move A relative to B) other than A's, with its origin away from A's.
struct FramePair {
  std::string a, b;
};
FramePair pick_frames(const Model& model, Data& data, const VectorX& q) {
  forward_kinematics(model, data, q);
  const Index a = last_moving_frame(model);
  const Vector3 pa = frame_placement(model, data, a).p;
  Index best = -1;
  for (Index b = 0; b < static_cast<Index>(model.frames.size()); ++b) {
    const Index body = model.frames[b].parent;
    if (body == kWorld || body == model.frames[a].parent) continue;
    if ((frame_placement(model, data, b).p - pa).norm() < 0.05) continue;
    if (best < 0 || body < model.frames[best].parent) best = b;
  }
  return {model.frames[a].name, best < 0 ? "" : model.frames[best].name};
}

// Checks one constraint alone in a set at (q, v). holonomic_rows: the rows whose J is ∂e/∂q.
void check_rows(const Model& model, const std::shared_ptr<Constraint>& c, const VectorX& q, const VectorX& v,
                const std::vector<int>& holonomic_rows, const std::string& what) {
  SCOPED_TRACE(model.name + " / " + what + " (" + c->name() + ")");
  Data data(model);
  ConstraintSet set(model);
  set.add(c);
  c->set_baumgarte_frequency(3.0);
  const Rows r = rows_at(model, data, set, q, v);  // captures the reference at q (if not given)
  ASSERT_EQ(r.J.rows(), c->dim());
  ASSERT_TRUE(r.J.allFinite() && r.drift.allFinite() && r.error.allFinite());
  // ∂e/∂q on the holonomic rows.
  const MatrixX Jfd = fd_error_jacobian(model, data, set, q);
  for (int row : holonomic_rows) {
    EXPECT_LT(test::rel_err(r.J.row(row), Jfd.row(row)), kTol)
        << "row " << row << "\nJ    = " << r.J.row(row) << "\nJ_fd = " << Jfd.row(row);
  }
  // Drift = J̇ v.
  const VectorX gfd = fd_drift(model, data, set, q, v);
  EXPECT_LT(test::rel_err(r.drift, gfd), kTol) << "\nγ    = " << r.drift.transpose() << "\nγ_fd = " << gfd.transpose();
  // Baumgarte: γ_stab = γ + kd J v + kp e.
  const VectorX stab = r.drift + c->kd() * r.J * v + c->kp() * r.error;
  EXPECT_LT(test::rel_err(r.gamma, stab), 1e-12);
}

std::vector<int> all_rows(int m) {
  std::vector<int> out(m);
  for (int k = 0; k < m; ++k) out[k] = k;
  return out;
}

const char* const kModels[] = {"pendulum3r", "ur5", "panda", "solo12", "talos", "mixed_fixed", "mixed_floating"};

const Model& model_named(const std::string& name) {
  for (const auto& m : test::test_models())
    if (m.name == name) return m.model;
  throw std::invalid_argument("no test model " + name);
}

TEST(ConstraintRows, FrameLoopDistanceJointLockAgainstFiniteDifferences) {
  std::mt19937 rng(20240611);
  for (const char* name : kModels) {
    const Model& model = model_named(name);
    Data data(model);
    for (int trial = 0; trial < 2; ++trial) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = test::random_vector(model.nv, rng);
      const FramePair f = pick_frames(model, data, q);
      ASSERT_FALSE(f.b.empty()) << name;
      // The reference is captured at q (e = 0): every row is ∂e/∂q there, angular ones included.
      check_rows(model, std::make_shared<FrameConstraint>("weld", f.a), q, v, all_rows(6), "FrameConstraint weld");
      check_rows(model, std::make_shared<FrameConstraint>("subset", f.a, AxisMask::parse("xzry")), q, v, all_rows(3),
                 "FrameConstraint xzry");
      check_rows(model, std::make_shared<LoopConstraint>("loop6", f.a, f.b, AxisMask::weld()), q, v, all_rows(6),
                 "LoopConstraint weld");
      check_rows(model, std::make_shared<LoopConstraint>("loop_subset", f.b, f.a, AxisMask::parse("yrxrz")), q, v,
                 all_rows(3), "LoopConstraint yrxrz");
      // Linear rows are exact derivatives at any error: a far-off user reference.
      check_rows(model,
                 std::make_shared<LoopConstraint>("loop_far", f.a, f.b, AxisMask::point(), test::random_transform(rng)),
                 q, v, all_rows(3), "LoopConstraint point, far reference");
      check_rows(model,
                 std::make_shared<FrameConstraint>("point_far", f.a, AxisMask::point(), test::random_transform(rng)), q,
                 v, all_rows(3), "FrameConstraint point, far reference");
      if (model.has_frame("world_mark")) {  // B a user frame on the world (its J_B = 0, its pose not identity)
        check_rows(model, std::make_shared<LoopConstraint>("loop_world", f.a, "world_mark", AxisMask::weld()), q, v,
                   all_rows(6), "LoopConstraint weld to a world frame");
      }
      check_rows(model, std::make_shared<DistanceConstraint>("dist", f.a, f.b), q, v, all_rows(1),
                 "DistanceConstraint");
      check_rows(model, std::make_shared<DistanceConstraint>("dist_far", f.a, f.b, 0.37), q, v, all_rows(1),
                 "DistanceConstraint, other distance");
      // JointLock on the root joint (free-flyer / spherical / revolute) and the last joint.
      const std::vector<std::string> joints{model.joint_names.front(), model.joint_names.back()};
      auto lock = std::make_shared<JointLock>(model, "lock", joints);
      check_rows(model, lock, q, v, all_rows(lock->dim()), "JointLock");
    }
  }
}

TEST(ConstraintRows, CallbackRowsSeeCurrentKinematics) {
  // A user constraint holding a frame origin's height and the x coordinate of its y axis;
  // the callbacks read data, which must hold the kinematics at (q, v, v̇ = 0).
  std::mt19937 rng(77);
  for (const char* name : {"ur5", "solo12", "mixed_floating"}) {
    const Model& model = model_named(name);
    Data data(model);
    const Index id = last_moving_frame(model);
    for (int trial = 0; trial < 2; ++trial) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = test::random_vector(model.nv, rng);
      auto jac = [id](const Model& m, const Data& d, VectorRef) {
        MatrixX J6(6, m.nv);
        frame_jacobian(m, d, id, ReferenceFrame::LocalWorldAligned, J6);
        const Vector3 y = frame_placement(m, d, id).R.col(1);
        MatrixX J(2, m.nv);
        J.row(0) = J6.row(2);
        J.row(1) = -(skew(y) * J6.bottomRows<3>()).row(0);  // d/dt y = ω × y
        return J;
      };
      auto drift = [id](const Model& m, const Data& d, VectorRef, VectorRef) {
        const Vector3 y = frame_placement(m, d, id).R.col(1);
        const Motion vel = frame_velocity(m, d, id, ReferenceFrame::LocalWorldAligned);
        const Motion acc = frame_acceleration(m, d, id, ReferenceFrame::LocalWorldAligned);
        VectorX g(2);
        g << acc.v.z(), (acc.w.cross(y) + vel.w.cross(vel.w.cross(y))).x();
        return g;
      };
      auto error = [id](const Model& m, const Data& d, VectorRef) {
        const Transform X = frame_placement(m, d, id);
        VectorX e(2);
        e << X.p.z() - 0.3, X.R(0, 1) - 0.1;
        return e;
      };
      check_rows(model, std::make_shared<CallbackConstraint>("user", 2, jac, drift, error), q, v, all_rows(2),
                 "CallbackConstraint");
    }
  }
}

TEST(ConstraintRows, WheelContactVelocityAndDrift) {
  std::mt19937 rng(4242);
  for (const char* name : {"ur5", "panda", "solo12", "mixed_fixed", "mixed_floating"}) {
    const Model& model = model_named(name);
    Data data(model);
    const Index id = last_moving_frame(model);
    int checked = 0;
    for (int trial = 0; trial < 3; ++trial) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = test::random_vector(model.nv, rng);
      const Vector3 n = test::random_vector(3, rng).normalized();
      const double radius = 0.1 + 0.05 * trial, height = 0.2 * trial - 0.1;
      forward_kinematics(model, data, q);
      const Transform X = frame_placement(model, data, id);
      Vector3 axis = test::random_vector(3, rng).normalized();
      if (std::abs(n.dot(X.R * axis)) > 0.9) continue;  // nearly flat wheel: contact ill-defined
      ++checked;
      auto wheel = std::make_shared<WheelConstraint>("wheel", model.frames[id].name, radius, axis, n, height);
      SCOPED_TRACE(std::string(name) + " trial " + std::to_string(trial));
      Data d2(model);
      ConstraintSet set(model);
      set.add(wheel);
      const Rows r = rows_at(model, d2, set, q, v);
      // Contact point by hand: â = R axis, u = (n − (nᵀâ)â)/‖·‖, p = c − r u.
      const Vector3 a = X.R * axis;
      const Vector3 u = (n - n.dot(a) * a).normalized();
      const Vector3 p = X.p - radius * u;
      EXPECT_LT((wheel->contact_point() - p).norm(), 1e-12);
      EXPECT_NEAR(r.error.dot(n), n.dot(p) - height, 1e-12);
      EXPECT_LT((r.error - n * n.dot(r.error)).norm(), 1e-12);  // e is along n
      // J v = velocity of the body-fixed point at p: finite difference of X(t) X(0)⁻¹ p.
      const Vector3 p_body = X.R.transpose() * (p - X.p);
      auto point_at = [&](double t) {
        forward_kinematics(model, data, integrate(model, q, v, t));
        const Transform Xt = frame_placement(model, data, id);
        return Vector3(Xt.R * p_body + Xt.p);
      };
      const Vector3 v_point = (point_at(kTime) - point_at(-kTime)) / (2 * kTime);
      EXPECT_LT(test::rel_err(r.J * v, v_point), kTol)
          << "J v = " << (r.J * v).transpose() << "\nhand = " << v_point.transpose();
      // Normal row: nᵀ J = ∂(nᵀ p − h)/∂q.
      const MatrixX Jfd = fd_error_jacobian(model, d2, set, q);
      EXPECT_LT(test::rel_err(n.transpose() * r.J, n.transpose() * Jfd), kTol);
      // Drift = J̇ v along q ⊕ t v (v fixed): all three rows.
      const VectorX gfd = fd_drift(model, d2, set, q, v);
      EXPECT_LT(test::rel_err(r.drift, gfd), kTol)
          << "\nγ    = " << r.drift.transpose() << "\nγ_fd = " << gfd.transpose();
      // Stabilized γ (default 10 Hz): drift + kd J v + kp e.
      EXPECT_LT(test::rel_err(r.gamma, r.drift + wheel->kd() * r.J * v + wheel->kp() * r.error), 1e-12);
    }
    EXPECT_GE(checked, 1) << name;
  }
}

}  // namespace
}  // namespace articula
