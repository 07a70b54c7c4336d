#include "articula/dynamics/jacobian.hpp"

#include "articula/common/check.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula {

const MatrixX& compute_joint_jacobians(const Model& model, Data& data, VectorRef q) {
  forward_kinematics(model, data, q);
  update_joint_jacobians(model, data);
  return data.J;
}

void update_joint_jacobians(const Model& model, Data& data) {
  for (Index i = 0; i < model.njoints; ++i) joint_world_subspace(model, i, data.oMi[i], data.J);
}

void frame_jacobian(const Model& model, const Data& data, Index frame, ReferenceFrame ref, Eigen::Ref<MatrixX> J) {
  ARTICULA_CHECK(frame >= 0 && frame < static_cast<Index>(model.frames.size()),
                 "frame index " << frame << " out of range");
  ARTICULA_CHECK(J.rows() == 6 && J.cols() == model.nv,
                 "J is " << J.rows() << "×" << J.cols() << ", expected 6×" << model.nv);
  J.setZero();
  const Frame& f = model.frames[frame];
  if (f.parent == kWorld) return;
  const Transform oMf = data.oMi[f.parent] * f.placement;
  for (Index j = f.parent; j != kWorld; j = model.parents[j]) {
    const int jv = model.idx_v[j];
    for (int c = jv; c < jv + model.nv_joint[j]; ++c) {
      const Motion col = Motion::from(data.J.col(c));
      switch (ref) {
        case ReferenceFrame::World:
          J.col(c) = col.vector();
          break;
        case ReferenceFrame::Local:
          J.col(c) = oMf.act_inv(col).vector();
          break;
        case ReferenceFrame::LocalWorldAligned:
          // Velocity of the frame origin: v_O + ω × p.
          J.col(c).head<3>() = col.v + col.w.cross(oMf.p);
          J.col(c).tail<3>() = col.w;
          break;
      }
    }
  }
}

MatrixX frame_jacobian(const Model& model, Data& data, VectorRef q, Index frame, ReferenceFrame ref) {
  compute_joint_jacobians(model, data, q);
  MatrixX J(6, model.nv);
  frame_jacobian(model, data, frame, ref, J);
  return J;
}

}  // namespace articula
