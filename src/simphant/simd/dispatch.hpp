#pragma once
// How the lane code is compiled for several x86-64 levels in one binary (docs/performance.md,
// "The cpu-simd backend"): an entry function marked SP_SIMD_CLONES is compiled once per
// level -- x86-64 (SSE2), x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512) -- with its whole
// call tree inlined into each copy (flatten, so no out-of-line template is shared between
// levels), and the loader picks the copy for the CPU it runs on (GCC function
// multiversioning, target_clones). SIMPHANT_SIMD_V3 / SIMPHANT_SIMD_V4 (0 or 1, from CMake's
// SIMPHANT_SIMD_LEVELS; 1 when not set) say which levels above the baseline have a copy.
// Under AddressSanitizer, and with other compilers, one ordinary baseline copy is built (no
// clones and no flatten: the sanitizers' build of the flattened call tree takes many minutes).
#ifndef SIMPHANT_SIMD_V3
#define SIMPHANT_SIMD_V3 1
#endif
#ifndef SIMPHANT_SIMD_V4
#define SIMPHANT_SIMD_V4 1
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#if SIMPHANT_SIMD_V3 && SIMPHANT_SIMD_V4
#define SP_SIMD_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4"), flatten))
#define SP_SIMD_HAS_CLONES 1
#elif SIMPHANT_SIMD_V4
#define SP_SIMD_CLONES __attribute__((target_clones("default", "arch=x86-64-v4"), flatten))
#define SP_SIMD_HAS_CLONES 1
#elif SIMPHANT_SIMD_V3
#define SP_SIMD_CLONES __attribute__((target_clones("default", "arch=x86-64-v3"), flatten))
#define SP_SIMD_HAS_CLONES 1
#else
#define SP_SIMD_CLONES __attribute__((flatten))
#define SP_SIMD_HAS_CLONES 0
#endif
#else
#define SP_SIMD_CLONES
#define SP_SIMD_HAS_CLONES 0
#endif

namespace simphant::simd {

/// The x86-64 level the lane code (SP_SIMD_CLONES) runs as on this CPU: "avx512"
/// (x86-64-v4), "avx2" (x86-64-v3: AVX2 and FMA) or "sse2"; "sse2" too where the build
/// has only the baseline copy; "generic" on other architectures.
const char* simd_target();

}  // namespace simphant::simd
