// Constrained dynamics against closed forms: rolling disk, four-bar, held pendulum,
// and Baumgarte stabilization over a long run.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace articula {
namespace {

constexpr double g = 9.81;

// A uniform disk (mass m, radius r) on a free-flyer, spin axis = local y.
Model make_disk(double m, double r) {
  ModelBuilder b("disk");
  Matrix3 I = Matrix3::Zero();
  I.diagonal() << m * r * r / 4, m * r * r / 2, m * r * r / 4;
  b.add_body("disk", "", "root_joint", JointType::FreeFlyer, Transform::Identity(), Vector3::Zero(),
             Inertia::from_com(m, Vector3::Zero(), I));
  return b.build();
}

struct Simulation {
  const Model& model;
  Data data;
  ConstraintSet set;
  ConstrainedWorkspace ws;
  FixedStepWorkspace step;
  Simulation(const Model& m) : model(m), data(m), set(m), ws(m), step(m) {}
  AccelerationFn dynamics() {
    return [this](VectorRef q, VectorRef v, Eigen::Ref<VectorX> a) {
      const VectorX tau = VectorX::Zero(model.nv);
      const SolveReport r = constrained_forward_dynamics(model, data, ws, set, q, v, tau);
      a = data.ddq;
      return r.ok();
    };
  }
  double energy(const VectorX& q, const VectorX& v) {
    return kinetic_energy(model, data, q, v) + potential_energy(model, data, q);
  }
};

TEST(WheelConstraint, DiskOnInclineAcceleratesAtTwoThirdsGSinTheta) {
  const double m = 2.0, r = 0.3, theta = 0.4;
  const Model model = make_disk(m, r);
  Simulation sim(model);
  const Vector3 n(-std::sin(theta), 0.0, std::cos(theta));  // incline normal; uphill = (cos θ, 0, sin θ)
  const Vector3 uphill(std::cos(theta), 0.0, std::sin(theta));
  sim.set.add(std::make_shared<WheelConstraint>("wheel", "disk", r, Vector3::UnitY(), n, 0.0));
  VectorX q = neutral(model);
  q.head<3>() = r * n;  // touching the plane at the origin
  VectorX v = VectorX::Zero(model.nv);
  const VectorX tau = VectorX::Zero(model.nv);
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    ASSERT_TRUE(constrained_forward_dynamics(model, sim.data, sim.ws, sim.set, q, v, tau, {}, method).ok());
    // Body frame = world axes at q: the linear acceleration is the centre's acceleration.
    const Vector3 a = sim.data.ddq.head<3>();
    EXPECT_NEAR(a.dot(uphill), -2.0 / 3.0 * g * std::sin(theta), 1e-10) << to_string(method);
    EXPECT_NEAR(a.dot(n), 0.0, 1e-10);
    // Rolling: ω̇_y r = −a along the incline (no slip).
    EXPECT_NEAR(sim.data.ddq[4] * r, a.dot(uphill), 1e-10);
  }
  // Integrate 1 s: distance travelled ½ a t², energy conserved, contact point stays on the plane.
  const double E0 = sim.energy(q, v);
  const AccelerationFn f = sim.dynamics();
  for (int k = 0; k < 1000; ++k) ASSERT_TRUE(fixed_step(model, FixedStepMethod::RK4, f, 1e-3, q, v, sim.step));
  const double s = (q.head<3>() - r * n).dot(uphill);
  EXPECT_NEAR(s, -0.5 * 2.0 / 3.0 * g * std::sin(theta), 1e-6);
  EXPECT_NEAR(sim.energy(q, v), E0, 1e-6 * std::abs(E0) + 1e-8);
}

