#pragma once
// The definitions of CudaBackend<T> (cuda_backend.cuh), instantiated once per precision
// in cuda_backend_fp64.cu and cuda_backend_fp32.cu, so that the two heavy device
// compilations run in parallel.
#include "cuda_backend.cuh"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "batch_step.hpp"
#include "cuda_exec.cuh"
#include "inputs.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant::cuda {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Device memory per instance. schur_values: the entries of one instance's Schur matrix
/// as stored: m^2 (cuda, dense for cuSOLVER) or the pattern's n_values (cuda-fused).
/// sides: of the constraint elements (Model::element_sides), 6 sides Jacobian columns a row.
template <class T>
std::size_t bytes_per_instance(int N, int J, int D, int m, int n_inputs, int n_varied, std::size_t schur_values,
                               bool fused, int sides) {
  const std::size_t ny = 13 * static_cast<std::size_t>(N);
  const std::size_t values = 6 * ny                                 // Y, y_stage, k1..k4
                             + (2 + 6 * static_cast<std::size_t>(sides)) * m  // phi, jac (6 sides), gamma*
                             + 6 * static_cast<std::size_t>(N)      // Q
                             + schur_values + 5 * static_cast<std::size_t>(m)  // C, rhs, lambda, floor, diag, refine
                             + 10  // refine_worst, refine_worst_time, the rank watch (3), saved (5)
                             + n_inputs + 1 + n_varied              // inputs, violation, parameters
                             + ny + 6 * static_cast<std::size_t>(J) + 3 + D  // frame
                             + 4                                    // runaway coefficients and their staging
                             + 1;                                   // instance time
  // + C and rhs pointers (cuda only), info, fail, recoveries, refine_unconverged, the saved records'
  // 3 ints, status, status step,
  // status reason, inputs staging (device and pinned); the per-instance state calls:
  // initial state Y0, status and reason, staging of ids (device and pinned), statuses,
  // status steps and reasons (device and pinned)
  return (values + ny) * sizeof(T) + (fused ? 0 : 2 * sizeof(T*)) + 7 * sizeof(int) + 2 + 2 * sizeof(std::int64_t) +
         2 * sizeof(double) * n_inputs + 2 + 2 * sizeof(int) + 3 + sizeof(std::int64_t);
}

/// bytes_per_instance for `model` on the path (fused or not) in T.
template <class T>
std::size_t bytes_per_instance(const Model& model, int n_varied, bool fused) {
  const std::size_t schur = fused ? static_cast<std::size_t>(schur_pattern_of(model).n_values)
                                  : static_cast<std::size_t>(model.n_rows) * model.n_rows;
  // The reductions over time a run accumulates (output.reductions, and power for the
  // energy balance): their accumulators and the copy a read fills, in double
  // (host/cuda_backend_reductions.cuh).
  const ReductionLayout red = reduction_layout_of(run_reduction_quantities(model, "output.reductions"), model);
  const std::size_t reductions = red.any() ? 2 * sizeof(double) * static_cast<std::size_t>(red.size()) : 0;
  // dopri5 (host/cuda_backend_dopri5.cuh): y, k5..k7, the dense-output coefficients (5)
  // and the copy of Y (13 N each), the inputs it ran with, the (n) scalars, two counters
  // and the flag byte.
  const std::size_t ny = 13 * static_cast<std::size_t>(model.n_bodies());
  const std::size_t adaptive =
      model.solver.integrator == Integrator::Dopri5
          ? ((10 * ny + static_cast<std::size_t>(model.n_inputs) + batch::kAdaptiveScalars) * sizeof(T) +
             2 * sizeof(std::int64_t) + 1)
          : 0;
  return bytes_per_instance<T>(model.n_bodies(), model.n_joints(), model.n_drivers(), model.n_rows, model.n_inputs,
                               n_varied, schur, fused, model.element_sides()) +
         reductions + adaptive;
}

