// bench_simulation: whole simulations through articula's Simulator — real-time factor
// (simulated seconds per wall second), steps per second and right-hand-side evaluations —
// with a CSV log written at every step and without any log, each on the runtime algorithms and on
// the model's kernels compiled on demand (Simulator::use_compiled, as `articula run --compiled`),
// against MuJoCo 2.2.2 running the same models with mj_step (RK4) at the same step size (when
// found at configure time).
// See README.md beside this file, "Whole simulations (issue 5)".
//
// Usage: bench_simulation [--check_only] [--profile] [Google Benchmark flags]
//   --check_only  print the setup and the sanity check (does each simulation do what it should?) and exit.
//                 The sanity check always runs first: it also counts the steps and evaluations.
//   --profile     after the timings, split articula's time per case: right-hand sides, integrator,
//                 per-step samples (evaluation + energies), CSV formatting/writing, the rest.
// Environment: ARTICULA_BENCH_KERNEL_FLAGS = the compiled kernels' flags (default CompileOptions'
//   "-O2 -march=native"; "-O2" for kernels without -march=native, as a peer built without it);
//   the kernels go to the usual cache ($ARTICULA_CACHE_DIR, $XDG_CACHE_HOME/articula), so the
//   first run compiles them (talos: ~7 s on 2 cores) and later runs load them.
// Defaults prepended to the command line (later flags override them):
//   --benchmark_repetitions=9 --benchmark_display_aggregates_only=true --benchmark_min_time=0.5
//   --benchmark_enable_random_interleaving=true (repetitions of all benchmarks in random order: a change
//   of machine load during the run then spreads over articula and MuJoCo alike)
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "articula/articula.hpp"
#include "bench_common.hpp"
#include "peer.hpp"
#include "peer_problem.hpp"
#include "talos_feet.hpp"
#ifdef ARTICULA_HAVE_MUJOCO
#include "peer_mujoco_simulation.hpp"
#endif

namespace {

using articula::Robot;
using articula::RunResult;
using articula::Simulator;
using articula::VectorX;
namespace ab = articula::bench;

// Wall time: a logged run formats its CSV rows on a second thread (src/engine/csv_log.cpp), so
// the calling thread's CPU time would leave that work out; the real-time factor is simulated
// seconds per wall second.
double wall_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---------------------------------------------------------------- the cases

// rx130 e-stop: drives off, three brakes at 50 / 100 / 150 ms.
constexpr double kRxDuration = 0.5;
const char* const kRxLocks[] = {"joint_1", "joint_2", "joint_3"};
constexpr double kRxLockTimes[] = {0.05, 0.10, 0.15};

// solo12 standing on four elastic feet, PD to a crouched posture. The contact is stiff for RK4
// at 1 ms on feet of ~30 g effective mass. Found by trial: with the default v_slip = 1e-3 m/s
// (an effective tangential damping μ f_n / v_slip ≈ 6e3 N·s/m) the feet chatter for every
// damping tried (50–300 N·s/m, dt = 1 and 0.5 ms); with v_slip = 0.1 m/s, d ≥ 150 still
// chatters at 1 ms (d = 200 is clean at 0.5 ms). Chattering: forces alternating 0 / 2× from
// step to step, feet sliding at the friction limit, the logged normal forces 10–90 % short of
// the weight on average. d = 100 N·s/m with v_slip = 0.1 m/s at 1 ms is clean (sanity check).
constexpr double kSoloK = 2e4, kSoloD = 100.0, kSoloMu = 1.0, kSoloSlip = 0.1;
constexpr double kSoloKp = 20.0, kSoloKd = 0.5;
constexpr double kSoloGear = 9.0, kSoloRotor = 4.5e-6;  // reflected: 81 · 4.5e-6 = 3.6e-4 kg·m²
constexpr double kSoloHfe = 0.8, kSoloKfe = -1.6;       // front legs; hind legs mirrored
const char* const kSoloLegs[] = {"FL", "FR", "HL", "HR"};

// talos, both soles welded, PD holding the neutral posture (robot: talos_feet.hpp).
constexpr double kTalosKp = 400.0, kTalosKd = 20.0;
using articula::bench::kTalosGear;
using articula::bench::kTalosRotor;

struct Case {
  std::string key, file, settings;
  bool floating = false;
  double dt = 1e-3, duration = 1.0, control_period = 0.0, mass = 0.0;
  VectorX q0, v0;
  // Adds motors / contacts / constraints to a fresh robot (before the Simulator exists).
  std::function<void(Robot&)> build_robot;
  // Controller and events on the simulator.
  std::function<void(Robot&, Simulator&)> build_sim;
  // PD targets by joint (empty: none) and gains (also used by the MuJoCo twin and the bare loop).
  std::vector<std::pair<std::string, double>> pd_targets;
  double kp = 0.0, kd = 0.0;
#ifdef ARTICULA_HAVE_MUJOCO
  std::unique_ptr<ab::SimulationPeer> peer;
#endif
  std::string peer_skipped;
  // The model's kernels compiled on demand (null when they could not be: kernels_note says why).
  std::shared_ptr<const articula::CompiledKernels> kernels;
  std::string kernels_note;
  // From the sanity run.
  long steps = 0, evaluations = 0, rows = 0, columns = 0;
  int nevents = 0;
  long mj_steps = 0, mj_evaluations = 0;
};

struct Setup {
  std::unique_ptr<Robot> robot;
  std::unique_ptr<Simulator> sim;
};

Setup make_setup(const Case& c, double log_period, bool record, bool compiled = false) {
  Setup s;
  s.robot = std::make_unique<Robot>(Robot::from_urdf(bench_models_dir() + "/" + c.file, c.floating));
  if (c.build_robot) c.build_robot(*s.robot);
  articula::SimulationOptions o;
  o.integrator = articula::Integrator::RK4;
  o.dt = c.dt;
  o.log_period = log_period;
  o.record_samples = record;
  s.sim = std::make_unique<Simulator>(*s.robot, o);
  if (c.build_sim) c.build_sim(*s.robot, *s.sim);
  if (compiled) s.sim->use_compiled(c.kernels);
  s.sim->set_state(c.q0, c.v0);
  return s;
}

// The kernels `articula run --compiled` would use for this case (compile_options_for), from the
// cache or compiled now; on a CompileError the case's compiled rows are skipped.
void compile_case(Case& c) {
  const Setup s = make_setup(c, 0.0, false);
  articula::CompileOptions o = articula::compile_options_for(*s.robot, s.sim->options());
  if (const char* flags = std::getenv("ARTICULA_BENCH_KERNEL_FLAGS")) o.flags = flags;
  try {
    c.kernels = articula::compile_kernels(s.robot->model(), o);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s in %.2f s, flags %s",
                  c.kernels->from_cache ? "loaded from the cache" : "compiled", c.kernels->seconds, o.flags.c_str());
    c.kernels_note = buf;
  } catch (const articula::CompileError& e) {
    c.kernels_note = std::string("not compiled: ") + e.what();
  }
}

