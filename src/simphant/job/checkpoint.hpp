#pragma once
// Checkpoints of a run (docs/checkpoints.md): when they are written and how.
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
// The group's layout: job/checkpoint_state.hpp; resuming: job/resume.hpp.
#include <string>

#include "simphant/io/recorder.hpp"
#include "simphant/job/checkpoint_state.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace job_detail {

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
