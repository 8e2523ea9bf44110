#include "signals.hpp"

#include <csignal>

namespace simphant::cli {

namespace {
volatile std::sig_atomic_t g_signal = 0;

// The first stop signal is recorded and both handlers go back to the default action,
// so that a second signal, of either kind, ends the process at once. signal() is
// async-signal-safe (POSIX).
extern "C" void on_stop_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_signal != 0; }

int stop_signal() { return g_signal; }

}  // namespace simphant::cli