std::unique_ptr<Case> rx130_case() {
  auto c = std::make_unique<Case>();
  c->key = "rx130_estop";
  c->file = "rx130_standin.urdf";
  c->duration = kRxDuration;
  c->q0.resize(6);
  c->q0 << 0.3, -0.4, 0.6, 0.2, 0.5, -0.3;
  c->v0.resize(6);
  c->v0 << 1.2, -0.8, 1.0, 1.5, -1.0, 2.0;
  c->build_robot = [](Robot& r) {
    for (const char* j : kRxLocks)
      r.constraints().add(
          std::make_shared<articula::JointLock>(r.model(), std::string("brake_") + j, std::vector<std::string>{j}),
          false);
  };
  c->build_sim = [](Robot&, Simulator& sim) {
    for (int k = 0; k < 3; ++k) {
      const std::string name = std::string("brake_") + kRxLocks[k];
      sim.add_event({name, kRxLockTimes[k], {}, 0, false, {articula::EventAction::enable(name)}});
    }
  };
  c->settings =
      "rx130_standin fixed base, no motors; q0 = (0.3, -0.4, 0.6, 0.2, 0.5, -0.3), v0 = (1.2, -0.8, 1.0, 1.5, "
      "-1.0, 2.0); JointLocks brake_joint_1/2/3 enabled by time events at 0.05/0.10/0.15 s (JumpForm::Auto); "
      "0.5 s, RK4, dt = 1 ms";
  return c;
}

std::unique_ptr<Case> solo12_case() {
  auto c = std::make_unique<Case>();
  c->key = "solo12_stand";
  c->file = "solo12.urdf";
  c->floating = true;
  c->duration = 1.0;
  c->control_period = 1e-3;
  c->kp = kSoloKp;
  c->kd = kSoloKd;
  const Robot probe = Robot::from_urdf(bench_models_dir() + "/" + c->file, true);
  const articula::Model& m = probe.model();
  VectorX q = articula::neutral(m);
  for (const char* leg : kSoloLegs) {
    const bool hind = leg[0] == 'H';
    const std::pair<std::string, double> t[] = {{std::string(leg) + "_HAA", 0.0},
                                                {std::string(leg) + "_HFE", hind ? -kSoloHfe : kSoloHfe},
                                                {std::string(leg) + "_KFE", hind ? -kSoloKfe : kSoloKfe}};
    for (const auto& [joint, value] : t) {
      q[m.idx_q[static_cast<std::size_t>(m.joint_id(joint))]] = value;
      c->pd_targets.emplace_back(joint, value);
    }
  }
  // Base height: the feet pressed by δ = m g / (4 k) into the ground (static equilibrium of the springs).
  articula::Data data(m);
  articula::forward_kinematics(m, data, q);
  double foot_z = 0.0, mass = 0.0;
  for (const char* leg : kSoloLegs)
    foot_z += 0.25 * articula::frame_placement(m, data, m.frame_id(std::string(leg) + "_FOOT")).p.z();
  for (const auto& in : m.inertias) mass += in.m;
  c->mass = mass;
  q[2] = -foot_z - mass * 9.81 / (4.0 * kSoloK);
  c->q0 = q;
  c->v0 = VectorX::Zero(m.nv);
  c->build_robot = [](Robot& r) {
    for (const char* leg : kSoloLegs) {
      for (const char* j : {"_HAA", "_HFE", "_KFE"}) {
        const std::string joint = std::string(leg) + j;
        r.add_motor({.name = joint, .joint = joint, .gear_ratio = kSoloGear, .rotor_inertia = kSoloRotor});
      }
      articula::ElasticContact contact;
      contact.name = std::string(leg) + "_FOOT";
      contact.frame = contact.name;
      contact.stiffness = kSoloK;
      contact.damping = kSoloD;
      contact.friction = kSoloMu;
      contact.slip_velocity = kSoloSlip;
      r.add_contact(contact);
    }
  };
  const auto targets = c->pd_targets;
  c->build_sim = [targets](Robot& r, Simulator& sim) {
    sim.set_controller(articula::pd_controller(r, targets, kSoloKp, kSoloKd), 1e-3);
  };
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "solo12 floating; 12 motors (gear %g, rotor %g kg·m²: armature %.2g); pd_controller kp = %g N·m/rad, "
                "kd = %g N·m·s/rad, period 1 ms, to HAA 0, HFE ±%g, KFE ∓%g (hind legs mirrored); ElasticContact on "
                "the 4 *_FOOT frames vs ground z = 0, k = %g N/m, d = %g N·s/m, μ = %g, v_slip = %g m/s; base "
                "started at rest with the feet %.2g mm deep (static load); 1 s, RK4, dt = 1 ms",
                kSoloGear, kSoloRotor, kSoloGear * kSoloGear * kSoloRotor, kSoloKp, kSoloKd, kSoloHfe, -kSoloKfe,
                kSoloK, kSoloD, kSoloMu, kSoloSlip, 1e3 * mass * 9.81 / (4.0 * kSoloK));
  c->settings = buf;
  return c;
}

