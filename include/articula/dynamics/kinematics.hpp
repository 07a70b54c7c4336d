#pragma once
/// Forward kinematics and frame quantities (RBDA §4.1, eqs. 4.1–4.8).
#include "articula/model/data.hpp"

namespace articula {

/// Where a 6D frame quantity is expressed.
/// - World: spatial vector in world axes about the world origin (Plücker, "spatial" velocity);
/// - Local: in the frame's own axes about its origin ("body" velocity);
/// - LocalWorldAligned: about the frame's origin, in world axes (classical linear velocity
///   of the origin and angular velocity, both in world coordinates).
enum class ReferenceFrame { World, Local, LocalWorldAligned };

/// Body placements: data.liMi, data.oMi. Cost O(n).
void forward_kinematics(const Model& model, Data& data, VectorRef q);
/// Also body velocities data.v (body frame).
void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v);
/// Also body accelerations data.a (body frame, gravity excluded): a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇.
void forward_kinematics(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a);
/// The same at q̈ = 0: data.a holds the bias accelerations, from which the frame drifts J̇ v follow.
void forward_kinematics_bias(const Model& model, Data& data, VectorRef q, VectorRef v);

/// data.oMf for every frame (needs forward_kinematics). Cost O(frames).
void update_frame_placements(const Model& model, Data& data);
/// Pose of one frame in the world from data.oMi (needs forward_kinematics).
Transform frame_placement(const Model& model, const Data& data, Index frame);
/// Spatial velocity of a frame (needs forward_kinematics with v).
Motion frame_velocity(const Model& model, const Data& data, Index frame, ReferenceFrame ref);
/// d/dt of frame_velocity() in the same reference (needs forward_kinematics with v and a).
/// With a = 0 this is the drift J̇ v of frame_jacobian() in that reference.
Motion frame_acceleration(const Model& model, const Data& data, Index frame, ReferenceFrame ref);
/// Classical linear acceleration of the frame origin, world axes: R (a_lin + ω × v_lin).
Vector3 frame_classical_acceleration(const Model& model, const Data& data, Index frame);

}  // namespace articula
