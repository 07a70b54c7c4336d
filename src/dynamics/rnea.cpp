#include "articula/dynamics/rnea.hpp"

#include "articula/common/check.hpp"
#include "articula/dynamics/joint_motion.hpp"
#include "articula/dynamics/kinematics.hpp"

namespace articula {
namespace {

// RNEA with gravity as a fictitious base acceleration a_0 = −g (RBDA §5.3).
// with_velocity = false drops every velocity product (for M v and g).
void rnea_passes(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a, bool with_velocity,
                 bool with_gravity, std::span<const Force> f_ext, Eigen::Ref<VectorX> tau) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(a, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  const Motion a0 = with_gravity ? -model.gravity : Motion::Zero();
  // Pass 1 (root to leaves): v_i = ⁱX_λ v_λ + S q̇, a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇,
  // f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < model.njoints; ++i) {
    const Transform& X = data.liMi[i] =
        model.joint_placements[i] * joint_transform(model.joint_types[i], model.axes[i], q.data() + model.idx_q[i]);
    const Index p = model.parents[i];
    data.oMi[i] = p == kWorld ? X : data.oMi[p] * X;
    const Inertia& I = model.inertias[i];
    Motion aJ = joint_motion(model, i, a);
    if (with_velocity) {
      const Motion vJ = joint_motion(model, i, v);
      data.v[i] = p == kWorld ? vJ : X.act_inv(data.v[p]) + vJ;
      aJ += data.v[i].cross(vJ);
      data.a_gf[i] = (p == kWorld ? X.act_inv(a0) : X.act_inv(data.a_gf[p])) + aJ;
      data.f[i] = I * data.a_gf[i] + data.v[i].cross(I * data.v[i]);
    } else {
      data.a_gf[i] = (p == kWorld ? X.act_inv(a0) : X.act_inv(data.a_gf[p])) + aJ;
      data.f[i] = I * data.a_gf[i];
    }
    if (!f_ext.empty()) data.f[i] -= f_ext[i];
  }
  // Pass 2 (leaves to root): τ_i = S_iᵀ f_i, f_λ += λX_i* f_i.
  for (Index i = model.njoints - 1; i >= 0; --i) {
    joint_project(model, i, data.f[i], tau);
    const Index p = model.parents[i];
    if (p != kWorld) data.f[p] += data.liMi[i].act(data.f[i]);
  }
  tau.array() += model.armature.array() * a.array();
}

}  // namespace

const VectorX& rnea(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a,
                    std::span<const Force> f_ext) {
  rnea_passes(model, data, q, v, a, true, true, f_ext, data.tau);
  return data.tau;
}

const VectorX& nonlinear_effects(const Model& model, Data& data, VectorRef q, VectorRef v) {
  data.tmp_nv.setZero();
  rnea_passes(model, data, q, v, data.tmp_nv, true, true, {}, data.h);
  return data.h;
}

const VectorX& generalized_gravity(const Model& model, Data& data, VectorRef q) {
  data.tmp_nv.setZero();
  rnea_passes(model, data, q, data.tmp_nv, data.tmp_nv, false, true, {}, data.g);
  return data.g;
}

const VectorX& generalized_momentum(const Model& model, Data& data, VectorRef q, VectorRef v) {
  // M v = rnea(q, 0, v) without gravity: v plays the role of the acceleration.
  rnea_passes(model, data, q, v, v, false, false, {}, data.momentum);
  return data.momentum;
}

}  // namespace articula
