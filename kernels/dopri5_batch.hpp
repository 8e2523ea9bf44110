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
// and stage (fused_dopri5_stage_thread); an instance sitting the round out returns at once.
#include "batch_step.hpp"
#include "dopri5_state.hpp"
#include "dopri5_step.hpp"

namespace simphant::batch {

namespace detail {

/// Whether accepted candidates are projected (solver.projection with constraint rows).
template <class T>
SP_HD bool dopri5_projects(const ModelView<T>& mv) {
  return projects_adaptive_step(mv.projection) && mv.n_rows > 0;
}

/// The cuda-fused path's evaluation of instance i at y and t_stage[i] into ydot (or a
/// projection stage's correction), as fused_stage_thread does it.
template <class T>
SP_HD void fused_dopri5_eval(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                             const T* y, T* ydot, int projection_stage = -1) {
  const int n = mv.n_instances;
  fused_solve_thread(i, mv, P, b, y, T(0), projection_stage, static_cast<const T*>(b.ad.t_stage));
  for (int k = 0; k < mv.n_bodies; ++k)
    accelerations_thread(k * n + i, mv, y, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                         static_cast<const T*>(b.rhs), 1, static_cast<const int*>(b.info), ydot, b.fail);
}

/// The `cuda` path's evaluation of every instance at y (13 N, n) and its ad.t_stage into
/// ydot; with_violation: max |Phi| at y into b.violation too.
template <class T, class Exec>
void enqueue_dopri5_eval(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* y, T* ydot,
                         bool with_violation = false) {
  enqueue_solve(x, mv, b, y, T(0), nullptr, -1, static_cast<const T*>(b.ad.t_stage));
  if (with_violation)
    x.launch("violation", mv.n_instances, [=] SP_LAMBDA(int tid) {
      violation_thread(tid, mv, static_cast<const T*>(b.phi), b.violation);
    });
  enqueue_accelerations(x, mv, b, y, ydot);
}

}  // namespace detail

/// Instance i = tid on the cuda-fused path: the (re)start of an instance flagged
/// kAdaptiveStart (dopri5_start_thread, k1 = f(t, y) checked, the first-step estimate's
/// trial evaluation and its result); others return.
template <class T>
SP_HD void fused_dopri5_start_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P,
                                     const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (!(ad.flag[i] & kAdaptiveStart)) return;
  dopri5_start_thread(i, mv, b);
  detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(ad.y), ad.k[6]);
  violation_thread(i, mv, static_cast<const T*>(b.phi), b.violation);
  dopri5_start_check_thread(i, mv, b, static_cast<const T*>(ad.k[6]));
  dopri5_reduce_thread(i, mv, b, false);
  if (b.status[i] == kStatusOk && (ad.flag[i] & kAdaptiveFresh) && !(mv.first_step > T(0)))
    detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(b.y_stage), ad.k[1]);
  dopri5_start_final_thread(i, mv, b, ad.k[1]);
}

/// Instance i = tid, stage s (2..7) of a round on the cuda-fused path: s = 2 opens the
/// round (dopri5_round_begin_thread); an active instance forms its stage state (its
/// velocities projected with position_velocity, the correction in k7), evaluates it and
/// writes the slope k_s; s = 7 then decides (dopri5_decide_thread) and, for an accepted
/// step, projects the candidate (the stages of enqueue_projection, the correction in k2),
/// finishes it, evaluates the projected state into k7 and checks it
/// (dopri5_projected_start_thread), and commits it -- the order of the `cuda` path's
/// kernels, for one instance.
template <class T>
SP_HD void fused_dopri5_stage_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P,
                                     const BatchBuffers<T>& b, int s) {
  if (tid >= mv.n_instances) return;
  const int i = tid;
  const AdaptiveBuffers<T>& ad = b.ad;
  if (s == 2) dopri5_round_begin_thread(i, mv, b);
  if (!(ad.flag[i] & kAdaptiveActive)) return;
  dopri5_stage_thread(i, mv, b, s);
  if (s < 7 && mv.n_rows > 0 && projects_stage_states(mv.projection)) {
    detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(b.y_stage), ad.k[6], kProjectVelocity);
    projection_apply_thread(i, mv, kProjectVelocity, static_cast<const T*>(ad.k[6]), static_cast<const int*>(b.fail),
                            b.y_stage);
  }
  detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(b.y_stage), ad.k[s - 1]);
  if (s < 7) return;
  violation_thread(i, mv, static_cast<const T*>(b.phi), b.violation);
  dopri5_decide_thread(i, mv, b);
  if (!(ad.flag[i] & kAdaptiveAccepted) || b.status[i] != kStatusOk) return;
  if (detail::dopri5_projects(mv)) {
    int kind[kMaxProjectionStages];
    const int count = projection_stages(mv.projection, kind);
    for (int p = 0; p < count; ++p) {
      detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(b.y_stage), ad.k[1], kind[p]);
      projection_apply_thread(i, mv, kind[p], static_cast<const T*>(ad.k[1]), static_cast<const int*>(b.fail),
                              b.y_stage);
    }
    dopri5_finish_thread(i, mv, b);
    if (b.status[i] != kStatusOk) return;
    detail::fused_dopri5_eval(i, mv, P, b, static_cast<const T*>(b.y_stage), ad.k[6]);
    violation_thread(i, mv, static_cast<const T*>(b.phi), b.violation);
    dopri5_projected_start_thread(i, mv, b);
  } else {
    dopri5_finish_thread(i, mv, b);
  }
  dopri5_reduce_thread(i, mv, b, true);
  dopri5_commit_thread(i, mv, b);
}

