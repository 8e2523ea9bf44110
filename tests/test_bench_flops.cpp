// The benchmark's FLOP figures (`simphant bench`, docs/benchmarks.md "FLOP rate and
// peak"): the FMA peak kernels execute every FMA they count (closed forms of the chains),
// the measured peak lies under a physical bound, the rate arithmetic of the rows
// (achieved GFLOP/s, fraction of the peak), the cost model's CPU backends map to the
// dense / block-sparse figures, cpu-simd configurations leave the groups when the build
// lacks the backend, the simd/scalar ratio, and the CLI's JSON carries the peak.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/bench/bench_config.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/bench/bench_ratios.hpp"
#include "simphant/bench/bench_runner.hpp"
#include "simphant/bench/cost_model.hpp"
#include "simphant/bench/cpu_peak.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;

int lanes(const std::string& isa) { return isa == "avx512f" ? 8 : isa == "avx2+fma" ? 4 : 2; }

// x <- x * 1 + 1 from x0 = 2 for n steps ends at 2 + n in every lane of every chain
// (exact in doubles); x <- 2 x from 1 ends at 2^n. A kernel that skipped or merged FMAs
// would miss these sums.
TEST(BenchFlops, FmaKernelsRunEveryCountedFma) {
  const std::vector<std::string> isas = bench::supported_fma_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.back(), "sse2");
  for (const std::string& isa : isas) {
    SCOPED_TRACE(isa);
    const double copies = bench::fma_chains(isa) * lanes(isa);
    EXPECT_EQ(bench::run_fma_kernel(isa, 1000, 2.0, 1.0, 1.0), copies * 1002.0);
    EXPECT_EQ(bench::run_fma_kernel(isa, 10, 1.0, 2.0, 0.0), copies * 1024.0);
    EXPECT_EQ(bench::fma_kernel_flops(isa, 1000), 2.0 * copies * 1000.0);
  }
  EXPECT_EQ(bench::fma_chains("avx512f"), 16);
  EXPECT_EQ(bench::fma_chains("avx2+fma"), 12);
  EXPECT_THROW(bench::fma_chains("neon"), std::invalid_argument);
  EXPECT_THROW(bench::run_fma_kernel("avx1024", 10, 1, 1, 1), std::invalid_argument);
}

// The measured figures: widest ISA first, FLOPs = the kernel's count, and no more than a
// physical bound (4 FMA pipes x lanes x 2 FLOP x 6 GHz) — a FLOP count too large by a
// factor of the lanes or chains would exceed it.
TEST(BenchFlops, MeasuredPeakIsBoundedAndWidestFirst) {
  const bench::CpuPeak p = bench::measure_cpu_peak(0.005, 2);
  ASSERT_EQ(p.by_isa.size(), bench::supported_fma_isas().size());
  EXPECT_EQ(p.best.isa, p.by_isa.front().isa);
  EXPECT_EQ(p.best.isa, bench::supported_fma_isas().front());
  for (const bench::FmaPeak& f : p.by_isa) {
    SCOPED_TRACE(f.isa);
    EXPECT_EQ(f.lanes, lanes(f.isa));
    EXPECT_EQ(f.chains, bench::fma_chains(f.isa));
    EXPECT_GT(f.gflops, 0);
    EXPECT_LT(f.gflops, 4.0 * f.lanes * 2 * 6.0);
    EXPECT_NEAR(f.gflops, f.flops / f.seconds / 1e9, 1e-9 * f.gflops);
  }
  EXPECT_NE(p.nominal_formula.find(std::to_string(p.best.lanes) + " lanes"), std::string::npos);
}

bench::BenchRow row(const char* config, int n, double ips, double flops = 0) {
  bench::BenchRow r;
  r.model = "chain_4";
  r.config = bench::select_bench_configs({config}).front();
  r.instances = n;
  r.threads = r.config.gpu() ? 0 : (r.config.threads > 0 ? r.config.threads : 2);
  r.instance_steps_per_s = ips;
  r.flops_per_instance_step = flops;
  r.status = "ok";
  r.peak_GFLOPs = r.fraction_of_peak_flops = r.fraction_of_peak_bandwidth = r.achieved_GBps = NAN;
  return r;
}

