#pragma once
/// Frames held in the world or to each other (docs/constraints.md, "Frame and loop rows").
#include <optional>
#include <vector>

#include "articula/constraints/constraint.hpp"

namespace articula {

/// Frame A held relative to frame B (B = the world when frame_b is empty), on the axes of
/// a mask expressed in B's axes. With d = p_A − p_B, R_B the orientation of B and
/// (v, ω), (a, ω̇) the classical velocities / accelerations of the frame origins in world axes:
///   linear rows:  e = R_Bᵀ d − r₀,               J = R_Bᵀ (J_A,v − J_B,v + [d]× J_B,ω)
///   angular rows: e = log(R_Bᵀ R_A R₀ᵀ),          J = R_Bᵀ (J_A,ω − J_B,ω)
/// and γ = d/dt(J) v obtained from the kinematics at v̇ = 0.
/// The reference (r₀, R₀) is the relative pose when the constraint is enabled, or the one given.
class FramePairConstraint : public Constraint {
 public:
  FramePairConstraint(std::string name, std::string frame_a, std::string frame_b, AxisMask mask,
                      std::optional<Transform> reference);
  void bind(const Model& model) override;
  void capture_reference(const Model& model, const Data& data, VectorRef q) override;
  void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
               Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;
  /// J depends on the placements and the joint Jacobians only.
  bool jacobian_from_placements() const override { return true; }
  void jacobian(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
                Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;

  /// Sets the reference pose of A in B (in the world if B is the world); it is then kept across enables.
  void set_reference(const Transform& reference);
  const Transform& reference() const { return reference_; }
  const AxisMask& mask() const { return mask_; }
  const std::string& frame_a() const { return frame_a_; }
  const std::string& frame_b() const { return frame_b_; }
  /// The wrench [force; moment] (world axes, moment about A's origin) that multipliers λ of
  /// this constraint apply to frame A. Needs the kinematics of the last compute().
  Vector6 wrench(const Eigen::Ref<const VectorX>& lambda) const;

 private:
  Transform relative_pose(const Model& model, const Data& data) const;
  // The rows of J given the origins p_a and p_b (any for the world), with R_B in R_b_last_.
  void write_jacobian(const Model& model, const Data& data, const Vector3& p_a, const Vector3& p_b,
                      Eigen::Ref<MatrixX> J);
  std::string frame_a_, frame_b_;
  AxisMask mask_;
  bool user_reference_ = false;
  Transform reference_;
  Index id_a_ = -1, id_b_ = -1;              // id_b_ = -1: the world
  std::vector<char> support_a_, support_b_;  // (nv) 1 for the dofs that move frame A, B
  Matrix3 R_b_last_ = Matrix3::Identity();
};

/// A frame held in the world: 6D (weld), 3D (point) or any subset of the six axes (world axes).
class FrameConstraint : public FramePairConstraint {
 public:
  FrameConstraint(std::string name, std::string frame, AxisMask mask = AxisMask::weld(),
                  std::optional<Transform> reference = std::nullopt)
      : FramePairConstraint(std::move(name), std::move(frame), "", mask, reference) {}
};

/// A loop closure: frame A held to frame B (axes of the mask in B's axes).
class LoopConstraint : public FramePairConstraint {
 public:
  LoopConstraint(std::string name, std::string frame_a, std::string frame_b, AxisMask mask = AxisMask::point(),
                 std::optional<Transform> relative = std::nullopt)
      : FramePairConstraint(std::move(name), std::move(frame_a), std::move(frame_b), mask, relative) {}
};

/// The distance between two frames' origins held constant: e = ‖p_A − p_B‖ − d₀, one row
/// J = nᵀ (J_A,v − J_B,v), n = (p_A − p_B)/‖p_A − p_B‖. d₀ is the distance when enabled, or given.
/// Singular when the two origins meet (reported by the solver as a rank loss).
class DistanceConstraint : public Constraint {
 public:
  DistanceConstraint(std::string name, std::string frame_a, std::string frame_b,
                     std::optional<double> distance = std::nullopt);
  void bind(const Model& model) override;
  void capture_reference(const Model& model, const Data& data, VectorRef q) override;
  void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
               Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;
  double distance() const { return distance_; }
  const std::string& frame_a() const { return frame_a_; }
  const std::string& frame_b() const { return frame_b_; }

 private:
  std::string frame_a_, frame_b_;
  Index id_a_ = -1, id_b_ = -1;
  bool user_distance_ = false;
  double distance_ = 0.0;
  std::vector<char> support_a_, support_b_;  // (nv) 1 for the dofs that move frame A, B
};

}  // namespace articula
