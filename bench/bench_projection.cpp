// Cost per instance-step of each solver.projection option (docs/solver.md, Projection onto
// the constraint manifold) on the CPU reference path, side by side in one run: one RK4
// step (4 evaluations) plus the projection per iteration, on the redundant-row examples
// and the parallelogram chains of tests/parallelogram_chain.hpp (N = 8 and 40 cells), each
// model as a run makes it (redundant rows removed, auto resolved: set_removed_rows,
// set_auto_projection). The steps start at the assembled initial state; the examples stay
// away from any singular configuration, the chains pass their flat one about six times in
// the 2000 steps before the restart.
// Reported as items_per_second = instance-steps per second. A measurement, not a test.
//
//   ./build/bench/bench_projection --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "parallelogram_chain.hpp"
#include "rk4_step_loop.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

const char* const kModels[] = {"double_pendulum", "four_bar", "slider_crank", "bricard", "chain_8", "chain_40"};
const Projection kModes[] = {Projection::None, Projection::Velocity, Projection::PositionVelocity, Projection::Auto};

Model load_model(const std::string& name, Projection projection) {
  Model model;
  if (name.rfind("chain_", 0) == 0) {
    test::ParallelogramChain ch;
    ch.cells = std::stoi(name.substr(6));
    model = parse_scene(ch.scene(1e-3, 1.0, "none").dump()).model;
  } else {
    model = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json").model;
  }
  model.solver.projection = projection;
  std::vector<Model> run{model};
  set_removed_rows(run);
  set_auto_projection(run);
  return run.front();
}

// Args: model index, projection (0 none, 1 velocity, 2 position_velocity, 3 auto).
void BM_StepWithProjection(benchmark::State& state) {
  const Model model = load_model(kModels[state.range(0)], kModes[state.range(1)]);
  Data d(model);
  simphant::bench::time_rk4_steps(state, model, d, nullptr, 2000);
  char pivot[48] = "";
  if (model.solver.projection == Projection::Auto)
    std::snprintf(pivot, sizeof pivot, " (pivot %.2g)", model.solver.auto_projection_pivot);
  state.SetLabel(std::string(kModels[state.range(0)]) + " m=" + std::to_string(model.n_rows) + " " +
                 projection_name(model.solver.projection) + pivot + (d.sparse_schur ? " sparse" : " dense"));
}
BENCHMARK(BM_StepWithProjection)->ArgsProduct({{0, 1, 2, 3, 4, 5}, {0, 1, 2, 3}});

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
