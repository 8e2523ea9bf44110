#pragma once
// The per-thread function of the `cuda-fused` step: one thread per
// instance does the whole of an RK4 stage -- Phi, Phi_q, gamma* (joint_rows_thread), Q
// (body_forces_thread), the Schur matrix assembled straight into the topology-ordered
// blocks of its Cholesky factor, the block-sparse factorisation and solve
// (fused_solve.hpp), the accelerations and the stage update -- so a step is four kernels
// (the last also commits the step) and one counter (batch_step.hpp, enqueue_step), with
// no cuSOLVER call, no pointer arrays and no dense m x m matrix. The first-order
// integrators (explicit and symplectic Euler) take one kernel per step
// (fused_euler_thread). Every per-instance array
// is structure of arrays (instance fastest), so a warp's threads read consecutive
// addresses. The per-thread functions are the ones the `cuda` path and the CPU tests
// use; this file only sequences them per instance.
#include "accelerations.hpp"
#include "euler_stage.hpp"
#include "fused_solve.hpp"
#include "instance_status.hpp"
#include "reduce.hpp"
#include "rk4_stage.hpp"

namespace simphant::batch {

namespace detail {

/// Instance i: the evaluation of stage s at y (time offset c after the step's start)
/// into b.k[s]; stage 0 also starts the step's pivot afresh (step_pivot_reset) and
/// records the start state's violation and its sample of the reductions over time
/// (reduce_thread).
template <class T>
SP_HD void fused_evaluate(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, int s,
                          const T* y, T c) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (s == 0) step_pivot_reset(i, b);
  fused_solve_thread(i, mv, P, b, y, c);
  if (s == 0) {
    violation_thread(i, mv, static_cast<const T*>(b.phi), b.violation);
    // The start state's sample of the reductions over time (reduce.hpp), lambda in b.rhs.
    reduce_thread(i, mv, b.red, static_cast<const T*>(b.Y), static_cast<const T*>(b.time),
                  static_cast<const T*>(b.inputs), static_cast<const T*>(b.jac), static_cast<const T*>(b.rhs),
                  1, static_cast<const int*>(b.info), static_cast<const T*>(b.violation),
                  static_cast<const std::int8_t*>(b.status), static_cast<const std::int64_t*>(b.step), b.red_acc,
                  b.red_tangent);
  }
  for (int k = 0; k < N; ++k)
    accelerations_thread(k * n + i, mv, y, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                         static_cast<const T*>(b.rhs), 1, static_cast<const int*>(b.info), b.k[s], b.fail);
}

/// Instance i: the candidate b.y_stage projected (ModelView::projection, for auto as this
/// step's factorisations decide: instance_projection; each stage as enqueue_projection
/// sequences it, b.k[0] holding the correction) and committed with the instance's status
/// (as commit_step_thread).
template <class T>
SP_HD void fused_project_commit(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, N = mv.n_bodies;
  int kind[kMaxProjectionStages];
  const int count = mv.n_rows > 0 ? projection_stages(instance_projection(mv, b.step_pivot[i]), kind) : 0;
  for (int p = 0; p < count; ++p) {
    fused_solve_thread(i, mv, P, b, static_cast<const T*>(b.y_stage), mv.dt, kind[p]);
    for (int k = 0; k < N; ++k)
      accelerations_thread(k * n + i, mv, static_cast<const T*>(b.y_stage), static_cast<const T*>(b.jac),
                           static_cast<const T*>(b.Q), static_cast<const T*>(b.rhs), 1, static_cast<const int*>(b.info),
                           b.k[0], b.fail);
    projection_apply_thread(i, mv, kind[p], static_cast<const T*>(b.k[0]), static_cast<const int*>(b.fail), b.y_stage);
  }
  commit_step_thread(i, mv, static_cast<const T*>(b.violation), static_cast<const T*>(b.y_stage),
                     static_cast<const std::int64_t*>(b.step), static_cast<const T*>(b.runaway), b.fail, b.Y, b.status,
                     b.status_step, b.status_reason);
}

}  // namespace detail

/// Instance i = tid, RK4 stage s (0..3) of one step: evaluates at b.Y (s = 0) or
/// b.y_stage, writes the stage derivative b.k[s], then the next stage state (s < 3, with
/// step h; with position_velocity its velocities projected) or the new state, projected (ModelView::projection, as enqueue_projection)
/// and committed with the instance's status (s = 3, as commit_step_thread). Stage 0 also records the start state's violation
/// and its sample of the reductions over time (reduce_thread).
template <class T>
SP_HD void fused_stage_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                              int s, T h) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  const T* y = s == 0 ? b.Y : b.y_stage;
  // Stage s's time offset c_s dt: 0, dt/2, dt/2, dt (h is the next stage's: c_{s+1} dt).
  const T c = s == 0 ? T(0) : s == 3 ? mv.dt : T(0.5) * mv.dt;
  detail::fused_evaluate(i, mv, P, b, s, y, c);
  if (s < 3) {
    for (int k = 0; k < N; ++k)
      rk4_stage_thread(k * n + i, mv, h, static_cast<const T*>(b.Y), static_cast<const T*>(b.k[s]), b.y_stage);
    if (mv.n_rows > 0 && projects_stage_states(instance_projection(mv, b.step_pivot[i]))) {
      // The stage state's velocities projected, as enqueue_step does, b.k[3] (free until
      // the last stage) holding the correction.
      fused_solve_thread(i, mv, P, b, static_cast<const T*>(b.y_stage), h, kProjectVelocity);
      for (int k = 0; k < N; ++k)
        accelerations_thread(k * n + i, mv, static_cast<const T*>(b.y_stage), static_cast<const T*>(b.jac),
                             static_cast<const T*>(b.Q), static_cast<const T*>(b.rhs), 1,
                             static_cast<const int*>(b.info), b.k[3], b.fail);
      projection_apply_thread(i, mv, kProjectVelocity, static_cast<const T*>(b.k[3]), static_cast<const int*>(b.fail),
                              b.y_stage);
    }
    return;
  }
  for (int k = 0; k < N; ++k)
    rk4_final_thread(k * n + i, mv, static_cast<const T*>(b.Y), static_cast<const T*>(b.k[0]),
                     static_cast<const T*>(b.k[1]), static_cast<const T*>(b.k[2]), static_cast<const T*>(b.k[3]),
                     b.y_stage);
  detail::fused_project_commit(i, mv, P, b);
}

/// Instance i = tid, one explicit or symplectic Euler step (ModelView::integrator): the
/// one evaluation at b.Y into b.k[0] (with the start state's violation and reduction
/// sample), the candidate b.y_stage (euler_final_thread per body), projected and
/// committed as fused_stage_thread's last stage does.
template <class T>
SP_HD void fused_euler_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n) return;
  const int i = tid;
  detail::fused_evaluate(i, mv, P, b, 0, static_cast<const T*>(b.Y), T(0));
  for (int k = 0; k < N; ++k)
    euler_final_thread(k * n + i, mv, static_cast<const T*>(b.Y), static_cast<const T*>(b.k[0]), b.y_stage);
  detail::fused_project_commit(i, mv, P, b);
}

}  // namespace simphant::batch
