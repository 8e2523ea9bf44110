#pragma once
// Per-thread function of the accelerations kernel: one thread per (instance, body k)
// forms qddot_k = M_k^-1 (Q_k - sum over elements at k of Phi_q,k^T lambda) (docs/solver.md,
// The Schur complement; the CPU reference subtracts the elements' terms in the same order:
// element order, an element's sides at k in side order) and writes body k's part of the state derivative
// Ydot = [v, pdot = 1/2 p (0, omega_B), qddot].
#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/force_math.hpp"

namespace simphant::batch {

/// Body k of instance i: qdd (6) = M_k^-1 (Q_k - sum over the elements at k of Phi_q,k^T
/// lambda), the elements' terms subtracted in the file comment's order. lambda(R): row
/// R's multiplier, a T or a number that multiplies T (schur_residual: a Dual's converged
/// value). jac_in, Q_in as for accelerations_thread.
template <class T, class Lambda>
SP_HD void body_acceleration(int i, int k, const ModelView<T>& mv, const T* jac_in, const T* Q_in, Lambda lambda,
                             T* qdd) {
  const int n = mv.n_instances, cols = mv.jac_cols();
  T Qk[6];
  for (int c = 0; c < 6; ++c) Qk[c] = soa(Q_in, 6 * k + c, n, i);
  for (int p = mv.body_joint_start[k]; p < mv.body_joint_start[k + 1]; ++p) {
    const int a = mv.body_joint[2 * p], side = mv.body_joint[2 * p + 1], oa = mv.row_offset[a];
    for (int r = 0; r < mv.rows_of(a); ++r) {
      const auto l = lambda(oa + r);
      for (int c = 0; c < 6; ++c) Qk[c] -= soa(jac_in, cols * (oa + r) + 6 * side + c, n, i) * l;
    }
  }
  apply_body_Minv(mv.mass(k, i), mv.inertia_inv_B(k, i), Qk, qdd);
}

/// Body k of instance i: its part of the state derivative from lambda (no check of the
/// factorisation: accelerations_thread's), for any T (the SIMD lanes of simd/ included).
/// Arguments as accelerations_thread's.
template <class T>
SP_HD void accelerations_body(int i, int k, const ModelView<T>& mv, const T* y_in, const T* jac_in, const T* Q_in,
                              const T* lambda_in, int lambda_soa, T* ydot_out) {
  const int n = mv.n_instances, N = mv.n_bodies, m = mv.n_rows;
  T qdd[6];
  body_acceleration(i, k, mv, jac_in, Q_in, [&](int R) { return lambda_at(lambda_in, lambda_soa, m, n, i, R); }, qdd);
  const int o = 7 * N + 6 * k;
  for (int c = 0; c < 3; ++c) soa(ydot_out, 7 * k + c, n, i) = soa(y_in, o + c, n, i);
  const Vec3<T> w = {soa(y_in, o + 3, n, i), soa(y_in, o + 4, n, i), soa(y_in, o + 5, n, i)};
  const Quat<T> pd = quat_rate(soa_quat(y_in, n, i, k), w);
  soa(ydot_out, 7 * k + 3, n, i) = pd.w;
  soa(ydot_out, 7 * k + 4, n, i) = pd.x;
  soa(ydot_out, 7 * k + 5, n, i) = pd.y;
  soa(ydot_out, 7 * k + 6, n, i) = pd.z;
  for (int c = 0; c < 6; ++c) soa(ydot_out, o + c, n, i) = qdd[c];
}

/// tid = k * n + i. y_in (13 N, n), jac_in (m, mv.jac_cols(), n), Q_in (6 N, n), lambda_in (the
/// solved right-hand sides, layout lambda_soa: lambda_at), info_in (n) factorisation info. ydot_out (13 N, n); fail_out
/// (n): body 0's thread sets 1 when the instance's factorisation failed.
template <class T>
SP_HD void accelerations_thread(int tid, const ModelView<T>& mv, const T* y_in, const T* jac_in, const T* Q_in,
                                const T* lambda_in, int lambda_soa, const int* info_in, T* ydot_out, int* fail_out) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n * N) return;
  const int i = tid % n, k = tid / n;
  if (mv.n_rows > 0 && k == 0 && info_in[i] != 0) fail_out[i] = 1;
  accelerations_body(i, k, mv, y_in, jac_in, Q_in, lambda_in, lambda_soa, ydot_out);
}

}  // namespace simphant::batch
