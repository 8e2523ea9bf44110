#pragma once
// The adaptive Dormand-Prince 5(4) sequence of the `cuda` and `cuda-fused` backends
// (docs/cuda-backend.md, "Adaptive steps"), written once over an executor like
// batch_step.hpp: on the GPU each launch is the __global__ trampoline around a per-thread
// function (kernels/dopri5_step.hpp); the CPU tests run the same sequence over the whole
// grid (tests/cpu_grid_exec.hpp).
//
// `cuda`: every evaluation is batch_step.hpp's enqueue_solve + enqueue_accelerations at
// each instance's own stage time (AdaptiveBuffers::t_stage); instances sitting a round
// out evaluate their own state, which is not used. `cuda-fused`: one thread per instance
// and stage (fused_dopri5_stage_thread), and an instance sitting the round out returns at
// once.
#include "batch_step.hpp"
#include "dopri5_step.hpp"

namespace simphant::batch {

/// Instance i = tid, stage s (2..7) of a round on the cuda-fused path: s = 2 opens the
/// round (dopri5_round_begin_thread); an active instance forms its stage state, solves
/// at it (fused_solve_thread at t_stage) and writes the slope k_s; s = 7 then decides
/// (dopri5_decide_thread), projects an accepted candidate (ModelView::projection, the
/// stages of enqueue_projection, the correction in k2), commits it (dopri5_commit_thread)
/// and sets k1 for the next attempt (k7, or f at the projected state; dopri5_fsal_thread).
template <class T>
SP_HD void fused_dopri5_stage_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P,
                                     const BatchBuffers<T>& b, int s) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (s == 2) dopri5_round_begin_thread(i, mv, b);
  if (!(ad.flag[i] & kAdaptiveActive)) return;
  const auto evaluate = [&](const T* y, T* ydot, int projection_stage) {
    fused_solve_thread(i, mv, P, b, y, T(0), projection_stage, static_cast<const T*>(ad.t_stage));
    for (int k = 0; k < N; ++k)
      accelerations_thread(k * n + i, mv, y, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                           static_cast<const T*>(b.rhs), 1, static_cast<const int*>(b.info), ydot, b.fail);
  };
  dopri5_stage_thread(i, mv, b, s);
  evaluate(static_cast<const T*>(b.y_stage), ad.k[s - 1], -1);
  if (s < 7) return;
  dopri5_decide_thread(i, mv, b);
  if (!(ad.flag[i] & kAdaptiveAccepted)) return;
  int kind[kMaxProjectionStages];
  const int count = mv.n_rows > 0 ? projection_stages(mv.projection, kind) : 0;
  for (int p = 0; p < count; ++p) {
    evaluate(static_cast<const T*>(b.y_stage), ad.k[1], kind[p]);
    projection_apply_thread(i, mv, kind[p], static_cast<const T*>(ad.k[1]), static_cast<const int*>(b.fail), b.y_stage);
  }
  dopri5_commit_thread(i, mv, b);
  if (b.status[i] != kStatusOk) return;
  if (count > 0) {  // k1 at the projected state
    ad.t_stage[i] = ad.t[i];
    evaluate(static_cast<const T*>(ad.y), ad.k[6], -1);
  }
  dopri5_fsal_thread(i, mv, b, static_cast<const T*>(ad.k[6]));
}

/// Instance i = tid on the cuda-fused path: the start of the instances flagged
/// kAdaptiveStart (dopri5_start_thread, k1 = f(t, y), the first-step estimate's trial
/// evaluation and its result); others return.
template <class T>
SP_HD void fused_dopri5_start_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P,
                                     const BatchBuffers<T>& b) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveStart)) return;
  const auto evaluate = [&](const T* y, T* ydot) {
    fused_solve_thread(i, mv, P, b, y, T(0), -1, static_cast<const T*>(ad.t_stage));
    for (int k = 0; k < N; ++k)
      accelerations_thread(k * n + i, mv, y, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                           static_cast<const T*>(b.rhs), 1, static_cast<const int*>(b.info), ydot, b.fail);
  };
  dopri5_start_thread(i, mv, b);
  evaluate(static_cast<const T*>(ad.y), ad.k[6]);
  dopri5_first_step_trial_thread(i, mv, b, static_cast<const T*>(ad.k[6]));
  evaluate(static_cast<const T*>(b.y_stage), ad.k[1]);
  dopri5_first_step_final_thread(i, mv, b);
}

