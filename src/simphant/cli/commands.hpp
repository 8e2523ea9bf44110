#pragma once
// The simphant subcommands. Exit codes (README "Exit codes"): 0 ok, 2 bad input
// (scene or command line), 3 run failed (no instance ok, assembly failed in `check`,
// output not writable, backend not built, no CUDA device or a CUDA failure), 128 + signal when stopped by SIGINT (130)
// or SIGTERM (143) after writing what was computed.
#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace simphant::cli {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitRunFailed = 3;

struct RunOptions {
  std::string scene;              ///< scene file
  int instances = -1;             ///< > 0 overrides sweep.instances
  bool has_dt = false;
  double dt = 0;                  ///< [s], overrides solver.dt
  bool has_t_end = false;
  double t_end = 0;               ///< [s], overrides solver.t_end
  bool has_seed = false;
  std::uint64_t seed = 0;         ///< overrides sweep.seed
  int threads = 0;                ///< CPU workers, 0 = all hardware threads
  std::string backend = "auto";   ///< auto | cpu | cuda | cuda-fused
  std::string precision = "fp64"; ///< fp64 | fp32 (cuda only)
  std::string out;                ///< output file; empty = <scene stem>.h5 in the current directory
  std::string solver;             ///< "" (the scene's) | dae | aba | cga: overrides solver.type
};

struct CheckOptions {
  std::string scene;
  bool json = false;
};

/// `simphant bench` (bench_command.cpp, docs/benchmarks.md). Empty lists and negative
/// min_seconds mean the defaults (or --quick's).
struct BenchCliOptions {
  std::vector<std::string> models, configs;
  std::vector<int> cpu_sizes, gpu_sizes;
  bool cpu_only = false, gpu_only = false, quick = false;
  double min_seconds = -1;        ///< [s]; < 0: 0.2 (quick: 0.05)
  double max_step_seconds = 10;   ///< [s]
  double time_limit = 0;          ///< [s]; 0: none
  int repeats = 1;                ///< timings of the final batch (the shortest kept)
  std::string json;               ///< output file ("" : none)
  std::string export_dir;         ///< --export: write the models there instead of measuring
  std::string examples_dir;       ///< "" : ./examples or the source tree's
};

int run_command(const RunOptions& options);
int check_command(const CheckOptions& options);
/// Registers `bench` and its options (bound to `options`) on `app`.
CLI::App* add_bench_subcommand(CLI::App& app, BenchCliOptions& options);
int bench_command(const BenchCliOptions& options);

}  // namespace simphant::cli
