#pragma once
// The FP64 FMA peak of one CPU core, measured: the basis of the "fraction of peak" of the
// cpu rows of `simphant bench` (docs/benchmarks.md, "FLOP rate and peak").
//
// Method: independent chains x <- x * a + b of fused multiply-adds on the widest
// vector this CPU runs (AVX-512: 8 doubles, AVX2 + FMA: 4, else SSE2: 2 doubles with a
// separate multiply and add), chosen at run time (__builtin_cpu_supports; each kernel is
// compiled for its ISA with a target attribute, so one binary runs on any x86-64 and no
// -march=native is needed). 16 chains (AVX-512, 32 registers) or 12 (AVX2 and SSE2, 16
// registers: the chains, a and b stay in registers) cover the FMA latency (4-5 cycles) x
// 2 FMA pipes of current cores, so the loop is throughput-bound. One FMA on a
// W-wide vector counts 2 W FLOPs (SSE2: multiply + add = 2 W). Timed in the thread's CPU
// time (CLOCK_THREAD_CPUTIME_ID: time on a core, so that other processes on a shared
// machine do not lower the core's figure); the best of `repeats` timings is kept.
//
// The nominal peak, for comparison: FMA pipes x W x 2 x clock (e.g. 2 pipes x 8 x 2 x
// 3.0 GHz = 96 GFLOP/s for AVX-512 with two full-width FMA units; cores that split a
// 512-bit FMA into two 256-bit halves reach half of that). The measured figure includes
// the clock the core actually runs at under this load (turbo, AVX-512 frequency offsets).
#include <string>
#include <vector>

namespace simphant::bench {

/// One ISA's figure.
struct FmaPeak {
  std::string isa;       ///< "avx512f", "avx2+fma" or "sse2"
  int lanes = 0;         ///< doubles per vector
  int chains = 0;        ///< independent chains of the kernel
  double gflops = 0;     ///< measured FP64 GFLOP/s on one core (best of the repeats)
  double seconds = 0;    ///< the best timing (thread CPU time) [s]
  double flops = 0;      ///< FLOPs of the timed kernel call
};

/// The CPU peak: every ISA this CPU supports, the widest first; `best` is that widest one.
struct CpuPeak {
  std::vector<FmaPeak> by_isa;
  FmaPeak best;
  double nominal_clock_GHz = 0;  ///< /proc/cpuinfo "cpu MHz" / 1000 (0 when unknown)
  std::string nominal_formula;   ///< "FMA pipes x 8 lanes x 2 x clock" with the widest ISA's lanes
};

/// Independent chains of the kernel for `isa` (16 for "avx512f", 12 for "avx2+fma" and
/// "sse2"). Throws std::invalid_argument for an unknown ISA name.
int fma_chains(const std::string& isa);

/// FLOPs of one kernel call: chains x iterations x lanes x 2. Throws as fma_chains.
double fma_kernel_flops(const std::string& isa, long iterations);

/// Runs the FMA kernel for `isa` ("avx512f", "avx2+fma", "sse2") for `iterations`: every
/// chain starts at x0, x <- x * a + b. Returns the sum of all chains' lanes at the end
/// (for tests: with a = 1, b = 1 it is fma_chains x lanes x (x0 + iterations) exactly while
/// that stays below 2^53). Throws std::invalid_argument for an ISA this CPU does not run.
double run_fma_kernel(const std::string& isa, long iterations, double x0, double a, double b);

/// The ISAs this CPU runs, the widest first ("sse2" always, on x86-64).
std::vector<std::string> supported_fma_isas();

/// Measures every supported ISA: each timing lasts about `seconds_per_timing`, best of
/// `repeats`. Single-threaded (the calling thread's core).
CpuPeak measure_cpu_peak(double seconds_per_timing = 0.05, int repeats = 5);

}  // namespace simphant::bench
