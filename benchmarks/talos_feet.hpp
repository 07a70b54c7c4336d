#pragma once
// The talos_feet robot of bench_simulation (motors + both soles welded).
#include <memory>
#include <string>

#include "articula/articula.hpp"

namespace articula::bench {

constexpr double kTalosGear = 100.0, kTalosRotor = 1e-5;  // reflected: 0.1 kg·m²

/// A geared motor on every joint but the free-flyer, then FrameConstraint welds "left_foot"
/// (left_sole_link) and "right_foot" (right_sole_link).
inline void add_talos_feet(Robot& r) {
  const Model& rm = r.base_model();
  for (Index j = 1; j < rm.njoints; ++j) {
    const std::string& name = rm.joint_names[static_cast<std::size_t>(j)];
    r.add_motor({.name = name, .joint = name, .gear_ratio = kTalosGear, .rotor_inertia = kTalosRotor});
  }
  r.constraints().add(std::make_shared<FrameConstraint>("left_foot", "left_sole_link"));
  r.constraints().add(std::make_shared<FrameConstraint>("right_foot", "right_sole_link"));
}

}  // namespace articula::bench
