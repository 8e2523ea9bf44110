#pragma once
// CudaBackend: the `cuda` backend (docs/cuda-backend.md). Every instance's
// state and intermediates live in device memory as structure of arrays, allocated once
// here; one RK4 step (kernels/batch_step.hpp: per-joint Phi_q / gamma* kernels,
// per-body force kernels, Schur kernels, cuSOLVER batched Cholesky, accelerations, RK4
// stages, per-instance status) is captured once as a CUDA graph and replayed. advance()
// only queues work; reads wait for it and bring a frame back through pinned memory.
// Per-instance state (host/cuda_backend_state.cuh): y is Y's column of the instance, in
// T; the assembled initial states stay on the device for reset; the instances' own
// clocks are host-side offsets from the batch step that the device counts.
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <memory>
#include <string>
#include <vector>

#include "batch_buffers.hpp"
#include "device_memory.hpp"
#include "simphant/batch/batch_pack.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "staging_buffers.cuh"

namespace simphant::cuda {

template <class T>
class CudaBackend final : public Backend {
 public:
  /// models: size 1 or n_instances, one topology. assembled: the host-assembled batch.
  /// Throws BackendError (device too small, a failed CUDA / cuSOLVER call).
  /// fused: the cuda-fused path (kernels/fused_stage.hpp) instead of per-joint kernels +
  /// cuSOLVER.
  CudaBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, AssembledBatch assembled,
              bool use_graph, bool fused);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  const char* name() const override {
    return fused_ ? (sizeof(T) == 8 ? "cuda-fused" : "cuda-fused-fp32") : (sizeof(T) == 8 ? "cuda" : "cuda-fp32");
  }
  std::string details() const override;
  int n_instances() const override { return n_; }
  void set_inputs(const double* u) override;
  void set_inputs_device(const double* d_u) override;
  void advance(int n_steps) override;
  void synchronize() override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  std::int64_t factorisation_recoveries() const override;
  void read_refinement(RefinementRecord* out) const override;
  void read_states(double* out) const override;
  void read_reactions(double* out) const override;
  int n_drivers() const override { return D_; }
  void read_driver_loads(double* out) const override;
  void read_constraint_violation(double* out) const override;
  void read_energy(double* total, double* kinetic) const override;
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const override;
  Integrator integrator() const override { return integrator_; }
  /// dopri5: the device's counters (host/cuda_backend_dopri5.cuh); fixed-step
  /// integrators: from get_state's steps and statuses (host/cuda_backend_state.cuh).
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                            double* max_step) const override;
  /// dopri5 (host/cuda_backend_dopri5.cuh): rows in the CPU path's layout
  /// (kernels/dopri5_state.hpp), so a checkpoint continues on either backend.
  int integrator_state_size() const override;
  void get_integrator_state(double* out) const override;
  void set_integrator_state(const double* in) override;
  const std::vector<AssemblyResult>& assembly() const override { return assembly_; }
  /// Robot models (solver dae): the joints' coordinates from the DAE state read back to
  /// the host (sim/joint_coordinates.hpp, as the cpu backend reads them), tau the actuator
  /// force of each joint's law (reduced/joint_forces.hpp) at the inputs; else 0 / nothing.
  int n_joint_coordinates() const override;
  void read_joint_state(double* q, double* qd, double* tau) const override;

  // Reductions over time (Backend; host/cuda_backend_reductions.cuh).
  void set_reductions(const std::vector<ReductionQuantity>& quantities) override;
  ReductionLayout reduction_layout() const override { return red_; }
  void read_reductions(double* out) const override;
  void get_reduction_state(double* acc) const override;
  void set_reduction_state(const double* acc) override;

  // Per-instance state (Backend; host/cuda_backend_state.cuh).
  int state_size() const override { return 13 * N_; }
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::int8_t* reasons) const override;
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::int8_t* reasons) override;
  /// Queued on the stream (no wait): columns of the kept initial states, status.
  void reset(const int* ids, int count) override;
  /// Assembles the models on the host, writes their parameters into the packed batch
  /// (batch::set_instance_params: a parameter that was shared and now differs becomes
  /// per instance, and the step's CUDA graph is captured again), their initial states
  /// and the actuator inputs to the device, then resets them. Waits for queued steps.
  void set_models(const int* ids, int count, const Model* models) override;
  void set_inputs(const int* ids, int count, const double* u) override;
  /// Y on the device: (n_instances, 13N) in T, strides (1, n_instances).
  ArrayView state_view() override;
  /// The inputs on the device: (n_instances, n_inputs) in T, strides (1, n_instances).
  ArrayView inputs_view() override;

 private:
  /// Destroys the graph, the cuSOLVER handle, the stream and the event (constructor
  /// failure and destructor).
  void release() noexcept;
  void upload_model();
  void allocate();
  void upload_state(const AssembledBatch& assembled);
  void capture_graph();
  /// Computes the frame at the current state on the device and copies it to frame_host_
  /// (once per step count and inputs).
  void fetch_frame() const;
  /// Destroys the step's graph and captures it again (the model arrays moved).
  void recapture_graph();
  /// Copies the accumulators d_acc (size, n) to red_host_ and waits.
  void download_reductions(const double* d_acc) const;
  /// Copies offset_ (the instances' clocks) to clock_offset_ on the device, queued on the
  /// stream (the pageable source is staged before the call returns).
  void upload_clock_offsets();
  // The adaptive Dormand-Prince path (host/cuda_backend_dopri5.cuh; docs/cuda-backend.md,
  // "Adaptive steps").
  /// Allocates AdaptiveBuffers for a dopri5 batch (nothing otherwise).
  void allocate_adaptive();
  /// The listed instances (device ids d_ids, null: all count) start afresh at the next
  /// advance() (reset, set_state, set_models); nothing for a fixed-step batch.
  void restart_adaptive(const int* d_ids, int count);
  /// advance(n_steps) of a dopri5 batch: rounds to each grid time, the dense output.
  void advance_dopri5(int n_steps);
  std::shared_ptr<const std::vector<Model>> models_;
  int n_, N_, J_, D_, m_, n_inputs_;
  double dt_;
  Integrator integrator_ = Integrator::Rk4;  ///< model.solver.integrator (batch_step.hpp: enqueue_step)
  std::int64_t steps_ = 0;
  bool want_graph_;
  bool fused_;
  bool graph_ready_ = false;
  std::string graph_note_;  ///< why the step is not a graph, when capture failed
  std::string batch_;  ///< "the batch of <n> instances of '<model>' (fp64)", for messages
  batch::PackedModel<T> packed_;
  std::vector<AssemblyResult> assembly_;

  cudaStream_t stream_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t graph_exec_ = nullptr;
  /// Instance lists and status rows between host and device, and the event after the
  /// last copy out of a pinned staging buffer (its own, inputs_host_, frame_host_).
  StagingBuffers staging_;

  // Model arrays (shared) and per-instance parameters.
  DeviceArray<int> joint_type_, joint_body_, row_offset_, coupling_start_, coupling_, body_joint_start_, body_joint_,
      param_slot_, driver_, mimic_, law_type_, law_start_, removed_mask_;
  DeviceArray<batch::ForceTopo> force_;
  DeviceArray<T> param_shared_, param_varied_;
  batch::ModelView<T> mv_{};
  SchurPattern pattern_;                       ///< host copy (cuda-fused; sizes for details())
  std::vector<DeviceArray<int>> pattern_arrays_;
  SchurPatternView P_{};                       ///< pattern_ in device memory
  // Per-instance buffers (kernels/batch_buffers.hpp).
  DeviceArray<T> Y_, y_stage_, k_[4], phi_, jac_, gamma_star_, Q_, C_, rhs_, lambda_, floor_, diag_, inputs_, violation_, frame_;
  DeviceArray<T> refine_, refine_worst_, refine_worst_time_;  ///< the refinement's workspace and record (refine.hpp)
  DeviceArray<T> pivot_min_, pivot_min_time_, step_pivot_;  ///< the rank watch (pivot_watch.hpp)
  /// The auto projection's saved records (batch_buffers.hpp, ProjectionSaved).
  DeviceArray<T> saved_step_pivot_, saved_pivot_min_, saved_pivot_min_time_, saved_refine_worst_, saved_refine_worst_time_;
  DeviceArray<int> saved_refine_unconverged_, saved_recoveries_, saved_fail_;
  DeviceArray<T*> C_ptrs_, rhs_ptrs_;
  DeviceArray<int> info_, fail_, potrs_info_, recoveries_, refine_unconverged_;
  DeviceArray<std::int8_t> status_, status_reason_;
  DeviceArray<T> runaway_;           ///< (2, n) runaway bound coefficients a, b (formulas/runaway.hpp)
  DeviceArray<T> runaway_rows_;      ///< (n, 2) staging of runaway coefficients (set_models)
  DeviceArray<std::int64_t> status_step_, step_;
  DeviceArray<std::int64_t> clock_offset_;  ///< (n) device copy of offset_ (instance times)
  DeviceArray<T> time_;                     ///< (n) instance times of the evaluated state
  DeviceArray<double> inputs_rows_;  ///< (n, n_inputs) staging for set_inputs
  DeviceArray<T> Y0_;                ///< (13 N, n) assembled initial states (reset)
  DeviceArray<std::int8_t> status0_;  ///< (n) assembly status (reset)
  DeviceArray<std::int8_t> reason0_;  ///< (n) assembly status reason (reset)
  std::vector<std::int64_t> offset_;  ///< (n) batch step of each instance's step 0
  ReductionLayout red_;               ///< the enabled reductions over time
  DeviceArray<double> red_acc_;       ///< (red_.size(), n) their accumulators
  mutable DeviceArray<double> red_read_;   ///< (red_.size(), n) the accumulators as read
  mutable PinnedArray<double> red_host_;   ///< (red_.size(), n) staging of either
  InstanceIds ids_;
  batch::BatchBuffers<T> b_{};
  // Pinned host buffers: the recorded frame, inputs.
  // Reads are const but compute the frame on the device and fill frame_host_: a
  // backend is used from one thread at a time (Simulator's contract).
  mutable PinnedArray<T> frame_host_;
  PinnedArray<double> inputs_host_;
  mutable std::int64_t frame_step_ = -1;
  // AdaptiveBuffers (kernels/dopri5_buffers.hpp) of a dopri5 batch; k1..k4 are k_.
  DeviceArray<T> ad_y_, ad_k_[3], ad_cont_, ad_y_grid_, ad_u_;
  DeviceArray<T> ad_scalars_;               ///< (kAdaptiveScalars, n): t, h, t_old, h_old, facold, ...
  DeviceArray<std::int64_t> ad_counts_;     ///< (2, n) accepted, rejected
  DeviceArray<std::int8_t> ad_flag_;        ///< (n) kAdaptive* bits
  DeviceArray<int> ad_unfinished_;          ///< (1) the count the host loop reads back
  PinnedArray<int> unfinished_host_;        ///< (1) its pinned copy
  int last_rounds_ = 1;                     ///< rounds the last grid step took (the next one's first batch)
};

}  // namespace simphant::cuda
