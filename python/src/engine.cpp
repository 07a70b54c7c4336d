// Robot (motors, sensors, contacts), Simulator with Python controllers, guards and progress
// callbacks, events, run results; the GIL is released during a run and taken for each callback.
#include <signal.h>

#include <atomic>

#include "common.hpp"

namespace articula::python {
namespace {

std::atomic<Simulator*> g_running{nullptr};
std::atomic<bool> g_signalled{false};
extern "C" void stop_on_signal(int) {
  g_signalled.store(true);
  if (Simulator* s = g_running.load()) s->request_stop();
}

// A controller / guard implemented in C++ (pd_controller, feedback_controller, joint_position_guard …).
struct CppController {
  Controller f;
  std::string what;
};
struct CppGuard {
  Guard f;
};

Controller python_controller(py::object f, int nmotors) {
  PyCallable c(std::move(f));
  return [c, nmotors](double t, VectorRef q, VectorRef v, VectorRef s, Eigen::Ref<VectorX> u) {
    py::gil_scoped_acquire gil;
    const py::object r = c.call("the Python controller", t, to_array(q), to_array(v), to_array(s));
    if (r.is_none()) return true;
    if (py::isinstance<py::bool_>(r)) return r.cast<bool>();
    try {
      Array k = null_array();
      u = vector_arg(r, "the controller's return value (commands, one per motor)", nmotors, k);
    } catch (py::error_already_set& e) {
      throw std::runtime_error(e.what());
    }
    return true;
  };
}

Controller controller_arg(const py::object& c, const Robot& robot) {
  if (py::isinstance<CppController>(c)) return c.cast<const CppController&>().f;
  return python_controller(c, static_cast<int>(robot.motors().size()));
}

Guard guard_arg(const py::object& g) {
  if (g.is_none()) return nullptr;
  if (py::isinstance<CppGuard>(g)) return g.cast<const CppGuard&>().f;
  PyCallable c(g);
  return [c](double t, VectorRef q, VectorRef v) {
    py::gil_scoped_acquire gil;
    const py::object r = c.call("a Python guard", t, to_array(q), to_array(v));
    try {
      return r.cast<double>();
    } catch (py::cast_error&) {
      throw std::runtime_error("a Python guard returned " + std::string(py::str(r)) + ", expected a number");
    }
  };
}

py::array_t<double> samples(const std::vector<VectorX>& rows, std::size_t ncols) {
  py::array_t<double> a({rows.size(), ncols});
  auto r = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < ncols; ++j)
      r(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(j)) = rows[i][static_cast<Eigen::Index>(j)];
  return a;
}

void def_robot(py::module_& m) {
  py::class_<Motor>(m, "Motor",
                    "A motor on a 1-dof joint: τ = sat(u, effort_limit) − viscous q̇ − coulomb tanh(q̇ / "
                    "coulomb_velocity); armature += gear_ratio² rotor_inertia.")
      .def(py::init([](std::string name, std::string joint, double gear, double rotor, double effort, double viscous,
                       double coulomb, double cv) {
             Motor mo;
             mo.name = std::move(name);
             mo.joint = std::move(joint);
             mo.gear_ratio = gear, mo.rotor_inertia = rotor, mo.effort_limit = effort, mo.viscous = viscous;
             mo.coulomb = coulomb, mo.coulomb_velocity = cv;
             return mo;
           }),
           py::arg("name"), py::arg("joint"), py::arg("gear_ratio") = 1.0, py::arg("rotor_inertia") = 0.0,
           py::arg("effort_limit") = INFINITY, py::arg("viscous") = 0.0, py::arg("coulomb") = 0.0,
           py::arg("coulomb_velocity") = 1e-3,
           "rotor_inertia [kg·m²] motor side, effort_limit [N·m] joint side, viscous [N·m·s/rad], coulomb [N·m], "
           "coulomb_velocity [rad/s].")
      .def_readwrite("name", &Motor::name)
      .def_readwrite("joint", &Motor::joint)
      .def_readwrite("gear_ratio", &Motor::gear_ratio)
      .def_readwrite("rotor_inertia", &Motor::rotor_inertia)
      .def_readwrite("effort_limit", &Motor::effort_limit)
      .def_readwrite("viscous", &Motor::viscous)
      .def_readwrite("coulomb", &Motor::coulomb)
      .def_readwrite("coulomb_velocity", &Motor::coulomb_velocity)
      .def_readonly("dof", &Motor::dof, "Index in v (set by Robot.add_motor).")
      .def("effort", &Motor::effort, py::arg("u"), py::arg("qd"), "τ [N·m] for a command u at joint rate qd.");
  py::enum_<SensorType>(m, "SensorType")
      .value("Encoder", SensorType::Encoder)
      .value("Effort", SensorType::Effort)
      .value("Imu", SensorType::Imu)
      .value("ForceTorque", SensorType::ForceTorque)
      .value("Position", SensorType::Position);
  py::class_<Sensor>(m, "Sensor",
                     "encoder (joint → pos, vel), effort (motor → effort), imu (frame → gyro.x/y/z, acc.x/y/z), "
                     "force_torque (frame constraint or contact → fx..tz), position (frame → x, y, z).")
      .def(py::init([](std::string name, const py::object& type, std::string target) {
             Sensor s;
             s.name = std::move(name);
             s.type =
                 py::isinstance<py::str>(type) ? parse_sensor_type(type.cast<std::string>()) : type.cast<SensorType>();
             s.target = std::move(target);
             return s;
           }),
           py::arg("name"), py::arg("type"), py::arg("target"))
      .def_readwrite("name", &Sensor::name)
      .def_readwrite("type", &Sensor::type)
      .def_readwrite("target", &Sensor::target)
      .def("channels", &Sensor::channels);
  py::class_<Surface>(m, "Surface", "What an elastic contact pushes against: a plane or a height field.")
      .def_static("ground", &Surface::ground, py::arg("height") = 0.0, "The plane z = height [m].")
      .def_static(
          "plane",
          [](const py::object& p, const py::object& n) {
            return Surface::plane(vec3_arg(p, "point"), vec3_arg(n, "normal"));
          },
          py::arg("point"), py::arg("normal"), "A half-space through point (3,) [m] with outward normal (3,).")
      .def_static(
          "height_field",
          [](py::object f) {
            PyCallable c(std::move(f));
            return Surface::height_field([c](double x, double y) {
              py::gil_scoped_acquire gil;
              return c.call("a height field", x, y).cast<double>();
            });
          },
          py::arg("height"), "z = height(x, y) [m] (a Python callable).");
  py::class_<ElasticContact>(m, "ElasticContact",
                             "A contact point on a frame against a surface: f_n = max(0, k δ − d δ̇), regularized "
                             "Coulomb friction.")
      .def(py::init([](std::string name, std::string frame, const py::object& offset, const Surface& surface, double k,
                       double d, double mu, double slip) {
             ElasticContact c;
             c.name = std::move(name);
             c.frame = std::move(frame);
             c.offset = offset.is_none() ? Vector3::Zero() : vec3_arg(offset, "offset");
             c.surface = surface;
             c.stiffness = k, c.damping = d, c.friction = mu, c.slip_velocity = slip;
             return c;
           }),
           py::arg("name"), py::arg("frame"), py::arg("offset") = py::none(), py::arg("surface") = Surface::ground(),
           py::arg("stiffness") = 1e5, py::arg("damping") = 1e3, py::arg("friction") = 1.0,
           py::arg("slip_velocity") = 1e-3,
           "offset (3,) [m] in the frame; stiffness [N/m], damping [N·s/m], friction μ, slip_velocity [m/s].")
      .def_readonly("name", &ElasticContact::name)
      .def_readonly("frame", &ElasticContact::frame)
      .def_readwrite("stiffness", &ElasticContact::stiffness)
      .def_readwrite("damping", &ElasticContact::damping)
      .def_readwrite("friction", &ElasticContact::friction)
      .def_readwrite("slip_velocity", &ElasticContact::slip_velocity);

  py::enum_<BrakeKind>(m, "BrakeKind")
      .value("Friction", BrakeKind::Friction)
      .value("Pin", BrakeKind::Pin)
      .def(
          "__str__", [](BrakeKind k) { return to_string(k); }, py::prepend());
  py::enum_<BrakeState>(m, "BrakeState")
      .value("Released", BrakeState::Released)
      .value("Engaging", BrakeState::Engaging)
      .value("Slipping", BrakeState::Slipping)
      .value("Stuck", BrakeState::Stuck)
      .value("Locked", BrakeState::Locked)
      .def(
          "__str__", [](BrakeState b) { return to_string(b); }, py::prepend());
  py::class_<Brake>(m, "Brake",
                    "A joint brake (docs/brakes.md): friction (slips at torque, sticks at standstill while the held "
                    "torque ≤ static_torque) or pin (locks at engagement with the consistent jump).")
      .def(py::init([](std::string name, std::string joint, const py::object& kind, double delay, double torque,
                       double motor_torque, double static_torque) {
             Brake b;
             b.name = std::move(name);
             b.joint = std::move(joint);
             b.kind =
                 py::isinstance<py::str>(kind) ? parse_brake_kind(kind.cast<std::string>()) : kind.cast<BrakeKind>();
             b.delay = delay, b.torque = torque, b.motor_torque = motor_torque, b.static_torque = static_torque;
             return b;
           }),
           py::arg("name"), py::arg("joint"), py::arg("kind") = "friction", py::arg("delay") = 0.0,
           py::arg("torque") = 0.0, py::arg("motor_torque") = 0.0, py::arg("static_torque") = 0.0,
           "kind 'friction' | 'pin'; delay [s] stop signal → engagement; torque [N·m] at the joint (or motor_torque "
           "[N·m] motor side, times the joint motor's gear_ratio); static_torque [N·m] ≥ torque, 0 = torque.")
      .def_readwrite("name", &Brake::name)
      .def_readwrite("joint", &Brake::joint)
      .def_readwrite("kind", &Brake::kind)
      .def_readwrite("delay", &Brake::delay)
      .def_readwrite("torque", &Brake::torque)
      .def_readwrite("motor_torque", &Brake::motor_torque)
      .def_readwrite("static_torque", &Brake::static_torque)
      .def_readonly("dof", &Brake::dof, "Index in v (set by Robot.add_brake).");

  py::class_<Robot>(m, "Robot",
                    "A model plus motors, sensors, elastic contacts and constraints, all by name. robot.model is the "
                    "model the dynamics use (motor rotor inertia added to the armature); do not modify it.")
      .def(py::init([](const Model& model) { return std::make_unique<Robot>(model); }), py::arg("model"),
           "Robot(model): a copy of the model.")
      .def_static(
          "from_urdf",
          [](const std::string& path, bool floating) {
            try {
              return std::make_unique<Robot>(Robot::from_urdf(path, floating));
            } catch (const std::exception& e) {
              raise(errors().model, e.what());
            }
          },
          py::arg("path"), py::arg("floating") = false)
      .def_property_readonly("model", [](const Robot& r) { return std::const_pointer_cast<Model>(r.model_ptr()); })
      .def_property_readonly(
          "base_model", [](const Robot& r) { return std::make_shared<Model>(r.base_model()); },
          "The model as loaded (a copy).")
      .def(
          "set_gravity", [](Robot& r, const py::object& g) { r.set_gravity(vec3_arg(g, "g")); }, py::arg("g"),
          "Gravity (3,) [m/s²].")
      .def_property_readonly("constraints", py::overload_cast<>(&Robot::constraints),
                             py::return_value_policy::reference_internal)
      .def("add_motor", &Robot::add_motor, py::arg("motor"), py::return_value_policy::copy)
      .def("remove_motor", &Robot::remove_motor, py::arg("name"))
      .def("motor", &Robot::motor, py::arg("name"), py::return_value_policy::copy)
      .def("motor_index", &Robot::motor_index, py::arg("name"))
      .def_property_readonly("motors", &Robot::motors)
      .def("add_sensor", &Robot::add_sensor, py::arg("sensor"), py::return_value_policy::copy)
      .def("remove_sensor", &Robot::remove_sensor, py::arg("name"))
      .def("sensor", &Robot::sensor, py::arg("name"), py::return_value_policy::copy)
      .def_property_readonly("sensors", &Robot::sensors)
      .def("add_contact", &Robot::add_contact, py::arg("contact"), py::return_value_policy::copy)
      .def("remove_contact", &Robot::remove_contact, py::arg("name"))
      .def("contact", &Robot::contact, py::arg("name"), py::return_value_policy::copy)
      .def("contact_index", &Robot::contact_index, py::arg("name"))
      .def_property_readonly("contacts", &Robot::contacts)
      .def("add_brake", &Robot::add_brake, py::arg("brake"), py::return_value_policy::copy,
           "Adds a brake; returns it resolved (dof, torque, static_torque). ValueError names the brake.")
      .def("remove_brake", &Robot::remove_brake, py::arg("name"))
      .def("brake", &Robot::brake, py::arg("name"), py::return_value_policy::copy)
      .def_property_readonly("brakes", &Robot::brakes);
}

void def_events(py::module_& m) {
  py::class_<CppController>(m, "CppController", "A controller implemented in C++ (called without the GIL).")
      .def("__repr__", [](const CppController& c) { return "<CppController " + c.what + ">"; });
  py::class_<CppGuard>(m, "CppGuard", "A guard implemented in C++.");
  m.def(
      "pd_controller",
      [](const Robot& robot, const std::map<std::string, double>& targets, double kp, double kd) {
        std::vector<std::pair<std::string, double>> t(targets.begin(), targets.end());
        return CppController{pd_controller(robot, t, kp, kd), "pd"};
      },
      py::arg("robot"), py::arg("targets"), py::arg("kp"), py::arg("kd"), py::keep_alive<0, 1>(),
      "C++ PD: u = kp (q* − q) − kd q̇ on the motor of each joint in targets {joint: q* [rad]}; kp [N·m/rad], "
      "kd [N·m·s/rad].");
  m.def(
      "feedback_controller",
      [](const Robot& robot, const std::vector<std::tuple<std::string, std::string, double, double>>& terms,
         const std::map<std::string, double>& bias) {
        std::vector<FeedbackTerm> t;
        for (const auto& [motor, signal, gain, target] : terms) t.push_back({motor, signal, gain, target});
        std::vector<std::pair<std::string, double>> b(bias.begin(), bias.end());
        return CppController{feedback_controller(robot, t, b), "feedback"};
      },
      py::arg("robot"), py::arg("terms"), py::arg("bias") = std::map<std::string, double>{}, py::keep_alive<0, 1>(),
      "C++ linear feedback u[m] = bias[m] + Σ gain (signal − target), terms [(motor, signal, gain, target)]; "
      "signals q.<joint>, v.<joint>, roll|pitch|yaw.<frame>, rate.<frame>.x|y|z.");
  m.def(
      "feedback_signal",
      [](const Model& model, const std::string& s, const py::object& q, const py::object& v) {
        Array kq = null_array(), kv = null_array();
        return feedback_signal(model, s, vector_arg(q, "q", model.nq, kq), vector_arg(v, "v", model.nv, kv));
      },
      py::arg("model"), py::arg("signal"), py::arg("q"), py::arg("v"), "The value of one feedback signal.");
  m.def(
      "joint_position_guard",
      [](const Model& model, const std::string& j, double x) { return CppGuard{joint_position_guard(model, j, x)}; },
      py::arg("model"), py::arg("joint"), py::arg("value"), py::keep_alive<0, 1>(), "g = q_joint − value [rad].");
  m.def(
      "joint_velocity_guard",
      [](const Model& model, const std::string& j, double x) { return CppGuard{joint_velocity_guard(model, j, x)}; },
      py::arg("model"), py::arg("joint"), py::arg("value"), py::keep_alive<0, 1>(), "g = q̇_joint − value [rad/s].");
  m.def(
      "frame_height_guard",
      [](std::shared_ptr<Model> model, const std::string& f, double x) {
        return CppGuard{frame_height_guard(model, f, x)};
      },
      py::arg("model"), py::arg("frame"), py::arg("value"), "g = z of the frame origin − value [m].");

  py::class_<EventAction>(
      m, "EventAction", "What an event does: enable / disable a constraint, set a command, stop, stop signal (brakes).")
      .def_static(
          "enable",
          [](const std::string& c, const py::object& jump) {
            return EventAction::enable(
                c, py::isinstance<py::str>(jump) ? parse_jump_form(jump.cast<std::string>()) : jump.cast<JumpForm>());
          },
          py::arg("constraint"), py::arg("jump") = "auto", "Enables a constraint with a velocity jump of this form.")
      .def_static("disable", &EventAction::disable, py::arg("constraint"))
      .def_static("set_command", &EventAction::set_command, py::arg("motor"), py::arg("value"), "[N·m]")
      .def_static("stop", &EventAction::stop)
      .def_static("stop_signal", &EventAction::stop_signal, py::arg("category") = 0,
                  py::arg("cat1_max_time") = INFINITY,
                  "The emergency stop of the robot's brakes: category 0 cuts the drives and arms every brake's "
                  "delay; category 1 decelerates each joint at its motor's effort limit, then arms its brake at "
                  "standstill or at cat1_max_time [s] after the signal.")
      .def("describe", &EventAction::describe)
      .def("__repr__", &EventAction::describe);
  py::class_<Event>(m, "Event", "An event at a time [s] or when a guard g(t, q, v) crosses zero.")
      .def(py::init([](std::string name, std::optional<double> time, const py::object& guard, int direction,
                       bool repeat, std::vector<EventAction> actions) {
             Event e;
             e.name = std::move(name);
             e.time = time;
             e.guard = guard_arg(guard);
             e.direction = direction;
             e.repeat = repeat;
             e.actions = std::move(actions);
             return e;
           }),
           py::arg("name"), py::arg("time") = py::none(), py::arg("guard") = py::none(), py::arg("direction") = 0,
           py::arg("repeat") = false, py::arg("actions") = std::vector<EventAction>{},
           "guard: a Python callable (t [s], q (nq,), v (nv,)) → float, or a CppGuard; direction +1 rising, −1 "
           "falling, 0 both; repeat: may fire again after re-arming.")
      .def_readonly("name", &Event::name)
      .def_readonly("time", &Event::time)
      .def_readonly("actions", &Event::actions);
  py::class_<EventRecord>(m, "EventRecord", "What happened at one event instant (arrays are copies).")
      .def_readonly("time", &EventRecord::time, "[s]")
      .def_readonly("names", &EventRecord::names)
      .def_readonly("actions", &EventRecord::actions)
      .def_readonly("kinetic_before", &EventRecord::kinetic_before, "[J]")
      .def_readonly("kinetic_after", &EventRecord::kinetic_after, "[J]")
      .def_readonly("potential", &EventRecord::potential, "[J]")
      .def_readonly("jumped", &EventRecord::jumped)
      .def_readonly("form", &EventRecord::form)
      .def_readonly("jump_status", &EventRecord::jump_status)
      .def_property_readonly("v_minus", [](const EventRecord& e) { return to_array(e.v_minus); })
      .def_property_readonly("v_plus", [](const EventRecord& e) { return to_array(e.v_plus); })
      .def_readonly("momentum_residual", &EventRecord::momentum_residual)
      .def_readonly("constraint_residual", &EventRecord::constraint_residual);
}

void def_simulator(py::module_& m) {
  py::enum_<Integrator>(m, "Integrator")
      .value("ExplicitEuler", Integrator::ExplicitEuler)
      .value("SemiImplicitEuler", Integrator::SemiImplicitEuler)
      .value("RK4", Integrator::RK4)
      .value("DormandPrince", Integrator::DormandPrince);
  py::enum_<RunStatus>(m, "RunStatus")
      .value("Completed", RunStatus::Completed)
      .value("Stopped", RunStatus::Stopped)
      .value("NonFinite", RunStatus::NonFinite)
      .value("Exploded", RunStatus::Exploded)
      .value("SolverFailed", RunStatus::SolverFailed)
      .value("StepTooSmall", RunStatus::StepTooSmall)
      .value("ControllerFailed", RunStatus::ControllerFailed)
      .value("Error", RunStatus::Error)
      .value("Interrupted", RunStatus::Interrupted)
      .def(
          "__str__", [](RunStatus s) { return to_string(s); }, py::prepend());
  py::class_<AdaptiveOptions>(m, "AdaptiveOptions", "Dormand–Prince tolerances and step bounds [s].")
      .def(py::init<>())
      .def_readwrite("abs_tol", &AdaptiveOptions::abs_tol)
      .def_readwrite("rel_tol", &AdaptiveOptions::rel_tol)
      .def_readwrite("min_step", &AdaptiveOptions::min_step)
      .def_readwrite("max_step", &AdaptiveOptions::max_step)
      .def_readwrite("safety", &AdaptiveOptions::safety)
      .def_readwrite("min_factor", &AdaptiveOptions::min_factor)
      .def_readwrite("max_factor", &AdaptiveOptions::max_factor);
  auto integrator = [](SimulationOptions& o, const py::object& x) {
    o.integrator = py::isinstance<py::str>(x) ? parse_integrator(x.cast<std::string>()) : x.cast<Integrator>();
  };
  auto method = [](SimulationOptions& o, const py::object& x) {
    o.method = py::isinstance<py::str>(x) ? parse_method(x.cast<std::string>()) : x.cast<ConstrainedMethod>();
  };
  py::class_<SimulationOptions>(m, "SimulationOptions", "Options of a Simulator (docs/engine.md).")
      .def(py::init<>())
      .def_property(
          "integrator", [](const SimulationOptions& o) { return o.integrator; }, integrator,
          "'euler', 'semi_implicit_euler', 'rk4', 'dopri5' (or Integrator).")
      .def_readwrite("dt", &SimulationOptions::dt, "[s] fixed step / first trial step.")
      .def_readwrite("adaptive", &SimulationOptions::adaptive)
      .def_property(
          "method", [](const SimulationOptions& o) { return o.method; }, method)
      .def_readwrite("event_tolerance", &SimulationOptions::event_tolerance, "[s]")
      .def_readwrite("log_period", &SimulationOptions::log_period, "[s] 0: every step.")
      .def_readwrite("max_speed", &SimulationOptions::max_speed, "|v|∞ [rad/s] above which the run has exploded.")
      .def_readwrite("record_samples", &SimulationOptions::record_samples, "Keep logged rows in RunResult.samples.")
      .def_readwrite("joint_limits", &SimulationOptions::joint_limits, "URDF position limits as exact stops.")
      .def_readwrite("limit_restitution", &SimulationOptions::limit_restitution)
      .def_readwrite("limit_bounce_velocity", &SimulationOptions::limit_bounce_velocity, "[rad/s]")
      .def("validate", &SimulationOptions::validate);

  py::class_<RunResult>(m, "RunResult", "The outcome of Simulator.run (status, message, time, counts, events).")
      .def_readonly("status", &RunResult::status)
      .def_readonly("message", &RunResult::message)
      .def_readonly("t", &RunResult::t, "Time reached [s].")
      .def_readonly("steps", &RunResult::steps)
      .def_readonly("rejected", &RunResult::rejected)
      .def_readonly("evaluations", &RunResult::evaluations)
      .def_readonly("events", &RunResult::events)
      .def_readonly("columns", &RunResult::columns, "Log column names.")
      .def_property_readonly(
          "samples", [](const RunResult& r) { return samples(r.samples, r.columns.size()); },
          "(rows, columns) logged rows when options.record_samples (copy).")
      .def_readonly("wall_time", &RunResult::wall_time, "[s]")
      .def_readonly("compiled_from", &RunResult::compiled_from,
                    "Time [s] from which this run used kernels compiled in the background "
                    "(Simulator.use_compiled_when_ready); NaN when it did not switch.")
      .def("ok", &RunResult::ok, "Completed or Stopped.")
      .def("real_time_factor", &RunResult::real_time_factor, "Simulated time / wall time.")
      .def("__repr__", [](const RunResult& r) {
        return "RunResult(status=" + to_string(r.status) + ", t=" + std::to_string(r.t) +
               ", steps=" + std::to_string(r.steps) + ")";
      });

  py::class_<Simulator>(m, "Simulator",
                        "The simulation loop of a Robot (which must outlive it; kept alive by the simulator).\n"
                        "Simulator(robot, options=None, **fields): fields of SimulationOptions as keywords.")
      .def(py::init([](Robot& robot, std::optional<SimulationOptions> options, const py::kwargs& kw) {
             SimulationOptions o = options.value_or(SimulationOptions{});
             py::object po = py::cast(&o, py::return_value_policy::reference);
             for (auto item : kw) {
               if (!py::hasattr(po, item.first))
                 raise(errors().argument,
                       "Simulator: unknown option '" + py::str(item.first).cast<std::string>() + "'");
               po.attr(item.first) = item.second;
             }
             return std::make_unique<Simulator>(robot, o);
           }),
           py::arg("robot"), py::arg("options") = py::none(), py::keep_alive<1, 2>())
      .def(
          "set_state",
          [](Simulator& s, const py::object& q, const py::object& v, double t) {
            const Model& model = s.robot().model();
            Array kq = null_array(), kv = null_array();
            s.set_state(vector_arg(q, "q", model.nq, kq), vector_arg(v, "v", model.nv, kv), t);
          },
          py::arg("q"), py::arg("v"), py::arg("t") = 0.0, "Initial state q (nq,), v (nv,), time t [s].")
      .def(
          "set_commands",
          [](Simulator& s, const py::object& u) {
            Array k = null_array();
            s.set_commands(vector_arg(u, "u", static_cast<Eigen::Index>(s.robot().motors().size()), k));
          },
          py::arg("u"), "Held commands (nmotors,) [N·m], Robot.motors order.")
      .def("set_command", &Simulator::set_command, py::arg("motor"), py::arg("u"))
      .def(
          "set_controller",
          [](Simulator& s, const py::object& c, double period, const py::object& reads_sensors) {
            if (c.is_none()) return s.set_controller(nullptr, period);
            // The C++ controllers (pd, feedback) read q and v only; a Python one may read sensors.
            const bool reads = reads_sensors.is_none() ? !py::isinstance<CppController>(c) : reads_sensors.cast<bool>();
            s.set_controller(controller_arg(c, s.robot()), period, reads);
          },
          py::arg("controller"), py::arg("period") = 0.0, py::arg("reads_sensors") = py::none(),
          "controller(t [s], q (nq,), v (nv,), sensors (nsensor channels,)) → commands (nmotors,) [N·m], None "
          "(keep the held commands) or False (stop: controller_failed); or a CppController. Called at "
          "t = k·period (zero-order hold) or at every evaluation (period 0). The arrays are copies. A Python "
          "exception stops the run with status ControllerFailed and the traceback in the message. "
          "reads_sensors=False (the default for a CppController, True for a Python function): no evaluation of "
          "the IMU / effort / force sensors for the controller at a tick; it gets those of the last evaluation.")
      .def("add_event", &Simulator::add_event, py::arg("event"))
      .def(
          "add_log",
          [](Simulator& s, const std::string& path, double flush_period) {
            const bool h5 = path.size() > 3 && (path.ends_with(".h5") || path.ends_with(".hdf5"));
            if (!h5 && !path.ends_with(".csv"))
              raise(errors().argument, "add_log: '" + path + "' must end in .csv or .h5");
            s.add_log(h5 ? make_hdf5_log(path, flush_period) : make_csv_log(path, flush_period));
          },
          py::arg("path"), py::arg("flush_period") = 0.2,
          "Records the next run to `path` (.csv: with .events.csv and .status.yaml next to it; .h5: HDF5). "
          "Finished (closed) at the end of that run.")
      .def(
          "set_progress",
          [](Simulator& s, const py::object& f) {
            if (f.is_none()) return s.set_progress(nullptr);
            PyCallable c(f);
            s.set_progress([c](double t, double d) {
              py::gil_scoped_acquire gil;
              c.call("the progress callback", t, d);
            });
          },
          py::arg("progress"), "progress(t [s], duration [s]) about every 0.1 s of wall time.")
      .def(
          "run", [](Simulator& s, double duration) { return run_interruptible(s, [&] { return s.run(duration); }); },
          py::arg("duration"),
          "Runs for `duration` [s] from the current time, the GIL released (taken for each Python callback). "
          "Ctrl-C ends the run between two steps with its logs finished, then raises KeyboardInterrupt "
          "(exception.result holds the RunResult). Returns a RunResult.")
      .def(
          "step",
          [](Simulator& s, int n) {
            if (n < 1) raise(errors().argument, "step: n must be ≥ 1");
            return run_interruptible(s, [&] { return s.run(n * s.options().dt); });
          },
          py::arg("n") = 1, "run(n · options.dt): n steps of a fixed-step integrator.")
      .def("request_stop", &Simulator::request_stop,
           "Asks the current (or next) run to end before its next step (status Interrupted); thread-safe.")
      .def_property_readonly("time", &Simulator::time, "[s]")
      .def_property_readonly(
          "q", [](const Simulator& s) { return to_array(s.q()); }, "(nq,) copy.")
      .def_property_readonly(
          "v", [](const Simulator& s) { return to_array(s.v()); }, "(nv,) copy.")
      .def_property_readonly(
          "vdot", [](const Simulator& s) { return to_array(s.vdot()); }, "(nv,) copy.")
      .def_property_readonly(
          "multipliers", [](const Simulator& s) { return to_array(s.multipliers()); },
          "(m,) the multipliers λ of the enabled constraints at the current instant [N, N·m], in row order "
          "(robot.constraints.rows_of(name, λ) for one); copy.")
      .def_property_readonly(
          "commands", [](const Simulator& s) { return to_array(s.commands()); }, "(nmotors,) [N·m].")
      .def_property_readonly(
          "efforts", [](const Simulator& s) { return to_array(s.efforts()); }, "(nmotors,) applied [N·m].")
      .def_property_readonly(
          "sensors", [](const Simulator& s) { return to_array(s.sensors()); },
          "Flat readings (copy), in sensor_channels order.")
      .def(
          "sensor_values",
          [](const Simulator& s) {
            py::dict d;
            const auto names = s.sensor_channels();
            for (std::size_t i = 0; i < names.size(); ++i)
              d[py::str(names[i])] = s.sensors()[static_cast<Eigen::Index>(i)];
            return d;
          },
          "{'<sensor>.<channel>': value}")
      .def_property_readonly(
          "contact_forces", [](const Simulator& s) { return to_array(s.contact_forces()); },
          "(3 · ncontacts,) world forces [N].")
      .def_property_readonly("sensor_channels", &Simulator::sensor_channels)
      .def_property_readonly("brake_states", &Simulator::brake_states, "Per brake (robot.brakes order): BrakeState.")
      .def_property_readonly(
          "brake_torques", [](const Simulator& s) { return to_array(s.brake_torques()); },
          "(nbrakes,) torque applied or held now [N·m].")
      .def_property_readonly(
          "brake_energy", [](const Simulator& s) { return to_array(s.brake_energy()); },
          "(nbrakes,) energy dissipated so far [J].")
      .def_property_readonly("robot", &Simulator::robot, py::return_value_policy::reference_internal)
      .def_property_readonly(
          "options", [](const Simulator& s) { return s.options(); }, "A copy of the options.")
      .def("kinetic_energy", &Simulator::kinetic_energy, "[J]")
      .def("potential_energy", &Simulator::potential_energy, "[J]");
}

}  // namespace

