#pragma once
// SensitivityEngine: forward sensitivities of the DAE state with respect to scene
// parameters (docs/sensitivities.md), by the cuda-fused path's own per-thread step
// (kernels/fused_stage.hpp: fused_stage_thread, fused_euler_thread) instantiated with
// T = Dual<double, kWidth> (math/dual.hpp) and run on the CPU, one instance at a time
// on a ThreadPool. There is no second copy of the dynamics: the tangents are the exact
// derivatives of the discrete step (the converged solve differentiated, every branch
// taken on values).
//
// The engine runs beside a Simulator's backend (sim/simulator.hpp) on its own Dual
// state, whose values are the fused path's trajectory from the same assembled start:
// bit for bit the values of the cpu-simd backend's scalar form, and the values of every
// other backend up to their own rounding (the `cpu` backend's reference step rounds
// differently). Its tangents do not depend on how the steps are split into advances nor
// on the thread count.
//
// Parameters beyond kWidth run in further passes of kWidth tangents each ("chunks"),
// each with its own Dual arrays: S parameters cost ceil(S / kWidth) Dual steps.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/math/dual.hpp"
#include "simphant/model/model.hpp"
#include "simphant/sim/frame_sensitivities.hpp"

namespace simphant {

/// The tangents a sensitivity run starts from, per parameter path (sim/sensitivity_seeds.hpp).
struct SensitivitySeeds {
  std::vector<std::string> paths;  ///< (S) the parameters, in sweep path syntax
  /// (S, n_instances, n_params): d(flatten_params of instance i's model) / d(parameter s)
  std::vector<double> dparam;
  /// (S, n_instances, 13 N): d(assembled initial state y0, backend layout) / d(parameter s)
  std::vector<double> dy0;
  /// (S, n_instances, n_inputs): d(actuator default inputs, ForceElement::value) / d(parameter s)
  std::vector<double> dinput;
};

class SensitivityEngine {
 public:
  static constexpr int kWidth = 4;  ///< tangents per Dual pass
  using D = Dual<double, kWidth>;

  /// models: one per instance or one shared (the Simulator's, as created); the DAE path
  /// with a fixed-step integrator (rk4, euler, symplectic_euler: sensitivity_unsupported
  /// empty). seeds: S >= 1 parameters for n_instances. threads: ThreadPool workers (<= 0:
  /// default_thread_count()). Throws std::invalid_argument when the seeds' sizes do not fit.
  SensitivityEngine(const std::vector<Model>& models, int n_instances, SensitivitySeeds seeds, int threads);
  ~SensitivityEngine();

  int n_sensitivities() const { return static_cast<int>(seeds_.paths.size()); }
  const std::vector<std::string>& paths() const { return seeds_.paths; }

  /// Actuator inputs of the listed instances (ids null: all, in order), u (count, n_inputs),
  /// as Simulator::set_inputs gives them to the backend: constants (zero tangents), where
  /// the actuators' default inputs carry the seeds' tangents (dinput).
  void set_inputs(const int* ids, int count, const double* u);

  /// The reductions over time to differentiate (the backend's layout, Backend::
  /// reduction_layout; no channel: none). Clears every instance's accumulators, as the
  /// backend's set_reductions does.
  void set_reductions(const ReductionLayout& L);

  /// Starts the listed instances (ids null: all, in order) from y (count, 13 N) and
  /// status (count) as Backend::get_state gives them after assembly or a reset, their
  /// tangents at their seeds, their own clock at 0 at batch step batch_step, their
  /// reductions' accumulators cleared.
  void start(const int* ids, int count, const double* y, const std::int8_t* status, std::int64_t batch_step);

  /// Steps every instance whose status is Ok by n_steps from batch step batch_step (the
  /// backend's steps_taken() before its advance). An instance whose Dual step fails (or
  /// that is not Ok) has no valid tangents until it starts again.
  void advance(std::int64_t batch_step, int n_steps);

  /// out (n, N, 13, S): d(state in the recorded layout: r, p, v, omega_B per body) /
  /// d(parameter s), in the state's units per the parameter's unit; NaN for an instance
  /// without valid tangents (every pass's status Ok, and status[i] Ok where status, (n)
  /// the backend's statuses, is given).
  void read(double* out, const std::int8_t* status = nullptr) const;

  /// The derivatives d(quantity)/d(parameter s) of a recorded frame at the current state
  /// (FrameSensitivities: the reactions as Backend::read_reactions gives them, [F (W) [N],
  /// T about the anchor (W) [N m]] that joint j applies to its body_j; the joint and
  /// bearing loads of sim/joint_load_frames.hpp; the driver loads; the energy), the fused
  /// path's frame (kernels/batch_step.hpp, enqueue_frame) evaluated in dual numbers at
  /// batch step batch_step (one Schur solve per instance and pass), the joint loads from
  /// its reactions by formulas/joint_loads.hpp with the joint frames' own tangents; NaN
  /// as read(), and where that frame's solve fails.
  void read_frame(const FrameSensitivities& out, const std::int8_t* status, std::int64_t batch_step);

  /// out (n, C, kReductionTangentStats, S) for the C channels of set_reductions' layout:
  /// d(max, min, mean, rms)/d(parameter s) of each channel (reduction_stats_tangent) over
  /// the engine's step-start samples plus a sample of its current state, as
  /// Backend::read_reductions reads the values (batch step batch_step). The derivative
  /// of a max is that of the sample at the engine's own step of the max. NaN as read().
  void read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step);

 private:
  struct Pass;
  void advance_instance(Pass& pass, int i, std::int64_t batch_step, int n_steps);
  /// Instance i's tangents are valid: every pass's status Ok, and status[i] Ok where given.
  bool tangents_valid(std::size_t i, const std::int8_t* status) const;
  /// Calls f(c, pass, b, P) for each pass c: b its buffers with the step counter at
  /// batch_step, P the Schur pattern (a read's dual frame or sample at that step).
  template <class F>
  void each_pass_at(std::int64_t batch_step, F f);
  /// Sets instance i's reduction accumulators of pass p to no samples, tangents 0.
  void clear_reductions(Pass& p, std::size_t i) const;

  int n_, N_, ny_;
  SensitivitySeeds seeds_;
  batch::PackedModel<double> packed_;
  SchurPattern pattern_;
  ReductionLayout red_;  ///< the reductions differentiated (set_reductions)
  std::vector<int> slot_;  ///< (n_params) every parameter per instance: slot p = p
  std::vector<std::unique_ptr<Pass>> passes_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace simphant
