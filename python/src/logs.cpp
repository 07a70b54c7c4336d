// Reading telemetry logs back: the library's read_log (io/log_reader.hpp) as
// (format, columns, (rows, columns) array, status dict, events dict); articula/__init__.py's
// read_log() builds its Log on these.
#include <cstring>

#include "articula/io/log_reader.hpp"
#include "common.hpp"

namespace articula::python {
namespace {

py::tuple read(const std::string& path) {
  LogTable t;
  try {
    py::gil_scoped_release nogil;
    t = read_log(path);
  } catch (const LogReadError& e) {
    raise(errors().log, e.what());
  }
  py::array_t<double> a({t.rows, t.columns.size()});
  if (!t.values.empty()) std::memcpy(a.mutable_data(), t.values.data(), t.values.size() * sizeof(double));
  py::dict status, events;
  if (!t.status.empty()) status["status"] = t.status, status["message"] = t.message;
  if (t.has_end) status["t_end"] = t.t_end, status["steps"] = t.steps;
  if (t.format == "hdf5" || !t.events.empty()) {
    const std::size_t n = t.events.size();
    py::array_t<double> time(n), kb(n), ka(n), pot(n), mr(n), cr(n);
    py::list name, actions;
    for (std::size_t i = 0; i < n; ++i) {
      const EventLogRow& e = t.events[i];
      time.mutable_at(i) = e.time, kb.mutable_at(i) = e.kinetic_before, ka.mutable_at(i) = e.kinetic_after;
      pot.mutable_at(i) = e.potential, mr.mutable_at(i) = e.momentum_residual, cr.mutable_at(i) = e.constraint_residual;
      name.append(py::str(e.name)), actions.append(py::str(e.actions));
    }
    events["time"] = time, events["name"] = name, events["actions"] = actions, events["kinetic_before"] = kb;
    events["kinetic_after"] = ka, events["potential"] = pot, events["momentum_residual"] = mr;
    events["constraint_residual"] = cr;
  }
  return py::make_tuple(t.format, t.columns, a, status, events);
}

}  // namespace

void init_logs(py::module_& m) { m.def("_read_log", &read, py::arg("path")); }

}  // namespace articula::python
