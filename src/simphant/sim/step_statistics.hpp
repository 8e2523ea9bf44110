#pragma once
// Backend::read_step_statistics for the fixed-step integrators (rk4, euler,
// symplectic_euler): each completed grid step is one accepted step of dt.
#include <cstdint>

#include "simphant/sim/backend.hpp"

namespace simphant {

/// Fills read_step_statistics' outputs (any may be null) for n instances from their
/// steps since the last reset (steps[i]), status and status step: an instance that is
/// not Ok took status_steps[i] steps before it stopped (0 for a failed assembly).
/// rejected 0, min_step = max_step = dt [s].
inline void fixed_step_statistics(int n, const std::int64_t* steps, const std::int8_t* status,
                                  const std::int64_t* status_steps, double dt, std::int64_t* accepted,
                                  std::int64_t* rejected, double* min_step, double* max_step) {
  for (int i = 0; i < n; ++i) {
    const bool ok = status[i] == static_cast<std::int8_t>(InstanceStatus::Ok);
    if (accepted) accepted[i] = ok || status_steps[i] > steps[i] ? steps[i] : status_steps[i];
    if (rejected) rejected[i] = 0;
    if (min_step) min_step[i] = dt;
    if (max_step) max_step[i] = dt;
  }
}

}  // namespace simphant
