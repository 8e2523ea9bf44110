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
  std::string backend = "auto";  ///< "auto" | "cpu" (CUDA backends: later issues)
  int threads = 0;               ///< CPU workers; 0 = all hardware threads
};

/// Not thread-safe: call one Simulator from one thread at a time (its calls use the
/// backend's own worker threads and workspaces). Separate Simulators are independent.
class Simulator {
 public:
  /// models: one per instance, or one shared by all (then n_instances gives the count).
  /// All models must share one topology (same bodies, joints, forces). Assembles every
  /// instance; an instance that cannot assemble gets InstanceStatus::AssemblyFailed.
  /// Throws std::invalid_argument for an unknown backend or inconsistent models.
  static std::unique_ptr<Simulator> create(std::vector<Model> models, const SimulatorOptions& options,
                                           int n_instances = -1);

  const Model& model() const { return models_->front(); }  ///< instance 0's model
  int n_instances() const { return backend_->n_instances(); }
  const char* backend_name() const { return backend_->name(); }
  void set_inputs(const double* u) { backend_->set_inputs(u); }
  void advance(int n_steps) { backend_->advance(n_steps); }
  double time() const { return backend_->time(); }
  std::int64_t steps_taken() const { return backend_->steps_taken(); }
  void read_states(double* out) const { backend_->read_states(out); }
  void read_reactions(double* out) const { backend_->read_reactions(out); }
  void read_constraint_violation(double* out) const { backend_->read_constraint_violation(out); }
  void read_energy(double* total, double* kinetic = nullptr) const { backend_->read_energy(total, kinetic); }
  void read_status(std::int8_t* status, double* status_time) const { backend_->read_status(status, status_time); }
  const std::vector<AssemblyResult>& assembly() const { return backend_->assembly(); }

 private:
  Simulator(std::shared_ptr<const std::vector<Model>> models, std::unique_ptr<Backend> backend)
      : models_(std::move(models)), backend_(std::move(backend)) {}
  std::shared_ptr<const std::vector<Model>> models_;
  std::unique_ptr<Backend> backend_;
};

}  // namespace simphant
