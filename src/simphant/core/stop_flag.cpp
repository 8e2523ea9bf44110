#include "simphant/core/stop_flag.hpp"

#include <atomic>

namespace simphant {

namespace {
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "request_stop must be async-signal-safe");
}  // namespace

void request_stop() noexcept { g_stop.store(true, std::memory_order_relaxed); }

bool stop_requested() noexcept { return g_stop.load(std::memory_order_relaxed); }

void clear_stop_request() noexcept { g_stop.store(false, std::memory_order_relaxed); }

void throw_if_stop_requested(const char* stage) {
  if (stop_requested()) throw Interrupted(stage);
}

}  // namespace simphant
