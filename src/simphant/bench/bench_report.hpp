#pragma once
// The benchmark suite's outputs (`simphant bench`, docs/benchmarks.md): the machine
// description, the JSON document and the text table.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/bench/bench_ratios.hpp"
#include "simphant/bench/bench_runner.hpp"

namespace simphant::bench {

/// {"host_cpu": model name of /proc/cpuinfo, "cores": hardware threads, "date_utc":
/// "YYYY-MM-DDTHH:MM:SSZ", "git_commit": git_commit as given ("unknown" when empty; the
/// CLI passes the checkout's, cli/git_commit.hpp), "simphant_version",
/// "cuda_built": bool, "gpu": {name, sm_count, mem_bandwidth_GBps, fp64_peak_GFLOPs,
/// fp32_peak_GFLOPs, total_memory} or {"error": why there is none}}.
/// peaks_out receives the device's figures (zeros without a device).
nlohmann::json machine_info(DevicePeaks& peaks_out, const std::string& git_commit);

/// The whole document: {"machine", "options", "cost_model", "rows", "ratios"}; NaN
/// numbers are written as null.
nlohmann::json bench_json(const nlohmann::json& machine, const BenchOptions& options,
                          const std::vector<BenchRow>& rows, const std::vector<BenchRatio>& ratios);

/// One line per row (model, config, instances, instance-steps/s, steps, seconds, and
/// the GPU columns or the error), then the ratios.
std::string bench_table(const std::vector<BenchRow>& rows, const std::vector<BenchRatio>& ratios);

/// The progress line of one row ("[i/n] model config n=...: ..."), for stderr.
std::string progress_line(const BenchRow& row, int index, int total);

}  // namespace simphant::bench
