// Simulator internals, part 1: the right-hand side, one integration step, the controller,
// sensors and the log rows.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/dynamics/aba.hpp"
#include "articula/dynamics/energy.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {

Simulator::Impl::Impl(Robot& r, SimulationOptions o)
    : robot(r),
      options(std::move(o)),
      model(r.model_ptr()),
      data(*model),
      aux(*model),
      cws(*model),
      fws(*model),
      dws(*model),
      f_ext(static_cast<std::size_t>(model->njoints), Force::Zero()),
      tau(VectorX::Zero(model->nv)),
      q0(model->nq),
      v0(model->nv),
      qa(model->nq),
      va(model->nv),
      runtime_aba(*model, data),
      runtime_constrained(*model, data, cws, r.constraints(), options.method),
      generated_aba(data, generated_calls),
      generated_contacts(data, generated_calls),
      generated_constrained(data, runtime_constrained, generated_calls) {}

bool Simulator::Impl::call_controller() {
  bool ok = false;
  try {
    ok = controller(state.t, state.q, state.v, state.sensors, state.u);
    if (ok && !all_finite(state.u)) {
      failure_message = "the controller returned non-finite commands";
      ok = false;
    } else if (!ok) {
      failure_message = "the controller returned false";
    }
  } catch (const std::exception& e) {
    failure_message = std::string("the controller threw: ") + e.what();
  }
  if (!ok) failure = Failure::Controller;
  lambda_valid = false;
  return ok;
}

// One evaluation of v̇ = f(q, v) (simulator.hpp, "One evaluation").
bool Simulator::Impl::rhs(VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
  const Model& m = *model;
  const bool with_contacts = !robot.contacts().empty() && !dynamics->computes_contacts();
  bool all_kinematics = false;  // data holds the kinematics of (q, v) of every body
  if (with_contacts) {
    if (contact_states) {
      contact_states(q.data(), v.data(), contact_state_buffer.data());
      for (std::size_t f = 0; f < contact_state_bodies.size(); ++f) {
        const double* x = contact_state_buffer.data() + 18 * f;
        const Index b = contact_state_bodies[f];
        data.oMi[b].R = Eigen::Map<const Matrix3>(x);
        data.oMi[b].p = Eigen::Map<const Vector3>(x + 9);
        data.v[b].v = Eigen::Map<const Vector3>(x + 12);
        data.v[b].w = Eigen::Map<const Vector3>(x + 15);
      }
    } else {
      forward_kinematics(m, data, q, v);
      all_kinematics = true;
    }
    std::fill(f_ext.begin(), f_ext.end(), Force::Zero());
    articula::contact_forces(m, data, robot.contacts(), f_ext, state.f_contact);
  }
  if (controller && controller_period == 0.0) {
    bool ok = false;
    try {
      ok = controller(t_eval, q, v, state.sensors, state.u);
    } catch (const std::exception& e) {
      failure_message = std::string("the controller threw: ") + e.what();
    }
    if (!ok || !all_finite(state.u)) {
      failure = Failure::Controller;
      if (failure_message.empty()) failure_message = "the controller failed or returned non-finite commands";
      return false;
    }
  }
  tau.noalias() = -m.damping.cwiseProduct(v);  // URDF <dynamics damping>
  const auto& motors = robot.motors();
  for (std::size_t k = 0; k < motors.size(); ++k) {
    const Motor& motor = motors[k];
    // After a stop signal (brakes.cpp): a cut drive applies no command, a decelerating one
    // its effort limit against the motion, a holding one its torque through the brake's lock
    // (the multiplier λ, reported as its torque by update_brake_outputs); the motor's own
    // friction stays.
    double u = state.u[static_cast<Eigen::Index>(k)];
    if (drive[k] == Drive::Cut || drive[k] == Drive::Hold) u = 0.0;
    if (drive[k] == Drive::Decelerate) u = -drive_sign[k] * motor.effort_limit;
    const double e = motor.effort(u, v[motor.dof]);
    state.tau_motor[static_cast<Eigen::Index>(k)] = e;
    tau[motor.dof] += e;
  }
  // Slipping friction brakes: −torque·s, s = sign(q̇) fixed over the segment (brakes.cpp).
  for (std::size_t k = 0; k < brake_run.size(); ++k)
    if (brake_run[k].state == BrakeState::Slipping)
      tau[brake_run[k].iv] -= robot.brakes()[k].torque * brake_run[k].sign;
  const std::span<const Force> fe = with_contacts ? std::span<const Force>(f_ext) : std::span<const Force>();
  ++dynamics_calls;
  const DynamicsResult r = dynamics->evaluate(q, v, tau, fe, failure_message);
  // With contacts the kinematics of (q, v) were computed above (unless by body_states, for the
  // contacts' bodies only); a generated kernel leaves them.
  data_stage = r.kinematics_current || all_kinematics ? DataStage::KinematicsCurrent : DataStage::AccelerationsOnly;
  if (!r.ok) {
    failure = Failure::Solver;
    return false;
  }
  if (!all_finite(data.ddq)) {
    failure = Failure::NonFinite;
    Eigen::Index k = 0;
    while (k + 1 < data.ddq.size() && std::isfinite(data.ddq[k])) ++k;
    failure_message = "non-finite acceleration of joint '" + m.joint_names[static_cast<std::size_t>(m.dof_joint[k])] +
                      "' (a body without mass or inertia, or a state or force too large?)";
    return false;
  }
  vdot = data.ddq;
  return true;
}

