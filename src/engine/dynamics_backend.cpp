#include "engine/dynamics_backend.hpp"

#include <algorithm>

#include "articula/constraints/joint_lock.hpp"
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

void GeneratedContactsDynamics::set_kernel(AbaContactsKernel kernel, const std::vector<DeclaredContact>& declared) {
  kernel_ = kernel;
  declared_ = declared;
  law_.assign(4 * declared.size(), 0.0);
}

bool GeneratedContactsDynamics::select(const std::vector<ElasticContact>& contacts, VectorX& f_contact) {
  if (!kernel_ || contacts.size() != declared_.size()) return false;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const ElasticContact& c = contacts[k];
    const DeclaredContact& d = declared_[k];
    // Robot::add_contact keeps the normal divided by its norm, as the generator does; a unit
    // normal divided again may move by an ulp.
    if (c.frame != d.frame || c.offset != d.offset || c.surface.kind != Surface::Kind::Plane ||
        c.surface.point != d.point || (c.surface.normal - d.normal.normalized()).cwiseAbs().maxCoeff() > 1e-15)
      return false;
  }
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const ElasticContact& c = contacts[k];
    double* law = law_.data() + 4 * k;
    law[0] = c.stiffness, law[1] = c.damping, law[2] = c.friction, law[3] = c.slip_velocity;
  }
  f_contact_ = &f_contact;
  return true;
}

DynamicsResult GeneratedContactsDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force>,
                                                   std::string&) {
  kernel_(q.data(), v.data(), tau.data(), law_.data(), data_.ddq.data(), f_contact_->data());
  ++calls_;
  return {true, false};
}

void GeneratedConstrainedDynamics::set_kernel(const KernelTable& k, const Model& model) {
  kernel_ = k.constrained_dynamics;
  kernel_fext_ = k.constrained_dynamics_fext;
  model_ = &model;
  forces_.assign(6 * static_cast<std::size_t>(model.njoints), 0.0);
  held_ = k.held_frames;
  locked_.clear();
  for (const std::string& name : k.locked_joints) locked_.push_back(model.joint_id(name));
  distances_ = k.distances;
  wheels_ = k.wheels;
  const ConstrainedLayout layout = constrained_layout(model, held_, k.locked_joints, distances_, wheels_);
  slots_ = layout.declared;
  const std::size_t declared = slots_.size();
  ref_.assign(static_cast<std::size_t>(layout.ref_size), 0.0);
  kp_.assign(declared, 0.0);
  kd_.assign(declared, 0.0);
  active_.assign(declared, 0.0);
  lambda_.assign(static_cast<std::size_t>(layout.m), 0.0);
  uses_.clear();
  uses_.reserve(declared);
}

