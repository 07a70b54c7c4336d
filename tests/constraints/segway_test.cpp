// A planar segway (models/segway.urdf, floating base) rolling on flat ground:
// the passive robot falls and rolls without slipping while conserving energy, and a
// feedback controller on the axle torque balances it and drives it forward.
//
// Constraints:
//  - "rolling": WheelConstraint on the wheel (radius 0.2 m, spin axis local y) on the plane
//    z = 0: the rim point at the contact has zero velocity (3 rows, no slip, no lift-off).
//  - "planar": FrameConstraint on the wheel with AxisMask "rxrz": the wheel neither rolls
//    sideways (rx) nor yaws (rz) in the world. A single wheel would tip over sideways; a real
//    segway has two coaxial wheels, whose two contacts hold the roll, and driven at equal
//    speeds they do not turn, which holds the yaw. The one-wheel model with these two rows
//    is that segway without steering: a planar system with two dofs (wheel spin θ, body
//    pitch φ). The rows are workless (ideal), so energy is conserved.
//
// Planar reference model (Lagrange, x = r θ, body centre of mass l above the axle):
//   [ (m_w + m_b) r² + I_w     m_b r l cos φ ] [θ̈]   [ m_b r l sin φ φ̇² ]   [ −τ ]
//   [ m_b r l cos φ           m_b l² + I_b  ] [φ̈] − [ m_b g l sin φ     ] = [  τ ]
// with τ the axle torque (on the body, reacting on the wheel), φ the body's pitch about +y
// (positive = leaning towards +x) and θ the wheel's rotation about +y; rolling without slip
// gives x_wheel = x₀ + r (θ − θ₀) (rotation about +y moves the top towards +x).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_support.hpp"

namespace articula {
namespace {

// Parameters of models/segway.urdf.
constexpr double kR = 0.2;                              // wheel radius
constexpr double kMw = 2.0, kIw = 0.5 * kMw * kR * kR;  // wheel mass, spin inertia
constexpr double kMb = 10.0, kL = 0.5;                  // body mass, axle → centre of mass
constexpr double kIb = kMb * (0.2 * 0.2 + 1.0) / 12;    // body inertia about y at its centre of mass
constexpr double kG = 9.81;

struct Segway {
  Model model = load_urdf(test::model_path("segway"), BaseType::Floating);
  Data data{model};
  ConstraintSet set{model};
  ConstrainedWorkspace ws{model};
  FixedStepWorkspace step{model};
  Index wheel = model.frame_id("wheel");
  Index body = model.frame_id("body");
  int axle_q = model.idx_q[model.joint_id("axle")];
  int axle_v = model.idx_v[model.joint_id("axle")];
  VectorX tau = VectorX::Zero(model.nv);

  Segway() {
    set.add(std::make_shared<WheelConstraint>("rolling", "wheel", kR, Vector3::UnitY()));
    set.add(std::make_shared<FrameConstraint>("planar", "wheel", AxisMask::parse("rxrz")));
  }
  Segway(const Segway&) = delete;

