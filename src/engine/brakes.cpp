// Simulator internals, part 4: brakes (docs/brakes.md). Each brake owns a JointLock named as
// the brake; its switches are guard events of the simulator's own, located by the same
// bisection as every guard (simulator_run.cpp) and applied in apply_events():
//   engage   g = t − t_engage (the steps land on t_engage)            → slip, stick or lock
//   stick    g = s·q̇ while slipping in direction s (falling zero)    → lock on, no jump (q̇ = 0)
//   release  g = |λ| − static_torque while stuck (rising zero)        → lock off, slip
//   overload g = |λ| − torque while a pin brake is locked             → reported, lock stays
// and the drives' category-1 switches (one per motor):
//   standstill g = s·q̇ while decelerating in direction s (falling zero) → drive cut, brake armed
//   saturate   g = |λ| − effort_limit while holding (rising zero)         → decelerates at the limit
// The slip torque −torque·s is exact between events: s is fixed per segment (a mode of the
// hybrid system; Pfeiffer & Glocker, "Multibody Dynamics with Unilateral Contacts", 1996, §5:
// stick–slip transitions of Coulomb friction as switches between a sliding and a sticking
// constraint state, the sticking one leaving when its force reaches the friction limit).
// A friction brake transmits a bounded torque, hence no impulse: when another constraint
// switches on with a velocity jump, the stuck friction brakes leave the jump's active set
// (they slip through the impact) and re-stick afterwards if their joint is still at rest.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "articula/constraints/joint_lock.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
namespace {

double sign_of(double x) { return x > 0 ? 1.0 : -1.0; }

EventAction brake_action(const std::string& target, int what, std::size_t index) {
  EventAction a;
  a.kind = EventAction::Kind::Brake;
  a.target = target;
  a.category = what;
  a.value = static_cast<double>(index);
  return a;
}

}  // namespace

void Simulator::Impl::add_brakes() {
  const Model& m = *model;
  ConstraintSet& set = robot.constraints();
  const auto& brakes = robot.brakes();
  brake_run.assign(brakes.size(), BrakeRun{});
  drive.assign(robot.motors().size(), Drive::On);
  drive_sign.assign(robot.motors().size(), 0.0);
  drive_brake.assign(robot.motors().size(), -1);
  drive_held.assign(robot.motors().size(), 0);
  lambda_q.resize(m.nq);
  lambda_v.resize(m.nv);
  lambda_vdot.resize(m.nv);
  lambda_all = VectorX::Zero(static_cast<Eigen::Index>(brakes.size()));
  state.brake_states.assign(brakes.size(), BrakeState::Released);
  state.brake_torques = VectorX::Zero(static_cast<Eigen::Index>(brakes.size()));
  state.brake_energy = VectorX::Zero(static_cast<Eigen::Index>(brakes.size()));
  if (brakes.empty()) return;
  registering = true;
  for (std::size_t k = 0; k < brakes.size(); ++k) {
    const Brake& b = brakes[k];
    BrakeRun& r = brake_run[k];
    const Index j = m.joint_id(b.joint);
    r.iq = m.idx_q[j];
    r.iv = m.idx_v[j];
    for (std::size_t i = 0; i < robot.motors().size(); ++i)
      if (robot.motors()[i].joint == b.joint) r.motor = static_cast<int>(i);
    if (r.motor >= 0) drive_brake[static_cast<std::size_t>(r.motor)] = static_cast<int>(k);
    if (!set.contains(b.name)) {
      set.add(std::make_shared<JointLock>(b.name, std::vector<std::string>{b.joint}), false);
    } else if (dynamic_cast<const JointLock*>(&set.get(b.name)) == nullptr) {
      throw std::invalid_argument("brake '" + b.name +
                                  "': a constraint of that name exists and is not a joint lock (the brake's lock "
                                  "takes the brake's name)");
    }
    Event engage;
    engage.name = b.name + ".engage";
    engage.direction = 1;
    engage.repeat = true;
    engage.guard = [this, k](double t, VectorRef, VectorRef) {
      const BrakeRun& s = brake_run[k];
      return s.state == BrakeState::Engaging ? t - s.t_engage : -1.0;
    };
    engage.actions = {brake_action(b.name, Engage, k)};
    add_event(std::move(engage));
    if (b.kind == BrakeKind::Friction) {
      Event stick;
      stick.name = b.name + ".stick";
      stick.direction = -1;
      stick.repeat = true;
      stick.guard = [this, k](double, VectorRef, VectorRef v) {
        const BrakeRun& s = brake_run[k];
        return s.state == BrakeState::Slipping ? s.sign * v[s.iv] : 1.0;
      };
      stick.actions = {brake_action(b.name, Stick, k)};
      add_event(std::move(stick));
      Event release;
      release.name = b.name + ".release";
      release.direction = 1;
      release.repeat = true;
      release.guard = [this, k](double, VectorRef q, VectorRef v) {
        const BrakeRun& s = brake_run[k];
        if (s.state != BrakeState::Stuck || !brake_locked(s)) return -1.0;
        return std::abs(brake_lambda(k, q, v)) - robot.brakes()[k].static_torque;
      };
      release.actions = {brake_action(b.name, Release, k)};
      add_event(std::move(release));
    } else if (std::isfinite(b.torque)) {
      Event overload;
      overload.name = b.name + ".overload";
      overload.direction = 1;
      overload.repeat = true;
      overload.guard = [this, k](double, VectorRef q, VectorRef v) {
        const BrakeRun& s = brake_run[k];
        if (s.state != BrakeState::Locked || !brake_locked(s)) return -1.0;
        return std::abs(brake_lambda(k, q, v)) - robot.brakes()[k].torque;
      };
      overload.actions = {brake_action(b.name, Overload, k)};
      add_event(std::move(overload));
    }
  }
  // Category-1 stops: each decelerating drive's standstill, and the deadline.
  for (std::size_t i = 0; i < robot.motors().size(); ++i) {
    const Motor& motor = robot.motors()[i];
    Event standstill;
    standstill.name = "drive." + motor.name + ".standstill";
    standstill.direction = -1;
    standstill.repeat = true;
    standstill.guard = [this, i, dof = motor.dof](double, VectorRef, VectorRef v) {
      return drive[i] == Drive::Decelerate ? drive_sign[i] * v[dof] : 1.0;
    };
    standstill.actions = {brake_action(motor.name, Standstill, i)};
    add_event(std::move(standstill));
    if (drive_brake[i] < 0) continue;
    // A holding drive saturates when the torque the hold needs, the lock's multiplier λ,
    // reaches the effort limit (evaluated as the release guard of a stuck brake).
    Event saturate;
    saturate.name = "drive." + motor.name + ".saturate";
    saturate.direction = 1;
    saturate.repeat = true;
    saturate.guard = [this, i](double, VectorRef q, VectorRef v) {
      const auto k = static_cast<std::size_t>(drive_brake[i]);
      if (drive[i] != Drive::Hold || !brake_locked(brake_run[k])) return -1.0;
      return std::abs(brake_lambda(k, q, v)) - robot.motors()[i].effort_limit;
    };
    saturate.actions = {brake_action(motor.name, Saturate, i)};
    add_event(std::move(saturate));
  }
  Event deadline;
  deadline.name = "stop_signal.max_time";
  deadline.direction = 1;
  deadline.repeat = true;
  deadline.guard = [this](double t, VectorRef, VectorRef) {
    return std::isfinite(cat1_deadline) ? t - cat1_deadline : -1.0;
  };
  deadline.actions = {brake_action("stop_signal", Deadline, 0)};
  add_event(std::move(deadline));
  registering = false;
}

