#pragma once
// Per-thread functions of the per-instance status kernels (an instance
// that produces NaN/Inf or whose constraint violation passes the bound is flagged and
// frozen at its last good state; the others are not affected). The rules are the CPU
// reference's (dynamics/rk4.cpp, sim/cpu_backend.cpp): a step fails when its start
// state violates the bound, a factorisation fails, or the new state is not finite.
#include <cmath>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"

namespace simphant::batch {

/// tid = i. violation_out[i] = max |Phi| over the rows of phi_in (m, n); NaN if any
/// row is NaN (so that a bound check fails).
template <class T>
SP_HD void violation_thread(int tid, const ModelView<T>& mv, const T* phi_in, T* violation_out) {
  const int n = mv.n_instances;
  if (tid >= n) return;
  T v = T(0);
  for (int R = 0; R < mv.n_rows; ++R) {
    const T x = std::fabs(soa(phi_in, R, n, tid));
    v = (x > v || x != x) ? x : v;
    if (v != v) break;
  }
  violation_out[tid] = v;
}

/// tid = i. Ends one RK4 step of a live instance: when the step's start violation
/// (violation_in) is within the bound, no stage failed (fail_inout) and every entry of
/// the candidate y_new_in is finite, copies it to Y_inout; otherwise marks the instance
/// diverged at step *step_in and leaves Y at the last good state. Clears fail_inout.
template <class T>
SP_HD void commit_step_thread(int tid, const ModelView<T>& mv, const T* violation_in, const T* y_new_in,
                              const std::int64_t* step_in, int* fail_inout, T* Y_inout, std::int8_t* status_inout,
                              std::int64_t* status_step_out) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int failed = fail_inout[tid];
  fail_inout[tid] = 0;
  if (status_inout[tid] != kStatusOk) return;
  bool ok = failed == 0 && violation_in[tid] <= mv.violation_bound(tid);
  for (int e = 0; ok && e < ny; ++e) ok = std::isfinite(soa(y_new_in, e, n, tid));
  if (!ok) {
    status_inout[tid] = kStatusDiverged;
    status_step_out[tid] = *step_in;
    return;
  }
  for (int e = 0; e < ny; ++e) soa(Y_inout, e, n, tid) = soa(y_new_in, e, n, tid);
}

/// tid = 0 only: counts one step taken (the commit of the step reads the count first).
SP_HD void count_step_thread(int tid, std::int64_t* step_inout) {
  if (tid == 0) *step_inout += 1;
}

/// tid = i. End of an advance: a live instance whose current state violates the bound
/// (violation_in, evaluated at Y) is marked diverged at step *step_in.
template <class T>
SP_HD void end_check_thread(int tid, const ModelView<T>& mv, const T* violation_in, const std::int64_t* step_in,
                            std::int8_t* status_inout, std::int64_t* status_step_out) {
  if (tid >= mv.n_instances || status_inout[tid] != kStatusOk) return;
  if (!(violation_in[tid] <= mv.violation_bound(tid))) {
    status_inout[tid] = kStatusDiverged;
    status_step_out[tid] = *step_in;
  }
}

}  // namespace simphant::batch
