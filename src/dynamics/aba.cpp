#include "articula/dynamics/aba.hpp"

#include "articula/common/check.hpp"
#include "dynamics/aba_passes.hpp"

namespace articula {
namespace {

// The runtime's instantiations, in world coordinates (dynamics/aba_passes.hpp), flattened: the
// recursion's helpers inlined into one function.
ARTICULA_FLATTEN void aba_world(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                                std::span<const Force> f_ext) {
  aba_passes<double, Coordinates::World, false>(model, data, q, v, tau, f_ext, nullptr, nullptr, nullptr);
}

ARTICULA_FLATTEN void aba_world_hybrid(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                                       std::span<const Force> f_ext, const char* prescribed, const double* qdd,
                                       double* tau_required) {
  aba_passes<double, Coordinates::World, true>(model, data, q, v, tau, f_ext, prescribed, qdd, tau_required);
}

}  // namespace

const VectorX& aba(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                   std::span<const Force> f_ext) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(tau, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  aba_world(model, data, q, v, tau, f_ext);
  return data.ddq;
}

const VectorX& aba_prescribed(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                              std::span<const char> prescribed, VectorRef qdd, Eigen::Ref<VectorX> tau_required,
                              std::span<const Force> f_ext) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(tau, model.nv);
  ARTICULA_CHECK_SIZE(qdd, model.nv);
  ARTICULA_CHECK_SIZE(tau_required, model.nv);
  ARTICULA_CHECK(prescribed.size() == static_cast<std::size_t>(model.njoints),
                 "prescribed has " << prescribed.size() << " entries, expected njoints = " << model.njoints);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  aba_world_hybrid(model, data, q, v, tau, f_ext, prescribed.data(), qdd.data(), tau_required.data());
  return data.ddq;
}

}  // namespace articula
