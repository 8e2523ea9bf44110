#pragma once
// The runaway test of the step loop (docs/solver.md, "Instance status"), shared by the
// CPU reference (dynamics/rk4.cpp) and the batched kernels (kernels/instance_status.hpp).
//
// An instance runs away when the kinetic energy of a committed state passes
//   K_max(t) = (a + b t)^2,
// t the batch time at the end of the step [s]. With the bound derived at load
// (dynamics/runaway_bound.hpp) a = sqrt(s (E_0 + E_floor)) and b = sqrt(s / 2) G, from the
// energy balance d(T + V_springs)/dt <= G sqrt(2 T); with a bound given in the scene
// (solver.runaway_kinetic_energy) a = sqrt(K_given), b = 0; a = +inf turns the test off.
#include <cstdint>

#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// Why an instance stopped (per instance, /status_reason; docs/solver.md "Instance status").
/// none: the instance is ok (or its status was written by set_state without a reason).
/// step_size_underflow: an adaptive integrator (model/integrator.hpp) asked for a step
/// below max(solver.min_step, its round-off floor), or CVODE failed.
constexpr std::int8_t kReasonNone = 0, kReasonNonFinite = 1, kReasonConstraintViolation = 2, kReasonRunaway = 3,
                      kReasonFactorisationFailure = 4, kReasonAssemblyFailure = 5, kReasonStepSizeUnderflow = 6;
constexpr int kReasonCount = 7;

/// Whether a status reason belongs to a status (0 ok: none; 1 assembly failed:
/// assembly_failure; 2 diverged: non_finite, constraint_violation, runaway,
/// factorisation_failure, step_size_underflow, or none when set_state wrote the status
/// without a reason).
SP_HD bool status_reason_fits(std::int8_t status, std::int8_t reason) {
  return status == 0   ? reason == kReasonNone
         : status == 1 ? reason == kReasonAssemblyFailure
         : status == 2 ? (reason >= kReasonNone && reason < kReasonAssemblyFailure) || reason == kReasonStepSizeUnderflow
                       : false;
}

/// The reason an instance keeps after set_state wrote its status: the given one
/// (given_valid), else its old one when that fits the new status, else assembly_failure
/// (status 1) or none.
SP_HD std::int8_t reason_after_set(std::int8_t status, std::int8_t old_reason, bool given_valid, std::int8_t given) {
  if (given_valid) return given;
  if (status_reason_fits(status, old_reason)) return old_reason;
  return status == 1 ? kReasonAssemblyFailure : kReasonNone;
}

/// K_max(t) = (a + b t)^2 [J] (see above).
template <class T>
SP_HD T runaway_kinetic_bound(T a, T b, T t) {
  const T s = a + b * t;
  return s * s;
}

/// True when a kinetic energy K [J] passes K_max(t) (a NaN K does not: the finiteness
/// test reports that one).
template <class T>
SP_HD bool is_runaway(T kinetic, T a, T b, T t) {
  return kinetic > runaway_kinetic_bound(a, b, t);
}

}  // namespace simphant
