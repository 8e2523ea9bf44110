#pragma once
// Graceful stop on Ctrl-C (SIGINT), SIGTERM and SIGHUP: the handler records the signal
// and sets the library's stop flag (core/stop_flag.hpp, request_stop), so set-up
// (compiling instance models, assembly) ends within one instance's work and the run loop
// stops after its current slice of steps; what was computed is recorded, the output file
// is closed with stop_reason "signal SIGINT" and the process exits with 128 + signal (130
// SIGINT, 143 SIGTERM, 129 SIGHUP). The handler is one-shot: a second signal kills the
// process at once. SIGXFSZ (a file size limit, ulimit -f) is ignored, so that exceeding
// the limit is a write error (EFBIG) that marks the output file instead of a kill.
#include <string>

namespace simphant::cli {

/// Installs the SIGINT / SIGTERM / SIGHUP handlers and ignores SIGXFSZ.
void install_stop_handlers();
/// Whether a stop signal has arrived.
bool stop_requested();
/// The signal that arrived (0 if none).
int stop_signal();
/// "SIGINT", "SIGTERM", "SIGHUP" for the signal that arrived, "" if none.
std::string stop_signal_name();

}  // namespace simphant::cli
