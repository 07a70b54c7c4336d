#pragma once
// A model and the states of bench_common.hpp as the peers see them (peer.hpp): the joints in
// articula's coordinates and the states laid end to end, shared by bench_dynamics,
// bench_constrained and (the joints) bench_simulation. Not in peer.hpp, which stays free of
// Eigen for the DART peer.
#include <cstddef>
#include <string>
#include <vector>

#include "articula/model/model.hpp"
#include "bench_common.hpp"
#include "peer.hpp"

namespace articula::bench {

/// The joints of `m`; root_link gets the body the free flyer carries, *unsupported (if given)
/// the name of a joint of a type the peer adapters do not map (unchanged when there is none).
inline std::vector<PeerJoint> peer_joints(const Model& m, std::string& root_link, std::string* unsupported = nullptr) {
  std::vector<PeerJoint> joints;
  for (Index j = 0; j < m.njoints; ++j) {
    const auto ju = static_cast<std::size_t>(j);
    PeerJoint pj;
    pj.name = m.joint_names[ju];
    pj.idx_q = m.idx_q[ju];
    pj.idx_v = m.idx_v[ju];
    switch (m.joint_types[ju]) {
      case JointType::FreeFlyer:
        pj.kind = PeerJoint::Kind::FreeFlyer;
        root_link = m.body_names[ju];
        break;
      case JointType::Revolute:
      case JointType::Continuous:
      case JointType::Prismatic:
        pj.kind = PeerJoint::Kind::Scalar;
        break;
      default:
        if (unsupported != nullptr) *unsupported = pj.name;
    }
    joints.push_back(pj);
  }
  return joints;
}

/// The peer's problem: model `m` (key, URDF path, floating base), its joints (peer_joints) and
/// the states, with a when with_a (bench_constrained leaves it out).
inline PeerProblem peer_problem(const std::string& key, const std::string& path, bool floating, const Model& m,
                                const BenchStates& states, bool with_a, std::string& unsupported) {
  PeerProblem p;
  p.key = key;
  p.urdf_path = path;
  p.floating = floating;
  p.nq = m.nq;
  p.nv = m.nv;
  p.nstates = BenchStates::kCount;
  p.joints = peer_joints(m, p.root_link, &unsupported);
  for (std::size_t i = 0; i < BenchStates::kCount; ++i) {
    p.q.insert(p.q.end(), states.q[i].data(), states.q[i].data() + m.nq);
    p.v.insert(p.v.end(), states.v[i].data(), states.v[i].data() + m.nv);
    if (with_a) p.a.insert(p.a.end(), states.a[i].data(), states.a[i].data() + m.nv);
    p.tau.insert(p.tau.end(), states.tau[i].data(), states.tau[i].data() + m.nv);
  }
  return p;
}

}  // namespace articula::bench
