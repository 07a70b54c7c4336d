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

void pack_forces(std::span<const Force> f_ext, std::vector<double>& out) {
  for (std::size_t i = 0; i < f_ext.size(); ++i) {
    double* x = out.data() + 6 * i;
    for (int k = 0; k < 3; ++k) {
      x[k] = f_ext[i].f[k];
      x[3 + k] = f_ext[i].n[k];
    }
  }
}

void GeneratedAbaDynamics::set_kernel(AbaKernel kernel, AbaFextKernel kernel_fext, int bodies) {
  kernel_ = kernel;
  kernel_fext_ = kernel_fext;
  forces_.assign(6 * static_cast<std::size_t>(bodies), 0.0);
}

DynamicsResult GeneratedAbaDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                              std::string&) {
  if (f_ext.empty()) {
    kernel_(q.data(), v.data(), tau.data(), data_.ddq.data());
  } else {
    pack_forces(f_ext, forces_);
    kernel_fext_(q.data(), v.data(), tau.data(), forces_.data(), data_.ddq.data());
  }
  ++calls_;
  return {true, false};
}

void GeneratedHeldDynamics::set_kernel(ConstrainedKernel kernel, ConstrainedFextKernel kernel_fext,
                                       const std::vector<HeldFrame>& held, int bodies) {
  kernel_ = kernel;
  kernel_fext_ = kernel_fext;
  forces_.assign(6 * static_cast<std::size_t>(bodies), 0.0);
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

bool GeneratedHeldDynamics::select(const ConstraintSet& set, bool with_forces) {
  frames_.clear();
  if ((with_forces ? kernel_fext_ == nullptr : kernel_ == nullptr) || held_.empty()) return false;
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
  bool ok = false;
  if (f_ext.empty()) {
    ok = kernel_(q.data(), v.data(), tau.data(), ref_.data(), kp_.data(), kd_.data(), data_.ddq.data(), lambda_.data());
  } else {
    pack_forces(f_ext, forces_);
    ok = kernel_fext_(q.data(), v.data(), tau.data(), forces_.data(), ref_.data(), kp_.data(), kd_.data(),
                      data_.ddq.data(), lambda_.data());
  }
  if (!ok) return fallback_.evaluate(q, v, tau, f_ext, message);
  set_.lambda() = lambda_;
  ++calls_;
  return {true, false};
}

}  // namespace articula
