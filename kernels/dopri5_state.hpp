#pragma once
// Per-thread functions that move the adaptive Dormand-Prince path's per-instance state
// (AdaptiveBuffers, kernels/dopri5_buffers.hpp) between the device's structure of arrays
// and rows: the restart after reset / set_state / set_models, and the integrator state
// of checkpoints (Backend::get_integrator_state / set_integrator_state;
// host/cuda_backend_dopri5.cuh).
#include <cstdint>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "instance_state.hpp"

namespace simphant::batch {

/// Numbers per instance of the integrator state rows, for ny = 13 N state entries:
/// [y (ny), k1 (ny), the dense-output coefficients (5 ny, rcont1..5 in turn), t, h, t_old,
/// h_old, err_old, flags (kAdaptiveRejected | kAdaptiveStart), accepted, rejected, h_min,
/// h_max].
constexpr int dopri5_state_size(int ny) { return (2 + kDopri5Dense) * ny + 10; }

/// tid = k < count. Instance ids[k] (null: k) starts its adaptive integration afresh at
/// its state Y and clock with the first-step estimate (kAdaptiveStart), its step
/// statistics cleared.
template <class T>
SP_HD void dopri5_restart_thread(int tid, int count, const int* ids_in, const AdaptiveBuffers<T>& ad) {
  if (tid >= count) return;
  const int i = listed_instance(ids_in, tid);
  ad.flag[i] = kAdaptiveStart;
  ad.accepted[i] = 0;
  ad.rejected[i] = 0;
  ad.h_min[i] = T(0);
  ad.h_max[i] = T(0);
  ad.h_old[i] = T(0);
}

/// tid = i < n. Row i of rows_out (n, dopri5_state_size(ny)) = instance i's state.
template <class T>
SP_HD void dopri5_state_get_thread(int tid, int n, int ny, const AdaptiveBuffers<T>& ad, double* rows_out) {
  if (tid >= n) return;
  const int i = tid;
  double* r = rows_out + static_cast<std::size_t>(i) * dopri5_state_size(ny);
  for (int e = 0; e < ny; ++e) r[e] = static_cast<double>(soa(static_cast<const T*>(ad.y), e, n, i));
  for (int e = 0; e < ny; ++e) r[ny + e] = static_cast<double>(soa(static_cast<const T*>(ad.k[0]), e, n, i));
  for (int e = 0; e < kDopri5Dense * ny; ++e) r[2 * ny + e] = static_cast<double>(soa(static_cast<const T*>(ad.cont), e, n, i));
  double* s = r + (2 + kDopri5Dense) * ny;
  s[0] = ad.t[i];
  s[1] = ad.h[i];
  s[2] = ad.t_old[i];
  s[3] = ad.h_old[i];
  s[4] = ad.err_old[i];
  s[5] = static_cast<double>(ad.flag[i] & (kAdaptiveRejected | kAdaptiveStart));
  s[6] = static_cast<double>(ad.accepted[i]);
  s[7] = static_cast<double>(ad.rejected[i]);
  s[8] = ad.h_min[i];
  s[9] = ad.h_max[i];
}

/// tid = i < n. Instance i's state = row i of rows_in (the layout of dopri5_state_get_thread).
template <class T>
SP_HD void dopri5_state_set_thread(int tid, int n, int ny, const double* rows_in, const AdaptiveBuffers<T>& ad) {
  if (tid >= n) return;
  const int i = tid;
  const double* r = rows_in + static_cast<std::size_t>(i) * dopri5_state_size(ny);
  for (int e = 0; e < ny; ++e) soa(ad.y, e, n, i) = static_cast<T>(r[e]);
  for (int e = 0; e < ny; ++e) soa(ad.k[0], e, n, i) = static_cast<T>(r[ny + e]);
  for (int e = 0; e < kDopri5Dense * ny; ++e) soa(ad.cont, e, n, i) = static_cast<T>(r[2 * ny + e]);
  const double* s = r + (2 + kDopri5Dense) * ny;
  ad.t[i] = static_cast<T>(s[0]);
  ad.h[i] = static_cast<T>(s[1]);
  ad.t_old[i] = static_cast<T>(s[2]);
  ad.h_old[i] = static_cast<T>(s[3]);
  ad.err_old[i] = static_cast<T>(s[4]);
  ad.flag[i] = static_cast<std::int8_t>(static_cast<int>(s[5]) & (kAdaptiveRejected | kAdaptiveStart));
  ad.accepted[i] = static_cast<std::int64_t>(s[6]);
  ad.rejected[i] = static_cast<std::int64_t>(s[7]);
  ad.h_min[i] = static_cast<T>(s[8]);
  ad.h_max[i] = static_cast<T>(s[9]);
}

}  // namespace simphant::batch
