#pragma once
// What a run says when instances of a closed-loop mechanism diverge without projection
// (docs/solver.md, "Singular configurations"): such a mechanism that passes a
// configuration where Phi_q loses rank (links lining up, as a parallelogram passing its
// flat position) leaves its branch there, and Baumgarte alone does not bring it back:
// the violation or the kinetic energy then passes its bound (measured on the
// parallelogram chain). The run cannot tell such a passage from another cause of the
// divergence, so the hint says "if" and names the option that carries the passage.
// The rank watch (formulas/pivot_watch.hpp) sees the passage itself, diverged or not:
// singular_passage_warnings names each instance whose smallest relative pivot fell below
// kSingularRelativePivot, with the time.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// One warning when some instance's final status is diverged with reason
/// constraint_violation or runaway, the model has a closed loop (has_closed_loop) and
/// solver.projection is none or auto (which projects only where it sees a passage): how
/// many, the first of them (by status time) with its reason and time, and
/// solver.projection: position_velocity. "" otherwise.
/// status, reason, time: (I) as Simulator::read_status gives them.
std::string singular_passage_hint(const Model& model, const std::vector<std::int8_t>& status,
                                  const std::vector<std::int8_t>& reason, const std::vector<double>& time);

/// Whether the rank watch of `model`'s run tells singular passages (formulas/pivot_watch.hpp):
/// not when solver.redundant_rows is keep on a closed loop, whose kept redundant rows hold
/// the smallest relative pivot at the shift throughout.
bool rank_watch_tells(const Model& model);

/// Most instances singular_passage_warnings lists (the smallest pivot first).
constexpr int kSingularPassagesListed = 5;

/// One warning per instance whose smallest relative pivot min_pivot[i] (I; the rank
/// watch, /refinement/min_pivot) is below kSingularRelativePivot or NaN, the smallest
/// first, at most kSingularPassagesListed, then one line for the rest: the instance, the
/// time min_pivot_time[i] [s], the pivot, and what the run did about it: held on the
/// manifold (position_velocity, or auto where the pivot fell below its
/// auto_projection_pivot), said once for those; otherwise the option that carries the
/// passage. None where the watch does not tell (rank_watch_tells).
std::vector<std::string> singular_passage_warnings(const Model& model, const std::vector<double>& min_pivot,
                                                   const std::vector<double>& min_pivot_time);

}  // namespace simphant