std::unique_ptr<Case> talos_case() {
  auto c = std::make_unique<Case>();
  c->key = "talos_feet";
  c->file = "talos_reduced.urdf";
  c->floating = true;
  c->duration = 1.0;
  c->control_period = 1e-3;
  c->kp = kTalosKp;
  c->kd = kTalosKd;
  const Robot probe = Robot::from_urdf(bench_models_dir() + "/" + c->file, true);
  const articula::Model& m = probe.model();
  c->q0 = articula::neutral(m);
  c->q0[2] = 1.0;
  c->v0 = VectorX::Zero(m.nv);
  for (articula::Index j = 1; j < m.njoints; ++j)
    c->pd_targets.emplace_back(m.joint_names[static_cast<std::size_t>(j)], c->q0[m.idx_q[static_cast<std::size_t>(j)]]);
  c->build_robot = [](Robot& r) { articula::bench::add_talos_feet(r); };
  const auto targets = c->pd_targets;
  c->build_sim = [targets](Robot& r, Simulator& sim) {
    sim.set_controller(articula::pd_controller(r, targets, kTalosKp, kTalosKd), 1e-3);
  };
  char buf[512];
  std::snprintf(
      buf, sizeof buf,
      "talos_reduced floating, base at z = 1 m, neutral posture; %d motors (gear %g, rotor %g kg·m²: "
      "armature %g); pd_controller to the neutral posture, kp = %g, kd = %g, period 1 ms; FrameConstraint "
      "welds on left_sole_link and right_sole_link (enabled from the start, Auto method); 1 s, RK4, dt = 1 ms",
      m.njoints - 1, kTalosGear, kTalosRotor, kTalosGear * kTalosGear * kTalosRotor, kTalosKp, kTalosKd);
  c->settings = buf;
  return c;
}

// ---------------------------------------------------------------- the MuJoCo twin of each case

void make_peer(Case& c) {
#ifdef ARTICULA_HAVE_MUJOCO
  const Robot robot = [&] {
    Robot r = Robot::from_urdf(bench_models_dir() + "/" + c.file, c.floating);
    if (c.build_robot) c.build_robot(r);
    return r;
  }();
  const articula::Model& m = robot.model();
  ab::MjSimulationSpec s;
  s.key = c.key;
  s.urdf_path = bench_models_dir() + "/" + c.file;
  s.floating = c.floating;
  s.nq = m.nq;
  s.nv = m.nv;
  s.dt = c.dt;
  s.duration = c.duration;
  s.joints = ab::peer_joints(m, s.root_link);  // (every joint other than the free flyer: Scalar)
  s.q0.assign(c.q0.data(), c.q0.data() + c.q0.size());
  s.v0.assign(c.v0.data(), c.v0.data() + c.v0.size());
  for (const auto& [joint, target] : c.pd_targets) {
    const articula::Motor& motor = robot.motor(joint);
    s.drives.push_back({joint, target, motor.gear_ratio * motor.gear_ratio * motor.rotor_inertia});
  }
  s.kp = c.kp;
  s.kd = c.kd;
  s.control_period = c.control_period > 0 ? c.control_period : c.dt;
  if (c.key == "rx130_estop")
    for (int k = 0; k < 3; ++k) s.locks.push_back({std::string("brake_") + kRxLocks[k], kRxLocks[k], kRxLockTimes[k]});
  auto body_of = [&](const std::string& frame, double* anchor) {
    const articula::Frame& fr = m.frames[static_cast<std::size_t>(m.frame_id(frame))];
    for (int k = 0; k < 3; ++k) anchor[k] = fr.placement.p[k];
    return fr.parent == articula::kWorld ? std::string("world") : m.body_names[static_cast<std::size_t>(fr.parent)];
  };
  if (c.key == "talos_feet")
    for (const char* f : {"left_sole_link", "right_sole_link"}) {
      ab::MjSimulationSpec::Weld w;
      w.name = std::string(f[0] == 'l' ? "left" : "right") + "_foot";
      w.body = body_of(f, w.anchor);
      s.welds.push_back(w);
    }
  for (const auto& contact : robot.contacts()) {
    ab::MjSimulationSpec::Foot f;
    f.name = contact.name;
    f.body = body_of(contact.frame, f.pos);
    s.feet.push_back(f);
    s.friction = contact.friction;
  }
  s.foot_radius = 0.01;
  try {
    c.peer = ab::make_mujoco_simulation_peer(s);
  } catch (const std::exception& e) {
    c.peer_skipped = e.what();
  }
#else
  c.peer_skipped = "not found at configure time (mujoco/mujoco.h + libmujoco)";
#endif
}

