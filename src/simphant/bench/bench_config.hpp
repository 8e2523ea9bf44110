#pragma once
// The configurations the benchmark suite measures (`simphant bench --configs`): a
// backend, a precision, a CPU thread count and a Schur factorisation, by name.
//
//   cpu1-dense  cpu1-sparse   cpu backend, 1 thread, fp64, Schur dense / sparse
//   cpu-dense   cpu-sparse    cpu backend, all hardware threads, fp64
//   cpu1-simd   cpu-simd      cpu-simd backend (instances in SIMD lanes), 1 thread / all
//   cuda64      cuda32        cuda backend (design-card path), fp64 / fp32
//   fused64     fused32       cuda-fused backend, fp64 / fp32
//
// Groups: cpu1 (cpu1-dense, cpu1-sparse), cpu (cpu-dense, cpu-sparse), simd (the two
// cpu-simd configs), cpu-all (the six CPU configs), cuda,
// fused, gpu (the four GPU configs), all.
#include <string>
#include <vector>

namespace simphant::bench {

struct BenchConfig {
  std::string name;       ///< e.g. "cpu1-dense", "fused32"
  std::string backend;    ///< SimulatorOptions::backend: "cpu" | "cpu-simd" | "cuda" | "cuda-fused"
  std::string precision;  ///< "fp64" | "fp32"
  int threads = 0;        ///< SimulatorOptions::threads: 1 or 0 (all); GPU: 0 (host assembly only)
  std::string schur;      ///< SimulatorOptions::schur: cpu "dense" | "sparse"; GPU "auto"
  bool gpu() const { return backend != "cpu" && backend != "cpu-simd"; }
};

/// Every configuration, in the suite's order (cpu ones first).
const std::vector<BenchConfig>& all_bench_configs();

/// The configurations named in `names` (config names or the groups above), without
/// repeats, in the order of all_bench_configs(). Throws std::invalid_argument naming an
/// unknown name and the valid ones.
std::vector<BenchConfig> select_bench_configs(const std::vector<std::string>& names);

}  // namespace simphant::bench
