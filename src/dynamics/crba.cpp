#include "articula/dynamics/crba.hpp"

#include "articula/common/check.hpp"
#include "dynamics/crba_passes.hpp"

namespace articula {

namespace {

// The runtime's instantiations, in world coordinates (dynamics/crba_passes.hpp), flattened.
ARTICULA_FLATTEN void crba_world(const Model& model, Data& data, VectorRef q) {
  crba_passes<double, Coordinates::World>(model, data, q);
}

ARTICULA_FLATTEN void composite_world(const Model& model, Data& data) {
  for (Index i = 0; i < model.njoints; ++i) data.Ycrb[i] = model.inertias[i].transformed(data.oMi[i]);
  crba_composite_pass<double, Coordinates::World>(model, data);
}

}  // namespace

// CRBA (RBDA §6.2, Table 6.2) in world coordinates (dynamics/crba_passes.hpp).
const MatrixX& crba(const Model& model, Data& data, VectorRef q) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  crba_world(model, data, q);
  return data.M;
}

const MatrixX& crba_from_kinematics(const Model& model, Data& data) {
  composite_world(model, data);
  return data.M;
}

}  // namespace articula
