#include "articula/dynamics/rnea.hpp"

#include "articula/common/check.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula {
namespace {

// RNEA pass 2 (leaves to root): τ_i = S_iᵀ f_i, f_λ += λX_i* f_i (data.f is consumed).
ARTICULA_ALWAYS_INLINE void backward_pass(const Model& model, Data& data, Eigen::Ref<VectorX> tau) {
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const Force& fi = data.f[i];
    const int k = joint_axis_index(model, i);
    if (k >= 0) {
      const int iv = model.idx_v[i];
      tau[iv] = model.axes[i][k] * (is_revolute(model.joint_types[i]) ? fi.n[k] : fi.f[k]);
    } else {
      joint_project(model, i, fi, tau);
    }
    const Index p = model.parents[i];
    if (p != kWorld) data.f[p] += data.liMi[i].act(fi);
  }
}

// RNEA with gravity as a fictitious base acceleration a_0 = −g (RBDA §5.3, Table 5.1), in
// body coordinates. with_velocity = false drops every velocity product (for M v and g).
// Joints about ±e_k (model.axis_index) take a sparse path: S q̇ has one non-zero entry σ q̇
// in row k of the angular (revolute) or linear (prismatic) half, v × S q̇ is a swap of two
// components (RBDA eq. 2.31), and S_iᵀ f picks one component of f.
template <bool with_velocity>
ARTICULA_FLATTEN void rnea_passes(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a,
                                  bool with_gravity, std::span<const Force> f_ext, Eigen::Ref<VectorX> tau) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(a, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  const Motion a0 = with_gravity ? -model.gravity : Motion::Zero();
  const int nb = model.njoints;
  // Pass 1 (root to leaves): v_i = ⁱX_λ v_λ + S q̇, a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇,
  // f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    place_joint(model, data, q, i);
    const Transform& X = data.liMi[i];
    const Index p = model.parents[i];
    const Inertia& I = model.inertias[i];
    Motion& vi = data.v[i];
    Motion& ai = data.a_gf[i];
    if (with_velocity) {
      if (p == kWorld)
        vi = Motion::Zero();
      else
        vi = X.act_inv(data.v[p]);
    }
    ai = X.act_inv(p == kWorld ? a0 : data.a_gf[p]);
    const int k = joint_axis_index(model, i);
    const int iv = model.idx_v[i];
    if (k >= 0) {
      const double sign = model.axes[i][k];
      const double wq = sign * v[iv];
      const bool revolute = is_revolute(model.joint_types[i]);
      (revolute ? ai.w : ai.v)[k] += sign * a[iv];
      if (with_velocity) {
        (revolute ? vi.w : vi.v)[k] += wq;
        add_axis_velocity_product(revolute, k, wq, vi, ai);
      }
    } else {
      ai += joint_motion(model, i, a);
      if (with_velocity) {
        const Motion vJ = joint_motion(model, i, v);
        vi += vJ;
        ai += vi.cross(vJ);
      }
    }
    Force& fi = data.f[i];
    fi = I * ai;
    if (with_velocity) fi += vi.cross(I * vi);
    if (!f_ext.empty()) fi -= f_ext[i];
  }
  backward_pass(model, data, tau);
  tau += model.armature.cwiseProduct(a);
}

}  // namespace

const VectorX& rnea(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a,
                    std::span<const Force> f_ext) {
  rnea_passes<true>(model, data, q, v, a, true, f_ext, data.tau);
  return data.tau;
}

ARTICULA_FLATTEN const VectorX& bias_from_kinematics(const Model& model, Data& data, std::span<const Force> f_ext) {
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  // RNEA at q̈ = 0 (RBDA Table 5.1) on the velocities and bias accelerations of
  // forward_kinematics_bias(); gravity enters as the fictitious base acceleration −g, which a
  // body sees as ⁱX_0 (−g) (RBDA §5.3).
  const Motion a0 = -model.gravity;
  for (Index i = 0; i < model.njoints; ++i) {
    const Inertia& I = model.inertias[i];
    const Motion& vi = data.v[i];
    Motion& ai = data.a_gf[i];
    ai = data.a[i] + data.oMi[i].act_inv(a0);
    Force& fi = data.f[i];
    fi = I * ai + vi.cross(I * vi);
    if (!f_ext.empty()) fi -= f_ext[i];
  }
  backward_pass(model, data, data.tau);
  return data.tau;
}

const VectorX& nonlinear_effects(const Model& model, Data& data, VectorRef q, VectorRef v) {
  data.tmp_nv.setZero();
  rnea_passes<true>(model, data, q, v, data.tmp_nv, true, {}, data.h);
  return data.h;
}

const VectorX& generalized_gravity(const Model& model, Data& data, VectorRef q) {
  data.tmp_nv.setZero();
  rnea_passes<false>(model, data, q, data.tmp_nv, data.tmp_nv, true, {}, data.g);
  return data.g;
}

const VectorX& generalized_momentum(const Model& model, Data& data, VectorRef q, VectorRef v) {
  // M v = rnea(q, 0, v) without gravity: v plays the role of the acceleration.
  rnea_passes<false>(model, data, q, v, v, false, {}, data.momentum);
  return data.momentum;
}

}  // namespace articula
