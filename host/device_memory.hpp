#pragma once
// RAII owners of device memory (cudaMalloc) and pinned host memory (cudaMallocHost),
// allocated once when a batch is created (no allocation in a step).
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

namespace simphant::cuda {

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(std::size_t count, const std::string& batch) : count_(count) {
    if (count_ > 0) check(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)), "cudaMalloc", batch);
  }
  /// Allocates and uploads `host` (synchronously; used at creation only).
  DeviceArray(const std::vector<T>& host, const std::string& batch) : DeviceArray(host.size(), batch) {
    if (count_ > 0) check(cudaMemcpy(ptr_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", batch);
  }
  DeviceArray(DeviceArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (ptr_) cudaFree(ptr_);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  PinnedArray(std::size_t count, const std::string& batch) : count_(count) {
    if (count_ > 0) check(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)), "cudaMallocHost", batch);
  }
  PinnedArray(PinnedArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedArray& operator=(PinnedArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  ~PinnedArray() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace simphant::cuda
