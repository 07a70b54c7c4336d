#pragma once
/// A robot: a model plus its hardware — motors, sensors, elastic contact points — and its
/// constraint set, all registered by name (add / remove / get / names; unknown or duplicate
/// names are std::invalid_argument errors that list the valid names).
///
/// The model seen by the dynamics (`model()`) is the loaded model with each motor's reflected
/// rotor inertia added to its joint's armature: armature += gear_ratio² · rotor_inertia.
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "articula/constraints/constraint_set.hpp"
#include "articula/engine/brake.hpp"
#include "articula/model/model.hpp"
#include "articula/spatial/motion.hpp"

namespace articula {

/// A motor driving one 1-dof joint (revolute, continuous or prismatic). The command u is the
/// joint-side effort [N·m or N]; the effort applied to the joint is
///   τ = sat(u, effort_limit) − viscous·q̇ − coulomb·tanh(q̇ / coulomb_velocity).
struct Motor {
  std::string name;
  std::string joint;
  double gear_ratio = 1.0;     ///< > 0; reflects the rotor inertia: armature += N² I_rotor
  double rotor_inertia = 0.0;  ///< [kg·m²] ≥ 0, motor side
  double effort_limit = std::numeric_limits<double>::infinity();  ///< [N·m] > 0, joint side; inf: none
  double viscous = 0.0;                                           ///< [N·m·s/rad] ≥ 0
  double coulomb = 0.0;                                           ///< [N·m] ≥ 0
  double coulomb_velocity = 1e-3;                                 ///< [rad/s] > 0, tanh regularization
  int dof = -1;                                                   ///< index in v (resolved by Robot::add_motor)
  /// τ for a command u at joint rate qd.
  double effort(double u, double qd) const;
};

enum class SensorType {
  Encoder,      ///< target: a 1-dof joint → channels pos, vel
  Effort,       ///< target: a motor → channel effort (τ applied, after saturation and friction)
  Imu,          ///< target: a frame → gyro.x/y/z [rad/s], acc.x/y/z [m/s²] (specific force), frame axes
  ForceTorque,  ///< target: a frame constraint or an elastic contact → fx fy fz tx ty tz, world axes
  Position,     ///< target: a frame → x, y, z of its origin in the world [m] (e.g. a flange, a foot)
};
std::string to_string(SensorType type);
/// "encoder", "effort", "imu", "force_torque", "position"; throws std::invalid_argument.
SensorType parse_sensor_type(const std::string& text);

struct Sensor {
  std::string name;
  SensorType type = SensorType::Encoder;
  std::string target;  ///< joint, motor, frame, constraint or contact name (by type)
  /// Channel names, e.g. {"pos", "vel"}; the log column is sensor.<name>.<channel>.
  std::vector<std::string> channels() const;
};

/// A surface an elastic contact point pushes against. The point penetrates by
/// δ = −signed distance ≥ 0 along the outward normal n.
struct Surface {
  enum class Kind { Plane, HeightField };
  Kind kind = Kind::Plane;
  Vector3 point{Vector3::Zero()};                    ///< Plane: a point of the plane [m]
  Vector3 normal{Vector3::UnitZ()};                  ///< Plane: outward unit normal (normalized on add)
  std::function<double(double x, double y)> height;  ///< HeightField: z = height(x, y), normal from its gradient
  static Surface ground(double height = 0.0);
  static Surface plane(const Vector3& point, const Vector3& normal);  ///< a half-space: a wall, a slope
  static Surface height_field(std::function<double(double, double)> height);
  /// Signed distance of p (positive outside) and the outward unit normal at its projection.
  double distance(const Vector3& p, Vector3& normal_out) const;
};

/// An elastic contact point on a frame (offset in the frame's axes) against a surface:
///   normal force   f_n = max(0, k δ − d δ̇_out)        (never attractive; δ̇_out = n·ṗ)
///   friction force f_t = −μ f_n v_t / sqrt(|v_t|² + v_slip²)   (regularized Coulomb)
/// applied at the point, as an external force on the frame's body. Hunt–Crossley-free linear
/// spring–damper (e.g. Brogliato, Nonsmooth Mechanics, §2.1).
struct ElasticContact {
  std::string name;
  std::string frame;
  Vector3 offset{Vector3::Zero()};  ///< [m] point in the frame's axes
  Surface surface = Surface::ground();
  double stiffness = 1e5;       ///< k [N/m] > 0
  double damping = 1e3;         ///< d [N·s/m] ≥ 0
  double friction = 1.0;        ///< μ ≥ 0
  double slip_velocity = 1e-3;  ///< v_slip [m/s] > 0
  Index frame_id = 0;           ///< resolved by Robot::add_contact
};

class Robot {
 public:
  explicit Robot(Model model);
  Robot(Robot&&) = default;
  Robot(const Robot&) = delete;
  Robot& operator=(const Robot&) = delete;
  /// Loads a URDF (load_urdf); `floating` puts a free-flyer at the root.
  static Robot from_urdf(const std::string& path, bool floating = false);

