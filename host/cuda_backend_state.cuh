#pragma once
// CudaBackend<T>'s per-instance state calls (Backend: get_state, set_state, reset,
// set_models, set_inputs(ids, ...), the views), included by cuda_backend_fp64.cu and
// cuda_backend_fp32.cu after cuda_backend_impl.cuh. The listed instances' columns move
// through the kernels of kernels/instance_state.hpp; rows travel between the host and
// the device through pinned staging (staging_: instance ids and status rows,
// host/staging_buffers.cuh; frame_host_ for states, inputs_host_) and device staging
// (staging_'s rows, y_stage_ for states: scratch between steps, inputs_rows_). An
// instance's own clock is the host-side offset_: instance step = batch step - offset_[i];
// the device keeps status steps as batch steps.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_backend_impl.cuh"
#include "instance_state.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/sim/joint_coordinates.hpp"

namespace simphant::cuda {

template <class T>
void CudaBackend<T>::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                               std::int64_t* status_steps, std::int8_t* reasons) const {
  ids_.check("get_state", ids, count);
  if (count == 0) return;
  const int n = n_, ny = 13 * N_;
  const bool want_status = status || status_steps || reasons;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  if (y) {
    const T* Y = Y_.get();
    T* rows = y_stage_.get();
    x.launch("gather_state", count, [=] __host__ __device__(int tid) { batch::gather_rows_thread(tid, n, ny, count, d_ids, Y, rows); });
    check(cudaMemcpyAsync(frame_host_.get(), rows, static_cast<std::size_t>(count) * ny * sizeof(T), cudaMemcpyDeviceToHost,
                          stream_),
          "cudaMemcpyAsync (states to pinned host memory)", batch_);
    frame_step_ = -1;  // frame_host_ now holds these rows
  }
  if (want_status) staging_.gather_status(count, d_ids, status_.get(), status_step_.get(), status_reason_.get());
  staging_.staged();
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (get_state)", batch_);
  for (int k = 0; k < count; ++k) {
    const std::size_t i = static_cast<std::size_t>(InstanceIds::at(ids, k));
    if (y)
      for (int e = 0; e < ny; ++e)
        y[static_cast<std::size_t>(k) * ny + e] = static_cast<double>(frame_host_.get()[static_cast<std::size_t>(k) * ny + e]);
    if (steps) steps[k] = steps_ - offset_[i];
    if (status) status[k] = staging_.status_host.get()[k];
    if (status_steps) status_steps[k] = staging_.status_step_host.get()[k] - offset_[i];
    if (reasons) reasons[k] = staging_.reason_host.get()[k];
  }
}

