// Helpers of the dopri5 backend tests: a model compiled from a scene document with the
// dopri5 integrator and a CPU backend over it.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"

namespace simphant::test {

/// Adaptive settings of one run (SolverSettings' fields of the same names).
struct Dopri5Settings {
  double rtol = 1e-6, atol = 1e-9, min_step = 0, max_step = 0, first_step = 0;
};

/// The scene document compiled (no sweep) with solver.integrator dopri5 and `s`.
inline Model dopri5_model(const nlohmann::json& scene, const Dopri5Settings& s) {
  Model m = compile_model(scene);
  m.solver.integrator = Integrator::Dopri5;
  m.solver.rtol = s.rtol;
  m.solver.atol = s.atol;
  m.solver.min_step = s.min_step;
  m.solver.max_step = s.max_step;
  m.solver.first_step = s.first_step;
  return m;
}

/// A CPU backend of n instances of `models` (1 shared or n) on `threads` threads.
inline std::unique_ptr<CpuBackend> dopri5_backend(std::vector<Model> models, int n = 1, int threads = 1) {
  return std::make_unique<CpuBackend>(std::make_shared<const std::vector<Model>>(std::move(models)), n, threads);
}

/// Instance i's state row (13 N) of a backend.
inline std::vector<double> state_of(const Backend& b, int i) {
  std::vector<double> y(static_cast<std::size_t>(b.state_size()));
  b.get_state(&i, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

}  // namespace simphant::test
