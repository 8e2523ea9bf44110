#pragma once
// Per-thread functions of the adaptive Dormand-Prince 5(4) path on the `cuda` and
// `cuda-fused` backends (docs/cuda-backend.md, "Adaptive steps"), one thread per instance
// over the structure of arrays (stride n). The method's arithmetic (tableau, error norm,
// controller, first-step estimate, dense output) is simphant/formulas/dopri5.hpp, the one
// copy the CPU path (sim/cpu_dopri5.cpp) calls too; the rules (when an instance starts,
// what fails it and with which reason, what the dense output interpolates) are the CPU
// path's, so the two compute the same numbers. These functions only address each
// instance's strided columns and keep its own time t and step h (AdaptiveBuffers).
//
// The batch advances to a grid time in rounds: in a round every live instance whose
// internal time is short of the grid time attempts one step (stages 2..7, the error
// norm, accept or reject; on acceptance the checks, the projection and the commit); the
// others sit the round out. After the rounds the state at the grid time is the
// continuous extension of each instance's last accepted step.
#include <cmath>
#include <cstdint>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "instance_status.hpp"
#include "reduce.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/dopri5.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/formulas/runaway.hpp"

namespace simphant::batch {

namespace detail {

/// Pointers to instance i's columns of the stage slopes k1..k7 and of the dense-output
/// coefficients (stride n).
template <class T>
struct Dopri5Columns {
  const T* k[kDopri5Stages];
  T* r[kDopri5Dense];
  SP_HD Dopri5Columns(const AdaptiveBuffers<T>& ad, int ny, int n, int i) {
    for (int s = 0; s < kDopri5Stages; ++s) k[s] = ad.k[s] + i;
    for (int d = 0; d < kDopri5Dense; ++d) r[d] = ad.cont + static_cast<std::size_t>(d) * ny * n + i;
  }
};

/// Instance i's clock [s] at batch step *b.step + ahead: (*b.step + ahead - clock_offset[i]) dt
/// (instance_time_thread's clock).
template <class T>
SP_HD T clock_at(const ModelView<T>& mv, const BatchBuffers<T>& b, int i, int ahead) {
  return static_cast<T>(*b.step + ahead - b.clock_offset[i]) * mv.dt;
}

/// Renormalises every body's quaternion of instance i's column of y (13 N, n).
template <class T>
SP_HD void renormalise_quaternions(const ModelView<T>& mv, T* y, int i) {
  const int n = mv.n_instances;
  for (int k = 0; k < mv.n_bodies; ++k) {
    const Quat<T> p = normalized(soa_quat(static_cast<const T*>(y), n, i, k));
    soa(y, 7 * k + 3, n, i) = p.w;
    soa(y, 7 * k + 4, n, i) = p.x;
    soa(y, 7 * k + 5, n, i) = p.y;
    soa(y, 7 * k + 6, n, i) = p.z;
  }
}

/// Freezes live instance i as diverged with reason at the current batch step (its Y
/// stays the last grid time's state).
template <class T>
SP_HD void freeze(const BatchBuffers<T>& b, int i, std::int8_t reason) {
  b.status[i] = kStatusDiverged;
  b.status_step[i] = *b.step;
  b.status_reason[i] = reason;
  b.ad.flag[i] = static_cast<std::int8_t>(b.ad.flag[i] & (kAdaptiveRunning | kAdaptiveRejected));
}

/// Whether every entry of instance i's column of a (13 N, n) array is finite.
template <class T>
SP_HD bool column_finite(const T* a, int ny, int n, int i) {
  for (int e = 0; e < ny; ++e)
    if (!std::isfinite(soa(a, e, n, i))) return false;
  return true;
}

/// The checks of an evaluation that starts a step (the CPU's begin_step): the violation
/// of its state (violation_in, max |Phi|) within the bound, then the evaluation itself
/// (fail: its factorisation failed; ydot non-finite). Returns the reason, or kReasonNone.
template <class T>
SP_HD std::int8_t start_evaluation_reason(const ModelView<T>& mv, const BatchBuffers<T>& b, int i, const T* ydot) {
  const T v = b.violation[i];
  if (!(v <= mv.violation_bound(i))) return v != v ? kReasonNonFinite : kReasonConstraintViolation;
  if (b.fail[i]) return kReasonFactorisationFailure;
  if (!column_finite(ydot, 13 * mv.n_bodies, mv.n_instances, i)) return kReasonNonFinite;
  return kReasonNone;
}

}  // namespace detail

// --- Start: at the beginning of an advance, the instances that (re)start.

/// tid = i. Decides whether live instance i (re)starts at this advance, as the CPU path
/// does: never started (or restarted by reset / set_state / set_models): afresh
/// (kAdaptiveStart | kAdaptiveFresh: first-step estimate, fresh controller); Y written
/// since the last grid step (Y != y_grid): afresh with its step statistics cleared; the
/// actuator inputs changed (inputs != u): from Y at its clock keeping h and the
/// controller (kAdaptiveStart). Counts the instances that start into *ad.unfinished.
template <class T>
SP_HD void dopri5_sync_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  std::int8_t f = static_cast<std::int8_t>(ad.flag[i] & (kAdaptiveRunning | kAdaptiveRejected));
  if (b.status[i] == kStatusOk) {
    if (!(f & kAdaptiveRunning)) {
      f = static_cast<std::int8_t>(f | kAdaptiveStart | kAdaptiveFresh);
    } else {
      bool y_written = false, u_changed = false;
      for (int e = 0; e < ny && !y_written; ++e)
        y_written = soa(static_cast<const T*>(b.Y), e, n, i) != soa(static_cast<const T*>(ad.y_grid), e, n, i);
      for (int e = 0; e < mv.n_inputs && !u_changed; ++e)
        u_changed = soa(static_cast<const T*>(b.inputs), e, n, i) != soa(static_cast<const T*>(ad.u), e, n, i);
      if (y_written) {
        f = static_cast<std::int8_t>(f | kAdaptiveStart | kAdaptiveFresh);
        ad.accepted[i] = 0;
        ad.rejected[i] = 0;
        ad.h_min[i] = T(0);
        ad.h_max[i] = T(0);
      } else if (u_changed) {
        f = static_cast<std::int8_t>(f | kAdaptiveStart);
      }
    }
  }
  ad.flag[i] = f;
  if (f & kAdaptiveStart) {
#if defined(__CUDA_ARCH__)
    atomicAdd(ad.unfinished, 1);
#else
    ++*ad.unfinished;
#endif
  }
}

