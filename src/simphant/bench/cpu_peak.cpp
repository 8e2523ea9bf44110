#include "simphant/bench/cpu_peak.hpp"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SIMPHANT_X86 1
#endif

namespace simphant::bench {

namespace {

#ifdef SIMPHANT_X86
// Each kernel keeps its chains' accumulators in registers, a and b in two more: 16 of
// the 32 zmm registers (AVX-512), 12 of the 16 ymm / xmm registers (AVX2, SSE2).
constexpr int kChains512 = 16, kChains256 = 12, kChains128 = 12;

__attribute__((target("avx512f"))) double fma_avx512(long iterations, double x0, double a, double b) {
  const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
  __m512d x[kChains512];
  for (__m512d& v : x) v = _mm512_set1_pd(x0);
  for (long i = 0; i < iterations; ++i)
    for (__m512d& v : x) v = _mm512_fmadd_pd(v, va, vb);
  __m512d s = _mm512_setzero_pd();
  for (const __m512d& v : x) s = _mm512_add_pd(s, v);
  alignas(64) double out[8];
  _mm512_store_pd(out, s);
  return ((out[0] + out[1]) + (out[2] + out[3])) + ((out[4] + out[5]) + (out[6] + out[7]));
}

__attribute__((target("avx2,fma"))) double fma_avx2(long iterations, double x0, double a, double b) {
  const __m256d va = _mm256_set1_pd(a), vb = _mm256_set1_pd(b);
  __m256d x[kChains256];
  for (__m256d& v : x) v = _mm256_set1_pd(x0);
  for (long i = 0; i < iterations; ++i)
    for (__m256d& v : x) v = _mm256_fmadd_pd(v, va, vb);
  __m256d s = _mm256_setzero_pd();
  for (const __m256d& v : x) s = _mm256_add_pd(s, v);
  alignas(32) double out[4];
  _mm256_store_pd(out, s);
  return out[0] + out[1] + out[2] + out[3];
}

double fma_sse2(long iterations, double x0, double a, double b) {
  const __m128d va = _mm_set1_pd(a), vb = _mm_set1_pd(b);
  __m128d x[kChains128];
  for (__m128d& v : x) v = _mm_set1_pd(x0);
  for (long i = 0; i < iterations; ++i)
    for (__m128d& v : x) v = _mm_add_pd(_mm_mul_pd(v, va), vb);
  __m128d s = _mm_setzero_pd();
  for (const __m128d& v : x) s = _mm_add_pd(s, v);
  alignas(16) double out[2];
  _mm_store_pd(out, s);
  return out[0] + out[1];
}
#endif

int lanes_of(const std::string& isa) {
  if (isa == "avx512f") return 8;
  if (isa == "avx2+fma") return 4;
  if (isa == "sse2") return 2;
  throw std::invalid_argument("unknown FMA ISA '" + isa + "' (avx512f, avx2+fma, sse2)");
}

/// CPU time of the calling thread [s]: the time it ran on a core (a shared machine's
/// other processes do not count against the peak).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double clock_GHz() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("cpu MHz", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        try {
          return std::stod(line.substr(colon + 1)) / 1000.0;
        } catch (const std::exception&) {
          return 0;
        }
      }
    }
  return 0;
}

}  // namespace

int fma_chains(const std::string& isa) {
  lanes_of(isa);  // validates the name
#ifdef SIMPHANT_X86
  return isa == "avx512f" ? kChains512 : isa == "avx2+fma" ? kChains256 : kChains128;
#else
  return 0;
#endif
}

double fma_kernel_flops(const std::string& isa, long iterations) {
  return 2.0 * fma_chains(isa) * static_cast<double>(lanes_of(isa)) * static_cast<double>(iterations);
}

std::vector<std::string> supported_fma_isas() {
  std::vector<std::string> isas;
#ifdef SIMPHANT_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) isas.push_back("avx512f");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) isas.push_back("avx2+fma");
  isas.push_back("sse2");
#endif
  return isas;
}

double run_fma_kernel(const std::string& isa, long iterations, double x0, double a, double b) {
  lanes_of(isa);  // validates the name
  const std::vector<std::string> ok = supported_fma_isas();
  if (std::find(ok.begin(), ok.end(), isa) == ok.end())
    throw std::invalid_argument("this CPU does not run the FMA ISA '" + isa + "'");
#ifdef SIMPHANT_X86
  if (isa == "avx512f") return fma_avx512(iterations, x0, a, b);
  if (isa == "avx2+fma") return fma_avx2(iterations, x0, a, b);
  return fma_sse2(iterations, x0, a, b);
#else
  (void)iterations, (void)x0, (void)a, (void)b;
  return 0;
#endif
}

CpuPeak measure_cpu_peak(double seconds_per_timing, int repeats) {
  CpuPeak peak;
  // a = 1 - 2^-40, b = 2^-40: x stays near 1 (no overflow, no denormals) for any count.
  const double a = 1.0 - 0x1p-40, b = 0x1p-40;
  for (const std::string& isa : supported_fma_isas()) {
    FmaPeak p;
    p.isa = isa;
    p.lanes = lanes_of(isa);
    long n = 1 << 12;
    double sink = 0;
    for (;;) {  // size a timing to last about seconds_per_timing
      const double t0 = thread_cpu_seconds();
      sink += run_fma_kernel(isa, n, 1.0, a, b);
      const double t = thread_cpu_seconds() - t0;
      if (t >= 0.5 * seconds_per_timing || n >= (1L << 34)) break;
      n = static_cast<long>(static_cast<double>(n) * std::min(16.0, std::max(2.0, seconds_per_timing / std::max(t, 1e-9))));
    }
    p.seconds = 1e300;
    for (int r = 0; r < std::max(1, repeats); ++r) {
      const double t0 = thread_cpu_seconds();
      sink += run_fma_kernel(isa, n, 1.0, a, b);
      p.seconds = std::min(p.seconds, thread_cpu_seconds() - t0);
    }
    p.flops = fma_kernel_flops(isa, n);
    p.chains = fma_chains(isa);
    p.gflops = sink != 0 ? p.flops / p.seconds / 1e9 : 0;  // sink is never 0: keeps the kernels' results used
    peak.by_isa.push_back(p);
  }
  if (!peak.by_isa.empty()) peak.best = peak.by_isa.front();
  peak.nominal_clock_GHz = clock_GHz();
  peak.nominal_formula = "FMA pipes x " + std::to_string(peak.best.lanes) + " lanes x 2 FLOP x clock";
  return peak;
}

}  // namespace simphant::bench