TEST(WheelConstraint, RollingDiskConservesEnergy) {
  // An upright disk rolling and turning on flat ground with a lean: a genuinely
  // non-holonomic motion (it precesses); energy is conserved by ideal rolling.
  const double m = 1.5, r = 0.25;
  const Model model = make_disk(m, r);
  Simulation sim(model);
  sim.set.add(std::make_shared<WheelConstraint>("wheel", "disk", r, Vector3::UnitY()));
  VectorX q = neutral(model);
  const double lean = 0.15;
  const Matrix3 R = Eigen::AngleAxisd(lean, Vector3::UnitX()).toRotationMatrix();
  const Quaternion quat(R);
  q.segment<4>(3) << quat.x(), quat.y(), quat.z(), quat.w();
  // Centre above the contact point: c = p + r u, u = in-plane direction to the ground normal.
  const Vector3 axis = R * Vector3::UnitY();
  const Vector3 u = (Vector3::UnitZ() - axis.z() * axis).normalized();
  q.head<3>() = r * u;
  // Rolling velocity: spin ω about the axis plus a yaw rate; v_c = −r ω × u... choose ω, set v_c = ω × (r u).
  const Vector3 w_world = 4.0 * axis + 0.7 * Vector3::UnitZ();
  const Vector3 vc_world = w_world.cross(r * u);
  VectorX v(6);
  v << R.transpose() * vc_world, R.transpose() * w_world;
  const double E0 = sim.energy(q, v);
  const AccelerationFn f = sim.dynamics();
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(fixed_step(model, FixedStepMethod::RK4, f, 1e-3, q, v, sim.step));
  EXPECT_NEAR(sim.energy(q, v), E0, 1e-6 * std::abs(E0));
  // Still rolling without slip: contact velocity ~ 0.
  sim.set.compute_rows(model, sim.data, q, v);
  EXPECT_LT((sim.set.J() * v).norm(), 1e-6);
}

TEST(FrameConstraint, PendulumTipHeldStaysStillWithStaticReaction) {
  // pendulum3r with joints 2 and 3 locked is a rigid rod of length 3 m and mass 3 kg; held
  // horizontally at its tip it stays still and the tip carries half the weight.
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstraintSet set(model);
  ConstrainedWorkspace ws(model);
  set.add(std::make_shared<JointLock>("locks", std::vector<std::string>{"joint2", "joint3"}));
  auto& tip =
      static_cast<FrameConstraint&>(set.add(std::make_shared<FrameConstraint>("tip", "tip", AxisMask::point())));
  const VectorX q = VectorX::Zero(3), v = VectorX::Zero(3), tau = VectorX::Zero(3);
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace}) {
    const SolveReport r = constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.status, SolveStatus::Redundant);  // planar: the out-of-plane row is empty
    EXPECT_LT(data.ddq.norm(), 1e-12);
    const VectorX lam = set.rows_of("tip", ws.lambda);
    EXPECT_NEAR(lam[2], 3.0 * g / 2.0, 1e-9) << to_string(method);
    EXPECT_NEAR(lam[0], 0.0, 1e-9);
    EXPECT_NEAR(lam[1], 0.0, 1e-9);
    const Vector6 w = tip.wrench(lam);
    EXPECT_NEAR(w[2], 3.0 * g / 2.0, 1e-9);
  }
}

