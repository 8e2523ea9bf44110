// CPU reference path, one instance-step (fixed-step RK4 = 4 DAE evaluations) per
// iteration, for every shipped example; and the batch throughput of the CPU backend on
// the four-bar with one thread and with all threads, side by side in one run.
// Reported as items_per_second = instance-steps per second. A measurement, not a test.
//
//   ./build/bench/bench_cpu_step --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <string>
#include <thread>
#include <vector>

#include "rk4_step_loop.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

const char* const kExamples[] = {"pendulum",     "double_pendulum", "slider_crank",       "four_bar",  "bricard",
                                 "spinning_top", "planar_puck",     "cylindrical_collar", "fixed_weld"};

Model load_example(const std::string& name) {
  return load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json").model;
}

void BM_Rk4Step(benchmark::State& state) {
  const Model model = load_example(kExamples[state.range(0)]);
  Data d(model);
  simphant::bench::time_rk4_steps(state, model, d, nullptr, 10000);
  state.SetLabel(std::string(kExamples[state.range(0)]) + " m=" + std::to_string(model.n_rows) +
                 " N=" + std::to_string(model.n_bodies()));
}
BENCHMARK(BM_Rk4Step)->DenseRange(0, 8);

// Dense (Eigen LLT) vs topology-ordered sparse Schur factorisation, one instance-step
// per iteration, on the benchmark suite's models (bench_models.hpp): chain_1 .. chain_32,
// arm7, slider_crank, four_bar, bricard. Args: model index, 0 dense / 1 sparse. The
// ratio of each pair is the crossover that SchurFactorization::Auto encodes (data.cpp).
const std::vector<std::string>& schur_models() {
  static const std::vector<std::string> names = simphant::bench::default_model_names();
  return names;
}

void BM_Rk4StepSchur(benchmark::State& state) {
  const std::string& name = schur_models()[state.range(0)];
  const Model model = simphant::bench::bench_model(name, std::string(SIMPHANT_SOURCE_DIR) + "/examples");
  const bool sparse = state.range(1) != 0;
  Data d(model, sparse ? SchurFactorization::Sparse : SchurFactorization::Dense);
  std::vector<double> inputs(model.n_inputs, 0.0);
  simphant::bench::time_rk4_steps(state, model, d, inputs.data(), 1000);
  state.SetLabel(name + (sparse ? " sparse" : " dense") + " m=" + std::to_string(model.n_rows));
}
BENCHMARK(BM_Rk4StepSchur)->ArgsProduct({benchmark::CreateDenseRange(0, 9, 1), {0, 1}});

// The refined regularised solve (docs/solver.md, "The refined regularised solve"): one
// instance-step per iteration with solver.refinement_steps = 0 (the plain regularised
// solve), 1, 2, 4 and 10 (the default; the residual control stops each solve once it
// is converged, after at least two corrections), on the benchmark suite's models with
// the Auto Schur factorisation and their redundant rows kept; with the redundant rows
// removed as a run removes them (dynamics/redundant_rows.hpp); and with
// tikhonov_epsilon = 0, where C with kept redundant rows (four-bar, slider-crank,
// Bricard) is singular to round-off and every evaluation takes the pivot recovery (a
// second factorisation; the label says how many evaluations recovered).
// Args: model index, refinement steps, 0 rows kept / 1 eps = 0 / 2 rows removed.
void BM_Rk4StepRefinement(benchmark::State& state) {
  const std::string& name = schur_models()[state.range(0)];
  std::vector<Model> models = {simphant::bench::bench_model(name, std::string(SIMPHANT_SOURCE_DIR) + "/examples")};
  Model& model = models.front();
  model.solver.refinement_steps = static_cast<int>(state.range(1));
  if (state.range(2) == 1) model.solver.tikhonov_epsilon = 0;
  if (state.range(2) == 2) {
    model.solver.redundant_rows = RedundantRows::Remove;
    set_removed_rows(models);
  }
  Data d(model);
  std::vector<double> inputs(model.n_inputs, 0.0);
  simphant::bench::time_rk4_steps(state, model, d, inputs.data(), 1000);
  state.SetLabel(name + " m=" + std::to_string(model.n_rows) + (d.sparse_schur ? " sparse" : " dense") +
                 " refinement_steps=" + std::to_string(state.range(1)) + (state.range(2) == 1 ? " eps=0" : "") +
                 (state.range(2) == 2 ? " removed" : "") + " recovered=" + std::to_string(d.factorisation_recoveries));
}
BENCHMARK(BM_Rk4StepRefinement)->ArgsProduct({benchmark::CreateDenseRange(0, 9, 1), {0, 1, 2, 4, 10}, {0}});
BENCHMARK(BM_Rk4StepRefinement)->ArgsProduct({benchmark::CreateDenseRange(0, 9, 1), {10}, {1, 2}});

// 1024 four-bar instances, 10 steps per iteration; Arg = threads (0: all).
void BM_FourBarBatch(benchmark::State& state) {
  const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json");
  const int n = 1024, steps = 10;
  auto sim = Simulator::create({scene.model}, SimulatorOptions{"cpu", static_cast<int>(state.range(0))}, n);
  for (auto _ : state) sim->advance(steps);
  state.SetItemsProcessed(state.iterations() * n * steps);
  state.SetLabel("threads=" + std::to_string(state.range(0) ? state.range(0) : std::thread::hardware_concurrency()));
}
BENCHMARK(BM_FourBarBatch)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