// ---------------------------------------------------------------- logs

std::string g_log_dir;

std::string log_stem(const Case& c, const char* engine) { return g_log_dir + "/" + c.key + "_" + engine; }

// Sparse and Hdf5: profile only. Sparse: no sink and log_period = duration (no per-step sample).
enum class LogMode { Csv, Off, Sparse, Hdf5 };

RunResult run_articula(const Case& c, LogMode mode, bool record = false) {
  Setup s = make_setup(c, mode == LogMode::Sparse ? c.duration : 0.0, record);
  if (mode == LogMode::Csv) s.sim->add_log(articula::make_log(articula::LogFormat::Csv, log_stem(c, "articula")));
  if (mode == LogMode::Hdf5) s.sim->add_log(articula::make_log(articula::LogFormat::Hdf5, log_stem(c, "articula")));
  return s.sim->run(c.duration);
}

// ---------------------------------------------------------------- sanity check

std::size_t column(const RunResult& r, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  if (it == r.columns.end()) throw std::runtime_error("no log column " + name);
  return static_cast<std::size_t>(it - r.columns.begin());
}

long count_lines(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return -1;
  long n = 0;
  for (int ch; (ch = std::fgetc(f)) != EOF;) n += ch == '\n';
  std::fclose(f);
  return n;
}

