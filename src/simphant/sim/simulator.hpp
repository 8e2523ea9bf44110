#pragma once
// Simulator: the C++ service core that the CLI uses (issue 2, item 8). Create it from
// per-instance models (scene + sweep), set actuator inputs, advance, read results.
//
//   auto scene = simphant::load_scene("examples/four_bar.json");
//   auto samples = simphant::sample_sweep(scene.sweep, 1000);
//   auto sim = simphant::Simulator::create(simphant::build_instance_models(scene, samples), {});
//   sim->advance(100);
//   std::vector<double> y(sim->n_instances() * sim->model().n_bodies() * 13);
//   sim->read_states(y.data());
#include <memory>
#include <string>
#include <vector>

#include "simphant/sim/backend.hpp"

namespace simphant {

struct SimulatorOptions {
  /// "cpu" | "cuda" | "auto" (cuda when this build has it and a CUDA device is present,
  /// else cpu).
  std::string backend = "auto";
  int threads = 0;                  ///< CPU workers (the cpu backend, and assembly); 0 = all
  std::string precision = "fp64";   ///< "fp64" | "fp32" (fp32: the cuda backend only)
  bool use_cuda_graph = true;       ///< cuda: replay one captured step (false: plain launches)
  std::string schur = "auto"; // "auto" | "dense" | "sparse"
};

/// Not thread-safe: call one Simulator from one thread at a time (its calls use the
/// backend's own worker threads and workspaces). Separate Simulators are independent.
class Simulator {
 public:
  /// models: one per instance, or one shared by all (then n_instances gives the count).
  /// All models must share one topology (same bodies, joints, forces). Assembles every
  /// instance; an instance that cannot assemble gets InstanceStatus::AssemblyFailed.
  /// Throws std::invalid_argument for an unknown backend, precision or inconsistent
  /// models, BackendError when the cuda backend cannot run (no device, too small, a
  /// failed CUDA call).
  static std::unique_ptr<Simulator> create(std::vector<Model> models, const SimulatorOptions& options,
                                           int n_instances = -1);

  const Model& model() const { return models_->front(); }  ///< instance 0's model
  int n_instances() const { return backend_->n_instances(); }
  const char* backend_name() const { return backend_->name(); }
  std::string backend_details() const { return backend_->details(); }
  void set_inputs(const double* u) { backend_->set_inputs(u); }
  void set_inputs_device(const double* d_u) { backend_->set_inputs_device(d_u); }
  void advance(int n_steps) { backend_->advance(n_steps); }
  void synchronize() { backend_->synchronize(); }
  double time() const { return backend_->time(); }
  std::int64_t steps_taken() const { return backend_->steps_taken(); }
  void read_states(double* out) const { backend_->read_states(out); }
  void read_reactions(double* out) const { backend_->read_reactions(out); }
  void read_constraint_violation(double* out) const { backend_->read_constraint_violation(out); }
  void read_energy(double* total, double* kinetic = nullptr) const { backend_->read_energy(total, kinetic); }
  void read_status(std::int8_t* status, double* status_time) const { backend_->read_status(status, status_time); }
  const std::vector<AssemblyResult>& assembly() const { return backend_->assembly(); }
  /// Joint coordinates per instance (robot scenes), 0 if none; see Backend.
  int n_joint_coordinates() const { return backend_->n_joint_coordinates(); }
  void read_joint_state(double* q, double* qd, double* tau) const { backend_->read_joint_state(q, qd, tau); }

 private:
  Simulator(std::shared_ptr<const std::vector<Model>> models, std::unique_ptr<Backend> backend)
      : models_(std::move(models)), backend_(std::move(backend)) {}
  std::shared_ptr<const std::vector<Model>> models_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace simphant
