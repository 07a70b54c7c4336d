#pragma once
/// The immutable description of a robot: a tree of bodies, each carried by one
/// joint, in depth-first order (parent index < child index).
#include <string>
#include <vector>

#include "articula/model/joint.hpp"
#include "articula/spatial/inertia.hpp"

namespace articula {

enum class FrameType { Body, FixedLink, Joint, User };

/// A named frame rigidly attached to a body (or to the world when parent == kWorld).
struct Frame {
  std::string name;
  Index parent = kWorld;  // body index, or kWorld
  Transform placement;    // pose of the frame in the parent body's frame
  FrameType type = FrameType::User;
};

/// Built by ModelBuilder or load_urdf(); algorithms take it by const reference.
/// Body i is carried by joint i; both share index i. Per-dof vectors use v indices,
/// per-coordinate vectors use q indices.
struct Model {
  std::string name;
  int nq = 0;
  int nv = 0;
  int njoints = 0;

  // Per joint (size njoints).
  std::vector<std::string> joint_names;
  std::vector<std::string> body_names;
  std::vector<JointType> joint_types;
  std::vector<Index> parents;               // kWorld for a root
  std::vector<Transform> joint_placements;  // joint frame in the parent body frame
  std::vector<Vector3> axes;                // unit axis (revolute, prismatic)
  std::vector<Inertia> inertias;            // body inertia in its own frame (fixed children merged)
  std::vector<int> idx_q, idx_v, nq_joint, nv_joint;
  std::vector<Index> subtree_end;  // bodies i..subtree_end[i]-1 form i's subtree

  // Per dof (size nv) and per coordinate (size nq).
  MatrixX S;                    // (6 × nv) motion subspaces in the child frames
  std::vector<int> dof_parent;  // λ(k) for the sparse LTLᵀ of M (RBDA §6.5), −1 at roots
  // The ancestors of dof k (λ(k), λ(λ(k)), …), nearest first (decreasing index): the
  // ancestor_count(k) entries of `ancestors` from ancestor_begin[k]. The ancestors of the t-th
  // ancestor of k are the rest of k's list after t, which makes the packed LᵀDL rows
  // (Data::Lfact, row k at ancestor_offset[k]) line up; crba() walks the same lists. Lists
  // share storage (a list is stored inside the list of a descendant), so `ancestors` stays
  // O(nv) for a chain while Σ depth = ancestor_offset[nv] is O(nv²).
  std::vector<int> ancestors;
  std::vector<int> ancestor_begin;   // (nv) where k's list starts in `ancestors`
  std::vector<int> ancestor_offset;  // (nv + 1) prefix sums of the list lengths (depths)
  const int* ancestors_of(int k) const { return ancestors.data() + ancestor_begin[k]; }
  int ancestor_count(int k) const { return ancestor_offset[k + 1] - ancestor_offset[k]; }
  std::vector<Index> dof_joint;          // joint of each dof
  VectorX lower, upper;                  // (nq) position limits (±inf if none)
  VectorX velocity_limit, effort_limit;  // (nv) (+inf if none)
  VectorX damping, friction;             // (nv) from URDF <dynamics>
  VectorX armature;                      // (nv) rotor inertia added to M's diagonal

  std::vector<Frame> frames;
  Motion gravity{Vector3(0, 0, -9.81), Vector3::Zero()};

  // Per joint (size njoints), precomputed by ModelBuilder::build() for the recursions' fast
  // paths (src/dynamics/joint_motion.hpp). A Model without it (empty) takes the general paths.
  std::vector<int> axis_index;  // k when a revolute/continuous/prismatic axis is exactly ±e_k, else −1

  // Look-ups; throw std::invalid_argument naming the missing name and listing valid ones.
  Index joint_id(const std::string& joint_name) const;
  Index frame_id(const std::string& frame_name) const;
  Index body_id(const std::string& body_name) const;
  bool has_joint(const std::string& joint_name) const;
  bool has_frame(const std::string& frame_name) const;
  double total_mass() const;

  /// Sets the armature of every dof of a joint (a copy is cheap; Data stays valid: sizes unchanged).
  void set_armature(const std::string& joint_name, double value);
  /// Adds a user frame to a body (or kWorld); returns its id. Data made before must be remade.
  Index add_frame(const std::string& frame_name, Index parent_body, const Transform& placement);
};

}  // namespace articula
