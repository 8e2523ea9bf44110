#pragma once
// The CPU reference backend: every instance's state on the host, instances spread
// over worker threads (OpenMP, static schedule), one Data per worker, no allocation in
// the step loop. Each instance's arithmetic does not depend on which worker runs it,
// so results are bit-identical for any thread count.
#include <memory>
#include <vector>

#include "simphant/dynamics/data.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"

namespace simphant {

class CpuBackend final : public Backend {
 public:
  /// models: size 1 (shared) or n_instances (one per instance). threads <= 0: all.
  /// schur: how each worker factorises the Schur matrix (dynamics/data.hpp).
  CpuBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads,
             SchurFactorization schur = SchurFactorization::Auto);

  const char* name() const override { return "cpu"; }
  std::string details() const override;
  int n_instances() const override { return n_instances_; }
  void set_inputs(const double* u) override;
  void advance(int n_steps) override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  std::int64_t factorisation_recoveries() const override;
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
  Data& evaluate_at_state(int i) const;
  /// Instance i's own time [s] when the batch has taken batch_step steps: its steps since
  /// reset times dt (docs/state.md), as the batched kernels' instance_time_thread.
  double instance_time(int i, std::int64_t batch_step) const {
    return static_cast<double>(batch_step - offset_[static_cast<std::size_t>(i)]) * dt_;
  }

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
  std::vector<std::int8_t> reason_;        ///< (n_instances) status reason (kReason*, dynamics/runaway.hpp)
  std::vector<std::int8_t> reason0_;       ///< (n_instances) assembly's status reason (reset)
  std::vector<double> runaway_;            ///< (n_instances, 2) runaway bound coefficients a, b
  std::vector<std::int64_t> offset_;       ///< (n_instances) batch step of the instance's step 0
  std::vector<AssemblyResult> assembly_;   ///< (n_instances)
  mutable std::vector<std::unique_ptr<Data>> workers_;  ///< one per thread
  InstanceIds ids_;
};

}  // namespace simphant
