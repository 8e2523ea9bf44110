#include "simphant/bench/bench_report.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include "simphant/bench/cpu_peak.hpp"
#include "simphant/core/host_info.hpp"
#include "simphant/simd/simd_step.hpp"
#include "simphant/sim/cuda_factory.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant::bench {

namespace {

using nlohmann::json;

json num(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json row_json(const BenchRow& r) {
  return {{"model", r.model},
          {"solver", r.solver},
          {"n_bodies", r.n_bodies},
          {"n_joints", r.n_joints},
          {"m", r.m},
          {"config", r.config.name},
          {"backend", r.config.backend},
          {"precision", r.config.precision},
          {"threads", r.config.gpu() ? json(nullptr) : json(r.threads)},
          {"schur", r.config.schur},
          {"instances", r.instances},
          {"steps", r.steps},
          {"seconds", num(r.seconds)},
          {"create_seconds", num(r.create_seconds)},
          {"instance_steps_per_s", num(r.instance_steps_per_s)},
          {"status", r.status},
          {"error", r.error.empty() ? json(nullptr) : json(r.error)},
          {"not_ok_instances", r.not_ok_instances},
          {"bytes_per_instance_step", num(r.bytes_per_instance_step)},
          {"flops_per_instance_step", num(r.flops_per_instance_step)},
          {"achieved_GBps", num(r.achieved_GBps)},
          {"achieved_GFLOPs", num(r.achieved_GFLOPs)},
          {"fraction_of_peak_bandwidth", num(r.fraction_of_peak_bandwidth)},
          {"fraction_of_peak_flops", num(r.fraction_of_peak_flops)},
          {"peak_GFLOPs", num(r.peak_GFLOPs)},
          {"device_bytes_per_instance", num(r.device_bytes_per_instance)},
          {"max_instances_fit", num(r.max_instances_fit)}};
}

std::string fmt(const char* f, double x) {
  if (!std::isfinite(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

json cpu_peak_json(const CpuPeak& p) {
  json by = json::array();
  for (const FmaPeak& f : p.by_isa)
    by.push_back({{"isa", f.isa}, {"lanes", f.lanes}, {"chains", f.chains}, {"GFLOPs", num(f.gflops)},
                  {"seconds", num(f.seconds)}, {"flops", num(f.flops)}});
  return {{"isa", p.best.isa},
          {"lanes", p.best.lanes},
          {"fp64_GFLOPs_per_core", num(p.best.gflops)},
          {"by_isa", by},
          {"clock_GHz", num(p.nominal_clock_GHz)},
          {"nominal_formula", p.nominal_formula},
          {"method", "measured: independent FMA chains (by_isa.chains) on each vector width this CPU runs "
                     "(runtime dispatch), one thread, thread CPU time, best of 5; the widest is the peak "
                     "(src/simphant/bench/cpu_peak.hpp)"}};
}

json machine_info(DevicePeaks& peaks, const std::string& git_commit, bool measure_cpu) {
  peaks = DevicePeaks{};
  const std::string commit = git_commit.empty() ? "unknown" : git_commit;
  json m = {{"host_cpu", cpu_model_name()},
            {"cores", std::thread::hardware_concurrency()},
            {"date_utc", utc_now_iso8601()},
            {"git_commit", commit},
            {"simphant_version", SIMPHANT_VERSION},
            {"cuda_built", cuda_backend_built()}};
  if (measure_cpu) {
    const CpuPeak p = measure_cpu_peak();
    m["cpu_peak"] = cpu_peak_json(p);
    m["cpu_simd_target"] = simd::simd_target();  // the ISA the cpu-simd path dispatched to
    peaks.cpu_fp64_GFLOPs_per_core = p.best.gflops;
  }
  try {
    const CudaDeviceInfo d = cuda_device_info();
    m["gpu"] = {{"name", d.name},
                {"sm_count", d.sm_count},
                {"mem_bandwidth_GBps", d.mem_bandwidth_GBps},
                {"fp64_peak_GFLOPs", d.fp64_peak_GFLOPs},
                {"fp32_peak_GFLOPs", d.fp32_peak_GFLOPs},
                {"total_memory", d.total_memory}};
    peaks.mem_bandwidth_GBps = d.mem_bandwidth_GBps;
    peaks.fp64_GFLOPs = d.fp64_peak_GFLOPs;
    peaks.fp32_GFLOPs = d.fp32_peak_GFLOPs;
    peaks.total_memory = static_cast<double>(d.total_memory);
  } catch (const std::exception& e) {
    m["gpu"] = {{"error", e.what()}};
  }
  return m;
}

json bench_json(const json& machine, const BenchOptions& o, const std::vector<BenchRow>& rows,
                const std::vector<BenchRatio>& ratios) {
  json configs = json::array();
  for (const BenchConfig& c : o.configs) configs.push_back(c.name);
  json doc = {{"machine", machine},
              {"options",
               {{"models", o.models},
                {"configs", configs},
                {"cpu_sizes", o.cpu_sizes},
                {"gpu_sizes", o.gpu_sizes},
                {"min_seconds", o.min_seconds},
                {"max_step_seconds", o.max_step_seconds},
                {"time_limit_seconds", o.time_limit_seconds},
                {"repeats", o.repeats}}},
              {"cost_model",
               {{"kind", "modelled"},
                {"note", "bytes_per_instance_step and flops_per_instance_step are modelled from the model's sizes "
                         "(src/simphant/bench/cost_model.hpp), not measured; achieved_* = instance_steps_per_s x "
                         "modelled cost; GPU peaks are theoretical (sim/cuda_factory.hpp CudaDeviceInfo); the CPU "
                         "peak is measured (machine.cpu_peak), peak_GFLOPs = its one-core figure x threads; CPU rows "
                         "carry FLOPs only"}}},
              {"rows", json::array()},
              {"ratios", json::array()}};
  for (const BenchRow& r : rows) doc["rows"].push_back(row_json(r));
  for (const BenchRatio& q : ratios)
    doc["ratios"].push_back({{"kind", q.kind},
                             {"model", q.model},
                             {"instances", q.instances},
                             {"config", q.config},
                             {"baseline", q.baseline},
                             {"value", num(q.value)}});
  return doc;
}

std::string bench_table(const std::vector<BenchRow>& rows, const std::vector<BenchRatio>& ratios) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-13s %-12s %9s %13s %9s %8s %9s %9s %9s %7s  %s\n", "model", "config",
                "instances", "inst-steps/s", "steps", "seconds", "GB/s*", "kFLOP/st*", "GFLOP/s*", "%peak*", "note");
  out += buf;
  for (const BenchRow& r : rows) {
    std::string note = r.status == "ok" ? "" : r.status + ": " + r.error;
    if (r.status == "ok" && r.not_ok_instances > 0) note = std::to_string(r.not_ok_instances) + " instances not ok";
    if (note.size() > 110) note = note.substr(0, 107) + "...";
    std::snprintf(buf, sizeof buf, "%-13s %-12s %9d %13s %9lld %8s %9s %9s %9s %7s  %s\n", r.model.c_str(),
                  r.config.name.c_str(), r.instances, fmt("%.4g", r.instance_steps_per_s).c_str(),
                  static_cast<long long>(r.steps), fmt("%.3f", r.seconds).c_str(), fmt("%.4g", r.achieved_GBps).c_str(),
                  fmt("%.4g", r.flops_per_instance_step / 1e3).c_str(), fmt("%.4g", r.achieved_GFLOPs).c_str(),
                  fmt("%.1f", 100 * r.fraction_of_peak_flops).c_str(), note.c_str());
    out += buf;
  }
  out += "(* modelled: instance-steps/s x the cost model's bytes / FLOPs per instance-step; %peak: of the GPU's "
         "theoretical peak, or of the measured one-core FMA peak x threads for the CPU)\n";
  if (!ratios.empty()) {
    std::snprintf(buf, sizeof buf, "\n%-22s %-13s %9s %-12s %-18s %9s\n", "ratio", "model", "instances", "config",
                  "baseline", "value");
    out += buf;
    for (const BenchRatio& q : ratios) {
      std::snprintf(buf, sizeof buf, "%-22s %-13s %9d %-12s %-18s %9.3g\n", q.kind.c_str(), q.model.c_str(),
                    q.instances, q.config.c_str(), q.baseline.c_str(), q.value);
      out += buf;
    }
  }
  return out;
}

std::string progress_line(const BenchRow& r, int index, int total) {
  char buf[640];
  if (r.status == "ok")
    std::snprintf(buf, sizeof buf, "[%d/%d] %s %s n=%d: %.4g instance-steps/s (%lld steps in %.3f s, create %.3f s)",
                  index, total, r.model.c_str(), r.config.name.c_str(), r.instances, r.instance_steps_per_s,
                  static_cast<long long>(r.steps), r.seconds, r.create_seconds);
  else
    std::snprintf(buf, sizeof buf, "[%d/%d] %s %s n=%d: %s: %.400s", index, total, r.model.c_str(),
                  r.config.name.c_str(), r.instances, r.status.c_str(), r.error.c_str());
  return buf;
}

}  // namespace simphant::bench
