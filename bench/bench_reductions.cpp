// Cost of the per-instance reductions over time (docs/solver.md, "Reductions over
// time"): whole `simphant run` jobs (job/run_job.hpp) of the slider-crank and the
// four-bar on the cpu backend, one thread, 64 instances, 1 s (1000 steps), side by side:
//   0  recording off: frames "none", reductions "none"
//   1  peak-load study: frames "first_last", reductions "all"
//   2  frames "none", reductions "all"
//   3  every frame recorded: frames "every" (the scene's record_every), reductions "none"
// Reported time per job; the ratios 1/0 and 2/0 are the reductions' cost. A
// measurement, not a test.
//
//   ./build/bench/bench_reductions --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "simphant/job/run_job.hpp"

namespace simphant {
namespace {

const char* const kScenes[] = {"slider_crank", "four_bar"};
const char* const kVariants[] = {"off", "first_last+all", "none+all", "every"};

void BM_RunJob(benchmark::State& state) {
  const std::string scene = kScenes[state.range(0)];
  const int variant = static_cast<int>(state.range(1));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "simphant_bench_reductions";
  std::filesystem::create_directories(dir);
  JobOptions o;
  o.scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + scene + ".json";
  o.threads = 1;
  o.backend = "cpu";
  o.instances = 64;
  o.has_t_end = true;
  o.t_end = 1.0;
  o.checkpoint_every_s = 0;
  o.frames = variant == 1 ? "first_last" : variant == 3 ? "every" : "none";
  o.reductions = variant == 1 || variant == 2 ? "all" : "none";
  o.out = (dir / (scene + "_" + std::to_string(variant) + ".h5")).string();
  JobHooks quiet;
  quiet.progress = [](const JobProgress&) {};
  for (auto _ : state) {
    const JobResult r = run_job(o, quiet);
    if (r.exit_code != 0) state.SkipWithError("run failed");
  }
  state.SetLabel(scene + " " + kVariants[variant]);
}
BENCHMARK(BM_RunJob)->ArgsProduct({{0, 1}, {0, 1, 2, 3}})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace simphant

BENCHMARK_MAIN();
