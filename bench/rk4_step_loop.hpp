#pragma once
// The timed loop of the CPU step benchmarks: one instance-step (rk4_step) per benchmark
// iteration, from the assembled state, restarted there every `restart_every` steps (and
// after a failed step) so that every configuration is timed near the same states.
#include <benchmark/benchmark.h>

#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/model/model.hpp"

namespace simphant::bench {

/// Assembles the model's initial state into d and times rk4_step with `inputs`
/// (n_inputs, or null when the model has none). Sets items processed = steps.
inline void time_rk4_steps(benchmark::State& state, const Model& model, Data& d, const double* inputs,
                           int restart_every) {
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  assemble(model, d, Y.data());
  const std::vector<double> Y0 = Y;
  int steps = 0;
  for (auto _ : state) {
    if (!rk4_step(model, d, steps * model.solver.dt, Y.data(), inputs, model.solver.dt) || ++steps == restart_every) {
      Y = Y0;
      steps = 0;
    }
    benchmark::DoNotOptimize(Y.data());
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace simphant::bench