/// Throws BackendError when n instances do not fit on device 0 (see cuda_check_fits).
inline void check_fits(const Model& m0, int n, int n_varied, std::size_t per, const std::string& batch) {
  // Thread indices are int (n x bodies, joints, inputs, or rows for the identity fill);
  // array indices are size_t.
  const long long widest = std::max({static_cast<long long>(m0.n_bodies()), static_cast<long long>(m0.n_joints()),
                                     static_cast<long long>(m0.n_inputs), static_cast<long long>(m0.n_rows), 1LL});
  const long long max_by_index = (2147483647LL - 1024) / widest;
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaSetDevice(0), "cudaSetDevice(0)", batch);
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", batch);
  // 10 % of the free memory is left to cuSOLVER, the CUDA graph and the runtime.
  const double usable = 0.9 * static_cast<double>(free_bytes);
  const long long max_by_memory = static_cast<long long>(usable / static_cast<double>(per));
  const long long fit = std::min(max_by_index, max_by_memory);
  if (n <= fit) return;
  char msg[640];
  std::snprintf(msg, sizeof msg,
                "backend 'cuda': %s needs about %.2f GiB of device memory (%zu bytes per instance); device 0 has "
                "%.2f GiB free%s: at most %lld instances fit, use --instances %lld or fewer",
                batch.c_str(), static_cast<double>(per) * n / kGiB, per, free_bytes / kGiB,
                max_by_index < max_by_memory ? " and the kernels index threads with int" : "", fit, fit);
  throw BackendError(msg);
}

inline std::string batch_name(const Model& m0, int n, const std::string& precision, bool fused) {
  return "the batch of " + std::to_string(n) + " instances of '" + m0.name + "' (" + precision +
         (fused ? ", cuda-fused" : "") + ")";
}

}  // namespace

template <class T>
CudaBackend<T>::CudaBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                            AssembledBatch assembled, bool use_graph, bool fused)
    : models_(std::move(models)), n_(n_instances), want_graph_(use_graph), fused_(fused),
      offset_(static_cast<std::size_t>(n_instances), 0), ids_(n_instances) {
  const Model& m0 = models_->front();
  N_ = m0.n_bodies();
  J_ = m0.n_joints();
  D_ = m0.n_drivers();
  m_ = m0.n_rows;
  n_inputs_ = m0.n_inputs;
  dt_ = m0.solver.dt;
  integrator_ = m0.solver.integrator;
  // The backend rules (sim/backend_rules.hpp), as Simulator::create checks them first.
  if (const std::optional<BackendRefusal> r =
          refuse_backend_settings({fused_ ? "cuda-fused" : "cuda", sizeof(T) == 8 ? "fp64" : "fp32", integrator_}))
    throw std::invalid_argument(r->setting + ": " + r->reason);
  batch_ = batch_name(m0, n_, sizeof(T) == 8 ? "fp64" : "fp32", fused_);
  assembly_ = assembled.results;
  packed_ = batch::pack_models<T>(*models_, n_);
  pattern_ = schur_pattern_of(m0);
  check_fits(m0, n_, packed_.n_varied(), bytes_per_instance<T>(m0, packed_.n_varied(), fused_), batch_);
  try {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", batch_);
    check(cusolverDnCreate(&solver_), "cusolverDnCreate", batch_);
    check(cusolverDnSetStream(solver_, stream_), "cusolverDnSetStream", batch_);
    upload_model();
    allocate();
    allocate_adaptive();
    upload_state(assembled);
    // The uploads above ran on the legacy default stream; stream_ is non-blocking.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the uploads)", batch_);
    if (want_graph_) capture_graph();
  } catch (...) {
    release();
    throw;
  }
}

template <class T>
void CudaBackend<T>::release() noexcept {
  if (stream_) cudaStreamSynchronize(stream_);
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (graph_) cudaGraphDestroy(graph_);
  if (solver_) cusolverDnDestroy(solver_);
  if (stream_) cudaStreamDestroy(stream_);
  graph_exec_ = nullptr;
  graph_ = nullptr;
  solver_ = nullptr;
  stream_ = nullptr;
  staging_.release();
}

template <class T>
CudaBackend<T>::~CudaBackend() {
  release();
}

template <class T>
std::string CudaBackend<T>::details() const {
  cudaDeviceProp prop{};
  const bool ok = cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  if (!ok) cudaGetLastError();  // do not leave the error for the next launch check
  return std::string(name()) + " on " + (ok ? prop.name : "device 0") +
         (fused_ ? ", one thread per instance, topology-ordered block Cholesky (" + std::to_string(pattern_.n_values) +
                       " values, " + std::to_string(pattern_.n_fill_blocks) + " fill blocks)"
                 : ", per-joint kernels + cuSOLVER batched Cholesky") +
         (graph_ready_ ? ", one step replayed as a CUDA graph"
                       : std::string(", plain kernel launches") + (graph_note_.empty() ? "" : " (graph capture failed: " + graph_note_ + ")"));
}

