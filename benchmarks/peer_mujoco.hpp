#pragma once
/// MuJoCo 2.2.2 (Debian libmujoco-dev) as a peer of bench_dynamics.
/// Compiled only when CMake found mujoco/mujoco.h and libmujoco (ARTICULA_HAVE_MUJOCO).
#include "peer.hpp"

namespace articula::bench {

/// Loads problem.urdf_path with mj_loadXML. For a floating model the URDF text
/// gets an extra massless link and a URDF joint of type "floating" from it to
/// problem.root_link (MuJoCo's URDF reader turns that into a free joint and
/// fuses the static link into the world); the text is handed to MuJoCo through
/// its virtual file system, no temporary file is written.
/// Contacts and the whole constraint solver are disabled.
/// @throws std::runtime_error with MuJoCo's message if loading fails or the
///   joints do not match problem.joints.
std::unique_ptr<Peer> make_mujoco_peer(const PeerProblem& problem);

}  // namespace articula::bench