double Simulator::Impl::brake_lambda(std::size_t k, VectorRef q, VectorRef v) {
  if (!lambda_valid || lambda_q != q || lambda_v != v) {
    lambda_q = q;
    lambda_v = v;
    lambda_valid = true;
    if (!rhs(q, v, lambda_vdot)) {
      lambda_all.setConstant(std::numeric_limits<double>::quiet_NaN());
      return lambda_all[static_cast<Eigen::Index>(k)];
    }
    const auto lambda = multipliers();
    for (std::size_t i = 0; i < brake_run.size(); ++i) {
      const int row = brake_locked(brake_run[i]) ? constraint_rows[static_cast<std::size_t>(brake_run[i].column)] : -1;
      lambda_all[static_cast<Eigen::Index>(i)] = row >= 0 && row < lambda.size() ? lambda[row] : 0.0;
    }
  }
  return lambda_all[static_cast<Eigen::Index>(k)];
}

void Simulator::Impl::start_brakes() {
  for (std::size_t k = 0; k < brake_run.size(); ++k) {
    BrakeRun& r = brake_run[k];
    r.column = -1;
    for (std::size_t c = 0; c < constraint_names.size(); ++c)
      if (constraint_names[c] == robot.brakes()[k].name) r.column = static_cast<int>(c);
  }
  lambda_valid = false;
}

double Simulator::Impl::next_brake_time(double t) const {
  double next = std::numeric_limits<double>::infinity();
  for (const BrakeRun& r : brake_run)
    if (r.state == BrakeState::Engaging && r.t_engage > t) next = std::min(next, r.t_engage);
  if (cat1_deadline > t) next = std::min(next, cat1_deadline);
  return next;
}

