#pragma once
// StagingBuffers: the staging that the CUDA backends (host/cuda_backend*.cuh, the DAE;
// host/cuda_reduced_backend.cu, joint coordinates) share for their per-instance calls
// (get_state, set_state, reset, set_models, set_inputs(ids, ...)): instance lists and
// status rows travel between the host and the device through pinned host buffers and
// device row buffers, and one event orders the host's writes into a pinned buffer after
// the queued copy that still reads it.
//
// Use, on the backend's stream:
//   staging.wait();                                   // before the host writes a pinned buffer
//   const int* d_ids = staging.stage_ids(ids, count); // queue the ids' upload
//   ... queue copies out of the pinned buffers, kernels ...
//   staging.staged();                                 // the copies so far are the last ones
// Rows: status (int8), status step (int64) and status reason (int8) of `count` listed
// instances, in the order of the list; gather_status and scatter_status move them
// between these rows and the per-instance columns (kernels/instance_state.hpp).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cuda_check.hpp"
#include "device_memory.hpp"
#include "grid_kernel.cuh"
#include "instance_state.hpp"

namespace simphant::cuda {

struct StagingBuffers {
  cudaStream_t stream = nullptr;  ///< the backend's stream (not owned)
  std::string batch_name;         ///< the batch's name, for error messages (cuda_check.hpp)
  /// The last copy out of a pinned staging buffer (the ones below and the backend's own,
  /// such as its frame or input rows); owned, destroyed by release().
  cudaEvent_t copied = nullptr;
  PinnedArray<int> ids_host;                   ///< staging of instance (or other index) lists
  DeviceArray<int> ids_dev;                    ///< (n) device copy of an instance list
  PinnedArray<std::int8_t> status_host;        ///< (n) status rows
  PinnedArray<std::int64_t> status_step_host;  ///< (n) status step rows
  PinnedArray<std::int8_t> reason_host;        ///< (n) status reason rows
  DeviceArray<std::int8_t> status_rows;        ///< (n) their device copies
  DeviceArray<std::int64_t> step_rows;
  DeviceArray<std::int8_t> reason_rows;

  /// Allocates the buffers for n instances (ids_host holds max(n, n_ids) entries) and
  /// creates the event. Throws BackendError for a failed CUDA call.
  void allocate(cudaStream_t s, const std::string& name, std::size_t n, std::size_t n_ids = 0) {
    stream = s;
    batch_name = name;
    ids_host = PinnedArray<int>(n_ids > n ? n_ids : n, batch_name);
    ids_dev = DeviceArray<int>(n, batch_name);
    status_host = PinnedArray<std::int8_t>(n, batch_name);
    status_step_host = PinnedArray<std::int64_t>(n, batch_name);
    reason_host = PinnedArray<std::int8_t>(n, batch_name);
    status_rows = DeviceArray<std::int8_t>(n, batch_name);
    step_rows = DeviceArray<std::int64_t>(n, batch_name);
    reason_rows = DeviceArray<std::int8_t>(n, batch_name);
    check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "cudaEventCreateWithFlags", batch_name);
  }

  /// Destroys the event (the buffers free themselves). After the stream is synchronised.
  void release() noexcept {
    if (copied) cudaEventDestroy(copied);
    copied = nullptr;
  }

  /// Waits until the last copy out of a pinned staging buffer is done (before the host
  /// writes one again).
  void wait() const { check(cudaEventSynchronize(copied), "cudaEventSynchronize (previous staging copy)", batch_name); }

  /// Marks the copies queued so far as the last ones out of the staging buffers.
  void staged() const { check(cudaEventRecord(copied, stream), "cudaEventRecord (staging copy)", batch_name); }

  /// Uploads ids (count) through ids_host to ids_dev and returns the device copy; nullptr
  /// for ids == nullptr (every instance). After wait().
  const int* stage_ids(const int* ids, int count) const {
    if (!ids) return nullptr;
    return upload_ids(ids, count, ids_dev.get(), "cudaMemcpyAsync (instance ids)");
  }

