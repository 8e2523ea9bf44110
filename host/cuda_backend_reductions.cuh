#pragma once
// CudaBackend's reductions over time (Backend; formulas/reductions.hpp): the
// accumulators (size, n) in device memory, allocated when set_reductions enables them,
// sampled by the step's first stage (kernels/batch_step.hpp, kernels/fused_stage.hpp;
// the step's graph is captured again, since it holds the layout), read through
// enqueue_reduce_read. The device stores each max's batch step; the host converts it to
// the instance's own step with offset_ (instance step = batch step - offset_[i]).
#include <cmath>

#include "cuda_backend.cuh"
#include "cuda_exec.cuh"

namespace simphant::cuda {

template <class T>
void CudaBackend<T>::set_reductions(const std::vector<ReductionQuantity>& quantities) {
  synchronize();
  red_ = reduction_layout_of(quantities, models_->front());
  const std::size_t total = red_.any() ? static_cast<std::size_t>(red_.size()) * n_ : 0;
  red_acc_ = DeviceArray<double>(total, batch_);
  red_read_ = DeviceArray<double>(total, batch_);
  red_host_ = PinnedArray<double>(total, batch_);
  b_.red = red_;
  b_.red_acc = red_acc_.get();
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  batch::enqueue_reduce_clear(x, mv_, b_, nullptr, n_);
  recapture_graph();
}

template <class T>
void CudaBackend<T>::download_reductions(const double* d_acc) const {
  const std::size_t total = static_cast<std::size_t>(red_.size()) * n_;
  check(cudaMemcpyAsync(red_host_.get(), d_acc, total * sizeof(double), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reductions)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reductions)", batch_);
}

template <class T>
void CudaBackend<T>::read_reductions(double* out) const {
  if (!red_.any()) return;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  batch::enqueue_reduce_read(x, mv_, b_, red_read_.get(), fused_ ? &P_ : nullptr);
  download_reductions(red_read_.get());
  const int w = red_.size(), C = red_.channels;
  std::vector<double> row(static_cast<std::size_t>(w));
  for (int i = 0; i < n_; ++i) {
    for (int e = 0; e < w; ++e) row[e] = red_host_.get()[static_cast<std::size_t>(e) * n_ + i];
    for (int c = 0; c < C; ++c) row[1 + kReductionSlots * c + 4] -= static_cast<double>(offset_[static_cast<std::size_t>(i)]);
    for (int c = 0; c < C; ++c)
      reduction_stats(red_, ReductionAcc{row.data(), 1}, c, dt_, out + (static_cast<std::size_t>(i) * C + c) * kReductionStats);
  }
}

template <class T>
void CudaBackend<T>::get_reduction_state(double* acc) const {
  if (!red_.any()) return;
  staging_.wait();
  download_reductions(red_acc_.get());
  const int w = red_.size(), C = red_.channels;
  for (int i = 0; i < n_; ++i) {
    double* row = acc + static_cast<std::size_t>(i) * w;
    for (int e = 0; e < w; ++e) row[e] = red_host_.get()[static_cast<std::size_t>(e) * n_ + i];
    for (int c = 0; c < C; ++c) row[1 + kReductionSlots * c + 4] -= static_cast<double>(offset_[static_cast<std::size_t>(i)]);
  }
}

template <class T>
void CudaBackend<T>::set_reduction_state(const double* acc) {
  if (!red_.any()) return;
  staging_.wait();
  const int w = red_.size(), C = red_.channels;
  for (int i = 0; i < n_; ++i) {
    const double* row = acc + static_cast<std::size_t>(i) * w;
    for (int e = 0; e < w; ++e) red_host_.get()[static_cast<std::size_t>(e) * n_ + i] = row[e];
    for (int c = 0; c < C; ++c)
      red_host_.get()[static_cast<std::size_t>(1 + kReductionSlots * c + 4) * n_ + i] +=
          static_cast<double>(offset_[static_cast<std::size_t>(i)]);
  }
  check(cudaMemcpyAsync(red_acc_.get(), red_host_.get(), static_cast<std::size_t>(w) * n_ * sizeof(double),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (reductions to the device)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reductions)", batch_);
}

}  // namespace simphant::cuda
