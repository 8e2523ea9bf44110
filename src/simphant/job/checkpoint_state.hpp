#pragma once
// The batch state of a checkpoint (docs/checkpoints.md): the group /checkpoint that a
// checkpoint file (job/checkpoint.hpp) and the output of a run stopped on request hold,
// written, read back and restored into a rebuilt batch (job/resume.hpp finds it).
//
//   /checkpoint                      attributes: format (kCheckpointFormat), version (SIMPHANT_VERSION),
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
//   /checkpoint/contact_impulse_start (I, 2 P) a run recording /contact_impulses: the
//                                    start of its next frame's interval (job/contact_impulses.hpp)
//   /checkpoint/integrator_state (I, W) what an adaptive integrator keeps between grid
//                                    times (Simulator::get_integrator_state), when W > 0
//   /checkpoint/refinement/{unconverged, max_error, max_error_time, min_pivot, min_pivot_time} (I) the refined
//                                    solves and the rank watch so far (Simulator::read_refinement)
//   /checkpoint/stats/{e0, max_violation, max_abs_drift, max_ke, drift_time} (I) the run statistics
//   /checkpoint/error_estimate/{y, steps, status, status_steps, status_reason} the dt/2
//                                    batch of a run with solver.error_estimate
//                                    (job/error_estimate.hpp), as the main batch's
#include <cstdint>
#include <string>
#include <vector>

#include <hdf5.h>

#include "simphant/job/run_stats.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

/// ".<name>.checkpoint.h5" beside `out`: the last checkpoint of the run writing `out`.
std::string checkpoint_file_name(const std::string& out);

namespace job_detail {

/// Layout version of /checkpoint; bump on any change (a resume refuses another).
constexpr std::int64_t kCheckpointFormat = 3;
/// The group's name.
constexpr const char* kCheckpointGroup = "checkpoint";

/// Where the step loop stands at a checkpoint (every frame up to here is written).
struct LoopPoint {
  std::int64_t steps_done = 0;    ///< batch steps taken (Simulator::steps_taken())
  std::int64_t since_record = 0;  ///< steps since the last record point
  std::int64_t frames = 0;        ///< frames in the file
  double wall_s = 0;              ///< [s] wall time of the run so far, earlier sessions included
  double loop_wall_s = 0;         ///< [s] wall time of the step loops so far
  /// A run recording /contact_impulses: the start of its next frame's interval
  /// (ContactImpulses::start(), (I, 2 P)); empty otherwise.
  std::vector<double> contact_impulse_start;
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
  /// (I) the refined solves and the rank watch of the sessions so far
  /// (Simulator::read_refinement; empty: none stored).
  std::vector<RefinementRecord> refinement;
  /// The dt/2 batch of an error-estimate run (job/error_estimate.hpp); has_half false: none stored.
  bool has_half = false;
  std::vector<double> half_y;
  std::vector<std::int64_t> half_steps, half_status_steps;
  std::vector<std::int8_t> half_status, half_reasons;
};

/// Writes /checkpoint into `file` (the group must not exist): the batch of `sim`, the run
/// statistics, where the loop stands, the run's options (stored_options, JSON text) and
/// the dt/2 batch `half` of an error-estimate run (null: none). Throws h5::H5Error.
void write_checkpoint_state(hid_t file, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                            const std::string& options, const Simulator* half);

/// Where the loop stood, from the attributes of an open /checkpoint group.
LoopPoint read_loop_point(hid_t group);

/// Reads /checkpoint of `file` back. Throws h5::H5Error.
BatchState read_checkpoint_state(hid_t file);

/// Restores the batch (clock, instance states, inputs) and the run statistics, and the
/// dt/2 batch `half` of an error-estimate run (null: none; its clock is 2 steps_done).
/// Throws SceneError("--resume", ...) when the checkpoint does not fit the rebuilt batch
/// (another number of instances or state size: the scene's files changed; no dt/2 batch
/// stored for a run that has one).
void restore_batch(const BatchState& state, Simulator& sim, RunStats& stats, Simulator* half = nullptr);

}  // namespace job_detail
}  // namespace simphant