/// The listed instances (ids, count; null: the first count) start afresh at the next
/// advance (dopri5_restart_thread): reset, set_state, set_models.
template <class T, class Exec>
void enqueue_dopri5_restart(Exec& x, const AdaptiveBuffers<T>& ad, const int* ids, int count) {
  const AdaptiveBuffers<T> a = ad;
  x.launch("dopri5_restart", count, [=] SP_LAMBDA(int tid) { dopri5_restart_thread(tid, count, ids, a); });
}

/// Decides which live instances (re)start at this advance (dopri5_sync_thread) and
/// counts them into *b.ad.unfinished, which the caller has zeroed.
template <class T, class Exec>
void enqueue_dopri5_sync(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("dopri5_sync", mv.n_instances, [=] SP_LAMBDA(int tid) { dopri5_sync_thread(tid, mv, b); });
}

/// The (re)start of the instances that enqueue_dopri5_sync flagged: their internal state
/// from Y at their clock, k1 checked and, for a fresh start, the first step (Hairer's
/// estimate, or solver.first_step). fused: the cuda-fused path's pattern, or null.
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
  detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.ad.y), b.ad.k[6], true);
  x.launch("dopri5_start_check", n, [=] SP_LAMBDA(int tid) {
    dopri5_start_check_thread(tid, mv, b, static_cast<const T*>(b.ad.k[6]));
  });
  if (b.red.any())
    x.launch("dopri5_reduce", n, [=] SP_LAMBDA(int tid) { dopri5_reduce_thread(tid, mv, b, false); });
  detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.y_stage), b.ad.k[1]);
  x.launch("dopri5_start_final", n, [=] SP_LAMBDA(int tid) { dopri5_start_final_thread(tid, mv, b, b.ad.k[1]); });
}