void Simulator::Impl::accumulate_brake_energy() {
  // ∫ torque·|q̇| dt = torque·s·(q(t₁) − q(t₀)) while q̇ keeps the sign s (a located stick ends
  // the segment first): exact for the integrated q, no quadrature error.
  for (std::size_t k = 0; k < brake_run.size(); ++k) {
    const BrakeRun& r = brake_run[k];
    if (r.state == BrakeState::Slipping)
      state.brake_energy[static_cast<Eigen::Index>(k)] +=
          robot.brakes()[k].torque * r.sign * (state.q[r.iq] - q0[r.iq]);
  }
}

void Simulator::Impl::brake_actions(const std::vector<int>& firing, std::vector<std::string>& enables) {
  const auto& brakes = robot.brakes();
  auto lock = [&](std::size_t k) {
    const std::string& name = brakes[k].name;
    if (std::find(enables.begin(), enables.end(), name) == enables.end()) enables.push_back(name);
  };
  auto engage = [&](std::size_t k) {
    BrakeRun& r = brake_run[k];
    r.t_engage = std::numeric_limits<double>::infinity();
    if (brakes[k].kind == BrakeKind::Pin) {
      r.state = BrakeState::Locked;
      lock(k);
    } else if (state.v[r.iv] == 0.0) {
      r.state = BrakeState::Stuck;  // at rest: sticks at once (release_brakes checks the hold)
      lock(k);
    } else {
      r.state = BrakeState::Slipping;
      r.sign = sign_of(state.v[r.iv]);
    }
  };
  auto arm = [&](std::size_t k) {
    BrakeRun& r = brake_run[k];
    if (r.state != BrakeState::Released) return;
    r.state = BrakeState::Engaging;
    r.t_engage = state.t + brakes[k].delay;
    if (brakes[k].delay == 0.0) engage(k);
  };
  auto arm_joint_of = [&](std::size_t motor) {
    for (std::size_t k = 0; k < brake_run.size(); ++k)
      if (brake_run[k].motor == static_cast<int>(motor)) arm(k);
  };
  // The stop is achieved: the holding drives are cut (their locks off) and their brakes armed.
  auto end_holds = [&]() {
    for (std::size_t m = 0; m < drive.size(); ++m) {
      if (drive[m] != Drive::Hold) continue;
      drive[m] = Drive::Cut;
      const auto k = static_cast<std::size_t>(drive_brake[m]);
      const std::string& name = brakes[k].name;
      enables.erase(std::remove(enables.begin(), enables.end(), name), enables.end());
      if (robot.constraints().is_enabled(name)) deactivate_constraints(robot.constraints(), {name});
      arm(k);
    }
  };
  auto stop_achieved = [&]() {
    if (std::none_of(drive.begin(), drive.end(), [](Drive d) { return d == Drive::Decelerate; })) end_holds();
  };
  auto deadline = [&]() {
    cat1_deadline = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < drive.size(); ++i)
      if (drive[i] == Drive::Decelerate) drive[i] = Drive::Cut;
    end_holds();
    for (std::size_t k = 0; k < brake_run.size(); ++k) arm(k);
  };
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions) {
      if (a.kind == EventAction::Kind::StopSignal) {
        lambda_valid = false;
        if (a.category == 0) {
          for (auto& d : drive) d = Drive::Cut;
          for (std::size_t k = 0; k < brake_run.size(); ++k) arm(k);
          continue;
        }
        // Category 1 (IEC 60204-1 §9.2.2: "a controlled stop with power available to the
        // machine actuators to achieve the stop and then removal of power when the stop is
        // achieved"). Each moving joint's drive decelerates it at its effort limit; its brake
        // is armed at its standstill. A joint at rest keeps its powered drive, which holds it
        // (Drive::Hold) until the stop is achieved, i.e. until no drive decelerates any more
        // (or the deadline); then those drives are cut and their brakes armed.
        //
        // The hold is a servo drive's velocity loop with reference 0 and its torque saturated
        // at the effort limit, in its high-gain limit: the joint's velocity stays exactly 0
        // while the torque this takes is within the limit, and the drive applies the limit
        // against the motion once it is not. That limit of u = −U·sign(q̇) is Filippov's
        // sliding mode on q̇ = 0 with Utkin's equivalent control (A. F. Filippov, "Differential
        // Equations with Discontinuous Righthand Sides", 1988; V. I. Utkin, "Sliding Modes in
        // Control and Optimization", 1992, the equivalent-control method): the torque on the
        // mode is the one that keeps q̇ = 0. In the engine that is a constraint with a bounded multiplier, as a
        // stuck friction brake is: the joint's brake lock is switched on (no jump: q̇ = 0), its
        // multiplier λ is the drive's torque, and |λ| reaching effort_limit (guard
        // `drive.<motor>.saturate`) switches it off and the drive to Decelerate at the limit
        // in the direction −sign(λ) the joint starts to move; at its standstill it holds again
        // if another drive still decelerates (otherwise the stop is achieved there: it is cut
        // and its brake armed). A joint with a motor but no brake has no lock to hold with: its
        // drive is cut at the signal.
        bool moving = false;
        for (std::size_t m = 0; m < drive.size(); ++m)
          moving = moving || (drive[m] == Drive::On && state.v[robot.motors()[m].dof] != 0.0);
        for (std::size_t m = 0; m < drive.size(); ++m) {
          if (drive[m] != Drive::On) continue;
          const double qd = state.v[robot.motors()[m].dof];
          const int k = drive_brake[m];
          if (qd != 0.0) {
            drive[m] = Drive::Decelerate;
            drive_sign[m] = sign_of(qd);
          } else if (moving && k >= 0 && brake_run[static_cast<std::size_t>(k)].state == BrakeState::Released) {
            drive[m] = Drive::Hold;
            drive_held[m] = 1;
            lock(static_cast<std::size_t>(k));
          } else {
            drive[m] = Drive::Cut;
          }
        }
        for (std::size_t k = 0; k < brake_run.size(); ++k) {
          const int m = brake_run[k].motor;
          if (m < 0) {
            arm(k);
            continue;
          }
          const Drive d = drive[static_cast<std::size_t>(m)];
          if (d != Drive::Decelerate && d != Drive::Hold) arm(k);
        }
        cat1_deadline = state.t + a.value;
        if (a.value == 0.0) deadline();
        continue;
      }
      if (a.kind != EventAction::Kind::Brake) continue;
      lambda_valid = false;
      const auto k = static_cast<std::size_t>(a.value);
      switch (a.category) {
        case Engage:
          if (brake_run[k].state == BrakeState::Engaging) engage(k);
          break;
        case Stick:
          if (brake_run[k].state == BrakeState::Slipping) {
            brake_run[k].state = BrakeState::Stuck;
            lock(k);
          }
          break;
        case Release:
          if (brake_run[k].state == BrakeState::Stuck && brake_locked(brake_run[k])) {
            // The joint starts to move against the lock's torque λ: direction −sign(λ).
            const double lambda = brake_lambda(k, state.q, state.v);
            deactivate_constraints(robot.constraints(), {brakes[k].name});
            brake_run[k].state = BrakeState::Slipping;
            brake_run[k].sign = -sign_of(lambda);
          }
          break;
        case Overload:
          brake_run[k].overloaded = true;
          break;
        case Standstill:
          if (drive[k] == Drive::Decelerate) {
            bool others = false;
            for (std::size_t m = 0; m < drive.size(); ++m) others = others || (m != k && drive[m] == Drive::Decelerate);
            const int b = drive_brake[k];
            if (drive_held[k] && others && b >= 0 &&
                brake_run[static_cast<std::size_t>(b)].state == BrakeState::Released) {
              drive[k] = Drive::Hold;  // a held joint pushed off its hold: held again at rest
              lock(static_cast<std::size_t>(b));
            } else {
              drive[k] = Drive::Cut;
              arm_joint_of(k);
              stop_achieved();
            }
          }
          break;
        case Saturate: {
          const int b = drive_brake[k];
          if (drive[k] == Drive::Hold && b >= 0 && brake_locked(brake_run[static_cast<std::size_t>(b)])) {
            // The joint starts to move against the hold's torque λ: direction −sign(λ).
            const double lambda = brake_lambda(static_cast<std::size_t>(b), state.q, state.v);
            deactivate_constraints(robot.constraints(), {brakes[static_cast<std::size_t>(b)].name});
            drive[k] = Drive::Decelerate;
            drive_sign[k] = -sign_of(lambda);
          }
          break;
        }
        case Deadline:
          deadline();
          break;
        default:
          break;
      }
    }
}

void Simulator::Impl::update_brake_outputs() {
  const auto& brakes = robot.brakes();
  const auto lambda = multipliers();
  for (std::size_t k = 0; k < brake_run.size(); ++k) {
    const BrakeRun& r = brake_run[k];
    state.brake_states[k] = r.state;
    double torque = 0.0;
    if (r.state == BrakeState::Slipping) {
      torque = -brakes[k].torque * r.sign;
    } else if (brake_locked(r)) {
      const int row = constraint_rows[static_cast<std::size_t>(r.column)];
      if (row < lambda.size()) torque = lambda[row];
      if (drive_holds(r)) {
        // The lock holds for the drive: λ is the drive's torque, not the brake's.
        const Motor& motor = robot.motors()[static_cast<std::size_t>(r.motor)];
        state.tau_motor[r.motor] = motor.effort(0.0, state.v[motor.dof]) + torque;
        torque = 0.0;
      }
    }
    state.brake_torques[static_cast<Eigen::Index>(k)] = torque;
  }
}

}  // namespace articula
