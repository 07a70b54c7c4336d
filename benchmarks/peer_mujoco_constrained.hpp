#pragma once
/// MuJoCo 2.2.2 with equality constraints (welds / connects to the world) as a peer of
/// bench_constrained. Compiled only when CMake found MuJoCo (ARTICULA_HAVE_MUJOCO).
/// Standard types only (no Eigen, no MuJoCo types).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "peer.hpp"

namespace articula::bench {

/// One frame held in the world: a MuJoCo weld (6 rows) or connect (3 rows) between
/// `body` and the world, at the point `anchor` of that body.
struct EqualitySpec {
  std::string name;              // the articula constraint name (equality name in MuJoCo)
  std::string body;              // the body carrying the frame (URDF link name; fixed links are fused)
  double anchor[3] = {0, 0, 0};  // origin of the frame in that body's frame
  bool weld = true;              // weld (position + orientation) or connect (position only)
};

/// What the sanity pass over all states found.
struct ConstrainedPeerCheck {
  int nefc_min = 0, nefc_max = 0;  // constraint rows MuJoCo instantiated
  int iter_max = 0;                // solver iterations (max over states)
  double pos_violation = 0.0;      // max |efc_pos| of the equality rows (the targets are set per state: ~0)
  double acc_gap = 0.0;            // max |J q̈ − a_ref| over the equality rows (soft: ≠ 0)
  double acc_gap_free = 0.0;       // the same with the unconstrained q̈ (max |J q̈_smooth − a_ref|)
  double model_diff = 0.0;         // max |q̈ − q̈(URDF model)| with the equalities off (model rebuilt exactly?)
};

class ConstrainedPeer {
 public:
  virtual ~ConstrainedPeer() = default;
  virtual const char* engine() const = 0;
  virtual const char* key() const = 0;
  virtual const std::string& includes() const = 0;  // what one timed call contains
  virtual int rows() const = 0;                     // equality rows
  /// One timed call on state `state` (state set inside the call).
  virtual void run(std::size_t state) = 0;
  virtual ConstrainedPeerCheck check() = 0;
  virtual std::string notes() const { return {}; }
};

/// Loads problem.urdf_path as peer_mujoco.hpp does, saves it as MJCF (mj_saveLastXML),
/// adds the equalities, reloads, copies the exact inertial/kinematic parameters back from
/// the URDF model (the MJCF writer prints 6 digits) and calls mj_setConst. Per state the
/// equality targets are the bodies' current poses (zero position error, as if each state
/// were where the constraint was switched on). Disables contacts only.
/// @throws std::runtime_error with MuJoCo's message on any failure.
std::unique_ptr<ConstrainedPeer> make_mujoco_constrained_peer(const PeerProblem& problem,
                                                              const std::vector<EqualitySpec>& equalities);

}  // namespace articula::bench
