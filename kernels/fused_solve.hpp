#pragma once
// Per-thread function of the cuda-fused solve (fused_stage.hpp): one thread evaluates one
// instance and solves its Schur system through the topology-ordered block-sparse
// Cholesky (simphant/formulas/sparse_cholesky.hpp) and the refined regularised solve
// (refine.hpp), with the per-thread functions of the `cuda` path called in a loop over
// the instance's joints and bodies.
#include "batch_buffers.hpp"
#include "body_forces.hpp"
#include "instance_status.hpp"
#include "joint_rows.hpp"
#include "pivot_watch.hpp"
#include "projection.hpp"
#include "refine.hpp"
#include "schur.hpp"
#include "simphant/formulas/sparse_cholesky.hpp"

namespace simphant::batch {

/// The blocks of instance i's C + E (E_R = tikhonov_term(eps, C_RR)) into L (value e at
/// L[e * n]; the diagonal blocks' lower triangles, as sparse_cholesky reads them), the
/// rows' pivot floors into floor (m, n) and their C_RR into diag (m, n); with rhs (m, n)
/// also the right-hand side (null: left alone). Joint by joint: M^-1 is applied to the joint's rows once (per side), and
/// those rows serve its own block and its block with every lower-indexed joint sharing a
/// body, each product formed as schur_coupling forms it (lower joint's row . M^-1 higher
/// joint's row), so the numbers are the CPU reference's.
template <class T>
SP_HD void fused_assemble(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, T eps,
                          T* L, T* rhs) {
  const int n = mv.n_instances;
  const T* jac = b.jac;
  const std::size_t stride = static_cast<std::size_t>(n);
  for (int e = 0; e < P.n_values; ++e) L[e * stride] = T(0);
  for (int a = 0; a < mv.n_constraints(); ++a) {
    if (rhs) schur_rhs_rows(i, a, mv, jac, static_cast<const T*>(b.Q), static_cast<const T*>(b.gamma_star), rhs, stride);
    T w[kMaxElementSides][kMaxJointRows][6];  // M^-1 Phi_q,a^T at each side's body
    for (int sa = 0; sa < mv.sides; ++sa)
      if (mv.body_of(a, sa) >= 0) schur_minv_rows(i, a, sa, mv, jac, w[sa]);
    const int pa = P.position[a], ma = mv.rows_of(a);
    for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
      const int lo = mv.coupling[3 * e], sa = mv.coupling[3 * e + 1], slo = mv.coupling[3 * e + 2];
      if (lo > a) continue;  // formed by the higher-indexed joint
      const SchurBlockSlot slot = schur_block_slot(P, P.position[lo], pa);  // (row of lo, row of a)
      const auto put = [&](int r, int s, T v) {
        L[static_cast<std::size_t>(slot.base + r * slot.stride_r + s * slot.stride_s) * stride] += v;
      };
      if (lo == a && slo > sa) {
        // Two sides of one element at a body (a mimic row): (lower side's row) . M^-1
        // (higher side's row), as schur_coupling forms it; entry (r, s) of the own block
        // from a's row s at side sa and row r at side slo, lower triangle.
        schur_coupling_products(i, a, sa, ma, static_cast<const T(*)[6]>(w[slo]), false, mv, jac,
                                [&](int s, int r, T v) {
                                  if (s <= r) put(r, s, v);
                                });
        continue;
      }
      schur_coupling_products(i, lo, slo, ma, static_cast<const T(*)[6]>(w[sa]), lo == a, mv, jac, put);
    }
  }
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p], base = P.block_value[P.col_start[p]];
    for (int r = 0; r < rp; ++r) {
      T& d = L[static_cast<std::size_t>(base + r * rp + r) * stride];
      const T reg = tikhonov_term(eps, d);
      soa(b.floor, P.pos_row0[p] + r, n, i) = pivot_floor(reg, d);
      soa(b.diag, P.pos_row0[p] + r, n, i) = d;
      d += reg;
    }
  }
}

