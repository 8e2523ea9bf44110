// CudaReducedBackend<T> (host/cuda_reduced_backend.cuh), its two instantiations and the
// factory functions of sim/cuda_factory.hpp for robot scenes with solver aba / cga.
#include "cuda_reduced_backend.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "grid_kernel.cuh"
#include "instance_state.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/step_statistics.hpp"

namespace simphant::cuda {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string reduced_batch_name(const Model& m0, int n, const std::string& precision) {
  return "the batch of " + std::to_string(n) + " instances of '" + m0.name + "' (" + precision + ", " +
         robot_solver_name(m0.robot->solver) + " on the GPU)";
}

// The kernels: thin trampolines, one thread per instance, each with its own fixed-size
// workspace of capacity Cap (kernels/reduced_step.hpp).
template <class T, int Cap>
struct AdvanceOp {
  batch::ReducedBatchView<T> b;
  std::int64_t step0;
  int n_steps;
  SP_HD void operator()(int tid) const {
    batch::ReducedStepWorkspace<T, Cap> ws;
    batch::reduced_advance_thread(tid, b, step0, n_steps, ws);
  }
};

template <class T, int Cap>
struct FrameOp {
  batch::ReducedBatchView<T> b;
  T* frame;
  SP_HD void operator()(int tid) const {
    batch::ReducedStepWorkspace<T, Cap> ws;
    batch::reduced_frame_thread(tid, b, frame, ws);
  }
};

template <class T, int Cap>
struct LinkFramesOp {
  batch::ReducedBatchView<T> b;
  const int* frames;
  int count;
  T* out;
  SP_HD void operator()(int tid) const {
    batch::ReducedStepWorkspace<T, Cap> ws;
    batch::reduced_link_frames_thread(tid, b, frames, count, batch::structure_of_arrays(out, b.n_instances), ws);
  }
};

template <class T, int Cap>
struct ReduceReadOp {
  batch::ReducedBatchView<T> b;
  std::int64_t step;
  double* out;
  SP_HD void operator()(int tid) const {
    batch::ReducedStepWorkspace<T, Cap> ws;
    batch::reduced_reduce_read_thread(tid, b, step, out, ws);
  }
};

template <class T>
struct ResetOp {
  batch::ReducedBatchView<T> b;
  const int* ids;
  int count;
  std::int64_t step;
  SP_HD void operator()(int tid) const { batch::reduced_reset_thread(tid, b, ids, count, step); }
};

}  // namespace

template <class T>
template <class F>
void CudaReducedBackend<T>::launch(const char* name, int n_threads, F f) const {
  if (n_threads <= 0) return;
  constexpr int kBlock = batch::kGridBlock;
  batch::grid_kernel<<<(n_threads + kBlock - 1) / kBlock, kBlock, 0, stream_>>>(n_threads, f);
  check(cudaGetLastError(), (std::string("launch of kernel '") + name + "'").c_str(), batch_);
}

// Two capacities: 16 links (the arms and legged robots of example-robot-data) and
// kMaxReducedLinks; the arithmetic does not depend on the capacity (reduced_step.hpp).
template <class T>
template <template <class, int> class Op, class... A>
void CudaReducedBackend<T>::launch_cap(const char* name, int n_threads, A... args) const {
  if (nj_ <= 16)
    launch(name, n_threads, Op<T, 16>{args...});
  else
    launch(name, n_threads, Op<T, kMaxReducedLinks>{args...});
}

