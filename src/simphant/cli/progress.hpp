#pragma once
// A one-line progress bar on stderr, drawn only when stderr is a terminal and redrawn
// at most 10 times per second.
#include <chrono>
#include <cstdint>

namespace simphant::cli {

class ProgressBar {
 public:
  /// total_steps: steps of the whole run; n_instances: for the throughput figure.
  ProgressBar(std::int64_t total_steps, int n_instances);
  ~ProgressBar() { finish(); }
  /// Redraws if enabled and at least 0.1 s have passed (or force).
  void update(std::int64_t steps_done, double sim_time, bool force = false);
  /// Clears the line (once).
  void finish();
  bool enabled() const { return enabled_; }

 private:
  using Clock = std::chrono::steady_clock;
  std::int64_t total_;
  int n_instances_;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_, last_;
};

}  // namespace simphant::cli
