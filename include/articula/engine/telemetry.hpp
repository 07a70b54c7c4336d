#pragma once
/// Telemetry logs of a run: one row of numbers per sample under a fixed header of column
/// names (`t`, `q.joint_1`, `lambda.brake_1.0`, …), the events that happened, and the run's
/// status. Two formats with the same names:
/// - CSV  (`run.csv`): one header row, then one row per sample, readable by pandas and
///   PlotJuggler as is; `run.events.csv` lists the events; `run.status.yaml` the status
///   (`running` while the run goes, replaced atomically by the final status at the end).
/// - HDF5 (`run.h5`): one 1-D dataset per column at the root, named by the column; group
///   `/events` (datasets time, name, kinetic_before, kinetic_after, potential,
///   momentum_residual, constraint_residual); root attributes `status`, `message`.
/// Rows are buffered and written in whole lines (CSV) or whole chunks (HDF5) at least every
/// `flush_period` seconds of wall time and at the end, so a run that is killed leaves a
/// file that is valid up to its last flushed row. The CSV sink formats and writes its rows on
/// a thread of its own (docs/telemetry.md); flush() and finish() return once every
/// earlier row and event is in the files; event() queues its line behind the rows before it.
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace articula {

/// One event as it happened (see Simulator).
struct EventLogRow {
  double time = 0.0;
  std::string name;     ///< event name
  std::string actions;  ///< e.g. "enable brake_1 (locks); set u.motor_1=0"
  double kinetic_before = 0.0, kinetic_after = 0.0, potential = 0.0;
  double momentum_residual = 0.0, constraint_residual = 0.0;  ///< of the jump; 0 without one
};

/// Final state of a run as recorded in the log.
struct LogStatus {
  std::string status = "running";  ///< "completed", "stopped", "non_finite", … (RunStatus)
  std::string message;             ///< what happened, when and where
  double t_end = 0.0;
  long steps = 0;
};

enum class LogFormat { Csv, Hdf5 };
std::string to_string(LogFormat format);
/// "csv", "hdf5" (also "h5"); throws std::invalid_argument naming the valid ones.
LogFormat parse_log_format(const std::string& text);

class LogSink {
 public:
  virtual ~LogSink() = default;
  /// Starts the log with these column names (unique, non-empty). Creates/truncates the files;
  /// throws std::runtime_error naming the path if it cannot.
  virtual void begin(const std::vector<std::string>& columns) = 0;
  /// One row, columns.size() values (NaN allowed). No allocation once the buffer has grown.
  virtual void append(std::span<const double> row) = 0;
  virtual void event(const EventLogRow& event) = 0;
  /// Writes out the buffered rows and events (whole rows only); returns when they are written.
  /// Rethrows (std::runtime_error) a write error of an earlier background write.
  virtual void flush() = 0;
  /// Flushes and records the final status; the sink is closed afterwards.
  virtual void finish(const LogStatus& status) = 0;
  /// The main file written (run.csv / run.h5).
  virtual const std::string& path() const = 0;
};

/// CSV sink writing `path` (and its `.events.csv` / `.status.yaml` siblings next to it:
/// `dir/run.csv` → `dir/run.events.csv`, `dir/run.status.yaml`). Values with 17 significant
/// digits (round-trip exact); NaN as `nan`.
std::unique_ptr<LogSink> make_csv_log(const std::string& path, double flush_period = 0.2);
/// HDF5 sink writing `path`.
std::unique_ptr<LogSink> make_hdf5_log(const std::string& path, double flush_period = 0.2);
/// `stem` + ".csv" or ".h5" by format.
std::unique_ptr<LogSink> make_log(LogFormat format, const std::string& stem, double flush_period = 0.2);

/// Checks, before a run, that the log of `format` at `stem` can be created: its folder exists, is
/// a folder and is writable, and none of its files (`stem.csv`, `.events.csv`, `.status.yaml`,
/// or `stem.h5`) is a folder or a read-only file. A bad output path is bad input: callers
/// report it before the run starts (`articula run` / `estop`: exit code 2).
/// @throws std::runtime_error "cannot write the log 'PATH': REASON".
void check_log_target(LogFormat format, const std::string& stem);

/// Checks a header for LogSink::begin(): at least one column, names non-empty and unique.
/// @throws std::invalid_argument naming `function` and the offending name.
void check_log_columns(const std::vector<std::string>& columns, const char* function);

namespace detail {
/// Removes an earlier log at `path` before a sink creates its file, if it is a regular file (a
/// symbolic link or anything else is left to the open call). Truncating a file that holds
/// data instead costs ~0.3 ms on ext4 (the blocks are freed at once) and makes its close()
/// start writeback (auto_da_alloc); a fresh file costs ~0.05 ms. A reader that still has the
/// old file open keeps reading it, whole.
void remove_old_log(const std::string& path);
/// When a sink writes its buffered rows because `period` seconds of wall time (steady_clock)
/// passed since its last write. The clock is read every `stride` rows, the stride adapted
/// (1 … 64) so that it is read a few times per period: cheap for fast runs, timely for slow ones.
class FlushTimer {
 public:
  explicit FlushTimer(double period) : period_(period) {}
  /// Called once per appended row; true when the rows are due to be written.
  bool due();
  /// Called after each write.
  void restart() { last_write_ = std::chrono::steady_clock::now(); }

 private:
  double period_;
  int stride_ = 1, count_ = 0;
  std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_check_ = last_write_;
};
}  // namespace detail

}  // namespace articula