template <class T>
CudaReducedBackend<T>::CudaReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances)
    : models_(std::move(models)), n_(n_instances), offset_(static_cast<std::size_t>(n_instances), 0),
      ids_(n_instances) {
  if (!models_ || models_->empty()) throw std::invalid_argument("CudaReducedBackend: no model");
  if (models_->size() != 1 && static_cast<int>(models_->size()) != n_)
    throw std::invalid_argument("CudaReducedBackend: models must be 1 or one per instance");
  const Model& m0 = models_->front();
  if (!m0.robot || m0.robot->solver == RobotSolver::Dae)
    throw std::invalid_argument("CudaReducedBackend: the model has no robot with solver aba or cga");
  solver_ = m0.robot->solver;
  nj_ = m0.robot->n();
  floating_ = m0.robot->model.floating;
  ny_ = robot_state_size(nj_, floating_ ? 1 : 0);
  frame_size_ = batch::robot_frame_size(nj_, floating_ ? 1 : 0);
  dt_ = m0.solver.dt;
  integrator_ = m0.solver.integrator;
  batch_ = reduced_batch_name(m0, n_, sizeof(T) == 8 ? "fp64" : "fp32");
  if (nj_ < 0 || nj_ > kMaxReducedLinks)
    throw std::invalid_argument("CudaReducedBackend: the robot has " + std::to_string(nj_) + " joints (0 .. " +
                                std::to_string(kMaxReducedLinks) + ")");
  if (integrator_ != Integrator::Rk4 && integrator_ != Integrator::Euler &&
      integrator_ != Integrator::SymplecticEuler)
    throw std::invalid_argument(std::string("solver.integrator: solver '") + robot_solver_name(solver_) +
                                "' on the GPU steps with rk4, euler or symplectic_euler (got '" +
                                integrator_name(integrator_) + "')");
  for (std::size_t s = 0; s < models_->size(); ++s) {
    const Model& m = (*models_)[s];
    batch::check_robot_model(m, nj_, floating_, solver_, "CudaReducedBackend: model " + std::to_string(s));
    if (m.solver.dt != dt_ || m.solver.integrator != integrator_)
      throw std::invalid_argument("CudaReducedBackend: model " + std::to_string(s) +
                                  ": dt and the integrator are shared by the batch");
  }
  per_instance_ = models_->size() > 1;
  const int n_slots = static_cast<int>(models_->size());
  slots_.resize(nj_, floating_ ? 1 : 0, n_slots, static_cast<int>(batch::robot_contact_pairs<T>(m0).size()));
  for (int s = 0; s < n_slots; ++s) slots_.write(s, (*models_)[static_cast<std::size_t>(s)]);
  AssemblyResult ok;
  ok.ok = true;
  assembly_.assign(static_cast<std::size_t>(n_), ok);
  cuda_reduced_check_fits(m0, n_, per_instance_, sizeof(T) == 8 ? "fp64" : "fp32");
  try {
    check(cudaSetDevice(0), "cudaSetDevice(0)", batch_);
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", batch_);
    const std::size_t n = static_cast<std::size_t>(n_), ny = static_cast<std::size_t>(ny_),
                      nj = static_cast<std::size_t>(nj_);
    links_ = DeviceArray<ReducedLinkParams<T>>(slots_.links, batch_);
    cga_links_ = DeviceArray<cga::CgaLink<T>>(slots_.cga_links, batch_);
    joints_ = DeviceArray<RobotJointParams<T>>(slots_.joints, batch_);
    base_ = DeviceArray<RobotBaseParams<T>>(slots_.base, batch_);
    gravity_ = DeviceArray<Vec3<T>>(slots_.gravity, batch_);
    runaway_ = DeviceArray<T>(slots_.runaway, batch_);
    y_init_ = DeviceArray<T>(slots_.y_init, batch_);
    contacts_ = DeviceArray<RobotContactPair<T>>(slots_.contacts, batch_);
    Y_ = DeviceArray<T>(ny * n, batch_);
    U_ = DeviceArray<double>(nj * n, batch_);
    frame_ = DeviceArray<T>(static_cast<std::size_t>(frame_size_) * n, batch_);
    status_ = DeviceArray<std::int8_t>(n, batch_);
    reason_ = DeviceArray<std::int8_t>(n, batch_);
    status_step_ = DeviceArray<std::int64_t>(n, batch_);
    offset_dev_ = DeviceArray<std::int64_t>(n, batch_);
    frame_ids_ = DeviceArray<int>(static_cast<std::size_t>(n_link_frames()), batch_);
    const std::size_t row = std::max(ny, nj);
    rows_ = DeviceArray<double>(row * n, batch_);
    frame_host_ = PinnedArray<T>(static_cast<std::size_t>(frame_size_) * n, batch_);
    rows_host_ = PinnedArray<double>(row * n, batch_);
    staging_.allocate(stream_, batch_, n, static_cast<std::size_t>(n_link_frames()));
    // The uploads above ran on the legacy default stream; stream_ is non-blocking.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the uploads)", batch_);
    // Every instance at its slot's initial state, status ok, clock 0; the inputs at the
    // models' values.
    std::vector<double> u(n * nj);
    for (int i = 0; i < n_; ++i) {
      const RobotJointSpace& r = *(*models_)[models_->size() == 1 ? 0 : static_cast<std::size_t>(i)].robot;
      std::copy(r.tau.begin(), r.tau.end(), u.begin() + static_cast<std::ptrdiff_t>(i * nj));
    }
    set_inputs(u.data());
    reset(nullptr, n_);
    synchronize();
  } catch (...) {
    release();
    throw;
  }
}

