#pragma once
// CudaReducedBackend: a robot scene with solver aba or cga on the GPU (docs/cuda-backend.md,
// "Robots"), in joint coordinates, one thread per instance. The state of every instance
// (robot_dynamics.hpp's layout, structure of arrays: element e of instance i at
// Y[e * n + i]), its inputs, status and the model slots (kernels/reduced_batch.hpp) are
// allocated once here; advance(n_steps) is one launch in which each thread takes its
// instance through the n_steps fixed steps (reduced_advance_thread of
// kernels/reduced_step.hpp, the per-thread step the CPU reduced backend runs too). Reads
// compute a frame on the device (reduced_frame_thread, kernels/reduced_batch.hpp) and
// bring it back through pinned memory, once per step count. The reductions over time
// (energy and contacts) are sampled inside the step (reduced_reduce_sample) into
// accumulators on the device.
// The per-instance state calls move columns with kernels/instance_state.hpp and stage
// instance ids and status rows through StagingBuffers (host/staging_buffers.cuh), as the
// DAE cuda backend does (host/cuda_backend_state.cuh).
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device_memory.hpp"
#include "reduced_batch.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"
#include "staging_buffers.cuh"

namespace simphant::cuda {

template <class T>
class CudaReducedBackend final : public Backend {
 public:
  /// models: size 1 (shared) or n_instances, robot models of one robot with solver aba or
  /// cga and a fixed-step integrator (rk4, euler, symplectic_euler). Throws
  /// std::invalid_argument for another model, BackendError for a failed CUDA call or a
  /// batch that does not fit.
  CudaReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances);
  ~CudaReducedBackend() override;
  CudaReducedBackend(const CudaReducedBackend&) = delete;
  CudaReducedBackend& operator=(const CudaReducedBackend&) = delete;

