#pragma once
// Progress of a job as log lines (simphant/log/log.hpp, info level), for runs whose
// stderr is not a terminal (batch jobs, CI logs, services):
//   info: step 1500/3000 (50%), t = 1.5 s, ETA 12 s
// at most one line per interval, the first one interval after the loop starts.
#include <chrono>

#include "simphant/job/run_job.hpp"

namespace simphant {

class ProgressLog {
 public:
  /// interval_s: seconds between lines (0: a line at every update).
  explicit ProgressLog(double interval_s);
  /// Logs a line when the interval has passed since the last one (or since construction).
  void update(const JobProgress& p);

 private:
  using Clock = std::chrono::steady_clock;
  double interval_s_;
  Clock::time_point start_, last_;
};

}  // namespace simphant
