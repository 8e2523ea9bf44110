#pragma once
// The benchmark suite's measurement loop (`simphant bench`, docs/benchmarks.md): for
// every model, configuration and batch size, one Simulator with one shared Model,
// instance-steps per second of fixed RK4 steps.
//
// Measurement of one row: create the Simulator (timed apart), advance 1 step and
// synchronise (timed: a step slower than max_step_seconds stops the row as "too_slow" and
// the larger sizes of that model and configuration are skipped), advance 1 more (warm-up
// of 2 steps), then time batches of k steps (advance(k) + synchronize()), k = 1 first,
// until one batch takes >= min_seconds. Each next k at least doubles, or jumps to the
// count predicted to take 1.2 x min_seconds from the last batch (at most 64 x, at most
// 2^20 steps), so the timed batches add up to about 1-2 x min_seconds. That batch is
// timed `repeats` times in all and the shortest time kept (a loaded machine only slows a
// batch down). Throughput = k x instances / that time. A configuration that throws (BackendError:
// no device, does not fit the device; std::invalid_argument: unknown backend or option)
// gives a row with status "error" and the message; the suite goes on.
//
// Before anything is measured, every row's host memory is estimated
// (job/memory_estimate.hpp: the Simulator's per-worker Data with its dense Phi_q and, on
// the dense Schur path, C and its factor, the per-instance buffers, assembly); rows that
// would not fit refuse the whole suite (BenchRefused).
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/bench/bench_config.hpp"
#include "simphant/model/model.hpp"

namespace simphant::bench {

/// The default batch sizes: CPU 1, 4, 16, 64, 256, 1024, 4096; GPU 1, 16, 256, 4096,
/// 65536, 262144, 1048576.
const std::vector<int>& default_cpu_sizes();
const std::vector<int>& default_gpu_sizes();

struct BenchOptions {
  std::vector<std::string> models;    ///< bench_model names (bench_models.hpp)
  std::vector<BenchConfig> configs;
  std::vector<int> cpu_sizes, gpu_sizes;  ///< instances per batch, for cpu / GPU configs
  double min_seconds = 0.2;       ///< a timed batch takes at least this long [s]
  double max_step_seconds = 10;   ///< a single step slower than this stops the row [s]
  double time_limit_seconds = 0;  ///< > 0: rows not started within this wall time are skipped [s]
  int repeats = 1;                ///< timings of the final batch; the shortest is kept
  std::string examples_dir;       ///< folder of arm7.json and the example scenes
};

/// One measured (or failed) row. Numbers that do not apply are NaN (null in the JSON).
struct BenchRow {
  std::string model;
  std::string solver;                     ///< "dae", or "aba" / "cga" for a robot in joint coordinates
  int n_bodies = 0, n_joints = 0, m = 0;  ///< the model's sizes (m: constraint rows of its DAE form)
  BenchConfig config;
  int threads = 0;          ///< CPU worker threads used: min(threads, instances, or for cpu-simd
                            ///< groups of simd::kLaneWidth instances); 0 for GPU rows
  int instances = 0;
  std::int64_t steps = 0;   ///< steps of the timed batch
  double seconds = 0;       ///< wall time of the timed batch (the shortest of the repeats) [s]
  double create_seconds = 0;  ///< Simulator::create (assembly, packing, upload) [s]
  double instance_steps_per_s = 0;
  std::string status;       ///< "ok" | "error" | "too_slow" | "skipped"
  std::string error;        ///< the reason when status is not "ok"
  int not_ok_instances = 0; ///< instances flagged (assembly failed / diverged) at the end
  // The modelled cost (cost_model.hpp) and the device (cuda_factory.hpp; the CPU: its
  // measured FMA peak, cpu_peak.hpp). The cost model describes the DAE: its columns
  // (bytes, flops, achieved, fractions) stay NaN for a robot in joint coordinates, which
  // gets the GPU memory figures only. CPU rows get the FLOP columns only (their bytes
  // would be cache traffic, not DRAM): achieved_GFLOPs and fraction_of_peak_flops against
  // peak_GFLOPs = the measured one-core peak x threads.
  double bytes_per_instance_step = 0, flops_per_instance_step = 0;
  double achieved_GBps = 0, achieved_GFLOPs = 0;
  double fraction_of_peak_bandwidth = 0, fraction_of_peak_flops = 0;
  double peak_GFLOPs = 0;                ///< the FLOP peak fraction_of_peak_flops is against [GFLOP/s]
  double device_bytes_per_instance = 0;  ///< cuda_bytes_per_instance [bytes]
  double max_instances_fit = 0;          ///< floor(0.9 total memory / device_bytes_per_instance)
};

/// Device figures the rows are set against (0 where unknown: no GPU, peak not measured).
struct DevicePeaks {
  double mem_bandwidth_GBps = 0, fp64_GFLOPs = 0, fp32_GFLOPs = 0;
  double total_memory = 0;  ///< [bytes]
  double cpu_fp64_GFLOPs_per_core = 0;  ///< measured FMA peak of one core (cpu_peak.hpp)
};

/// The rates of an ok DAE row from its instance_steps_per_s and modelled cost:
/// achieved_GFLOPs = instance_steps_per_s x flops_per_instance_step / 1e9; GPU rows also
/// achieved_GBps and fraction_of_peak_bandwidth; peak_GFLOPs = the device's fp64 / fp32
/// peak (GPU) or cpu_fp64_GFLOPs_per_core x threads (CPU); fraction_of_peak_flops =
/// achieved_GFLOPs / peak_GFLOPs. A peak of 0 leaves the fractions NaN.
void fill_rates(const DevicePeaks& peaks, BenchRow& r);

/// "" when this build has the cpu-simd backend, else why not (Simulator::create's message).
std::string cpu_simd_unavailable_reason();

/// The suite asks for rows whose memory would not fit this machine; what() lists them with
/// their estimates ("chain_5000 cpu1-dense x 1: needs about 14.2 GiB (...)") and the
/// machine's memory.
class BenchRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Called after each row (progress on stderr in the CLI): row, its index, the row count.
using BenchProgress = std::function<void(const BenchRow&, int, int)>;

/// Runs the suite. Models are built first (bench_model: throws std::invalid_argument or
/// SceneError for a bad name, before anything is measured), then every row's memory is
/// checked (BenchRefused); measurement errors become rows. rows are in the order model,
/// configuration, size.
std::vector<BenchRow> run_bench(const BenchOptions& options, const DevicePeaks& peaks, const BenchProgress& progress);

}  // namespace simphant::bench