/// tid = i. A starting instance takes Y at its clock as its internal state (and the
/// inputs it runs with), without a last step; t_stage = t for every instance (the
/// others evaluate their own state, not used). b.fail cleared.
template <class T>
SP_HD void dopri5_start_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  b.fail[i] = 0;
  if (ad.flag[i] & kAdaptiveStart) {
    for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = soa(static_cast<const T*>(b.Y), e, n, i);
    for (int e = 0; e < mv.n_inputs; ++e) soa(ad.u, e, n, i) = soa(static_cast<const T*>(b.inputs), e, n, i);
    ad.t[i] = detail::clock_at(mv, b, i, 0);
    ad.h_old[i] = T(0);
  }
  ad.t_stage[i] = ad.t[i];
}

/// tid = i, after f0 = f(t, y) into f0_in and its violation into b.violation: a
/// starting instance's start is checked as every step's start is (violation bound, the
/// evaluation) and frozen with the reason at the current batch step when it fails (not
/// running then: revived, it starts afresh); else k1 = f0. A fresh start resets the controller and takes solver.first_step (at
/// most solver.max_step), or forms the estimate's trial step h0
/// (dopri5::first_step_trial, d1 in h_new) and its explicit Euler state y + h0 k1 into
/// y_stage at t_stage = t + h0. Every other instance: y_stage = y at t (evaluated, not used).
template <class T>
SP_HD void dopri5_start_check_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* f0_in) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  bool trial = false;
  if (ad.flag[i] & kAdaptiveStart) {
    const std::int8_t reason = detail::start_evaluation_reason(mv, b, i, f0_in);
    if (reason != kReasonNone) {
      detail::freeze(b, i, reason);
      // Not running: revived (set_state with status Ok), it starts afresh.
      ad.flag[i] = static_cast<std::int8_t>(ad.flag[i] & ~kAdaptiveRunning);
    } else {
      for (int e = 0; e < ny; ++e) soa(ad.k[0], e, n, i) = soa(f0_in, e, n, i);
      if (ad.flag[i] & kAdaptiveFresh) {
        ad.facold[i] = T(dopri5::kFacOldInit);
        ad.flag[i] = static_cast<std::int8_t>(ad.flag[i] & ~kAdaptiveRejected);
        if (mv.first_step > T(0)) {
          ad.h[i] = mv.max_step > T(0) && mv.first_step > mv.max_step ? mv.max_step : mv.first_step;
        } else {
          const T h0 = dopri5::first_step_trial(ny, n, static_cast<const T*>(ad.y) + i,
                                                static_cast<const T*>(ad.k[0]) + i, mv.atol, mv.rtol, mv.max_step,
                                                ad.h_new + i);
          for (int e = 0; e < ny; ++e) soa(b.y_stage, e, n, i) = soa(ad.y, e, n, i) + h0 * soa(ad.k[0], e, n, i);
          ad.h[i] = h0;
          ad.t_stage[i] = ad.t[i] + h0;
          trial = true;
        }
      }
    }
  }
  if (!trial) {
    for (int e = 0; e < ny; ++e) soa(b.y_stage, e, n, i) = soa(static_cast<const T*>(ad.y), e, n, i);
    ad.t_stage[i] = ad.t[i];
  }
  b.fail[i] = 0;
}

