#pragma once
// Ratios of the benchmark suite, each between two rows of the same run (so machine load
// and build are the same): value = instance_steps_per_s(config) / instance_steps_per_s(baseline).
//
//   kind                  config vs baseline (same model; rows with status "ok" only)
//   sparse/dense          cpu1-sparse vs cpu1-dense, cpu-sparse vs cpu-dense, same size
//   threads_all/threads_1 cpu-dense vs cpu1-dense, cpu-sparse vs cpu1-sparse, cpu-simd vs
//                         cpu1-simd, same size
//   simd/scalar           cpu1-simd vs cpu1-dense and vs cpu1-sparse, cpu-simd vs cpu-dense
//                         and vs cpu-sparse, same size
//   fused/cuda            fused64 vs cuda64, fused32 vs cuda32, same size
//   fp32/fp64             cuda32 vs cuda64, fused32 vs fused64, same size
//   gpu/cpu               each GPU configuration's best size vs the better of cpu-dense /
//                         cpu-sparse at the largest CPU size measured (instances = the
//                         GPU row's size; the baseline's size is in `baseline`)
//   cga/aba               model "<robot>_cga" vs "<robot>_aba" (joint-space robots), same
//                         config and size (`model` is the cga one, `baseline` the aba one)
#include <string>
#include <vector>

#include "simphant/bench/bench_runner.hpp"

namespace simphant::bench {

struct BenchRatio {
  std::string kind;      ///< see above
  std::string model;
  int instances = 0;     ///< the config row's batch size
  std::string config;    ///< e.g. "cpu-sparse" or "cuda64"
  std::string baseline;  ///< e.g. "cpu-dense" or "cpu-sparse@4096"
  double value = 0;
};

/// Every ratio whose two rows are present and ok.
std::vector<BenchRatio> bench_ratios(const std::vector<BenchRow>& rows);

}  // namespace simphant::bench
