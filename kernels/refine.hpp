#pragma once
// Per-thread functions of the refined regularised solve on the batched paths
// (docs/solver.md, "The refined regularised solve"; the rules and the iteration,
// refine_corrections, in simphant/formulas/refined_solve.hpp, shared with the CPU
// reference in dynamics/evaluate.cpp). C is applied without E through the coupling
// products of the Schur kernel (schur.hpp), so no unregularised copy of C is kept (the
// host's tangent-linear solve of dual numbers keeps the products of one solve for its
// later products C x: schur_subtract_products); each instance iterates as long as it needs (in a GPU
// warp: as long as its slowest thread). Also the pivot recovery of the `cuda` path, whose
// factorisation is cuSOLVER's potrfBatched: an instance whose factor has a rejected pivot
// is rebuilt with a larger relative shift and factorised by its own thread.
#if !defined(__CUDACC__)
#include <vector>
#endif

#include "batch_buffers.hpp"
#include "schur.hpp"

namespace simphant::batch {

/// w <- w - cx and e2 += x_R cx_R on joint a's ma rows from offset oa (cx: (C x) on them).
template <class T>
SP_HD void schur_subtract_finish(int oa, int ma, const T* cx, const T* x, std::size_t x_stride, T* w,
                                 std::size_t w_stride, T& e2) {
  for (int r = 0; r < ma; ++r) {
    w[(oa + r) * w_stride] -= cx[r];
    e2 += x[(oa + r) * x_stride] * cx[r];
  }
}

/// w <- w - C x on the rows of joint a of instance i (C without regularisation), and
/// e2 += x_R (C x)_R over those rows (so that over every joint e2 = x^T C x). Row R of x
/// at x[R * x_stride], of w at w[R * w_stride]; jac_in (m, mv.jac_cols(), n) as for schur_rhs_rows.
template <class T>
SP_HD void schur_subtract_rows(int i, int a, const ModelView<T>& mv, const T* jac_in, const T* x,
                               std::size_t x_stride, T* w, std::size_t w_stride, T& e2) {
  const int oa = mv.row_offset[a], ma = mv.rows_of(a);
  T cx[kMaxJointRows];
  for (int r = 0; r < ma; ++r) cx[r] = T(0);
  for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
    const int ob = mv.row_offset[mv.coupling[3 * e]];
    schur_coupling(i, a, e, mv, jac_in, [&](int r, int s, T v) { cx[r] += v * x[(ob + s) * x_stride]; });
  }
  schur_subtract_finish(oa, ma, static_cast<const T*>(cx), x, x_stride, w, w_stride, e2);
}

#if !defined(__CUDACC__)
/// The coupling products of one instance's C as schur_subtract_rows forms them (each
/// entry: its value v, the row r of joint a and the row of x it multiplies), in the order
/// it uses them, joint by joint (joint_end[a]: one past joint a's last entry); recorded:
/// whether they hold the current C (clear: not). The arrays keep their size between
/// solves, so that recording the next C writes in place. Host code.
template <class T>
struct SchurProducts {
  std::vector<T> value;
  std::vector<int> row, col;
  std::vector<std::size_t> joint_end;
  bool recorded = false;
  void clear() { recorded = false; }
};

