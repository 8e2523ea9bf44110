#pragma once
// The GPU executor of kernels/batch_step.hpp: each launch is the thin __global__
// trampoline kernels/grid_kernel.cuh calling one per-thread __host__ __device__ function over its
// grid, and cholesky_factor / cholesky_solve are cuSOLVER's batched Cholesky
// (potrfBatched; potrsBatched with one right-hand side, the only count it supports). Launches go to
// one stream, so a step can be captured as a CUDA graph.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>
#include <type_traits>

#include "cuda_check.hpp"
#include "grid_kernel.cuh"

namespace simphant::cuda {

template <class T>
struct CudaExec {
  cudaStream_t stream;
  cusolverDnHandle_t solver;
  std::string batch;  ///< names the batch in error messages
  static constexpr int kBlock = batch::kGridBlock;

  template <class F>
  void launch(const char* name, int n_threads, F f) {
    if (n_threads <= 0) return;
    batch::grid_kernel<<<(n_threads + kBlock - 1) / kBlock, kBlock, 0, stream>>>(n_threads, f);
    check(cudaGetLastError(), (std::string("launch of kernel '") + name + "'").c_str(), batch);
  }

  void cholesky_factor(int m, T** C_ptrs, int* info, int batch_size) {
    if constexpr (std::is_same<T, double>::value) {
      check(cusolverDnDpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, m, C_ptrs, m, info, batch_size),
            "cusolverDnDpotrfBatched", batch);
    } else {
      check(cusolverDnSpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, m, C_ptrs, m, info, batch_size),
            "cusolverDnSpotrfBatched", batch);
    }
  }

  void cholesky_solve(int m, T** C_ptrs, T** rhs_ptrs, int batch_size) {
    if constexpr (std::is_same<T, double>::value) {
      check(cusolverDnDpotrsBatched(solver, CUBLAS_FILL_MODE_LOWER, m, 1, C_ptrs, m, rhs_ptrs, m, potrs_info, batch_size),
            "cusolverDnDpotrsBatched", batch);
    } else {
      check(cusolverDnSpotrsBatched(solver, CUBLAS_FILL_MODE_LOWER, m, 1, C_ptrs, m, rhs_ptrs, m, potrs_info, batch_size),
            "cusolverDnSpotrsBatched", batch);
    }
  }
  int* potrs_info;  ///< (1) device: potrsBatched's argument check result
};

}  // namespace simphant::cuda
