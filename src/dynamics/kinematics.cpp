#include "articula/dynamics/kinematics.hpp"

#include "articula/common/check.hpp"
#include "dynamics/kinematics_pass.hpp"

namespace articula {

namespace {

template <int Level>
ARTICULA_FLATTEN void run_kinematics(const Model& model, Data& data, VectorRef q, const double* v, const double* a) {
  kinematics_pass<Level, double>(model, data, q, v, a);
}

}  // namespace

void forward_kinematics(const Model& model, Data& data, VectorRef q) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  run_kinematics<0>(model, data, q, nullptr, nullptr);
}

void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  run_kinematics<1>(model, data, q, v.data(), nullptr);
}

void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(a, model.nv);
  run_kinematics<2>(model, data, q, v.data(), a.data());
}

void forward_kinematics_bias(const Model& model, Data& data, VectorRef q, VectorRef v) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  run_kinematics<2>(model, data, q, v.data(), nullptr);
}

void update_frame_placements(const Model& model, Data& data) {
  for (std::size_t k = 0; k < model.frames.size(); ++k)
    data.oMf[k] = frame_placement(model, data, static_cast<Index>(k));
}

Transform frame_placement(const Model& model, const Data& data, Index frame) {
  const Frame& f = model.frames.at(frame);
  return f.parent == kWorld ? f.placement : data.oMi[f.parent] * f.placement;
}

Motion frame_velocity(const Model& model, const Data& data, Index frame, ReferenceFrame ref) {
  const Frame& f = model.frames.at(frame);
  if (f.parent == kWorld) return Motion::Zero();
  const Motion v_local = f.placement.act_inv(data.v[f.parent]);
  switch (ref) {
    case ReferenceFrame::Local:
      return v_local;
    case ReferenceFrame::World:
      return data.oMi[f.parent].act(data.v[f.parent]);
    case ReferenceFrame::LocalWorldAligned: {
      const Matrix3 R = data.oMi[f.parent].R * f.placement.R;
      return {R * v_local.v, R * v_local.w};
    }
  }
  return {};
}

Motion frame_acceleration(const Model& model, const Data& data, Index frame, ReferenceFrame ref) {
  const Frame& f = model.frames.at(frame);
  if (f.parent == kWorld) return Motion::Zero();
  // Body-frame components of the spatial acceleration are the time derivative of the
  // body-frame velocity components; the other references follow from d/dt(R x) = R(ω × x + ẋ).
  const Motion a_local = f.placement.act_inv(data.a[f.parent]);
  switch (ref) {
    case ReferenceFrame::Local:
      return a_local;
    case ReferenceFrame::World:
      return data.oMi[f.parent].act(data.a[f.parent]);
    case ReferenceFrame::LocalWorldAligned: {
      const Motion v_local = f.placement.act_inv(data.v[f.parent]);
      const Matrix3 R = data.oMi[f.parent].R * f.placement.R;
      return {R * (a_local.v + v_local.w.cross(v_local.v)), R * a_local.w};
    }
  }
  return {};
}

Vector3 frame_classical_acceleration(const Model& model, const Data& data, Index frame) {
  return frame_acceleration(model, data, frame, ReferenceFrame::LocalWorldAligned).v;
}

}  // namespace articula
