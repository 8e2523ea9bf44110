// The number of steps a run takes and the time it simulates to (docs/scene-format.md
// "Solver"): the runner steps a fixed dt, so a t_end that is not a multiple of dt is
// rounded to the nearest whole step (at least one).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "simphant/model/model.hpp"

namespace simphant {

/// Steps of a run: max(1, llround(t_end / dt)).
inline std::int64_t step_count(const SolverSettings& s) {
  return std::max<std::int64_t>(1, std::llround(s.t_end / s.dt));
}

/// The end time the run simulates [s]: step_count(s) * dt (the requested t_end rounded
/// to whole steps).
inline double simulated_t_end(const SolverSettings& s) { return static_cast<double>(step_count(s)) * s.dt; }

}  // namespace simphant
