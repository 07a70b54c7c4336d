#pragma once
/// Reading a telemetry log back (docs/telemetry.md): the CSV trio (run.csv, run.events.csv,
/// run.status.yaml) or one HDF5 file (run.h5), into one table of numbers by column name.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "articula/engine/telemetry.hpp"

namespace articula {

/// A log that cannot be read or parsed; the message names the file and, where it applies, the
/// line and the column.
struct LogReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LogTable {
  std::string path;
  std::string format;                ///< "csv" or "hdf5"
  std::vector<std::string> columns;  ///< CSV: as written; HDF5: "t" first, then by name
  std::size_t rows = 0;
  std::vector<double> values;       ///< rows × columns, row-major
  std::vector<EventLogRow> events;  ///< in time order (CSV: empty without run.events.csv)
  std::string status, message;      ///< the recorded status ("" when none was found)
  bool has_end = false;             ///< t_end and steps were recorded (a finished run)
  double t_end = 0.0;
  long steps = 0;

  /// Index of a column, or −1.
  long column(const std::string& name) const;
  double at(std::size_t row, std::size_t col) const { return values[row * columns.size() + col]; }
};

/// Reads `path`: HDF5 when it ends in .h5 / .hdf5, else CSV. @throws LogReadError.
LogTable read_log(const std::string& path);

}  // namespace articula
