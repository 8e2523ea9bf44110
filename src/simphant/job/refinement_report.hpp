#pragma once
// The refined Schur solves of a run (Backend::read_refinement; docs/solver.md, "The refined
// regularised solve"): per instance, how many solves ended with an error estimate above
// refinement_tolerance, and the largest relative error estimate with its time. Written to
// the output by the session that ends the run:
//
//   /refinement/unconverged      (I) int64  refined solves above the tolerance
//   /refinement/max_error        (I) [1]    largest relative error estimate of lambda (C norm)
//   /refinement/max_error_time   (I) [s]    the instance time of that solve
//   /refinement/min_pivot        (I) [1]    the rank watch: smallest relative pivot of a
//                                           Schur factorisation (formulas/pivot_watch.hpp;
//                                           +inf: none)
//   /refinement/min_pivot_time   (I) [s]    the instance time of that factorisation
//
// and reduced for the summary (refinement_unconverged_solves, refinement_unconverged_instances,
// refinement_max_error: job/run_summary.hpp), with a warning per instance for the worst
// kRefinementWarningsListed of them.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/io/recorder.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

/// Most instances with unconverged solves listed as warnings (the largest error first).
constexpr int kRefinementWarningsListed = 5;

struct RefinementReport {
  std::vector<std::int64_t> unconverged;   ///< (I)
  std::vector<double> max_error, max_error_time;  ///< (I) [1], [s]
  std::vector<double> min_pivot, min_pivot_time;  ///< (I) [1], [s]: the rank watch
  std::int64_t unconverged_solves = 0;     ///< sum over the instances
  int unconverged_instances = 0;           ///< instances with at least one
  double max_error_all = 0;                ///< the largest over the instances (NaN if any is NaN)
  int singular_instances = 0;              ///< instances whose min_pivot is below kSingularRelativePivot (or NaN)
  double min_pivot_all = no_schur_pivot<double>();  ///< the smallest over the instances (NaN if any is NaN)
};

/// Reduces per-instance records (the run's, or its tangents' solves: sensitivity_refinement_warning).
RefinementReport reduce_refinement(const std::vector<RefinementRecord>& records);

/// Reads and reduces `sim`'s record.
RefinementReport refinement_report(const Simulator& sim);

/// One warning per instance with unconverged solves, the largest error first, at most
/// kRefinementWarningsListed, then one line for the rest; none when every solve converged.
std::vector<std::string> refinement_warnings(const RefinementReport& report, double tikhonov_epsilon,
                                             int refinement_steps);

/// Writes the /refinement datasets above. Throws h5::H5Error when a write fails.
void write_refinement_report(Recorder& recorder, const RefinementReport& report);

/// The refined solves of the tangents of a run with sensitivities
/// (Simulator::sensitivity_refinement, reduced): one warning naming how many tangent solves
/// of how many instances ended above the tolerance and the worst, or "" when none did.
std::string sensitivity_refinement_warning(const RefinementReport& report, int refinement_steps);

/// Writes /sensitivity_refinement/unconverged (I) int64, max_error (I) [1] and
/// max_error_time (I) [s]: as /refinement's, for the tangents' solves. Throws
/// h5::H5Error when a write fails.
void write_sensitivity_refinement(Recorder& recorder, const RefinementReport& report);

}  // namespace simphant