void sanity_check(std::vector<std::unique_ptr<Case>>& cases) {
  std::printf("\n## Sanity check (one run each, logged)\n\n");
  for (auto& cp : cases) {
    Case& c = *cp;
    const RunResult r = run_articula(c, LogMode::Csv, true);
    c.steps = r.steps;
    c.evaluations = r.evaluations;
    c.rows = static_cast<long>(r.samples.size());
    c.columns = static_cast<long>(r.columns.size());
    c.nevents = static_cast<int>(r.events.size());
    const long lines = count_lines(log_stem(c, "articula") + ".csv");
    std::printf(
        "%s articula: %s, t = %.6g s, %ld steps, %ld evaluations (RunResult), %zu events, %ld rows × %ld "
        "columns logged (CSV: %ld lines incl. header)\n",
        c.key.c_str(), articula::to_string(r.status).c_str(), r.t, r.steps, r.evaluations, r.events.size(), c.rows,
        c.columns, lines);
    if (!r.ok()) std::printf("  FAILED: %s\n", r.message.c_str());
    if (c.key == "rx130_estop") {
      for (const auto& e : r.events)
        std::printf("  event %s at %.6g s: form %s, kinetic %.6g -> %.6g J, momentum residual %.1e\n",
                    e.names.front().c_str(), e.time, articula::to_string(e.form).c_str(), e.kinetic_before,
                    e.kinetic_after, e.momentum_residual);
      // Every right-hand-side evaluation, counted by a no-op controller at period 0 (called at each one).
      long calls = 0;
      {
        Setup s = make_setup(c, 0.0, false);
        s.sim->set_controller(
            [&calls](double, articula::VectorRef, articula::VectorRef, articula::VectorRef, Eigen::Ref<VectorX>) {
              ++calls;
              return true;
            },
            0.0);
        s.sim->run(c.duration);
      }
      std::printf("  right-hand-side evaluations actually made (counted by a period-0 no-op controller): %ld\n", calls);
      const VectorX& vend = r.samples.back().segment(static_cast<Eigen::Index>(column(r, "v.joint_1")), 6);
      std::printf("  end: |v| of locked joints 1–3 = %.1e, v_4..6 = (%.4g, %.4g, %.4g)\n",
                  vend.head(3).cwiseAbs().maxCoeff(), vend[3], vend[4], vend[5]);
    } else if (c.key == "solo12_stand") {
      const auto z = static_cast<Eigen::Index>(column(r, "q.root_joint.z"));
      double zmin = 1e9, zmax = -1e9, fmin = 1e9, vmax = 0.0, fsum = 0.0;
      long unloaded = 0, late = 0;
      for (const VectorX& row : r.samples) {
        double fz = 0.0, fz_min = 1e9;
        for (const char* leg : kSoloLegs) {
          const double f = row[static_cast<Eigen::Index>(column(r, std::string("contact.") + leg + "_FOOT.fz"))];
          fz += f;
          fz_min = std::min(fz_min, f);
        }
        unloaded += fz_min <= 0.0;
        fmin = std::min(fmin, fz_min);
        if (row[0] < 0.5 * c.duration) continue;
        zmin = std::min(zmin, row[z]);
        zmax = std::max(zmax, row[z]);
        fsum += fz;
        ++late;
      }
      const VectorX& last = r.samples.back();
      for (const char* leg : kSoloLegs)
        for (const char* j : {"_HAA", "_HFE", "_KFE"})
          vmax = std::max(vmax, std::abs(last[static_cast<Eigen::Index>(column(r, std::string("v.") + leg + j))]));
      std::printf(
          "  base z %.5f at start, in [%.5f, %.5f] m over the second half; min foot normal force %.3f N, rows "
          "with a foot unloaded %ld; mean total normal force over the second half %.3f N (weight %.3f N); end max "
          "|joint rate| %.1e rad/s\n",
          c.q0[2], zmin, zmax, fmin, unloaded, fsum / static_cast<double>(std::max(late, 1L)), c.mass * 9.81, vmax);
    } else if (c.key == "talos_feet") {
      const std::size_t z = column(r, "q.root_joint.z");
      double zmin = 1e9, zmax = -1e9;
      for (const VectorX& row : r.samples) {
        zmin = std::min(zmin, row[static_cast<Eigen::Index>(z)]);
        zmax = std::max(zmax, row[static_cast<Eigen::Index>(z)]);
      }
      std::printf("  base z in [%.6f, %.6f] m; end left_foot λ_z = %.4g N, right_foot λ_z = %.4g N\n", zmin, zmax,
                  r.samples.back()[static_cast<Eigen::Index>(column(r, "lambda.left_foot.2"))],
                  r.samples.back()[static_cast<Eigen::Index>(column(r, "lambda.right_foot.2"))]);
    }
    if (c.kernels) {  // the same run on the compiled kernels: the same states, to round-off
      Setup s = make_setup(c, 0.0, true, true);
      s.sim->add_log(articula::make_log(articula::LogFormat::Csv, log_stem(c, "compiled")));
      const RunResult rc = s.sim->run(c.duration);
      double dmax = 0.0, scale = 0.0;
      const std::size_t n = std::min(rc.samples.size(), r.samples.size());
      const Eigen::Index nx = 1 + s.robot->model().nq + s.robot->model().nv;  // t, q, v
      for (std::size_t i = 0; i < n; ++i) {
        dmax = std::max(dmax, (rc.samples[i].head(nx) - r.samples[i].head(nx)).cwiseAbs().maxCoeff());
        scale = std::max(scale, r.samples[i].head(nx).cwiseAbs().maxCoeff());
      }
      std::printf(
          "%s compiled: %s, %zu rows (runtime %zu), max |Δ(t, q, v)| over the rows %.1e (relative %.1e); %ld of %ld "
          "evaluations on the kernels (%s)\n",
          c.key.c_str(), articula::to_string(rc.status).c_str(), rc.samples.size(), r.samples.size(), dmax,
          dmax / std::max(scale, 1e-300), s.sim->generated_evaluations(), s.sim->dynamics_evaluations(),
          c.kernels_note.c_str());
      if (rc.samples.size() != r.samples.size() || !(dmax <= 1e-9 * std::max(scale, 1.0)))
        throw std::runtime_error(c.key + ": the compiled run differs from the runtime run");
    } else {
      std::printf("%s compiled: SKIPPED (%s)\n", c.key.c_str(), c.kernels_note.c_str());
    }
#ifdef ARTICULA_HAVE_MUJOCO
    if (c.peer) {
      ab::MjSimulationStats st;
      c.peer->run(log_stem(c, "mujoco") + ".csv", &st);
      c.mj_steps = st.steps;
      c.mj_evaluations = st.evaluations;
      std::printf(
          "%s MuJoCo: t = %.6g s, %ld steps, %ld evaluations (4 per mj_step), %ld rows × %d columns logged, "
          "%d warnings",
          c.key.c_str(), st.t_end, st.steps, st.evaluations, st.rows, st.columns, st.warnings);
      if (c.key == "rx130_estop") {
        double dq = 0.0;
        for (int k = 0; k < 6; ++k)
          dq = std::max(dq, std::abs(st.q_end[static_cast<std::size_t>(k)] - r.samples.back()[1 + k]));
        std::printf("; end: |q̇| of locked joints %.1e, v_4..6 = (%.4g, %.4g, %.4g); max |q_end − articula| %.2e rad",
                    st.locked_speed_end, st.v_end[3], st.v_end[4], st.v_end[5], dq);
      } else if (c.key == "solo12_stand") {
        std::printf("; base z in [%.5f, %.5f] m; contacts per step %d–%d; min foot normal force %.3f N", st.base_z_min,
                    st.base_z_max, st.ncon_min, st.ncon_max, st.foot_fz_min);
      } else if (c.key == "talos_feet") {
        std::printf("; base z in [%.6f, %.6f] m; max weld position error %.2e m (soft)", st.base_z_min, st.base_z_max,
                    st.weld_drift);
      }
      std::printf("\n  %s\n", c.peer->notes().c_str());
      continue;
    }
#endif
    std::printf("%s MuJoCo SKIPPED: %s\n", c.key.c_str(), c.peer_skipped.c_str());
  }
  std::printf("\n");
}

// ---------------------------------------------------------------- timing

std::string bench_name(const Case& c, const char* engine, LogMode mode) {
  return c.key + "/" + engine + (mode == LogMode::Csv ? ":log" : mode == LogMode::Off ? ":nolog" : ":sparse");
}

