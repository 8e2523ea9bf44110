#pragma once
// Per-thread functions of the projection onto the constraint manifold after a step
// (docs/solver.md, Projection onto the constraint manifold), on the `cuda` and
// `cuda-fused` paths; the CPU reference is simphant/dynamics/projection.cpp and the
// per-body arithmetic is shared with it (simphant/formulas/projection_math.hpp).
//
// A stage reuses the step's solve (batch_step.hpp, enqueue_solve): joint_rows at the
// candidate state, then projection_rhs_thread in place of the forces (Q = 0,
// gamma* = -residual), the Schur build and its factorisation, the accelerations kernel
// (which yields the correction -M^-1 Phi_q^T lambda, and flags a failed factorisation in
// b.fail) and projection_apply_thread. The step's commit (instance_status.hpp) then
// copies the projected candidate, or freezes the instance when a stage failed.
#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/projection_math.hpp"

namespace simphant::batch {

/// tid = i. Right-hand side of a projection stage for instance i at y (13 N, n) and its
/// time t_in[i] [s]: Q_out (6 N, n) = 0 and, row R, gamma_star_out =
/// projection_gamma_star(stage, Phi, Phi_q qdot + Phi_t) from phi_in (m, n), jac_in
/// (m, mv.jac_cols(), n), y's velocities and, for a driver's row, Phi_t = -s'(t). Threads past n
/// return.
template <class T>
SP_HD void projection_rhs_thread(int tid, const ModelView<T>& mv, int stage, const T* t_in, const T* y,
                                 const T* phi_in, const T* jac_in, T* Q_out, T* gamma_star_out) {
  const int n = mv.n_instances, N = mv.n_bodies, w = mv.jac_cols();
  if (tid >= n) return;
  const int i = tid;
  for (int e = 0; e < 6 * N; ++e) soa(Q_out, e, n, i) = T(0);
  for (int j = 0; j < mv.n_constraints(); ++j) {
    for (int r = 0; r < mv.rows_of(j); ++r) {
      const int R = mv.row_offset[j] + r;
      // Phi_q qdot, summed as joint_eval sums it (every side in order, 6 columns each; a
      // ground side's velocity 0).
      T phi_dot = T(0);
      for (int side = 0; side < mv.sides; ++side) {
        const int k = mv.body_of(j, side);
        for (int c = 0; c < 6; ++c) {
          const T qd = k < 0 ? T(0) : soa(y, 7 * N + 6 * k + c, n, i);
          phi_dot += soa(jac_in, w * R + 6 * side + c, n, i) * qd;
        }
      }
      if (j >= mv.n_joints && j < mv.first_mimic()) {  // a driver: Phi_dot = Phi_q qdot - s'(t) (driver_row)
        T s, sd, sdd;
        motion_law_value(mv, mv.driver[3 * (j - mv.n_joints) + 2], i, t_in[i], s, sd, sdd);
        phi_dot = phi_dot - sd;
      }
      soa(gamma_star_out, R, n, i) = projection_gamma_star(stage, soa(phi_in, R, n, i), phi_dot);
    }
  }
}

/// tid = i. Applies a projection stage's correction to instance i's y_inout (13 N, n):
/// the velocity-coordinate correction is the qddot part of dq_in (13 N, n, the
/// accelerations kernel's output: entries 7 N + 6 k ..). Position stage: each body's r, p
/// (apply_position_correction); velocity stage: qdot += correction. Skipped when the
/// stage's factorisation failed (fail_in[i] != 0; the commit then freezes the instance).
template <class T>
SP_HD void projection_apply_thread(int tid, const ModelView<T>& mv, int stage, const T* dq_in, const int* fail_in,
                                   T* y_inout) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n || fail_in[tid] != 0) return;
  const int i = tid;
  for (int k = 0; k < N; ++k) {
    T dq[6];
    for (int c = 0; c < 6; ++c) dq[c] = soa(dq_in, 7 * N + 6 * k + c, n, i);
    if (stage == kProjectPosition) {
      Vec3<T> r = {soa(y_inout, 7 * k, n, i), soa(y_inout, 7 * k + 1, n, i), soa(y_inout, 7 * k + 2, n, i)};
      Quat<T> p = soa_quat(static_cast<const T*>(y_inout), n, i, k);
      apply_position_correction(r, p, dq);
      soa(y_inout, 7 * k, n, i) = r.x;
      soa(y_inout, 7 * k + 1, n, i) = r.y;
      soa(y_inout, 7 * k + 2, n, i) = r.z;
      soa(y_inout, 7 * k + 3, n, i) = p.w;
      soa(y_inout, 7 * k + 4, n, i) = p.x;
      soa(y_inout, 7 * k + 5, n, i) = p.y;
      soa(y_inout, 7 * k + 6, n, i) = p.z;
    } else {
      for (int c = 0; c < 6; ++c) soa(y_inout, 7 * N + 6 * k + c, n, i) += dq[c];
    }
  }
}

