#pragma once
// The batched step, written once over an executor (docs/cuda-backend.md): the `cuda` path, and
// with a Schur pattern the `cuda-fused` one (fused_stage.hpp):
// each stage launches the per-thread functions over their grids and the batched
// Cholesky of the Schur matrices. Exec is host/cuda_exec.hpp on the GPU (each launch a
// thin __global__ trampoline, cuSOLVER potrfBatched / potrsBatched) and a plain loop in
// the CPU tests, so the sequence the GPU runs is the sequence the tests check.
//
// Exec provides:
//   template <class F> void launch(const char* name, int n_threads, F f);  // f(tid) for tid < n_threads
//   void cholesky_factor(int m, T** C_ptrs, int* info, int batch);   // C <- L (potrfBatched)
//   void cholesky_solve(int m, T** C_ptrs, T** rhs_ptrs, int batch);  // rhs <- C^-1 rhs (potrsBatched)
// Lambdas are SP_LAMBDA (__host__ __device__ under nvcc's --extended-lambda).
#include "accelerations.hpp"
#include "batch_buffers.hpp"
#include "body_forces.hpp"
#include "euler_stage.hpp"
#include "frame.hpp"
#include "fused_solve.hpp"
#include "fused_stage.hpp"
#include "instance_status.hpp"
#include "joint_rows.hpp"
#include "pivot_watch.hpp"
#include "projection.hpp"
#include "reduce.hpp"
#include "refine.hpp"
#include "rk4_stage.hpp"
#include "schur.hpp"

#if defined(__CUDACC__)
#define SP_LAMBDA __host__ __device__
#else
#define SP_LAMBDA
#endif

