#pragma once
// The engine's dynamics back ends (src/engine only): v̇ = f(q, v, τ, f_ext) into data.ddq, by
// the runtime algorithms or by generated kernels. Simulator::Impl::refresh_active selects one
// when the active constraint set changes; Impl::rhs calls it on every evaluation.
#include <span>
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "articula/constraints/constraint_set.hpp"
#include "articula/constraints/frame_constraint.hpp"
#include "articula/constraints/wheel_constraint.hpp"
#include "articula/engine/robot.hpp"
#include "articula/model/data.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {

struct DynamicsResult {
  bool ok = true;                  // false: a failed solve (message set)
  bool kinematics_current = true;  // data.oMi, data.v hold the kinematics of (q, v)
};

// One evaluation fills data.ddq and, with constraints, the multipliers (the constrained
// workspace's lambda, in the set's row order); no allocation except for the message of a failure.
class Dynamics {
 public:
  virtual ~Dynamics() = default;
  virtual DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                  std::string& message) = 0;
  // True when the evaluation computes the elastic contacts' forces itself (f_ext unused).
  virtual bool computes_contacts() const { return false; }
};

// No constraint enabled: aba().
class RuntimeAbaDynamics final : public Dynamics {
 public:
  RuntimeAbaDynamics(const Model& model, Data& data) : model_(model), data_(data) {}
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;

 private:
  const Model& model_;
  Data& data_;
};

// Constraints enabled: constrained_forward_dynamics() with the options' method.
class RuntimeConstrainedDynamics final : public Dynamics {
 public:
  RuntimeConstrainedDynamics(const Model& model, Data& data, ConstrainedWorkspace& ws, ConstraintSet& set,
                             ConstrainedMethod method)
      : model_(model), data_(data), ws_(ws), set_(set), method_(method) {}
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;
  // Where the multipliers go (ws.lambda).
  ConstrainedWorkspace& workspace() { return ws_; }

 private:
  const Model& model_;
  Data& data_;
  ConstrainedWorkspace& ws_;
  ConstraintSet& set_;
  ConstrainedMethod method_;
};

// External forces as the generated kernels take them: 6 numbers per body (AbaFextKernel).
void pack_forces(std::span<const Force> f_ext, std::vector<double>& out);

// The generated aba, or aba_fext when the evaluation has external forces; counts its calls.
class GeneratedAbaDynamics final : public Dynamics {
 public:
  GeneratedAbaDynamics(Data& data, long& calls) : data_(data), calls_(calls) {}
  // The kernels (sizes the force buffer for `bodies`; not inside a step).
  void set_kernel(AbaKernel kernel, AbaFextKernel kernel_fext, int bodies);
  // A kernel for evaluations without (with) external forces.
  bool usable(bool with_forces) const { return with_forces ? kernel_fext_ != nullptr : kernel_ != nullptr; }
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;

 private:
  Data& data_;
  long& calls_;
  AbaKernel kernel_ = nullptr;
  AbaFextKernel kernel_fext_ = nullptr;
  std::vector<double> forces_;
};

// The generated aba_contacts: the robot's elastic contacts and ABA with their forces in one call,
// which writes the contacts' forces (3 per contact, world axes); counts its calls.
class GeneratedContactsDynamics final : public Dynamics {
 public:
  GeneratedContactsDynamics(Data& data, long& calls) : data_(data), calls_(calls) {}
  // The kernel and the contacts it declares (sizes the law buffer; not inside a step).
  void set_kernel(AbaContactsKernel kernel, const std::vector<DeclaredContact>& declared);
  // True when there is a kernel and its declared contacts are `contacts`, in order: the same
  // frames and offsets, on the same planes (normals compared normalized, to 1e-15); then takes their law
  // numbers and writes the forces into `f_contact` at each evaluation. No allocation.
  bool select(const std::vector<ElasticContact>& contacts, VectorX& f_contact);
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;
  bool computes_contacts() const override { return true; }

 private:
  Data& data_;
  long& calls_;
  AbaContactsKernel kernel_ = nullptr;
  std::vector<DeclaredContact> declared_;
  std::vector<double> law_;
  VectorX* f_contact_ = nullptr;
};

// The generated constrained kernel of the declared held frames (in the world or to another
// frame) and locked joints
// (its _fext form when the evaluation has external forces), with the active ones switched on
// and the constraints' references and Baumgarte gains; an evaluation whose reference is not
// captured yet or whose rows are dependent (the kernel returns false) goes to the runtime solve.
class GeneratedConstrainedDynamics final : public Dynamics {
 public:
  // The multipliers go where the fallback's do (its workspace's lambda).
  GeneratedConstrainedDynamics(Data& data, RuntimeConstrainedDynamics& fallback, long& calls)
      : data_(data), fallback_(fallback), calls_(calls) {}
  // The kernels and their declared constraints (sizes the buffers; not inside a step).
  void set_kernel(const KernelTable& kernels, const Model& model);
  // True when every enabled constraint of the set is one of the declared ones (a
  // FramePairConstraint with the held frame's frames and mask; a JointLock of declared joints; a
  // DistanceConstraint between a declared distance's frames; a WheelConstraint with a declared
  // wheel's numbers), no declared
  // one is used twice, and there is a kernel for evaluations without (with) external forces;
  // then keeps the mapping for the evaluations.
  bool select(const ConstraintSet& set, bool with_forces);
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;

 private:
  // One active declared constraint: the held frame f or the locked joint j (declared index
  // `slot`) and the enabled constraint it stands for, with that constraint's first row in the
  // kernel's lambda and in the set's, and its number of rows.
  struct Use {
    int slot;
    const Constraint* constraint;
    int kernel_row, set_row, rows;
    int ref_from;  // JointLock: where this joint's coordinates start in its reference
  };
  Data& data_;
  RuntimeConstrainedDynamics& fallback_;
  long& calls_;
  ConstrainedKernel kernel_ = nullptr;
  ConstrainedFextKernel kernel_fext_ = nullptr;
  const Model* model_ = nullptr;
  std::vector<HeldFrame> held_;
  std::vector<Index> locked_;  // joint ids
  std::vector<HeldDistance> distances_;
  std::vector<HeldWheel> wheels_;
  std::vector<ConstrainedLayout::Declared> slots_;  // each declared constraint's place in ref and lambda
  std::vector<Use> uses_;
  std::vector<double> forces_, ref_, kp_, kd_, active_, lambda_;
};

}  // namespace articula
