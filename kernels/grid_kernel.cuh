#pragma once
// The one __global__ trampoline of the batched kernels (design.md §2): thread tid runs
// f(tid), where f is a __host__ __device__ lambda of kernels/batch_step.hpp that calls one
// per-thread function (joint_rows_thread, body_forces_thread, schur_thread, ...) with its
// arrays. The CPU tests run the same lambdas over the same grid.
namespace simphant::batch {

template <class F>
__global__ void grid_kernel(int n_threads, F f) {
  const int tid = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (tid < n_threads) f(tid);
}

}  // namespace simphant::batch