bool Simulator::Impl::step(double h_limit, double& h_taken, RunResult& result) {
  const SimulationOptions& o = options;
  q0 = state.q;
  v0 = state.v;
  t_eval = state.t;
  reuse_first = cache_valid;
  cache_valid = false;
  const bool reusing = reuse_first;
  if (o.integrator == Integrator::DormandPrince) {
    if (h_adaptive <= 0) h_adaptive = std::min(o.dt, o.adaptive.max_step);
    const AdaptiveStepResult r = dopri5_step(*model, f, h_adaptive, h_limit, state.q, state.v, dws, o.adaptive);
    result.evaluations += r.evaluations;
    result.rejected += r.rejected;
    if (!r.ok) {
      if (!r.f_failed) {
        failure = Failure::None;
        std::ostringstream s;
        s << "Dormand–Prince needed a step below min_step = " << o.adaptive.min_step << " s";
        failure_message = s.str();
      }
      return false;
    }
    h_taken = r.h;
    h_adaptive = r.h_next;
  } else {
    double h = std::min(o.dt, h_limit);
    if (h_limit - o.dt < 1e-9 * o.dt) h = h_limit;  // land on the next scheduled time, no sliver step
    const FixedStepMethod method = fixed_method(o.integrator);
    result.evaluations += method == FixedStepMethod::RK4 ? 4 : 1;
    if (!fixed_step(*model, method, f, h, state.q, state.v, fws)) return false;
    h_taken = h;
  }
  if (reusing && !reuse_first) --result.evaluations;  // the first stage was not evaluated again
  reuse_first = false;
  ++result.steps;
  return true;
}

void Simulator::Impl::refresh_active(bool at_state) {
  ConstraintSet& set = robot.constraints();
  if (at_state && set.references_due()) {
    forward_kinematics(*model, aux, state.q);
    set.capture_references(*model, aux, state.q);
  }
  constrained = set.dim() > 0 || !set.enabled_names().empty();
  // The back end, selected once for this active set: a generated kernel where one applies
  // (with elastic contacts, one that takes external forces), the runtime otherwise.
  const bool with_forces = !robot.contacts().empty();
  const ConstrainedMethod method = options.method;
  if (!constrained && with_forces && generated_contacts.select(robot.contacts(), state.f_contact))
    dynamics = &generated_contacts;  // the contacts' forces inside the kernel
  else if (!constrained)
    dynamics = generated_aba.usable(with_forces) ? static_cast<Dynamics*>(&generated_aba) : &runtime_aba;
  else if ((method == ConstrainedMethod::Auto || method == ConstrainedMethod::RangeSpace) && !set.references_due() &&
           generated_constrained.select(set, with_forces))
    dynamics = &generated_constrained;
  else
    dynamics = &runtime_constrained;
  // Room for the multipliers of this set, whichever back end writes them (outside the steps).
  cws.reserve(set.dim());
  if (instant_lambda.size() < cws.lambda.size()) instant_lambda.setZero(cws.lambda.size());
  lambda_valid = false;
  constraint_rows.assign(constraint_names.size(), -1);
  for (std::size_t i = 0; i < constraint_names.size(); ++i)
    if (set.is_enabled(constraint_names[i])) constraint_rows[i] = set.row_offset(constraint_names[i]);
}