/// The projection mode (0 none, 1 velocity, 2 position_velocity) instance i runs in this
/// fixed step: step_projection of ModelView::projection with step_pivot, the smallest
/// relative pivot of the step's factorisations before the projection's own (for auto).
template <class T>
SP_HD int instance_projection(const ModelView<T>& mv, T step_pivot) {
  return step_projection(mv.projection, step_pivot, T(mv.auto_pivot));
}

/// The arrays of b that a projection's solves write for each instance, as ProjectionSaved.
template <class T>
SP_HD ProjectionSaved<T> projection_records(const BatchBuffers<T>& b) {
  return {b.step_pivot,   b.pivot_min,          b.pivot_min_time, b.refine_worst,
          b.refine_worst_time, b.refine_unconverged, b.recoveries,     b.fail};
}

/// Instance i's entries of `from` into `to`.
template <class T>
SP_HD void copy_projection_records(const ProjectionSaved<T>& from, const ProjectionSaved<T>& to, int i) {
  to.step_pivot[i] = from.step_pivot[i];
  to.pivot_min[i] = from.pivot_min[i];
  to.pivot_min_time[i] = from.pivot_min_time[i];
  to.refine_worst[i] = from.refine_worst[i];
  to.refine_worst_time[i] = from.refine_worst_time[i];
  to.refine_unconverged[i] = from.refine_unconverged[i];
  to.recoveries[i] = from.recoveries[i];
  to.fail[i] = from.fail[i];
}

/// tid = i, the `cuda` path with auto, before a projection's solves (run for every
/// instance): saves what they record of instance i (b.saved).
template <class T>
SP_HD void projection_save_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid < mv.n_instances) copy_projection_records(projection_records(b), b.saved, tid);
}

/// tid = i, after the projection's solves: an instance that does not project in this step
/// (instance_projection of the saved step pivot is none) gets back what they recorded, as
/// if they had not run (the CPU reference runs them only for the instances that project).
template <class T>
SP_HD void projection_restore_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  if (tid >= mv.n_instances || instance_projection(mv, static_cast<T>(b.saved.step_pivot[tid])) != 0) return;
  copy_projection_records(b.saved, projection_records(b), tid);
}

/// projection_apply_thread for an instance that projects in this step: with auto, decided
/// by the saved step pivot (b.saved; the `cuda` path), else always.
template <class T>
SP_HD void projection_apply_step_thread(int tid, const ModelView<T>& mv, int stage, const T* dq_in,
                                        const BatchBuffers<T>& b, T* y_inout) {
  if (tid >= mv.n_instances) return;
  if (mv.projection == kProjectionAuto && instance_projection(mv, static_cast<T>(b.saved.step_pivot[tid])) == 0) return;
  projection_apply_thread(tid, mv, stage, dq_in, static_cast<const int*>(b.fail), y_inout);
}

/// The stages of a projection mode in order: none; velocity; kProjectionNewtonIterations
/// position stages and then the velocity stage (position_velocity, and auto: the stages of
/// the instances that project). Returns how many, stage s's kind in kind[s].
SP_HD int projection_stages(int projection, int* kind) {
  int count = 0;
  if (projection == 2 || projection == kProjectionAuto)
    for (int it = 0; it < kProjectionNewtonIterations; ++it) kind[count++] = kProjectPosition;
  if (projection != 0) kind[count++] = kProjectVelocity;
  return count;
}

/// Most stages projection_stages returns.
constexpr int kMaxProjectionStages = kProjectionNewtonIterations + 1;

}  // namespace simphant::batch
