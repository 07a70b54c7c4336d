// Signal handling of the command line (interrupt.hpp).
#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "articula/engine/simulator.hpp"

namespace articula::cli {
namespace {

std::atomic<Simulator*> g_running{nullptr};
std::atomic<int> g_signals{0};
// The temporary file to unlink if a signal ends the command (RemoveOnSignal); empty when none.
char g_remove[4096];
std::atomic<bool> g_remove_set{false};

// Only async-signal-safe calls here: atomic loads, request_stop() (an atomic store), unlink,
// write, _exit (POSIX.1-2017 XSH 2.4.3).
extern "C" void on_interrupt(int signal) {
  Simulator* sim = g_running.load();
  if (sim && g_signals.fetch_add(1) == 0) {
    sim->request_stop();
    return;
  }
  if (g_remove_set.load()) ::unlink(g_remove);
  static const char message[] = "\narticula: interrupted\n";
  const ssize_t ignored = ::write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  ::_exit(128 + signal);
}

}  // namespace

void install_signal_handlers() {
  ::signal(SIGXFSZ, SIG_IGN);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

RemoveOnSignal::RemoveOnSignal(const std::string& path) {
  if (path.size() >= sizeof g_remove) return;
  g_remove_set.store(false);
  std::memcpy(g_remove, path.c_str(), path.size() + 1);
  g_remove_set.store(true);
}

RemoveOnSignal::~RemoveOnSignal() { g_remove_set.store(false); }

StopOnSignals::StopOnSignals(Simulator& sim) {
  g_signals.store(0);
  g_running.store(&sim);
}

StopOnSignals::~StopOnSignals() { g_running.store(nullptr); }

}  // namespace articula::cli
