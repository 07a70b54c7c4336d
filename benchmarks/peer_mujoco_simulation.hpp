#pragma once
/// MuJoCo 2.2.2 running the whole simulations of bench_simulation (rx130 e-stop, solo12
/// standing on four feet, talos with welded feet) with mj_step (RK4) in a loop, optionally
/// logging one CSV row per step. Compiled only when CMake found MuJoCo (ARTICULA_HAVE_MUJOCO).
/// Standard types only (no Eigen, no MuJoCo types).
#include <memory>
#include <string>
#include <vector>

#include "peer.hpp"

namespace articula::bench {

/// One case, in articula's terms (joints by name, state in articula's coordinates).
struct MjSimulationSpec {
  std::string key;        // "rx130", "solo12", "talos"
  std::string urdf_path;  // absolute path
  bool floating = false;  // free joint world -> root_link
  std::string root_link;
  int nq = 0, nv = 0;
  std::vector<PeerJoint> joints;  // every articula joint (name, kind, indices)
  std::vector<double> q0, v0;     // initial state, articula coordinates
  double dt = 1e-3;               // step [s], RK4
  double duration = 1.0;          // simulated time [s]

  /// PD on these joints through qfrc_applied, u = kp (target − q) − kd q̇, computed every
  /// control_period (zero-order hold), like articula's pd_controller at that period.
  struct Drive {
    std::string joint;
    double target = 0.0;
    double armature = 0.0;  // the motor's reflected rotor inertia N² I_r, set as dof_armature
  };
  std::vector<Drive> drives;
  double kp = 0.0, kd = 0.0, control_period = 1e-3;

  /// Joint locks (brakes): a `<joint>` equality per joint, inactive at first, switched on
  /// (m->eq_active) at `time` with the target = the joint's position at that instant.
  struct Lock {
    std::string name, joint;
    double time = 0.0;
  };
  std::vector<Lock> locks;

  /// Frames welded to the world from the start (`<weld>` on the body carrying the frame,
  /// target = its initial pose).
  struct Weld {
    std::string name, body;
    double anchor[3] = {0, 0, 0};  // frame origin in the body
  };
  std::vector<Weld> welds;

  /// Contact points: a sphere of `foot_radius` centred on each point, against a ground plane
  /// at z = −foot_radius (so a sphere touches when its centre reaches z = 0, where articula's
  /// point contact starts to push). Only these spheres and the plane collide.
  struct Foot {
    std::string name, body;
    double pos[3] = {0, 0, 0};  // point in the body
  };
  std::vector<Foot> feet;
  double foot_radius = 0.01, friction = 1.0;
};

/// Statistics of one run (filled only when asked for: not in the timed runs).
struct MjSimulationStats {
  long steps = 0, evaluations = 0, rows = 0;
  int columns = 0;
  double t_end = 0.0;
  std::vector<double> q_end, v_end;       // final state, articula coordinates
  double base_z_min = 0, base_z_max = 0;  // floating base height over the run
  int ncon_min = 0, ncon_max = 0;         // contacts per step
  double foot_fz_min = 0;                 // min over steps and feet of the normal force (world z) [N]
  double weld_drift = 0;                  // max |position error| of the welds over the run [m]
  double locked_speed_end = 0;            // max |q̇| of the locked joints at the end
  int warnings = 0;                       // MuJoCo warnings raised (d->warning[].number summed)
};

class SimulationPeer {
 public:
  virtual ~SimulationPeer() = default;
  virtual const char* engine() const = 0;
  /// The whole run from the initial state; writes a CSV log to csv_path unless it is empty.
  /// With stats != nullptr also gathers the statistics (slower: for the sanity check only).
  virtual void run(const std::string& csv_path, MjSimulationStats* stats = nullptr) = 0;
  /// Columns of the CSV row (t, qpos, qvel, qacc, u, τ, constraint / contact forces, energy).
  virtual int log_columns() const = 0;
  virtual std::string notes() const = 0;
};

/// @throws std::runtime_error with MuJoCo's message on any failure.
std::unique_ptr<SimulationPeer> make_mujoco_simulation_peer(const MjSimulationSpec& spec);

}  // namespace articula::bench
