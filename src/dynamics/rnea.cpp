#include "articula/dynamics/rnea.hpp"

#include "articula/common/check.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "dynamics/rnea_passes.hpp"

namespace articula {
namespace {

// The runtime instantiation of the shared passes (dynamics/rnea_passes.hpp), flattened.
template <bool with_velocity>
ARTICULA_FLATTEN void run_rnea(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a, bool with_gravity,
                               std::span<const Force> f_ext, Eigen::Ref<VectorX> tau) {
  rnea_passes<double, with_velocity>(model, data, q, v, a, with_gravity, f_ext, tau);
}

}  // namespace

const VectorX& rnea(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a,
                    std::span<const Force> f_ext) {
  run_rnea<true>(model, data, q, v, a, true, f_ext, data.tau);
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
  rnea_backward_pass<double>(model, data, Eigen::Ref<VectorX>(data.tau));
  return data.tau;
}

const VectorX& nonlinear_effects(const Model& model, Data& data, VectorRef q, VectorRef v) {
  data.tmp_nv.setZero();
  run_rnea<true>(model, data, q, v, data.tmp_nv, true, {}, data.h);
  return data.h;
}

const VectorX& generalized_gravity(const Model& model, Data& data, VectorRef q) {
  data.tmp_nv.setZero();
  run_rnea<false>(model, data, q, data.tmp_nv, data.tmp_nv, true, {}, data.g);
  return data.g;
}

const VectorX& generalized_momentum(const Model& model, Data& data, VectorRef q, VectorRef v) {
  // M v = rnea(q, 0, v) without gravity: v plays the role of the acceleration.
  run_rnea<false>(model, data, q, v, v, false, {}, data.momentum);
  return data.momentum;
}

}  // namespace articula