bool GeneratedConstrainedDynamics::select(const ConstraintSet& set, bool with_forces) {
  uses_.clear();
  std::fill(active_.begin(), active_.end(), 0.0);
  if ((with_forces ? kernel_fext_ == nullptr : kernel_ == nullptr) || active_.empty()) return false;
  const Model* model = model_;
  auto take = [&](int slot, const Constraint* c, int set_row, int ref_from) {
    if (active_[static_cast<std::size_t>(slot)] != 0.0) return false;  // declared once, used once
    active_[static_cast<std::size_t>(slot)] = 1.0;
    const ConstrainedLayout::Declared& s = slots_[static_cast<std::size_t>(slot)];
    uses_.push_back({slot, c, s.row, set_row, s.rows, ref_from});
    return true;
  };
  bool match = model != nullptr;
  for (const Constraint* c : set.enabled()) {
    if (!match) break;
    const int row0 = set.row_offset(c->name());
    if (const auto* fc = dynamic_cast<const FramePairConstraint*>(c)) {
      match = false;
      for (std::size_t f = 0; f < held_.size() && !match; ++f) {
        const AxisMask mask = held_[f].mask();
        if (held_[f].frame == fc->frame_a() && held_[f].relative_to == fc->frame_b() &&
            std::equal(mask.axis, mask.axis + 6, fc->mask().axis) && active_[f] == 0.0)
          match = take(static_cast<int>(f), c, row0, 0);
      }
    } else if (const auto* dc = dynamic_cast<const DistanceConstraint*>(c)) {
      match = false;
      const std::size_t first = held_.size() + locked_.size();
      for (std::size_t i = 0; i < distances_.size() && !match; ++i)
        if (distances_[i].frame_a == dc->frame_a() && distances_[i].frame_b == dc->frame_b() &&
            active_[first + i] == 0.0)
          match = take(static_cast<int>(first + i), c, row0, 0);
    } else if (const auto* wc = dynamic_cast<const WheelConstraint*>(c)) {
      // The kernels fold the wheel's numbers in: only a wheel with the same ones matches (the
      // directions normalized, as both WheelConstraint and the generator keep them).
      match = false;
      const std::size_t first = held_.size() + locked_.size() + distances_.size();
      for (std::size_t i = 0; i < wheels_.size() && !match; ++i) {
        const HeldWheel& w = wheels_[i];
        if (w.frame == wc->frame() && w.radius == wc->radius() && w.axis.normalized() == wc->axis() &&
            w.normal.normalized() == wc->normal() && w.height == wc->height() && active_[first + i] == 0.0)
          match = take(static_cast<int>(first + i), c, row0, 0);
      }
    } else if (const auto* lock = dynamic_cast<const JointLock*>(c)) {
      int row = row0, ref_from = 0;
      for (const std::string& name : lock->joints()) {
        const Index j = model->joint_id(name);
        const auto it = std::find(locked_.begin(), locked_.end(), j);
        match = it != locked_.end() &&
                take(static_cast<int>(held_.size() + static_cast<std::size_t>(it - locked_.begin())), c, row, ref_from);
        if (!match) break;
        row += model->nv_joint[j];
        ref_from += model->nq_joint[j];
      }
    } else {
      match = false;
    }
  }
  if (!match) {
    uses_.clear();
    std::fill(active_.begin(), active_.end(), 0.0);
  }
  return match;
}

DynamicsResult GeneratedConstrainedDynamics::evaluate(VectorRef q, VectorRef v, VectorRef tau,
                                                      std::span<const Force> f_ext, std::string& message) {
  for (const Use& u : uses_) {
    const Constraint& c = *u.constraint;
    if (!c.has_reference()) return fallback_.evaluate(q, v, tau, f_ext, message);
    const ConstrainedLayout::Declared& s = slots_[static_cast<std::size_t>(u.slot)];
    double* ref = ref_.data() + s.ref;
    switch (s.kind) {
      case ConstrainedLayout::Kind::Frame: {
        const Transform& X = static_cast<const FramePairConstraint&>(c).reference();
        for (int k = 0; k < 3; ++k) ref[k] = X.p[k];
        for (int k = 0; k < 9; ++k) ref[3 + k] = X.R.data()[k];
        break;
      }
      case ConstrainedLayout::Kind::Lock: {
        const VectorX& r = static_cast<const JointLock&>(c).reference();
        for (int k = 0; k < s.nq; ++k) ref[k] = r[u.ref_from + k];
        break;
      }
      case ConstrainedLayout::Kind::Distance:
        ref[0] = static_cast<const DistanceConstraint&>(c).distance();
        break;
      case ConstrainedLayout::Kind::Wheel:  // its numbers are in the kernel, nothing in ref
        break;
    }
    const bool on = c.baumgarte_frequency() > 0.0;
    kp_[static_cast<std::size_t>(u.slot)] = on ? c.kp() : 0.0;
    kd_[static_cast<std::size_t>(u.slot)] = on ? c.kd() : 0.0;
  }
  bool ok = false;
  if (f_ext.empty()) {
    ok = kernel_(q.data(), v.data(), tau.data(), ref_.data(), kp_.data(), kd_.data(), active_.data(), data_.ddq.data(),
                 lambda_.data());
  } else {
    pack_forces(f_ext, forces_);
    ok = kernel_fext_(q.data(), v.data(), tau.data(), forces_.data(), ref_.data(), kp_.data(), kd_.data(),
                      active_.data(), data_.ddq.data(), lambda_.data());
  }
  if (!ok) return fallback_.evaluate(q, v, tau, f_ext, message);
  VectorX& lambda = fallback_.workspace().lambda;  // sized for the set by Impl::refresh_active
  for (const Use& u : uses_)
    for (int r = 0; r < u.rows; ++r) lambda[u.set_row + r] = lambda_[static_cast<std::size_t>(u.kernel_row + r)];
  ++calls_;
  return {true, false};
}

}  // namespace articula
