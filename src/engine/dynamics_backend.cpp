#include "engine/dynamics_backend.hpp"

#include "articula/dynamics/aba.hpp"

namespace articula {

DynamicsResult RuntimeAbaDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                            std::string&) {
  aba(model_, data_, q, v, tau, f_ext);
  return {};
}

DynamicsResult RuntimeConstrainedDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau,
                                                    std::span<const Force> f_ext, std::string& message) {
  const SolveReport report = constrained_forward_dynamics(model_, data_, ws_, set_, q, v, tau, f_ext, method_);
  if (report.ok()) return {};
  message = "constrained solve: " + to_string(report.status) + (report.message.empty() ? "" : ": ") + report.message;
  return {false, true};
}

DynamicsResult GeneratedAbaDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force>,
                                              std::string&) {
  kernel_(q.data(), v.data(), tau.data(), data_.ddq.data());
  ++calls_;
  return {true, false};
}

void GeneratedHeldDynamics::set_kernel(ConstrainedKernel kernel, const std::vector<HeldFrame>& held) {
  kernel_ = kernel;
  held_ = held;
  int rows = 0;
  for (const HeldFrame& h : held) rows += h.weld ? 6 : 3;
  ref_.assign(12 * held.size(), 0.0);
  kp_.assign(held.size(), 0.0);
  kd_.assign(held.size(), 0.0);
  lambda_.setZero(rows);
  frames_.clear();
  frames_.reserve(held.size());
}

bool GeneratedHeldDynamics::select(const ConstraintSet& set) {
  frames_.clear();
  if (kernel_ == nullptr) return false;
  const std::vector<const Constraint*> on = set.enabled();
  bool match = on.size() == held_.size();
  for (std::size_t f = 0; match && f < on.size(); ++f) {
    const auto* fc = dynamic_cast<const FramePairConstraint*>(on[f]);
    const HeldFrame& h = held_[f];
    match = fc != nullptr && fc->frame_b().empty() && fc->frame_a() == h.frame;
    if (match)
      for (int k = 0; k < 6; ++k)
        match = match && fc->mask().axis[k] == (h.weld ? AxisMask::weld() : AxisMask::point()).axis[k];
    if (match) frames_.push_back(fc);
  }
  if (!match) frames_.clear();
  return match;
}

DynamicsResult GeneratedHeldDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                               std::string& message) {
  for (std::size_t f = 0; f < frames_.size(); ++f) {
    const FramePairConstraint& c = *frames_[f];
    if (!c.has_reference()) return fallback_.evaluate(q, v, tau, f_ext, message);
    const Transform& X = c.reference();
    for (int k = 0; k < 3; ++k) ref_[12 * f + k] = X.p[k];
    for (int k = 0; k < 9; ++k) ref_[12 * f + 3 + k] = X.R.data()[k];
    const bool on = c.baumgarte_frequency() > 0.0;
    kp_[f] = on ? c.kp() : 0.0;
    kd_[f] = on ? c.kd() : 0.0;
  }
  if (!kernel_(q.data(), v.data(), tau.data(), ref_.data(), kp_.data(), kd_.data(), data_.ddq.data(), lambda_.data()))
    return fallback_.evaluate(q, v, tau, f_ext, message);
  set_.lambda() = lambda_;
  ++calls_;
  return {true, false};
}

}  // namespace articula
