#pragma once
// Backend::read_step_statistics for the fixed-step integrators (rk4, euler,
// symplectic_euler): each completed grid step is one accepted step of dt.
#include <cstdint>
#include <vector>

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

/// The same for every instance of a backend whose steps, status and status steps are
/// read through Backend::get_state (the device backends: one copy back of those rows).
inline void fixed_step_statistics(const Backend& backend, double dt, std::int64_t* accepted, std::int64_t* rejected,
                                  double* min_step, double* max_step) {
  const int n = backend.n_instances();
  std::vector<std::int64_t> steps(static_cast<std::size_t>(n)), status_steps(static_cast<std::size_t>(n));
  std::vector<std::int8_t> status(static_cast<std::size_t>(n));
  backend.get_state(nullptr, n, nullptr, steps.data(), status.data(), status_steps.data(), nullptr);
  fixed_step_statistics(n, steps.data(), status.data(), status_steps.data(), dt, accepted, rejected, min_step, max_step);
}

}  // namespace simphant