/// tid = i, after f1 = f(t + h0, y + h0 k1) into f1_inout: a fresh start estimating its
/// first step takes h = dopri5::first_step_final (a failed or non-finite f1 counts as NaN,
/// which falls back to max(1e-6, 1e-3 h0), as on the CPU). Every starting instance is
/// then running.
template <class T>
SP_HD void dopri5_start_final_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, T* f1_inout) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  const std::int8_t f = ad.flag[i];
  const int failed = b.fail[i];
  b.fail[i] = 0;
  if (!(f & kAdaptiveStart)) return;
  if (b.status[i] != kStatusOk) {  // its start failed (dopri5_start_check_thread): not running
    ad.flag[i] = static_cast<std::int8_t>(f & ~(kAdaptiveStart | kAdaptiveFresh));
    return;
  }
  ad.flag[i] = static_cast<std::int8_t>((f & kAdaptiveRejected) | kAdaptiveRunning);
  if (!(f & kAdaptiveFresh) || mv.first_step > T(0)) return;
  if (failed || !detail::column_finite(static_cast<const T*>(f1_inout), ny, n, i))
    for (int e = 0; e < ny; ++e) soa(f1_inout, e, n, i) = T(NAN);
  ad.h[i] = dopri5::first_step_final(ny, n, static_cast<const T*>(ad.y) + i, static_cast<const T*>(ad.k[0]) + i,
                                     static_cast<const T*>(f1_inout) + i, ad.h[i], ad.h_new[i], mv.atol, mv.rtol,
                                     mv.max_step);
}

// --- A round.

/// tid = i. Start of a round: a live, running instance whose internal time is short of
/// its grid target (its clock one batch step on) attempts a step (kAdaptiveActive) --
/// unless its step is below dopri5::step_floor (or NaN), which freezes it
/// (step_size_underflow).
/// Clears b.fail.
template <class T>
SP_HD void dopri5_round_begin_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  b.fail[i] = 0;
  std::int8_t f = static_cast<std::int8_t>(ad.flag[i] & (kAdaptiveRunning | kAdaptiveRejected));
  ad.flag[i] = f;
  if (b.status[i] != kStatusOk || !(f & kAdaptiveRunning) || !(ad.t[i] < detail::clock_at(mv, b, i, 1))) return;
  if (!(ad.h[i] >= dopri5::step_floor(ad.t[i], mv.dt, mv.min_step))) {  // NaN too
    detail::freeze(b, i, kReasonStepSizeUnderflow);
    return;
  }
  ad.flag[i] = static_cast<std::int8_t>(f | kAdaptiveActive);
}

/// tid = i. Stage state s (2..7) of an active instance: y_stage = y + h sum_j a_sj k_j at
/// t_stage = t + c_s h (s = 7: the 5th-order solution y1 at t + h); an instance sitting the
/// round out evaluates its own state y at t (valid, not used).
template <class T>
SP_HD void dopri5_stage_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, int s) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveActive)) {
    for (int e = 0; e < ny; ++e) soa(b.y_stage, e, n, i) = soa(static_cast<const T*>(ad.y), e, n, i);
    ad.t_stage[i] = ad.t[i];
    return;
  }
  const detail::Dopri5Columns<T> c(ad, ny, n, i);
  const T h = ad.h[i];
  dopri5::stage_state(s, ny, n, h, static_cast<const T*>(ad.y) + i, c.k, b.y_stage + i);
  ad.t_stage[i] = ad.t[i] + dopri5::node<T>(s) * h;
}

