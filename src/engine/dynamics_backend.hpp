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
#include "articula/model/data.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {

struct DynamicsResult {
  bool ok = true;                  // false: a failed solve (message set)
  bool kinematics_current = true;  // data.oMi, data.v hold the kinematics of (q, v)
};

// One evaluation fills data.ddq (and the multipliers in the constraint set); no allocation
// except for the message of a failure.
class Dynamics {
 public:
  virtual ~Dynamics() = default;
  virtual DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                  std::string& message) = 0;
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

// The generated constrained kernel of frames held in the world (its _fext form when the
// evaluation has external forces), with the constraints' references and Baumgarte gains; an
// evaluation whose reference is not captured yet or whose rows are dependent (the kernel
// returns false) goes to the runtime solve.
class GeneratedHeldDynamics final : public Dynamics {
 public:
  GeneratedHeldDynamics(Data& data, ConstraintSet& set, RuntimeConstrainedDynamics& fallback, long& calls)
      : data_(data), set_(set), fallback_(fallback), calls_(calls) {}
  // The kernels and their held frames (sizes the buffers; not inside a step).
  void set_kernel(ConstrainedKernel kernel, ConstrainedFextKernel kernel_fext, const std::vector<HeldFrame>& held,
                  int bodies);
  // True when the enabled constraints of the set are exactly the held frames (same frames,
  // masks and order) and there is a kernel for evaluations without (with) external forces;
  // then keeps them for the evaluations.
  bool select(const ConstraintSet& set, bool with_forces);
  DynamicsResult evaluate(VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                          std::string& message) override;

 private:
  Data& data_;
  ConstraintSet& set_;
  RuntimeConstrainedDynamics& fallback_;
  long& calls_;
  ConstrainedKernel kernel_ = nullptr;
  ConstrainedFextKernel kernel_fext_ = nullptr;
  std::vector<HeldFrame> held_;
  std::vector<double> forces_;
  std::vector<const FramePairConstraint*> frames_;
  std::vector<double> ref_, kp_, kd_;
  VectorX lambda_;
};

}  // namespace articula