  const Model& model() const { return *model_; }     ///< with the motors' reflected inertia
  const Model& base_model() const { return base_; }  ///< as loaded
  std::shared_ptr<const Model> model_ptr() const { return model_; }
  /// Gravity [m/s²] used by every algorithm on model() (default: as loaded, −9.81 z).
  void set_gravity(const Vector3& g);
  ConstraintSet& constraints() { return constraints_; }
  const ConstraintSet& constraints() const { return constraints_; }

  /// Throws std::invalid_argument: duplicate name, unknown joint (valid names listed), a joint
  /// that is not 1-dof, a second motor on one joint, invalid numbers. Returns the stored motor.
  const Motor& add_motor(Motor motor);
  void remove_motor(const std::string& name);
  const Motor& motor(const std::string& name) const;
  int motor_index(const std::string& name) const;
  const std::vector<Motor>& motors() const { return motors_; }

  /// Throws for a duplicate name or an unknown / wrong-kind target (valid names listed).
  const Sensor& add_sensor(Sensor sensor);
  void remove_sensor(const std::string& name);
  const Sensor& sensor(const std::string& name) const;
  const std::vector<Sensor>& sensors() const { return sensors_; }

  /// Throws for a duplicate name, unknown frame, invalid numbers or a zero normal.
  const ElasticContact& add_contact(ElasticContact contact);
  void remove_contact(const std::string& name);
  const ElasticContact& contact(const std::string& name) const;
  int contact_index(const std::string& name) const;
  const std::vector<ElasticContact>& contacts() const { return contacts_; }

  /// Brakes (brake.hpp, docs/brakes.md). Throws std::invalid_argument naming the brake: an
  /// empty or duplicate name, an unknown joint (valid names listed) or one that is not 1-dof, a
  /// second brake on one joint, a negative / non-finite delay, torque ≤ 0 (or motor_torque
  /// without a motor on the joint), static_torque < torque. Fills dof, torque (from
  /// motor_torque · gear_ratio) and static_torque (0 → torque). A Simulator sees the brakes the
  /// robot has when it is made.
  const Brake& add_brake(Brake brake);
  void remove_brake(const std::string& name);
  const Brake& brake(const std::string& name) const;
  const std::vector<Brake>& brakes() const { return brakes_; }

 private:
  void rebuild_model();
  Model base_;
  std::shared_ptr<Model> model_;
  ConstraintSet constraints_;
  std::vector<Motor> motors_;
  std::vector<Sensor> sensors_;
  std::vector<ElasticContact> contacts_;
  std::vector<Brake> brakes_;
};

/// Evaluation of the contacts at the kinematics in `data` (forward_kinematics(q, v) done):
/// adds each contact's spatial force to f_ext (per body, body frame, as aba()/rnea() take it)
/// and writes its world force (3 per contact) to `forces`. Cost O(contacts).
void contact_forces(const Model& model, const Data& data, const std::vector<ElasticContact>& contacts,
                    std::vector<Force>& f_ext, Eigen::Ref<VectorX> forces);

}  // namespace articula