/// tid = i, after k7 = f(t + h, y1) of an active instance (y1 in y_stage, max |Phi| at y1
/// in b.violation): the error norm (dopri5::error_norm with solver.rtol/atol over all 13 N
/// entries, quaternion components included; NaN when a stage's evaluation or stage
/// projection failed: b.fail or a non-finite slope) and the controller's decision
/// (dopri5::control_step). Rejected: h shrinks, the attempt is counted. Accepted
/// (kAdaptiveAccepted): without a projection the dense-output coefficients of the step
/// as computed (y -> y1, k1..k7); y_stage's quaternions renormalised (the candidate) and
/// checked finite (else frozen: non_finite); the next step size in h_new.
template <class T>
SP_HD void dopri5_decide_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveActive)) return;
  const detail::Dopri5Columns<T> c(ad, ny, n, i);
  const T h = ad.h[i];
  bool stages_ok = b.fail[i] == 0;
  for (int s = 1; s < kDopri5Stages && stages_ok; ++s) stages_ok = detail::column_finite(ad.k[s], ny, n, i);
  const T err = stages_ok ? dopri5::error_norm(ny, n, h, static_cast<const T*>(ad.y) + i,
                                               static_cast<const T*>(b.y_stage) + i, c.k, mv.atol, mv.rtol)
                          : T(NAN);
  dopri5::ControllerState<T> cs;
  cs.facold = ad.facold[i];
  cs.last_rejected = (ad.flag[i] & kAdaptiveRejected) ? 1 : 0;
  T h_new = h;
  const bool accept = dopri5::control_step(err, h, mv.max_step, &cs, &h_new);
  ad.facold[i] = cs.facold;
  const std::int8_t run = static_cast<std::int8_t>(kAdaptiveRunning | kAdaptiveActive);
  if (!accept) {
    ad.h[i] = h_new;
    ++ad.rejected[i];
    ad.flag[i] = static_cast<std::int8_t>(run | kAdaptiveRejected);
    return;
  }
  ad.h_new[i] = h_new;
  ad.flag[i] = static_cast<std::int8_t>(run | kAdaptiveAccepted);
  if (!(projects_adaptive_step(mv.projection) && mv.n_rows > 0))
    dopri5::dense_coefficients(ny, n, h, static_cast<const T*>(ad.y) + i, static_cast<const T*>(b.y_stage) + i, c.k,
                               c.r);
  detail::renormalise_quaternions(mv, b.y_stage, i);
  if (!detail::column_finite(static_cast<const T*>(b.y_stage), ny, n, i)) detail::freeze(b, i, kReasonNonFinite);
}

/// tid = i, after the projection of the accepted candidates (solver.projection, at
/// t + h): the rest of the CPU's finish_step -- a failed projection solve (b.fail:
/// factorisation_failure), a non-finite entry (non_finite), kinetic energy above the
/// runaway bound at the step's end on the batch clock (runaway) -- and, without a
/// projection, the violation at y1 (b.violation, from the 7th stage) within the bound.
/// A failure freezes the instance at the current batch step.
template <class T>
SP_HD void dopri5_finish_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveAccepted)) return;
  const T t1 = ad.t[i] + ad.h[i];
  std::int8_t reason = b.fail[i] ? kReasonFactorisationFailure : kReasonNone;
  if (reason == kReasonNone && !detail::column_finite(static_cast<const T*>(b.y_stage), ny, n, i)) reason = kReasonNonFinite;
  if (reason == kReasonNone &&
      is_runaway(soa_kinetic_energy(mv, static_cast<const T*>(b.y_stage), i), soa(static_cast<const T*>(b.runaway), 0, n, i),
                 soa(static_cast<const T*>(b.runaway), 1, n, i), t1 + static_cast<T>(b.clock_offset[i]) * mv.dt))
    reason = kReasonRunaway;
  if (reason == kReasonNone && !(projects_adaptive_step(mv.projection) && mv.n_rows > 0)) {
    const T v = b.violation[i];
    if (!(v <= mv.violation_bound(i))) reason = v != v ? kReasonNonFinite : kReasonConstraintViolation;
  }
  if (reason != kReasonNone) detail::freeze(b, i, reason);
}

/// tid = i, with a projection, after f(t + h, projected candidate) into k7 and its
/// violation into b.violation: the new start is checked as every start is (violation
/// bound, the evaluation; a failure freezes the instance), and the dense-output
/// coefficients run from y to the projected state with k7 the derivative there
/// (continuous across steps, as on the CPU).
template <class T>
SP_HD void dopri5_projected_start_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveAccepted)) return;
  const std::int8_t reason = detail::start_evaluation_reason(mv, b, i, static_cast<const T*>(ad.k[6]));
  if (reason != kReasonNone) {
    detail::freeze(b, i, reason);
    return;
  }
  const detail::Dopri5Columns<T> c(ad, ny, n, i);
  dopri5::dense_coefficients(ny, n, ad.h[i], static_cast<const T*>(ad.y) + i, static_cast<const T*>(b.y_stage) + i, c.k,
                             c.r);
}