  const char* name() const override;
  std::string details() const override;
  int n_instances() const override { return n_; }
  void set_inputs(const double* u) override;
  void set_inputs_device(const double* d_u) override;
  void advance(int n_steps) override;
  Integrator integrator() const override { return integrator_; }
  void synchronize() override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  /// Per body (the base first when it floats, then the links) CoM pose and velocity in the
  /// 13 numbers of Backend::read_states (kernels/reduced_batch.hpp: robot_body_state).
  void read_states(double* out) const override;
  /// NaN: joint coordinates have no constraint forces.
  void read_reactions(double* out) const override;
  /// 0: the joints hold by construction.
  void read_constraint_violation(double* out) const override;
  void read_energy(double* total, double* kinetic) const override;
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const override;
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                            double* max_step) const override;
  const std::vector<AssemblyResult>& assembly() const override { return assembly_; }
  int n_joint_coordinates() const override { return nj_; }
  /// Reductions over time: energy and contacts, as the CPU joint-space backend
  /// (reduced_reduce_sample in the step, the accumulators on the device in structure of
  /// arrays, (size, n_instances) doubles); BackendError for another quantity.
  void set_reductions(const std::vector<ReductionQuantity>& quantities) override;
  ReductionLayout reduction_layout() const override { return red_layout_; }
  void read_reductions(double* out) const override;
  /// (n_instances, reduction_layout().size()), row-major (transposed from the device's layout).
  void get_reduction_state(double* acc) const override;
  void set_reduction_state(const double* acc) override;
  /// q, qd of the moving joints and tau = their actuator forces (robot_actuator_forces).
  void read_joint_state(double* q, double* qd, double* tau) const override;
  int n_link_frames() const override { return batch::robot_frame_count(nj_, floating_ ? 1 : 0); }
  void read_link_frames(const int* frames, int count, double* out) const override;
  ArrayView link_frames_view(const int* frames, int count) override;

  int state_size() const override { return ny_; }
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::int8_t* reasons) const override;
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::int8_t* reasons) override;
  void reset(const int* ids, int count) override;
  /// The first call gives every instance its own model slot (the slot arrays grow once);
  /// the listed instances' slots, initial states and inputs (robot tau) are rewritten,
  /// then they are reset.
  void set_models(const int* ids, int count, const Model* models) override;
  void set_inputs(const int* ids, int count, const double* u) override;
  /// Y on the device: (n_instances, state_size()) in T, strides (1, n_instances).
  ArrayView state_view() override;
  /// The inputs u on the device: (n_instances, n) doubles (in both precisions, as the
  /// step reads them), strides (1, n_instances).
  ArrayView inputs_view() override;

  /// Device memory per instance [bytes] for a robot of n joints (floating base or not) in
  /// T, with per_instance model slots.
  static std::size_t bytes_per_instance(int n, bool floating, bool per_instance) {
    return batch::robot_batch_bytes_per_instance(n, floating ? 1 : 0, per_instance, sizeof(T));
  }

 private:
  void release() noexcept;
  /// The batch view over the device arrays (kernels/reduced_step.hpp).
  batch::ReducedBatchView<T> batch_view() const;
  /// Uploads slots [first, first + count) of slots_ (queued on the stream).
  void upload_slots(int first, int count);
  /// Makes the slot arrays per instance (set_models' first call).
  void make_slots_per_instance();
  /// Copies offset_ to the device (queued; the pageable source is staged before the call returns).
  void upload_offsets();
  /// Computes the frame at the current state and brings it to frame_host_ (once per
  /// step count and inputs).
  void fetch_frame() const;
  /// The frame entry e of instance i.
  double frame_at(int e, int i) const {
    return static_cast<double>(frame_host_.get()[static_cast<std::size_t>(e) * n_ + i]);
  }
  /// One launch of f over n_threads threads (kernels/grid_kernel.cuh).
  template <class F>
  void launch(const char* name, int n_threads, F f) const;
  /// launch of Op<T, Cap>{args...} with the per-thread capacity Cap for this robot.
  template <template <class, int> class Op, class... A>
  void launch_cap(const char* name, int n_threads, A... args) const;

  std::shared_ptr<const std::vector<Model>> models_;
  std::vector<Model> own_models_;  ///< one per instance after set_models (models_ then points here)
  int n_, nj_, ny_, frame_size_;
  bool floating_;
  RobotSolver solver_;
  Integrator integrator_;
  double dt_;
  std::int64_t steps_ = 0;
  std::string batch_;
  bool per_instance_ = false;
  batch::RobotSlots<T> slots_;
  std::vector<AssemblyResult> assembly_;
  std::vector<std::int64_t> offset_;
  InstanceIds ids_;

  cudaStream_t stream_ = nullptr;
  /// Instance (and link frame) ids and status rows between host and device, and the
  /// event after the last copy out of a pinned staging buffer (its own, frame_host_, rows_host_).
  StagingBuffers staging_;
  // Model slots (kernels/reduced_step.hpp: ReducedBatchView).
  DeviceArray<ReducedLinkParams<T>> links_;
  DeviceArray<cga::CgaLink<T>> cga_links_;
  DeviceArray<RobotJointParams<T>> joints_;
  DeviceArray<RobotBaseParams<T>> base_;
  DeviceArray<Vec3<T>> gravity_;
  DeviceArray<T> runaway_, y_init_;
  DeviceArray<RobotContactPair<T>> contacts_;  ///< (slots, n_contacts)
  // Per instance: state, inputs, status (structure of arrays), the frame and link frames.
  DeviceArray<T> Y_, frame_, link_out_;
  DeviceArray<double> U_;
  DeviceArray<std::int8_t> status_, reason_;
  DeviceArray<std::int64_t> status_step_, offset_dev_;
  DeviceArray<int> frame_ids_;
  DeviceArray<double> rows_;  ///< (n, max(ny, n)) staging of rows
  ReductionLayout red_layout_;  ///< the reductions over time (set_reductions)
  /// (red_layout_.size(), n) the accumulators, and the copy a read samples the current state into
  DeviceArray<double> red_acc_, red_read_;
  mutable PinnedArray<T> frame_host_;
  mutable PinnedArray<double> rows_host_;
  mutable std::int64_t frame_step_ = -1;
};

}  // namespace simphant::cuda
