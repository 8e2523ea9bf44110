#pragma once
// The configurations the benchmark suite measures (`simphant bench --configs`): a
// backend, a precision, a CPU thread count and a Schur factorisation, by name.
//
//   cpu1-dense  cpu1-sparse   cpu backend, 1 thread, fp64, Schur dense / sparse
//   cpu1-simd                 cpu-simd backend (instances in SIMD lanes), 1 thread, fp64
//   cpu-dense   cpu-sparse    cpu backend, all hardware threads, fp64
//   cpu-simd                  cpu-simd backend, all hardware threads, fp64
//   cuda64      cuda32        cuda backend (design-card path), fp64 / fp32
//   fused64     fused32       cuda-fused backend, fp64 / fp32
//
// Groups: cpu1 (the three cpu1-*), cpu (cpu-dense, cpu-sparse, cpu-simd), cpu-all (the
// six CPU configs), simd (cpu1-simd, cpu-simd), cuda, fused, gpu (the four GPU configs),
// all.
#include <string>
#include <vector>

namespace simphant::bench {

struct BenchConfig {
  std::string name;       ///< e.g. "cpu1-dense", "fused32"
  std::string backend;    ///< SimulatorOptions::backend: "cpu" | "cpu-simd" | "cuda" | "cuda-fused"
  std::string precision;  ///< "fp64" | "fp32"
  int threads = 0;        ///< SimulatorOptions::threads: 1 or 0 (all); GPU: 0 (host assembly only)
  std::string schur;      ///< SimulatorOptions::schur: cpu "dense" | "sparse"; cpu-simd and GPU "auto"
  bool gpu() const { return backend != "cpu" && backend != "cpu-simd"; }
};

/// Every configuration, in the suite's order (cpu ones first).
const std::vector<BenchConfig>& all_bench_configs();

/// The configurations named in `names` (config names or the groups above), without
/// repeats, in the order of all_bench_configs(). with_simd = false (a build without the
/// cpu-simd backend: cpu_simd_unavailable_reason) leaves the cpu-simd configurations out
/// of the groups and "all"; named on their own they are kept (and fail as rows). Throws
/// std::invalid_argument naming an unknown name and the valid ones.
std::vector<BenchConfig> select_bench_configs(const std::vector<std::string>& names, bool with_simd = true);

}  // namespace simphant::bench