namespace detail {
/// f at y (13 N, n) and each instance's ad.t_stage into ydot (the `cuda` path).
template <class T, class Exec>
void enqueue_dopri5_eval(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* y, T* ydot,
                         int projection_stage = -1) {
  enqueue_solve(x, mv, b, y, T(0), nullptr, projection_stage, static_cast<const T*>(b.ad.t_stage));
  enqueue_accelerations(x, mv, b, y, ydot);
}
}  // namespace detail

/// The start of the instances flagged kAdaptiveStart: their internal state from Y at
/// their clock, k1 and the first step (Hairer's estimate, or solver.first_step). The
/// host runs it before the rounds when it has flagged an instance (creation, reset,
/// set_state, set_models). fused: the cuda-fused path's pattern, or null.
template <class T, class Exec>
void enqueue_dopri5_start(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b,
                          const SchurPatternView* fused = nullptr) {
  const int n = mv.n_instances;
  if (fused) {
    const SchurPatternView P = *fused;
    x.launch("fused_dopri5_start", n, [=] SP_LAMBDA(int tid) { fused_dopri5_start_thread(tid, mv, P, b); });
    return;
  }
  x.launch("dopri5_start", n, [=] SP_LAMBDA(int tid) { dopri5_start_thread(tid, mv, b); });
  detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.ad.y), b.ad.k[6]);
  x.launch("dopri5_first_step_trial", n, [=] SP_LAMBDA(int tid) {
    dopri5_first_step_trial_thread(tid, mv, b, static_cast<const T*>(b.ad.k[6]));
  });
  detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.y_stage), b.ad.k[1]);
  x.launch("dopri5_first_step_final", n, [=] SP_LAMBDA(int tid) { dopri5_first_step_final_thread(tid, mv, b); });
}

/// One round: every live instance short of its grid target attempts one step (six
/// evaluations, the error norm, the controller, on acceptance the projection, the
/// commit and the next k1). Host-synchronisation free.
template <class T, class Exec>
void enqueue_dopri5_round(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b,
                          const SchurPatternView* fused = nullptr) {
  const int n = mv.n_instances;
  if (fused) {
    const SchurPatternView P = *fused;
    for (int s = 2; s <= kDopri5Stages; ++s)
      x.launch("fused_dopri5_stage", n, [=] SP_LAMBDA(int tid) { fused_dopri5_stage_thread(tid, mv, P, b, s); });
    return;
  }
  x.launch("dopri5_round_begin", n, [=] SP_LAMBDA(int tid) { dopri5_round_begin_thread(tid, mv, b); });
  for (int s = 2; s <= kDopri5Stages; ++s) {
    x.launch("dopri5_stage", n, [=] SP_LAMBDA(int tid) { dopri5_stage_thread(tid, mv, b, s); });
    detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.y_stage), b.ad.k[s - 1]);
  }
  x.launch("dopri5_decide", n, [=] SP_LAMBDA(int tid) { dopri5_decide_thread(tid, mv, b); });
  // The accepted candidates projected (at t + h, in t_stage), the correction in k2.
  const bool projects = mv.n_rows > 0 && mv.projection != 0;
  if (projects) enqueue_projection(x, mv, b, b.y_stage, nullptr, static_cast<const T*>(b.ad.t_stage), b.ad.k[1]);
  x.launch("dopri5_commit", n, [=] SP_LAMBDA(int tid) { dopri5_commit_thread(tid, mv, b); });
  if (projects) {  // k1 at the projected state
    x.launch("dopri5_time", n, [=] SP_LAMBDA(int tid) {
      if (tid < mv.n_instances) b.ad.t_stage[tid] = b.ad.t[tid];
    });
    detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.ad.y), b.ad.k[6]);
  }
  x.launch("dopri5_fsal", n, [=] SP_LAMBDA(int tid) {
    dopri5_fsal_thread(tid, mv, b, static_cast<const T*>(b.ad.k[6]));
  });
}

/// Counts the live instances still short of their grid target into *b.ad.unfinished,
/// which the caller has zeroed.
template <class T, class Exec>
void enqueue_dopri5_count(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("dopri5_count", mv.n_instances, [=] SP_LAMBDA(int tid) { dopri5_count_thread(tid, mv, b); });
}

/// End of a grid step, once no live instance is short of it: Y = the dense output at the
/// grid time, then the batch step counted.
template <class T, class Exec>
void enqueue_dopri5_output(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("dopri5_output", mv.n_instances, [=] SP_LAMBDA(int tid) { dopri5_output_thread(tid, mv, b); });
  x.launch("count_step", 1, [=] SP_LAMBDA(int tid) { count_step_thread(tid, b.step); });
}

}  // namespace simphant::batch