template <class T>
void CudaReducedBackend<T>::release() noexcept {
  if (stream_) cudaStreamSynchronize(stream_);
  staging_.release();
  if (stream_) cudaStreamDestroy(stream_);
  stream_ = nullptr;
}

template <class T>
CudaReducedBackend<T>::~CudaReducedBackend() {
  release();
}

template <class T>
const char* CudaReducedBackend<T>::name() const {
  if (solver_ == RobotSolver::Cga) return sizeof(T) == 8 ? "cuda-reduced-cga" : "cuda-reduced-cga-fp32";
  return sizeof(T) == 8 ? "cuda-reduced-aba" : "cuda-reduced-aba-fp32";
}

template <class T>
std::string CudaReducedBackend<T>::details() const {
  cudaDeviceProp prop{};
  const bool ok = cudaGetDeviceProperties(&prop, 0) == cudaSuccess;
  if (!ok) cudaGetLastError();
  return std::string(name()) + " on " + (ok ? prop.name : "device 0") + " (" + robot_solver_name(solver_) +
         ", joint coordinates, " + std::to_string(nj_) + (nj_ == 1 ? " joint" : " joints") +
         (floating_ ? ", floating base" : "") + ", " + integrator_name(integrator_) +
         ", one thread per instance, " + (per_instance_ ? "one model slot per instance" : "one shared model slot") +
         ")";
}

template <class T>
batch::ReducedBatchView<T> CudaReducedBackend<T>::batch_view() const {
  batch::ReducedBatchView<T> b{};
  b.n_instances = n_;
  b.n = nj_;
  b.floating = floating_ ? 1 : 0;
  b.use_cga = solver_ == RobotSolver::Cga ? 1 : 0;
  b.integrator = static_cast<int>(integrator_);
  b.dt = static_cast<T>(dt_);
  b.n_slots = per_instance_ ? n_ : 1;
  b.links = links_.get();
  b.cga_links = cga_links_.get();
  b.joints = joints_.get();
  b.base = base_.get();
  b.gravity = gravity_.get();
  b.runaway_kinetic_energy = runaway_.get();
  b.y_init = y_init_.get();
  b.n_contacts = slots_.n_contacts;
  b.contacts = contacts_.get();
  b.Y = batch::structure_of_arrays(Y_.get(), n_);
  b.U = batch::structure_of_arrays(static_cast<const double*>(U_.get()), n_);
  b.status = status_.get();
  b.status_step = status_step_.get();
  b.reason = reason_.get();
  b.offset = offset_dev_.get();
  if (red_layout_.any()) {
    b.red = red_layout_;
    b.red_acc = red_acc_.get();
    b.red_stride_i = 1;  // structure of arrays: element e of instance i at e n + i
    b.red_stride_e = n_;
  }
  return b;
}

template <class T>
void CudaReducedBackend<T>::set_reductions(const std::vector<ReductionQuantity>& quantities) {
  check_joint_space_reductions(name(), quantities);
  synchronize();  // no step in flight reads the arrays replaced here
  const ReductionLayout L = reduction_layout_of(quantities, models_->front());
  const std::size_t size = L.any() ? static_cast<std::size_t>(L.size()) * n_ : 0;
  DeviceArray<double> acc(size, batch_), read(size, batch_);  // a failed allocation changes nothing
  red_acc_ = std::move(acc);
  red_read_ = std::move(read);
  red_layout_ = L;
  if (!red_layout_.any()) return;
  const batch::ReducedBatchView<T> b = batch_view();
  launch("reduction_clear", n_, [=] __host__ __device__(int tid) {
    if (tid < b.n_instances) reduction_clear(b.red, batch::reduced_reduction_acc(b, tid));
  });
}

