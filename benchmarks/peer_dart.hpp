#pragma once
/// DART 6.12 (Debian libdart-dev + libdart-utils-urdf-dev) as a peer of bench_dynamics.
/// Compiled only when CMake found DART and its URDF loader (ARTICULA_HAVE_DART),
/// into the shared library articula_bench_dart, without -march=native and with
/// hidden symbols (see CMakeLists.txt): only make_dart_peer is exported.
#include "peer.hpp"

#if defined(__GNUC__)
#define ARTICULA_BENCH_DART_API __attribute__((visibility("default")))
#else
#define ARTICULA_BENCH_DART_API
#endif

namespace articula::bench {

/// Loads problem.urdf_path with dart::utils::DartLoader, root joint FLOATING
/// (a FreeJoint) or FIXED (a WeldJoint) per problem.floating. Links without
/// <inertial> get zero mass and inertia (DartLoader's default would be 1 kg).
/// Gravity (0, 0, −9.81), no damping, springs, limits or contacts.
/// @throws std::runtime_error if loading fails or the joints do not match.
ARTICULA_BENCH_DART_API std::unique_ptr<Peer> make_dart_peer(const PeerProblem& problem);

}  // namespace articula::bench
