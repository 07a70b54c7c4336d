#pragma once
/// The small interface between bench_dynamics and the engines it compares
/// articula with (MuJoCo, DART). It uses only standard types, no Eigen: the DART
/// peer is compiled without -march=native (DART's classes hold fixed-size Eigen
/// members whose layout depends on the vector width) in its own shared library,
/// so nothing here may depend on Eigen's alignment settings.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace articula::bench {

/// The three quantities timed for every engine.
enum class Quantity { InverseDynamics, MassMatrix, ForwardDynamics };

/// One joint of the articula model, in articula's coordinates.
struct PeerJoint {
  enum class Kind { Scalar, FreeFlyer };  // Scalar: revolute, continuous or prismatic (nq = nv = 1)
  std::string name;
  Kind kind = Kind::Scalar;
  int idx_q = 0;
  int idx_v = 0;
};

/// What a peer needs to build the same robot and replay the same states.
/// States are in articula's conventions: free-flyer q = [x y z qx qy qz qw]
/// (unit quaternion of world_R_base, scalar last), v = [linear; angular] of the
/// base in the base frame; a (for inverse dynamics) is the time derivative of v;
/// tau (for forward dynamics) is dual to v.
struct PeerProblem {
  std::string key;        // "ur5", ...
  std::string urdf_path;  // absolute path of the URDF
  bool floating = false;  // add a free joint world -> root_link
  std::string root_link;  // name of the URDF root link carried by the free joint
  int nq = 0;
  int nv = 0;
  std::vector<PeerJoint> joints;
  std::size_t nstates = 0;
  std::vector<double> q, v, a, tau;  // state i at [i*nq, (i+1)*nq) and [i*nv, (i+1)*nv)
};

/// One timed call of a peer.
struct PeerOp {
  std::string label;  // e.g. "mj_forward"
  Quantity quantity;
  bool primary;          // the row used in the summary table
  std::string includes;  // what one timed call contains
};

class Peer {
 public:
  virtual ~Peer() = default;
  virtual const char* engine() const = 0;  // "MuJoCo 2.2.2", "DART 6.12"
  virtual const char* key() const = 0;     // "mujoco", "dart" (benchmark names)
  virtual const std::vector<PeerOp>& ops() const = 0;
  /// One timed call: operation `op` on state `state` (state set inside the call).
  virtual void run(std::size_t op, std::size_t state) = 0;
  /// Results for the sanity check, converted to articula's coordinates.
  virtual void forward_dynamics(std::size_t state, double* qdd) = 0;  // (nv)
  virtual void inverse_dynamics(std::size_t state, double* tau) = 0;  // (nv)
  virtual void mass_matrix(std::size_t state, double* M) = 0;         // (nv × nv), column-major
  /// Remarks worth printing (defaults the engine applied, conversions).
  virtual std::string notes() const { return {}; }
};

}  // namespace articula::bench
