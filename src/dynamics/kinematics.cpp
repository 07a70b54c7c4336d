#include "articula/dynamics/kinematics.hpp"

#include "articula/common/check.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula {

namespace {

// One root-to-leaves pass (RBDA §4.1, eqs. 4.1–4.8): placements, and with Level ≥ 1 body
// velocities v_i = ⁱX_λ v_λ + S q̇, with Level 2 accelerations a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇
// (a = nullptr: q̈ = 0, the bias accelerations behind the drift J̇ v). Joint placements go
// through joint_placement() (the axis-aligned fast path).
template <int Level>
ARTICULA_FLATTEN void kinematics_pass(const Model& model, Data& data, VectorRef q, const double* v, const double* a) {
  for (Index i = 0; i < model.njoints; ++i) {
    place_joint(model, data, q, i);
    const Transform& X = data.liMi[i];
    const Index p = model.parents[i];
    if constexpr (Level >= 1) {
      Motion& vi = data.v[i];
      const int k = joint_axis_index(model, i);
      const int iv = model.idx_v[i];
      if (k >= 0) {
        // Axis ±e_k: S q̇ has one entry σ q̇ in the angular (revolute) or linear (prismatic)
        // half, and v_i × S q̇ is a swap of two components (add_axis_joint_motion).
        if (p == kWorld)
          vi = Motion::Zero();
        else
          vi = X.act_inv(data.v[p]);
        Motion* ai = nullptr;
        if constexpr (Level >= 2) {
          ai = &data.a[i];
          if (p == kWorld)
            *ai = Motion::Zero();
          else
            *ai = X.act_inv(data.a[p]);
        }
        add_axis_joint_motion<true>(model, i, k, v[iv], a != nullptr ? a + iv : nullptr, vi, ai);
        continue;
      }
      const Eigen::Map<const VectorX> vv(v, model.nv);
      const Motion vJ = joint_motion(model, i, vv);
      vi = p == kWorld ? vJ : X.act_inv(data.v[p]) + vJ;
      if constexpr (Level >= 2) {
        Motion& ai = data.a[i];
        ai = vi.cross(vJ);
        if (p != kWorld) ai += X.act_inv(data.a[p]);
        if (a != nullptr) ai += joint_motion(model, i, Eigen::Map<const VectorX>(a, model.nv));
      }
    }
  }
}

}  // namespace

void forward_kinematics(const Model& model, Data& data, VectorRef q) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  kinematics_pass<0>(model, data, q, nullptr, nullptr);
}

void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  kinematics_pass<1>(model, data, q, v.data(), nullptr);
}

void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(a, model.nv);
  kinematics_pass<2>(model, data, q, v.data(), a.data());
}

void forward_kinematics_bias(const Model& model, Data& data, VectorRef q, VectorRef v) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  kinematics_pass<2>(model, data, q, v.data(), nullptr);
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
