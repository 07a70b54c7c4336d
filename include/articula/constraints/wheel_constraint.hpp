#pragma once
/// A wheel rolling without slipping on a plane (docs/constraints.md, "Wheel rows").
#include <vector>

#include "articula/constraints/constraint.hpp"

namespace articula {

/// A rigid disk of radius r whose centre is the origin of `frame` and whose spin axis is
/// `axis` (in that frame), rolling on the plane {x : nᵀx = h}. With â = R axis the axis in
/// world, u = (n − (nᵀâ)â)/‖·‖ the in-plane direction towards the plane's normal and
/// p = c − r u the contact point, the rim point at p has zero velocity (3 rows, world axes):
///   J = J_c,v + r [u]× J_ω,      γ = a_c + r [u]× ω̇ + r u̇ × ω   (v̇ = 0 kinematics)
/// Non-holonomic: the tangential rows are velocity-level; the normal row is the derivative
/// of the contact height nᵀp − h (its position error, used by Baumgarte stabilization).
class WheelConstraint : public Constraint {
 public:
  WheelConstraint(std::string name, std::string frame, double radius, Vector3 axis,
                  Vector3 plane_normal = Vector3::UnitZ(), double plane_height = 0.0);
  void bind(const Model& model) override;
  void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
               Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;
  /// Contact point of the last compute() (world).
  const Vector3& contact_point() const { return contact_; }
  double radius() const { return radius_; }
  const std::string& frame() const { return frame_; }
  const Vector3& axis() const { return axis_; }      ///< unit, in the frame
  const Vector3& normal() const { return normal_; }  ///< unit, the plane's (world)
  double height() const { return height_; }

 private:
  std::string frame_;
  double radius_;
  Vector3 axis_, normal_;
  double height_;
  Index id_ = -1;
  std::vector<char> support_;  // (nv) 1 for the dofs that move the wheel
  Vector3 contact_ = Vector3::Zero();
};

}  // namespace articula
