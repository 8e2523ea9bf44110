#pragma once
// Per-thread functions that move the adaptive Dormand-Prince path's per-instance state
// (AdaptiveBuffers, kernels/dopri5_buffers.hpp) between the device's structure of arrays
// and rows: the restart after reset / set_state / set_models, and the integrator state
// of checkpoints (Backend::get_integrator_state / set_integrator_state;
// host/cuda_backend_dopri5.cuh), in the CPU path's row layout (sim/cpu_dopri5.cpp), so
// that a checkpoint of one backend continues on the other.
#include <cstdint>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "instance_state.hpp"

namespace simphant::batch {

/// The header of an integrator state row: phase (0 start afresh, 1 running), t, h, start
/// and size of the last accepted step, the controller's facold and last_rejected, the
/// accepted and rejected steps, the smallest and largest accepted step; then y (ny), k1
/// (ny), the dense-output coefficients r1..r5 (5 ny) and the inputs the integration ran
/// with (n_inputs).
constexpr int kDopri5RowHeader = 11;

/// Numbers per instance of the integrator state rows.
constexpr int dopri5_state_size(int ny, int n_inputs) { return kDopri5RowHeader + (2 + kDopri5Dense) * ny + n_inputs; }

/// tid = k < count. Instance ids[k] (null: k) starts its adaptive integration afresh at
/// its state Y and clock with the first-step estimate at the next advance, its step
/// statistics cleared.
template <class T>
SP_HD void dopri5_restart_thread(int tid, int count, const int* ids_in, const AdaptiveBuffers<T>& ad) {
  if (tid >= count) return;
  const int i = listed_instance(ids_in, tid);
  ad.flag[i] = 0;
  ad.accepted[i] = 0;
  ad.rejected[i] = 0;
  ad.h_min[i] = T(0);
  ad.h_max[i] = T(0);
  ad.h_old[i] = T(0);
}

/// tid = i < n. Row i of rows_out (n, dopri5_state_size) = instance i's state.
template <class T>
SP_HD void dopri5_state_get_thread(int tid, int n, int ny, int n_inputs, const AdaptiveBuffers<T>& ad, double* rows_out) {
  if (tid >= n) return;
  const int i = tid;
  double* s = rows_out + static_cast<std::size_t>(i) * dopri5_state_size(ny, n_inputs);
  s[0] = (ad.flag[i] & kAdaptiveRunning) ? 1.0 : 0.0;
  s[1] = ad.t[i];
  s[2] = ad.h[i];
  s[3] = ad.t_old[i];
  s[4] = ad.h_old[i];
  s[5] = ad.facold[i];
  s[6] = (ad.flag[i] & kAdaptiveRejected) ? 1.0 : 0.0;
  s[7] = static_cast<double>(ad.accepted[i]);
  s[8] = static_cast<double>(ad.rejected[i]);
  s[9] = ad.h_min[i];
  s[10] = ad.h_max[i];
  double* r = s + kDopri5RowHeader;
  for (int e = 0; e < ny; ++e) r[e] = static_cast<double>(soa(static_cast<const T*>(ad.y), e, n, i));
  for (int e = 0; e < ny; ++e) r[ny + e] = static_cast<double>(soa(static_cast<const T*>(ad.k[0]), e, n, i));
  for (int e = 0; e < kDopri5Dense * ny; ++e) r[2 * ny + e] = static_cast<double>(soa(static_cast<const T*>(ad.cont), e, n, i));
  for (int e = 0; e < n_inputs; ++e) r[(2 + kDopri5Dense) * ny + e] = static_cast<double>(soa(static_cast<const T*>(ad.u), e, n, i));
}

/// tid = i < n. Instance i's state = row i of rows_in (the layout of
/// dopri5_state_get_thread); y_grid = Y (the state set_state wrote, which the rows
/// continue from).
template <class T>
SP_HD void dopri5_state_set_thread(int tid, int n, int ny, int n_inputs, const double* rows_in, const T* Y_in,
                                   const AdaptiveBuffers<T>& ad) {
  if (tid >= n) return;
  const int i = tid;
  const double* s = rows_in + static_cast<std::size_t>(i) * dopri5_state_size(ny, n_inputs);
  ad.flag[i] = static_cast<std::int8_t>((s[0] != 0.0 ? kAdaptiveRunning : 0) | (s[6] != 0.0 ? kAdaptiveRejected : 0));
  ad.t[i] = static_cast<T>(s[1]);
  ad.h[i] = static_cast<T>(s[2]);
  ad.t_old[i] = static_cast<T>(s[3]);
  ad.h_old[i] = static_cast<T>(s[4]);
  ad.facold[i] = static_cast<T>(s[5]);
  ad.accepted[i] = static_cast<std::int64_t>(s[7]);
  ad.rejected[i] = static_cast<std::int64_t>(s[8]);
  ad.h_min[i] = static_cast<T>(s[9]);
  ad.h_max[i] = static_cast<T>(s[10]);
  const double* r = s + kDopri5RowHeader;
  for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = static_cast<T>(r[e]);
  for (int e = 0; e < ny; ++e) soa(ad.k[0], e, n, i) = static_cast<T>(r[ny + e]);
  for (int e = 0; e < kDopri5Dense * ny; ++e) soa(ad.cont, e, n, i) = static_cast<T>(r[2 * ny + e]);
  for (int e = 0; e < n_inputs; ++e) soa(ad.u, e, n, i) = static_cast<T>(r[(2 + kDopri5Dense) * ny + e]);
  for (int e = 0; e < ny; ++e) soa(ad.y_grid, e, n, i) = soa(Y_in, e, n, i);
}

}  // namespace simphant::batch