/// schur_subtract_rows over every joint of instance i, its coupling products recorded in
/// `products` on the first call after products.clear() and read back on the later ones:
/// the same products added in the same order, so the same numbers, without forming them
/// again. x, w and e2 of type X: T, or a type that multiplies T (a lane vector of several
/// right-hand sides: each lane as T alone). For the tangents' refined solves in the host's
/// tangent-linear solve (fused_tangent_factor_solve), several right-hand sides with one C.
/// Host code.
template <class T, class X>
void schur_subtract_products(int i, const ModelView<T>& mv, const T* jac_in, const X* x, std::size_t x_stride, X* w,
                             std::size_t w_stride, X& e2, SchurProducts<T>& products) {
  const bool record = !products.recorded;
  std::size_t k = 0;
  if (record) products.joint_end.resize(static_cast<std::size_t>(mv.n_constraints()));
  for (int a = 0; a < mv.n_constraints(); ++a) {
    const int oa = mv.row_offset[a], ma = mv.rows_of(a);
    X cx[kMaxJointRows];
    for (int r = 0; r < ma; ++r) cx[r] = X(0);
    if (record) {
      for (int e = mv.coupling_start[a]; e < mv.coupling_start[a + 1]; ++e) {
        const int ob = mv.row_offset[mv.coupling[3 * e]];
        schur_coupling(i, a, e, mv, jac_in, [&](int r, int s, T v) {
          cx[r] += v * x[(ob + s) * x_stride];
          if (k == products.value.size()) {
            products.value.push_back(v);
            products.row.push_back(r);
            products.col.push_back(ob + s);
          } else {
            products.value[k] = v;
            products.row[k] = r;
            products.col[k] = ob + s;
          }
          ++k;
        });
      }
      products.joint_end[static_cast<std::size_t>(a)] = k;
    } else {
      for (; k < products.joint_end[static_cast<std::size_t>(a)]; ++k)
        cx[products.row[k]] += products.value[k] * x[static_cast<std::size_t>(products.col[k]) * x_stride];
    }
    schur_subtract_finish(oa, ma, static_cast<const X*>(cx), x, x_stride, w, w_stride, e2);
  }
  products.recorded = true;
}
#endif

/// Instance i's record of one refined solve at its time t [s] (rel from
/// refine_corrections; < 0: not checked) in b.refine_unconverged, b.refine_worst and
/// b.refine_worst_time (record_refined_solve, refined_solve.hpp). Scalar T.
template <class T>
SP_HD void refine_record(int i, T rel, T t, const BatchBuffers<T>& b) {
  record_refined_solve(rel, t, b.refine_unconverged[i], b.refine_worst[i], b.refine_worst_time[i]);
}

/// `cuda` path, tid = i, after potrfBatched, recover_thread and the first potrsBatched
/// (b.rhs holds (C + E)^-1 rhs, (n, m) per instance): the corrections of instance i with
/// its own dense factor in b.C (dense_cholesky_solve), its rhs formed again in b.refine;
/// lambda left in b.rhs, the solve recorded at t[i] (refine_record). An instance whose
/// factorisation failed (b.info[i] != 0) is left alone. Threads past n return.
template <class T>
SP_HD void refine_thread(int tid, const ModelView<T>& mv, const BatchBuffers<T>& b, const T* t) {
  const int n = mv.n_instances, m = mv.n_rows;
  if (tid >= n) return;
  const int i = tid;
  if (b.info[i] != 0) return;
  const std::size_t o = static_cast<std::size_t>(i) * m;
  const T* jac = b.jac;
  const T* L = b.C + o * m;
  T* w = b.refine + o;
  T* delta = b.rhs + o;
  T* lambda = b.lambda + o;
  for (int a = 0; a < mv.n_constraints(); ++a)
    schur_rhs_rows(i, a, mv, jac, static_cast<const T*>(b.Q), static_cast<const T*>(b.gamma_star), w, 1);
  const T rel = refine_corrections(
      m, mv.refine_steps, 1, w, delta, lambda, [&](T* x) { dense_cholesky_solve(m, L, x, 1); },
      [&](const T* x, T* r, T& e2) {
        for (int a = 0; a < mv.n_constraints(); ++a) schur_subtract_rows(i, a, mv, jac, x, 1, r, 1, e2);
      });
  for (int R = 0; R < m; ++R) delta[R] = lambda[R];
  refine_record(i, rel, t[i], b);
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
    for (int a = 0; a < mv.n_constraints(); ++a) schur_dense_regularise(i, a, mv, eps, C, floor, static_cast<T*>(nullptr));
    if (dense_cholesky_lower(m, C, static_cast<const T*>(floor) + i, n)) {
      info[i] = 0;
      ++recoveries[i];
      return;
    }
  }
  info[i] = 1;
}

}  // namespace simphant::batch
