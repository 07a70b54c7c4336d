// Reading telemetry logs back (formats: docs/telemetry.md). CSV fields follow RFC 4180 (quoted
// when they hold a comma, a quote or a line break); HDF5 through the C library.
#include "articula/io/log_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace articula {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw LogReadError("read_log: '" + path + "': " + what);
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Splits the next CSV record of `text` from `pos` into fields (RFC 4180); false at the end.
bool next_record(const std::string& text, std::size_t& pos, std::vector<std::string>& fields) {
  fields.clear();
  if (pos >= text.size()) return false;
  std::string field;
  bool quoted = false;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"' && pos < text.size() && text[pos] == '"')
        field += '"', ++pos;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      break;
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return true;
}

std::string slurp(const std::string& path, bool required) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (required) fail(path, std::string("cannot open: ") + std::strerror(errno));
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double number(const std::string& path, const std::string& field, std::size_t line, const std::string& column) {
  char* end = nullptr;
  const double x = std::strtod(field.c_str(), &end);
  if (field.empty() || *end != '\0')
    fail(path, "line " + std::to_string(line) + ", column '" + column + "': '" + field + "' is not a number");
  return x;
}

std::string sibling(const std::string& path, const char* suffix) {
  return (ends_with(path, ".csv") ? path.substr(0, path.size() - 4) : path) + suffix;
}

// The `key: value` of a status file's line, unquoted (docs/telemetry.md).
std::string status_value(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::string v = line.substr(key.size() + 1);
    v.erase(0, v.find_first_not_of(' '));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    return v;
  }
  return {};
}

LogTable read_csv(const std::string& path) {
  LogTable t;
  t.path = path;
  t.format = "csv";
  const std::string text = slurp(path, true);
  std::size_t pos = 0;
  if (!next_record(text, pos, t.columns) || (t.columns.size() == 1 && t.columns[0].empty()))
    fail(path, "empty file (no header)");
  std::vector<std::string> f;
  for (std::size_t line = 2; next_record(text, pos, f); ++line) {
    if (f.size() == 1 && f[0].empty()) continue;
    if (pos >= text.size() && text.back() != '\n') break;  // a last line still being written
    if (f.size() != t.columns.size())
      fail(path, "line " + std::to_string(line) + " has " + std::to_string(f.size()) + " fields, the header " +
                     std::to_string(t.columns.size()));
    for (std::size_t j = 0; j < f.size(); ++j) t.values.push_back(number(path, f[j], line, t.columns[j]));
    ++t.rows;
  }
  const std::string events_path = sibling(path, ".events.csv"), events = slurp(events_path, false);
  pos = 0;
  if (next_record(events, pos, f)) {
    const std::vector<std::string> header = f;
    for (std::size_t line = 2; next_record(events, pos, f); ++line) {
      if (f.size() == 1 && f[0].empty()) continue;
      if (f.size() != header.size() || f.size() < 8)
        fail(events_path, "line " + std::to_string(line) + ": expected " + std::to_string(header.size()) + " fields");
      t.events.push_back({number(events_path, f[0], line, header[0]), f[1], f[2],
                          number(events_path, f[3], line, header[3]), number(events_path, f[4], line, header[4]),
                          number(events_path, f[5], line, header[5]), number(events_path, f[6], line, header[6]),
                          number(events_path, f[7], line, header[7])});
    }
  }
  const std::string status = slurp(sibling(path, ".status.yaml"), false);
  t.status = status_value(status, "status");
  t.message = status_value(status, "message");
  const std::string t_end = status_value(status, "t_end"), steps = status_value(status, "steps");
  if (!t_end.empty() && !steps.empty()) {
    t.has_end = true;
    t.t_end = std::strtod(t_end.c_str(), nullptr);
    t.steps = std::strtol(steps.c_str(), nullptr, 10);
  }
  return t;
}

struct H5 {
  hid_t id;
  herr_t (*close)(hid_t);
  H5(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
  ~H5() {
    if (id >= 0) close(id);
  }
};

std::vector<std::string> names_in(hid_t group) {
  std::vector<std::string> names;
  H5Literate(
      group, H5_INDEX_NAME, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  return names;
}

hsize_t length(const std::string& path, hid_t d, const std::string& name) {
  H5 space(H5Dget_space(d), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.id) != 1) fail(path, "dataset '" + name + "' is not 1-D");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.id, &n, nullptr);
  return n;
}

