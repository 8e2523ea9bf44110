#pragma once
// Per-thread functions of the rank watch (simphant/formulas/pivot_watch.hpp; docs/solver.md,
// "Rank watch") on the batched paths: after a Schur factorisation, instance i's smallest
// relative pivot L_RR^2 / C_RR into its record (b.pivot_min, b.pivot_min_time) and into the
// step's (b.step_pivot, the auto projection's indicator). C_RR is b.diag, written with the
// pivot floors by the assembly (schur.hpp, fused_solve.hpp); the factorisation overwrote
// the diagonal in place.
#include "batch_buffers.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/formulas/schur_pattern.hpp"

namespace simphant::batch {

/// Instance i's record of a factorisation at instance time t [s] with smallest relative
/// pivot rho (keep_smallest_pivot), and the step's smallest (b.step_pivot). Nothing for an
/// instance that is not ok (frozen: the batch computes it and does not commit it; the CPU
/// reference does not step it).
template <class T>
SP_HD void pivot_record(int i, T rho, T t, const BatchBuffers<T>& b) {
  if (b.status[i] != kStatusOk) return;
  keep_smallest_pivot(rho, t, b.pivot_min[i], b.pivot_min_time[i]);
  b.step_pivot[i] = smaller_pivot(b.step_pivot[i], rho);
}

/// Instance i at the start of a fixed step: its step's smallest pivot starts afresh.
template <class T>
SP_HD void step_pivot_reset(int i, const BatchBuffers<T>& b) {
  b.step_pivot[i] = no_schur_pivot<T>();
}

/// Instance i's factor in the topology-ordered blocks L (value e at L[e * stride];
/// sparse_smallest_pivot, C_RR from b.diag) recorded at t [s].
template <class T>
SP_HD void sparse_pivot_record(int i, const ModelView<T>& mv, const SchurPatternView& P, const T* L,
                               std::size_t stride, T t, const BatchBuffers<T>& b) {
  const std::size_t n = static_cast<std::size_t>(mv.n_instances);
  pivot_record(i, sparse_smallest_pivot(P, L, stride, static_cast<const T*>(b.diag) + i, n), t, b);
}

/// `cuda` path, tid = i, after potrfBatched and recover_thread: instance i's dense factor
/// (b.C, (n, m, m) column-major) recorded at t[i] [s]. An instance whose factorisation
/// failed (b.info[i] != 0) is left alone. Threads past n return.
template <class T>
SP_HD void dense_pivot_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* t) {
  const int n = mv.n_instances, m = mv.n_rows;
  if (tid >= n || b.info[tid] != 0) return;
  const int i = tid;
  const T* L = b.C + static_cast<std::size_t>(i) * m * m;
  pivot_record(i, dense_smallest_pivot(m, L, static_cast<const T*>(b.diag) + i, static_cast<std::size_t>(n)), t[i], b);
}

}  // namespace simphant::batch
