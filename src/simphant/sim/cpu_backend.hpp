#pragma once
// The CPU backends: every instance's state on the host (row-major rows), instances spread
// over the workers of a ThreadPool (core/thread_pool.hpp), one Data per worker, no
// allocation in the step loop. `cpu` steps each instance through the reference
// integrators (dynamics/rk4.hpp, dynamics/euler.hpp, the adaptive ones); `cpu-simd` steps
// the fixed-step integrators through the batched per-thread functions with instances in
// SIMD lanes (sim/cpu_simd_engine.hpp) and keeps everything else (reads, per-instance
// state, reductions, statuses) here. Each instance's arithmetic does not depend on which
// worker runs it, so results are bit-identical for any thread count.
#include <memory>
#include <vector>

#include "simphant/core/thread_pool.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"

namespace simphant {

/// What the adaptive integrators keep per instance between advance() calls, defined
/// with each of them (sim/cpu_dopri5.cpp, sim/cpu_bdf.cpp); the deleters are defined
/// there too, so that this header needs neither type complete.
struct CpuDopri5State;
struct CpuBdfState;
class CpuSimdEngine;
struct CpuSimdEngineDeleter {
  void operator()(CpuSimdEngine* e) const;
};
struct CpuDopri5StateDeleter {
  void operator()(CpuDopri5State* s) const;
};
struct CpuBdfStateDeleter {
  void operator()(CpuBdfState* s) const;
};

class CpuBackend final : public Backend {
 public:
  /// models: size 1 (shared) or n_instances (one per instance). threads <= 0: all.
  /// schur: how each worker factorises the Schur matrix (dynamics/data.hpp).
  /// simd: the `cpu-simd` backend (the fixed-step integrators through CpuSimdEngine; the
  /// reads factorise topology-ordered sparse as its step does, so schur must be Auto or
  /// Sparse). Throws std::invalid_argument naming the setting when the models are not for
  /// cpu-simd (cpu_simd_unsupported) or schur is Dense.
  CpuBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads,
             SchurFactorization schur = SchurFactorization::Auto, bool simd = false);
  ~CpuBackend() override;