namespace simphant::batch {

/// One evaluation of every instance at y (13 N, n) and its time h [s] after the current
/// step's start (each instance's own clock, b.time: instance_time_thread): Phi, Phi_q, gamma*, Q, the Schur
/// system and its solution lambda (in b.rhs), with the factorisation info in b.info: the
/// refined regularised solve (refine.hpp) with the pivot recovery, at most
/// mv.refine_steps corrections, each solve recorded per instance (refine_record).
/// fused: the cuda-fused path's pattern (one thread per instance, fused_solve.hpp), or
/// null for per-joint kernels and the batched dense Cholesky. projection_stage >= 0:
/// the same solve for a projection stage (projection.hpp: Q = 0, gamma* = -residual).
/// t_stage: null, or (n) each instance's own evaluation time [s] (the adaptive path's
/// per-instance step, kernels/dopri5_batch.hpp), which replaces the instance clock and h.
template <class T, class Exec>
void enqueue_solve(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* y, T h,
                   const SchurPatternView* fused = nullptr, int projection_stage = -1, const T* t_stage = nullptr) {
  const int n = mv.n_instances;
  if (fused) {
    const SchurPatternView P = *fused;
    x.launch("fused_solve", n, [=] SP_LAMBDA(int tid) {
      fused_solve_thread(tid, mv, P, b, y, h, projection_stage, t_stage);
    });
    return;
  }
  if (!t_stage)
    x.launch("instance_time", n, [=] SP_LAMBDA(int tid) {
      instance_time_thread(tid, mv, static_cast<const std::int64_t*>(b.step),
                           static_cast<const std::int64_t*>(b.clock_offset), h, b.time);
    });
  const T* t = t_stage ? t_stage : static_cast<const T*>(b.time);
  x.launch("joint_rows", n * mv.n_constraints(), [=] SP_LAMBDA(int tid) {
    joint_rows_thread(tid, mv, t, y, b.phi, b.jac, b.gamma_star);
  });
  if (projection_stage >= 0) {
    x.launch("projection_rhs", n, [=] SP_LAMBDA(int tid) {
      projection_rhs_thread(tid, mv, projection_stage, t, y, static_cast<const T*>(b.phi),
                            static_cast<const T*>(b.jac), b.Q, b.gamma_star);
    });
  } else {
    x.launch("body_forces", n * mv.n_bodies, [=] SP_LAMBDA(int tid) {
      body_forces_thread(tid, mv, t, y, static_cast<const T*>(b.inputs), b.Q);
    });
  }
  if (mv.n_rows == 0) return;
  const int m = mv.n_rows;
  x.launch("schur", n * mv.n_constraints(), [=] SP_LAMBDA(int tid) {
    schur_thread(tid, mv, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                 static_cast<const T*>(b.gamma_star), b.C, b.rhs, b.floor, b.diag);
  });
  x.cholesky_factor(m, b.C_ptrs, b.info, n);
  x.launch("recover", n, [=] SP_LAMBDA(int tid) {
    recover_thread(tid, mv, static_cast<const T*>(b.jac), b.C, b.floor, b.info, b.recoveries);
  });
  x.launch("pivot_watch", n, [=] SP_LAMBDA(int tid) { dense_pivot_thread(tid, mv, b, t); });
  x.cholesky_solve(m, b.C_ptrs, b.rhs_ptrs, n);
  if (mv.refine_steps > 0)
    x.launch("refine", n, [=] SP_LAMBDA(int tid) { refine_thread(tid, mv, b, t); });
}

/// The derivative ydot (13 N, n) at y, after enqueue_solve at y.
template <class T, class Exec>
void enqueue_accelerations(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* y, T* ydot) {
  x.launch("accelerations", mv.n_instances * mv.n_bodies, [=] SP_LAMBDA(int tid) {
    accelerations_thread(tid, mv, y, static_cast<const T*>(b.jac), static_cast<const T*>(b.Q),
                         static_cast<const T*>(b.rhs), b.lambda_soa, static_cast<const int*>(b.info), ydot, b.fail);
  });
}

/// auto (the `cuda` path): what the projection's solves are about to record, saved
/// (projection_save_thread) ...
template <class T, class Exec>
void enqueue_projection_save(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("projection_save", mv.n_instances, [=] SP_LAMBDA(int tid) { projection_save_thread(tid, mv, b); });
}

/// ... and given back to the instances that do not project (projection_restore_thread).
template <class T, class Exec>
void enqueue_projection_restore(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  x.launch("projection_restore", mv.n_instances, [=] SP_LAMBDA(int tid) { projection_restore_thread(tid, mv, b); });
}

/// The projection of ModelView::projection (projection.hpp) applied to the candidate
/// state y (13 N, n) of every instance in place, at the end of the step (time offset
/// dt: a driver's row projects onto Phi(q, t) = 0, Phi_q qdot = -Phi_t), each stage a solve (enqueue_solve), the
/// accelerations kernel into b.k[0] (free once the step's final stage is formed) and
/// the correction. A failed factorisation sets b.fail (the commit freezes the instance).
/// auto: the stages of position_velocity run for every instance and correct those that
/// project in this step (projection_apply_step_thread); the others get back what the
/// solves recorded (enqueue_projection_save, enqueue_projection_restore).
/// t_stage, dq: the adaptive path's per-instance times (n) of y and the correction's
/// workspace (13 N, n); null: the end of the fixed step, and b.k[0].
template <class T, class Exec>
void enqueue_projection(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, T* y,
                        const SchurPatternView* fused = nullptr, const T* t_stage = nullptr, T* dq = nullptr) {
  if (mv.n_rows == 0) return;
  int kind[kMaxProjectionStages];
  const int count = projection_stages(mv.projection, kind);
  if (count == 0) return;
  T* corr = dq ? dq : b.k[0];
  const bool automatic = mv.projection == kProjectionAuto;
  if (automatic) enqueue_projection_save(x, mv, b);
  for (int s = 0; s < count; ++s) {
    const int stage = kind[s];
    enqueue_solve(x, mv, b, static_cast<const T*>(y), mv.dt, fused, stage, t_stage);
    enqueue_accelerations(x, mv, b, static_cast<const T*>(y), corr);
    x.launch("projection_apply", mv.n_instances, [=] SP_LAMBDA(int tid) {
      projection_apply_step_thread(tid, mv, stage, static_cast<const T*>(corr), b, y);
    });
  }
  if (automatic) enqueue_projection_restore(x, mv, b);
}

/// The start state's evaluation of a step into b.k[0] (the cuda path): the step's pivot
/// reset (step_pivot_reset), the solve at b.Y,
/// its violation (b.violation) and sample of the reductions over time, the accelerations.
template <class T, class Exec>
void enqueue_start_stage(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances;
  x.launch("step_pivot_reset", n, [=] SP_LAMBDA(int tid) {
    if (tid < n) step_pivot_reset(tid, b);
  });
  enqueue_solve(x, mv, b, static_cast<const T*>(b.Y), T(0));
  x.launch("violation", n, [=] SP_LAMBDA(int tid) { violation_thread(tid, mv, static_cast<const T*>(b.phi), b.violation); });
  if (b.red.any())  // its sample of the reductions over time (reduce.hpp)
    x.launch("reduce", n, [=] SP_LAMBDA(int tid) {
      reduce_thread(tid, mv, b.red, static_cast<const T*>(b.Y), static_cast<const T*>(b.time),
                    static_cast<const T*>(b.inputs), static_cast<const T*>(b.jac),
                    static_cast<const T*>(b.rhs), b.lambda_soa, static_cast<const int*>(b.info),
                    static_cast<const T*>(b.violation), static_cast<const std::int8_t*>(b.status),
                    static_cast<const std::int64_t*>(b.step), b.red_acc);
    });
  enqueue_accelerations(x, mv, b, static_cast<const T*>(b.Y), b.k[0]);
}

/// The candidate b.y_stage projected (enqueue_projection), committed per instance with
/// its status, and the step counted.
template <class T, class Exec>
void enqueue_commit(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  enqueue_projection(x, mv, b, b.y_stage);
  x.launch("commit_step", mv.n_instances, [=] SP_LAMBDA(int tid) {
    commit_step_thread(tid, mv, static_cast<const T*>(b.violation), static_cast<const T*>(b.y_stage),
                       static_cast<const std::int64_t*>(b.step), static_cast<const T*>(b.runaway), b.fail, b.Y, b.status,
                       b.status_step, b.status_reason);
  });
  x.launch("count_step", 1, [=] SP_LAMBDA(int tid) { count_step_thread(tid, b.step); });
}

/// One explicit or symplectic Euler step of every instance (ModelView::integrator;
/// docs/solver.md, "Integrators"): one evaluation, the candidate (euler_stage.hpp),
/// projected and committed as RK4's. fused: one kernel per step (fused_euler_thread).
template <class T, class Exec>
void enqueue_euler_step(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const SchurPatternView* fused = nullptr) {
  if (fused) {
    const SchurPatternView P = *fused;
    x.launch("fused_euler", mv.n_instances, [=] SP_LAMBDA(int tid) { fused_euler_thread(tid, mv, P, b); });
    x.launch("count_step", 1, [=] SP_LAMBDA(int tid) { count_step_thread(tid, b.step); });
    return;
  }
  enqueue_start_stage(x, mv, b);
  x.launch("euler_final", mv.n_instances * mv.n_bodies, [=] SP_LAMBDA(int tid) {
    euler_final_thread(tid, mv, static_cast<const T*>(b.Y), static_cast<const T*>(b.k[0]), b.y_stage);
  });
  enqueue_commit(x, mv, b);
}

/// One fixed step of every instance with the fixed-step integrator of
/// ModelView::integrator: explicit or symplectic Euler by enqueue_euler_step, else one
/// RK4 step (the adaptive integrators have their own host loop). RK4: frozen instances are computed and not committed,
/// the candidate projected (enqueue_projection) before the commit; with position_velocity
/// the stage states' velocities too (projection_math.hpp, projects_stage_states).
/// Host-synchronisation free: a CUDA graph captures it once and replays it. fused: as
/// enqueue_solve; then each stage is one kernel of one thread per instance
/// (fused_stage_thread), the last committing the step.
template <class T, class Exec>
void enqueue_step(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const SchurPatternView* fused = nullptr) {
  if (mv.integrator == static_cast<std::int8_t>(Integrator::Euler) ||
      mv.integrator == static_cast<std::int8_t>(Integrator::SymplecticEuler)) {
    enqueue_euler_step(x, mv, b, fused);
    return;
  }
  if (fused) {
    const SchurPatternView P = *fused;
    const T half_dt = T(0.5) * mv.dt;
    const T stage_h[4] = {half_dt, half_dt, mv.dt, mv.dt};
    for (int s = 0; s < 4; ++s) {
      const T h = stage_h[s];
      x.launch("fused_stage", mv.n_instances, [=] SP_LAMBDA(int tid) { fused_stage_thread(tid, mv, P, b, s, h); });
    }
    x.launch("count_step", 1, [=] SP_LAMBDA(int tid) { count_step_thread(tid, b.step); });
    return;
  }
  const int n = mv.n_instances, nb = n * mv.n_bodies;
  const T half_dt = T(0.5) * mv.dt;
  const T stage_h[3] = {half_dt, half_dt, mv.dt};
  const T stage_c[4] = {T(0), half_dt, half_dt, mv.dt};  // stage times after the step's start
  for (int s = 0; s < 4; ++s) {
    const T* y = s == 0 ? b.Y : b.y_stage;
    if (s == 0) {  // the first stage evaluates the step's start state
      enqueue_start_stage(x, mv, b);
    } else {
      enqueue_solve(x, mv, b, y, stage_c[s]);
      enqueue_accelerations(x, mv, b, y, b.k[s]);
    }
    if (s < 3) {
      const T h = stage_h[s];
      T* ks = b.k[s];
      x.launch("rk4_stage", nb, [=] SP_LAMBDA(int tid) {
        rk4_stage_thread(tid, mv, h, static_cast<const T*>(b.Y), static_cast<const T*>(ks), b.y_stage);
      });
      const bool automatic = mv.projection == kProjectionAuto;
      if (mv.n_rows > 0 && (projects_stage_states(mv.projection) || automatic)) {
        // The stage state's velocities projected (projection_math.hpp), the correction in
        // b.k[3], free until the last stage; auto: of the instances that project in this
        // step (enqueue_projection).
        if (automatic) enqueue_projection_save(x, mv, b);
        enqueue_solve(x, mv, b, static_cast<const T*>(b.y_stage), stage_h[s], nullptr, kProjectVelocity);
        enqueue_accelerations(x, mv, b, static_cast<const T*>(b.y_stage), b.k[3]);
        x.launch("projection_apply", n, [=] SP_LAMBDA(int tid) {
          projection_apply_step_thread(tid, mv, kProjectVelocity, static_cast<const T*>(b.k[3]), b, b.y_stage);
        });
        if (automatic) enqueue_projection_restore(x, mv, b);
      }
    } else {
      x.launch("rk4_final", nb, [=] SP_LAMBDA(int tid) {
        rk4_final_thread(tid, mv, static_cast<const T*>(b.Y), static_cast<const T*>(b.k[0]),
                         static_cast<const T*>(b.k[1]), static_cast<const T*>(b.k[2]),
                         static_cast<const T*>(b.k[3]), b.y_stage);
      });
    }
  }
  enqueue_commit(x, mv, b);
}

/// End of an advance: marks live instances whose current state violates the bound.
template <class T, class Exec>
void enqueue_end_check(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b) {
  const int n = mv.n_instances;
  x.launch("instance_time", n, [=] SP_LAMBDA(int tid) {
    instance_time_thread(tid, mv, static_cast<const std::int64_t*>(b.step), static_cast<const std::int64_t*>(b.clock_offset),
                         T(0), b.time);
  });
  x.launch("joint_rows", n * mv.n_constraints(), [=] SP_LAMBDA(int tid) {
    joint_rows_thread(tid, mv, static_cast<const T*>(b.time), static_cast<const T*>(b.Y), b.phi, b.jac, b.gamma_star);
  });
  x.launch("violation", n, [=] SP_LAMBDA(int tid) { violation_thread(tid, mv, static_cast<const T*>(b.phi), b.violation); });
  x.launch("end_check", n, [=] SP_LAMBDA(int tid) {
    end_check_thread(tid, mv, static_cast<const T*>(b.violation), static_cast<const std::int64_t*>(b.step), b.status,
                     b.status_step, b.status_reason);
  });
}

/// Sets every instance's C (n, m, m) to the identity (a factorisable start value).
template <class T, class Exec>
void enqueue_identity(Exec& x, int n, int m, T* C) {
  x.launch("identity", n * m, [=] SP_LAMBDA(int tid) {
    if (tid >= n * m) return;
    const std::size_t i = static_cast<std::size_t>(tid / m), r = static_cast<std::size_t>(tid % m);
    for (std::size_t c = 0; c < static_cast<std::size_t>(m); ++c) C[(i * m + c) * m + r] = c == r ? T(1) : T(0);
  });
}

/// Offsets of the parts of a recorded frame (b.frame), in elements of T.
struct FrameLayout {
  std::size_t state, reactions, violation, energy, kinetic, driver_loads, size;
  FrameLayout(int n, int n_bodies, int n_joints, int n_drivers = 0)
      : state(0),
        reactions(static_cast<std::size_t>(13) * n_bodies * n),
        violation(reactions + static_cast<std::size_t>(6) * n_joints * n),
        energy(violation + n),
        kinetic(energy + n),
        driver_loads(kinetic + n),
        size(driver_loads + static_cast<std::size_t>(n_drivers) * n) {}
};

/// Fills b.frame at the current state Y (the copy of Y itself is the caller's: a
/// device-to-device copy into b.frame + FrameLayout::state). fused: as enqueue_solve.
template <class T, class Exec>
void enqueue_frame(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const SchurPatternView* fused = nullptr) {
  const int n = mv.n_instances;
  const FrameLayout fl(n, mv.n_bodies, mv.n_joints, mv.n_drivers);
  T* reactions = b.frame + fl.reactions;
  T* violation = b.frame + fl.violation;
  T* energy = b.frame + fl.energy;
  T* kinetic = b.frame + fl.kinetic;
  T* driver_loads = b.frame + fl.driver_loads;
  const T* Y = b.Y;
  enqueue_solve(x, mv, b, Y, T(0), fused);
  x.launch("violation", n, [=] SP_LAMBDA(int tid) { violation_thread(tid, mv, static_cast<const T*>(b.phi), violation); });
  if (mv.n_joints > 0) {
    x.launch("reactions", n * mv.n_joints, [=] SP_LAMBDA(int tid) {
      reaction_thread(tid, mv, Y, static_cast<const T*>(b.jac), static_cast<const T*>(b.rhs), b.lambda_soa,
                      static_cast<const int*>(b.info), reactions);
    });
  }
  if (mv.n_drivers > 0) {
    x.launch("driver_loads", n * mv.n_drivers, [=] SP_LAMBDA(int tid) {
      driver_load_thread(tid, mv, static_cast<const T*>(b.rhs), b.lambda_soa, static_cast<const int*>(b.info),
                         driver_loads);
    });
  }
  x.launch("energy", n, [=] SP_LAMBDA(int tid) { energy_thread(tid, mv, Y, energy, kinetic); });
}

/// The reductions as read (Backend::read_reductions): acc_out (b.red.size(), n) = the
/// accumulators plus a sample of the current state Y of every live instance, which is
/// evaluated again here (b.violation is overwritten; the next step's first stage sets it
/// again). The accumulators themselves do not change, nor what the solves record (the
/// refined solves, the rank watch, recoveries and failures, saved in b.saved and given
/// back, as the CPU reference's read records nothing). fused: as enqueue_solve.
/// tangent_out: null, or with b.red_tangent (a Dual T) the tangents as read
/// (b.red.tangent_size() * T::size, n).
template <class T, class Exec>
void enqueue_reduce_read(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, double* acc_out,
                         const SchurPatternView* fused = nullptr, double* tangent_out = nullptr) {
  const int n = mv.n_instances, w = b.red.size();
  if (!b.red.any()) return;
  x.launch("reduce_copy", n * w, [=] SP_LAMBDA(int tid) {
    if (tid < n * w) acc_out[tid] = b.red_acc[tid];
  });
  if (tangent_out) {
    const int wt = b.red.tangent_size() * ad::kTangents<T>;
    x.launch("reduce_copy_tangent", n * wt, [=] SP_LAMBDA(int tid) {
      if (tid < n * wt) tangent_out[tid] = b.red_tangent[tid];
    });
  }
  x.launch("reduce_read_save", n, [=] SP_LAMBDA(int tid) {
    if (tid < n) copy_projection_records(projection_records(b), b.saved, tid);
  });
  const T* Y = b.Y;
  enqueue_solve(x, mv, b, Y, T(0), fused);
  x.launch("violation", n, [=] SP_LAMBDA(int tid) { violation_thread(tid, mv, static_cast<const T*>(b.phi), b.violation); });
  x.launch("reduce", n, [=] SP_LAMBDA(int tid) {
    reduce_thread(tid, mv, b.red, Y, static_cast<const T*>(b.time), static_cast<const T*>(b.inputs),
                  static_cast<const T*>(b.jac), static_cast<const T*>(b.rhs), b.lambda_soa,
                  static_cast<const int*>(b.info), static_cast<const T*>(b.violation),
                  static_cast<const std::int8_t*>(b.status), static_cast<const std::int64_t*>(b.step), acc_out,
                  tangent_out);
  });
  x.launch("reduce_read_restore", n, [=] SP_LAMBDA(int tid) {
    if (tid < n) copy_projection_records(b.saved, projection_records(b), tid);
  });
}

/// Clears the reductions' accumulators (b.red_acc) of the instances ids (count) or, with
/// ids null, of every instance (count = n); nothing when no reduction is enabled.
template <class T, class Exec>
void enqueue_reduce_clear(Exec& x, const ModelView<T>& mv, const BatchBuffers<T>& b, const int* ids, int count) {
  if (!b.red.any() || count == 0) return;
  const ReductionLayout L = b.red;
  double* acc = b.red_acc;
  x.launch("reduce_clear", count, [=] SP_LAMBDA(int tid) { reduce_clear_thread(tid, mv, L, ids, count, acc); });
}

}  // namespace simphant::batch
