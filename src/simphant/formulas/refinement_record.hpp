#pragma once
// What the refined solves of one instance reported (docs/solver.md, "The refined
// regularised solve"; formulas/refined_solve.hpp): how many ended with an error estimate
// above refinement_tolerance, and the largest estimate with its time; and the rank watch
// of their factorisations (formulas/pivot_watch.hpp): the smallest relative pivot with its
// time. The CPU reference
// keeps one per worker's Data and per instance (sim/cpu_backend.cpp); the batched paths
// keep the same numbers in their per-instance arrays (kernels/refine.hpp, refine_record).
#include <cstdint>

#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/formulas/refined_solve.hpp"

namespace simphant {

struct RefinementRecord {
  std::int64_t unconverged = 0;  ///< solves whose relative error estimate ended above the tolerance
  double worst = 0;              ///< the largest relative error estimate (NaN: a solve was not finite)
  double worst_time = 0;         ///< the instance time [s] of that solve
  double min_pivot = no_schur_pivot<double>();  ///< the smallest relative pivot of a factorisation (pivot_watch.hpp)
  double min_pivot_time = 0;     ///< the instance time [s] of that factorisation

  /// One solve at instance time t [s] with relative error estimate rel (< 0: not checked,
  /// solver.refinement_steps 0): record_refined_solve.
  void add(double rel, double t) { record_refined_solve(rel, t, unconverged, worst, worst_time); }

  /// One factorisation at instance time t [s] with smallest relative pivot rho.
  void add_pivot(double rho, double t) { keep_smallest_pivot(rho, t, min_pivot, min_pivot_time); }

  /// Adds the solves of `o` (a later stretch of the same instance).
  void merge(const RefinementRecord& o) {
    unconverged += o.unconverged;
    keep_worst_estimate(o.worst, o.worst_time, worst, worst_time);
    add_pivot(o.min_pivot, o.min_pivot_time);
  }
};

/// For its lifetime, gathers the solves a worker records (a Data's refinement, cleared on
/// entry) into one instance's record (merged on exit): the CPU backend wraps each
/// instance's stretch of steps in one.
class RefinementScope {
 public:
  RefinementScope(RefinementRecord& worker, RefinementRecord& instance) : worker_(worker), instance_(instance) {
    worker_ = RefinementRecord{};
  }
  ~RefinementScope() { instance_.merge(worker_); }
  RefinementScope(const RefinementScope&) = delete;
  RefinementScope& operator=(const RefinementScope&) = delete;

 private:
  RefinementRecord& worker_;
  RefinementRecord& instance_;
};

}  // namespace simphant
