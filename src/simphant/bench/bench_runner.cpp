#include "simphant/bench/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>

#include "simphant/bench/bench_models.hpp"
#include "simphant/bench/cost_model.hpp"
#include "simphant/core/system_memory.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/simulator.hpp"
#include "simphant/simd/simd_step.hpp"

namespace simphant::bench {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kMaxBatchSteps = std::int64_t{1} << 20;
constexpr double kMaxGrowth = 64;    // a next batch is at most 64 x the last one
constexpr double kTargetMargin = 1.2;  // aim the predicted batch at 1.2 x min_seconds

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// "0.25 s", "12 s", "1e-07 s".
std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

/// Wall time of advance(k) + synchronize() [s].
double timed_advance(Simulator& sim, std::int64_t k) {
  const Clock::time_point t0 = Clock::now();
  sim.advance(static_cast<int>(k));
  sim.synchronize();
  return since(t0);
}

BenchRow row_skeleton(const std::string& name, const Model& model, const BenchConfig& config, int n) {
  BenchRow r;
  r.model = name;
  r.solver = bench_solver_name(model);
  r.n_bodies = model.n_bodies();
  r.n_joints = model.n_joints();
  r.m = model.n_rows;
  r.config = config;
  r.instances = n;
  // Work items: instances, or for cpu-simd groups of simd::kLaneWidth instances.
  const int items = config.backend == "cpu-simd" ? (n + simd::kLaneWidth - 1) / simd::kLaneWidth : n;
  r.threads = config.gpu() ? 0 : std::min(items, resolve_thread_count(config.threads));
  r.seconds = r.instance_steps_per_s = r.create_seconds = kNaN;
  r.bytes_per_instance_step = r.flops_per_instance_step = r.achieved_GBps = r.achieved_GFLOPs = kNaN;
  r.fraction_of_peak_bandwidth = r.fraction_of_peak_flops = r.device_bytes_per_instance = r.max_instances_fit = kNaN;
  r.peak_GFLOPs = kNaN;
  return r;
}

/// The GPU columns that do not need a measurement: modelled cost, memory per instance
/// and the largest batch that fits.
/// The cost model describes the DAE kernels: a robot in joint coordinates keeps those
/// columns null and gets only the memory figures (cuda_bytes_per_instance answers for it).
void fill_gpu_model_columns(const Model& model, const DevicePeaks& peaks, BenchRow& r) {
  if (!is_joint_space(model)) {
    const StepCost c = modelled_step_cost(model, r.config.backend, r.config.precision);
    r.bytes_per_instance_step = c.bytes;
    r.flops_per_instance_step = c.flops;
  }
  try {
    r.device_bytes_per_instance =
        static_cast<double>(cuda_bytes_per_instance(model, 0, r.config.backend, r.config.precision));
    // cuda_check_fits leaves 10 % of the free memory to cuSOLVER and the runtime.
    if (peaks.total_memory > 0) r.max_instances_fit = std::floor(0.9 * peaks.total_memory / r.device_bytes_per_instance);
  } catch (const std::exception&) {
    // No formula for this backend, or no CUDA build: left null.
  }
}

/// The CPU rows' modelled FLOPs per instance-step (the DAE's; null for joint space).
void fill_cpu_model_columns(const Model& model, BenchRow& r) {
  if (!is_joint_space(model))
    r.flops_per_instance_step =
        modelled_step_cost(model, r.config.backend, r.config.precision, r.config.schur).flops;
}

SimulatorOptions simulator_options(const BenchConfig& config) {
  SimulatorOptions so;
  so.backend = config.backend;
  so.precision = config.precision;
  so.threads = config.threads;
  so.schur = config.schur;
  return so;
}

/// Throws BenchRefused listing every row whose host memory estimate exceeds
/// kMemoryFraction of this machine's memory (GPU rows that cannot run here are left out).
void refuse_rows_that_do_not_fit(const BenchOptions& opt, const std::vector<Model>& models) {
  const double have = physical_memory_bytes();
  if (!(have > 0)) return;
  const bool gpu_here = cuda_unavailable_reason().empty();
  std::string refused;
  int count = 0;
  for (std::size_t mi = 0; mi < models.size(); ++mi)
    for (const BenchConfig& config : opt.configs) {
      if (config.gpu() && !gpu_here) continue;
      for (int n : config.gpu() ? opt.gpu_sizes : opt.cpu_sizes) {
        const MemoryEstimate e = estimate_bench_memory(models[mi], n, simulator_options(config));
        if (e.total() <= kMemoryFraction * have) continue;
        if (++count <= 8)
          refused += "\n  " + opt.models[mi] + " " + config.name + " x " + std::to_string(n) + ": needs about " +
                     e.describe();
      }
    }
  if (count == 0) return;
  char tail[200];
  std::snprintf(tail, sizeof tail,
                "%s\nthis machine has %.1f GiB (at most %.0f %% may be planned): choose smaller models, sizes or "
                "configurations (--models, --cpu-sizes, --gpu-sizes, --configs)",
                count > 8 ? ("\n  ... and " + std::to_string(count - 8) + " more").c_str() : "", have / (1 << 30),
                100 * kMemoryFraction);
  throw BenchRefused(std::to_string(count) + (count == 1 ? " row does" : " rows do") + " not fit in memory:" + refused +
                     tail);
}

/// Measures one row (see the header); throws what Simulator throws.
void measure(const Model& model, const BenchOptions& opt, BenchRow& r) {
  const SimulatorOptions so = simulator_options(r.config);
  Clock::time_point t0 = Clock::now();
  auto sim = Simulator::create({model}, so, r.instances);
  sim->synchronize();
  r.create_seconds = since(t0);
  const double first = timed_advance(*sim, 1);
  if (first > opt.max_step_seconds) {
    r.status = "too_slow";
    r.error = "one step took " + format_seconds(first) + " (> --max-step-seconds " +
              format_seconds(opt.max_step_seconds) + ")";
    r.steps = 1;
    r.seconds = first;
    r.instance_steps_per_s = r.instances / first;
    return;
  }
  timed_advance(*sim, 1);
  std::int64_t k = 1;
  for (;;) {
    const double t = timed_advance(*sim, k);
    if (t >= opt.min_seconds || k >= kMaxBatchSteps) {
      r.steps = k;
      r.seconds = t;
      for (int rep = 1; rep < opt.repeats; ++rep) r.seconds = std::min(r.seconds, timed_advance(*sim, k));
      break;
    }
    const double predicted = static_cast<double>(k) * kTargetMargin * opt.min_seconds / std::max(t, 1e-9);
    const double next = std::min({std::max(2.0 * k, std::ceil(predicted)), kMaxGrowth * k,
                                  static_cast<double>(kMaxBatchSteps)});
    k = static_cast<std::int64_t>(next);
  }
  r.instance_steps_per_s = static_cast<double>(r.steps) * r.instances / r.seconds;
  std::vector<std::int8_t> status(static_cast<std::size_t>(r.instances));
  std::vector<double> status_time(static_cast<std::size_t>(r.instances));
  sim->read_status(status.data(), status_time.data(), nullptr);
  r.not_ok_instances = static_cast<int>(std::count_if(status.begin(), status.end(), [](std::int8_t s) { return s != 0; }));
  r.status = "ok";
}

}  // namespace