/// tid = i. The sample of the reductions over time (kernels/reduce.hpp) of a step's
/// start state that passed its checks, from the evaluation in the buffers, as the CPU
/// path takes it: accepted = false, a (re)starting instance at its state y and clock t;
/// accepted = true, an accepted step's new start (y_stage) at t + h -- the 7th stage's
/// evaluation without a projection, the projected state's with one. Time in steps of dt.
template <class T>
SP_HD void dopri5_reduce_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, bool accepted) {
  if (tid >= mv.n_instances || !b.red.any()) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & (accepted ? kAdaptiveAccepted : kAdaptiveStart)) || b.status[i] != kStatusOk) return;
  const T t = accepted ? ad.t[i] + ad.h[i] : ad.t[i];
  reduce_sample_thread(i, mv, b.red, static_cast<const T*>(accepted ? b.y_stage : ad.y), t,
                       static_cast<const T*>(b.inputs), static_cast<const T*>(b.jac),
                       static_cast<const T*>(b.rhs), b.lambda_soa, static_cast<const int*>(b.info),
                       static_cast<const T*>(b.violation), static_cast<const std::int8_t*>(b.status),
                       static_cast<double>(t) / static_cast<double>(mv.dt), b.red_acc);
}

/// tid = i. Commits an accepted step that passed its checks: y = the candidate, k1 = k7
/// (first same as last: the derivative at y1, or at the projected state), the step
/// counted in the statistics, the last step [t, t + h] kept for the dense output, t += h,
/// h = the controller's h_new.
template <class T>
SP_HD void dopri5_commit_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveAccepted) || b.status[i] != kStatusOk) return;
  for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = soa(static_cast<const T*>(b.y_stage), e, n, i);
  for (int e = 0; e < ny; ++e) soa(ad.k[0], e, n, i) = soa(static_cast<const T*>(ad.k[6]), e, n, i);
  const T h = ad.h[i];
  const std::int64_t count = ++ad.accepted[i];
  if (count == 1 || h < ad.h_min[i]) ad.h_min[i] = h;
  if (count == 1 || h > ad.h_max[i]) ad.h_max[i] = h;
  ad.t_old[i] = ad.t[i];
  ad.h_old[i] = h;
  ad.t[i] = ad.t[i] + h;
  ad.h[i] = ad.h_new[i];
}

/// tid = i. Counts into *ad.unfinished the live instances whose internal time is still
/// short of their grid target (the host reads it back to decide whether to run more
/// rounds). Atomic on the device; the CPU tests run the threads one at a time.
template <class T>
SP_HD void dopri5_count_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  if (b.status[i] != kStatusOk || !(b.ad.t[i] < detail::clock_at(mv, b, i, 1))) return;
#if defined(__CUDA_ARCH__)
  atomicAdd(b.ad.unfinished, 1);
#else
  ++*b.ad.unfinished;
#endif
}

/// tid = i. The state of a live, running instance at its grid target (its clock one
/// batch step on, which the rounds have passed) into Y and its copy y_grid: y itself when
/// the integration stands exactly there or has no last step, else the last step's
/// continuous extension at theta = (target - t_old) / h_old with unit quaternions (the
/// CPU's grid_state). Instances that stopped keep Y (their last grid state).
template <class T>
SP_HD void dopri5_output_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (b.status[i] != kStatusOk || !(ad.flag[i] & kAdaptiveRunning)) return;
  const T target = detail::clock_at(mv, b, i, 1);
  if (target == ad.t[i] || !(ad.h_old[i] > T(0))) {
    for (int e = 0; e < ny; ++e) soa(b.Y, e, n, i) = soa(static_cast<const T*>(ad.y), e, n, i);
  } else {
    const T theta = (target - ad.t_old[i]) / ad.h_old[i];
    const detail::Dopri5Columns<T> c(ad, ny, n, i);
    dopri5::dense_output(ny, n, theta, static_cast<const T* const*>(c.r), b.Y + i);
    detail::renormalise_quaternions(mv, b.Y, i);
  }
  for (int e = 0; e < ny; ++e) soa(ad.y_grid, e, n, i) = soa(static_cast<const T*>(b.Y), e, n, i);
}

}  // namespace simphant::batch
