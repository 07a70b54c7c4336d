#include "articula/integrators/dopri5.hpp"

#include <algorithm>
#include <cmath>

#include "articula/common/check.hpp"
#include "rkmk.hpp"

namespace articula {

namespace {

// Dormand & Prince, J. Comput. Appl. Math. 6 (1980), the "RK5(4)7M" pair (also Hairer,
// Nørsett & Wanner, Solving ODEs I, Table II.5.2). Row 7 of a is the 5th-order weight b
// (first same as last); kE = b − b̂, with b̂ the embedded 4th-order weights
// (5179/57600, 0, 7571/16695, 393/640, −92097/339200, 187/2100, 1/40).
constexpr int kStages = 7;
constexpr double kA[kStages][kStages - 1] = {
    {},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
};
constexpr double kE[kStages] = {71.0 / 57600,      0.0,          -71.0 / 16695, 71.0 / 1920,
                                -17253.0 / 339200, 22.0 / 525.0, -1.0 / 40};
constexpr double kOrderExponent = -1.0 / 5;  // err ~ h⁵ for the 4th-order embedded solution

// One trial of size h from (q, v): stages 2…7 (stage 1, kq[0] and kv[0], is already there).
// On return ws.theta, ws.vs and ws.qs hold the 5th-order solution (stage 7 is at c = 1 with
// the weights b), err_theta and err_v the 5th − 4th order difference.
bool trial(const Model& model, const AccelerationFn& f, double h, VectorRef q, VectorRef v, Dopri5Workspace& ws,
           int& evaluations) {
  for (int i = 1; i < kStages; ++i) {
    ws.theta.setZero();
    ws.vs.setZero();
    for (int j = 0; j < i; ++j) {
      if (kA[i][j] == 0.0) continue;
      ws.theta += kA[i][j] * ws.kq[j];
      ws.vs += kA[i][j] * ws.kv[j];
    }
    ws.theta *= h;
    ws.vs = v + h * ws.vs;
    ++evaluations;
    if (!detail::rkmk_stage(model, f, q, ws.theta, ws.vs, ws.qs, ws.kv[i], ws.kq[i])) return false;
  }
  ws.err_theta.setZero();
  ws.err_v.setZero();
  for (int j = 0; j < kStages; ++j) {
    if (kE[j] == 0.0) continue;
    ws.err_theta += kE[j] * ws.kq[j];
    ws.err_v += kE[j] * ws.kv[j];
  }
  ws.err_theta *= h;
  ws.err_v *= h;
  return true;
}

// Weighted RMS norm (Hairer, Nørsett & Wanner, Solving ODEs I, eq. II.4.11) over θ and v.
double error_norm(double h, VectorRef v0, const Dopri5Workspace& ws, const AdaptiveOptions& o) {
  const Index nv = static_cast<Index>(v0.size());
  if (nv == 0) return 0.0;
  double sum = 0.0;
  for (Index k = 0; k < nv; ++k) {
    const double sq = o.abs_tol + o.rel_tol * std::max(std::abs(ws.theta[k]), h * std::abs(v0[k]));
    const double sv = o.abs_tol + o.rel_tol * std::max(std::abs(v0[k]), std::abs(ws.vs[k]));
    const double eq = ws.err_theta[k] / sq, ev = ws.err_v[k] / sv;
    sum += eq * eq + ev * ev;
  }
  return std::sqrt(sum / (2.0 * nv));
}

void check_option(bool ok, const char* field, const char* requirement, double value) {
  ARTICULA_CHECK(ok, "AdaptiveOptions::" << field << " must be " << requirement << " (got " << value << ")");
}

}  // namespace

void AdaptiveOptions::validate() const {
  check_option(std::isfinite(abs_tol) && abs_tol > 0.0, "abs_tol", "finite and > 0", abs_tol);
  check_option(std::isfinite(rel_tol) && rel_tol >= 0.0, "rel_tol", "finite and >= 0", rel_tol);
  check_option(std::isfinite(min_step) && min_step > 0.0, "min_step", "finite and > 0", min_step);
  check_option(std::isfinite(max_step) && max_step >= min_step, "max_step", "finite and >= min_step", max_step);
  check_option(safety > 0.0 && safety <= 1.0, "safety", "in (0, 1]", safety);
  check_option(min_factor > 0.0 && min_factor < 1.0, "min_factor", "in (0, 1)", min_factor);
  check_option(std::isfinite(max_factor) && max_factor >= 1.0, "max_factor", "finite and >= 1", max_factor);
}

Dopri5Workspace::Dopri5Workspace(const Model& model)
    : theta(model.nv), vs(model.nv), qs(model.nq), err_theta(model.nv), err_v(model.nv) {
  for (int i = 0; i < kStages; ++i) {
    kq[i].resize(model.nv);
    kv[i].resize(model.nv);
  }
}

AdaptiveStepResult dopri5_step(const Model& model, const AccelerationFn& f, double h, double h_limit,
                               Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v, Dopri5Workspace& ws,
                               const AdaptiveOptions& options) {
  options.validate();
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK(ws.qs.size() == model.nq && ws.theta.size() == model.nv, "workspace made for another model");
  ARTICULA_CHECK(h > 0.0, "h must be > 0 (got " << h << ")");
  ARTICULA_CHECK(h_limit > 0.0, "h_limit must be > 0 (got " << h_limit << ")");

  const AdaptiveOptions& o = options;
  AdaptiveStepResult r;
  const double h_request = std::clamp(h, o.min_step, o.max_step);
  // h_limit < min_step: one step of exactly h_limit, to land on an event, without error control.
  const bool forced = h_limit < o.min_step;
  const bool limited = h_limit < h_request;
  double ht = limited ? h_limit : h_request;

  // Stage 1 (θ = 0, so k_q = v), shared by every trial.
  r.evaluations = 1;
  if (!f(q, v, ws.kv[0])) {
    r.ok = false;
    r.f_failed = true;
    r.h_next = ht;
    return r;
  }
  ws.kq[0] = v;

  for (;;) {
    if (!trial(model, f, ht, q, v, ws, r.evaluations)) {
      r.ok = false;
      r.f_failed = true;
      r.h_next = ht;
      return r;
    }
    const double err = error_norm(ht, v, ws, o);
    if (forced || err <= 1.0) {
      r.error = err;
      break;
    }
    // Rejected (a NaN error too): shrink, never below min_step; min_step itself is tried once.
    ++r.rejected;
    const double fac =
        std::isnan(err) ? o.min_factor : std::max(o.min_factor, o.safety * std::pow(err, kOrderExponent));
    double h_new = ht * fac;
    if (h_new < o.min_step) {
      if (ht <= o.min_step) {
        r.ok = false;
        r.h_next = ht;
        return r;
      }
      h_new = o.min_step;
    }
    ht = h_new;
  }

  // Accept the 5th-order solution (local extrapolation).
  q = ws.qs;
  v = ws.vs;
  r.h = ht;
  if (forced) {
    r.h_next = h_request;
    return r;
  }
  const double fac = r.error == 0.0
                         ? o.max_factor
                         : std::clamp(o.safety * std::pow(r.error, kOrderExponent), o.min_factor, o.max_factor);
  double h_next = ht * fac;
  if (r.rejected > 0) h_next = std::min(h_next, ht);  // no growth right after a rejection (HNW §II.4)
  if (limited && r.rejected == 0) h_next = std::max(h_next, h_request);  // h_limit only clipped the step
  r.h_next = std::clamp(h_next, o.min_step, o.max_step);
  return r;
}

}  // namespace articula
