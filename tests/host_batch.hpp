#pragma once
// A batch in host memory, laid out exactly as the CUDA backend lays it out in device
// memory (kernels/batch_buffers.hpp), every buffer pre-filled with NaN so that an entry
// the per-thread functions fail to write shows up in the comparisons. fused: laid out as
// the cuda-fused path lays it out (C as topology-ordered blocks, lambda (m, n)).
#include <cmath>
#include <limits>
#include <vector>

#include "batch_step.hpp"
#include "cpu_grid_exec.hpp"
#include "dopri5_state.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/batch/batch_pack.hpp"
#include "simphant/sim/assemble_batch.hpp"

namespace simphant::test {

template <class T>
struct HostBatch {
  batch::PackedModel<T> packed;
  batch::ModelView<T> mv;
  int n, N, J, m;
  std::vector<T> Y, y_stage, k[4], phi, jac, gamma_star, Q, C, rhs, lambda_work, refine, floor, diag, inputs, violation, frame,
      time, refine_worst, refine_worst_time, pivot_min, pivot_min_time, step_pivot;
  /// The auto projection's saved records (ProjectionSaved): 5 of T, 3 of int.
  std::vector<T> saved_t[5];
  std::vector<int> saved_i[3];
  std::vector<T*> C_ptrs, rhs_ptrs;
  std::vector<int> info, fail, recoveries, refine_unconverged;
  std::vector<std::int8_t> status, status_reason;
  std::vector<std::int64_t> status_step, step, clock_offset;
  std::vector<T> runaway;  ///< (2, n) runaway bound coefficients, from the assembly
  std::vector<double> red_acc;  ///< (red.size(), n) accumulators of the reductions over time
  batch::BatchBuffers<T> b{};
  bool fused;
  SchurPattern pattern;
  SchurPatternView P;

  /// models: 1 or n_instances; assembled: their host assembly (sim/assemble_batch.hpp).
  HostBatch(const std::vector<Model>& models, int n_instances, const AssembledBatch& assembled, bool fused_path = false);
  ~HostBatch();
  /// Enables the reductions of layout L (kernels/reduce.hpp), every accumulator cleared.
  template <class Exec>
  void enable_reductions(Exec& x, const ReductionLayout& L) {
    red_acc.assign(static_cast<std::size_t>(L.size()) * n, std::numeric_limits<double>::quiet_NaN());
    b.red = L;
    b.red_acc = red_acc.data();
    const batch::ModelView<T> view = mv;
    double* acc = red_acc.data();
    x.launch("reduce_clear", n, [=](int tid) { batch::reduce_clear_thread(tid, view, L, nullptr, view.n_instances, acc); });
  }
  /// The adaptive Dormand-Prince arrays (kernels/dopri5_buffers.hpp), laid out as the
  /// CUDA backend lays them out (k1..k4 shared with the RK4 slopes), pre-filled with NaN
  /// (the counters with -1), every instance flagged to start afresh.
  void enable_dopri5();
  std::vector<T> ad_y, ad_k[3], ad_cont, ad_y_grid, ad_u, ad_scalars;
  std::vector<std::int64_t> ad_counts;
  std::vector<std::int8_t> ad_flag;
  std::vector<int> ad_unfinished;

  HostBatch(const HostBatch&) = delete;
  HostBatch& operator=(const HostBatch&) = delete;

  /// One RK4 step of every instance on this batch's path.
  template <class Exec>
  void rk4_step(Exec& x) {
    batch::enqueue_step(x, mv, b, fused ? &P : nullptr);
  }
  /// One evaluation at y (enqueue_solve) on this batch's path, at each instance's time
  /// at the current step (plus h [s]).
  template <class Exec>
  void solve(Exec& x, const T* y, T h = T(0)) {
    batch::enqueue_solve(x, mv, b, y, h, fused ? &P : nullptr);
  }
  template <class Exec>
  void frame_at_state(Exec& x) {
    batch::enqueue_frame(x, mv, b, fused ? &P : nullptr);
  }
  /// lambda row R of instance i after a solve.
  T lambda(int i, int R) const { return batch::lambda_at(rhs.data(), b.lambda_soa, m, n, i, R); }

  /// Element e of instance i of a (13 N, n) / (m, n) / ... structure of arrays.
  static T at(const std::vector<T>& a, int e, int n_inst, int i) { return a[static_cast<std::size_t>(e) * n_inst + i]; }
};

}  // namespace simphant::test

// The batch steps on the CPU grid are compiled once, in tests/host_batch.cpp (the
// library target simphant_test_grid), rather than in each of the dozen test files that
// run them: an explicit instantiation declaration here, its definition there. A test
// with another executor or number type instantiates its own.
#define SIMPHANT_TEST_GRID_STEPS(PREFIX, T)                                                                      \
  PREFIX void enqueue_step<T, test::CpuGridExec<T>>(test::CpuGridExec<T>&, const ModelView<T>&,                 \
                                                    const BatchBuffers<T>&, const SchurPatternView*);             \
  PREFIX void enqueue_solve<T, test::CpuGridExec<T>>(test::CpuGridExec<T>&, const ModelView<T>&,                \
                                                     const BatchBuffers<T>&, const T*, T, const SchurPatternView*, \
                                                     int, const T*);                                              \
  PREFIX void enqueue_frame<T, test::CpuGridExec<T>>(test::CpuGridExec<T>&, const ModelView<T>&,                \
                                                     const BatchBuffers<T>&, const SchurPatternView*);            \
  PREFIX void enqueue_accelerations<T, test::CpuGridExec<T>>(test::CpuGridExec<T>&, const ModelView<T>&,        \
                                                             const BatchBuffers<T>&, const T*, T*);               \
  PREFIX void enqueue_end_check<T, test::CpuGridExec<T>>(test::CpuGridExec<T>&, const ModelView<T>&,            \
                                                         const BatchBuffers<T>&);
namespace simphant::batch {
SIMPHANT_TEST_GRID_STEPS(extern template, double)
SIMPHANT_TEST_GRID_STEPS(extern template, float)
}  // namespace simphant::batch
