#pragma once
// Checkpoints of a run and resuming it (docs/checkpoints.md).
//
// Every checkpoint_every_s of wall time, at a step boundary, the run writes the
// recorder's buffered frames (Recorder::flush) and copies its temporary file
// (job/output_file.hpp) to
// ".<name>.checkpoint.h5.tmp" beside the output, writes the batch state into the copy's
// /checkpoint group, makes it durable (fsync) and renames it onto
// ".<name>.checkpoint.h5" (write-then-rename). Whenever the process dies, SIGKILL
// included, the checkpoint file is a complete HDF5 file: the frames recorded up to the
// checkpoint and the state to continue from. A run stopped by a stop request (SIGINT,
// SIGTERM, SIGHUP, the stop hook) writes the same group into its own output instead.
//
//   /checkpoint                      attributes: format (1), version (SIMPHANT_VERSION),
//                                    options (JSON of the run's options), steps_done,
//                                    since_record, frames, wall_time_s, loop_wall_time_s,
//                                    stats_have_e0
//   /checkpoint/y             (I, S) the integrator state (Simulator::get_state)
//   /checkpoint/steps         (I)    int64, each instance's steps since its reset
//   /checkpoint/status        (I)    int8
//   /checkpoint/status_steps  (I)    int64
//   /checkpoint/episodes      (I)    uint64, domain-randomisation episodes
//   /checkpoint/inputs        (I, U) actuator inputs (host backends; a device backend's
//                                    inputs are the scene's, rebuilt with the scene)
//   /checkpoint/reductions    (I, R) the accumulators of the reductions over time
//                                    (Simulator::get_reduction_state), when enabled
//   /checkpoint/integrator_state (I, W) what an adaptive integrator keeps between grid
//                                    times (Simulator::get_integrator_state), when W > 0
//   /checkpoint/stats/{e0, max_violation, max_abs_drift, max_ke} (I) the run statistics
//   /checkpoint/error_estimate/{y, steps, status, status_steps, status_reason} the dt/2
//                                    batch of a run with solver.error_estimate
//                                    (job/error_estimate.hpp), as the main batch's
//
// `simphant run --resume OUT.h5` (JobOptions::resume) continues from the checkpoint file
// beside OUT.h5 when there is one, else from OUT.h5 itself (a stopped run): it copies
// that file to its own temporary file, drops the frames after the checkpoint and the
// /checkpoint group, restores the batch and appends; the source is not modified. The
// finished file equals an uninterrupted run's dataset by dataset, bit for bit.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/io/recorder.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

/// ".<name>.checkpoint.h5" beside `out`: the last checkpoint of the run writing `out`.
std::string checkpoint_file_name(const std::string& out);

/// Whether `simphant run --resume out` has something to continue: the checkpoint file
/// beside `out` exists, or `out` is a stopped run (interrupted = 1) that holds a
/// /checkpoint group. For schedulers that start a run or continue it: resume when true.
bool resumable(const std::string& out);

