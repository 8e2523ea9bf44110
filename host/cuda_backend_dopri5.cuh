#pragma once
// The adaptive Dormand-Prince 5(4) path of CudaBackend<T> (docs/cuda-backend.md,
// "Adaptive steps"): its per-instance arrays, the host loop of advance() that runs
// attempt rounds until every live instance has passed the grid time, the restart after
// reset / set_state / set_models, the step statistics and the integrator state of
// checkpoints. The sequence itself is kernels/dopri5_batch.hpp.
#include <algorithm>
#include <vector>

#include "cuda_backend_impl.cuh"
#include "dopri5_batch.hpp"
#include "dopri5_state.hpp"
#include "simphant/sim/step_statistics.hpp"

namespace simphant::cuda {

template <class T>
void CudaBackend<T>::allocate_adaptive() {
  if (integrator_ != Integrator::Dopri5) return;
  const std::size_t n = n_, ny = 13 * static_cast<std::size_t>(N_);
  ad_y_ = DeviceArray<T>(ny * n, batch_);
  for (auto& k : ad_k_) k = DeviceArray<T>(ny * n, batch_);
  ad_cont_ = DeviceArray<T>(batch::kDopri5Dense * ny * n, batch_);
  ad_y_grid_ = DeviceArray<T>(ny * n, batch_);
  ad_u_ = DeviceArray<T>(static_cast<std::size_t>(n_inputs_) * n, batch_);
  ad_scalars_ = DeviceArray<T>(batch::kAdaptiveScalars * n, batch_);
  ad_counts_ = DeviceArray<std::int64_t>(2 * n, batch_);
  ad_flag_ = DeviceArray<std::int8_t>(n, batch_);
  ad_unfinished_ = DeviceArray<int>(1, batch_);
  unfinished_host_ = PinnedArray<int>(1, batch_);
  batch::AdaptiveBuffers<T>& ad = b_.ad;
  ad.y = ad_y_.get();
  // k1..k4 share the RK4 slopes' arrays (the fixed step never runs in an adaptive batch).
  for (int s = 0; s < 4; ++s) ad.k[s] = k_[s].get();
  for (int s = 4; s < batch::kDopri5Stages; ++s) ad.k[s] = ad_k_[s - 4].get();
  ad.cont = ad_cont_.get();
  ad.y_grid = ad_y_grid_.get();
  ad.u = ad_u_.get();
  T* sc = ad_scalars_.get();
  T** fields[] = {&ad.t, &ad.h, &ad.t_old, &ad.h_old, &ad.facold, &ad.t_stage, &ad.h_new, &ad.h_min, &ad.h_max};
  static_assert(sizeof(fields) / sizeof(fields[0]) == batch::kAdaptiveScalars, "the (n) arrays of T");
  for (int f = 0; f < batch::kAdaptiveScalars; ++f) *fields[f] = sc + static_cast<std::size_t>(f) * n;
  // Zeros everywhere: a batch that has not advanced yet gives the CPU's integrator state
  // rows (phase 0: start afresh).
  for (DeviceArray<T>* a : {&ad_y_, &ad_k_[0], &ad_k_[1], &ad_k_[2], &ad_cont_, &ad_y_grid_, &ad_u_, &ad_scalars_, &k_[0],
                            &k_[1], &k_[2], &k_[3]})
    check(cudaMemsetAsync(a->get(), 0, a->size() * sizeof(T), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(ad_counts_.get(), 0, ad_counts_.size() * sizeof(std::int64_t), stream_), "cudaMemsetAsync",
        batch_);
  ad.accepted = ad_counts_.get();
  ad.rejected = ad_counts_.get() + n;
  ad.flag = ad_flag_.get();
  ad.unfinished = ad_unfinished_.get();
  restart_adaptive(nullptr, n_);
}

template <class T>
void CudaBackend<T>::restart_adaptive(const int* d_ids, int count) {
  if (integrator_ != Integrator::Dopri5 || count == 0) return;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  batch::enqueue_dopri5_restart(x, b_.ad, d_ids, count);
}

template <class T>
void CudaBackend<T>::advance_dopri5(int n_steps) {
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  int* d_count = ad_unfinished_.get();
  int* h_count = unfinished_host_.get();
  const auto read_count = [&](const auto& enqueue) {
    check(cudaMemsetAsync(d_count, 0, sizeof(int), stream_), "cudaMemsetAsync (instance count)", batch_);
    enqueue();
    check(cudaMemcpyAsync(h_count, d_count, sizeof(int), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (instance count)", batch_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (adaptive rounds)", batch_);
    return *h_count;
  };
  batch::enqueue_dopri5_advance(x, mv_, b_, fused_ ? &P_ : nullptr, n_steps, &last_rounds_, read_count);
}

template <class T>
void CudaBackend<T>::read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                          double* max_step) const {
  if (integrator_ != Integrator::Dopri5) {
    fixed_step_statistics(*this, dt_, accepted, rejected, min_step, max_step);
    return;
  }
  const std::size_t n = n_;
  std::vector<std::int64_t> counts(2 * n);
  std::vector<T> h(2 * n);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (step statistics)", batch_);
  check(cudaMemcpy(counts.data(), ad_counts_.get(), counts.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
        "cudaMemcpy (step counts)", batch_);
  check(cudaMemcpy(h.data(), b_.ad.h_min, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (smallest steps)", batch_);
  check(cudaMemcpy(h.data() + n, b_.ad.h_max, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (largest steps)", batch_);
  for (std::size_t i = 0; i < n; ++i) {
    if (accepted) accepted[i] = counts[i];
    if (rejected) rejected[i] = counts[n + i];
    if (min_step) min_step[i] = static_cast<double>(h[i]);
    if (max_step) max_step[i] = static_cast<double>(h[n + i]);
  }
}

template <class T>
int CudaBackend<T>::integrator_state_size() const {
  return integrator_ == Integrator::Dopri5 ? batch::dopri5_state_size(13 * N_, n_inputs_) : 0;
}

template <class T>
void CudaBackend<T>::get_integrator_state(double* out) const {
  const int size = integrator_state_size();
  if (size == 0) return;
  const int n = n_, ny = 13 * N_, n_in = n_inputs_;
  DeviceArray<double> rows(static_cast<std::size_t>(n) * size, batch_);
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  const batch::AdaptiveBuffers<T> ad = b_.ad;
  double* r = rows.get();
  x.launch("dopri5_state_get", n, [=] __host__ __device__(int tid) {
    batch::dopri5_state_get_thread(tid, n, ny, n_in, ad, r);
  });
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (integrator state)", batch_);
  check(cudaMemcpy(out, r, rows.size() * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (integrator state)", batch_);
}

template <class T>
void CudaBackend<T>::set_integrator_state(const double* in) {
  const int size = integrator_state_size();
  if (size == 0) return;
  const int n = n_, ny = 13 * N_, n_in = n_inputs_;
  DeviceArray<double> rows(static_cast<std::size_t>(n) * size, batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (integrator state)", batch_);
  check(cudaMemcpy(rows.get(), in, rows.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy (integrator state)",
        batch_);
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  const batch::AdaptiveBuffers<T> ad = b_.ad;
  const double* r = rows.get();
  const T* Y = Y_.get();
  x.launch("dopri5_state_set", n, [=] __host__ __device__(int tid) {
    batch::dopri5_state_set_thread(tid, n, ny, n_in, r, Y, ad);
  });
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (integrator state)", batch_);
}

}  // namespace simphant::cuda