TEST(BenchFlops, RateArithmetic) {
  bench::DevicePeaks peaks;
  peaks.cpu_fp64_GFLOPs_per_core = 10;
  bench::BenchRow one = row("cpu1-dense", 8, 2e4, 5e4);  // 1e9 FLOP/s on 1 thread of a 10 GFLOP/s core
  bench::fill_rates(peaks, one);
  EXPECT_DOUBLE_EQ(one.achieved_GFLOPs, 1.0);
  EXPECT_DOUBLE_EQ(one.peak_GFLOPs, 10.0);
  EXPECT_DOUBLE_EQ(one.fraction_of_peak_flops, 0.1);
  EXPECT_TRUE(std::isnan(one.achieved_GBps));  // CPU rows: FLOPs only
  bench::BenchRow all = row("cpu-sparse", 8, 2e4, 5e4);  // 2 threads: twice the peak
  bench::fill_rates(peaks, all);
  EXPECT_DOUBLE_EQ(all.peak_GFLOPs, 20.0);
  EXPECT_DOUBLE_EQ(all.fraction_of_peak_flops, 0.05);
  bench::BenchRow none = row("cpu1-dense", 8, 2e4, 5e4);
  bench::fill_rates(bench::DevicePeaks{}, none);  // peak unknown: no fraction
  EXPECT_DOUBLE_EQ(none.achieved_GFLOPs, 1.0);
  EXPECT_TRUE(std::isnan(none.fraction_of_peak_flops));
  bench::DevicePeaks gpu;
  gpu.fp64_GFLOPs = 100;
  gpu.fp32_GFLOPs = 1000;
  gpu.mem_bandwidth_GBps = 50;
  bench::BenchRow g = row("fused32", 4096, 1e8, 1e4);
  g.bytes_per_instance_step = 100;
  bench::fill_rates(gpu, g);
  EXPECT_DOUBLE_EQ(g.achieved_GFLOPs, 1000.0);
  EXPECT_DOUBLE_EQ(g.fraction_of_peak_flops, 1.0);  // against the fp32 peak
  EXPECT_DOUBLE_EQ(g.achieved_GBps, 10.0);
  EXPECT_DOUBLE_EQ(g.fraction_of_peak_bandwidth, 0.2);
}

// The CPU paths run the same per-instance arithmetic as the GPU ones: dense Schur = the
// `cuda` figures, sparse (and auto at m >= 30, dynamics/data.cpp) and cpu-simd = the
// block-sparse `cuda-fused` figures.
TEST(BenchFlops, CostModelOfTheCpuBackends) {
  for (int N : {4, 8, 32}) {
    SCOPED_TRACE(N);
    const Model m = bench::chain_model(N);
    const double dense = bench::modelled_step_cost(m, "cuda", "fp64").flops;
    const double sparse = bench::modelled_step_cost(m, "cuda-fused", "fp64").flops;
    EXPECT_NE(dense, sparse);
    EXPECT_EQ(bench::modelled_step_cost(m, "cpu", "fp64", "dense").flops, dense);
    EXPECT_EQ(bench::modelled_step_cost(m, "cpu", "fp64", "sparse").flops, sparse);
    EXPECT_EQ(bench::modelled_step_cost(m, "cpu", "fp64", "auto").flops, m.n_rows >= 30 ? sparse : dense);
    EXPECT_EQ(bench::modelled_step_cost(m, "cpu-simd", "fp64").flops, sparse);
  }
  EXPECT_THROW(bench::modelled_step_cost(bench::chain_model(2), "cpu", "fp64", "banded"), std::invalid_argument);
  EXPECT_THROW(bench::modelled_step_cost(bench::chain_model(2), "gpu", "fp64"), std::invalid_argument);
}

