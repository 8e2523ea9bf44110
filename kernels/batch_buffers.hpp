#pragma once
// BatchBuffers: the per-instance arrays of a batch, sized once when the batch is created
// (no allocation inside a step). Structure of arrays with the instance
// index fastest, element e of instance i at a[e * n_instances + i], except the Schur
// matrices and their right-hand sides, which cuSOLVER's batched Cholesky needs as one
// contiguous column-major block per instance. Plain pointers: device memory in the CUDA
// backend (host/), host memory in the CPU tests of the per-thread functions.
#include <cstdint>

#include "dopri5_buffers.hpp"
#include "simphant/formulas/reductions.hpp"

namespace simphant::batch {

/// Per-instance status codes (= InstanceStatus in sim/backend.hpp).
constexpr std::int8_t kStatusOk = 0, kStatusDiverged = 2;

/// What a projection's solves record of an instance (refine.hpp, pivot_watch.hpp; fail from
/// the accelerations kernel), saved before them (n each).
template <class T>
struct ProjectionSaved {
  T *step_pivot, *pivot_min, *pivot_min_time, *refine_worst, *refine_worst_time;
  int *refine_unconverged, *recoveries, *fail;
};

template <class T>
struct BatchBuffers {
  T* Y;            ///< (13 N, n) state [q, qdot] (docs/solver.md, State and coordinates)
  T* y_stage;      ///< (13 N, n) RK4 stage state, then the candidate new state
  T* k[4];         ///< (13 N, n) each: RK4 stage derivatives
  T* phi;          ///< (m, n) Phi
  /// (m, 6 sides, n) Phi_q row blocks (ModelView::jac_cols), columns [v, omega] per side:
  /// [v_i, omega_i, v_j, omega_j] and, with 4 sides, a mimic row's leader's [v_k, omega_k,
  /// v_l, omega_l] (zero for the other elements)
  T* jac;
  T* gamma_star;   ///< (m, n) Baumgarte gamma*
  T* Q;            ///< (6 N, n) applied + gyroscopic forces [F_W, T_B]
  T* C;            ///< (n, m, m) column-major Schur matrices, then their Cholesky factors;
                   ///< cuda-fused: (n_values, n) their topology-ordered blocks (sparse_cholesky.hpp)
  T* rhs;          ///< (n, m) right-hand sides, then lambda (solved in place); cuda-fused: (m, n)
  T* lambda;       ///< layout of rhs: lambda accumulated by the refinement (refine.hpp)
  T* floor;        ///< (m, n) smallest pivot accepted per row (pivot_floor in formulas/refined_solve.hpp)
  T* diag;         ///< (m, n) C_RR, the unregularised diagonal, written with the floors (the rank watch's denominator)
  int* recoveries; ///< (n) factorisations recovered with a larger shift, per instance (never reset)
  T** C_ptrs;      ///< (n) C + i m^2, for potrfBatched / potrsBatched
  T** rhs_ptrs;    ///< (n) rhs + i m
  int* info;       ///< (n) potrfBatched info: 0 ok, > 0 C not positive definite
  int* fail;       ///< (n) 1 when a stage of the current step failed to factorise
  T* inputs;       ///< (n_inputs, n) actuator inputs
  T* violation;    ///< (n) max |Phi| at the last evaluated state
  std::int8_t* status;          ///< (n) kStatusOk, 1 assembly failed, kStatusDiverged
  std::int64_t* status_step;    ///< (n) step at which the status was set
  std::int8_t* status_reason;   ///< (n) why the status is not ok: kReason* (formulas/runaway.hpp)
  T* runaway;                   ///< (2, n) a, b of the runaway bound (a + b t)^2 [J] (formulas/runaway.hpp)
  std::int64_t* step;           ///< (1) steps taken (advanced on the device by each step)
  T* frame;        ///< recorded frame: Y (13 N, n), reactions (6 J, n), violation, energy, kinetic (n each),
                   ///< driver loads (D, n) (batch_step.hpp, FrameLayout)
  int lambda_soa;  ///< layout of rhs: 0 (n, m) per instance (cuSOLVER), 1 (m, n) (cuda-fused)
  T* time;         ///< (n) each instance's time [s] at the state being evaluated (instance_time_thread)
  std::int64_t* clock_offset;  ///< (n) batch step of each instance's step 0: instance step = *step - clock_offset[i]
  ReductionLayout red;  ///< the enabled reductions over time (none: no sampling)
  double* red_acc;      ///< (red.size(), n) their accumulators (reduce.hpp), in double at any T
  AdaptiveBuffers<T> ad;  ///< the adaptive Dormand-Prince path's arrays (all null for a fixed-step batch)
  // The refined solve's workspace and per-instance record (refine.hpp; never reset, like
  // recoveries):
  T* refine;                ///< layout of rhs: the residual (cuda) or the correction (cuda-fused)
  T* refine_worst;          ///< (n) largest relative error estimate of a refined solve (starts at 0)
  T* refine_worst_time;     ///< (n) the instance time [s] of that solve
  int* refine_unconverged;  ///< (n) refined solves whose estimate ended above refinement_tolerance
  // The rank watch (pivot_watch.hpp; never reset, like recoveries):
  T* pivot_min;       ///< (n) smallest relative pivot of a Schur factorisation (starts at +infinity)
  T* pivot_min_time;  ///< (n) the instance time [s] of that factorisation
  T* step_pivot;      ///< (n) the smallest of the current fixed step's factorisations (the auto projection's indicator)
  /// The `cuda` path's copy of what a projection's solves record (projection.hpp,
  /// projection_save_thread), for the instances that auto does not project; null elsewhere.
  ProjectionSaved<T> saved;
  /// For a Dual T (the sensitivity engine, sim/sensitivity_engine.hpp): the reductions'
  /// accumulators' tangents (red.tangent_size() * T::size, n), ReductionAcc::tangent;
  /// null: none.
  double* red_tangent = nullptr;
  /// For a Dual T on the host (the tangent-linear solve, fused_solve.hpp:
  /// fused_tangent_factor_solve): the values of mv's parameters, (n + 1, mv.n_params): row
  /// 0 the shared ones by parameter, row 1 + i instance i's per-instance ones by slot
  /// (ModelView::param_slot); they never change while a batch steps. Required there
  /// (batch::param_value_rows, batch/view_convert.hpp, makes them).
  const double* param_values = nullptr;
};

}  // namespace simphant::batch