/// One round: every live instance short of its grid target attempts one step (six
/// evaluations, the error norm, the controller; on acceptance the checks, the
/// projection, the new start's evaluation and the commit). Host-synchronisation free.
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
  const AdaptiveBuffers<T> ad = b.ad;
  x.launch("dopri5_round_begin", n, [=] SP_LAMBDA(int tid) { dopri5_round_begin_thread(tid, mv, b); });
  for (int s = 2; s <= kDopri5Stages; ++s) {
    x.launch("dopri5_stage", n, [=] SP_LAMBDA(int tid) { dopri5_stage_thread(tid, mv, b, s); });
    if (s < kDopri5Stages && mv.n_rows > 0 && projects_stage_states(mv.projection)) {
      // The stage state's velocities projected, as enqueue_step does, the correction in k7.
      enqueue_solve(x, mv, b, static_cast<const T*>(b.y_stage), T(0), nullptr, kProjectVelocity,
                    static_cast<const T*>(ad.t_stage));
      enqueue_accelerations(x, mv, b, static_cast<const T*>(b.y_stage), ad.k[6]);
      x.launch("projection_apply", n, [=] SP_LAMBDA(int tid) {
        projection_apply_thread(tid, mv, kProjectVelocity, static_cast<const T*>(ad.k[6]),
                                static_cast<const int*>(b.fail), b.y_stage);
      });
    }
    detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.y_stage), ad.k[s - 1], s == kDopri5Stages);
  }
  x.launch("dopri5_decide", n, [=] SP_LAMBDA(int tid) { dopri5_decide_thread(tid, mv, b); });
  if (detail::dopri5_projects(mv)) {
    // The accepted candidates projected at t + h (t_stage after the 7th stage), the
    // correction in k2; then the projected state evaluated into k7 and checked.
    enqueue_projection(x, mv, b, b.y_stage, nullptr, static_cast<const T*>(ad.t_stage), ad.k[1]);
    x.launch("dopri5_finish", n, [=] SP_LAMBDA(int tid) { dopri5_finish_thread(tid, mv, b); });
    detail::enqueue_dopri5_eval(x, mv, b, static_cast<const T*>(b.y_stage), ad.k[6], true);
    x.launch("dopri5_projected_start", n, [=] SP_LAMBDA(int tid) { dopri5_projected_start_thread(tid, mv, b); });
  } else {
    x.launch("dopri5_finish", n, [=] SP_LAMBDA(int tid) { dopri5_finish_thread(tid, mv, b); });
  }
  if (b.red.any())  // the new start's sample of the reductions over time
    x.launch("dopri5_reduce", n, [=] SP_LAMBDA(int tid) { dopri5_reduce_thread(tid, mv, b, true); });
  x.launch("dopri5_commit", n, [=] SP_LAMBDA(int tid) { dopri5_commit_thread(tid, mv, b); });
}

/// Counts the live instances still short of their grid target into *b.ad.unfinished,
/// which the caller has zeroed.
template <class T, class Exec>
void enqueue_dopri5_count(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("dopri5_count", mv.n_instances, [=] SP_LAMBDA(int tid) { dopri5_count_thread(tid, mv, b); });
}

/// End of a grid step, once no live instance is short of it: Y = the state at the grid
/// time (dopri5_output_thread), then the batch step counted.
template <class T, class Exec>
void enqueue_dopri5_output(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("dopri5_output", mv.n_instances, [=] SP_LAMBDA(int tid) { dopri5_output_thread(tid, mv, b); });
  x.launch("count_step", 1, [=] SP_LAMBDA(int tid) { count_step_thread(tid, b.step); });
}

/// Rounds queued between two read-backs of the unfinished-instance counter, after the
/// first batch of a grid step (which repeats the previous grid step's number of rounds).
constexpr int kDopri5RoundsPerCheck = 4;

/// The adaptive path's advance by n_steps grid steps (CudaBackend::advance_dopri5):
/// enqueue_dopri5_sync, and enqueue_dopri5_start when it flagged an instance; then per
/// grid step rounds until no live instance is short of the grid time -- first
/// max(1, *rounds_inout) of them (the previous grid step's count), then
/// kDopri5RoundsPerCheck at a time -- and the state at the grid time
/// (enqueue_dopri5_output); finally enqueue_end_check. read_count(enqueue) zeroes
/// *b.ad.unfinished, calls enqueue() to queue the counting kernel, waits and returns the
/// count: the host's only synchronisation. A round leaves an instance that has passed
/// the grid time alone, so running more rounds than needed only costs time.
template <class T, class Exec, class ReadCount>
void enqueue_dopri5_advance(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const SchurPatternView* fused,
                            int n_steps, int* rounds_inout, ReadCount read_count) {
  if (read_count([&] { enqueue_dopri5_sync(x, mv, b); }) > 0) enqueue_dopri5_start(x, mv, b, fused);
  for (int s = 0; s < n_steps; ++s) {
    int batch_rounds = *rounds_inout > 1 ? *rounds_inout : 1, rounds = 0;
    for (;;) {
      for (int r = 0; r < batch_rounds; ++r) enqueue_dopri5_round(x, mv, b, fused);
      rounds += batch_rounds;
      if (read_count([&] { enqueue_dopri5_count(x, mv, b); }) == 0) break;
      batch_rounds = kDopri5RoundsPerCheck;
    }
    *rounds_inout = rounds;
    enqueue_dopri5_output(x, mv, b);
  }
  enqueue_end_check(x, mv, b);
}

}  // namespace simphant::batch
