#pragma once
/// The preallocated workspace of one model: every algorithm writes its results
/// here. Sized once by the constructor; no algorithm allocates afterwards.
#include <vector>

#include "articula/model/model.hpp"

namespace articula {

struct Data {
  explicit Data(const Model& model);

  // forward_kinematics(): per body (njoints).
  std::vector<Transform> liMi;  // pose of body i in its parent body (or world)
  std::vector<Transform> oMi;   // pose of body i in the world
  std::vector<Motion> v;        // spatial velocity of body i, body frame
  std::vector<Motion> a;        // spatial acceleration of body i, body frame (gravity excluded)
  std::vector<Motion>
      a_gf;  // by rnea()/aba(): a − g expressed in the body frame (gravity as a fictitious acceleration)
  // update_frame_placements(): per frame.
  std::vector<Transform> oMf;

  // rnea(): per body forces, joint torques.
  std::vector<Force> f;  // net spatial force transmitted by joint i, body frame
  VectorX tau;           // (nv)
  // nonlinear_effects(), generalized_gravity().
  VectorX h;  // (nv) h(q, v) = C(q, v) v + g(q)
  VectorX g;  // (nv) g(q)

  // crba(): composite inertias and the joint-space inertia matrix (both triangles filled).
  std::vector<Inertia> Ycrb;
  MatrixX M;  // (nv × nv), armature on the diagonal
  // factorize_mass_matrix(): M = Lᵀ D L with L unit lower triangular and nonzero only at
  // (i, j), j an ancestor of i. Packed by rows: L(k, ancestors[t]) at Lfact[t] for t in
  // [ancestor_offset[k], ancestor_offset[k+1]) (model.hpp); mass_factor_l() unpacks it.
  VectorX Lfact;      // (model.ancestor_offset[nv]) Σ depth
  VectorX Dfact;      // (nv) D
  VectorX Dinv_fact;  // (nv) 1 / D

  // aba().
  std::vector<Matrix6> IA;    // articulated inertias
  std::vector<Force> pA;      // articulated bias forces
  MatrixX U;                  // (6 × nv) U_i = IA_i S_i
  std::vector<Matrix6> Dinv;  // per joint, top-left nv_i × nv_i block is D_i⁻¹
  VectorX u;                  // (nv)
  VectorX ddq;                // (nv) accelerations

  // compute_joint_jacobians(): world-frame columns (spatial velocity at the world origin).
  MatrixX J;  // (6 × nv)

  // energy / centre of mass.
  double kinetic_energy = 0.0;
  double potential_energy = 0.0;
  double mass = 0.0;
  Vector3 com = Vector3::Zero();
  MatrixX Jcom;      // (3 × nv)
  VectorX momentum;  // (nv) M v

  // Scratch for solvers and temporaries (size nv).
  VectorX tmp_nv;
  // Subtree masses and first moments in world axes, by center_of_mass_jacobian().
  std::vector<double> subtree_mass;
  std::vector<Vector3> subtree_h;
};

}  // namespace articula