template <class T>
void CudaBackend<T>::upload_model() {
  const batch::PackedModel<T>& p = packed_;
  joint_type_ = DeviceArray<int>(p.joint_type, batch_);
  joint_body_ = DeviceArray<int>(p.joint_body, batch_);
  row_offset_ = DeviceArray<int>(p.row_offset, batch_);
  coupling_start_ = DeviceArray<int>(p.coupling_start, batch_);
  coupling_ = DeviceArray<int>(p.coupling, batch_);
  body_joint_start_ = DeviceArray<int>(p.body_joint_start, batch_);
  body_joint_ = DeviceArray<int>(p.body_joint, batch_);
  param_slot_ = DeviceArray<int>(p.param_slot, batch_);
  driver_ = DeviceArray<int>(p.driver, batch_);
  mimic_ = DeviceArray<int>(p.mimic, batch_);
  law_type_ = DeviceArray<int>(p.law_type, batch_);
  law_start_ = DeviceArray<int>(p.law_start, batch_);
  removed_mask_ = DeviceArray<int>(p.removed_mask, batch_);
  force_ = DeviceArray<batch::ForceTopo>(p.force, batch_);
  param_shared_ = DeviceArray<T>(p.param_shared, batch_);
  param_varied_ = DeviceArray<T>(p.param_varied, batch_);
  mv_ = p.host_view();  // sizes, then every pointer replaced by its device copy
  mv_.joint_type = joint_type_.get();
  mv_.joint_body = joint_body_.get();
  mv_.row_offset = row_offset_.get();
  mv_.removed_mask = removed_mask_.get();
  mv_.coupling_start = coupling_start_.get();
  mv_.coupling = coupling_.get();
  mv_.body_joint_start = body_joint_start_.get();
  mv_.body_joint = body_joint_.get();
  mv_.force = force_.get();
  mv_.param_shared = param_shared_.get();
  mv_.param_slot = param_slot_.get();
  mv_.param_varied = param_varied_.get();
  mv_.driver = driver_.get();
  mv_.mimic = mimic_.get();
  mv_.law_type = law_type_.get();
  mv_.law_start = law_start_.get();
  // The Schur pattern (cuda-fused): each array uploaded, the view pointed at the copies.
  const SchurPattern& sp = pattern_;
  const std::vector<int>* arrays[] = {&sp.joint_at,  &sp.position,  &sp.pos_rows,     &sp.pos_row0, &sp.col_start,
                                      &sp.block_row, &sp.block_col, &sp.block_value, &sp.update_start, &sp.update};
  pattern_arrays_.clear();
  for (const std::vector<int>* a : arrays) pattern_arrays_.emplace_back(*a, batch_);
  P_ = sp.view();
  const int** fields[] = {&P_.joint_at,  &P_.position,  &P_.pos_rows,    &P_.pos_row0,     &P_.col_start,
                          &P_.block_row, &P_.block_col, &P_.block_value, &P_.update_start, &P_.update};
  for (std::size_t f = 0; f < pattern_arrays_.size(); ++f) *fields[f] = pattern_arrays_[f].get();
}