  const char* name() const override { return engine_ ? "cpu-simd" : "cpu"; }
  std::string details() const override;
  int n_instances() const override { return n_instances_; }
  void set_inputs(const double* u) override;
  /// Dispatches on integrator(): advance_fixed, advance_dopri5 or advance_bdf.
  void advance(int n_steps) override;
  Integrator integrator() const override { return integrator_; }
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                            double* max_step) const override;
  int integrator_state_size() const override;
  void get_integrator_state(double* out) const override;
  void set_integrator_state(const double* in) override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  std::int64_t factorisation_recoveries() const override;
  void read_refinement(RefinementRecord* out) const override;
  void read_states(double* out) const override;
  void read_reactions(double* out) const override;
  int n_drivers() const override { return models_->front().n_drivers(); }
  void read_driver_loads(double* out) const override;
  void read_constraint_violation(double* out) const override;
  void read_energy(double* total, double* kinetic) const override;
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const override;
  const std::vector<AssemblyResult>& assembly() const override { return assembly_; }
  /// Robot models (Model::robot, solver "dae"): joint coordinates from the DAE state
  /// (sim/joint_coordinates.hpp; revolute q wrapped to (-pi, pi]); else 0 / nothing.
  int n_joint_coordinates() const override;
  void read_joint_state(double* q, double* qd, double* tau) const override;

  // Reductions over time (Backend): accumulators (n_instances, layout.size()) on the host,
  // sampled by rk4_step's hook (dynamics/rk4.hpp).
  void set_reductions(const std::vector<ReductionQuantity>& quantities) override;
  ReductionLayout reduction_layout() const override { return red_layout_; }
  void read_reductions(double* out) const override;
  void get_reduction_state(double* acc) const override;
  void set_reduction_state(const double* acc) override;

  // Per-instance state (Backend): y = Y's row, [q (7N), qdot (6N)].
  int state_size() const override { return ny_; }
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::int8_t* reasons) const override;
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::int8_t* reasons) override;
  void reset(const int* ids, int count) override;
  /// The first call makes the model storage per instance (a copy of the shared model
  /// for every instance), then replaces and assembles the listed instances' models.
  void set_models(const int* ids, int count, const Model* models) override;
  void set_inputs(const int* ids, int count, const double* u) override;
  /// Y itself: (n_instances, 13N) doubles, row-major.
  ArrayView state_view() override;
  /// (n_instances, n_inputs) doubles, row-major.
  ArrayView inputs_view() override;

 private:
  const Model& model_of(int i) const { return (*models_)[models_->size() == 1 ? 0 : i]; }
  /// Evaluates instance i at its current state with worker w's Data (for reads).
  Data& evaluate_at_state(int i, int worker) const;
  /// Each step checks its start state; the state an advance ends on (at batch step
  /// batch_step) is checked here: a violation past solver.violation_bound marks live
  /// instance i diverged (reason constraint_violation, or non_finite for NaN).
  void end_check(int i, int worker, std::int64_t batch_step);
  /// body(i, worker) for every instance i, on the pool's workers.
  template <class Body>
  void for_each_instance(const Body& body) const;
  /// Instance i's own time [s] when the batch has taken batch_step steps: its steps since
  /// reset times dt (docs/state.md), as the batched kernels' instance_time_thread.
  double instance_time(int i, std::int64_t batch_step) const {
    return static_cast<double>(batch_step - offset_[static_cast<std::size_t>(i)]) * dt_;
  }
  /// rk4, euler, symplectic_euler: one step of dt per grid step (dynamics/rk4.hpp,
  /// dynamics/euler.hpp).
  void advance_fixed(int n_steps);
  // The adaptive integrators, each defined in its own file with its state: dopri5 in
  // sim/cpu_dopri5.cpp, bdf in sim/cpu_bdf.cpp. Each integrates every live instance from
  // its grid time to the next n_steps grid times (docs/solver.md, "Integrators"), counts
  // into the step statistics below and sets status kReasonStepSizeUnderflow when it
  // cannot go on.
  void advance_dopri5(int n_steps);
  void advance_bdf(int n_steps);
  /// Numbers per instance of the adaptive integrator's state (integrator_state_size),
  /// and its copy out / in (get_/set_integrator_state), per integrator.
  int dopri5_state_size() const;
  void get_dopri5_state(double* out) const;
  void set_dopri5_state(const double* in);
  int bdf_state_size() const;
  void get_bdf_state(double* out) const;
  void set_bdf_state(const double* in);
  /// Instance i's adaptive integration starts afresh from its current state and time
  /// (first-step estimate): called by reset(), set_state() with y or steps, and
  /// set_models(); also clears its step statistics.
  void restart_integrator(int i);
  void restart_dopri5(int i);
  void restart_bdf(int i);

  std::shared_ptr<const std::vector<Model>> models_;
  int n_instances_;
  int threads_;
  int ny_;
  int n_inputs_;
  double dt_;
  std::int64_t steps_ = 0;
  std::vector<Model>* owned_models_ = nullptr;  ///< models_ once set_models made it per instance
  std::vector<double> Y_;                  ///< (n_instances, 13N)
  std::vector<double> Y0_;                 ///< (n_instances, 13N) assembled initial states (reset)
  std::vector<double> inputs_;             ///< (n_instances, n_inputs)
  std::vector<std::int8_t> status_;        ///< (n_instances)
  std::vector<std::int64_t> status_step_;  ///< (n_instances) instance step at which the status was set
  std::vector<std::int8_t> reason_;        ///< (n_instances) status reason (kReason*, formulas/runaway.hpp)
  std::vector<std::int8_t> reason0_;       ///< (n_instances) assembly's status reason (reset)
  std::vector<double> runaway_;            ///< (n_instances, 2) runaway bound coefficients a, b
  std::vector<std::int64_t> offset_;       ///< (n_instances) batch step of the instance's step 0
  std::vector<AssemblyResult> assembly_;   ///< (n_instances)
  /// (n_instances) the refined solves of each instance's steps on the scalar path
  /// (RefinementScope in cpu_backend.cpp; the cpu-simd engine keeps its own)
  std::vector<RefinementRecord> refinement_;
  ReductionLayout red_layout_;             ///< the enabled reductions (none by default)
  std::vector<double> red_acc_;            ///< (n_instances, red_layout_.size()) accumulators
  mutable std::vector<std::unique_ptr<Data>> workers_;  ///< one per thread
  std::unique_ptr<ThreadPool> pool_;                    ///< threads_ workers
  std::unique_ptr<CpuSimdEngine, CpuSimdEngineDeleter> engine_;  ///< cpu-simd: the fixed steps
  InstanceIds ids_;
  Integrator integrator_ = Integrator::Rk4;  ///< model.solver.integrator (shared by the batch)
  // Step statistics of the adaptive integrators (n_instances each, since the last reset;
  // read_step_statistics): accepted and rejected steps, smallest and largest accepted step [s].
  std::vector<std::int64_t> accepted_, rejected_;
  std::vector<double> min_step_, max_step_;
  std::unique_ptr<CpuDopri5State, CpuDopri5StateDeleter> dopri5_;  ///< made by advance_dopri5
  std::unique_ptr<CpuBdfState, CpuBdfStateDeleter> bdf_;           ///< made by advance_bdf
};

}  // namespace simphant