  /// Wheel on the ground at the origin, upright, body pitched by `tilt` (rad), at rest.
  VectorX initial(double tilt) const {
    VectorX q = neutral(model);
    q[2] = kR;
    q[axle_q] = tilt;
    return q;
  }
  /// Body pitch about +y from the body frame's rotation: its z axis is (sin φ, 0, cos φ).
  double pitch(const VectorX& q) {
    forward_kinematics(model, data, q);
    const Matrix3 R = frame_placement(model, data, body).R;
    return std::atan2(R(0, 2), R(2, 2));
  }
  Matrix3 wheel_rotation(const VectorX& q) {
    forward_kinematics(model, data, q);
    return frame_placement(model, data, wheel).R;
  }
  double energy(const VectorX& q, const VectorX& v) {
    return kinetic_energy(model, data, q, v) + potential_energy(model, data, q);
  }
  AccelerationFn dynamics(ConstrainedMethod method = ConstrainedMethod::Auto) {
    return [this, method](VectorRef q, VectorRef v, Eigen::Ref<VectorX> a) {
      const SolveReport r = constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method);
      a = data.ddq;
      return r.status == SolveStatus::Ok;
    };
  }
  /// ‖J v‖ of the current rows (contact velocity and roll / yaw rates).
  double constraint_velocity(const VectorX& q, const VectorX& v) {
    set.compute_rows(model, data, q, v);
    return (set.J() * v).norm();
  }
};

TEST(Segway, ModelMatchesThePlanarParameters) {
  Segway s;
  EXPECT_EQ(s.model.nq, 8);
  EXPECT_EQ(s.model.nv, 7);
  EXPECT_NEAR(s.model.total_mass(), kMw + kMb, 1e-12);
  EXPECT_EQ(s.set.dim(), 5);
}

TEST(Segway, InitialAccelerationMatchesTheLagrangeEquations) {
  // At rest with a large tilt: M(φ) [θ̈; φ̈] = [0; m_b g l sin φ]; the wheel multipliers are the
  // ground's force on the wheel at the contact (world axes): the total weight minus the
  // vertical, and the horizontal momentum rate of the two bodies.
  Segway s;
  const double phi = 0.3;
  const VectorX q = s.initial(phi), v = VectorX::Zero(s.model.nv);
  const double m11 = (kMw + kMb) * kR * kR + kIw, m12 = kMb * kR * kL * std::cos(phi), m22 = kMb * kL * kL + kIb;
  const double det = m11 * m22 - m12 * m12, G = kMb * kG * kL * std::sin(phi);
  const double phi_dd = m11 * G / det, theta_dd = -m12 * G / det;
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    SCOPED_TRACE(to_string(method));
    const SolveReport r = constrained_forward_dynamics(s.model, s.data, s.ws, s.set, q, v, s.tau, {}, method);
    ASSERT_EQ(r.status, SolveStatus::Ok);
    // Wheel orientation = identity: body-frame rates are world rates.
    EXPECT_NEAR(s.data.ddq[4], theta_dd, 1e-10);
    EXPECT_NEAR(s.data.ddq[4] + s.data.ddq[s.axle_v], phi_dd, 1e-10);
    EXPECT_NEAR(s.data.ddq[0], kR * theta_dd, 1e-10);  // rolling: ẍ = r θ̈
    EXPECT_NEAR(s.data.ddq[2], 0.0, 1e-10);
    const VectorX f = s.set.rows_of("rolling", s.ws.lambda);
    const double xdd_body = kR * theta_dd + kL * std::cos(phi) * phi_dd;  // body centre of mass, at rest
    const double zdd_body = -kL * std::sin(phi) * phi_dd;
    EXPECT_NEAR(f[0], kMw * kR * theta_dd + kMb * xdd_body, 1e-9);
    EXPECT_NEAR(f[1], 0.0, 1e-9);
    EXPECT_NEAR(f[2], (kMw + kMb) * kG + kMb * zdd_body, 1e-9);
    EXPECT_LT(s.set.rows_of("planar", s.ws.lambda).norm(), 1e-9);  // nothing pushes it out of the plane
  }
}

TEST(Segway, PassiveFallsWithTheTiltWheelRollsBackNoSlipEnergyConserved) {
  for (const double tilt : {0.002, -0.002}) {
    SCOPED_TRACE("tilt " + std::to_string(tilt));
    Segway s;
    VectorX q = s.initial(tilt), v = VectorX::Zero(s.model.nv);
    const double E0 = s.energy(q, v);
    const AccelerationFn f = s.dynamics();
    double theta = 0.0, worst_slip = 0.0, worst_rate = 0.0, worst_energy = 0.0;
    Matrix3 R_prev = s.wheel_rotation(q);
    for (int k = 0; k < 1000; ++k) {  // 1 s, RK4, 1 ms
      ASSERT_TRUE(fixed_step(s.model, FixedStepMethod::RK4, f, 1e-3, q, v, s.step)) << "step " << k;
      const Matrix3 R = s.wheel_rotation(q);
      theta += log3(R_prev.transpose() * R).y();  // unwrapped spin about +y
      R_prev = R;
      worst_slip = std::max(worst_slip, std::abs(q[0] - kR * theta));
      worst_rate = std::max(worst_rate, s.constraint_velocity(q, v));
      worst_energy = std::max(worst_energy, std::abs(s.energy(q, v) - E0));
    }
    const double phi = s.pitch(q);
    // Falls in the direction of the tilt (it has grown ~100-fold), the wheel rolls the other way.
    EXPECT_GT(phi * tilt, 0.0);
    EXPECT_GT(std::abs(phi), 0.1);
    EXPECT_LT(std::abs(phi), 1.2);  // still above the ground: the test stays in the physical range
    EXPECT_LT(q[0] * tilt, 0.0);
    EXPECT_GT(std::abs(q[0]), 0.01);
    EXPECT_LT(theta * tilt, 0.0);
    // No slip, no lift-off, stays in its plane.
    EXPECT_LT(worst_slip, 1e-6);
    EXPECT_LT(worst_rate, 1e-7);  // integration error, held down by the Baumgarte terms
    EXPECT_NEAR(q[1], 0.0, 1e-9);
    EXPECT_NEAR(q[2], kR, 1e-9);
    EXPECT_LT(worst_energy, 1e-6 * std::abs(E0));
  }
}

