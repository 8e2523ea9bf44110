#pragma once
// A process-wide request to stop long work early (docs/reliability.md, "Stopping").
// A signal handler, another thread or an embedding application sets it; the loops of
// set-up poll it: Newton assembly once per iteration (dynamics/assembly.hpp), the
// per-instance model compilation once per instance (scene/scene.hpp), so a request
// ends set-up within one iteration of one instance. The step loop of a run polls it
// between slices of steps.
//
// request_stop() is async-signal-safe: it is one store to a lock-free std::atomic
// (C++17 [support.signal]), so a SIGINT / SIGTERM handler may call it.
#include <stdexcept>
#include <string>

namespace simphant {

/// Asks every polling loop to stop. Async-signal-safe; idempotent.
void request_stop() noexcept;

/// Whether a stop has been requested (and not cleared since). Async-signal-safe.
bool stop_requested() noexcept;

/// Withdraws the request, e.g. before the next job of a long-lived process (a service
/// worker, a Python session). Not for use while a job that should stop is running.
void clear_stop_request() noexcept;

/// Work that ended because a stop was requested. what() is "<stage>: interrupted
/// (stop requested)", e.g. "assembly: interrupted (stop requested)".
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(const std::string& stage) : std::runtime_error(stage + ": interrupted (stop requested)") {}
};

/// Throws Interrupted(stage) when a stop has been requested. Inside a ThreadPool region
/// (core/thread_pool.hpp) the exception ends the region, skipping the chunks not yet
/// started, and parallel_for rethrows it; work that must finish every item instead tests
/// stop_requested() and calls this after the region.
void throw_if_stop_requested(const char* stage);

}  // namespace simphant
