#include "simphant/simd/dispatch.hpp"

namespace simphant::simd {

const char* simd_target() {
#if SP_SIMD_HAS_CLONES
  // The clones' resolver asks the same (target_clones picks the highest level built that
  // the CPU supports).
  __builtin_cpu_init();
#if SIMPHANT_SIMD_V4
  if (__builtin_cpu_supports("x86-64-v4")) return "avx512";
#endif
#if SIMPHANT_SIMD_V3
  if (__builtin_cpu_supports("x86-64-v3")) return "avx2";
#endif
  return "sse2";
#elif defined(__x86_64__)
  return "sse2";
#else
  return "generic";
#endif
}

}  // namespace simphant::simd
