// Orders of convergence of the integrators (src/integrators/fixed_step.cpp, dopri5.cpp):
// a large-amplitude pendulum against its exact solution in Jacobi elliptic functions
// (explicit and semi-implicit Euler order 1, RK4 order 4, Dormand–Prince order 5 at a fixed
// step and within tolerance when adaptive), and the Runge–Kutta–Munthe-Kaas orders on SE(3):
// a free body tumbling about a non-principal axis against a fine-step reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "articula/integrators/dopri5.hpp"
#include "test_models.hpp"

namespace articula {
namespace {

// ---------------------------------------------------------------------------------------------
// Jacobi elliptic functions by the arithmetic–geometric mean (descending Landen transformation):
// M. Abramowitz & I. A. Stegun, Handbook of Mathematical Functions (1964), §16.4 (sn, cn by
// 16.4.2–16.4.3) and §17.6 (K(m) = π / (2 a_N), 17.6.4). Parameter m = k².

struct Agm {
  static constexpr int kMax = 32;
  double a[kMax], c[kMax];
  int n = 0;  // a[n] is the mean
  explicit Agm(double m) {
    double an = 1.0, bn = std::sqrt(1.0 - m), cn = std::sqrt(m);
    a[0] = an;
    c[0] = cn;
    while (std::abs(cn) > 1e-16 && n + 1 < kMax) {
      const double a1 = 0.5 * (an + bn), b1 = std::sqrt(an * bn);
      cn = 0.5 * (an - bn);
      an = a1;
      bn = b1;
      ++n;
      a[n] = an;
      c[n] = cn;
    }
  }
};

double elliptic_k(double m) {
  const Agm g(m);
  return std::numbers::pi / (2.0 * g.a[g.n]);
}

/// sn(u | m) and cn(u | m): φ_N = 2^N a_N u, φ_{n−1} = ½ (φ_n + asin(c_n / a_n · sin φ_n)),
/// sn = sin φ₀, cn = cos φ₀ (A&S 16.4.1–16.4.3).
void jacobi_sn_cn(double u, double m, double& sn, double& cn) {
  const Agm g(m);
  double phi = std::ldexp(g.a[g.n] * u, g.n);
  for (int i = g.n; i > 0; --i) phi = 0.5 * (phi + std::asin(g.c[i] / g.a[i] * std::sin(phi)));
  sn = std::sin(phi);
  cn = std::cos(phi);
}

// ---------------------------------------------------------------------------------------------
// The pendulum: a bob of mass m with a small rotational inertia, its centre of mass l below a
// hinge about y; θ from the downward vertical, I θ̈ = −m g l sin θ, I = I_c + m l².
constexpr double kMass = 1.0, kLength = 1.0, kIc = 0.01, kG = 9.81, kTheta0 = 2.0, kT = 2.0;

Model pendulum() {
  ModelBuilder b("pendulum");
  b.add_body("bob", "", "hinge", JointType::Revolute, Transform::Identity(), Vector3::UnitY(),
             Inertia::from_com(kMass, Vector3(0, 0, -kLength), kIc * Matrix3::Identity()));
  b.set_gravity(Vector3(0, 0, -kG));
  return b.build();
}

/// Released from rest at θ₀: θ(t) = 2 asin(k sn(K − ωt, k)), θ̇(t) = −2kω cn(K − ωt, k),
/// k = sin(θ₀/2), ω = √(m g l / I).
struct PendulumExact {
  double k = std::sin(kTheta0 / 2), m = k * k, K = elliptic_k(m);
  double omega = std::sqrt(kMass * kG * kLength / (kIc + kMass * kLength * kLength));
  void at(double t, double& theta, double& theta_dot) const {
    double sn, cn;
    jacobi_sn_cn(K - omega * t, m, sn, cn);
    theta = 2.0 * std::asin(k * sn);
    theta_dot = -2.0 * k * omega * cn;
  }
};

struct Problem {
  Model model;
  Data data;
  VectorX tau;
  AccelerationFn f;
  explicit Problem(Model m) : model(std::move(m)), data(model), tau(VectorX::Zero(model.nv)) {
    f = [this](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
      vdot = aba(model, data, q, v, tau);
      return true;
    };
  }
  Problem(const Problem&) = delete;
};

/// max(|Δθ|, |Δθ̇| / ω) at t = kT after n fixed steps of kT / n.
double pendulum_error(FixedStepMethod method, int n) {
  Problem p(pendulum());
  FixedStepWorkspace ws(p.model);
  VectorX q(1), v(1);
  q << kTheta0;
  v << 0.0;
  for (int i = 0; i < n; ++i) EXPECT_TRUE(fixed_step(p.model, method, p.f, kT / n, q, v, ws));
  const PendulumExact exact;
  double theta, theta_dot;
  exact.at(kT, theta, theta_dot);
  return std::max(std::abs(q[0] - theta), std::abs(v[0] - theta_dot) / exact.omega);
}

struct AdaptiveRun {
  double error = 0.0;
  int steps = 0, rejected = 0, evaluations = 0;
};

/// Dormand–Prince from 0 to kT, landing on kT through h_limit.
AdaptiveRun pendulum_dopri(const AdaptiveOptions& options, double h0) {
  Problem p(pendulum());
  Dopri5Workspace ws(p.model);
  VectorX q(1), v(1);
  q << kTheta0;
  v << 0.0;
  AdaptiveRun run;
  double t = 0.0, h = h0;
  while (t < kT) {
    const double remaining = kT - t;
    const AdaptiveStepResult r = dopri5_step(p.model, p.f, h, remaining, q, v, ws, options);
    EXPECT_TRUE(r.ok);
    if (!r.ok) break;
    EXPECT_LE(r.h, remaining);
    t = r.h == remaining ? kT : t + r.h;
    h = r.h_next;
    ++run.steps;
    run.rejected += r.rejected;
    run.evaluations += r.evaluations;
  }
  const PendulumExact exact;
  double theta, theta_dot;
  exact.at(kT, theta, theta_dot);
  run.error = std::max(std::abs(q[0] - theta), std::abs(v[0] - theta_dot) / exact.omega);
  return run;
}

double observed_order(double e_coarse, double e_fine) { return std::log2(e_coarse / e_fine); }

/// "%.3g" for the recorded properties (visible in --gtest_output=xml).
std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

TEST(Convergence, EllipticFunctionsMatchKnownValues) {
  // K(0) = π/2, K(½) = 1.854074677301372 (A&S Table 17.1); sn(K) = 1; sn → sin as m → 0.
  EXPECT_NEAR(elliptic_k(0.0), std::numbers::pi / 2, 1e-15);
  EXPECT_NEAR(elliptic_k(0.5), 1.854074677301372, 1e-14);
  double sn, cn;
  jacobi_sn_cn(elliptic_k(0.7), 0.7, sn, cn);
  EXPECT_NEAR(sn, 1.0, 1e-14);
  EXPECT_NEAR(cn, 0.0, 1e-7);  // cn ≈ √(2(1 − sn)): only sn is checked tightly at K
  jacobi_sn_cn(0.8, 0.0, sn, cn);
  EXPECT_NEAR(sn, std::sin(0.8), 1e-15);
  // sn² + cn² = 1 and sn(u) ≈ tanh(u) as m → 1 (A&S 16.15).
  jacobi_sn_cn(0.6, 1.0 - 1e-14, sn, cn);
  EXPECT_NEAR(sn, std::tanh(0.6), 1e-10);
  // The exact solution satisfies I θ̈ = −m g l sin θ (central differences of θ̇).
  const PendulumExact exact;
  for (double t : {0.1, 0.7, 1.3}) {
    const double d = 1e-5;
    double th, thd, thp, thdp, thm, thdm;
    exact.at(t, th, thd);
    exact.at(t + d, thp, thdp);
    exact.at(t - d, thm, thdm);
    EXPECT_NEAR((thp - thm) / (2 * d), thd, 1e-8);
    EXPECT_NEAR((thdp - thdm) / (2 * d), -exact.omega * exact.omega * std::sin(th), 1e-6);
  }
}

TEST(Convergence, EulerMethodsAreFirstOrderOnThePendulum) {
  for (FixedStepMethod method : {FixedStepMethod::ExplicitEuler, FixedStepMethod::SemiImplicitEuler}) {
    const double e1 = pendulum_error(method, 1000), e2 = pendulum_error(method, 2000),
                 e3 = pendulum_error(method, 4000);
    const double p1 = observed_order(e1, e2), p2 = observed_order(e2, e3);
    EXPECT_GE(p1, 0.8) << static_cast<int>(method) << " errors " << e1 << " " << e2 << " " << e3;
    EXPECT_LE(p1, 1.2) << static_cast<int>(method);
    EXPECT_GE(p2, 0.9) << static_cast<int>(method);
    EXPECT_LE(p2, 1.1) << static_cast<int>(method);
    RecordProperty(method == FixedStepMethod::ExplicitEuler ? "explicit_euler_order" : "semi_implicit_euler_order",
                   sci(p1) + " " + sci(p2) + " (errors " + sci(e1) + " " + sci(e2) + " " + sci(e3) + ")");
  }
}

TEST(Convergence, Rk4IsFourthOrderOnThePendulum) {
  // h = 0.02, 0.01, 0.005: error ratios ≈ 2⁴ = 16.
  const double e1 = pendulum_error(FixedStepMethod::RK4, 100), e2 = pendulum_error(FixedStepMethod::RK4, 200),
               e3 = pendulum_error(FixedStepMethod::RK4, 400);
  const double p1 = observed_order(e1, e2), p2 = observed_order(e2, e3);
  EXPECT_GE(p1, 3.7) << e1 << " " << e2 << " " << e3;
  EXPECT_LE(p1, 4.3);
  EXPECT_GE(p2, 3.7);
  EXPECT_LE(p2, 4.3);
  EXPECT_LT(e3, 1e-6);
  RecordProperty("rk4",
                 "orders " + sci(p1) + " " + sci(p2) + " (errors " + sci(e1) + " " + sci(e2) + " " + sci(e3) + ")");
}

TEST(Convergence, DormandPrinceIsFifthOrderAtAFixedStep) {
  // Error control off (huge tolerance, min_step = max_step = h): the 5th-order solution alone.
  auto fixed = [](int n) {
    AdaptiveOptions o;
    o.abs_tol = 1e30;
    o.min_step = o.max_step = kT / n;
    const AdaptiveRun run = pendulum_dopri(o, kT / n);
    EXPECT_EQ(run.steps, n);
    EXPECT_EQ(run.rejected, 0);
    EXPECT_EQ(run.evaluations, 7 * n);
    return run.error;
  };
  const double e1 = fixed(50), e2 = fixed(100), e3 = fixed(200);
  const double p1 = observed_order(e1, e2), p2 = observed_order(e2, e3);
  EXPECT_GE(p1, 4.6) << e1 << " " << e2 << " " << e3;
  EXPECT_LE(p1, 5.4);
  EXPECT_GE(p2, 4.6);
  EXPECT_LE(p2, 5.4);
  RecordProperty("dopri5",
                 "orders " + sci(p1) + " " + sci(p2) + " (errors " + sci(e1) + " " + sci(e2) + " " + sci(e3) + ")");
}

TEST(Convergence, DormandPrinceMeetsItsToleranceOnThePendulum) {
  AdaptiveOptions o;
  o.max_step = 0.5;
  AdaptiveRun runs[3];
  const double tols[3] = {1e-8, 1e-6, 1e-4};
  for (int i = 0; i < 3; ++i) {
    o.abs_tol = o.rel_tol = tols[i];
    runs[i] = pendulum_dopri(o, 1e-3);
    RecordProperty("tol_" + sci(tols[i]), "error " + sci(runs[i].error) + " in " + std::to_string(runs[i].steps) +
                                              " steps, " + std::to_string(runs[i].rejected) + " rejected");
  }
  EXPECT_LT(runs[0].error, 1e-6) << runs[0].steps << " steps";
  EXPECT_LT(runs[1].error, 1e-4) << runs[1].steps << " steps";
  EXPECT_LT(runs[2].error, 1e-2) << runs[2].steps << " steps";
  // Looser tolerances take fewer steps (≈ (tol ratio)^(1/5) = 100^0.2 ≈ 2.5 fewer).
  EXPECT_LT(runs[1].steps, runs[0].steps);
  EXPECT_LT(runs[2].steps, runs[1].steps);
  EXPECT_GT(runs[0].steps, 1.8 * runs[1].steps);
  // 7 evaluations per step, 6 per rejected trial.
  for (const AdaptiveRun& r : runs) EXPECT_EQ(r.evaluations, 7 * r.steps + 6 * r.rejected);
}

// ---------------------------------------------------------------------------------------------
// RKMK orders on SE(3): a torque-free free body with rotated principal axes and an offset
// centre of mass, spinning about a non-principal axis; reference: Dormand–Prince at h/8 of
// the finest step. Error: ‖difference(q, q_ref)‖ + ‖v − v_ref‖.

Model free_body() {
  ModelBuilder b("free_body");
  b.add_body("body", "", "root", JointType::FreeFlyer, Transform::Identity(), Vector3::Zero(),
             test::asymmetric_inertia(2.0, {0.05, -0.03, 0.02}, 4.0));
  b.set_gravity(Vector3::Zero());
  return b.build();
}

void free_body_state(const Model& model, VectorX& q, VectorX& v) {
  q = neutral(model);
  q.head<3>() << 0.1, -0.2, 0.3;
  v.resize(6);
  v << 0.3, -0.2, 0.1, 2.0, -1.0, 3.0;
}

double free_body_error(FixedStepMethod* method, int n, double T, const VectorX& q_ref, const VectorX& v_ref,
                       VectorX* q_out = nullptr, VectorX* v_out = nullptr) {
  Problem p(free_body());
  VectorX q, v;
  free_body_state(p.model, q, v);
  const double h = T / n;
  if (method) {
    FixedStepWorkspace ws(p.model);
    for (int i = 0; i < n; ++i) EXPECT_TRUE(fixed_step(p.model, *method, p.f, h, q, v, ws));
  } else {
    Dopri5Workspace ws(p.model);
    AdaptiveOptions o;
    o.abs_tol = 1e30;
    o.min_step = o.max_step = h;
    for (int i = 0; i < n; ++i) EXPECT_TRUE(dopri5_step(p.model, p.f, h, T, q, v, ws, o).ok);
  }
  if (q_out) *q_out = q;
  if (v_out) *v_out = v;
  if (q_ref.size() == 0) return 0.0;
  return difference(p.model, q_ref, q).norm() + (v - v_ref).norm();
}

TEST(Convergence, RkmkOrdersHoldOnSE3) {
  const double T = 1.0;
  VectorX q_ref, v_ref;
  free_body_error(nullptr, 1600, T, VectorX(), VectorX(), &q_ref, &v_ref);
  FixedStepMethod rk4 = FixedStepMethod::RK4;
  {
    const double e1 = free_body_error(&rk4, 50, T, q_ref, v_ref), e2 = free_body_error(&rk4, 100, T, q_ref, v_ref),
                 e3 = free_body_error(&rk4, 200, T, q_ref, v_ref);
    EXPECT_NEAR(observed_order(e1, e2), 4.0, 0.3) << e1 << " " << e2 << " " << e3;
    EXPECT_NEAR(observed_order(e2, e3), 4.0, 0.3) << e1 << " " << e2 << " " << e3;
    RecordProperty("rk4", "orders " + sci(observed_order(e1, e2)) + " " + sci(observed_order(e2, e3)));
  }
  {
    const double e1 = free_body_error(nullptr, 50, T, q_ref, v_ref),
                 e2 = free_body_error(nullptr, 100, T, q_ref, v_ref),
                 e3 = free_body_error(nullptr, 200, T, q_ref, v_ref);
    EXPECT_NEAR(observed_order(e1, e2), 5.0, 0.4) << e1 << " " << e2 << " " << e3;
    EXPECT_NEAR(observed_order(e2, e3), 5.0, 0.4) << e1 << " " << e2 << " " << e3;
    RecordProperty("dopri5", "orders " + sci(observed_order(e1, e2)) + " " + sci(observed_order(e2, e3)));
  }
}

}  // namespace
}  // namespace articula
