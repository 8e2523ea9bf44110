#pragma once
// DaeSensitivityEngine: the sensitivity engine of the maximal-coordinate DAE
// (sim/sensitivity_engine.hpp): the cuda-fused path's own per-thread step
// (kernels/fused_stage.hpp: fused_stage_thread, fused_euler_thread) instantiated with
// T = Dual<double, W> (W tangents per pass), its values bit for bit the cpu-simd backend's scalar form
// from the same assembled start (the `cpu` backend's reference step rounds differently).
// The reactions, joint loads, driver loads and energy of a frame come from the fused
// path's frame (kernels/batch_step.hpp, enqueue_frame) evaluated in dual numbers (one
// Schur solve per instance and pass), the joint loads from its reactions by
// formulas/joint_loads.hpp with the joint frames' own tangents. A robot's joint laws are
// checked for discontinuities crossed (crossed()) at every step end.
#include <cstdint>
#include <memory>
#include <vector>

#include <Eigen/QR>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/sim/sensitivity_engine.hpp"

namespace simphant {

/// W: tangents per pass (SensitivityEngine::pass_width: instantiated for 1, 4, 8 and 16).
template <int W>
class DaeSensitivityEngine final : public SensitivityEngine {
 public:
  static constexpr int kWidth = W;
  using D = Dual<double, W>;

  /// models: the DAE path with a fixed-step integrator (make_sensitivity_engine); kept
  /// for the joint laws' checks (crossed()).
  DaeSensitivityEngine(std::shared_ptr<const std::vector<Model>> models, int n_instances, SensitivitySeeds seeds,
                       int threads);
  ~DaeSensitivityEngine() override;

  void set_inputs(const int* ids, int count, const double* u) override;
  void set_reductions(const ReductionLayout& L) override;
  void start(const int* ids, int count, const double* y, const std::int8_t* status, std::int64_t batch_step) override;
  void advance(std::int64_t batch_step, int n_steps) override;
  void read(double* out, const std::int8_t* status = nullptr) const override;
  void read_frame(const FrameSensitivities& out, const std::int8_t* status, std::int64_t batch_step) override;
  void read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step) override;
  void read_refinement(RefinementRecord* out) const override;
  ArrayView state_tangent_view() override;

 private:
  struct Pass;
  /// A worker's buffers for check_branches: a state and inputs in double, the branches.
  struct Scratch {
    std::vector<double> y;
    std::vector<std::uint8_t> branch;
  };
  /// Steps instance i of `pass` (after each step of the first pass, check_branches).
  void advance_instance(Pass& pass, int i, std::int64_t batch_step, int n_steps, Scratch& scratch);
  /// note_branches of instance i from the first pass's state and inputs
  /// (dae_joint_law_branches, sim/joint_coordinates.hpp); scratch: a worker's buffer.
  void check_branches(std::size_t i, BranchCheck when, Scratch& scratch);
  /// Instance i's tangents are valid: every pass's status Ok, not crossed(), and status[i]
  /// Ok where given.
  bool tangents_valid(std::size_t i, const std::int8_t* status) const;
  /// Calls f(c, pass, b, P) for each pass c: b its buffers with the step counter at
  /// batch_step, P the Schur pattern (a read's dual frame or sample at that step).
  template <class F>
  void each_pass_at(std::int64_t batch_step, F f);
  /// Projects instance i's starting tangents (every pass's state Y at batch_step, the
  /// instance's clock at 0) onto the tangent of the assembled constraints, the implicit
  /// function theorem on Phi = 0 and Phi_q qdot + Phi_t = 0: the tangent of Phi along the
  /// seeds, Phi_q dq + Phi_p dp, is removed from the position tangents with the
  /// minimum-norm change -Phi_q^+ (Phi_q dq + Phi_p dp) in the assembly's coordinates (r,
  /// the body-frame rotation vector), then that of the velocity residual from the velocity
  /// tangents, and each quaternion's tangent along p (|p| = 1 at every value). Only where
  /// project_seeds_, and where some starting tangent is not 0 (docs/sensitivities.md,
  /// "Seeds").
  void project_seeds(std::size_t i, std::int64_t batch_step);
  /// Sets instance i's reduction accumulators of pass p to no samples, tangents 0.
  void clear_reductions(Pass& p, std::size_t i) const;

  int n_, N_, ny_;
  bool project_seeds_ = false;  ///< the assembly solves Phi = 0 alone, densely (project_seeds)
  /// project_seeds' last Phi_q (m, 6 N) and its decomposition, reused for the next
  /// instance with the same Phi_q.
  Eigen::MatrixXd projection_A_;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> projection_cod_;
  std::shared_ptr<const std::vector<Model>> models_;
  batch::PackedModel<double> packed_;
  SchurPattern pattern_;
  ReductionLayout red_;  ///< the reductions differentiated (set_reductions)
  std::vector<int> slot_;  ///< (n_params) every parameter per instance: slot p = p
  std::vector<double> param_values_;  ///< (n + 1, n_params) the passes' BatchBuffers::param_values
  std::vector<std::unique_ptr<Pass>> passes_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<Scratch> scratch_;  ///< per worker (check_branches)
};

}  // namespace simphant