TEST(BenchFlops, SimdConfigsAndRatios) {
  auto names = [](const std::vector<bench::BenchConfig>& cs) {
    std::vector<std::string> n;
    for (const bench::BenchConfig& c : cs) n.push_back(c.name);
    return n;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(bench::select_bench_configs({"cpu1"})), (V{"cpu1-dense", "cpu1-sparse", "cpu1-simd"}));
  EXPECT_EQ(names(bench::select_bench_configs({"cpu1"}, false)), (V{"cpu1-dense", "cpu1-sparse"}));
  EXPECT_EQ(names(bench::select_bench_configs({"all"}, false)).size(), bench::all_bench_configs().size() - 2);
  EXPECT_EQ(names(bench::select_bench_configs({"simd"}, false)), V{});
  EXPECT_EQ(names(bench::select_bench_configs({"cpu-simd"}, false)), V{"cpu-simd"});  // named: kept
  EXPECT_FALSE(bench::select_bench_configs({"cpu-simd"}).front().gpu());

  const std::vector<bench::BenchRow> rows = {row("cpu1-dense", 8, 100), row("cpu1-sparse", 8, 200),
                                             row("cpu1-simd", 8, 600), row("cpu-simd", 8, 900)};
  double vs_dense = -1, vs_sparse = -1, threads = -1;
  for (const bench::BenchRatio& q : bench::bench_ratios(rows)) {
    if (q.kind == "simd/scalar" && q.baseline == "cpu1-dense") vs_dense = q.value;
    if (q.kind == "simd/scalar" && q.baseline == "cpu1-sparse") vs_sparse = q.value;
    if (q.kind == "threads_all/threads_1" && q.config == "cpu-simd") threads = q.value;
  }
  EXPECT_DOUBLE_EQ(vs_dense, 6.0);
  EXPECT_DOUBLE_EQ(vs_sparse, 3.0);
  EXPECT_DOUBLE_EQ(threads, 1.5);
}

// The CLI: the machine's measured peak and the cpu row's FLOP columns in the JSON, each
// consistent with the others.
TEST(BenchFlops, CliJsonCarriesPeakAndRates) {
  const fs::path out = fs::temp_directory_path() / ("simphant_bench_flops_" + std::to_string(::getpid()) + ".json");
  const std::string cmd = std::string("\"") + SIMPHANT_BINARY +
                          "\" bench --models chain_2 --configs cpu1-sparse --cpu-sizes 2 --min-seconds 0.001 --json \"" +
                          out.string() + "\" >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  ASSERT_EQ(WEXITSTATUS(rc), 0);
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);
  const nlohmann::json& peak = doc["machine"]["cpu_peak"];
  const double core = peak["fp64_GFLOPs_per_core"].get<double>();
  EXPECT_GT(core, 0);
  EXPECT_EQ(peak["isa"], peak["by_isa"][0]["isa"]);
  const nlohmann::json& r = doc["rows"][0];
  ASSERT_EQ(r["status"], "ok");
  const double flops = r["flops_per_instance_step"].get<double>();
  EXPECT_EQ(flops, bench::modelled_step_cost(bench::chain_model(2), "cpu", "fp64", "sparse").flops);
  const double ips = r["instance_steps_per_s"].get<double>();
  EXPECT_NEAR(r["achieved_GFLOPs"].get<double>(), ips * flops / 1e9, 1e-12 * ips * flops / 1e9);
  EXPECT_NEAR(r["peak_GFLOPs"].get<double>(), core * r["threads"].get<int>(), 1e-12 * core);
  EXPECT_NEAR(r["fraction_of_peak_flops"].get<double>(), r["achieved_GFLOPs"].get<double>() / (core * r["threads"].get<int>()),
              1e-12);
  EXPECT_TRUE(r["achieved_GBps"].is_null());
  fs::remove(out);
}

}  // namespace
}  // namespace simphant
