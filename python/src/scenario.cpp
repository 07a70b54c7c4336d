// Scenario files (load_scenario / run_scenario) and the brake / emergency-stop study.
#include "common.hpp"

namespace articula::python {
namespace {

Vector3 v3(const Vector3& x) { return x; }

void def_scenario(py::module_& m) {
  py::class_<Scenario>(m, "Scenario",
                       "A loaded scenario file: robot, simulator (state, controller, events set), "
                       "duration and outputs.")
      .def_readonly("file", &Scenario::file)
      .def_readonly("name", &Scenario::name)
      .def_readonly("description", &Scenario::description)
      .def_readonly("model_file", &Scenario::model_file)
      .def_property_readonly(
          "robot", [](Scenario& s) -> Robot& { return *s.robot; }, py::return_value_policy::reference_internal)
      .def_property_readonly(
          "simulator", [](Scenario& s) -> Simulator& { return *s.simulator; },
          py::return_value_policy::reference_internal)
      .def_readonly("controller", &Scenario::controller, "The controller in words.")
      .def_readwrite("duration", &Scenario::duration, "[s]")
      .def_property_readonly("q0", [](const Scenario& s) { return to_array(s.q0); })
      .def_property_readonly("v0", [](const Scenario& s) { return to_array(s.v0); })
      .def_property_readonly(
          "output_files", [](const Scenario& s) { return output_files(s); },
          "The log files run_scenario writes (stem + extension).");

  auto overrides = [](const std::optional<std::string>& out_dir, const std::optional<std::string>& format,
                      const std::optional<std::string>& jump, std::optional<double> duration,
                      std::optional<bool> joint_limits, bool record_samples) {
    ScenarioOverrides o;
    o.out_dir = out_dir;
    if (format) o.format = parse_log_format(*format);
    if (jump) o.jump = parse_jump_form(*jump);
    o.duration = duration;
    o.joint_limits = joint_limits;
    o.record_samples = record_samples;
    return o;
  };
  m.def(
      "load_scenario",
      [overrides](const std::string& path, const std::optional<std::string>& out_dir,
                  const std::optional<std::string>& format, const std::optional<std::string>& jump,
                  std::optional<double> duration, std::optional<bool> joint_limits, bool record_samples) {
        ScenarioOverrides o;
        try {
          o = overrides(out_dir, format, jump, duration, joint_limits, record_samples);
        } catch (const std::exception& e) {
          raise(errors().scenario, path + ": " + e.what());
        }
        return std::make_unique<Scenario>(load_scenario(path, o));
      },
      py::arg("path"), py::arg("out_dir") = py::none(), py::arg("format") = py::none(), py::arg("jump") = py::none(),
      py::arg("duration") = py::none(), py::arg("joint_limits") = py::none(), py::arg("record_samples") = false,
      "Reads and builds a scenario file (docs/scenarios.md), with the overrides of `articula run`: out_dir "
      "(folder of the logs; default articula_out/<name>/), format 'csv'/'hdf5', jump ('consistent', 'naive', "
      "'none', 'full', …), duration [s], joint_limits. ScenarioError 'FILE:LINE:COL: key …' for any mistake.");
  m.def(
      "run_scenario",
      [](Scenario& s, const py::object& progress) {
        std::function<void(double, double)> p;
        if (!progress.is_none()) {
          PyCallable c(progress);
          p = [c](double t, double d) {
            py::gil_scoped_acquire gil;
            c.call("the progress callback", t, d);
          };
        }
        return run_interruptible(*s.simulator, [&] { return run_scenario(s, p); });
      },
      py::arg("scenario"), py::arg("progress") = py::none(),
      "Creates the output folders, adds the logs and runs the scenario for its duration (as `articula run`: "
      "the same logs, byte for byte), the GIL released. Ctrl-C as Simulator.run. Returns a RunResult.");
}

void def_study(py::module_& m) {
  py::class_<BrakeEvent>(m, "BrakeEvent", "Brakes engaged at one instant: the named joints lock together.")
      .def(py::init([](double time, std::vector<std::string> joints) {
             return BrakeEvent{time, std::move(joints)};
           }),
           py::arg("time"), py::arg("joints"))
      .def_readwrite("time", &BrakeEvent::time, "[s]")
      .def_readwrite("joints", &BrakeEvent::joints);
  py::class_<BrakeStudyConfig>(m, "BrakeStudyConfig", "The e-stop study's configuration.")
      .def(py::init<>())
      .def_readwrite("urdf", &BrakeStudyConfig::urdf)
      .def_readwrite("events", &BrakeStudyConfig::events)
      .def_property(
          "q0", [](const BrakeStudyConfig& c) { return to_array(c.q0); },
          [](BrakeStudyConfig& c, const py::object& x) {
            Array k = null_array();
            c.q0 = vector_arg(x, "q0", -1, k);
          },
          "(nq,)")
      .def_property(
          "v0", [](const BrakeStudyConfig& c) { return to_array(c.v0); },
          [](BrakeStudyConfig& c, const py::object& x) {
            Array k = null_array();
            c.v0 = vector_arg(x, "v0", -1, k);
          },
          "(nv,) [rad/s]")
      .def_readwrite("duration", &BrakeStudyConfig::duration, "[s]")
      .def_readwrite("dt", &BrakeStudyConfig::dt, "RK4 step [s]")
      .def_property(
          "jump", [](const BrakeStudyConfig& c) { return c.jump; },
          [](BrakeStudyConfig& c, const py::object& j) {
            c.jump = py::isinstance<py::str>(j) ? parse_jump_form(j.cast<std::string>()) : j.cast<JumpForm>();
          },
          "JumpForm or 'auto', 'naive', …")
      .def_readwrite("flange_frame", &BrakeStudyConfig::flange_frame)
      .def_readwrite("sample_period", &BrakeStudyConfig::sample_period, "[s] 0: every step");
  py::class_<BrakeEventRecord>(m, "BrakeEventRecord", "One brake engagement as it happened (copies).")
      .def_readonly("time", &BrakeEventRecord::time)
      .def_readonly("joints", &BrakeEventRecord::joints)
      .def_readonly("constraint", &BrakeEventRecord::constraint)
      .def_readonly("dofs", &BrakeEventRecord::dofs)
      .def_readonly("form", &BrakeEventRecord::form)
      .def_readonly("status", &BrakeEventRecord::status)
      .def_property_readonly("v_minus", [](const BrakeEventRecord& e) { return to_array(e.v_minus); })
      .def_property_readonly("v_plus", [](const BrakeEventRecord& e) { return to_array(e.v_plus); })
      .def_property_readonly("Lambda", [](const BrakeEventRecord& e) { return to_array(e.Lambda); })
      .def_readonly("kinetic_before", &BrakeEventRecord::kinetic_before, "[J]")
      .def_readonly("kinetic_after", &BrakeEventRecord::kinetic_after, "[J]")
      .def_readonly("jump_energy", &BrakeEventRecord::jump_energy, "[J]")
      .def_readonly("momentum_residual", &BrakeEventRecord::momentum_residual)
      .def_readonly("constraint_residual", &BrakeEventRecord::constraint_residual)
      .def_property_readonly(
          "flange", [](const BrakeEventRecord& e) { return to_array(v3(e.flange)); }, "(3,) [m]");
  py::class_<BrakeStudyResult>(m, "BrakeStudyResult", "The study's outcome; trajectory as arrays (copies).")
      .def_readonly("model_name", &BrakeStudyResult::model_name)
      .def_readonly("flange_frame", &BrakeStudyResult::flange_frame)
      .def_readonly("jump", &BrakeStudyResult::jump)
      .def_readonly("events", &BrakeStudyResult::events)
      .def_property_readonly(
          "t",
          [](const BrakeStudyResult& r) {
            VectorX t(static_cast<Eigen::Index>(r.trajectory.size()));
            for (std::size_t i = 0; i < r.trajectory.size(); ++i) t[static_cast<Eigen::Index>(i)] = r.trajectory[i].t;
            return to_array(t);
          },
          "(samples,) [s]")
      .def_property_readonly(
          "q",
          [](const BrakeStudyResult& r) {
            MatrixX x(static_cast<Eigen::Index>(r.trajectory.size()), r.q_final.size());
            for (std::size_t i = 0; i < r.trajectory.size(); ++i)
              x.row(static_cast<Eigen::Index>(i)) = r.trajectory[i].q.transpose();
            return to_array(x);
          },
          "(samples, nq)")
      .def_property_readonly(
          "v",
          [](const BrakeStudyResult& r) {
            MatrixX x(static_cast<Eigen::Index>(r.trajectory.size()), r.v_final.size());
            for (std::size_t i = 0; i < r.trajectory.size(); ++i)
              x.row(static_cast<Eigen::Index>(i)) = r.trajectory[i].v.transpose();
            return to_array(x);
          },
          "(samples, nv)")
      .def_property_readonly(
          "energy",
          [](const BrakeStudyResult& r) {
            MatrixX x(static_cast<Eigen::Index>(r.trajectory.size()), 2);
            for (std::size_t i = 0; i < r.trajectory.size(); ++i)
              x.row(static_cast<Eigen::Index>(i)) << r.trajectory[i].kinetic_energy, r.trajectory[i].potential_energy;
            return to_array(x);
          },
          "(samples, 2) kinetic, potential [J]")
      .def_property_readonly(
          "flange",
          [](const BrakeStudyResult& r) {
            MatrixX x(static_cast<Eigen::Index>(r.trajectory.size()), 3);
            for (std::size_t i = 0; i < r.trajectory.size(); ++i)
              x.row(static_cast<Eigen::Index>(i)) = r.trajectory[i].flange.transpose();
            return to_array(x);
          },
          "(samples, 3) flange origin [m]")
      .def_property_readonly("q_final", [](const BrakeStudyResult& r) { return to_array(r.q_final); })
      .def_property_readonly("v_final", [](const BrakeStudyResult& r) { return to_array(r.v_final); })
      .def_property_readonly("flange_first_event",
                             [](const BrakeStudyResult& r) { return to_array(v3(r.flange_first_event)); })
      .def_property_readonly("flange_final", [](const BrakeStudyResult& r) { return to_array(v3(r.flange_final)); })
      .def_readonly("stop_distance", &BrakeStudyResult::stop_distance, "[m] flange path length after the first event")
      .def_readonly("straight_distance", &BrakeStudyResult::straight_distance, "[m]")
      .def_readonly("energy_drift", &BrakeStudyResult::energy_drift)
      .def_readonly("steps", &BrakeStudyResult::steps)
      .def_readonly("ok", &BrakeStudyResult::ok)
      .def_readonly("message", &BrakeStudyResult::message);
  m.def(
      "run_brake_study",
      [](const py::object& model, const BrakeStudyConfig& c) {
        if (model.is_none()) {
          py::gil_scoped_release release;
          return run_brake_study(c);
        }
        const Model& mo = model.cast<const Model&>();
        py::gil_scoped_release release;
        return run_brake_study(mo, c);
      },
      py::arg("model"), py::arg("config"),
      "The brake / e-stop study (drives off, brakes engaged one after another, RK4 at config.dt): on `model`, or "
      "on config.urdf when model is None. ArgumentError naming the bad value.");
  m.def("_default_estop_config", &default_estop_config, py::arg("models_dir"));
  m.def("_default_pendulum_config", &default_pendulum_config, py::arg("models_dir"));
}

}  // namespace

void init_scenario(py::module_& m) {
  def_scenario(m);
  def_study(m);
}

}  // namespace articula::python
