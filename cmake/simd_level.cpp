// Configure-time probe (CMakeLists.txt, SIMPHANT_SIMD_LEVELS=AUTO): prints the highest
// x86-64 level of this machine the lane code has a copy for: 4 (x86-64-v4), 3
// (x86-64-v3) or 0 (the baseline), asked as GCC's target_clones resolver asks.
#include <cstdio>

int main() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return std::puts("4") < 0;
  if (__builtin_cpu_supports("x86-64-v3")) return std::puts("3") < 0;
#endif
  return std::puts("0") < 0;
}