RunResult run_interruptible(Simulator& sim, const std::function<RunResult()>& body) {
  py::module_ threading = py::module_::import("threading");
  const bool main = threading.attr("current_thread")().is(threading.attr("main_thread")());
  struct sigaction old_int {
  }, old_term{};
  if (main) {
    g_signalled.store(false);
    g_running.store(&sim);
    struct sigaction action {};
    action.sa_handler = stop_on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int);
    sigaction(SIGTERM, &action, &old_term);
  }
  RunResult r;
  std::exception_ptr error;
  {
    py::gil_scoped_release release;
    try {
      r = body();
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (main) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    g_running.store(nullptr);
  }
  if (error) std::rethrow_exception(error);
  if (main && g_signalled.exchange(false) && r.status == RunStatus::Interrupted) {
    py::object exc = py::handle(PyExc_KeyboardInterrupt)("articula: run interrupted at t = " + std::to_string(r.t) +
                                                         " s; its logs hold the run up to there");
    exc.attr("result") = r;
    PyErr_SetObject(PyExc_KeyboardInterrupt, exc.ptr());
    throw py::error_already_set();
  }
  return r;
}

void init_engine(py::module_& m) {
  def_robot(m);
  def_events(m);
  def_simulator(m);
}

}  // namespace articula::python