template <class T>
void CudaBackend<T>::allocate() {
  const std::size_t n = n_, ny = 13 * static_cast<std::size_t>(N_), m = m_;
  Y_ = DeviceArray<T>(ny * n, batch_);
  y_stage_ = DeviceArray<T>(ny * n, batch_);
  for (auto& k : k_) k = DeviceArray<T>(ny * n, batch_);
  phi_ = DeviceArray<T>(m * n, batch_);
  jac_ = DeviceArray<T>(static_cast<std::size_t>(packed_.jac_cols()) * m * n, batch_);
  gamma_star_ = DeviceArray<T>(m * n, batch_);
  Q_ = DeviceArray<T>(6 * static_cast<std::size_t>(N_) * n, batch_);
  C_ = DeviceArray<T>((fused_ ? static_cast<std::size_t>(pattern_.n_values) : m * m) * n, batch_);
  rhs_ = DeviceArray<T>(m * n, batch_);
  lambda_ = DeviceArray<T>(m * n, batch_);
  floor_ = DeviceArray<T>(m * n, batch_);
  diag_ = DeviceArray<T>(m * n, batch_);
  recoveries_ = DeviceArray<int>(n, batch_);
  refine_ = DeviceArray<T>(m * n, batch_);
  refine_worst_ = DeviceArray<T>(n, batch_);
  refine_worst_time_ = DeviceArray<T>(n, batch_);
  pivot_min_ = DeviceArray<T>(n, batch_);
  pivot_min_time_ = DeviceArray<T>(n, batch_);
  step_pivot_ = DeviceArray<T>(n, batch_);
  for (DeviceArray<T>* a : {&saved_step_pivot_, &saved_pivot_min_, &saved_pivot_min_time_, &saved_refine_worst_,
                            &saved_refine_worst_time_})
    *a = DeviceArray<T>(n, batch_);
  for (DeviceArray<int>* a : {&saved_refine_unconverged_, &saved_recoveries_, &saved_fail_}) *a = DeviceArray<int>(n, batch_);
  refine_unconverged_ = DeviceArray<int>(n, batch_);
  inputs_ = DeviceArray<T>(static_cast<std::size_t>(n_inputs_) * n, batch_);
  violation_ = DeviceArray<T>(n, batch_);
  const batch::FrameLayout fl(n_, N_, J_, D_);
  frame_ = DeviceArray<T>(fl.size, batch_);
  info_ = DeviceArray<int>(n, batch_);
  fail_ = DeviceArray<int>(n, batch_);
  potrs_info_ = DeviceArray<int>(1, batch_);
  status_ = DeviceArray<std::int8_t>(n, batch_);
  status_reason_ = DeviceArray<std::int8_t>(n, batch_);
  runaway_ = DeviceArray<T>(2 * n, batch_);
  runaway_rows_ = DeviceArray<T>(2 * n, batch_);
  reason0_ = DeviceArray<std::int8_t>(n, batch_);
  status_step_ = DeviceArray<std::int64_t>(n, batch_);
  step_ = DeviceArray<std::int64_t>(1, batch_);
  clock_offset_ = DeviceArray<std::int64_t>(n, batch_);
  time_ = DeviceArray<T>(n, batch_);
  inputs_rows_ = DeviceArray<double>(static_cast<std::size_t>(n_inputs_) * n, batch_);
  frame_host_ = PinnedArray<T>(fl.size, batch_);
  inputs_host_ = PinnedArray<double>(static_cast<std::size_t>(n_inputs_) * n, batch_);
  Y0_ = DeviceArray<T>(ny * n, batch_);
  status0_ = DeviceArray<std::int8_t>(n, batch_);
  staging_.allocate(stream_, batch_, n);
  if (!fused_) {  // pointer arrays of the batched Cholesky
    std::vector<T*> cp(n), rp(n);
    for (std::size_t i = 0; i < n; ++i) {
      cp[i] = C_.get() + i * m * m;
      rp[i] = rhs_.get() + i * m;
    }
    C_ptrs_ = DeviceArray<T*>(cp, batch_);
    rhs_ptrs_ = DeviceArray<T*>(rp, batch_);
  }
  if (m > 0 && !fused_) {
    check(cudaMemsetAsync(rhs_.get(), 0, m * n * sizeof(T), stream_), "cudaMemsetAsync", batch_);
    // Identity matrices, so that the warm-up factorisation before graph capture succeeds.
    CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
    batch::enqueue_identity(x, n_, m_, C_.get());
  }
  check(cudaMemsetAsync(info_.get(), 0, n * sizeof(int), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(fail_.get(), 0, n * sizeof(int), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(recoveries_.get(), 0, n * sizeof(int), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(refine_worst_.get(), 0, n * sizeof(T), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(refine_worst_time_.get(), 0, n * sizeof(T), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(refine_unconverged_.get(), 0, n * sizeof(int), stream_), "cudaMemsetAsync", batch_);
  {  // the rank watch and the step's pivot start at +infinity (no factorisation yet)
    const std::vector<T> none(n, no_schur_pivot<T>());
    for (DeviceArray<T>* a : {&pivot_min_, &step_pivot_})
      check(cudaMemcpy(a->get(), none.data(), n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy (pivot watch)", batch_);
  }
  check(cudaMemsetAsync(pivot_min_time_.get(), 0, n * sizeof(T), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(status_step_.get(), 0, n * sizeof(std::int64_t), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(step_.get(), 0, sizeof(std::int64_t), stream_), "cudaMemsetAsync", batch_);
  check(cudaMemsetAsync(clock_offset_.get(), 0, n * sizeof(std::int64_t), stream_), "cudaMemsetAsync", batch_);
  b_.Y = Y_.get();
  b_.y_stage = y_stage_.get();
  for (int s = 0; s < 4; ++s) b_.k[s] = k_[s].get();
  b_.phi = phi_.get();
  b_.jac = jac_.get();
  b_.gamma_star = gamma_star_.get();
  b_.Q = Q_.get();
  b_.C = C_.get();
  b_.rhs = rhs_.get();
  b_.lambda = lambda_.get();
  b_.floor = floor_.get();
  b_.diag = diag_.get();
  b_.recoveries = recoveries_.get();
  b_.refine = refine_.get();
  b_.refine_worst = refine_worst_.get();
  b_.refine_worst_time = refine_worst_time_.get();
  b_.refine_unconverged = refine_unconverged_.get();
  b_.pivot_min = pivot_min_.get();
  b_.pivot_min_time = pivot_min_time_.get();
  b_.step_pivot = step_pivot_.get();
  b_.saved = {saved_step_pivot_.get(),   saved_pivot_min_.get(),         saved_pivot_min_time_.get(),
              saved_refine_worst_.get(), saved_refine_worst_time_.get(), saved_refine_unconverged_.get(),
              saved_recoveries_.get(),   saved_fail_.get()};
  b_.C_ptrs = C_ptrs_.get();
  b_.rhs_ptrs = rhs_ptrs_.get();
  b_.info = info_.get();
  b_.fail = fail_.get();
  b_.inputs = inputs_.get();
  b_.violation = violation_.get();
  b_.status = status_.get();
  b_.status_step = status_step_.get();
  b_.status_reason = status_reason_.get();
  b_.runaway = runaway_.get();
  b_.step = step_.get();
  b_.frame = frame_.get();
  b_.lambda_soa = fused_ ? 1 : 0;
  b_.time = time_.get();
  b_.clock_offset = clock_offset_.get();
}

template <class T>
void CudaBackend<T>::upload_state(const AssembledBatch& assembled) {
  const std::size_t n = n_, ny = 13 * static_cast<std::size_t>(N_);
  std::vector<T> y(ny * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < ny; ++e) y[e * n + i] = static_cast<T>(assembled.Y[i * ny + e]);
  check(cudaMemcpy(Y_.get(), y.data(), y.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  check(cudaMemcpy(Y0_.get(), y.data(), y.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  check(cudaMemcpy(status_.get(), assembled.status.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  check(cudaMemcpy(status0_.get(), assembled.status.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  check(cudaMemcpy(status_reason_.get(), assembled.reason.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  check(cudaMemcpy(reason0_.get(), assembled.reason.data(), n, cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  // Runaway coefficients (n, 2) on the host -> (2, n) structure of arrays in T.
  std::vector<T> runaway(2 * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < 2; ++e) runaway[e * n + i] = static_cast<T>(assembled.runaway[2 * i + e]);
  check(cudaMemcpy(runaway_.get(), runaway.data(), runaway.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy", batch_);
  // Default actuator inputs: each instance's model value.
  std::vector<double> u(static_cast<std::size_t>(n_inputs_) * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (const ForceElement& f : (*models_)[models_->size() == 1 ? 0 : i].forces)
      if (f.type == ForceType::Actuator) u[i * n_inputs_ + f.input_index] = f.value;
  if (n_inputs_ > 0) set_inputs(u.data());
  synchronize();
}

template <class T>
void CudaBackend<T>::capture_graph() {
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  // Warm up cuSOLVER outside the capture (first calls may set up internal state).
  if (m_ > 0 && !fused_) {
    x.cholesky_factor(m_, b_.C_ptrs, b_.info, n_);
    x.cholesky_solve(m_, b_.C_ptrs, b_.rhs_ptrs, n_);
  }
  synchronize();
  // cuSOLVER's dense routines are not documented as capture-safe: when the capture or
  // its instantiation fails, the step runs as plain launches (details() says which).
  check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", batch_);
  bool captured = true;
  try {
    batch::enqueue_step(x, mv_, b_, fused_ ? &P_ : nullptr);
  } catch (const BackendError& e) {
    captured = false;
    graph_note_ = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph);
  if (captured && end == cudaSuccess && graph &&
      cudaGraphInstantiate(&graph_exec_, graph, 0) == cudaSuccess) {
    graph_ = graph;
    graph_ready_ = true;
    return;
  }
  if (captured) graph_note_ = std::string("capture ended with ") + cudaGetErrorName(end);
  if (graph) cudaGraphDestroy(graph);
  graph_exec_ = nullptr;
  cudaGetLastError();  // clear the capture error
  synchronize();
}

template <class T>
void CudaBackend<T>::set_inputs(const double* u) {
  if (n_inputs_ == 0) return;
  // The pinned staging buffer may still be read by the previous set_inputs' copy.
  staging_.wait();
  std::memcpy(inputs_host_.get(), u, inputs_host_.size() * sizeof(double));
  check(cudaMemcpyAsync(inputs_rows_.get(), inputs_host_.get(), inputs_host_.size() * sizeof(double),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (inputs)", batch_);
  staging_.staged();
  set_inputs_device(inputs_rows_.get());
}

template <class T>
void CudaBackend<T>::set_inputs_device(const double* d_u) {
  if (n_inputs_ == 0) return;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  const int n = n_, n_in = n_inputs_;
  T* inputs = inputs_.get();
  x.launch("inputs", n * n_in, [=] __host__ __device__(int tid) { batch::inputs_thread(tid, n, n_in, d_u, inputs); });
  frame_step_ = -1;
}

template <class T>
void CudaBackend<T>::advance(int n_steps) {
  if (n_steps <= 0) return;
  if (integrator_ == Integrator::Dopri5) {  // its own steps per instance (host/cuda_backend_dopri5.cuh)
    advance_dopri5(n_steps);
    steps_ += n_steps;
    frame_step_ = -1;
    return;
  }
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  for (int s = 0; s < n_steps; ++s) {
    if (graph_ready_)
      check(cudaGraphLaunch(graph_exec_, stream_), "cudaGraphLaunch (one RK4 step)", batch_);
    else
      batch::enqueue_step(x, mv_, b_, fused_ ? &P_ : nullptr);
  }
  batch::enqueue_end_check(x, mv_, b_);
  steps_ += n_steps;
  frame_step_ = -1;
}

template <class T>
void CudaBackend<T>::synchronize() {
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (queued steps)", batch_);
  frame_step_ = -1;  // the state may have been written through a view (ArrayView)
}

template <class T>
void CudaBackend<T>::fetch_frame() const {
  if (frame_step_ == steps_) return;
  CudaExec<T> x{stream_, solver_, batch_, potrs_info_.get()};
  const batch::FrameLayout fl(n_, N_, J_, D_);
  check(cudaMemcpyAsync(frame_.get() + fl.state, Y_.get(), Y_.size() * sizeof(T), cudaMemcpyDeviceToDevice, stream_),
        "cudaMemcpyAsync (frame state)", batch_);
  batch::enqueue_frame(x, mv_, b_, fused_ ? &P_ : nullptr);
  check(cudaMemcpyAsync(frame_host_.get(), frame_.get(), fl.size * sizeof(T), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (frame to pinned host memory)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (frame)", batch_);
  frame_step_ = steps_;
}

template <class T>
void CudaBackend<T>::read_states(double* out) const {
  fetch_frame();
  const T* y = frame_host_.get();
  const std::size_t n = n_;
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < N_; ++k) {
      double* o = out + (i * N_ + k) * 13;
      for (int c = 0; c < 7; ++c) o[c] = static_cast<double>(y[(7 * k + c) * n + i]);
      for (int c = 0; c < 6; ++c) o[7 + c] = static_cast<double>(y[(7 * N_ + 6 * k + c) * n + i]);
    }
}

template <class T>
void CudaBackend<T>::read_reactions(double* out) const {
  fetch_frame();
  const T* r = frame_host_.get() + batch::FrameLayout(n_, N_, J_, D_).reactions;
  const std::size_t n = n_;
  for (std::size_t i = 0; i < n; ++i)
    for (int e = 0; e < 6 * J_; ++e) out[i * 6 * J_ + e] = static_cast<double>(r[e * n + i]);
}

template <class T>
void CudaBackend<T>::read_driver_loads(double* out) const {
  if (D_ == 0) return;
  fetch_frame();
  const T* l = frame_host_.get() + batch::FrameLayout(n_, N_, J_, D_).driver_loads;
  const std::size_t n = n_;
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < D_; ++d) out[i * D_ + d] = static_cast<double>(l[d * n + i]);
}

template <class T>
void CudaBackend<T>::upload_clock_offsets() {
  check(cudaMemcpyAsync(clock_offset_.get(), offset_.data(), offset_.size() * sizeof(std::int64_t),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (instance clocks)", batch_);
}

template <class T>
void CudaBackend<T>::read_constraint_violation(double* out) const {
  fetch_frame();
  const T* v = frame_host_.get() + batch::FrameLayout(n_, N_, J_, D_).violation;
  for (int i = 0; i < n_; ++i) out[i] = static_cast<double>(v[i]);
}

template <class T>
void CudaBackend<T>::read_energy(double* total, double* kinetic) const {
  fetch_frame();
  const batch::FrameLayout fl(n_, N_, J_, D_);
  for (int i = 0; i < n_; ++i) {
    total[i] = static_cast<double>(frame_host_.get()[fl.energy + i]);
    if (kinetic) kinetic[i] = static_cast<double>(frame_host_.get()[fl.kinetic + i]);
  }
}

template <class T>
void CudaBackend<T>::read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const {
  check(cudaMemcpyAsync(staging_.status_host.get(), status_.get(), n_, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (status)",
        batch_);
  if (reason)
    check(cudaMemcpyAsync(staging_.reason_host.get(), status_reason_.get(), n_, cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (status reason)", batch_);
  check(cudaMemcpyAsync(staging_.status_step_host.get(), status_step_.get(), n_ * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                        stream_),
        "cudaMemcpyAsync (status step)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (status)", batch_);
  // The device records the batch step; an instance's own clock starts at offset_ (0
  // until it is reset or its steps are set).
  for (int i = 0; i < n_; ++i) {
    status[i] = staging_.status_host.get()[i];
    if (reason) reason[i] = staging_.reason_host.get()[i];
    status_time[i] = static_cast<double>(staging_.status_step_host.get()[i] - offset_[static_cast<std::size_t>(i)]) * dt_;
  }
}

template <class T>
std::int64_t CudaBackend<T>::factorisation_recoveries() const {
  std::vector<int> r(static_cast<std::size_t>(n_));
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (recoveries)", batch_);
  check(cudaMemcpy(r.data(), recoveries_.get(), r.size() * sizeof(int), cudaMemcpyDeviceToHost),
        "cudaMemcpy (recoveries)", batch_);
  std::int64_t total = 0;
  for (int v : r) total += v;
  return total;
}

template <class T>
void CudaBackend<T>::read_refinement(RefinementRecord* out) const {
  const std::size_t n = static_cast<std::size_t>(n_);
  std::vector<int> count(n);
  std::vector<T> w(n), wt(n), pm(n), pmt(n);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (refinement)", batch_);
  check(cudaMemcpy(count.data(), refine_unconverged_.get(), n * sizeof(int), cudaMemcpyDeviceToHost),
        "cudaMemcpy (refinement)", batch_);
  check(cudaMemcpy(w.data(), refine_worst_.get(), n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (refinement)",
        batch_);
  check(cudaMemcpy(wt.data(), refine_worst_time_.get(), n * sizeof(T), cudaMemcpyDeviceToHost),
        "cudaMemcpy (refinement)", batch_);
  check(cudaMemcpy(pm.data(), pivot_min_.get(), n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (refinement)",
        batch_);
  check(cudaMemcpy(pmt.data(), pivot_min_time_.get(), n * sizeof(T), cudaMemcpyDeviceToHost),
        "cudaMemcpy (refinement)", batch_);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].unconverged = count[i];
    out[i].worst = static_cast<double>(w[i]);
    out[i].worst_time = static_cast<double>(wt[i]);
    out[i].min_pivot = static_cast<double>(pm[i]);
    out[i].min_pivot_time = static_cast<double>(pmt[i]);
  }
}

extern template class CudaBackend<double>;
extern template class CudaBackend<float>;

}  // namespace simphant::cuda