// Full-state feedback τ = k_φ φ + k_φ̇ φ̇ + k_w (θ̇ − v_ref / r) from the planar model linearized
// at φ = 0: with x = [φ, φ̇, θ̇],  φ̈ = a₁ φ + b₁ τ,  θ̈ = a₂ φ + b₂ τ, where
//   a₁ = m₁₁ G / Δ, a₂ = −m₁₂ G / Δ, b₁ = (m₁₁ + m₁₂) / Δ, b₂ = −(m₂₂ + m₁₂) / Δ, G = m_b g l,
// the closed loop's characteristic polynomial is
//   s³ − (b₁ k_φ̇ + b₂ k_w) s² − (a₁ + b₁ k_φ) s + k_w (a₁ b₂ − a₂ b₁);
// the gains place its roots at −4, −6, −8 s⁻¹ (s³ + 18 s² + 104 s + 192). Stationary points
// have φ = 0, τ = 0, θ̇ = v_ref / r: the speed is tracked.
struct Gains {
  double k_phi, k_rate, k_w;
};
Gains balance_gains() {
  const double m11 = (kMw + kMb) * kR * kR + kIw, m12 = kMb * kR * kL, m22 = kMb * kL * kL + kIb;
  const double det = m11 * m22 - m12 * m12, G = kMb * kG * kL;
  const double a1 = m11 * G / det, a2 = -m12 * G / det, b1 = (m11 + m12) / det, b2 = -(m22 + m12) / det;
  const double c2 = 18.0, c1 = 104.0, c0 = 192.0;
  Gains g;
  g.k_w = c0 / (a1 * b2 - a2 * b1);
  g.k_phi = -(c1 + a1) / b1;
  g.k_rate = -(c2 + b2 * g.k_w) / b1;
  return g;
}

TEST(Segway, BalanceControllerKeepsItUprightAndDrivesForward) {
  Segway s;
  const Gains gains = balance_gains();
  // Target speed: 0 until 0.5 s, then a smooth step (3σ² − 2σ³) to 0.25 m/s over 2.5 s.
  const double v_final = 0.25;
  auto v_ref = [&](double t) {
    const double sigma = std::clamp((t - 0.5) / 2.5, 0.0, 1.0);
    return v_final * sigma * sigma * (3 - 2 * sigma);
  };
  VectorX q = s.initial(0.02), v = VectorX::Zero(s.model.nv);
  const AccelerationFn f = s.dynamics();
  const double dt = 1e-3;
  double theta = 0.0, worst_pitch = 0.0, worst_slip = 0.0, worst_rate = 0.0, speed = 0.0;
  Matrix3 R_prev = s.wheel_rotation(q);
  for (int k = 0; k < 5000; ++k) {  // 5 s
    // Digital controller at 1 kHz (zero-order hold over the step): pitch from the body frame's
    // rotation, pitch rate and wheel spin rate from the frames' angular velocities (world y).
    const double phi = s.pitch(q);
    forward_kinematics(s.model, s.data, q, v);
    const double phi_rate = frame_velocity(s.model, s.data, s.body, ReferenceFrame::LocalWorldAligned).w.y();
    const double spin_rate = frame_velocity(s.model, s.data, s.wheel, ReferenceFrame::LocalWorldAligned).w.y();
    s.tau[s.axle_v] = gains.k_phi * phi + gains.k_rate * phi_rate + gains.k_w * (spin_rate - v_ref(k * dt) / kR);
    ASSERT_TRUE(fixed_step(s.model, FixedStepMethod::RK4, f, dt, q, v, s.step)) << "step " << k;
    const Matrix3 R = s.wheel_rotation(q);
    theta += log3(R_prev.transpose() * R).y();
    R_prev = R;
    worst_pitch = std::max(worst_pitch, std::abs(s.pitch(q)));
    worst_slip = std::max(worst_slip, std::abs(q[0] - kR * theta));
    worst_rate = std::max(worst_rate, s.constraint_velocity(q, v));
    forward_kinematics(s.model, s.data, q, v);
    speed = frame_velocity(s.model, s.data, s.wheel, ReferenceFrame::LocalWorldAligned).v.x();
  }
  EXPECT_LT(worst_pitch, 0.05);
  EXPECT_NEAR(speed, v_final, 0.01);  // tracks the target speed
  EXPECT_GT(q[0], 0.6);               // drove forward (∫ v_ref = 0.81 m)
  EXPECT_GT(theta, 3.0);              // ~3.5 rad: the spin passed ±π, the planar rows still hold
  EXPECT_LT(worst_slip, 1e-6);        // x = r θ all along
  EXPECT_LT(worst_rate, 1e-8);
  EXPECT_NEAR(q[1], 0.0, 1e-9);
  EXPECT_NEAR(q[2], kR, 1e-9);
  EXPECT_LT(std::abs(s.pitch(q)), 0.01);  // upright again at constant speed
}

}  // namespace
}  // namespace articula