template <class T>
void CudaReducedBackend<T>::read_reductions(double* out) const {
  if (!red_layout_.any()) return;
  launch_cap<ReduceReadOp>("reduced_reduce_read", n_, batch_view(), steps_, red_read_.get());
  std::vector<double> acc(red_read_.size());
  check(cudaMemcpyAsync(acc.data(), red_read_.get(), acc.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reductions)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reductions)", batch_);
  const int C = red_layout_.channels;
  for (int i = 0; i < n_; ++i)
    for (int c = 0; c < C; ++c)
      reduction_stats(red_layout_, {acc.data() + i, static_cast<std::size_t>(n_)}, c, dt_,
                      out + (static_cast<std::size_t>(i) * C + c) * kReductionStats);
}

template <class T>
void CudaReducedBackend<T>::get_reduction_state(double* acc) const {
  if (!red_layout_.any()) return;
  std::vector<double> soa(red_acc_.size());
  check(cudaMemcpyAsync(soa.data(), red_acc_.get(), soa.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (reduction accumulators)", batch_);
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reduction accumulators)", batch_);
  const std::size_t w = static_cast<std::size_t>(red_layout_.size()), n = static_cast<std::size_t>(n_);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < w; ++e) acc[i * w + e] = soa[e * n + i];
}

template <class T>
void CudaReducedBackend<T>::set_reduction_state(const double* acc) {
  if (!red_layout_.any()) return;
  const std::size_t w = static_cast<std::size_t>(red_layout_.size()), n = static_cast<std::size_t>(n_);
  std::vector<double> soa(red_acc_.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t e = 0; e < w; ++e) soa[e * n + i] = acc[i * w + e];
  check(cudaMemcpyAsync(red_acc_.get(), soa.data(), soa.size() * sizeof(double), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (reduction accumulators)", batch_);
  // The pageable source must outlive the copy.
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (reduction accumulators)", batch_);
}

template <class T>
void CudaReducedBackend<T>::synchronize() {
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", batch_);
}

template <class T>
void CudaReducedBackend<T>::upload_offsets() {
  check(cudaMemcpyAsync(offset_dev_.get(), offset_.data(), offset_.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                        stream_),
        "cudaMemcpyAsync (instance clocks)", batch_);
}

template <class T>
void CudaReducedBackend<T>::advance(int n_steps) {
  if (n_steps <= 0) return;
  launch_cap<AdvanceOp>("reduced_advance", n_, batch_view(), steps_, n_steps);
  steps_ += n_steps;
  frame_step_ = -1;
}

template <class T>
void CudaReducedBackend<T>::fetch_frame() const {
  if (frame_step_ == steps_) return;
  T* frame = frame_.get();
  staging_.wait();
  launch_cap<FrameOp>("reduced_frame", n_, batch_view(), frame);
  check(cudaMemcpyAsync(frame_host_.get(), frame, static_cast<std::size_t>(frame_size_) * n_ * sizeof(T),
                        cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (frame to pinned host memory)", batch_);
  staging_.staged();
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (frame)", batch_);
  frame_step_ = steps_;
}

template <class T>
void CudaReducedBackend<T>::read_states(double* out) const {
  fetch_frame();
  const int E = 13 * robot_n_bodies(nj_, floating_ ? 1 : 0);
  for (int i = 0; i < n_; ++i)
    for (int e = 0; e < E; ++e) out[static_cast<std::size_t>(i) * E + e] = frame_at(e, i);
}

template <class T>
void CudaReducedBackend<T>::read_reactions(double* out) const {
  const std::size_t count = static_cast<std::size_t>(n_) * 6 * models_->front().n_joints();
  std::fill(out, out + count, std::numeric_limits<double>::quiet_NaN());
}

template <class T>
void CudaReducedBackend<T>::read_constraint_violation(double* out) const {
  std::fill(out, out + n_, 0.0);
}

template <class T>
void CudaReducedBackend<T>::read_energy(double* total, double* kinetic) const {
  fetch_frame();
  const int e0 = 13 * robot_n_bodies(nj_, floating_ ? 1 : 0);
  for (int i = 0; i < n_; ++i) {
    if (kinetic) kinetic[i] = frame_at(e0, i);
    total[i] = frame_at(e0 + 1, i);
  }
}

template <class T>
void CudaReducedBackend<T>::read_joint_state(double* q, double* qd, double* tau) const {
  fetch_frame();
  const int e0 = 13 * robot_n_bodies(nj_, floating_ ? 1 : 0) + 2;
  for (int i = 0; i < n_; ++i)
    for (int k = 0; k < nj_; ++k) {
      const std::size_t o = static_cast<std::size_t>(i) * nj_ + k;
      q[o] = frame_at(e0 + k, i);
      qd[o] = frame_at(e0 + nj_ + k, i);
      tau[o] = frame_at(e0 + 2 * nj_ + k, i);
    }
}

template <class T>
ArrayView CudaReducedBackend<T>::link_frames_view(const int* frames, int count) {
  const int F = n_link_frames();
  if (count < 0 || count > F)
    throw std::invalid_argument("link_frames: " + std::to_string(count) + " frames (0 .. " + std::to_string(F) + ")");
  for (int c = 0; c < count; ++c)
    if (frames[c] < 0 || frames[c] >= F)
      throw std::invalid_argument("link_frames: frame index " + std::to_string(frames[c]) + " out of [0, " +
                                  std::to_string(F) + ")");
  // Allocated at the first call (its size is fixed: every frame), never in a step.
  if (link_out_.size() == 0) link_out_ = DeviceArray<T>(13 * static_cast<std::size_t>(F) * n_, batch_);
  ArrayView v;
  v.data = link_out_.get();
  v.dtype_bits = 8 * static_cast<int>(sizeof(T));
  v.device = true;
  v.ndim = 3;
  v.shape[0] = n_;
  v.shape[1] = count;
  v.shape[2] = 13;
  v.strides[0] = 1;  // structure of arrays: entry (i, c, e) at i + (13 c + e) n
  v.strides[1] = 13 * static_cast<std::int64_t>(n_);
  v.strides[2] = n_;
  if (count == 0) return v;
  staging_.wait();
  staging_.upload_ids(frames, count, frame_ids_.get(), "cudaMemcpyAsync (frame ids)");
  staging_.staged();
  launch_cap<LinkFramesOp>("reduced_link_frames", n_, batch_view(), static_cast<const int*>(frame_ids_.get()), count,
                           link_out_.get());
  return v;
}

template <class T>
void CudaReducedBackend<T>::read_link_frames(const int* frames, int count, double* out) const {
  const ArrayView v = const_cast<CudaReducedBackend*>(this)->link_frames_view(frames, count);
  if (count == 0) return;
  const std::size_t total = 13 * static_cast<std::size_t>(count) * n_;  // <= frame_size_ n
  staging_.wait();
  check(cudaMemcpyAsync(frame_host_.get(), v.data, total * sizeof(T), cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (link frames)", batch_);
  staging_.staged();
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (link frames)", batch_);
  frame_step_ = -1;  // frame_host_ now holds the link frames
  for (int i = 0; i < n_; ++i)
    for (int e = 0; e < 13 * count; ++e) out[static_cast<std::size_t>(i) * 13 * count + e] = frame_at(e, i);
}

template <class T>
void CudaReducedBackend<T>::read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const {
  std::vector<std::int64_t> status_steps(static_cast<std::size_t>(n_));
  get_state(nullptr, n_, nullptr, nullptr, status, status_steps.data(), reason);
  for (int i = 0; i < n_; ++i) status_time[i] = static_cast<double>(status_steps[static_cast<std::size_t>(i)]) * dt_;
}

template <class T>
void CudaReducedBackend<T>::read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                                 double* max_step) const {
  fixed_step_statistics(*this, dt_, accepted, rejected, min_step, max_step);
}

template <class T>
void CudaReducedBackend<T>::get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                                      std::int64_t* status_steps, std::int8_t* reasons) const {
  ids_.check("get_state", ids, count);
  if (count == 0) return;
  const int n = n_, ny = ny_;
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  if (y) {
    const T* Y = Y_.get();
    double* rows = rows_.get();
    launch("gather_state", count, [=] __host__ __device__(int tid) {
      batch::gather_rows_as_double_thread(tid, n, ny, count, d_ids, Y, rows);
    });
    check(cudaMemcpyAsync(rows_host_.get(), rows, static_cast<std::size_t>(count) * ny * sizeof(double),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync (states to pinned host memory)", batch_);
  }
  staging_.gather_status(count, d_ids, status_.get(), status_step_.get(), reason_.get());
  staging_.staged();
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (get_state)", batch_);
  for (int k = 0; k < count; ++k) {
    const std::size_t i = static_cast<std::size_t>(InstanceIds::at(ids, k));
    if (y) std::copy_n(rows_host_.get() + static_cast<std::size_t>(k) * ny, ny, y + static_cast<std::size_t>(k) * ny);
    if (steps) steps[k] = steps_ - offset_[i];
    if (status) status[k] = staging_.status_host.get()[k];
    if (status_steps) status_steps[k] = staging_.status_step_host.get()[k];  // the device keeps instance steps
    if (reasons) reasons[k] = staging_.reason_host.get()[k];
  }
}

template <class T>
void CudaReducedBackend<T>::set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                                      const std::int8_t* status, const std::int64_t* status_steps,
                                      const std::int8_t* reasons) {
  ids_.check("set_state", ids, count);
  check_status_reasons("set_state", count, status, reasons);
  if (count == 0) return;
  const int n = n_, ny = ny_;
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  if (y) {
    std::copy_n(y, static_cast<std::size_t>(count) * ny, rows_host_.get());
    double* rows = rows_.get();
    check(cudaMemcpyAsync(rows, rows_host_.get(), static_cast<std::size_t>(count) * ny * sizeof(double),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (states from pinned host memory)", batch_);
    T* Y = Y_.get();
    launch("scatter_state", count, [=] __host__ __device__(int tid) {
      batch::scatter_rows_thread(tid, n, ny, count, d_ids, static_cast<const double*>(rows), Y);
    });
  }
  // Status steps are instance steps on the device (reduced_step.hpp): a new clock (steps)
  // leaves them as they are, as on the CPU.
  if (status || status_steps) {
    for (int k = 0; k < count; ++k) {
      if (status) staging_.status_host.get()[k] = status[k];
      if (reasons) staging_.reason_host.get()[k] = reasons[k];
      if (status_steps) staging_.status_step_host.get()[k] = status_steps[k];
    }
    staging_.scatter_status(count, d_ids, status != nullptr, status_steps != nullptr, reasons != nullptr, 0,
                            status_.get(), status_step_.get(), reason_.get());
  }
  staging_.staged();
  if (steps) {
    for (int k = 0; k < count; ++k) offset_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = steps_ - steps[k];
    upload_offsets();
  }
  frame_step_ = -1;
}

template <class T>
void CudaReducedBackend<T>::reset(const int* ids, int count) {
  ids_.check("reset", ids, count);
  if (count == 0) return;
  staging_.wait();
  const int* d_ids = staging_.stage_ids(ids, count);
  staging_.staged();
  launch("reduced_reset", count, ResetOp<T>{batch_view(), d_ids, count, steps_});
  for (int k = 0; k < count; ++k) offset_[static_cast<std::size_t>(InstanceIds::at(ids, k))] = steps_;
  frame_step_ = -1;
}

template <class T>
void CudaReducedBackend<T>::make_slots_per_instance() {
  if (per_instance_) return;
  batch::RobotSlots<T> grown;
  grown.resize(nj_, floating_ ? 1 : 0, n_, slots_.n_contacts);
  for (int i = 0; i < n_; ++i) slots_.copy_slot(0, grown, i);
  // The new arrays first, so that a failed allocation changes nothing.
  DeviceArray<ReducedLinkParams<T>> links(grown.links.size(), batch_);
  DeviceArray<cga::CgaLink<T>> cga_links(grown.cga_links.size(), batch_);
  DeviceArray<RobotJointParams<T>> joints(grown.joints.size(), batch_);
  DeviceArray<RobotBaseParams<T>> base(grown.base.size(), batch_);
  DeviceArray<Vec3<T>> gravity(grown.gravity.size(), batch_);
  DeviceArray<T> runaway(grown.runaway.size(), batch_);
  DeviceArray<T> y_init(grown.y_init.size(), batch_);
  DeviceArray<RobotContactPair<T>> contacts(grown.contacts.size(), batch_);
  synchronize();  // queued steps read the old slots
  links_ = std::move(links);
  cga_links_ = std::move(cga_links);
  joints_ = std::move(joints);
  base_ = std::move(base);
  gravity_ = std::move(gravity);
  runaway_ = std::move(runaway);
  y_init_ = std::move(y_init);
  contacts_ = std::move(contacts);
  slots_ = std::move(grown);
  per_instance_ = true;
  upload_slots(0, n_);
}

template <class T>
void CudaReducedBackend<T>::upload_slots(int first, int count) {
  const std::size_t nj = static_cast<std::size_t>(nj_), ny = static_cast<std::size_t>(ny_),
                    f = static_cast<std::size_t>(first), c = static_cast<std::size_t>(count);
  // From pageable memory: staged before the call returns, in stream order.
  check(cudaMemcpyAsync(links_.get() + f * nj, slots_.links.data() + f * nj, c * nj * sizeof(ReducedLinkParams<T>),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (links)", batch_);
  check(cudaMemcpyAsync(cga_links_.get() + f * nj, slots_.cga_links.data() + f * nj, c * nj * sizeof(cga::CgaLink<T>),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (CGA links)", batch_);
  check(cudaMemcpyAsync(joints_.get() + f * nj, slots_.joints.data() + f * nj, c * nj * sizeof(RobotJointParams<T>),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (joint parameters)", batch_);
  check(cudaMemcpyAsync(base_.get() + f, slots_.base.data() + f, c * sizeof(RobotBaseParams<T>), cudaMemcpyHostToDevice,
                        stream_),
        "cudaMemcpyAsync (base)", batch_);
  check(cudaMemcpyAsync(gravity_.get() + f, slots_.gravity.data() + f, c * sizeof(Vec3<T>), cudaMemcpyHostToDevice,
                        stream_),
        "cudaMemcpyAsync (gravity)", batch_);
  check(cudaMemcpyAsync(runaway_.get() + f, slots_.runaway.data() + f, c * sizeof(T), cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (runaway bound)", batch_);
  check(cudaMemcpyAsync(y_init_.get() + f * ny, slots_.y_init.data() + f * ny, c * ny * sizeof(T),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (initial states)", batch_);
  const std::size_t nc = static_cast<std::size_t>(slots_.n_contacts);
  if (nc > 0)
    check(cudaMemcpyAsync(contacts_.get() + f * nc, slots_.contacts.data() + f * nc, c * nc * sizeof(RobotContactPair<T>),
                          cudaMemcpyHostToDevice, stream_),
          "cudaMemcpyAsync (contact pairs)", batch_);
}

template <class T>
void CudaReducedBackend<T>::set_models(const int* ids, int count, const Model* models) {
  ids_.check("set_models", ids, count);
  check_models_join(models_->front(), models, count, [ids](int k) { return InstanceIds::at(ids, k); });
  for (int k = 0; k < count; ++k) {
    const std::string who =
        "set_models: models[" + std::to_string(k) + "] (instance " + std::to_string(InstanceIds::at(ids, k)) + ")";
    batch::check_robot_model(models[k], nj_, floating_, solver_, who);
    if (models[k].solver.integrator != integrator_)
      throw std::invalid_argument(who + ": the integrator is shared by the batch");
  }
  if (count == 0) return;
  make_slots_per_instance();
  if (own_models_.empty()) {  // copy on write: from here on one model per instance, owned here
    own_models_.reserve(static_cast<std::size_t>(n_));
    for (int i = 0; i < n_; ++i) own_models_.push_back((*models_)[models_->size() == 1 ? 0 : static_cast<std::size_t>(i)]);
  }
  synchronize();  // queued steps read the slots being rewritten
  const std::size_t nj = static_cast<std::size_t>(nj_);
  std::vector<double> u(static_cast<std::size_t>(count) * nj);
  for (int k = 0; k < count; ++k) {
    const int i = InstanceIds::at(ids, k);
    own_models_[static_cast<std::size_t>(i)] = models[k];
    slots_.write(i, models[k]);
    upload_slots(i, 1);
    std::copy(models[k].robot->tau.begin(), models[k].robot->tau.end(), u.begin() + static_cast<std::ptrdiff_t>(k * nj));
  }
  // A shared_ptr that does not own: own_models_ lives as long as this backend.
  models_ = std::shared_ptr<const std::vector<Model>>(std::shared_ptr<const std::vector<Model>>{}, &own_models_);
  set_inputs(ids, count, u.data());
  reset(ids, count);
}

template <class T>
void CudaReducedBackend<T>::set_inputs(const int* ids, int count, const double* u) {
  ids_.check("set_inputs", ids, count);
  if (count == 0) return;
  const int n = n_, nj = nj_;
  staging_.wait();
  std::memcpy(rows_host_.get(), u, static_cast<std::size_t>(count) * nj * sizeof(double));
  double* rows = rows_.get();
  check(cudaMemcpyAsync(rows, rows_host_.get(), static_cast<std::size_t>(count) * nj * sizeof(double),
                        cudaMemcpyHostToDevice, stream_),
        "cudaMemcpyAsync (inputs)", batch_);
  const int* d_ids = staging_.stage_ids(ids, count);
  staging_.staged();
  double* U = U_.get();
  launch("inputs_rows", count, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, nj, count, d_ids, static_cast<const double*>(rows), U);
  });
  frame_step_ = -1;
}

template <class T>
void CudaReducedBackend<T>::set_inputs(const double* u) {
  set_inputs(nullptr, n_, u);
}

template <class T>
void CudaReducedBackend<T>::set_inputs_device(const double* d_u) {
  const int n = n_, nj = nj_;
  double* U = U_.get();
  launch("inputs", n, [=] __host__ __device__(int tid) {
    batch::scatter_rows_thread(tid, n, nj, n, static_cast<const int*>(nullptr), d_u, U);
  });
  frame_step_ = -1;
}

template <class T>
ArrayView CudaReducedBackend<T>::state_view() {
  frame_step_ = -1;  // the caller may write through the view
  return matrix_view(Y_.get(), n_, ny_, true, true);
}

template <class T>
ArrayView CudaReducedBackend<T>::inputs_view() {
  frame_step_ = -1;
  return matrix_view(U_.get(), n_, nj_, true, true);
}

template class CudaReducedBackend<double>;
template class CudaReducedBackend<float>;

}  // namespace simphant::cuda

namespace simphant {

std::unique_ptr<Backend> make_cuda_reduced_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                                   const std::string& precision) {
  require_cuda_device();
  if (precision == "fp32") return std::make_unique<cuda::CudaReducedBackend<float>>(std::move(models), n_instances);
  if (precision != "fp64") throw std::invalid_argument("unknown precision '" + precision + "' (fp64 or fp32)");
  return std::make_unique<cuda::CudaReducedBackend<double>>(std::move(models), n_instances);
}

void cuda_reduced_check_fits(const Model& model, int n_instances, bool models_per_instance,
                             const std::string& precision) {
  const std::size_t per = cuda_reduced_bytes_per_instance(model, models_per_instance, precision);
  const std::string batch = cuda::reduced_batch_name(model, n_instances, precision);
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaSetDevice(0), "cudaSetDevice(0)", batch);
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", batch);
  // 10 % of the free memory is left to the runtime and the kernels' local memory.
  const long long fit = static_cast<long long>(0.9 * static_cast<double>(free_bytes) / static_cast<double>(per));
  if (n_instances <= fit) return;
  char msg[640];
  std::snprintf(msg, sizeof msg,
                "backend 'cuda': %s needs about %.2f GiB of device memory (%zu bytes per instance); device 0 has "
                "%.2f GiB free: at most %lld instances fit, use --instances %lld or fewer",
                batch.c_str(), static_cast<double>(per) * n_instances / cuda::kGiB, per, free_bytes / cuda::kGiB, fit,
                fit);
  throw BackendError(msg);
}

}  // namespace simphant
