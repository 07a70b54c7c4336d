#include "articula/dynamics/energy.hpp"

#include "articula/common/check.hpp"
#include "articula/dynamics/jacobian.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "dynamics/energy_sums.hpp"

namespace articula {

namespace {

double kinetic_from_velocities(const Model& model, const Data& data, VectorRef v) {
  return energy_sums::kinetic<double>(model, data.v, v);
}

double potential_from_placements(const Model& model, const Data& data) {
  return energy_sums::potential<double>(model, data.oMi);
}

}  // namespace

double kinetic_energy(const Model& model, Data& data, VectorRef q, VectorRef v) {
  forward_kinematics(model, data, q, v);
  data.kinetic_energy = kinetic_from_velocities(model, data, v);
  return data.kinetic_energy;
}

double potential_energy(const Model& model, Data& data, VectorRef q) {
  forward_kinematics(model, data, q);
  data.potential_energy = potential_from_placements(model, data);
  return data.potential_energy;
}

double mechanical_energy(const Model& model, Data& data, VectorRef q, VectorRef v) {
  forward_kinematics(model, data, q, v);
  return mechanical_energy_from_kinematics(model, data, v);
}

double mechanical_energy_from_kinematics(const Model& model, Data& data, VectorRef v) {
  ARTICULA_CHECK_SIZE(v, model.nv);
  data.kinetic_energy = kinetic_from_velocities(model, data, v);
  data.potential_energy = potential_from_placements(model, data);
  return data.kinetic_energy + data.potential_energy;
}

const Vector3& center_of_mass(const Model& model, Data& data, VectorRef q) {
  forward_kinematics(model, data, q);
  Vector3 h = Vector3::Zero();
  double m = 0.0;
  for (Index i = 0; i < model.njoints; ++i) {
    const Inertia& I = model.inertias[i];
    h += data.oMi[i].R * I.h + I.m * data.oMi[i].p;
    m += I.m;
  }
  data.mass = m;
  data.com = m > 0.0 ? Vector3(h / m) : Vector3::Zero();
  return data.com;
}

const MatrixX& center_of_mass_jacobian(const Model& model, Data& data, VectorRef q) {
  compute_joint_jacobians(model, data, q);
  for (Index i = 0; i < model.njoints; ++i) {
    const Inertia& I = model.inertias[i];
    data.subtree_mass[i] = I.m;
    data.subtree_h[i] = data.oMi[i].R * I.h + I.m * data.oMi[i].p;
  }
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const Index p = model.parents[i];
    if (p == kWorld) continue;
    data.subtree_mass[p] += data.subtree_mass[i];
    data.subtree_h[p] += data.subtree_h[i];
  }
  double m = 0.0;
  Vector3 h = Vector3::Zero();
  for (Index i = 0; i < model.njoints; ++i)
    if (model.parents[i] == kWorld) {
      m += data.subtree_mass[i];
      h += data.subtree_h[i];
    }
  data.mass = m;
  data.com = m > 0.0 ? Vector3(h / m) : Vector3::Zero();
  const double inv_m = m > 0.0 ? 1.0 / m : 0.0;
  for (Index i = 0; i < model.njoints; ++i)
    for (int c = model.idx_v[i]; c < model.idx_v[i] + model.nv_joint[i]; ++c) {
      const Motion col = Motion::from(data.J.col(c));
      data.Jcom.col(c) = inv_m * (data.subtree_mass[i] * col.v + col.w.cross(data.subtree_h[i]));
    }
  return data.Jcom;
}

}  // namespace articula
