#pragma once
// Graceful stop on Ctrl-C (SIGINT) and SIGTERM: the handler only records the signal;
// the run loop polls stop_requested() between chunks, records what it has, closes the
// output file and exits with 128 + signal (130 for SIGINT, 143 for SIGTERM). The handler
// is one-shot (SA_RESETHAND): a second signal kills the process at once.
namespace simphant::cli {

/// Installs the SIGINT / SIGTERM handlers.
void install_stop_handlers();
/// Whether a stop signal has arrived.
bool stop_requested();
/// The signal that arrived (0 if none).
int stop_signal();

}  // namespace simphant::cli
