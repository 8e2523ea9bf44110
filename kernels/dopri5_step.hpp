#pragma once
// Per-thread functions of the adaptive Dormand-Prince 5(4) path on the `cuda` and
// `cuda-fused` backends (docs/cuda-backend.md, "Adaptive steps"), one thread per instance
// over the structure of arrays (stride n). The method's arithmetic (tableau, error norm,
// controller, first-step estimate, dense output) is simphant/dynamics/dopri5.hpp, the one
// copy the CPU path (sim/cpu_dopri5.cpp) calls too; these functions only address each
// instance's strided columns and keep its own time t and step h (AdaptiveBuffers).
//
// The batch advances to a grid time in rounds: in a round every live instance whose
// internal time is short of the grid time attempts one step (stages 2..7, the error
// norm, accept or reject); the others sit the round out. After the rounds the state at
// the grid time is the dense output of each instance's last accepted step.
#include <cmath>
#include <cstdint>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "instance_status.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/dynamics/dopri5.hpp"
#include "simphant/dynamics/runaway.hpp"

namespace simphant::batch {

namespace detail {

/// Pointers to instance i's column of the stage slopes k1..k7 (stride n).
template <class T>
struct Dopri5Columns {
  const T* k[kDopri5Stages];
  T* r[kDopri5Dense];
  SP_HD Dopri5Columns(const AdaptiveBuffers<T>& ad, int ny, int n, int i) {
    for (int s = 0; s < kDopri5Stages; ++s) k[s] = ad.k[s] + i;
    for (int d = 0; d < kDopri5Dense; ++d) r[d] = ad.cont + static_cast<std::size_t>(d) * ny * n + i;
  }
};

/// Instance i's grid target [s]: its own clock at the end of the current batch step,
/// (*step + 1 - clock_offset[i]) dt (instance_time_thread's clock one step on).
template <class T>
SP_HD T grid_target(const ModelView<T>& mv, const BatchBuffers<T>& b, int i) {
  return static_cast<T>(*b.step + 1 - b.clock_offset[i]) * mv.dt;
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

/// Freezes live instance i as diverged with reason at the current batch step.
template <class T>
SP_HD void freeze(const BatchBuffers<T>& b, int i, std::int8_t reason) {
  b.status[i] = kStatusDiverged;
  b.status_step[i] = *b.step;
  b.status_reason[i] = reason;
}

}  // namespace detail

/// tid = i. Start of an instance's adaptive integration (flag kAdaptiveStart: after
/// creation, reset, set_state or set_models): copies Y into the internal state y, sets
/// t to its clock (instance_time_thread) and clears its statistics' controller memory;
/// the slope k1 and the first step follow (dopri5_first_step_*). t_stage = t.
template <class T>
SP_HD void dopri5_start_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  b.fail[i] = 0;
  if (!(ad.flag[i] & kAdaptiveStart)) {
    ad.t_stage[i] = ad.t[i];
    return;
  }
  for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = soa(static_cast<const T*>(b.Y), e, n, i);
  const T t = static_cast<T>(*b.step - b.clock_offset[i]) * mv.dt;
  ad.t[i] = t;
  ad.t_stage[i] = t;
  ad.t_old[i] = t;
  ad.h_old[i] = T(0);
  ad.err_old[i] = T(dopri5::kFacOldInit);
  ad.flag[i] = kAdaptiveStart;
}

/// tid = i, after the evaluation f(t, y) into f0_in (13 N, n): for the starting
/// instances k1 = f0, the first step's trial size h0 (dopri5::first_step_trial; d1 into
/// ad.h_new), kept in h, and its explicit Euler state y + h0 k1 into y_stage at
/// t_stage = t + h0. Other instances: y_stage = y at t (a valid state to evaluate, not
/// used).
template <class T>
SP_HD void dopri5_first_step_trial_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* f0_in) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveStart)) {
    for (int e = 0; e < ny; ++e) soa(b.y_stage, e, n, i) = soa(static_cast<const T*>(ad.y), e, n, i);
    ad.t_stage[i] = ad.t[i];
    return;
  }
  for (int e = 0; e < ny; ++e) soa(ad.k[0], e, n, i) = soa(f0_in, e, n, i);
  T h0 = T(0);
  if (b.status[i] == kStatusOk)
    h0 = dopri5::first_step_trial(ny, n, static_cast<const T*>(ad.y) + i, static_cast<const T*>(ad.k[0]) + i, mv.atol,
                                  mv.rtol, mv.max_step, ad.h_new + i);
  for (int e = 0; e < ny; ++e) soa(b.y_stage, e, n, i) = soa(ad.y, e, n, i) + h0 * soa(ad.k[0], e, n, i);
  ad.h[i] = h0;
  ad.t_stage[i] = ad.t[i] + h0;
}