void fill_rates(const DevicePeaks& peaks, BenchRow& r) {
  r.achieved_GFLOPs = r.instance_steps_per_s * r.flops_per_instance_step / 1e9;
  if (r.config.gpu()) {
    r.achieved_GBps = r.instance_steps_per_s * r.bytes_per_instance_step / 1e9;
    const double flops_peak = r.config.precision == "fp32" ? peaks.fp32_GFLOPs : peaks.fp64_GFLOPs;
    if (peaks.mem_bandwidth_GBps > 0) r.fraction_of_peak_bandwidth = r.achieved_GBps / peaks.mem_bandwidth_GBps;
    if (flops_peak > 0) r.peak_GFLOPs = flops_peak;
  } else if (peaks.cpu_fp64_GFLOPs_per_core > 0 && r.threads > 0) {
    r.peak_GFLOPs = peaks.cpu_fp64_GFLOPs_per_core * r.threads;
  }
  if (r.peak_GFLOPs > 0) r.fraction_of_peak_flops = r.achieved_GFLOPs / r.peak_GFLOPs;
}

std::string cpu_simd_unavailable_reason() {
  try {
    SimulatorOptions so;
    so.backend = "cpu-simd";
    so.threads = 1;
    Simulator::create({chain_model(1)}, so, 1);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

const std::vector<int>& default_cpu_sizes() {
  static const std::vector<int> s = {1, 4, 16, 64, 256, 1024, 4096};
  return s;
}

const std::vector<int>& default_gpu_sizes() {
  static const std::vector<int> s = {1, 16, 256, 4096, 65536, 262144, 1048576};
  return s;
}

std::vector<BenchRow> run_bench(const BenchOptions& opt, const DevicePeaks& peaks, const BenchProgress& progress) {
  std::vector<Model> models;
  for (const std::string& name : opt.models) models.push_back(bench_model(name, opt.examples_dir));
  int total = 0;
  for (const BenchConfig& c : opt.configs) total += static_cast<int>((c.gpu() ? opt.gpu_sizes : opt.cpu_sizes).size());
  total *= static_cast<int>(models.size());
  refuse_rows_that_do_not_fit(opt, models);

  std::vector<BenchRow> rows;
  const Clock::time_point suite0 = Clock::now();
  for (std::size_t mi = 0; mi < models.size(); ++mi) {
    for (const BenchConfig& config : opt.configs) {
      std::string skip_reason;  // set once a size was too slow: the larger ones are skipped
      for (int n : config.gpu() ? opt.gpu_sizes : opt.cpu_sizes) {
        BenchRow r = row_skeleton(opt.models[mi], models[mi], config, n);
        if (config.gpu()) fill_gpu_model_columns(models[mi], peaks, r);
        else fill_cpu_model_columns(models[mi], r);
        if (opt.time_limit_seconds > 0 && since(suite0) > opt.time_limit_seconds) {
          r.status = "skipped";
          r.error = "the suite's time limit (--time-limit " + format_seconds(opt.time_limit_seconds) + ") was reached";
        } else if (!skip_reason.empty()) {
          r.status = "skipped";
          r.error = skip_reason;
        } else {
          try {
            measure(models[mi], opt, r);
          } catch (const std::exception& e) {  // BackendError, std::invalid_argument, std::bad_alloc, ...
            r.status = "error";
            r.error = e.what();
          }
          if (r.status == "too_slow") skip_reason = "too slow at " + std::to_string(n) + " instances";
          if (r.status == "ok" && !is_joint_space(models[mi])) fill_rates(peaks, r);
        }
        rows.push_back(r);
        if (progress) progress(rows.back(), static_cast<int>(rows.size()), total);
      }
    }
  }
  return rows;
}

}  // namespace simphant::bench