// Planar four-bar: crank a at the origin, coupler b, rocker c pivoting at (d, 0); the loop
// closes the coupler's end on the rocker's end. Built in the vertical x–z plane.
struct FourBar {
  double a = 0.3, b = 0.8, c = 0.6, d = 0.7;
  Model model;
  FourBar() {
    ModelBuilder mb("fourbar");
    const double mass = 1.0;
    auto rod = [&](double L) {
      Matrix3 I = Matrix3::Zero();
      I.diagonal() << 1e-4, mass * L * L / 12, mass * L * L / 12;
      return Inertia::from_com(mass, Vector3(L / 2, 0, 0), I);
    };
    const Transform flat{Matrix3::Identity(), Vector3::Zero()};
    mb.add_body("crank", "", "j1", JointType::Revolute, flat, -Vector3::UnitY(), rod(a));
    mb.add_body("coupler", "crank", "j2", JointType::Revolute, {Matrix3::Identity(), Vector3(a, 0, 0)},
                -Vector3::UnitY(), rod(b));
    mb.add_frame("coupler_end", "coupler", {Matrix3::Identity(), Vector3(b, 0, 0)});
    mb.add_body("rocker", "", "j3", JointType::Revolute, {Matrix3::Identity(), Vector3(d, 0, 0)}, -Vector3::UnitY(),
                rod(c));
    mb.add_frame("rocker_end", "rocker", {Matrix3::Identity(), Vector3(c, 0, 0)});
    model = mb.build();
  }
  // Closed form (Freudenstein): given the crank angle θ1 (about −y, i.e. counter-clockwise
  // in x–z), the open-branch rocker angle θ3 and the coupler's relative angle θ2.
  Eigen::Vector3d closed_form(double t1) const {
    const Eigen::Vector2d A(a * std::cos(t1), a * std::sin(t1)), D(d, 0);
    const Eigen::Vector2d AD = D - A;
    const double L = AD.norm();
    const double beta = std::atan2(AD.y(), AD.x());
    const double psi = std::acos((b * b + L * L - c * c) / (2 * b * L));  // angle at A between AD and AB
    const double phi = beta + psi;                                        // absolute coupler angle
    const Eigen::Vector2d B = A + b * Eigen::Vector2d(std::cos(phi), std::sin(phi));
    const double t3 = std::atan2(B.y() - D.y(), B.x() - D.x());
    return {t1, phi - t1, t3};
  }
};

TEST(LoopConstraint, FourBarMovesAsItsOneDofClosedForm) {
  FourBar fb;
  const Model& model = fb.model;
  Simulation sim(model);
  sim.set.add(std::make_shared<LoopConstraint>("loop", "coupler_end", "rocker_end", AxisMask::parse("xz"),
                                               Transform::Identity()));
  VectorX q = fb.closed_form(0.9), v(3);
  // Consistent velocity: θ̇1 = 1.5, others from the closed form (finite difference).
  const double eps = 1e-6;
  v = (fb.closed_form(0.9 + eps) - fb.closed_form(0.9 - eps)) / (2 * eps) * 1.5;
  // One-dof Lagrangian: E(θ1, θ̇1) = ½ m(θ1) θ̇1² + V(θ1) with m = Jθᵀ M Jθ.
  auto reduced = [&](double t1, double& meff, double& V) {
    const VectorX qq = fb.closed_form(t1);
    const VectorX Jt = (fb.closed_form(t1 + eps) - fb.closed_form(t1 - eps)) / (2 * eps);
    crba(model, sim.data, qq);
    meff = Jt.dot(sim.data.M * Jt);
    V = potential_energy(model, sim.data, qq);
  };
  // θ̈1 from the reduced model: m θ̈ + ½ m' θ̇² + V' = 0.
  double m0, V0, mp, Vp, mm, Vm;
  const double h = 1e-4, t1 = 0.9, w = 1.5;
  reduced(t1, m0, V0);
  reduced(t1 + h, mp, Vp);
  reduced(t1 - h, mm, Vm);
  const double acc_closed = -(0.5 * (mp - mm) / (2 * h) * w * w + (Vp - Vm) / (2 * h)) / m0;
  const VectorX tau = VectorX::Zero(3);
  ASSERT_TRUE(constrained_forward_dynamics(model, sim.data, sim.ws, sim.set, q, v, tau).ok());
  EXPECT_NEAR(sim.data.ddq[0], acc_closed, 1e-5 * (1 + std::abs(acc_closed)));
  // Integrate 2 s: the configuration stays on the closed-form branch, energy is conserved.
  const double E0 = sim.energy(q, v);
  const AccelerationFn f = sim.dynamics();
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(fixed_step(model, FixedStepMethod::RK4, f, 1e-3, q, v, sim.step));
  const Eigen::Vector3d qc = fb.closed_form(q[0]);
  EXPECT_NEAR(q[1], qc[1], 1e-7);
  EXPECT_NEAR(q[2], qc[2], 1e-7);
  EXPECT_NEAR(sim.energy(q, v), E0, 1e-7 * std::abs(E0) + 1e-9);
}