/// tid = i, after f1 = f(t + h0, y + h0 k1) into k[1] of the starting instances: the
/// first step h (dopri5::first_step_final, or solver.first_step when > 0); clears the
/// start flag. A failed evaluation of k1 (b.fail) freezes the instance
/// (factorisation_failure); so does a non-finite k1.
template <class T>
SP_HD void dopri5_first_step_final_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveStart)) return;
  ad.flag[i] = 0;
  const int failed = b.fail[i];
  b.fail[i] = 0;
  if (b.status[i] != kStatusOk) return;
  if (failed) {
    detail::freeze(b, i, kReasonFactorisationFailure);
    return;
  }
  for (int e = 0; e < ny; ++e)
    if (!std::isfinite(soa(ad.k[0], e, n, i))) {
      detail::freeze(b, i, kReasonNonFinite);
      return;
    }
  if (mv.first_step > T(0)) {
    ad.h[i] = mv.max_step > T(0) && mv.first_step > mv.max_step ? mv.max_step : mv.first_step;
    return;
  }
  ad.h[i] = dopri5::first_step_final(ny, n, static_cast<const T*>(ad.y) + i, static_cast<const T*>(ad.k[0]) + i,
                                     static_cast<const T*>(ad.k[1]) + i, ad.h[i], ad.h_new[i], mv.atol, mv.rtol,
                                     mv.max_step);
}

/// tid = i. Start of a round: a live instance whose internal time is short of its grid
/// target attempts a step (kAdaptiveActive); clears the round's flags and b.fail.
template <class T>
SP_HD void dopri5_round_begin_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  std::int8_t f = static_cast<std::int8_t>(ad.flag[i] & kAdaptiveRejected);
  if (b.status[i] == kStatusOk && ad.t[i] < detail::grid_target(mv, b, i)) f = static_cast<std::int8_t>(f | kAdaptiveActive);
  ad.flag[i] = f;
  b.fail[i] = 0;
}

/// tid = i. Stage state s (2..7) of an active instance: y_stage = y + h sum_j a_sj k_j at
/// t_stage = t + c_s h (s = 7: the 5th-order solution at t + h); an instance sitting the
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

/// tid = i, after k7 = f(t + h, y1) of an active instance (y1 in y_stage): the error norm
/// (dopri5::error_norm with solver.rtol/atol over all 13 N entries, quaternion components
/// included) and the controller's decision (dopri5::control_step). Accepted
/// (kAdaptiveAccepted): the dense-output coefficients of the step into cont, the
/// quaternions of y_stage renormalised (the candidate the projection and the commit take),
/// the next step size in ad.h_new. Rejected: h shrinks and the attempt is counted; a
/// step below dopri5::step_floor freezes the instance (step_size_underflow). A failed
/// factorisation in a stage (b.fail) freezes it (factorisation_failure).
template <class T>
SP_HD void dopri5_decide_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveActive)) return;
  if (b.fail[i]) {
    detail::freeze(b, i, kReasonFactorisationFailure);
    ad.flag[i] = 0;
    return;
  }
  const detail::Dopri5Columns<T> c(ad, ny, n, i);
  const T h = ad.h[i];
  const T err = dopri5::error_norm(ny, n, h, static_cast<const T*>(ad.y) + i, static_cast<const T*>(b.y_stage) + i,
                                   c.k, mv.atol, mv.rtol);
  dopri5::ControllerState<T> cs;
  cs.facold = ad.err_old[i];
  cs.last_rejected = (ad.flag[i] & kAdaptiveRejected) ? 1 : 0;
  T h_new;
  const bool accept = dopri5::control_step(err, h, mv.max_step, &cs, &h_new);
  ad.err_old[i] = cs.facold;
  ad.h_new[i] = h_new;
  if (!accept) {
    ad.h[i] = h_new;
    ++ad.rejected[i];
    ad.flag[i] = kAdaptiveRejected;
    if (h_new < dopri5::step_floor(ad.t[i], mv.dt, mv.min_step)) detail::freeze(b, i, kReasonStepSizeUnderflow);
    return;
  }
  dopri5::dense_coefficients(ny, n, h, static_cast<const T*>(ad.y) + i, static_cast<const T*>(b.y_stage) + i, c.k, c.r);
  detail::renormalise_quaternions(mv, b.y_stage, i);
  ad.flag[i] = static_cast<std::int8_t>(kAdaptiveActive | kAdaptiveAccepted);
}

