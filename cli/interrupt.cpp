// Signal handling of the command line (interrupt.hpp).
#include "interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>

#include "articula/engine/simulator.hpp"

namespace articula::cli {
namespace {

std::atomic<Simulator*> g_running{nullptr};
std::atomic<int> g_signals{0};

// Only async-signal-safe calls here: an atomic load, request_stop() (an atomic store), write, _exit.
extern "C" void on_interrupt(int signal) {
  Simulator* sim = g_running.load();
  if (sim && g_signals.fetch_add(1) == 0) {
    sim->request_stop();
    return;
  }
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

StopOnSignals::StopOnSignals(Simulator& sim) {
  g_signals.store(0);
  g_running.store(&sim);
}

StopOnSignals::~StopOnSignals() { g_running.store(nullptr); }

}  // namespace articula::cli
