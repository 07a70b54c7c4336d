// Reading telemetry logs back (the CSV numbers and the whole HDF5 file, with the HDF5 C library the
// project links); articula/__init__.py's read_log() builds on these.
#include <hdf5.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common.hpp"

namespace articula::python {
namespace {

[[noreturn]] void log_error(const std::string& path, const std::string& what) {
  raise(errors().log, "read_log: '" + path + "': " + what);
}

// The header and the numbers of a CSV log: (columns, (rows, columns) array). Rows are whole lines
// (a log being written ends in a whole line); 'nan' / 'inf' parse as such.
py::tuple read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) log_error(path, std::string("cannot open: ") + std::strerror(errno));
  std::string line;
  if (!std::getline(in, line)) log_error(path, "empty file (no header)");
  std::vector<std::string> columns;
  {
    std::stringstream ss(line);
    std::string name;
    while (std::getline(ss, name, ',')) columns.push_back(name);
  }
  const std::size_t n = columns.size();
  std::vector<double> values;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const char* p = line.c_str();
    for (std::size_t j = 0; j < n; ++j) {
      char* end = nullptr;
      const double x = std::strtod(p, &end);
      if (end == p || (j + 1 < n ? *end != ',' : *end != '\0'))
        log_error(path, "line " + std::to_string(rows + 2) + ", column '" + columns[j] + "': not a number");
      values.push_back(x);
      p = end + (j + 1 < n ? 1 : 0);
    }
    ++rows;
  }
  py::array_t<double> a({rows, n});
  if (!values.empty()) std::memcpy(a.mutable_data(), values.data(), values.size() * sizeof(double));
  return py::make_tuple(columns, a);
}

struct H5 {
  hid_t id;
  herr_t (*close)(hid_t);
  ~H5() {
    if (id >= 0) close(id);
  }
};

std::vector<std::string> names_in(hid_t group) {
  std::vector<std::string> names;
  H5Literate(
      group, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names);
  return names;
}

py::object read_dataset(const std::string& path, hid_t loc, const std::string& name) {
  H5 d{H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose};
  if (d.id < 0) log_error(path, "cannot open dataset '" + name + "'");
  H5 space{H5Dget_space(d.id), H5Sclose};
  H5 type{H5Dget_type(d.id), H5Tclose};
  hsize_t n = 0;
  if (H5Sget_simple_extent_ndims(space.id) != 1) log_error(path, "dataset '" + name + "' is not 1-D");
  H5Sget_simple_extent_dims(space.id, &n, nullptr);
  if (H5Tget_class(type.id) == H5T_STRING) {
    std::vector<char*> text(n, nullptr);
    H5 mem{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5T_CSET_UTF8);
    if (n && H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0)
      log_error(path, "cannot read dataset '" + name + "'");
    py::list out;
    for (char* s : text) out.append(py::str(s ? s : ""));
    if (n) H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, text.data());
    return out;
  }
  py::array_t<double> a(static_cast<py::ssize_t>(n));
  if (n && H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.mutable_data()) < 0)
    log_error(path, "cannot read dataset '" + name + "'");
  return a;
}

py::dict read_attributes(hid_t file) {
  py::dict attrs;
  for (const char* name : {"status", "message", "t_end", "steps", "rows"}) {
    if (H5Aexists(file, name) <= 0) continue;
    H5 a{H5Aopen(file, name, H5P_DEFAULT), H5Aclose};
    H5 type{H5Aget_type(a.id), H5Tclose};
    if (H5Tget_class(type.id) == H5T_STRING) {
      char* s = nullptr;
      H5 mem{H5Tcopy(H5T_C_S1), H5Tclose};
      H5Tset_size(mem.id, H5T_VARIABLE);
      H5Tset_cset(mem.id, H5T_CSET_UTF8);
      if (H5Aread(a.id, mem.id, &s) >= 0 && s) {
        attrs[py::str(name)] = py::str(s);
        H5free_memory(s);
      }
    } else if (H5Tget_class(type.id) == H5T_INTEGER) {
      long long x = 0;
      if (H5Aread(a.id, H5T_NATIVE_LLONG, &x) >= 0) attrs[py::str(name)] = x;
    } else {
      double x = 0;
      if (H5Aread(a.id, H5T_NATIVE_DOUBLE, &x) >= 0) attrs[py::str(name)] = x;
    }
  }
  return attrs;
}

// (columns, {column: array}, attributes {status, message, t_end, steps, rows}, events {field: array/list}).
py::tuple read_hdf5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5 file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) log_error(path, "cannot open as HDF5");
  std::vector<std::string> columns;
  py::dict data, events;
  for (const std::string& name : names_in(file.id)) {
    if (name == "events") continue;
    data[py::str(name)] = read_dataset(path, file.id, name);
    columns.push_back(name);
  }
  // The writer's column order is not stored; time first, then by name.
  std::stable_partition(columns.begin(), columns.end(), [](const std::string& c) { return c == "t"; });
  if (H5Lexists(file.id, "events", H5P_DEFAULT) > 0) {
    H5 g{H5Gopen2(file.id, "events", H5P_DEFAULT), H5Gclose};
    for (const std::string& name : names_in(g.id)) events[py::str(name)] = read_dataset(path, g.id, name);
  }
  return py::make_tuple(columns, data, read_attributes(file.id), events);
}

}  // namespace

void init_logs(py::module_& m) {
  m.def("_read_csv", &read_csv, py::arg("path"));
  m.def("_read_hdf5", &read_hdf5, py::arg("path"));
}

}  // namespace articula::python