void Simulator::Impl::compute_sensors() {
  const Model& m = *model;
  const auto& sensors = robot.sensors();
  bool kinematics_done = false;
  Eigen::Index c = 0;
  for (std::size_t s = 0; s < sensors.size(); ++s) {
    const Sensor& sensor = sensors[s];
    switch (sensor.type) {
      case SensorType::Encoder: {
        const Index j = sensor_target[s];
        state.sensors[c++] = state.q[m.idx_q[j]];
        state.sensors[c++] = state.v[m.idx_v[j]];
        break;
      }
      case SensorType::Effort:
        state.sensors[c++] = state.tau_motor[sensor_target[s]];
        break;
      case SensorType::Imu: {
        if (!kinematics_done) forward_kinematics(m, aux, state.q, state.v, state.vdot);
        kinematics_done = true;
        const Index f = sensor_target[s];
        const Matrix3 R = frame_placement(m, aux, f).R;
        const Vector3 gyro = frame_velocity(m, aux, f, ReferenceFrame::Local).w;
        // Specific force: what an accelerometer reads, a − g, in the sensor's axes.
        const Vector3 acc = R.transpose() * (frame_classical_acceleration(m, aux, f) - m.gravity.v);
        state.sensors.segment<3>(c) = gyro;
        state.sensors.segment<3>(c + 3) = acc;
        c += 6;
        break;
      }
      case SensorType::Position: {
        if (!kinematics_done) forward_kinematics(m, aux, state.q, state.v, state.vdot);
        kinematics_done = true;
        state.sensors.segment<3>(c) = frame_placement(m, aux, sensor_target[s]).p;
        c += 3;
        break;
      }
      case SensorType::ForceTorque: {
        Vector6 w = Vector6::Zero();
        if (ft_contact[s] >= 0) {
          const ElasticContact& contact = robot.contacts()[static_cast<std::size_t>(ft_contact[s])];
          const Vector3 F = state.f_contact.segment<3>(3 * ft_contact[s]);
          const Vector3 r = frame_placement(m, data, contact.frame_id).R * contact.offset;
          w << F, r.cross(F);
        } else if (ft_constraint[s] >= 0 && constraint_rows[static_cast<std::size_t>(ft_constraint[s])] >= 0) {
          const auto i = static_cast<std::size_t>(ft_constraint[s]);
          // add_sensor() checked the type; a constraint replaced since under the same name is not.
          const auto* fc = dynamic_cast<const FramePairConstraint*>(&robot.constraints().get(constraint_names[i]));
          if (fc == nullptr)
            throw std::invalid_argument("force/torque sensor '" + sensors[s].name + "': constraint '" +
                                        constraint_names[i] + "' is not a frame or loop constraint");
          w = fc->wrench(multipliers().segment(constraint_rows[i], constraint_dims[i]));
        }
        state.sensors.segment<6>(c) = w;
        c += 6;
        break;
      }
    }
  }
}

namespace {

// Coordinate / velocity suffixes of a joint's components in log columns.
std::vector<std::string> q_suffixes(JointType type) {
  switch (type) {
    case JointType::FreeFlyer:
      return {".x", ".y", ".z", ".qx", ".qy", ".qz", ".qw"};
    case JointType::Spherical:
      return {".qx", ".qy", ".qz", ".qw"};
    default:
      return {""};
  }
}
std::vector<std::string> v_suffixes(JointType type) {
  switch (type) {
    case JointType::FreeFlyer:
      return {".vx", ".vy", ".vz", ".wx", ".wy", ".wz"};
    case JointType::Spherical:
      return {".wx", ".wy", ".wz"};
    default:
      return {""};
  }
}

}  // namespace