double max_drift(bool baumgarte) {
  // UR5 with its tool flange held at a point, moving under gravity for 10 s (RK4, 1 ms).
  const Model model = load_urdf(test::model_path("ur5"));
  Simulation sim(model);
  auto& c = sim.set.add(std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()));
  if (!baumgarte) c.set_baumgarte_frequency(0.0);
  VectorX q(6);
  q << 0.3, -1.0, 1.2, -0.6, 1.1, 0.2;
  VectorX v = VectorX::Zero(6);
  const AccelerationFn f = sim.dynamics();
  double worst = 0.0;
  const Index tool = model.frame_id("tool0");
  forward_kinematics(model, sim.data, q);
  const Vector3 p0 = frame_placement(model, sim.data, tool).p;
  for (int k = 0; k < 10000; ++k) {
    if (!fixed_step(model, FixedStepMethod::RK4, f, 1e-3, q, v, sim.step)) return 1e9;
    forward_kinematics(model, sim.data, q);
    worst = std::max(worst, (frame_placement(model, sim.data, tool).p - p0).norm());
  }
  return worst;
}

TEST(Baumgarte, KeepsAFixedFrameWithinAMicrometreOverTenSeconds) {
  const double with = max_drift(true);
  const double without = max_drift(false);
  EXPECT_LT(with, 1e-6);
  // Without stabilization the position error is left to the integrator and grows.
  EXPECT_GT(without, 10.0 * with);
}

TEST(CallbackConstraint, MimicsAFrameConstraintExactly) {
  const Model model = load_urdf(test::model_path("panda"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  const Index hand = model.frame_id("panda_hand");
  ConstraintSet a(model), b(model);
  a.add(std::make_shared<FrameConstraint>("hand", "panda_hand", AxisMask::point()));
  b.add(std::make_shared<CallbackConstraint>(
      "hand_cb", 3,
      [hand](const Model& m, const Data& d, VectorRef) {
        MatrixX J(6, m.nv);
        frame_jacobian(m, d, hand, ReferenceFrame::LocalWorldAligned, J);
        return MatrixX(J.topRows<3>());
      },
      [hand](const Model& m, const Data& d, VectorRef, VectorRef) {
        return VectorX(frame_acceleration(m, d, hand, ReferenceFrame::LocalWorldAligned).v);
      }));
  std::mt19937 rng(9);
  for (int trial = 0; trial < 4; ++trial) {
    const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
    const VectorX tau = test::random_vector(model.nv, rng);
    a.get("hand").set_baumgarte_frequency(0.0);
    ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, a, q, v, tau).ok());
    const VectorX ddq = data.ddq, lam = ws.lambda.head(a.dim());
    ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, b, q, v, tau).ok());
    EXPECT_LT(test::rel_err(data.ddq, ddq), 1e-13);
    EXPECT_LT(test::rel_err(ws.lambda.head(b.dim()), lam), 1e-13);
  }
}

TEST(CallbackConstraint, WrongShapeOrNaNNamesTheConstraint) {
  const Model model = load_urdf(test::model_path("ur5"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<CallbackConstraint>(
      "bad_shape", 2, [](const Model& m, const Data&, VectorRef) { return MatrixX::Zero(3, m.nv).eval(); },
      [](const Model&, const Data&, VectorRef, VectorRef) { return VectorX::Zero(2).eval(); }));
  const VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  try {
    set.compute_rows(model, data, q, v);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad_shape"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("3×6"), std::string::npos);
  }
  ConstraintSet set2(model);
  set2.add(std::make_shared<CallbackConstraint>(
      "nan_drift", 1, [](const Model& m, const Data&, VectorRef) { return MatrixX::Ones(1, m.nv).eval(); },
      [](const Model&, const Data&, VectorRef, VectorRef) {
        return VectorX::Constant(1, std::numeric_limits<double>::quiet_NaN()).eval();
      }));
  EXPECT_THROW(
      {
        try {
          set2.compute_rows(model, data, q, v);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("nan_drift"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace articula
