#pragma once
// Per-thread functions of the per-instance state kernels (Backend::get_state, set_state,
// reset, set_models, set_inputs(ids, ...); host/cuda_backend_state.cuh): they move the
// listed instances' columns of the structure-of-arrays batch (element e of instance i at
// a[e * n + i], batch_state.hpp) to or from rows (count, width), row k for instance
// ids_in[k] (ids_in == nullptr: instance k). One thread per listed instance, looping
// over the elements, so neighbouring threads touch neighbouring instances.
#include <cstddef>
#include <cstdint>

#include "simphant/core/hd.hpp"
#include "simphant/formulas/runaway.hpp"

namespace simphant::batch {

SP_HD int listed_instance(const int* ids_in, int k) { return ids_in ? ids_in[k] : k; }

/// tid = k < count. rows_out (count, width) row k = column ids[k] of soa_in (width, n).
template <class T>
SP_HD void gather_rows_thread(int tid, int n, int width, int count, const int* ids_in, const T* soa_in, T* rows_out) {
  if (tid >= count) return;
  const std::size_t i = static_cast<std::size_t>(listed_instance(ids_in, tid));
  for (int e = 0; e < width; ++e)
    rows_out[static_cast<std::size_t>(tid) * width + e] = soa_in[static_cast<std::size_t>(e) * n + i];
}

/// tid = k < count. Column ids[k] of soa_out (width, n) = row k of rows_in (count, width),
/// converted to T (U: the rows' type, e.g. double actuator inputs into a float batch).
template <class U, class T>
SP_HD void scatter_rows_thread(int tid, int n, int width, int count, const int* ids_in, const U* rows_in, T* soa_out) {
  if (tid >= count) return;
  const std::size_t i = static_cast<std::size_t>(listed_instance(ids_in, tid));
  for (int e = 0; e < width; ++e)
    soa_out[static_cast<std::size_t>(e) * n + i] = static_cast<T>(rows_in[static_cast<std::size_t>(tid) * width + e]);
}

/// tid = k < count. Column ids[k] of dst_out = column ids[k] of src_in (both (width, n)).
template <class T>
SP_HD void copy_columns_thread(int tid, int n, int width, int count, const int* ids_in, const T* src_in, T* dst_out) {
  if (tid >= count) return;
  const std::size_t i = static_cast<std::size_t>(listed_instance(ids_in, tid));
  for (int e = 0; e < width; ++e) dst_out[static_cast<std::size_t>(e) * n + i] = src_in[static_cast<std::size_t>(e) * n + i];
}

/// tid = k < count. The status, status step (a batch step) and status reason of instance
/// ids[k] into rows; a null output is skipped.
SP_HD void gather_status_thread(int tid, int count, const int* ids_in, const std::int8_t* status_in,
                                const std::int64_t* status_step_in, const std::int8_t* reason_in,
                                std::int8_t* status_out, std::int64_t* status_step_out, std::int8_t* reason_out) {
  if (tid >= count) return;
  const int i = listed_instance(ids_in, tid);
  if (status_out) status_out[tid] = status_in[i];
  if (status_step_out) status_step_out[tid] = status_step_in[i];
  if (reason_out) reason_out[tid] = reason_in[i];
}

/// tid = k < count. Instance ids[k]'s status = status_in[k] (when status_in is set) and
/// status step = step_in[k] (step_is_delta 0) or += step_in[k] (1), when step_in is set.
/// With status_in set and reason_inout not null, its reason becomes reason_after_set
/// (formulas/runaway.hpp) of reason_in[k] (null: none given).
SP_HD void scatter_status_thread(int tid, int count, const int* ids_in, const std::int8_t* status_in,
                                 const std::int64_t* step_in, const std::int8_t* reason_in, int step_is_delta,
                                 std::int8_t* status_out, std::int64_t* status_step_inout, std::int8_t* reason_inout) {
  if (tid >= count) return;
  const int i = listed_instance(ids_in, tid);
  if (status_in) status_out[i] = status_in[tid];
  if (step_in) status_step_inout[i] = step_is_delta ? status_step_inout[i] + step_in[tid] : step_in[tid];
  if (status_in && reason_inout)
    reason_inout[i] = reason_after_set(status_in[tid], reason_inout[i], reason_in != nullptr,
                                       reason_in ? reason_in[tid] : kReasonNone);
}

/// tid = k < count. Reset of instance ids[k]: its status and reason = its assembly's
/// (status0_in, reason0_in), its status step = batch_step (the batch step of its new
/// step 0).
SP_HD void reset_status_thread(int tid, int count, const int* ids_in, const std::int8_t* status0_in,
                               const std::int8_t* reason0_in, std::int64_t batch_step, std::int8_t* status_out,
                               std::int64_t* status_step_out, std::int8_t* reason_out) {
  if (tid >= count) return;
  const int i = listed_instance(ids_in, tid);
  status_out[i] = status0_in[i];
  reason_out[i] = reason0_in[i];
  status_step_out[i] = batch_step;
}

}  // namespace simphant::batch