std::vector<std::string> Simulator::Impl::columns() const {
  const Model& m = *model;
  std::vector<std::string> out{"t"};
  for (const char* prefix : {"q.", "v.", "a."})
    for (Index j = 0; j < m.njoints; ++j)
      for (const auto& s : (prefix[0] == 'q' ? q_suffixes : v_suffixes)(m.joint_types[j]))
        out.push_back(prefix + m.joint_names[j] + s);
  for (const Motor& motor : robot.motors()) out.push_back("u." + motor.name);
  for (const Motor& motor : robot.motors()) out.push_back("tau." + motor.name);
  for (const auto& c : sensor_channels()) out.push_back("sensor." + c);
  for (std::size_t i = 0; i < constraint_names.size(); ++i)
    for (int k = 0; k < constraint_dims[i]; ++k)
      out.push_back("lambda." + constraint_names[i] + "." + std::to_string(k));
  for (const ElasticContact& c : robot.contacts())
    for (const char* axis : {".fx", ".fy", ".fz"}) out.push_back("contact." + c.name + axis);
  for (const char* e : {"energy.kinetic", "energy.potential", "energy.total"}) out.emplace_back(e);
  for (const Brake& b : robot.brakes())
    for (const char* e : {".state", ".torque", ".energy"}) out.push_back("brake." + b.name + e);
  return out;
}

void Simulator::Impl::fill_row(double kinetic, double potential) {
  const Model& m = *model;
  Eigen::Index c = 0;
  row[c++] = state.t;
  row.segment(c, m.nq) = state.q;
  c += m.nq;
  row.segment(c, m.nv) = state.v;
  c += m.nv;
  row.segment(c, m.nv) = state.vdot;
  c += m.nv;
  row.segment(c, state.u.size()) = state.u;
  c += state.u.size();
  row.segment(c, state.tau_motor.size()) = state.tau_motor;
  c += state.tau_motor.size();
  row.segment(c, state.sensors.size()) = state.sensors;
  c += state.sensors.size();
  const auto lambda = multipliers();
  for (std::size_t i = 0; i < constraint_names.size(); ++i) {
    const int d = constraint_dims[i];
    if (constraint_rows[i] >= 0 && constraint_rows[i] + d <= lambda.size())
      row.segment(c, d) = lambda.segment(constraint_rows[i], d);
    else
      row.segment(c, d).setConstant(std::numeric_limits<double>::quiet_NaN());
    c += d;
  }
  row.segment(c, state.f_contact.size()) = state.f_contact;
  c += state.f_contact.size();
  row[c++] = kinetic;
  row[c++] = potential;
  row[c++] = kinetic + potential;
  for (std::size_t k = 0; k < brake_run.size(); ++k) {
    row[c++] = state_code(state.brake_states[k]);
    row[c++] = state.brake_torques[static_cast<Eigen::Index>(k)];
    row[c++] = state.brake_energy[static_cast<Eigen::Index>(k)];
  }
}

void Simulator::Impl::ensure_kinematics(VectorRef q, VectorRef v) {
  if (data_stage == DataStage::KinematicsCurrent) return;
  forward_kinematics(*model, data, q, v);
  data_stage = DataStage::KinematicsCurrent;
}

void Simulator::Impl::log_sample(RunResult& result) {
  // The evaluation made just before every sample (at_instant) left the kinematics of (q, v) in
  // `data`: the energies need no pass of their own, unless a generated kernel made it — then
  // the generated energies, or a kinematics pass.
  if (data_stage != DataStage::KinematicsCurrent && energy_kernel) {
    double energies[2];
    energy_kernel(state.q.data(), state.v.data(), energies);
    fill_row(energies[0], energies[1]);
  } else {
    ensure_kinematics(state.q, state.v);
    articula::mechanical_energy_from_kinematics(*model, data, state.v);
    fill_row(data.kinetic_energy, data.potential_energy);
  }
  const std::span<const double> values(row.data(), static_cast<std::size_t>(row.size()));
  for (auto& sink : sinks) sink->append(values);
  if (options.record_samples) result.samples.push_back(row);
}

}  // namespace articula
