// The stopping-performance study (include/articula/study/stopping.hpp, docs/stopping.md) from
// Python: load a study file, list its cases, run the sweep on threads (the GIL released), and
// the same CSV / JSON / table bytes as `articula stopping`.
#include "articula/study/stopping.hpp"
#include "common.hpp"

namespace articula::python {
namespace {

py::dict spread_dict(const Spread& s) {
  py::dict d;
  d["worst"] = s.worst, d["p50"] = s.p50, d["p95"] = s.p95, d["p99"] = s.p99;
  return d;
}

void def_study_types(py::module_& m) {
  py::class_<StoppingStudy, std::shared_ptr<StoppingStudy>>(m, "StoppingStudy",
                                                            "A stopping study file read (load_stopping_study).")
      .def_readonly("file", &StoppingStudy::file)
      .def_readonly("name", &StoppingStudy::name)
      .def_readonly("description", &StoppingStudy::description)
      .def_readonly("model_file", &StoppingStudy::model_file, "the URDF, resolved against the study's folder")
      .def_property_readonly(
          "model", [](const StoppingStudy& s) { return std::const_pointer_cast<Model>(s.model); },
          "the study's Model (fixed base, without payload)")
      .def_readonly("flange", &StoppingStudy::flange, "frame whose origin path length is reported")
      .def_property_readonly(
          "joints",
          [](const StoppingStudy& s) {
            std::vector<std::string> n;
            for (const StoppingJoint& j : s.joints) n.push_back(j.joint);
            return n;
          },
          "the tested joints' names, in table order")
      .def_property_readonly(
          "max_speeds",
          [](const StoppingStudy& s) {
            VectorX v(static_cast<Eigen::Index>(s.joints.size()));
            for (std::size_t k = 0; k < s.joints.size(); ++k) v[static_cast<Eigen::Index>(k)] = s.joints[k].max_speed;
            return to_array(v);
          },
          "[rad/s] per tested joint")
      .def_readonly("speeds", &StoppingStudy::speeds, "fractions of max_speed")
      .def_readonly("payloads", &StoppingStudy::payloads, "fractions of the rated payload")
      .def_property_readonly(
          "extensions",
          [](const StoppingStudy& s) {
            std::vector<double> f;
            for (const StoppingExtension& e : s.extensions) f.push_back(e.fraction);
            return f;
          },
          "fractions of the reach")
      .def_readonly("categories", &StoppingStudy::categories)
      .def_property_readonly(
          "rated_payload", [](const StoppingStudy& s) { return s.payload.rated_mass; }, "[kg]")
      .def_readonly("delay_tolerance", &StoppingStudy::delay_tolerance)
      .def_readonly("torque_tolerance", &StoppingStudy::torque_tolerance)
      .def_readonly("dt", &StoppingStudy::dt, "[s]");

  py::class_<StoppingCase>(m, "StoppingCase", "One case of the sweep: indices into the study's lists.")
      .def_readonly("index", &StoppingCase::index)
      .def_readonly("joint", &StoppingCase::joint)
      .def_readonly("speed", &StoppingCase::speed)
      .def_readonly("payload", &StoppingCase::payload)
      .def_readonly("extension", &StoppingCase::extension)
      .def_readonly("category", &StoppingCase::category)
      .def("__repr__", [](const StoppingCase& c) {
        return "<StoppingCase " + std::to_string(c.index) + ": joint " + std::to_string(c.joint) + ", category " +
               std::to_string(c.category) + ", extension " + std::to_string(c.extension) + ", payload " +
               std::to_string(c.payload) + ", speed " + std::to_string(c.speed) + ">";
      });

  py::class_<StopFigures>(m, "StopFigures", "The figures of one run.")
      .def_readonly("ok", &StopFigures::ok)
      .def_readonly("message", &StopFigures::message)
      .def_readonly("stop_time", &StopFigures::stop_time, "[s] signal → every joint at rest")
      .def_readonly("distance_deg", &StopFigures::distance_deg, "[deg] of the tested joint")
      .def_readonly("path_mm", &StopFigures::path_mm, "[mm] flange path length")
      .def_readonly("peak_torque", &StopFigures::peak_torque, "[N m] tested joint's brake")
      .def_readonly("slipped", &StopFigures::slipped, "a brake slipped after it had stuck")
      .def_readonly("slip_time", &StopFigures::slip_time, "[s] first such slip, -1 if none");

  py::class_<StoppingCaseResult>(m, "StoppingCaseResult",
                                 "One case's result: real brakes, ideal locks, and the spreads over samples.")
      .def_readonly("case", &StoppingCaseResult::c)
      .def_readonly("real", &StoppingCaseResult::real)
      .def_readonly("ideal", &StoppingCaseResult::ideal)
      .def_readonly("samples", &StoppingCaseResult::samples)
      .def_readonly("failed_samples", &StoppingCaseResult::failed_samples)
      .def_property_readonly(
          "time", [](const StoppingCaseResult& r) { return spread_dict(r.time); },
          "dict worst / p50 / p95 / p99 of the stop time over the samples [s]")
      .def_property_readonly(
          "distance", [](const StoppingCaseResult& r) { return spread_dict(r.distance); }, "[deg]")
      .def_property_readonly(
          "path", [](const StoppingCaseResult& r) { return spread_dict(r.path); }, "[mm]")
      .def_property_readonly(
          "torque", [](const StoppingCaseResult& r) { return spread_dict(r.torque); }, "[N m]");
}

void def_study_functions(py::module_& m) {
  m.def(
      "load_stopping_study",
      [](const std::string& path) { return std::make_shared<StoppingStudy>(load_stopping_study(path)); },
      py::arg("path"),
      "Reads a stopping study file (studies/rx130_stopping.yaml, docs/stopping.md). ScenarioError "
      "'FILE:LINE:COL: key 'KEY': WHAT' naming the bad key.");
  m.def("stopping_cases", &stopping_cases, py::arg("study"),
        "The cases, joint-major: joint, category, extension, payload, speed (fastest).");
  m.def(
      "run_stopping_case",
      [](const StoppingStudy& s, const StoppingCase& c, bool ideal) {
        py::gil_scoped_release release;
        return run_stopping_case(s, c, ideal ? BrakeModel::Ideal : BrakeModel::Real);
      },
      py::arg("study"), py::arg("case"), py::arg("ideal") = false,
      "One nominal case: the study's brakes, or (ideal=True) instant locks at the same delays.");
  m.def(
      "run_stopping_sweep",
      [](const StoppingStudy& s, int samples, std::uint64_t seed, int jobs) {
        if (samples < 0) throw std::invalid_argument("samples must be >= 0, got " + std::to_string(samples));
        if (jobs < 1) throw std::invalid_argument("jobs must be >= 1, got " + std::to_string(jobs));
        py::gil_scoped_release release;
        return run_stopping_sweep(s, samples, seed, jobs);
      },
      py::arg("study"), py::arg("samples") = 0, py::arg("seed") = 1, py::arg("jobs") = 1,
      "The whole sweep on `jobs` threads (the GIL released): per case the real and ideal runs and, with "
      "samples > 0, the spreads over brake delays and torques drawn within the tolerances (seeded per case: "
      "the results do not depend on jobs).");
  m.def("stopping_csv", &stopping_csv, py::arg("study"), py::arg("results"),
        "The CSV `articula stopping` writes (byte-identical for equal input).");
  m.def("stopping_json", &stopping_json, py::arg("study"), py::arg("results"), py::arg("samples") = 0,
        py::arg("seed") = 1, "The JSON `articula stopping` writes.");
  m.def("stopping_table", &stopping_table, py::arg("study"), py::arg("results"), "The terminal table.");
}

}  // namespace

void init_study(py::module_& m) {
  def_study_types(m);
  def_study_functions(m);
}

}  // namespace articula::python
