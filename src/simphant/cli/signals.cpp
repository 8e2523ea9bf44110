#include "signals.hpp"

#include <csignal>

#include "simphant/core/stop_flag.hpp"

namespace simphant::cli {

namespace {
volatile std::sig_atomic_t g_signal = 0;

// The first stop signal is recorded, the library's stop flag set, and the handlers go
// back to the default action, so that a second signal, of any of the three kinds, ends
// the process at once. signal() and request_stop() are async-signal-safe.
extern "C" void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
  simphant::request_stop();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
}

bool stop_requested() { return g_signal != 0; }

int stop_signal() { return g_signal; }

std::string stop_signal_name() {
  switch (g_signal) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(static_cast<int>(g_signal));
  }
}

}  // namespace simphant::cli
