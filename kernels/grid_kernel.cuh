#pragma once
// The one __global__ trampoline of the batched kernels: thread tid runs
// f(tid), where f is a __host__ __device__ lambda of kernels/batch_step.hpp that calls one
// per-thread function (joint_rows_thread, body_forces_thread, schur_thread, ...) with its
// arrays. The CPU tests run the same lambdas over the same grid.
//
// __launch_bounds__(128, 3): at least 3 blocks of 128 threads per SM, so at most 168
// registers per thread. Unbounded, the cuda-fused stage kernel took 238 registers (2
// blocks per SM, 8 warps); capped, ptxas spills 32-48 bytes per thread in the largest
// kernels (sm_90, nvcc 13.0).
namespace simphant::batch {

/// Threads per block of every launch (host/cuda_exec.cuh), and the launch bound below.
constexpr int kGridBlock = 128;

template <class F>
__global__ void __launch_bounds__(kGridBlock, 3) grid_kernel(int n_threads, F f) {
  const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (tid < n_threads) f(tid);
}

}  // namespace simphant::batch