namespace job_detail {

/// Where the step loop stands at a checkpoint (every frame up to here is written).
struct LoopPoint {
  std::int64_t steps_done = 0;    ///< batch steps taken (Simulator::steps_taken())
  std::int64_t since_record = 0;  ///< steps since the last record point
  std::int64_t frames = 0;        ///< frames in the file
  double wall_s = 0;              ///< [s] wall time of the run so far, earlier sessions included
  double loop_wall_s = 0;         ///< [s] wall time of the step loops so far
};

/// The batch at a checkpoint, as read back.
struct BatchState {
  LoopPoint at;
  int n_instances = 0, state_size = 0, n_inputs = 0;
  std::vector<double> y, inputs;
  std::vector<std::int64_t> steps, status_steps;
  std::vector<std::int8_t> status, reasons;  ///< reasons: /status_reason codes
  std::vector<std::uint64_t> episodes;
  int reduction_size = 0;           ///< accumulator numbers per instance (0: none stored)
  std::vector<double> reductions;   ///< (I, reduction_size) reductions over time
  int integrator_state_size = 0;    ///< adaptive integrator numbers per instance (0: none stored)
  std::vector<double> integrator_state;  ///< (I, integrator_state_size)
  RunStats::Saved stats;
  /// (I) each: the refined solves of the sessions so far (Simulator::read_refinement;
  /// empty: none stored).
  std::vector<std::int64_t> refine_unconverged;
  std::vector<double> refine_worst, refine_worst_time;
  /// The dt/2 batch of an error-estimate run (job/error_estimate.hpp); has_half false: none stored.
  bool has_half = false;
  std::vector<double> half_y;
  std::vector<std::int64_t> half_steps, half_status_steps;
  std::vector<std::int8_t> half_status, half_reasons;
};

/// A run to continue (JobOptions::resume).
struct ResumePoint {
  /// The options the run was started with (scene text from the file), with the given
  /// threads and checkpoint_every_s, out = the resumed output and resume = "".
  JobOptions options;
  std::string source;  ///< the file holding the checkpoint: the checkpoint file or the output
  LoopPoint at;
  /// The run's root attribute sweep_design_crc64 ("" when it has none): the CRC-64 of
  /// its design file, which the resumed run's design file must still have.
  std::string design_crc64;
  /// The run's root attribute input_files ("" when it has none): the fingerprints of the
  /// files behind its scene (job/input_digests.hpp), which must not have changed.
  std::string input_files;
};

/// Throws SceneError("/sweep/file", ...) when the design file that `sweep` read is not
/// the one of the run to resume (its CRC-64 differs from resume.design_crc64): the
/// scene text alone does not pin a design that lives in another file.
void check_resumed_design(const ResumePoint& resume, const SweepSpec& sweep);

/// The --backend value that selects the backend named `backend` (Simulator::backend_name()):
/// cpu, cpu-simd, cuda and cuda-fused themselves; the joint-space forms reduced-aba /
/// reduced-cga -> cpu, their -lanes forms -> cpu-simd, cuda-reduced-* -> cuda; `requested`
/// for any other name.
std::string backend_option(const std::string& backend, const std::string& requested);

/// The options of `o` as stored in a checkpoint (JSON text), --backend the value that
/// selects the backend that ran (backend_option of Simulator::backend_name()), so that a
/// resumed run takes the same one (a robot run started with auto included).
std::string stored_options(const JobOptions& o, const std::string& backend);

/// Finds and checks the checkpoint of the run given.resume, before any work. Throws
/// SceneError, which the CLI turns into exit code 2, naming what is wrong: "--resume"
/// (no such output and no checkpoint, a completed run, a run without checkpoint, a file
/// of another simphant version or checkpoint format, a damaged checkpoint), "scene" (the
/// given scene differs from the stored one) or the option given with another value than
/// the run's ("--instances: ..."). Nothing is written.
ResumePoint find_resume(const JobOptions& given);

/// Copies resume.source to `partial` (the resumed run's temporary file), reads the batch
/// state from the copy and removes the /checkpoint group from it. Throws
/// std::runtime_error naming the file when the copy or a read fails.
BatchState take_checkpoint(const ResumePoint& resume, const std::string& partial);

/// Restores the batch (clock, instance states, inputs) and the run statistics, and the
/// dt/2 batch `half` of an error-estimate run (null: none; its clock is 2 steps_done).
/// Throws SceneError("--resume", ...) when the checkpoint does not fit the rebuilt batch
/// (another number of instances or state size: the scene's files changed; no dt/2 batch
/// stored for a run that has one).
void restore_batch(const BatchState& state, Simulator& sim, RunStats& stats, Simulator* half = nullptr);

/// Writes the run's checkpoints (see above).
class Checkpointer {
 public:
  /// every_s: [s] of wall time between checkpoints, 0 = none. options: stored_options().
  Checkpointer(const std::string& out, double every_s, std::string options);
  /// Whether a checkpoint is due (every_s of wall time since the last, or since the
  /// step loop started: start()).
  bool due() const;
  void start();
  /// Copies the recorder's file with the batch state onto the checkpoint file. A failure
  /// (a full disk, ...) is logged as a warning (once per reason), the temporary copy
  /// removed and the previous checkpoint kept: the run goes on. A checkpoint that takes more than 2 % of
  /// the interval is reported once, with an interval that keeps the share near 1 %.
  /// half: the dt/2 batch of an error-estimate run, or null.
  void save(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
            const Simulator* half = nullptr);
  /// Writes the batch state into the recorder's own file (a run stopped on request:
  /// resuming reads its output). Throws h5::H5Error when a write fails.
  void store(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
             const Simulator* half = nullptr);
  /// The output has been committed (this run still holds its lock) and holds what
  /// resuming needs, or the run is over: removes the checkpoint file and the temporary
  /// files ".<name>.partial-<pid>" that killed runs of this output left.
  void discard();

  int count() const { return count_; }                ///< checkpoints saved
  double seconds() const { return seconds_; }         ///< [s] spent saving them
  const std::string& path() const { return path_; }   ///< the checkpoint file

 private:
  std::string out_, path_, temp_, options_;
  double every_s_ = 0;
  double last_ = 0;  ///< steady clock [s] of the last checkpoint (or start())
  int count_ = 0;
  double seconds_ = 0;
  bool warned_cost_ = false;  ///< the cost warning was given
  std::string failure_;       ///< why the last checkpoint failed (warned once per reason)
};

}  // namespace job_detail
}  // namespace simphant
