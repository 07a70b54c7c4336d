#pragma once
/// Signals for every `articula` command (cli/interrupt.cpp):
/// - SIGXFSZ is ignored, so that a file-size limit (`ulimit -f`) makes write() fail with EFBIG
///   and the log's write-error path runs (status `error`, whole rows) instead of a silent death.
/// - Ctrl-C (SIGINT) and SIGTERM: while a simulation registered with StopOnSignals runs, they
///   ask it to stop before its next step (its logs end with status `interrupted`; the command
///   exits 130). Otherwise the command ends at once with 128 + the signal (130 for Ctrl-C) and
///   a line on stderr. A second signal always ends the command at once.
#include <string>

namespace articula {
class Simulator;
}

namespace articula::cli {

/// Installs the handlers (once, at the start of a command).
void install_signal_handlers();

/// While alive, a signal that ends the command first unlinks `path` (a temporary file being
/// written: `articula codegen` leaves no `.tmp` behind on Ctrl-C). One at a time; a path longer
/// than 4095 bytes is not registered.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path);
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
  ~RemoveOnSignal();
};

/// While alive, SIGINT / SIGTERM request `sim` to stop instead of ending the process.
class StopOnSignals {
 public:
  explicit StopOnSignals(Simulator& sim);
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;
  ~StopOnSignals();
};

}  // namespace articula::cli