/// Instance i: lambda from the factor of its regularised Schur matrix in b.C (fused_assemble
/// then sparse_cholesky) and the right-hand side in b.rhs: the solve, then at most
/// mv.refine_steps corrections of the refinement (refine_corrections; b.refine and
/// b.lambda its workspace), lambda left in b.rhs ((m, n)). Returns refine_corrections'
/// relative error estimate. Any T (the SIMD lanes of simd/ included).
template <class T>
SP_HD T fused_lambda(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b) {
  const std::size_t stride = static_cast<std::size_t>(mv.n_instances);
  const T* Lc = b.C + i;
  const T* jac = b.jac;
  T* w = b.rhs + i;
  T* delta = b.refine + i;
  T* lambda = b.lambda + i;
  const int m = mv.n_rows;
  for (int R = 0; R < m; ++R) delta[R * stride] = w[R * stride];
  sparse_solve(P, Lc, stride, delta, stride);
  const auto solve = [&](T* x) { sparse_solve(P, Lc, stride, x, stride); };
#if !defined(__CUDACC__)
  if constexpr (ad::kTangents<T> > 0) {
    // Dual numbers on the host: C's coupling products are formed once per solve and read
    // back by the later products C x (schur_subtract_products: the same numbers).
    thread_local SchurProducts<T> products;
    products.clear();
    const T rel = refine_corrections(m, mv.refine_steps, stride, w, delta, lambda, solve,
                                     [&](const T* x, T* r, T& e2) {
                                       schur_subtract_products(i, mv, jac, x, stride, r, stride, e2, products);
                                     });
    for (int R = 0; R < m; ++R) w[R * stride] = lambda[R * stride];
    return rel;
  }
#endif
  const T rel = refine_corrections(m, mv.refine_steps, stride, w, delta, lambda, solve, [&](const T* x, T* r, T& e2) {
    for (int a = 0; a < mv.n_constraints(); ++a) schur_subtract_rows(i, a, mv, jac, x, stride, r, stride, e2);
  });
  for (int R = 0; R < m; ++R) w[R * stride] = lambda[R * stride];
  return rel;
}

/// Instance i (mv.n_rows > 0), its rows, Phi_q, gamma* and Q evaluated (b.jac, b.gamma_star,
/// b.Q): factorises its regularised Schur matrix in b.C ((P.n_values, n) blocks; on a
/// rejected pivot again with the shifts recovery_epsilon, counted in b.recoveries) and
/// leaves lambda in b.rhs (fused_lambda), the solve recorded at the instance time t [s]
/// (refine_record); b.info[i] = 0, or 1 when no attempt factorises. Scalar T (float,
/// double).
template <class T>
SP_HD void fused_factor_solve(int i, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b, T t) {
  T* L = b.C + i;
  const T* floor = b.floor + i;
  const std::size_t stride = static_cast<std::size_t>(mv.n_instances);
  const T eps = schur_epsilon(mv, i);
  fused_assemble(i, mv, P, b, eps, L, b.rhs + i);
  bool ok = sparse_cholesky(P, L, stride, floor, stride);
  for (int a = 1; a <= kRecoveryAttempts && !ok; ++a) {
    fused_assemble(i, mv, P, b, recovery_epsilon(eps, a), L, static_cast<T*>(nullptr));
    ok = sparse_cholesky(P, L, stride, floor, stride);
    if (ok) ++b.recoveries[i];
  }
  b.info[i] = ok ? 0 : 1;
  if (!ok) return;
  sparse_pivot_record(i, mv, P, static_cast<const T*>(L), stride, t, b);
  refine_record(i, fused_lambda(i, mv, P, b), t, b);
}

/// Instance i = tid: evaluates it at y (13 N, n) and its time h after the current step's
/// start (b.time[i] = instance_time_thread's) into b.phi, b.jac, b.gamma_star, b.Q,
/// factorises its regularised Schur matrix in b.C ((P.n_values, n) blocks; on a rejected
/// pivot again with the shifts recovery_epsilon, counted in b.recoveries) and leaves
/// lambda from the refined solve (refine.hpp, at most mv.refine_steps corrections;
/// b.refine and b.lambda its workspace) in b.rhs ((m, n); b.lambda_soa must be 1), the
/// solve recorded (refine_record); b.info[i] = 0, or 1 when no attempt factorises.
/// Threads past n return. projection_stage >= 0: the solve of that projection stage
/// (projection.hpp: Q = 0, gamma* = -residual) instead. t_stage: null, or (n) each
/// instance's own evaluation time [s] in place of its clock plus h (the adaptive path,
/// kernels/dopri5_batch.hpp).
template <class T>
SP_HD void fused_solve_thread(int tid, const ModelView<T>& mv, const SchurPatternView& P, const BatchBuffers<T>& b,
                              const T* y, T h, int projection_stage = -1, const T* t_stage = nullptr) {
  const int n = mv.n_instances;
  if (tid >= n) return;
  const int i = tid;
  if (!t_stage)
    instance_time_thread(i, mv, static_cast<const std::int64_t*>(b.step),
                         static_cast<const std::int64_t*>(b.clock_offset), h, b.time);
  const T* t_inst = t_stage ? t_stage : static_cast<const T*>(b.time);
  for (int j = 0; j < mv.n_constraints(); ++j) joint_rows_thread(j * n + i, mv, t_inst, y, b.phi, b.jac, b.gamma_star);
  if (projection_stage >= 0)
    projection_rhs_thread(i, mv, projection_stage, t_inst, y, static_cast<const T*>(b.phi), static_cast<const T*>(b.jac),
                          b.Q, b.gamma_star);
  else
    for (int k = 0; k < mv.n_bodies; ++k)
      body_forces_thread(k * n + i, mv, t_inst, y, static_cast<const T*>(b.inputs), b.Q);
  if (mv.n_rows == 0) {
    b.info[i] = 0;
    return;
  }
  fused_factor_solve(i, mv, P, b, t_inst[i]);
}

}  // namespace simphant::batch
