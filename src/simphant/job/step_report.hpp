#pragma once
// The integrator's step statistics of a run (Backend::read_step_statistics), reduced for the
// summary (job/run_summary.hpp: integrator, accepted_steps, rejected_steps, min_step_s,
// max_step_s) and written to the output as root attributes of the same names; an adaptive
// run (dopri5, bdf) also writes them per instance:
//
//   /step_statistics/accepted (I) int64  accepted internal steps since the instance's reset
//   /step_statistics/rejected (I) int64  rejected step attempts (error test or, bdf, a failed
//                                        Newton iteration)
//   /step_statistics/min_step (I) [s]    smallest accepted step (0: none accepted)
//   /step_statistics/max_step (I) [s]    largest accepted step (0: none accepted)
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/io/recorder.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

struct StepReport {
  std::string integrator;        ///< integrator_name (model/integrator.hpp)
  bool adaptive = false;
  std::int64_t accepted = 0;     ///< sum over the instances
  std::int64_t rejected = 0;     ///< sum over the instances
  /// [s] smallest and largest accepted step over the instances that accepted one; NaN when
  /// none did (the summary then holds null).
  double min_step = 0, max_step = 0;
  std::vector<std::int64_t> accepted_i, rejected_i;  ///< (I) per instance
  std::vector<double> min_step_i, max_step_i;        ///< (I) [s] per instance
};

/// Reads and reduces `sim`'s step statistics.
StepReport step_report(const Simulator& sim);

/// Writes the root attributes integrator, accepted_steps, rejected_steps, min_step_s and
/// max_step_s (NaN when no step was accepted) and, for an adaptive integrator when
/// per_instance, the /step_statistics datasets above (once per file: a run stopped to be
/// resumed leaves them to the session that ends it). Throws h5::H5Error when a write fails.
void write_step_report(Recorder& recorder, const StepReport& report, bool per_instance);

}  // namespace simphant
