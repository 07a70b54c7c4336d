#pragma once
/// Model-specific kernels: C++ source of RNEA, CRBA and ABA for one model, with its joint
/// placements, axes, inertias, armature and gravity folded in as numbers (the generated code
/// has no loops, no joint dispatch and no multiplications by the zeros and ones of the model).
/// `articula codegen MODEL.urdf` writes them; docs/codegen.md says how to use them.
#include <string>
#include <vector>

#include "articula/constraints/constraint.hpp"
#include "articula/model/model.hpp"

namespace articula {

/// Signatures of the generated functions (NAME.hpp), for tables of kernels.
using RneaKernel = void (*)(const double* q, const double* v, const double* a, double* tau);
using CrbaKernel = void (*)(const double* q, double* M);
using AbaKernel = void (*)(const double* q, const double* v, const double* tau, double* qdd);
/// The constrained kernels take `active`: 1 or 0 per declared constraint (held frames, then
/// locked joints), nullptr for all on.
using ConstrainedKernel = bool (*)(const double* q, const double* v, const double* tau, const double* ref,
                                   const double* kp, const double* kd, const double* active, double* qdd,
                                   double* lambda);
using JumpKernel = bool (*)(const double* q, const double* v_minus, const double* active, double* v_plus,
                            double* Lambda);
/// With external forces (CodegenOptions::external_forces): f_ext holds 6 numbers per body
/// (Model::njoints of them, in joint order), the spatial force [force; moment] on that body in
/// its own frame, as the f_ext of articula::aba.
using AbaFextKernel = void (*)(const double* q, const double* v, const double* tau, const double* f_ext, double* qdd);
/// body_states (CodegenOptions::state_frames): 18 numbers per frame, its body's oMi (rotation
/// column-major, position) and body-frame velocity (linear, angular).
using BodyStatesKernel = void (*)(const double* q, const double* v, double* out);
/// energy: out[0] the kinetic energy (armature included), out[1] the potential energy, as
/// mechanical_energy() gives them (every kernel set has it: the engine's log rows on kernels).
using EnergyKernel = void (*)(const double* q, const double* v, double* out);
/// aba_contacts (KernelDeclarations::contacts): the declared elastic contacts' forces and ABA
/// with them in one kernel; `law` holds 4 numbers per contact (stiffness, damping, friction,
/// slip velocity), `f_contact` receives 3 per contact (the force on the body, world axes).
using AbaContactsKernel = void (*)(const double* q, const double* v, const double* tau, const double* law, double* qdd,
                                   double* f_contact);
using ConstrainedFextKernel = bool (*)(const double* q, const double* v, const double* tau, const double* f_ext,
                                       const double* ref, const double* kp, const double* kd, const double* active,
                                       double* qdd, double* lambda);

struct GeneratedKernels {
  std::string header;  // NAME.hpp: the declarations, nq, nv and the model digest
  std::string source;  // NAME.cpp: the definitions (includes "NAME.hpp")
  /// The same definitions split into translation units (rnea, crba, aba, then the constrained
  /// kernels when there are held frames or locks; each kernel's parts with
  /// CodegenOptions::max_statements) that compile in parallel (compile_kernels()).
  std::vector<std::string> units;
  int lines = 0;  // statements emitted (rnea + crba + aba)
};

/// A frame held in the world, as FrameConstraint(name, frame, AxisMask::weld()) (6 rows:
/// linear then angular) or AxisMask::point() (3 rows), or on the axes `axes` names, for the
/// constrained kernels; or, with `relative_to`, held to that frame: a loop closure, as
/// LoopConstraint(name, frame, relative_to, mask) (its rows in relative_to's axes).
struct HeldFrame {
  std::string frame;
  bool weld = true;
  std::string relative_to = {};  ///< empty: the world
  /// Other axes than the weld's or the point's, as AxisMask::parse reads them ("rxrz": the
  /// rotations about x and z); when set, `weld` is not used.
  std::string axes = {};
  /// The held axes (throws std::invalid_argument for `axes` that AxisMask::parse rejects).
  AxisMask mask() const;
  /// "weld", "point" or the axes (AxisMask::to_string).
  std::string kind() const;
};
/// The HeldFrame of `frame` held as `kind` says: "weld", "point" or an axis list that
/// AxisMask::parse reads ("rxrz"); throws std::invalid_argument naming the frame otherwise.
HeldFrame held_frame(const std::string& frame, const std::string& kind, const std::string& relative_to = {});

/// The distance between two frames' origins held, as DistanceConstraint(name, frame_a, frame_b)
/// (1 row), for the constrained kernels.
struct HeldDistance {
  std::string frame_a, frame_b;
};

/// A wheel rolling without slipping on a plane, as WheelConstraint(name, frame, radius, axis,
/// normal, height) (3 rows), for the constrained kernels; its numbers are folded into them, so a
/// WheelConstraint runs on the kernels when its numbers are these (axis and normal compared
/// normalized: the generator and WheelConstraint both keep them as unit vectors).
struct HeldWheel {
  std::string frame;
  double radius = 0.0;
  Vector3 axis = Vector3::UnitY(), normal = Vector3::UnitZ();
  double height = 0.0;
};

/// Where the declared constraints of the constrained kernels (the held frames, then the locked
/// joints, then the held distances, then the wheels, in their order) sit in the kernels' arrays:
/// each one's first entry in `ref` and in `lambda` / `Lambda`, and their counts (a held frame:
/// 12 reference numbers and its mask's rows; a locked joint: its nq and nv; a distance: 1 and 1;
/// a wheel: 0 and 3). The generated header's constants (ref_size, frame_rows, m) and every
/// caller of the kernels take them from here.
struct ConstrainedLayout {
  enum class Kind { Frame, Lock, Distance, Wheel };
  struct Declared {
    int ref = 0, row = 0, nq = 0, rows = 0;
    Kind kind = Kind::Frame;
  };
  std::vector<Declared> declared;
  int ref_size = 0;    ///< numbers in `ref`
  int frame_rows = 0;  ///< rows of the held frames
  int lock_rows = 0;   ///< rows of the locked joints (after the frames')
  int m = 0;           ///< rows in all (the size of lambda; the distances' come last)
};
/// Throws std::invalid_argument for an unknown frame or joint (listing the valid names), a held
/// frame on the world, a frame held to itself, a distance between a frame and itself or
/// between two frames on the world, a joint locked twice, or a wheel on the world or with a
/// radius that is not positive or a zero axis or normal.
ConstrainedLayout constrained_layout(const Model& model, const std::vector<HeldFrame>& held,
                                     const std::vector<std::string>& locked,
                                     const std::vector<HeldDistance>& distances = {},
                                     const std::vector<HeldWheel>& wheels = {});

/// The kernels' default part length (CodegenOptions / CompileOptions::max_statements): parts of
/// about 800 statements compile 2–3× faster than whole kernels and, compiled by g++ 12 or clang 14,
/// run as fast or faster (talos's constrained dynamics 13 % faster with g++, its RNEA 1.6× faster
/// with clang; docs/codegen.md, "Kernels in parts").
inline constexpr int kDefaultMaxStatements = 800;

/// An elastic contact on a plane (ElasticContact with a Surface::plane, the ground included)
/// for the `aba_contacts` kernel: its frame, offset and plane are folded into the kernel as
/// numbers; its stiffness, damping, friction and slip velocity are the kernel's `law` input.
struct DeclaredContact {
  std::string frame;
  Vector3 offset = Vector3::Zero();   ///< [m] the point in the frame's axes
  Vector3 point = Vector3::Zero();    ///< [m] a point of the plane (world)
  Vector3 normal = Vector3::UnitZ();  ///< the plane's unit normal (world), out of the surface
};

/// What the kernels are generated for beyond RNEA, CRBA and ABA. CodegenOptions,
/// CompileOptions, CompiledKernels and GeneratedDynamics each carry one, so that the
/// declarations travel as one value from the options to the engine.
struct KernelDeclarations {
  /// With frames (or any constraint below): also `constrained_dynamics` and `velocity_jump`
  /// with these frames held in the world or to another frame (loops), in this order
  /// (docs/codegen.md). Unknown frames or frames on the world throw std::invalid_argument.
  std::vector<HeldFrame> held_frames;
  /// Also in the constrained kernels: these joints locked, as JointLock (its rows the joint's
  /// dofs, held at v̇ = −kd v − kp (q ⊖ q_ref)); declared after the held frames. Each of the
  /// declared constraints is switched on or off by the kernels' `active` input, so one kernel
  /// serves every subset of them (brakes that engage one by one). An unknown joint or one
  /// listed twice throws std::invalid_argument.
  std::vector<std::string> locked_joints = {};
  /// Also in the constrained kernels: these distances held, as DistanceConstraint (one row
  /// each; its reference distance in `ref`); declared after the locked joints.
  std::vector<HeldDistance> distances = {};
  /// Also in the constrained kernels: these wheels rolling, as WheelConstraint (three rows
  /// each); declared after the distances.
  std::vector<HeldWheel> wheels = {};
  /// Also `aba_fext` (and, with constraints, `constrained_dynamics_fext`): the same kernels
  /// with external forces on the bodies (the elastic contacts of the engine).
  bool external_forces = false;
  /// Also `body_states(q, v, out)`: the world placement and velocity of the bodies that carry
  /// these frames (the elastic contacts' kinematics, in place of a whole forward_kinematics).
  /// Unknown frames or frames on the world throw std::invalid_argument.
  std::vector<std::string> state_frames = {};
  /// Also `aba_contacts`: these elastic contacts' forces and ABA with them, in one kernel (the
  /// contacts' kinematics share the ABA's terms). An unknown frame, a zero normal or a
  /// non-finite number throws std::invalid_argument.
  std::vector<DeclaredContact> contacts = {};
  /// Any constraint declared (the constrained kernels are generated).
  bool constrained() const {
    return !held_frames.empty() || !locked_joints.empty() || !distances.empty() || !wheels.empty();
  }
};

/// One model's kernels (null for those not generated) and the declarations they were generated
/// for: what the engine calls (Simulator::use_generated; CompiledKernels is one).
struct KernelTable : KernelDeclarations {
  std::string model_digest;  ///< NAME::model_digest: must equal model_digest() of the model in use
  RneaKernel rnea = nullptr;
  CrbaKernel crba = nullptr;
  AbaKernel aba = nullptr;
  ConstrainedKernel constrained_dynamics = nullptr;
  JumpKernel velocity_jump = nullptr;
  AbaFextKernel aba_fext = nullptr;
  ConstrainedFextKernel constrained_dynamics_fext = nullptr;
  BodyStatesKernel body_states = nullptr;
  AbaContactsKernel aba_contacts = nullptr;
  EnergyKernel energy = nullptr;
};

struct CodegenOptions : KernelDeclarations {
  std::string origin;  // where the model came from (e.g. the URDF path), for the heading comment
  /// Entries of the joint placements' rotations within `snap` of 0, 1 or −1 are taken as exactly
  /// that (a URDF's rpy of π/2 written with 9 digits leaves 5e-12 where 0 is meant; only exact
  /// zeros and ones fold). Inertia entries below 1e-15 of their largest are zeroed (round-off of
  /// the fixed-link merge). 0 turns both off: the kernels then use the model's numbers unchanged.
  double snap = 1e-9;
  /// Only the kernels a Simulator calls: `aba` and, with held frames, `constrained_dynamics`
  /// — or, with external_forces, only their `_fext` forms — without rnea, crba and
  /// velocity_jump (compile_options_for(robot) asks for this: less to compile).
  bool engine_kernels_only = false;
  /// With N > 0, a kernel longer than about N statements is cut into parts of about N, each a
  /// function in a unit of its own (GeneratedKernels::units), so that they compile in
  /// parallel and each compiles faster (the compiler's cost grows faster than a function's
  /// length). The temporaries passed between parts go through a local array. 0: whole.
  /// Default kDefaultMaxStatements.
  int max_statements = kDefaultMaxStatements;
};

/// Generates the kernels of `model` in namespace articula::generated::<name> (`name` must be
/// a C++ identifier; throws std::invalid_argument otherwise). Supports every joint type of
/// model/joint.hpp.
GeneratedKernels generate_kernels(const Model& model, const std::string& name, const CodegenOptions& options = {});

/// A 64-bit FNV-1a digest (16 hex digits) of what the generated kernels depend on: the tree,
/// joint types, placements, axes, inertias, armature and gravity. The generated header holds
/// the digest of its model; compare it with model_digest() of the Model in use.
std::string model_digest(const Model& model);

}  // namespace articula
