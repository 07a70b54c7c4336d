#include "articula/model/configuration.hpp"

#include "articula/common/check.hpp"

namespace articula {

VectorX neutral(const Model& model) {
  VectorX q(model.nq);
  for (Index i = 0; i < model.njoints; ++i) joint_neutral(model.joint_types[i], q.data() + model.idx_q[i]);
  return q;
}

void integrate(const Model& model, VectorRef q, VectorRef v, double dt, Eigen::Ref<VectorX> q_out) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(q_out, model.nq);
  for (Index i = 0; i < model.njoints; ++i)
    joint_integrate(model.joint_types[i], q.data() + model.idx_q[i], v.data() + model.idx_v[i], dt,
                    q_out.data() + model.idx_q[i]);
}

VectorX integrate(const Model& model, VectorRef q, VectorRef v, double dt) {
  VectorX out(model.nq);
  integrate(model, q, v, dt, out);
  return out;
}

VectorX difference(const Model& model, VectorRef q0, VectorRef q1) {
  ARTICULA_CHECK_SIZE(q0, model.nq);
  ARTICULA_CHECK_SIZE(q1, model.nq);
  VectorX v(model.nv);
  for (Index i = 0; i < model.njoints; ++i)
    joint_difference(model.joint_types[i], q0.data() + model.idx_q[i], q1.data() + model.idx_q[i],
                     v.data() + model.idx_v[i]);
  return v;
}

void dexp_inv(const Model& model, VectorRef theta, VectorRef xi, Eigen::Ref<VectorX> out) {
  for (Index i = 0; i < model.njoints; ++i) {
    const int iv = model.idx_v[i];
    joint_dexp_inv(model.joint_types[i], theta.data() + iv, xi.data() + iv, out.data() + iv);
  }
}

void normalize(const Model& model, Eigen::Ref<VectorX> q) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  for (Index i = 0; i < model.njoints; ++i) joint_normalize(model.joint_types[i], q.data() + model.idx_q[i]);
}

VectorX random_configuration(const Model& model, std::mt19937& rng) {
  VectorX q(model.nq);
  for (Index i = 0; i < model.njoints; ++i) {
    const int iq = model.idx_q[i];
    joint_random(model.joint_types[i], model.lower.data() + iq, model.upper.data() + iq, rng, q.data() + iq);
  }
  return q;
}

}  // namespace articula
