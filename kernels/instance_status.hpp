#pragma once
// Per-thread functions of the per-instance status kernels (an instance
// that produces NaN/Inf or whose constraint violation passes the bound is flagged and
// frozen at its last good state; the others are not affected). The rules are the CPU
// reference's (dynamics/rk4.cpp, sim/cpu_backend.cpp): a step fails when its start
// state violates the bound, a factorisation fails, the new state is not finite or its
// kinetic energy passes the runaway bound (formulas/runaway.hpp), and the status
// reason says which, in that order of precedence.
#include <cmath>
#include <cstdint>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/runaway.hpp"

namespace simphant::batch {

/// tid = i. violation_out[i] = max |Phi| over the rows of phi_in (m, n); NaN if any
/// row is NaN (so that a bound check fails).
template <class T>
SP_HD void violation_thread(int tid, const ModelView<T>& mv, const T* phi_in, T* violation_out) {
  const int n = mv.n_instances;
  if (tid >= n) return;
  using std::fabs;  // unqualified: a number type's own fabs by argument-dependent lookup (math/dual.hpp)
  T v = T(0);
  for (int R = 0; R < mv.n_rows; ++R) {
    const T x = fabs(soa(phi_in, R, n, tid));
    v = (x > v || x != x) ? x : v;
    if (v != v) break;
  }
  violation_out[tid] = v;
}

/// Kinetic energy [J] of instance i at y (13 N, n): sum over bodies of
/// rigid_kinetic_energy (formulas/force_math.hpp).
template <class T>
SP_HD T soa_kinetic_energy(const ModelView<T>& mv, const T* y, int i) {
  const int n = mv.n_instances, N = mv.n_bodies;
  T K = T(0);
  for (int k = 0; k < N; ++k) {
    const int o = 7 * N + 6 * k;
    const Vec3<T> v = {soa(y, o, n, i), soa(y, o + 1, n, i), soa(y, o + 2, n, i)};
    const Vec3<T> w = {soa(y, o + 3, n, i), soa(y, o + 4, n, i), soa(y, o + 5, n, i)};
    K += rigid_kinetic_energy(mv.mass(k, i), mv.inertia_B(k, i), v, w);
  }
  return K;
}

/// tid = i. Ends one RK4 step of a live instance: when the step's start violation
/// (violation_in) is within the bound, no stage failed (fail_inout), every entry of
/// the candidate y_new_in is finite and its kinetic energy is within the runaway bound
/// (runaway_in (2, n): a, b; t = (*step_in + 1) dt), copies it to Y_inout; otherwise
/// marks the instance diverged at step *step_in with the reason (reason_out) and leaves
/// Y at the last good state. Clears fail_inout.
template <class T>
SP_HD void commit_step_thread(int tid, const ModelView<T>& mv, const T* violation_in, const T* y_new_in,
                              const std::int64_t* step_in, const T* runaway_in, int* fail_inout, T* Y_inout,
                              std::int8_t* status_inout, std::int64_t* status_step_out, std::int8_t* reason_out) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int failed = fail_inout[tid];
  fail_inout[tid] = 0;
  if (status_inout[tid] != kStatusOk) return;
  std::int8_t reason = kReasonNone;
  if (!(violation_in[tid] <= mv.violation_bound(tid)))
    reason = violation_in[tid] != violation_in[tid] ? kReasonNonFinite : kReasonConstraintViolation;
  else if (failed != 0)
    reason = kReasonFactorisationFailure;
  // Unqualified: a number type's own isfinite (math/dual.hpp: value and every tangent, so
  // a step whose sensitivities blew up is flagged as one whose values did).
  using std::isfinite;
  for (int e = 0; reason == kReasonNone && e < ny; ++e)
    if (!isfinite(soa(y_new_in, e, n, tid))) reason = kReasonNonFinite;
  if (reason == kReasonNone) {
    const T t = static_cast<T>(*step_in + 1) * mv.dt;
    if (is_runaway(soa_kinetic_energy(mv, y_new_in, tid), soa(runaway_in, 0, n, tid), soa(runaway_in, 1, n, tid), t))
      reason = kReasonRunaway;
  }
  if (reason != kReasonNone) {
    status_inout[tid] = kStatusDiverged;
    status_step_out[tid] = *step_in;
    reason_out[tid] = reason;
    return;
  }
  for (int e = 0; e < ny; ++e) soa(Y_inout, e, n, tid) = soa(y_new_in, e, n, tid);
}

/// tid = 0 only: counts one step taken (the commit of the step reads the count first).
SP_HD void count_step_thread(int tid, std::int64_t* step_inout) {
  if (tid == 0) *step_inout += 1;
}

/// tid = i. End of an advance: a live instance whose current state violates the bound
/// (violation_in, evaluated at Y) is marked diverged at step *step_in, reason constraint
/// violation (non-finite when the violation is NaN).
template <class T>
SP_HD void end_check_thread(int tid, const ModelView<T>& mv, const T* violation_in, const std::int64_t* step_in,
                            std::int8_t* status_inout, std::int64_t* status_step_out, std::int8_t* reason_out) {
  if (tid >= mv.n_instances || status_inout[tid] != kStatusOk) return;
  const T v = violation_in[tid];
  if (!(v <= mv.violation_bound(tid))) {
    status_inout[tid] = kStatusDiverged;
    status_step_out[tid] = *step_in;
    reason_out[tid] = v != v ? kReasonNonFinite : kReasonConstraintViolation;
  }
}

/// tid = i. time_out[i] = instance i's time [s] at the current batch step plus h: its
/// steps since reset (*step_in - clock_offset_in[i], docs/state.md) times dt, plus h (the
/// RK4 stage's offset: 0, dt/2 or dt). The CPU reference computes the same
/// (CpuBackend::instance_time, rk4_step's stage times).
template <class T>
SP_HD void instance_time_thread(int tid, const ModelView<T>& mv, const std::int64_t* step_in,
                                const std::int64_t* clock_offset_in, T h, T* time_out) {
  if (tid >= mv.n_instances) return;
  time_out[tid] = static_cast<T>(*step_in - clock_offset_in[tid]) * mv.dt + h;
}

}  // namespace simphant::batch
