#pragma once
// Per-thread functions of the refined regularised solve on the batched paths
// (docs/solver.md, "The refined regularised solve"; the rules in
// simphant/dynamics/refined_solve.hpp, the CPU reference in dynamics/evaluate.cpp):
//   lambda_0 = 0,  lambda_{k+1} = lambda_k + (C + E)^-1 (rhs - C lambda_k),
// C applied without E through the coupling products of the Schur kernel (schur.hpp), so
// no unregularised copy of C is kept; and the pivot recovery of the `cuda` path, whose
// factorisation is cuSOLVER's potrfBatched: an instance whose factor has a rejected pivot
// is rebuilt with a larger relative shift and factorised by its own thread.
#include "batch_buffers.hpp"
#include "schur.hpp"

namespace simphant::batch {

/// Rows of joint a of w = rhs - C lambda for instance i (C without regularisation): row R
/// at w_out[R * w_stride]; lambda row R at lambda_in[R * lambda_stride]. jac_in (m, 12, n),
/// Q_in (6 N, n), gamma_star_in (m, n) as for schur_rhs_rows.
template <class T>
SP_HD void schur_residual_rows(int i, int a, const ModelView<T>& mv, const T* jac_in, const T* Q_in,
                               const T* gamma_star_in, const T* lambda_in, std::size_t lambda_stride, T* w_out,
                               std::size_t w_stride) {
  schur_rhs_rows(i, a, mv, jac_in, Q_in, gamma_star_in, w_out, w_stride);
  const int oa = mv.row_offset[a];
  for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
    const int ob = mv.row_offset[mv.coupling[3 * e]];
    schur_coupling(i, a, e, mv, jac_in, [&](int r, int s, T v) {
      w_out[(oa + r) * w_stride] -= v * lambda_in[(ob + s) * lambda_stride];
    });
  }
}

/// `cuda` path, tid = R * n + i: lambda <- (first ? 0 : lambda) + w for row R of instance
/// i, and on the last step w <- lambda too (the solved rhs then holds lambda, where the
/// accelerations read it). w, lambda: (n, m) per instance (BatchBuffers::rhs layout).
template <class T>
SP_HD void refine_accumulate_thread(int tid, int n, int m, bool first, bool last, T* w, T* lambda) {
  if (tid >= n * m) return;
  const int i = tid % n, R = tid / n;
  const std::size_t e = static_cast<std::size_t>(i) * m + R;
  const T v = (first ? T(0) : lambda[e]) + w[e];
  lambda[e] = v;
  if (last) w[e] = v;
}

/// `cuda` path, tid = a * n + i: rows of joint a of w = rhs - C lambda (w, lambda as
/// refine_accumulate_thread). Threads past n J return.
template <class T>
SP_HD void refine_residual_thread(int tid, const ModelView<T>& mv, const T* jac_in, const T* Q_in,
                                  const T* gamma_star_in, const T* lambda, T* w) {
  const int n = mv.n_instances, m = mv.n_rows;
  if (tid >= n * mv.n_constraints()) return;
  const int i = tid % n, a = tid / n;
  const std::size_t o = static_cast<std::size_t>(i) * m;
  schur_residual_rows(i, a, mv, jac_in, Q_in, gamma_star_in, lambda + o, 1, w + o, 1);
}

/// `cuda` path, tid = i, after potrfBatched: accepts instance i's factor in C (n, m, m)
/// when info[i] is 0 and every pivot L_RR^2 is above floor (m, n) (schur_thread). Else
/// rebuilds C from the joint rows with the shifts recovery_epsilon(eps, t), t = 1 ..
/// kRecoveryAttempts, factorising each with dense_cholesky_lower, and on success sets
/// info[i] = 0 and adds 1 to recoveries[i]; info[i] = 1 when every attempt fails.
template <class T>
SP_HD void recover_thread(int tid, const ModelView<T>& mv, const T* jac_in, T* C_io, T* floor, int* info,
                          int* recoveries) {
  const int n = mv.n_instances, m = mv.n_rows;
  if (tid >= n) return;
  const int i = tid;
  T* C = C_io + static_cast<std::size_t>(i) * m * m;
  bool ok = info[i] == 0;
  for (int R = 0; R < m && ok; ++R) {
    const T l = C[static_cast<std::size_t>(R) * m + R];
    ok = pivot_ok(l * l, soa(static_cast<const T*>(floor), R, n, i));
  }
  if (ok) return;
  for (int t = 1; t <= kRecoveryAttempts; ++t) {
    const T eps = recovery_epsilon(schur_epsilon(mv, i), t);
    for (int a = 0; a < mv.n_constraints(); ++a) schur_dense_rows(i, a, mv, jac_in, C);
    for (int a = 0; a < mv.n_constraints(); ++a) schur_dense_regularise(i, a, mv, eps, C, floor);
    if (dense_cholesky_lower(m, C, static_cast<const T*>(floor) + i, n)) {
      info[i] = 0;
      ++recoveries[i];
      return;
    }
  }
  info[i] = 1;
}

}  // namespace simphant::batch