template <class T>
void CudaBackend<T>::set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                               const std::int8_t* status, const std::int64_t* status_steps,
                               const std::int8_t* reasons) {
  ids_.check("set_state", ids, count);
  check_status_reasons("set_state", count, status, reasons);
  if (count == 0) return;
  const int n = n_, ny = 13 * N_;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  if (y) {
    T* staging = frame_host_.get();
    for (std::size_t e = 0; e < static_cast<std::size_t>(count) * ny; ++e) staging[e] = static_cast<T>(y[e]);
    frame_step_ = -1;
    T* rows = y_stage_.get();
    check(cudaMemcpyAsync(rows, staging, static_cast<std::size_t>(count) * ny * sizeof(T), cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (states from pinned host memory)", batch_);
    T* Y = Y_.get();
    x.launch("scatter_state", count, [=] __host__ __device__(int tid) {
      batch::scatter_rows_thread(tid, n, ny, count, d_ids, static_cast<const T*>(rows), Y);
    });
  }
  // Status steps: the device keeps batch steps (instance step + offset). Without new
  // status steps, a change of the instance's steps (its offset) shifts them, so that
  // the instance's status step stays as it was.
  const bool write_steps = status_steps || steps;
  if (status || write_steps) {
    for (int k = 0; k < count; ++k) {
      const std::size_t i = static_cast<std::size_t>(InstanceIds::at(ids, k));
      const std::int64_t offset = steps ? steps_ - steps[k] : offset_[i];
      if (status) staging_.status_host.get()[k] = status[k];
      if (reasons) staging_.reason_host.get()[k] = reasons[k];
      if (write_steps) staging_.status_step_host.get()[k] = status_steps ? status_steps[k] + offset : offset - offset_[i];
    }
    staging_.scatter_status(count, d_ids, status != nullptr, write_steps, reasons != nullptr, status_steps ? 0 : 1,
                            status_.get(), status_step_.get(), status_reason_.get());
  }
  // dopri5: a new state or clock starts the instance's integration afresh at the next
  // advance (set_integrator_state after this call restores a checkpoint's instead).
  if (y || steps) restart_adaptive(d_ids, count);
  staging_.staged();
  if (steps) {
    for (int k = 0; k < count; ++k) offset_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = steps_ - steps[k];
    upload_clock_offsets();
  }
  frame_step_ = -1;
}

template <class T>
void CudaBackend<T>::reset(const int* ids, int count) {
  ids_.check("reset", ids, count);
  if (count == 0) return;
  const int n = n_, ny = 13 * N_;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  staging_.staged();
  const T* Y0 = Y0_.get();
  T* Y = Y_.get();
  x.launch("reset_state", count, [=] __host__ __device__(int tid) { batch::copy_columns_thread(tid, n, ny, count, d_ids, Y0, Y); });
  const std::int8_t* st0 = status0_.get();
  const std::int8_t* re0 = reason0_.get();
  std::int8_t* st = status_.get();
  std::int64_t* ss = status_step_.get();
  std::int8_t* re = status_reason_.get();
  const std::int64_t now = steps_;  // the device's step count when this runs (stream order)
  x.launch("reset_status", count, [=] __host__ __device__(int tid) {
    batch::reset_status_thread(tid, count, d_ids, st0, re0, now, st, ss, re);
  });
  for (int k = 0; k < count; ++k) offset_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = steps_;
  upload_clock_offsets();
  batch::enqueue_reduce_clear(x, mv_, b_, d_ids, count);  // reductions over time
  restart_adaptive(d_ids, count);  // dopri5: afresh from the initial state at the next advance
  frame_step_ = -1;
}

template <class T>
void CudaBackend<T>::recapture_graph() {
  synchronize();
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (graph_) cudaGraphDestroy(graph_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
  graph_ready_ = false;
  graph_note_.clear();
  if (want_graph_) capture_graph();
}

template <class T>
void CudaBackend<T>::set_models(const int* ids, int count, const Model* models) {
  ids_.check("set_models", ids, count);
  check_models_join(models_->front(), models, count, [ids](int k) { return InstanceIds::at(ids, k); });
  if (count == 0) return;
  const int n = n_, ny = 13 * N_;
  const std::vector<Model> fresh(models, models + count);
  const AssembledBatch assembled = assemble_batch(fresh, count, 0);
  // Parameters: the shared ones that a new model changes become per instance. Their
  // device array is allocated first, so that a failure changes nothing.
  std::vector<std::vector<double>> params;
  params.reserve(static_cast<std::size_t>(count));
  std::vector<char> becomes_varied(static_cast<std::size_t>(packed_.n_params), 0);
  int new_rows = 0;
  for (int k = 0; k < count; ++k) {
    params.push_back(batch::flatten_params(models[k]));
    for (int p = 0; p < packed_.n_params; ++p) {
      const T value = static_cast<T>(params.back()[static_cast<std::size_t>(p)]);
      if (packed_.param_slot[static_cast<std::size_t>(p)] < 0 && !becomes_varied[static_cast<std::size_t>(p)] &&
          std::memcmp(&value, &packed_.param_shared[static_cast<std::size_t>(p)], sizeof(T)) != 0) {
        becomes_varied[static_cast<std::size_t>(p)] = 1;
        ++new_rows;
      }
    }
  }
  DeviceArray<T> grown;
  if (new_rows > 0)
    grown = DeviceArray<T>(packed_.param_varied.size() + static_cast<std::size_t>(new_rows) * n, batch_);
  for (int k = 0; k < count; ++k) batch::set_instance_params(packed_, InstanceIds::at(ids, k), params[static_cast<std::size_t>(k)]);
  synchronize();  // queued steps read the parameters
  if (new_rows > 0) {
    // param_varied moves: the step's graph, which holds its address, is captured again below.
    param_varied_ = std::move(grown);
    mv_.param_varied = param_varied_.get();
    check(cudaMemcpyAsync(param_slot_.get(), packed_.param_slot.data(), packed_.param_slot.size() * sizeof(int),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (parameter slots)", batch_);
  }
  // From pageable memory: the copy is staged before the call returns, in stream order.
  if (!packed_.param_varied.empty())
    check(cudaMemcpyAsync(param_varied_.get(), packed_.param_varied.data(), packed_.param_varied.size() * sizeof(T),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (per-instance parameters)", batch_);
  if (new_rows > 0) recapture_graph();
  // Initial states and assembly status of the listed instances (rows -> Y0 columns).
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  T* staging = frame_host_.get();
  for (std::size_t e = 0; e < static_cast<std::size_t>(count) * ny; ++e) staging[e] = static_cast<T>(assembled.Y[e]);
  frame_step_ = -1;
  T* rows = y_stage_.get();
  check(cudaMemcpyAsync(rows, staging, static_cast<std::size_t>(count) * ny * sizeof(T), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (initial states)", batch_);
  T* Y0 = Y0_.get();
  x.launch("scatter_initial_state", count, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, ny, count, d_ids, static_cast<const T*>(rows), Y0);
  });
  std::memcpy(staging_.status_host.get(), assembled.status.data(), static_cast<std::size_t>(count));
  std::int8_t* st_rows = staging_.status_rows.get();
  check(cudaMemcpyAsync(st_rows, staging_.status_host.get(), static_cast<std::size_t>(count), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (assembly status)", batch_);
  std::int8_t* st0 = status0_.get();
  x.launch("scatter_assembly_status", count, [=] __host__ __device__(int tid) {
    batch::scatter_status_thread(tid, count, d_ids, static_cast<const std::int8_t*>(st_rows), nullptr, nullptr, 0, st0,
                                 nullptr, nullptr);
  });
  // Their assembly reasons and runaway coefficients (rows (count, 2) -> columns of (2, n)).
  std::memcpy(staging_.reason_host.get(), assembled.reason.data(), static_cast<std::size_t>(count));
  std::int8_t* re_rows = staging_.reason_rows.get();
  check(cudaMemcpyAsync(re_rows, staging_.reason_host.get(), static_cast<std::size_t>(count), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (assembly status reason)", batch_);
  std::int8_t* re0 = reason0_.get();
  x.launch("scatter_assembly_reason", count, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, 1, count, d_ids, static_cast<const std::int8_t*>(re_rows), re0);
  });
  T* runaway_staging = staging + static_cast<std::size_t>(count) * ny;  // frame_host_ holds (13 N + 3) n >= this
  for (std::size_t e = 0; e < 2 * static_cast<std::size_t>(count); ++e) runaway_staging[e] = static_cast<T>(assembled.runaway[e]);
  T* ra_rows = runaway_rows_.get();
  check(cudaMemcpyAsync(ra_rows, runaway_staging, 2 * static_cast<std::size_t>(count) * sizeof(T), cudaMemcpyHostToDevice,
                        stream_),
        "cudaMemcpyAsync (runaway coefficients)", batch_);
  T* ra = runaway_.get();
  x.launch("scatter_runaway", count, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, 2, count, d_ids, static_cast<const T*>(ra_rows), ra);
  });
  staging_.staged();
  for (int k = 0; k < count; ++k) assembly_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = assembled.results[static_cast<std::size_t>(k)];
  // Actuator inputs: each actuator's model value, as at creation.
  if (n_inputs_ > 0) {
    std::vector<double> u(static_cast<std::size_t>(count) * n_inputs_, 0.0);
    for (int k = 0; k < count; ++k)
      for (const ForceElement& f : models[k].forces)
        if (f.type == ForceType::Actuator) u[static_cast<std::size_t>(k) * n_inputs_ + f.input_index] = f.value;
    set_inputs(ids, count, u.data());
  }
  reset(ids, count);
}

template <class T>
void CudaBackend<T>::set_inputs(const int* ids, int count, const double* u) {
  ids_.check("set_inputs", ids, count);
  if (n_inputs_ == 0 || count == 0) return;
  const int n = n_, n_in = n_inputs_;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  staging_.wait();
  std::memcpy(inputs_host_.get(), u, static_cast<std::size_t>(count) * n_in * sizeof(double));
  double* rows = inputs_rows_.get();
  check(cudaMemcpyAsync(rows, inputs_host_.get(), static_cast<std::size_t>(count) * n_in * sizeof(double),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (inputs)", batch_);
  const int* d_ids = staging_.stage_ids(ids, count);
  staging_.staged();
  T* inputs = inputs_.get();
  x.launch("inputs_rows", count, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, n_in, count, d_ids, static_cast<const double*>(rows), inputs);
  });
  frame_step_ = -1;
}

template <class T>
int CudaBackend<T>::n_joint_coordinates() const {
  const Model& m0 = models_->front();
  return m0.robot ? m0.n_joints() : 0;
}

template <class T>
void CudaBackend<T>::read_joint_state(double* q, double* qd, double* tau) const {
  const int nc = n_joint_coordinates();
  if (nc == 0) return;
  const int ny = 13 * N_, n_in = n_inputs_;
  std::vector<double> Y(static_cast<std::size_t>(n_) * ny);
  get_state(nullptr, n_, Y.data(), nullptr, nullptr, nullptr, nullptr);
  // The inputs, (n_inputs, n) in T on the device.
  std::vector<T> U(static_cast<std::size_t>(n_) * n_in);
  if (n_in > 0) {
    check(cudaMemcpyAsync(U.data(), inputs_.get(), U.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (inputs)", batch_);
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (inputs)", batch_);
  }
  std::vector<double> u(static_cast<std::size_t>(n_in));
  for (int i = 0; i < n_; ++i) {
    const Model& m = (*models_)[models_->size() == 1 ? 0 : static_cast<std::size_t>(i)];
    const std::size_t o = static_cast<std::size_t>(i) * nc;
    const double* Yi = Y.data() + static_cast<std::size_t>(i) * ny;
    dae_joint_coordinates(m, Yi, q + o, qd + o);
    // The instance's inputs as a row (the device keeps them instance-fastest), then the
    // actuator forces as the CPU backend computes them (the joint law's unwrapped q).
    for (int k = 0; k < n_in; ++k) u[static_cast<std::size_t>(k)] = static_cast<double>(U[static_cast<std::size_t>(k) * n_ + i]);
    dae_joint_actuator_forces(m, Yi, u.data(), tau + o);
  }
}

template <class T>
ArrayView CudaBackend<T>::state_view() {
  frame_step_ = -1;  // the caller may write through the view
  return matrix_view(Y_.get(), n_, 13 * N_, true, true);
}

template <class T>
ArrayView CudaBackend<T>::inputs_view() {
  frame_step_ = -1;
  return matrix_view(inputs_.get(), n_, n_inputs_, true, true);
}

}  // namespace simphant::cuda
