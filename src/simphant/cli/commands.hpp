#pragma once
// The simphant subcommands. Exit codes (README "Exit codes"): 0 ok, 2 bad input
// (scene or command line), 3 run failed (no instance ok, assembly failed in `check`,
// output not writable, backend not built, no CUDA device or a CUDA failure), 128 + signal when stopped by SIGINT (130)
// or SIGTERM (143) after writing what was computed.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/job/merge.hpp"
#include "simphant/job/run_job.hpp"

namespace CLI {
class App;
}

namespace simphant::cli {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitRunFailed = 3;

/// `simphant run`: the job's options (simphant/job/run_job.hpp) and how to report it.
struct RunOptions {
  JobOptions job;
  bool json = false;                 ///< print the summary as one JSON object instead of the text
  double progress_interval_s = 5.0;  ///< [s] between progress log lines when stderr is not a terminal
  std::string progress_file;         ///< --progress-file: progress records (JSON lines); "" none
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
  bool no_cpu_peak = false;       ///< --no-cpu-peak: skip the FMA peak measurement
};

/// `simphant merge` (merge_command.cpp, simphant/job/merge.hpp).
struct MergeCliOptions {
  MergeOptions merge;
  bool json = false;  ///< print the summary as one JSON object
};

/// `simphant report` (report_command.cpp, docs/report.md): runs python -m simphant.report.
struct ReportCliOptions {
  std::string results;                  ///< the run's HDF5 file
  std::string out;                      ///< output folder ("" : <results stem>_report)
  std::vector<std::string> quantities;  ///< empty: all
};

int run_command(const RunOptions& options);
int merge_command(const MergeCliOptions& options);
int check_command(const CheckOptions& options);
/// Registers `bench` and its options (bound to `options`) on `app`.
CLI::App* add_bench_subcommand(CLI::App& app, BenchCliOptions& options);
int bench_command(const BenchCliOptions& options);
/// Registers `report` and its options (bound to `options`) on `app`.
CLI::App* add_report_subcommand(CLI::App& app, ReportCliOptions& options);
int report_command(const ReportCliOptions& options);
/// Registers `serve` / `view` (serve_command.cpp): their arguments pass through to the
/// Python modules simphant.serve.__main__ / simphant.serve.view (docs/service.md).
CLI::App* add_serve_subcommand(CLI::App& app);
CLI::App* add_view_subcommand(CLI::App& app);
int serve_command(const CLI::App& serve);
int view_command(const CLI::App& view);

}  // namespace simphant::cli
