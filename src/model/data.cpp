#include "articula/model/data.hpp"

namespace articula {

Data::Data(const Model& model)
    : liMi(model.njoints),
      oMi(model.njoints),
      v(model.njoints),
      a(model.njoints),
      a_gf(model.njoints),
      oMf(model.frames.size()),
      f(model.njoints),
      tau(VectorX::Zero(model.nv)),
      h(VectorX::Zero(model.nv)),
      g(VectorX::Zero(model.nv)),
      Ycrb(model.njoints),
      M(MatrixX::Zero(model.nv, model.nv)),
      Lfact(VectorX::Zero(model.ancestor_offset.empty() ? 0 : model.ancestor_offset.back())),
      Dfact(VectorX::Zero(model.nv)),
      Dinv_fact(VectorX::Zero(model.nv)),
      IA(model.njoints, Matrix6::Zero()),
      pA(model.njoints),
      U(MatrixX::Zero(6, model.nv)),
      Dinv(model.njoints, Matrix6::Zero()),
      u(VectorX::Zero(model.nv)),
      ddq(VectorX::Zero(model.nv)),
      J(MatrixX::Zero(6, model.nv)),
      Jcom(MatrixX::Zero(3, model.nv)),
      momentum(VectorX::Zero(model.nv)),
      tmp_nv(VectorX::Zero(model.nv)),
      subtree_mass(model.njoints, 0.0),
      subtree_h(model.njoints, Vector3::Zero()) {}

}  // namespace articula
