// `simphant bench`: the benchmark suite (docs/benchmarks.md). Measures instance-steps per
// second of every model x configuration x batch size (src/simphant/bench/), prints
// progress on stderr and a table on stdout, writes JSON with --json; --export DIR writes
// the suite's models as URDF + robot scenes instead. Exit 3 when rows would not fit in
// memory (refused before measuring) or when any row failed (status "error": named on
// stderr).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

#include "commands.hpp"
#include "git_commit.hpp"
#include "stdout_check.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/bench/bench_ratios.hpp"
#include "simphant/bench/bench_report.hpp"
#include "simphant/bench/bench_runner.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant::cli {

namespace {

/// --examples, else ./examples when it holds the scenes, else the source tree's.
std::string examples_dir(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  if (std::filesystem::is_regular_file("examples/arm7.json", ec)) return "examples";
#ifdef SIMPHANT_SOURCE_DIR
  return std::string(SIMPHANT_SOURCE_DIR) + "/examples";
#else
  return "examples";
#endif
}

bench::BenchOptions suite_options(const BenchCliOptions& o) {
  bench::BenchOptions s;
  s.models = o.models;
  if (s.models.empty())
    s.models = o.quick ? std::vector<std::string>{"chain_1", "chain_4", "arm7", "four_bar"} : bench::default_model_names();
  std::vector<std::string> configs = o.configs;
  // The default ("all") takes the GPU configurations only where they can run; named
  // ones (--configs, --gpu-only) are measured, and fail, as asked.
  const std::string no_gpu = cuda_unavailable_reason();
  const std::string no_simd = bench::cpu_simd_unavailable_reason();
  const bool grouped = configs.empty() || std::any_of(configs.begin(), configs.end(), [](const std::string& c) {
    return c == "all" || c == "cpu1" || c == "cpu" || c == "cpu-all" || c == "simd";
  });
  if (grouped && !o.gpu_only && !no_simd.empty())
    std::fprintf(stderr, "simphant bench: the cpu-simd configurations are left out: %s\n", no_simd.c_str());
  if (configs.empty() && !o.cpu_only && !o.gpu_only && !no_gpu.empty())
    std::fprintf(stderr, "simphant bench: the GPU configurations are left out: %s\n", no_gpu.c_str());
  if (configs.empty()) configs = {o.cpu_only ? "cpu-all" : o.gpu_only ? "gpu" : no_gpu.empty() ? "all" : "cpu-all"};
  s.configs = bench::select_bench_configs(configs, no_simd.empty());
  s.cpu_sizes = !o.cpu_sizes.empty() ? o.cpu_sizes : o.quick ? std::vector<int>{1, 64} : bench::default_cpu_sizes();
  s.gpu_sizes = !o.gpu_sizes.empty() ? o.gpu_sizes : o.quick ? std::vector<int>{1, 4096} : bench::default_gpu_sizes();
  s.min_seconds = o.min_seconds >= 0 ? o.min_seconds : (o.quick ? 0.05 : 0.2);
  s.max_step_seconds = o.max_step_seconds;
  s.time_limit_seconds = o.time_limit;
  s.repeats = o.repeats;
  s.examples_dir = examples_dir(o.examples_dir);
  return s;
}

/// Names the rows with status "error" on stderr; kExitRunFailed when there is one.
int failed_rows(const std::vector<bench::BenchRow>& rows) {
  std::vector<const bench::BenchRow*> failed;
  for (const bench::BenchRow& r : rows)
    if (r.status == "error") failed.push_back(&r);
  if (failed.empty()) return kExitOk;
  std::fprintf(stderr, "error: bench: %zu of %zu rows failed:\n", failed.size(), rows.size());
  for (const bench::BenchRow* r : failed)
    std::fprintf(stderr, "  %s %s x %d: %s\n", r->model.c_str(), r->config.name.c_str(), r->instances, r->error.c_str());
  return kExitRunFailed;
}

int export_models(const BenchCliOptions& o) {
  try {
    for (const std::string& f : bench::export_bench_models(o.export_dir, examples_dir(o.examples_dir),
                                                           bench::default_chain_sizes()))
      std::printf("%s\n", f.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: bench --export: %s\n", e.what());
    return kExitRunFailed;
  }
  return kExitOk;
}

}  // namespace

CLI::App* add_bench_subcommand(CLI::App& app, BenchCliOptions& o) {
  CLI::App* b = app.add_subcommand(
      "bench", "Benchmark suite: instance-steps per second per model, configuration and batch size (JSON)");
  b->add_option("--models", o.models,
                "Comma-separated models: chain_<N>, arm7, an examples/ scene stem, or a robot scene's stem + _aba / "
                "_cga for its joint-space solver, e.g. panda_aba (default: chain_1..chain_32, arm7, slider_crank, "
                "four_bar, bricard)")
      ->delimiter(',');
  CLI::Option* configs =
      b->add_option("--configs", o.configs,
                    "Comma-separated configurations: cpu1-dense, cpu1-sparse, cpu1-simd, cpu-dense, cpu-sparse, "
                    "cpu-simd, cuda64, cuda32, fused64, fused32, or groups cpu1, cpu, cpu-all, simd, cuda, fused, "
                    "gpu, all (default all; without a CUDA device cpu-all; groups leave cpu-simd out where the build "
                    "lacks it)")
          ->delimiter(',');
  CLI::Option* cpu_only = b->add_flag("--cpu-only", o.cpu_only, "Only the cpu configurations (= --configs cpu-all)");
  CLI::Option* gpu_only = b->add_flag("--gpu-only", o.gpu_only, "Only the GPU configurations (= --configs gpu)");
  cpu_only->excludes(gpu_only)->excludes(configs);
  gpu_only->excludes(configs);
  const auto positive = CLI::Range(1, std::numeric_limits<int>::max());
  b->add_option("--cpu-sizes", o.cpu_sizes, "Comma-separated batch sizes of the cpu configurations "
                                            "(default 1,4,16,64,256,1024,4096)")
      ->delimiter(',')
      ->check(positive);
  b->add_option("--gpu-sizes", o.gpu_sizes, "Comma-separated batch sizes of the GPU configurations "
                                            "(default 1,16,256,4096,65536,262144,1048576)")
      ->delimiter(',')
      ->check(positive);
  b->add_option("--min-seconds", o.min_seconds, "A timed batch of steps lasts at least this long [s] (default 0.2)")
      ->check(CLI::Range(0.0, 3600.0));
  b->add_option("--max-step-seconds", o.max_step_seconds,
                "A configuration whose single step takes longer is recorded as too slow [s]")
      ->check(CLI::Range(0.0, 3600.0));
  b->add_option("--time-limit", o.time_limit, "Skip the rows not started after this many seconds (0: no limit)")
      ->check(CLI::Range(0.0, 1e6));
  b->add_option("--repeats", o.repeats,
                "Time the final batch of each row this many times and keep the shortest (default 1)")
      ->check(CLI::Range(1, 100));
  b->add_flag("--quick", o.quick,
              "Short smoke run: chain_1, chain_4, arm7, four_bar; cpu sizes 1,64; GPU sizes 1,4096; "
              "min-seconds 0.05 (explicit options win)");
  b->add_option("--json", o.json, "Write the results as JSON to this file");
  b->add_option("--export", o.export_dir,
                "Write chain_N.urdf / chain_N.json (N = 1, 2, 4, 8, 16, 32) and arm7.urdf / arm7.json into this folder, and exit");
  b->add_option("--examples", o.examples_dir, "Folder of arm7.json and the example scenes (default: examples/)");
  b->add_flag("--no-cpu-peak", o.no_cpu_peak,
              "Skip the one-core FMA peak measurement (about 1 s): the cpu rows' fraction of peak stays null");
  return b;
}

int bench_command(const BenchCliOptions& o) {
  if (!o.export_dir.empty()) return export_models(o);
  bench::BenchOptions options;
  try {
    options = suite_options(o);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  if (!o.json.empty()) {
    // Refuse an unwritable output before measuring (the probe leaves no new file behind).
    std::error_code ec;
    const bool existed = std::filesystem::exists(o.json, ec);
    const bool writable = static_cast<bool>(std::ofstream(o.json, std::ios::app));
    if (!existed) std::filesystem::remove(o.json, ec);
    if (!writable || std::filesystem::is_directory(o.json, ec)) {
      const std::filesystem::path parent = std::filesystem::path(o.json).parent_path();
      const char* why = std::filesystem::is_directory(o.json, ec)                          ? "it is a folder"
                        : !parent.empty() && !std::filesystem::is_directory(parent, ec) ? "its folder does not exist"
                                                                                         : "it cannot be opened for writing";
      std::fprintf(stderr, "error: cannot write --json %s: %s\n", o.json.c_str(), why);
      return kExitRunFailed;
    }
  }
  bench::DevicePeaks peaks;
  const nlohmann::json machine = bench::machine_info(peaks, git_commit(), !o.no_cpu_peak);
  std::fprintf(stderr, "simphant bench: %zu models, %zu configurations; gpu: %s\n", options.models.size(),
               options.configs.size(), machine["gpu"].contains("name")
                                           ? machine["gpu"]["name"].get<std::string>().c_str()
                                           : machine["gpu"]["error"].get<std::string>().c_str());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<bench::BenchRow> rows;
  try {
    rows = bench::run_bench(options, peaks, [](const bench::BenchRow& r, int i, int n) {
      std::fprintf(stderr, "%s\n", bench::progress_line(r, i, n).c_str());
    });
  } catch (const bench::BenchRefused& e) {
    std::fprintf(stderr, "error: bench: %s\n", e.what());
    return kExitRunFailed;
  } catch (const std::exception& e) {  // a model that cannot be built: bad name or scene
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<bench::BenchRatio> ratios = bench::bench_ratios(rows);
  std::fputs(bench::bench_table(rows, ratios).c_str(), stdout);
  std::fprintf(stderr, "simphant bench: %zu rows in %.1f s\n", rows.size(), wall);
  if (!o.json.empty()) {
    nlohmann::json doc = bench::bench_json(machine, options, rows, ratios);
    doc["wall_seconds"] = wall;
    std::ofstream out(o.json);
    out << doc.dump(2) << "\n";
    out.close();
    if (!out) {
      std::fprintf(stderr, "error: cannot write --json %s\n", o.json.c_str());
      return kExitRunFailed;
    }
    std::fprintf(stderr, "simphant bench: wrote %s\n", o.json.c_str());
  }
  return finish_stdout(failed_rows(rows));
}

}  // namespace simphant::cli
