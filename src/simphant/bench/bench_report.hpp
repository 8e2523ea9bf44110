#pragma once
// The benchmark suite's outputs (`simphant bench`, docs/benchmarks.md): the machine
// description, the JSON document and the text table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/bench/bench_ratios.hpp"
#include "simphant/bench/bench_runner.hpp"
#include "simphant/bench/cpu_peak.hpp"

namespace simphant::bench {

/// {"host_cpu": model name of /proc/cpuinfo, "cores": hardware threads, "date_utc":
/// "YYYY-MM-DDTHH:MM:SSZ", "git_commit": git_commit as given ("unknown" when empty; the
/// CLI passes the checkout's, cli/git_commit.hpp), "simphant_version",
/// "cuda_built": bool, "gpu": {name, sm_count, mem_bandwidth_GBps, fp64_peak_GFLOPs,
/// fp32_peak_GFLOPs, total_memory} or {"error": why there is none}}, and with measure_cpu
/// "cpu_peak": cpu_peak_json(measure_cpu_peak()) (about 0.5 s).
/// peaks_out receives the device's figures (zeros without a device) and the CPU's
/// measured one-core peak (0 without measure_cpu).
nlohmann::json machine_info(DevicePeaks& peaks_out, const std::string& git_commit, bool measure_cpu = true);

/// {"isa": widest ISA, "lanes", "fp64_GFLOPs_per_core": its measured peak, "by_isa":
/// [{isa, lanes, chains, GFLOPs, seconds, flops}], "clock_GHz": /proc/cpuinfo's (null when
/// unknown), "nominal_formula", "method"}.
nlohmann::json cpu_peak_json(const CpuPeak& peak);

/// The whole document: {"machine", "options", "cost_model", "rows", "ratios"}; NaN
/// numbers are written as null.
nlohmann::json bench_json(const nlohmann::json& machine, const BenchOptions& options,
                          const std::vector<BenchRow>& rows, const std::vector<BenchRatio>& ratios);

/// One line per row (model, config, instances, instance-steps/s, steps, seconds, GB/s
/// (GPU), kFLOP per instance-step, GFLOP/s and % of peak, or the error), then the ratios.
std::string bench_table(const std::vector<BenchRow>& rows, const std::vector<BenchRatio>& ratios);

/// The progress line of one row ("[i/n] model config n=...: ..."), for stderr.
std::string progress_line(const BenchRow& row, int index, int total);

}  // namespace simphant::bench
