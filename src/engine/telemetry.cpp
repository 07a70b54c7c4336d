// Log formats by name, the factory by format, the header check and the wall-time flush timer
// shared by the CSV and HDF5 sinks (csv_log.cpp, hdf5_log.cpp).
#include "articula/engine/telemetry.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

#include "articula/common/enum_names.hpp"

namespace articula {

namespace {
constexpr EnumNames<LogFormat, 3> kLogFormats{
    {{LogFormat::Csv, "csv"}, {LogFormat::Hdf5, "hdf5"}, {LogFormat::Hdf5, "h5"}}};
}  // namespace

std::string to_string(LogFormat format) { return std::string(enum_name(kLogFormats, format)); }

LogFormat parse_log_format(const std::string& text) { return parse_enum(kLogFormats, text, "log format"); }

std::unique_ptr<LogSink> make_log(LogFormat format, const std::string& stem, double flush_period) {
  if (format == LogFormat::Csv) return make_csv_log(stem + ".csv", flush_period);
  return make_hdf5_log(stem + ".h5", flush_period);
}

void check_log_target(LogFormat format, const std::string& stem) {
  const std::vector<std::string> files =
      format == LogFormat::Csv ? std::vector<std::string>{stem + ".csv", stem + ".events.csv", stem + ".status.yaml"}
                               : std::vector<std::string>{stem + ".h5"};
  auto fail = [](const std::string& path, const std::string& why) {
    throw std::runtime_error("cannot write the log '" + path + "': " + why);
  };
  const auto slash = stem.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : stem.substr(0, slash);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) fail(files.front(), "its folder '" + dir + "': " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) fail(files.front(), "'" + dir + "' is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    fail(files.front(), "its folder '" + dir + "' is not writable (" + std::strerror(errno) + ")");
  for (const std::string& f : files) {
    if (::stat(f.c_str(), &st) != 0) continue;  // created by the log
    if (S_ISDIR(st.st_mode)) fail(f, "a folder is in its place");
    if (::access(f.c_str(), W_OK) != 0) fail(f, std::string("not writable (") + std::strerror(errno) + ")");
  }
}

void check_log_columns(const std::vector<std::string>& columns, const char* function) {
  if (columns.empty()) throw std::invalid_argument(std::string(function) + ": no columns");
  std::unordered_set<std::string> seen;
  for (const auto& name : columns) {
    if (name.empty()) throw std::invalid_argument(std::string(function) + ": empty column name");
    if (!seen.insert(name).second)
      throw std::invalid_argument(std::string(function) + ": duplicate column name '" + name + "'");
  }
}

namespace detail {

void remove_old_log(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

bool FlushTimer::due() {
  if (++count_ < stride_) return false;
  count_ = 0;
  const auto now = std::chrono::steady_clock::now();
  const double since_check = std::chrono::duration<double>(now - last_check_).count();
  last_check_ = now;
  // Aim at 4–8 clock reads per period.
  if (since_check * 8 < period_)
    stride_ = std::min(2 * stride_, 64);
  else if (since_check * 4 > period_)
    stride_ = std::max(stride_ / 2, 1);
  return std::chrono::duration<double>(now - last_write_).count() >= period_;
}

}  // namespace detail
}  // namespace articula
