#pragma once
// RobotSensitivityEngine: the sensitivity engine of a robot in joint coordinates, solver
// aba or cga (sim/sensitivity_engine.hpp): the joint-space backend's own per-thread step
// (kernels/reduced_step.hpp: reduced_advance_thread, the spatial-vector or CGA ABA of
// reduced/robot_dynamics.hpp) instantiated with T = Dual<double, W> (W tangents per pass), over the model
// slots of batch/robot_pack.hpp (one per instance) whose numbers carry the seeds'
// tangents. Its values are bit for bit the `cpu` backend's scalar form (reduced-aba /
// reduced-cga) from the same start; the `cpu-simd` lanes round differently (about 1e-9).
// The body states and the energy of a frame are the backend's own reads
// (reduced_body_states_thread, reduced_energy_thread) in dual numbers; a robot in joint
// coordinates has no reactions or joint loads (NaN, as the backend's reads) and no driver
// loads; its reductions over time (the energy: a robot with sensitivities has no contact
// pairs) are the backend's samples (reduced_reduce_sample) with their tangents. It checks
// the joints' laws for discontinuities crossed (crossed()) at every step end.
#include <cstdint>
#include <memory>
#include <vector>

#include "simphant/sim/sensitivity_engine.hpp"

namespace simphant {

class ThreadPool;  // core/thread_pool.hpp

/// W: tangents per pass (SensitivityEngine::pass_width: instantiated for 1, 4, 8 and 16).
template <int W>
class RobotSensitivityEngine final : public SensitivityEngine {
 public:
  static constexpr int kWidth = W;
  using D = Dual<double, W>;

  /// models: robots with solver aba or cga, a fixed-step integrator and no contact pairs
  /// (make_sensitivity_engine).
  RobotSensitivityEngine(const std::vector<Model>& models, int n_instances, SensitivitySeeds seeds, int threads);
  ~RobotSensitivityEngine() override;

  /// [bytes] per instance of `m` (a joint-space robot) with S parameters: per pass of
  /// kWidth tangents the model slot, state and inputs in Dual numbers, and the seeds (with
  /// a floating base's quaternion branch).
  static double instance_bytes(const Model& m, int S);
  /// [bytes] of one worker's scratch (a step workspace in Dual numbers).
  static double worker_bytes();

  void set_inputs(const int* ids, int count, const double* u) override;
  void set_reductions(const ReductionLayout& L) override;
  void start(const int* ids, int count, const double* y, const std::int8_t* status, std::int64_t batch_step) override;
  void advance(std::int64_t batch_step, int n_steps) override;
  void read(double* out, const std::int8_t* status = nullptr) const override;
  void read_frame(const FrameSensitivities& out, const std::int8_t* status, std::int64_t batch_step) override;
  void read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step) override;
  ArrayView state_tangent_view() override;

 private:
  struct Pass;
  struct Worker;
  /// Instance i's tangents are valid: every pass's status Ok, not crossed(), and status[i]
  /// Ok where given.
  bool tangents_valid(std::size_t i, const std::int8_t* status) const;
  /// joint_law_branch of each of instance i's joints at its state and inputs now, into out (n_joints).
  void branches(std::size_t i, std::uint8_t* out) const;
  /// Calls f(i, worker) for every instance on the pool.
  template <class F>
  void each_instance(F f) const;

  int n_, n_joints_, floating_, ny_, n_bodies_, n_model_joints_, n_drivers_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace simphant
