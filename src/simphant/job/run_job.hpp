#pragma once
// The main job of SimPhant, `simphant run`, as a library call: load the
// scene, apply the options, sample the sweep, build and assemble every instance,
// integrate all of them, record HDF5 (README "Output (HDF5)") and return the summary.
// The CLI, the Python package and services run this one code path, so the same scene,
// options and seed give a bit-identical file whichever way the job was started.
//
//   simphant::JobOptions o;
//   o.scene = "examples/four_bar.json";
//   o.instances = 100;
//   simphant::JobResult r = simphant::run_job(o);   // writes four_bar.h5
//   std::cout << r.summary["throughput_instance_steps_per_s"] << "\n";
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/job/job_options.hpp"

namespace simphant {

/// Where the step loop stands; passed to JobHooks::progress.
struct JobProgress {
  std::int64_t steps_done = 0, steps_total = 0;
  double sim_time = 0;             ///< [s]
  int n_instances = 0;
};

/// Optional callbacks, called on the thread that runs run_job.
struct JobHooks {
  /// Called after each slice of steps (about 50 ms of work). When empty, run_job writes
  /// progress lines to the simphant logger instead (info level, simphant/log/log.hpp):
  /// "step 1500/3000 (50%), t = 1.5 s, ETA 12 s", at most one per progress_log_interval_s.
  std::function<void(const JobProgress&)> progress;
  /// Polled between slices (and once after the loop); true stops the run
  /// as SIGINT does in the CLI: the state reached is recorded, the file gets
  /// interrupted = 1 and stop_reason, and is closed, and the result has exit_code 130 and
  /// summary "interrupted": true. The process-wide stop flag (core/stop_flag.hpp,
  /// request_stop) does the same, and also ends set-up early (see run_job).
  std::function<bool()> stop_requested;
  /// Why the stop was requested, written as the file's stop_reason (e.g. "signal
  /// SIGINT"); when empty, "stop requested".
  std::function<std::string()> stop_reason;
  /// [s] between progress log lines when `progress` is empty (0: after every slice), and
  /// between the records of progress_file.
  double progress_log_interval_s = 5.0;
  /// Progress as machine-readable records, for a caller that follows a run from another
  /// process (the service): a file that the run appends JSON lines to (job/progress_log.hpp),
  /// one every progress_log_interval_s and one when the step loop ends, whatever
  /// `progress` is. "": none. Refused like the output when it is an input of the run or
  /// the output (SceneError("--progress-file", ...)); a file that cannot be opened for
  /// appending is a std::runtime_error naming it.
  std::string progress_file;
};

struct JobResult {
  /// 0 ok (at least one instance ended ok); 3 no instance ended ok (also when the run
  /// ended because no instance was left alive) or the output could not be written to the
  /// end (output_error); 130 stopped by a stop request (the CLI turns it into 128 + the
  /// signal).
  int exit_code = 0;
  std::string out_file;            ///< the HDF5 file written
  /// Set when writing the output failed during the run ("disk full (ENOSPC): out.h5",
  /// "write error: ..."): the run stopped there, and out_file holds the frames written
  /// before, marked interrupted = 1 with this stop_reason.
  std::string output_error;
  nlohmann::json summary;          ///< every figure of the run, keys in run_summary.hpp
};

/// Runs the job.
///
/// Before any work: refuses bad options and scenes (SceneError naming the JSON path or
/// the option, e.g. "--precision: ...", "--out: ... is an input of the run", "--shard: K = 4
/// must be < N = 4", more shards than instances), a backend
/// this machine cannot run (BackendError), an output path that cannot be written and a
/// job whose memory estimate exceeds 80 % of physical memory (std::runtime_error,
/// job/memory_estimate.hpp); then takes the output's lock (job/output_file.hpp: OutputBusy
/// when another run is writing the same file).
///
/// The results go to a temporary file beside the output (".<name>.partial-<pid>"),
/// renamed onto it when the run ends, completed or stopped early; an existing output is
/// untouched until then. Every checkpoint_every_s of wall time a checkpoint
/// ".<name>.checkpoint.h5" is written beside it, and a run stopped by a stop request
/// stores its state in the output (group /checkpoint), so that options.resume can
/// continue either (job/checkpoint.hpp); the checkpoint file is removed when the output
/// is committed (kept after a failed write, to resume from). The file's stop_reason says how the run ended: "completed";
/// the stop hook's reason or "stop requested"; "no instance alive" (every instance
/// failed assembly or diverged: the loop ends there, exit_code 3); or, when a write
/// fails, "disk full (ENOSPC): <out>" / "write error: ..." (output_error, exit_code 3).
///
/// A stop requested during set-up through the stop flag of core/stop_flag.hpp (polled
/// while the instance models are compiled and assembled) ends it within one instance's
/// work: Interrupted is thrown and no output file is written. (The hook is first polled
/// by the step loop.)
/// Later failures: BackendError (device), std::runtime_error (the temporary file could
/// not be completed or renamed: the message names it; h5::H5Error when it could not be
/// created); the file is then marked "error: ..." and kept when it can be.
///
/// For tests, the environment variable SIMPHANT_TEST_HOLD holds the run in set-up or at
/// a given step until a gate file appears (job/test_hold.hpp; docs/reliability.md, "Test
/// hooks"); a value not of its forms is refused with std::invalid_argument.
JobResult run_job(const JobOptions& options, const JobHooks& hooks = {});

}  // namespace simphant
