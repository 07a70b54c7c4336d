#pragma once
/// Models for the core test suite: every bundled URDF (test_support.hpp's all_models())
/// plus two models built in code that exercise the joint types the URDFs lack
/// (free-flyer, spherical, prismatic, continuous), fixed links and user frames.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace articula::test {

/// A rotation from a fixed axis-angle pair (deterministic helper for placements).
inline Matrix3 rot(double angle, const Vector3& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

/// A valid rigid-body inertia with distinct principal moments, rotated principal axes and an offset com.
inline Inertia asymmetric_inertia(double mass, const Vector3& com, double scale = 1.0) {
  const Matrix3 R = rot(0.7, Vector3(1, 2, 3));
  const Vector3 d = scale * mass * Vector3(0.02, 0.03, 0.045);  // triangle inequality holds
  return Inertia::from_com(mass, com, R * d.asDiagonal() * R.transpose());
}

/// A branching model with every joint type:
///   base (free-flyer, or revolute about z when !floating)
///   ├── arm1 (spherical) ── arm2 (prismatic along (1,1,0)) ── [tool: fixed link] ── arm3 (continuous)
///   └── leg (revolute about x, limits ±1.2)
/// plus a user frame "tip" on arm3 and a user frame "world_mark" on the world.
inline Model mixed_model(bool floating) {
  ModelBuilder b(floating ? "mixed_floating" : "mixed_fixed");
  const Transform I = Transform::Identity();
  if (floating)
    b.add_body("base", "", "root", JointType::FreeFlyer, I, Vector3::Zero(),
               asymmetric_inertia(3.0, {0.05, -0.02, 0.01}));
  else
    b.add_body("base", "", "root", JointType::Revolute, {rot(0.3, {1, 0, 0}), {0.0, 0.0, 0.5}}, {0, 0, 1},
               asymmetric_inertia(3.0, {0.05, -0.02, 0.01}), JointLimits{-2.0, 2.0});
  b.add_body("arm1", "base", "j_sph", JointType::Spherical, {rot(0.4, {0, 1, 1}), {0.1, 0.2, 0.3}}, Vector3::Zero(),
             asymmetric_inertia(1.5, {0.0, 0.0, 0.2}));
  b.add_body("arm2", "arm1", "j_prism", JointType::Prismatic, {rot(-0.5, {1, 0, 0}), {0.0, 0.0, 0.4}}, {1, 1, 0},
             asymmetric_inertia(0.8, {0.1, 0.0, 0.0}), JointLimits{-0.5, 0.5});
  b.add_fixed_link("tool", "arm2", "j_tool", {rot(0.9, {0, 0, 1}), {0.2, 0.0, 0.05}},
                   asymmetric_inertia(0.3, {0.0, 0.05, 0.0}));
  b.add_body("arm3", "tool", "j_cont", JointType::Continuous, {rot(0.2, {1, 1, 1}), {0.0, 0.1, 0.0}}, {0, 1, 1},
             asymmetric_inertia(0.5, {0.0, 0.0, 0.15}));
  b.add_body("leg", "base", "j_rev", JointType::Revolute, {rot(1.0, {0, 1, 0}), {-0.2, 0.0, -0.1}}, {-1, 0, 0},
             asymmetric_inertia(1.2, {0.0, -0.1, -0.2}), JointLimits{-1.2, 1.2});
  b.add_frame("tip", "arm3", {rot(0.3, {1, 0, 1}), {0.05, -0.02, 0.3}});
  b.add_frame("world_mark", "", {rot(0.1, {0, 0, 1}), {1.0, 2.0, 3.0}});
  return b.build();
}

struct NamedModel {
  std::string name;
  Model model;
};

/// Every bundled URDF model (fixed and floating, as in all_models()) and both mixed models,
/// loaded once per process.
inline const std::vector<NamedModel>& test_models() {
  static const std::vector<NamedModel> models = [] {
    std::vector<NamedModel> out;
    for (const ModelCase& c : all_models()) out.push_back({c.name, load(c)});
    out.push_back({"mixed_fixed", mixed_model(false)});
    out.push_back({"mixed_floating", mixed_model(true)});
    return out;
  }();
  return models;
}

/// The models with and without armature ("+armature" suffix), for the dynamics identities.
inline std::vector<NamedModel> test_models_with_armature() {
  std::vector<NamedModel> out;
  for (const NamedModel& m : test_models()) {
    out.push_back(m);
    NamedModel a = m;
    a.name += "+armature";
    add_armature(a.model);
    out.push_back(std::move(a));
  }
  return out;
}

/// A random state: q within limits, v and a standard normal (scaled).
struct State {
  VectorX q, v, a;
};
inline State random_state(const Model& model, std::mt19937& rng, double v_scale = 1.0) {
  State s;
  s.q = random_configuration(model, rng);
  s.v = random_vector(model.nv, rng, v_scale);
  s.a = random_vector(model.nv, rng);
  return s;
}

/// Random spatial force / motion from a generator.
inline Force random_force(std::mt19937& rng) { return Force::from(random_vector(6, rng)); }
inline Motion random_motion(std::mt19937& rng, double scale = 1.0) {
  return Motion::from(random_vector(6, rng, scale));
}

/// A random rigid transform: uniform-ish rotation from a random rotation vector, translation ~ N(0, 1).
inline Transform random_transform(std::mt19937& rng) {
  const Vector3 w = random_vector(3, rng, 1.5);
  return {Eigen::AngleAxisd(w.norm(), w.normalized()).toRotationMatrix(), random_vector(3, rng)};
}

/// 6 × 6 matrix of the motion cross product m× in [linear; angular] order: [[ŵ, v̂]; [0, ŵ]].
inline Matrix6 crm(const Motion& m) {
  Matrix6 X;
  X << skew(m.w), skew(m.v), Matrix3::Zero(), skew(m.w);
  return X;
}

/// Number of frames to test on a model: all of them, or at most `max` spread evenly (big models).
inline std::vector<Index> sample_frames(const Model& model, std::size_t max = 12) {
  std::vector<Index> out;
  const std::size_t n = model.frames.size();
  const std::size_t step = n <= max ? 1 : (n + max - 1) / max;
  for (std::size_t k = 0; k < n; k += step) out.push_back(static_cast<Index>(k));
  if (out.back() != static_cast<Index>(n - 1)) out.push_back(static_cast<Index>(n - 1));
  return out;
}

}  // namespace articula::test

#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>

namespace articula::test {

/// Success if f() throws an E whose what() contains every one of `parts` (gmock's HasSubstr
/// without linking gmock); reports the message otherwise.
template <typename E, typename F>
::testing::AssertionResult throws_with(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string what = e.what();
    for (const std::string& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message \"" << what << "\" does not contain \"" << p << "\"";
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception type: " << e.what();
  } catch (...) {
    return ::testing::AssertionFailure() << "threw a non-std exception";
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace articula::test