// One whole run per iteration on a fresh Robot + Simulator (built outside the timed region).
void register_articula(const Case* c, LogMode mode, bool compiled) {
  const char* engine = compiled ? "compiled" : "articula";
  benchmark::RegisterBenchmark(bench_name(*c, engine, mode).c_str(),
                               [c, mode, compiled, engine](benchmark::State& st) {
                                 for (auto _ : st) {
                                   st.PauseTiming();
                                   Setup s = make_setup(*c, 0.0, false, compiled);
                                   if (mode == LogMode::Csv)
                                     s.sim->add_log(articula::make_log(articula::LogFormat::Csv, log_stem(*c, engine)));
                                   st.ResumeTiming();
                                   const RunResult r = s.sim->run(c->duration);
                                   st.PauseTiming();
                                   if (!r.ok()) st.SkipWithError(r.message.c_str());
                                   s = {};
                                   st.ResumeTiming();
                                 }
                               })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

void register_benchmarks(std::vector<std::unique_ptr<Case>>& cases) {
  for (auto& cp : cases) {
    const Case* c = cp.get();
    for (LogMode mode : {LogMode::Csv, LogMode::Off}) {
      register_articula(c, mode, false);
      if (c->kernels) register_articula(c, mode, true);
#ifdef ARTICULA_HAVE_MUJOCO
      if (c->peer) {
        ab::SimulationPeer* peer = c->peer.get();
        const std::string path = mode == LogMode::Csv ? log_stem(*c, "mujoco") + ".csv" : std::string();
        benchmark::RegisterBenchmark(bench_name(*c, "mujoco", mode).c_str(),
                                     [peer, path](benchmark::State& st) {
                                       for (auto _ : st) peer->run(path);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
#endif
    }
  }
}

std::string fmt(double x, const char* f = "%.3g") { return bench_fmt(x, f); }

void print_summary(const std::vector<std::unique_ptr<Case>>& cases, const Collector& col) {
  print_summary_heading(
      "real-time factor = simulated s / wall s (median over repetitions); articula on the runtime algorithms and "
      "--compiled (the kernels compiled on demand)",
      "| case | log | articula RTF | --compiled RTF | MuJoCo RTF | articula ms/run | --compiled ms/run | MuJoCo ms/run "
      "| --compiled / articula | articula / MuJoCo | --compiled / MuJoCo | rhs evaluations articula (RunResult / "
      "made) / MuJoCo |\n",
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (const auto& cp : cases) {
    const Case& c = *cp;
    for (LogMode mode : {LogMode::Csv, LogMode::Off}) {
      const double ta = col.micros(bench_name(c, "articula", mode)) * 1e-6;
      const double tc = col.micros(bench_name(c, "compiled", mode)) * 1e-6;
      const double tm = col.micros(bench_name(c, "mujoco", mode)) * 1e-6;
      const double rtf_a = c.duration / ta, rtf_c = c.duration / tc, rtf_m = c.duration / tm;
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %ld / %ld / %ld |\n", c.key.c_str(),
                  mode == LogMode::Csv ? "CSV every step" : "none", fmt(rtf_a, "%.1f").c_str(),
                  fmt(rtf_c, "%.1f").c_str(), fmt(rtf_m, "%.1f").c_str(), fmt(1e3 * ta, "%.2f").c_str(),
                  fmt(1e3 * tc, "%.2f").c_str(), fmt(1e3 * tm, "%.2f").c_str(), fmt(rtf_c / rtf_a, "%.2f").c_str(),
                  fmt(rtf_a / rtf_m, "%.2f").c_str(), fmt(rtf_c / rtf_m, "%.2f").c_str(), c.evaluations,
                  c.evaluations + c.rows + 1, c.mj_evaluations);
    }
  }
  std::printf(
      "\nTargets: articula RTF ≥ 2 × MuJoCo's in every row (issue 5); --compiled ≥ 2 × articula's and ≥ 5 × "
      "MuJoCo's (issue 17). Flags: articula %s (%s), the kernels as the sanity check says, MuJoCo Debian's build.\n",
      bench_compiler().c_str(), ARTICULA_BENCH_NATIVE ? "-march=native" : "no -march=native");
}

// ---------------------------------------------------------------- profile

// The same simulation without the Simulator: fixed_step RK4 with the library's pieces as the
// right-hand side (contact forces, motor efforts, ABA or the constrained solve), the PD held
// between controller ticks, the brakes by activate_constraints() at their times, no log.
// The time spent in the right-hand sides is measured inside the loop (steady_clock, ~27 ns a
// read here, against 2–20 µs per evaluation).
struct BareLoop {
  const Case& c;
  Robot robot;
  articula::Data data;
  articula::ConstrainedWorkspace cws;
  articula::FixedStepWorkspace fws;
  std::vector<articula::Force> f_ext;
  VectorX tau, u, fc;
  std::vector<std::pair<int, int>> pd;  // (q index, v index) per PD target
  std::vector<int> pd_motor;            // its motor
  std::vector<double> pd_target;
  bool constrained = false;
  long evaluations = 0;
  double rhs_seconds = 0.0, loop_seconds = 0.0;  // wall time

  static Robot make_robot(const Case& c) {
    Robot r = Robot::from_urdf(bench_models_dir() + "/" + c.file, c.floating);
    if (c.build_robot) c.build_robot(r);
    return r;
  }
  explicit BareLoop(const Case& cs)
      : c(cs), robot(make_robot(cs)), data(robot.model()), cws(robot.model()), fws(robot.model()) {
    const articula::Model& m = robot.model();
    f_ext.assign(static_cast<std::size_t>(m.njoints), articula::Force::Zero());
    tau = VectorX::Zero(m.nv);
    u = VectorX::Zero(static_cast<Eigen::Index>(robot.motors().size()));
    fc = VectorX::Zero(3 * static_cast<Eigen::Index>(robot.contacts().size()));
    for (const auto& [joint, target] : c.pd_targets) {
      const articula::Index j = m.joint_id(joint);
      pd.emplace_back(m.idx_q[static_cast<std::size_t>(j)], m.idx_v[static_cast<std::size_t>(j)]);
      pd_motor.push_back(robot.motor_index(joint));
      pd_target.push_back(target);
    }
    constrained = robot.constraints().dim() > 0;
  }

  bool rhs(articula::VectorRef q, articula::VectorRef v, Eigen::Ref<VectorX> vdot) {
    ++evaluations;
    const articula::Model& m = robot.model();
    const bool with_contacts = !robot.contacts().empty();
    if (with_contacts) {
      articula::forward_kinematics(m, data, q, v);
      std::fill(f_ext.begin(), f_ext.end(), articula::Force::Zero());
      articula::contact_forces(m, data, robot.contacts(), f_ext, fc);
    }
    tau.noalias() = -m.damping.cwiseProduct(v);
    const auto& motors = robot.motors();
    for (std::size_t k = 0; k < motors.size(); ++k)
      tau[motors[k].dof] += motors[k].effort(u[static_cast<Eigen::Index>(k)], v[motors[k].dof]);
    const std::span<const articula::Force> fe =
        with_contacts ? std::span<const articula::Force>(f_ext) : std::span<const articula::Force>();
    if (!constrained)
      articula::aba(m, data, q, v, tau, fe);
    else if (!articula::constrained_forward_dynamics(m, data, cws, robot.constraints(), q, v, tau, fe).ok())
      return false;
    vdot = data.ddq;
    return true;
  }

  // The whole run; returns false on a failure.
  bool run() {
    using clock = std::chrono::steady_clock;
    const auto t_start = clock::now();
    const articula::Model& m = robot.model();
    VectorX q = c.q0, v = c.v0;
    const articula::AccelerationFn f = [&](articula::VectorRef qq, articula::VectorRef vv, Eigen::Ref<VectorX> a) {
      const auto t0 = clock::now();
      const bool ok = rhs(qq, vv, a);
      rhs_seconds += std::chrono::duration<double>(clock::now() - t0).count();
      return ok;
    };
    const long nsteps = std::lround(c.duration / c.dt);
    const long control_every = c.control_period > 0 ? std::lround(c.control_period / c.dt) : 0;
    int next_lock = 0;
    bool ok = true;
    for (long k = 0; ok && k < nsteps; ++k) {
      const double t = static_cast<double>(k) * c.dt;
      if (c.key == "rx130_estop" && next_lock < 3 && t >= kRxLockTimes[next_lock] - 1e-12) {
        const std::string name = std::string("brake_") + kRxLocks[next_lock];
        const articula::JumpResult jr = articula::activate_constraints(m, data, robot.constraints(), {name}, q, v);
        if (!jr.ok()) return false;
        v = jr.v_plus;
        constrained = true;
        ++next_lock;
      }
      if (control_every > 0 && k % control_every == 0)
        for (std::size_t i = 0; i < pd.size(); ++i)
          u[pd_motor[i]] = c.kp * (pd_target[i] - q[pd[i].first]) - c.kd * v[pd[i].second];
      ok = articula::fixed_step(m, articula::FixedStepMethod::RK4, f, c.dt, q, v, fws);
    }
    loop_seconds = std::chrono::duration<double>(clock::now() - t_start).count();
    return ok;
  }
};

double median(std::vector<double> x) {
  std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2), x.end());
  return x[x.size() / 2];
}

void profile(std::vector<std::unique_ptr<Case>>& cases) {
  constexpr int kReps = 15;
  std::printf("\n## Profile: where articula's time goes (median wall ms per run over %d interleaved runs)\n\n", kReps);
  std::printf(
      "- run:csv / run:hdf5 / run:none / run:sparse: Simulator::run with a CSV log every step / an HDF5 log every "
      "step / no log sink (log_period 0, "
      "the default) / no sink and log_period = duration (no per-step sample; the PD cases still evaluate at each "
      "controller tick)\n"
      "- bare: the same integration without the Simulator (fixed_step RK4 + the library's right-hand side, PD "
      "held, brakes by activate_constraints, no log); rhs/eval from a timer around each evaluation in it\n"
      "- energy: kinetic_energy + potential_energy on each logged state (what log_sample adds besides the row); "
      "csv sink: the CSV sink alone, appending the same rows (to_chars formatting + write)\n\n");
  std::printf(
      "| case | run:csv | run:hdf5 | run:none | run:sparse | bare | rhs / eval (µs) | energy × rows | csv sink × "
      "rows | MuJoCo log | MuJoCo no log |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  struct Split {
    double run_csv, run_none, run_sparse, bare, rhs_eval, energy, csv;
  };
  std::vector<Split> splits;
  for (auto& cp : cases) {
    Case& c = *cp;
    const RunResult rec = run_articula(c, LogMode::Off, true);
    Setup s = make_setup(c, 0.0, false);
    const articula::Model& m = s.robot->model();
    articula::Data aux(m);
    std::vector<double> t_csv, t_h5, t_none, t_sparse, t_bare, t_rhs, t_energy, t_sink, t_mj_log, t_mj_none;
    auto timed = [](auto&& body) {
      const double t0 = wall_seconds();
      body();
      return wall_seconds() - t0;
    };
    double sink_energy = 0.0;
    for (int rep = 0; rep < kReps; ++rep) {
      t_csv.push_back(timed([&] { run_articula(c, LogMode::Csv); }));
      t_h5.push_back(timed([&] { run_articula(c, LogMode::Hdf5); }));
      t_none.push_back(timed([&] { run_articula(c, LogMode::Off); }));
      t_sparse.push_back(timed([&] { run_articula(c, LogMode::Sparse); }));
      BareLoop bare(c);
      t_bare.push_back(timed([&] { bare.run(); }));
      t_rhs.push_back(t_bare.back() * bare.rhs_seconds / bare.loop_seconds / static_cast<double>(bare.evaluations));
      t_energy.push_back(timed([&] {
        for (const VectorX& row : rec.samples)
          sink_energy += articula::kinetic_energy(m, aux, row.segment(1, m.nq), row.segment(1 + m.nq, m.nv)) +
                         articula::potential_energy(m, aux, row.segment(1, m.nq));
      }));
      t_sink.push_back(timed([&] {
        auto sink = articula::make_log(articula::LogFormat::Csv, log_stem(c, "profile"));
        sink->begin(rec.columns);
        for (const VectorX& row : rec.samples) sink->append({row.data(), static_cast<std::size_t>(row.size())});
        sink->finish({"completed", "", c.duration, static_cast<long>(rec.samples.size())});
      }));
#ifdef ARTICULA_HAVE_MUJOCO
      if (c.peer) {
        t_mj_log.push_back(timed([&] { c.peer->run(log_stem(c, "mujoco") + ".csv"); }));
        t_mj_none.push_back(timed([&] { c.peer->run(""); }));
      }
#endif
    }
    benchmark::DoNotOptimize(sink_energy);
    const Split sp{median(t_csv), median(t_none),   median(t_sparse), median(t_bare),
                   median(t_rhs), median(t_energy), median(t_sink)};
    splits.push_back(sp);
    const double mj_log = t_mj_log.empty() ? std::nan("") : median(t_mj_log);
    const double mj_none = t_mj_none.empty() ? std::nan("") : median(t_mj_none);
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", c.key.c_str(),
                1e3 * sp.run_csv, 1e3 * median(t_h5), 1e3 * sp.run_none, 1e3 * sp.run_sparse, 1e3 * sp.bare,
                1e6 * sp.rhs_eval, 1e3 * sp.energy, 1e3 * sp.csv, fmt(1e3 * mj_log, "%.2f").c_str(),
                fmt(1e3 * mj_none, "%.2f").c_str());
  }
  std::printf(
      "\nSplit of run:csv (ms and share): rhs in the steps = RunResult evaluations × rhs/eval; rhs for the samples "
      "= one more evaluation per logged row (evaluate() before each sample; not counted in RunResult::evaluations); "
      "integrator = bare − its rhs; energy; CSV = run:csv − run:none; rest = the Simulator's own bookkeeping "
      "(run:csv minus all of these)\n\n");
  std::printf(
      "| case | rows | rhs in steps | rhs for samples | integrator | energy | CSV (in the run) | CSV sink alone | rest "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = *cases[i];
    const Split& sp = splits[i];
    const double steps_rhs = static_cast<double>(c.evaluations) * sp.rhs_eval;
    const double sample_rhs = static_cast<double>(c.rows + 1) * sp.rhs_eval;  // evaluate(): 2 at t0, 1 per row after
    const double bare_evals = 4.0 * std::lround(c.duration / c.dt);
    const double integ = sp.bare - bare_evals * sp.rhs_eval;
    const double csv = sp.run_csv - sp.run_none;
    const double rest = sp.run_csv - steps_rhs - sample_rhs - integ - sp.energy - csv;
    auto cell = [&](double x) { return fmt(1e3 * x, "%.2f") + " (" + fmt(100.0 * x / sp.run_csv, "%.0f") + " %)"; };
    std::printf("| %s | %ld | %s | %s | %s | %s | %s | %s | %s |\n", c.key.c_str(), c.rows, cell(steps_rhs).c_str(),
                cell(sample_rhs).c_str(), cell(integ).c_str(), cell(sp.energy).c_str(), cell(csv).c_str(),
                cell(sp.csv).c_str(), cell(rest).c_str());
  }
}

void print_setup(const std::vector<std::unique_ptr<Case>>& cases) {
  print_bench_title("bench_simulation");
  std::printf("logs written to %s\n\n", g_log_dir.c_str());
  for (const auto& cp : cases) std::printf("- %s: %s\n", cp->key.c_str(), cp->settings.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const BenchCommandLine cl(argc, argv,
                            {"--benchmark_repetitions=9", "--benchmark_display_aggregates_only=true",
                             "--benchmark_min_time=0.5", "--benchmark_enable_random_interleaving=true"},
                            {"--check_only", "--profile"});
  if (!cl.ok()) return 1;
  const bool check_only = cl.has("--check_only"), do_profile = cl.has("--profile");

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("articula_bench_simulation_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  g_log_dir = dir.string();
  int status = 0;
  try {
    std::vector<std::unique_ptr<Case>> cases;
    cases.push_back(rx130_case());
    cases.push_back(solo12_case());
    cases.push_back(talos_case());
    for (auto& c : cases) {
      make_peer(*c);
      compile_case(*c);
    }
    print_setup(cases);
    sanity_check(cases);  // also fills the steps / evaluations of the summary
    if (!check_only) {
      register_benchmarks(cases);
      Collector collector(Collector::Clock::Wall);
      run_benchmarks(collector);
      print_summary(cases, collector);
      if (do_profile) profile(cases);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_simulation: %s\n", e.what());
    status = 1;
  }
  benchmark::Shutdown();
  std::error_code ec;
  if (!std::getenv("ARTICULA_BENCH_KEEP_LOGS")) std::filesystem::remove_all(dir, ec);
  return status;
}
