#pragma once
// Per-thread functions of the RK4 kernels (fixed step, docs/solver.md), one thread per
// (instance, body k) over that body's 13 state entries:
//   stage:  y_stage = Y + c dt k_s                      (c = 1/2, 1/2, 1)
//   final:  y_stage = Y + dt/6 (k1 + 2 k2 + 2 k3 + k4), quaternion renormalised.
// The final candidate is committed to Y per instance by instance_status.hpp.
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"

namespace simphant::batch {

namespace detail {
/// The 13 state entries of body k: 7 of q (r, p), 6 of qdot (v, omega).
SP_HD int body_entry(int N, int k, int e) { return e < 7 ? 7 * k + e : 7 * N + 6 * k + (e - 7); }
}  // namespace detail

/// tid = k * n + i. y_stage_out = y_in + h k_in, all (13 N, n).
template <class T>
SP_HD void rk4_stage_thread(int tid, const ModelView<T>& mv, T h, const T* y_in, const T* k_in, T* y_stage_out) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n * N) return;
  const int i = tid % n, k = tid / n;
  for (int e = 0; e < 13; ++e) {
    const int x = detail::body_entry(N, k, e);
    soa(y_stage_out, x, n, i) = soa(y_in, x, n, i) + h * soa(k_in, x, n, i);
  }
}

/// tid = k * n + i. y_new_out = y_in + dt/6 (k1 + 2 k2 + 2 k3 + k4), with body k's
/// quaternion renormalised; all (13 N, n).
template <class T>
SP_HD void rk4_final_thread(int tid, const ModelView<T>& mv, const T* y_in, const T* k1, const T* k2, const T* k3,
                            const T* k4, T* y_new_out) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n * N) return;
  const int i = tid % n, k = tid / n;
  const T dt = mv.dt;
  for (int e = 0; e < 13; ++e) {
    const int x = detail::body_entry(N, k, e);
    soa(y_new_out, x, n, i) =
        soa(y_in, x, n, i) +
        dt / T(6) * (soa(k1, x, n, i) + T(2) * soa(k2, x, n, i) + T(2) * soa(k3, x, n, i) + soa(k4, x, n, i));
  }
  const Quat<T> p = normalized(soa_quat(static_cast<const T*>(y_new_out), n, i, k));
  soa(y_new_out, 7 * k + 3, n, i) = p.w;
  soa(y_new_out, 7 * k + 4, n, i) = p.x;
  soa(y_new_out, 7 * k + 5, n, i) = p.y;
  soa(y_new_out, 7 * k + 6, n, i) = p.z;
}

}  // namespace simphant::batch