/// tid = i, after the projection of the accepted candidates (y_stage, at t + h): commits
/// an accepted step -- when no projection stage failed (b.fail), every entry is finite
/// and the kinetic energy is within the runaway bound at t + h -- into y, t, h (the
/// controller's ad.h_new), the step statistics and the last step's interval for the dense
/// output; otherwise freezes the instance with the reason. A step size below
/// dopri5::step_floor freezes it too (step_size_underflow).
template <class T>
SP_HD void dopri5_commit_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveAccepted) || b.status[i] != kStatusOk) return;
  const T h = ad.h[i], t_new = ad.t[i] + h;
  std::int8_t reason = b.fail[i] ? kReasonFactorisationFailure : kReasonNone;
  for (int e = 0; reason == kReasonNone && e < ny; ++e)
    if (!std::isfinite(soa(static_cast<const T*>(b.y_stage), e, n, i))) reason = kReasonNonFinite;
  if (reason == kReasonNone &&
      is_runaway(soa_kinetic_energy(mv, static_cast<const T*>(b.y_stage), i), soa(static_cast<const T*>(b.runaway), 0, n, i),
                 soa(static_cast<const T*>(b.runaway), 1, n, i), t_new))
    reason = kReasonRunaway;
  if (reason != kReasonNone) {
    detail::freeze(b, i, reason);
    ad.flag[i] = 0;
    return;
  }
  for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = soa(static_cast<const T*>(b.y_stage), e, n, i);
  ad.t_old[i] = ad.t[i];
  ad.h_old[i] = h;
  ad.t[i] = t_new;
  ad.h[i] = ad.h_new[i];
  ++ad.accepted[i];
  ad.h_min[i] = ad.h_min[i] > T(0) && ad.h_min[i] <= h ? ad.h_min[i] : h;
  ad.h_max[i] = ad.h_max[i] >= h ? ad.h_max[i] : h;
  if (ad.h_new[i] < dopri5::step_floor(t_new, mv.dt, mv.min_step)) detail::freeze(b, i, kReasonStepSizeUnderflow);
}

/// tid = i, after the evaluation f(t, y) of the committed state into k_in (k7 when the
/// state was not projected): k1 = k_in for the instances that accepted a step this round
/// (first same as last), so the next attempt starts from it.
template <class T>
SP_HD void dopri5_fsal_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* k_in) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  if (!(b.ad.flag[i] & kAdaptiveAccepted)) return;
  for (int e = 0; e < ny; ++e) soa(b.ad.k[0], e, n, i) = soa(k_in, e, n, i);
}

/// tid = i. Counts into *unfinished the live instances whose internal time is still
/// short of their grid target (the host reads it back to decide whether to run more
/// rounds). Atomic on the device; the CPU tests run threads one at a time.
template <class T>
SP_HD void dopri5_count_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  if (b.status[i] != kStatusOk || !(b.ad.t[i] < detail::grid_target(mv, b, i))) return;
#if defined(__CUDA_ARCH__)
  atomicAdd(b.ad.unfinished, 1);
#else
  ++*b.ad.unfinished;
#endif
}

/// tid = i. The state at the grid target of a live instance that has passed it: the
/// dense output of its last accepted step at theta = (target - t_old) / h_old into Y,
/// quaternions renormalised. Instances that stopped keep Y (their last grid state).
template <class T>
SP_HD void dopri5_output_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, ny = 13 * mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (b.status[i] != kStatusOk || ad.h_old[i] <= T(0)) return;
  const T target = detail::grid_target(mv, b, i);
  const T theta = (target - ad.t_old[i]) / ad.h_old[i];
  const detail::Dopri5Columns<T> c(ad, ny, n, i);
  dopri5::dense_output(ny, n, theta, static_cast<const T* const*>(c.r), b.Y + i);
  detail::renormalise_quaternions(mv, b.Y, i);
}

}  // namespace simphant::batch