std::vector<double> numbers(const std::string& path, hid_t loc, const std::string& name) {
  H5 d(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (d.id < 0) fail(path, "cannot open dataset '" + name + "'");
  std::vector<double> x(length(path, d.id, name));
  if (!x.empty() && H5Dread(d.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x.data()) < 0)
    fail(path, "cannot read dataset '" + name + "' as numbers");
  return x;
}

std::vector<std::string> strings(const std::string& path, hid_t loc, const std::string& name) {
  H5 d(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (d.id < 0) fail(path, "cannot open dataset '" + name + "'");
  H5 space(H5Dget_space(d.id), H5Sclose);
  std::vector<char*> text(length(path, d.id, name), nullptr);
  H5 mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.id, H5T_VARIABLE);
  H5Tset_cset(mem.id, H5T_CSET_UTF8);
  if (!text.empty() && H5Dread(d.id, mem.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0)
    fail(path, "cannot read dataset '" + name + "' as text");
  std::vector<std::string> out;
  for (char* s : text) out.emplace_back(s ? s : "");
  if (!text.empty()) H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, text.data());
  return out;
}

std::string string_attribute(hid_t file, const char* name) {
  if (H5Aexists(file, name) <= 0) return {};
  H5 a(H5Aopen(file, name, H5P_DEFAULT), H5Aclose);
  H5 mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.id, H5T_VARIABLE);
  H5Tset_cset(mem.id, H5T_CSET_UTF8);
  char* s = nullptr;
  std::string out;
  if (H5Aread(a.id, mem.id, &s) >= 0 && s) {
    out = s;
    H5free_memory(s);
  }
  return out;
}

LogTable read_hdf5(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.id < 0) fail(path, "cannot open as HDF5");
  LogTable t;
  t.path = path;
  t.format = "hdf5";
  for (std::string& name : names_in(file.id))
    if (name != "events") t.columns.push_back(std::move(name));
  // The writer's column order is not stored; time first, then by name.
  std::stable_partition(t.columns.begin(), t.columns.end(), [](const std::string& c) { return c == "t"; });
  if (t.columns.empty()) fail(path, "no column datasets");
  std::vector<std::vector<double>> cols;
  for (const std::string& c : t.columns) cols.push_back(numbers(path, file.id, c));
  t.rows = cols[0].size();
  for (std::size_t j = 0; j < cols.size(); ++j)
    if (cols[j].size() != t.rows)
      fail(path, "dataset '" + t.columns[j] + "' has another length than '" + t.columns[0] + "'");
  t.values.resize(t.rows * cols.size());
  for (std::size_t i = 0; i < t.rows; ++i)
    for (std::size_t j = 0; j < cols.size(); ++j) t.values[i * cols.size() + j] = cols[j][i];
  if (H5Lexists(file.id, "events", H5P_DEFAULT) > 0) {
    H5 g(H5Gopen2(file.id, "events", H5P_DEFAULT), H5Gclose);
    const auto time = numbers(path, g.id, "time"), kb = numbers(path, g.id, "kinetic_before"),
               ka = numbers(path, g.id, "kinetic_after"), pot = numbers(path, g.id, "potential"),
               mr = numbers(path, g.id, "momentum_residual"), cr = numbers(path, g.id, "constraint_residual");
    const auto names = strings(path, g.id, "name"), actions = strings(path, g.id, "actions");
    for (const auto* v : {&kb, &ka, &pot, &mr, &cr})
      if (v->size() != time.size()) fail(path, "the event datasets have different lengths");
    if (names.size() != time.size() || actions.size() != time.size())
      fail(path, "the event datasets have different lengths");
    for (std::size_t i = 0; i < time.size(); ++i)
      t.events.push_back({time[i], names[i], actions[i], kb[i], ka[i], pot[i], mr[i], cr[i]});
  }
  t.status = string_attribute(file.id, "status");
  t.message = string_attribute(file.id, "message");
  if (H5Aexists(file.id, "t_end") > 0 && H5Aexists(file.id, "steps") > 0) {
    H5 a(H5Aopen(file.id, "t_end", H5P_DEFAULT), H5Aclose), b(H5Aopen(file.id, "steps", H5P_DEFAULT), H5Aclose);
    long long steps = 0;
    t.has_end = H5Aread(a.id, H5T_NATIVE_DOUBLE, &t.t_end) >= 0 && H5Aread(b.id, H5T_NATIVE_LLONG, &steps) >= 0;
    t.steps = static_cast<long>(steps);
  }
  return t;
}

}  // namespace

long LogTable::column(const std::string& name) const {
  const auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<long>(it - columns.begin());
}

LogTable read_log(const std::string& path) {
  return ends_with(path, ".h5") || ends_with(path, ".hdf5") ? read_hdf5(path) : read_csv(path);
}

}  // namespace articula
