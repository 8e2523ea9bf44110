#pragma once
// Progress of a job as log lines (simphant/log/log.hpp, info level), for runs whose
// stderr is not a terminal (batch jobs, CI logs):
//   info: step 1500/3000 (50%), t = 1.5 s, ETA 12 s
// and as records for programs that follow the run (JobHooks::progress_file: the service),
// one JSON object a line, appended and flushed:
//   {"steps_done": 1500, "steps_total": 3000, "progress": 0.5, "sim_time_s": 1.5,
//    "eta_s": 12.0, "wall_s": 12.1, "instances": 100}
// (wall_s: seconds since the step loop of this process started; eta_s: the rest at the
// rate so far). At most one of each per interval, the first one interval after the loop
// starts; finish() adds the last record.
#include <chrono>
#include <fstream>
#include <string>

#include "simphant/job/run_job.hpp"

namespace simphant {

class ProgressLog {
 public:
  /// interval_s: seconds between lines and records (0: one at every update); lines: write
  /// the log lines; records_file: the file of records ("": none), opened for appending
  /// (std::runtime_error naming it when it cannot be).
  ProgressLog(double interval_s, bool lines, const std::string& records_file);
  /// A line and a record when the interval has passed since the last ones (or since
  /// construction).
  void update(const JobProgress& p);
  /// The last record, at the end of the step loop (no line).
  void finish(const JobProgress& p);

 private:
  using Clock = std::chrono::steady_clock;
  void record(const JobProgress& p, Clock::time_point now, double eta);
  double interval_s_;
  bool lines_;
  std::string records_path_;
  std::ofstream records_;
  Clock::time_point start_, last_;
};

}  // namespace simphant