  /// Uploads count indices through ids_host to d_out (count entries) and returns d_out.
  /// After wait().
  const int* upload_ids(const int* ids, int count, int* d_out, const char* what) const {
    std::memcpy(ids_host.get(), ids, static_cast<std::size_t>(count) * sizeof(int));
    check(cudaMemcpyAsync(d_out, ids_host.get(), static_cast<std::size_t>(count) * sizeof(int), cudaMemcpyHostToDevice,
                          stream),
          what, batch_name);
    return d_out;
  }

  /// Queues the gather of the status, status step and status reason of the count listed
  /// instances (d_ids, device; null: instances 0 .. count-1) from the per-instance
  /// columns st, ss, re (n each, device) into the rows, and the rows' copy to
  /// status_host, status_step_host and reason_host (read them after the stream is
  /// synchronised). After wait().
  void gather_status(int count, const int* d_ids, const std::int8_t* st, const std::int64_t* ss,
                     const std::int8_t* re) const {
    std::int8_t* st_rows = status_rows.get();
    std::int64_t* ss_rows = step_rows.get();
    std::int8_t* re_rows = reason_rows.get();
    launch("gather_status", count, [=] __host__ __device__(int tid) {
      batch::gather_status_thread(tid, count, d_ids, st, ss, re, st_rows, ss_rows, re_rows);
    });
    const std::size_t c = static_cast<std::size_t>(count);
    check(cudaMemcpyAsync(status_host.get(), st_rows, c, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (status)",
          batch_name);
    check(cudaMemcpyAsync(reason_host.get(), re_rows, c, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (status reason)", batch_name);
    check(cudaMemcpyAsync(status_step_host.get(), ss_rows, c * sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (status step)", batch_name);
  }

  /// Queues the upload of the first count entries of the host rows asked for (status:
  /// status_host, steps: status_step_host, reasons: reason_host) and their scatter into
  /// the columns st, ss, re (n each, device) of the listed instances
  /// (kernels/instance_state.hpp, scatter_status_thread: a kind not asked for is left as
  /// it is; step_is_delta 1 adds the steps to the status steps). The caller fills those
  /// host rows first, after wait().
  void scatter_status(int count, const int* d_ids, bool status, bool steps, bool reasons, int step_is_delta,
                      std::int8_t* st, std::int64_t* ss, std::int8_t* re) const {
    const std::size_t c = static_cast<std::size_t>(count);
    const std::int8_t* st_rows = status ? status_rows.get() : nullptr;
    const std::int64_t* ss_rows = steps ? step_rows.get() : nullptr;
    const std::int8_t* re_rows = reasons ? reason_rows.get() : nullptr;
    if (re_rows)
      check(cudaMemcpyAsync(reason_rows.get(), reason_host.get(), c, cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync (status reason)", batch_name);
    if (st_rows)
      check(cudaMemcpyAsync(status_rows.get(), status_host.get(), c, cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync (status)", batch_name);
    if (ss_rows)
      check(cudaMemcpyAsync(step_rows.get(), status_step_host.get(), c * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                            stream),
            "cudaMemcpyAsync (status step)", batch_name);
    launch("scatter_status", count, [=] __host__ __device__(int tid) {
      batch::scatter_status_thread(tid, count, d_ids, st_rows, ss_rows, re_rows, step_is_delta, st, ss, re);
    });
  }

 private:
  /// One launch of f over n_threads threads on the stream (kernels/grid_kernel.cuh).
  template <class F>
  void launch(const char* name, int n_threads, F f) const {
    if (n_threads <= 0) return;
    constexpr int kBlock = batch::kGridBlock;
    batch::grid_kernel<<<(n_threads + kBlock - 1) / kBlock, kBlock, 0, stream>>>(n_threads, f);
    check(cudaGetLastError(), (std::string("launch of kernel '") + name + "'").c_str(), batch_name);
  }
};

}  // namespace simphant::cuda
