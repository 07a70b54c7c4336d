#pragma once
/// Stopping-time and stopping-distance tables in the style of ISO 10218-1:2011 Annex B
/// (docs/stopping.md): for joints 1, 2 and 3 of an arm, stop categories 0 and 1, at fractions
/// (33/66/100 %) of the maximum joint speed, of the rated payload and of the arm's extension.
///
/// A study is read from a YAML file (studies/rx130_stopping.yaml); each case is one
/// Simulator run: the tested joint moves at its speed, the others are at rest, the stop
/// signal comes at t = 0, and the run ends when every joint is at rest (or at the horizon).
/// Each case is run twice: with the study's brake model and with ideal instant locks (a
/// JointLock enabled with the momentum-consistent jump at the brake's engagement time).
///
/// Sweeps are deterministic per case: the figures of case k depend only on the study, k and
/// (for sampled runs) the seed, never on which thread or MPI rank ran them, so the CSV and
/// JSON outputs are byte-identical for any number of workers.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "articula/common/types.hpp"
#include "articula/model/model.hpp"

namespace articula {

/// One tested joint.
struct StoppingJoint {
  std::string joint;
  double max_speed = 0.0;  ///< [rad/s] > 0
  /// +1 / −1: sign of the joint rate; 0 ("down"): the sign that lowers the arm under gravity
  /// at each extension pose (q̇ opposite to the generalized gravity g(q) of the joint).
  int direction = 0;
};

/// A drive (motor) of the stand-in: Robot::Motor fields the study needs.
struct StoppingDrive {
  std::string joint;
  double gear_ratio = 1.0;     ///< > 0
  double rotor_inertia = 0.0;  ///< [kg m²] motor side, ≥ 0
  double effort_limit = 0.0;   ///< [N m] joint side, > 0: the category-1 braking torque
};

/// A joint brake, as in issue 18 (engine Brake): friction (slips at `torque`) or pin.
struct StoppingBrake {
  std::string joint;
  std::string kind = "friction";  ///< "friction" or "pin"
  double delay = 0.0;             ///< [s] ≥ 0, stop signal (or category-1 standstill) → engagement
  double torque = 0.0;            ///< [N m] at the joint, > 0
  double static_torque = 0.0;     ///< [N m] ≥ torque once stuck (0: = torque)
};

struct StoppingPayload {
  std::string frame;                 ///< frame it is attached to (the flange)
  double rated_mass = 0.0;           ///< [kg] ≥ 0 at 100 %
  Vector3 com{Vector3::Zero()};      ///< [m] centre of mass in the frame
  Vector3 inertia{Vector3::Zero()};  ///< [kg m²] principal moments about the com, frame axes, at 100 %
};

struct StoppingExtension {
  double fraction = 1.0;  ///< of the reach, (0, 1]
  VectorX q;              ///< [rad] the pose (nq)
};

struct StoppingStudy {
  std::string file, name, description;
  std::string model_file;              ///< URDF, resolved against the study file's folder
  std::shared_ptr<const Model> model;  ///< loaded from model_file (fixed base), as in the URDF
  std::string flange;                  ///< frame whose origin path length is reported
  Vector3 gravity{0.0, 0.0, -9.81};
  std::vector<StoppingJoint> joints;
  std::vector<StoppingDrive> drives;
  std::vector<StoppingBrake> brakes;
  StoppingPayload payload;
  std::vector<double> speeds{0.33, 0.66, 1.0};    ///< fractions of max_speed, (0, 1]
  std::vector<double> payloads{0.33, 0.66, 1.0};  ///< fractions of the rated payload, (0, 1]
  std::vector<StoppingExtension> extensions;
  std::vector<int> categories{0, 1};
  double cat1_max_time = 1.0;     ///< [s] a category-1 drive stop longer than this hands over to the brakes
  double delay_tolerance = 0.0;   ///< relative ± of every brake delay when sampling (uniform)
  double torque_tolerance = 0.0;  ///< relative ± of every brake torque when sampling (uniform)
  double dt = 1e-3;               ///< [s] RK4 step
  double max_duration = 3.0;      ///< [s] horizon of one run
  double rest_speed = 1e-4;       ///< [rad/s] every |q̇| below this: at rest
};

/// Reads a study file; relative paths are resolved against its folder. Every mistake is a
/// ScenarioError "FILE:LINE:COL: key 'KEY': WHAT" (a fraction outside (0, 1], an unknown joint
/// or frame, a tested joint without a brake, a pose of the wrong size, …).
StoppingStudy load_stopping_study(const std::string& path);
StoppingStudy parse_stopping_study(const std::string& yaml_text, const std::string& source_name,
                                   const std::string& base_dir);

/// One case of the sweep; index is its place in stopping_cases() order.
struct StoppingCase {
  int index = 0;
  int joint = 0;      ///< index into study.joints
  int speed = 0;      ///< index into study.speeds
  int payload = 0;    ///< index into study.payloads
  int extension = 0;  ///< index into study.extensions
  int category = 0;   ///< 0 or 1
};
/// Joint-major: joint, category, extension, payload, speed (fastest). 162 for the full table.
std::vector<StoppingCase> stopping_cases(const StoppingStudy& study);

/// Brake values of one run, relative factors on the study's nominal values (1 = nominal).
struct BrakeScaling {
  std::vector<double> delay, torque;  ///< per study.brakes; empty: all 1
};
/// Sample s (≥ 0) of case k: uniform factors within the tolerances, from a counter-based
/// generator seeded by (seed, k, s) only.
BrakeScaling sample_brakes(const StoppingStudy& study, std::uint64_t seed, int case_index, int sample);

enum class BrakeModel { Real, Ideal };

/// The figures of one run.
struct StopFigures {
  bool ok = false;
  std::string message;        ///< empty when ok; else what went wrong
  double stop_time = 0.0;     ///< [s] signal → every joint at rest (or stuck / locked)
  double distance_deg = 0.0;  ///< [deg] |q_j(end) − q_j(0)| of the tested joint
  double path_mm = 0.0;       ///< [mm] flange origin path length ∫|ṗ| dt
  double peak_torque = 0.0;   ///< [N m] largest |torque| of the tested joint's brake, applied or held
  bool slipped = false;       ///< a brake slipped after it had stuck
  double slip_time = -1.0;    ///< [s] first such slip, −1 if none
};

/// The model a case runs on: the study's, with its gravity, the payload at its fraction merged
/// into the payload frame's body, and the drives' reflected rotor inertia in the armature.
Model stopping_case_model(const StoppingStudy& study, const StoppingCase& c);

/// Runs one case on the Simulator: Real with the study's engine brakes (delay, slip torque,
/// stick and release; scaled by `scaling`), Ideal with instant pin locks at the same delays.
/// Throws std::invalid_argument for brakes the engine rejects (the message names the brake).
StopFigures run_stopping_case(const StoppingStudy& study, const StoppingCase& c, BrakeModel model,
                              const BrakeScaling& scaling = {});

/// The runs of a sweep: per case, run 0 = nominal with the study's brakes, run 1 = nominal with
/// ideal locks, runs 2.. = samples 0.. with the study's brakes. Work item w = case·runs + run.
struct SweepPlan {
  int cases = 0;
  int samples = 0;
  std::uint64_t seed = 1;
  int runs_per_case() const { return 2 + samples; }
  int items() const { return cases * runs_per_case(); }
};
/// Runs work item w of the plan.
StopFigures run_stopping_item(const StoppingStudy& study, const std::vector<StoppingCase>& cases, const SweepPlan& plan,
                              int item);
/// Runs the given items on `jobs` threads (≥ 1); out[i] is the result of items[i].
std::vector<StopFigures> run_stopping_items(const StoppingStudy& study, const std::vector<StoppingCase>& cases,
                                            const SweepPlan& plan, const std::vector<int>& items, int jobs);

/// Percentiles of one figure over the samples (nearest rank on the sorted values).
struct Spread {
  double worst = 0.0, p50 = 0.0, p95 = 0.0, p99 = 0.0;
};
Spread spread_of(std::vector<double> values);

struct StoppingCaseResult {
  StoppingCase c;
  StopFigures real, ideal;
  int samples = 0, failed_samples = 0;
  Spread time, distance, path, torque;  ///< over the ok samples (zeros without samples)
};
/// Assembles per-case results from every item's figures (in item order).
std::vector<StoppingCaseResult> assemble_results(const std::vector<StoppingCase>& cases, const SweepPlan& plan,
                                                 const std::vector<StopFigures>& items);
/// The whole sweep on `jobs` threads.
std::vector<StoppingCaseResult> run_stopping_sweep(const StoppingStudy& study, int samples, std::uint64_t seed,
                                                   int jobs);

/// Serialization of StopFigures into a fixed number of doubles (MPI gathers); the message is
/// not carried: a failed run is re-described from its code.
constexpr int kStopFiguresDoubles = 8;
void pack_figures(const StopFigures& f, double* out);
StopFigures unpack_figures(const double* in);

// Reports (docs/stopping.md lists the columns). Fixed formats: byte-identical for equal input.
std::string stopping_csv(const StoppingStudy& study, const std::vector<StoppingCaseResult>& results);
std::string stopping_json(const StoppingStudy& study, const std::vector<StoppingCaseResult>& results, int samples,
                          std::uint64_t seed);
std::string stopping_table(const StoppingStudy& study, const std::vector<StoppingCaseResult>& results);

}  // namespace articula
