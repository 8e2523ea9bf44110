#pragma once
// Per-thread function of the cuda-fused solve (fused_stage.hpp): one thread evaluates one
// instance and solves its Schur system through the topology-ordered block-sparse
// Cholesky (simphant/dynamics/sparse_cholesky.hpp), with the per-thread functions of the
// `cuda` path called in a loop over the instance's joints and bodies.
#include "batch_buffers.hpp"
#include "body_forces.hpp"
#include "joint_rows.hpp"
#include "projection.hpp"
#include "schur.hpp"
#include "simphant/dynamics/sparse_cholesky.hpp"

namespace simphant::batch {

/// Instance i = tid: evaluates it at y (13 N, n) into b.phi, b.jac, b.gamma_star, b.Q,
/// factorises its Schur matrix in b.C ((P.n_values, n) blocks) and leaves lambda in
/// b.rhs ((m, n); b.lambda_soa must be 1), b.info[i] = 0, or 1 when C is not positive
/// definite at this precision. Threads past n return. projection_stage >= 0: the solve
/// of that projection stage (projection.hpp: Q = 0, gamma* = -residual) instead.
template <class T>
SP_HD void fused_solve_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                              const T* y, int projection_stage = -1) {
  const int n = mv.n_instances;
  if (tid >= n) return;
  const int i = tid;
  for (int j = 0; j < mv.n_joints; ++j) joint_rows_thread(j * n + i, mv, y, b.phi, b.jac, b.gamma_star);
  if (projection_stage >= 0)
    projection_rhs_thread(i, mv, projection_stage, y, static_cast<const T*>(b.phi), static_cast<const T*>(b.jac), b.Q,
                          b.gamma_star);
  else
    for (int k = 0; k < mv.n_bodies; ++k) body_forces_thread(k * n + i, mv, y, static_cast<const T*>(b.inputs), b.Q);
  if (mv.n_rows == 0) {
    b.info[i] = 0;
    return;
  }
  const T* jac = b.jac;
  T* L = b.C + i;
  T* rhs = b.rhs + i;
  const std::size_t stride = static_cast<std::size_t>(n);
  for (int e = 0; e < P.n_values; ++e) L[e * stride] = T(0);
  for (int a = 0; a < mv.n_joints; ++a) {
    schur_rhs_rows(i, a, mv, jac, static_cast<const T*>(b.Q), static_cast<const T*>(b.gamma_star), rhs, stride);
    const int pa = P.position[a];
    for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
      const int pb = P.position[mv.coupling[3 * e]];
      if (pb > pa) continue;  // the lower block: added by the later joint
      const SchurBlockSlot slot = schur_block_slot(P, pa, pb);
      schur_coupling(i, a, e, mv, jac, [&](int r, int s, T v) {
        L[static_cast<std::size_t>(slot.base + r * slot.stride_r + s * slot.stride_s) * stride] += v;
      });
    }
  }
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p], base = P.block_value[P.col_start[p]];
    for (int r = 0; r < rp; ++r) {
      T& d = L[static_cast<std::size_t>(base + r * rp + r) * stride];
      d += schur_tikhonov(mv, i, d);
    }
  }
  const bool ok = sparse_cholesky(P, L, stride);
  if (ok) sparse_solve(P, static_cast<const T*>(L), stride, rhs, stride);
  b.info[i] = ok ? 0 : 1;
}

}  // namespace simphant::batch
