#include "simphant/simd/reduced_lanes.hpp"

#include <stdexcept>
#include <string>

#include "simphant/simd/reduced_group.hpp"

namespace simphant::simd {

// The link capacities the lane code is built for: every arm (n <= 8) in the small
// workspace, anything larger in the largest (the arithmetic does not depend on it).
constexpr int kSmallCap = 8;
constexpr int kLargeCap = kMaxReducedLinks;

struct ReducedLanesScratch {
  std::unique_ptr<ReducedGroupScratch<kSmallCap>> small;
  std::unique_ptr<ReducedGroupScratch<kLargeCap>> large;
};

void ReducedLanesScratchDelete::operator()(ReducedLanesScratch* s) const { delete s; }

ReducedLanesScratchPtr make_reduced_lanes_scratch(int n_links) {
  if (n_links < 1 || n_links > kLargeCap)
    throw std::invalid_argument("make_reduced_lanes_scratch: " + std::to_string(n_links) + " links (1 .. " +
                                std::to_string(kLargeCap) + ")");
  ReducedLanesScratchPtr s(new ReducedLanesScratch);
  if (n_links <= kSmallCap)
    s->small = std::make_unique<ReducedGroupScratch<kSmallCap>>();
  else
    s->large = std::make_unique<ReducedGroupScratch<kLargeCap>>();
  return s;
}

double reduced_lanes_scratch_bytes(int n_links) {
  return n_links <= kSmallCap ? sizeof(ReducedGroupScratch<kSmallCap>) : sizeof(ReducedGroupScratch<kLargeCap>);
}

int reduced_group_count(int n_instances) { return (n_instances + kReducedLaneWidth - 1) / kReducedLaneWidth; }

namespace {

template <int Cap>
void run_groups(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0, int n_steps, bool lanes,
                ReducedGroupScratch<Cap>& s) {
  s.broadcast_slot = -1;  // the rows are gathered again once per call
  for (int g = g0; g < g1; ++g) reduced_advance_group(b, g, step0, n_steps, lanes, s);
}

// One copy per x86-64 level, the whole call tree inlined into each (flatten), picked
// at load time by the CPU's features. x86-64-v3 rather than plain "avx2": the same CPUs,
// with FMA.
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define SP_REDUCED_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4"), flatten))
#else
#define SP_REDUCED_CLONES __attribute__((flatten))
#endif

SP_REDUCED_CLONES void run_groups_small(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                                        int n_steps, bool lanes, ReducedGroupScratch<kSmallCap>& s) {
  run_groups(b, g0, g1, step0, n_steps, lanes, s);
}

SP_REDUCED_CLONES void run_groups_large(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                                        int n_steps, bool lanes, ReducedGroupScratch<kLargeCap>& s) {
  run_groups(b, g0, g1, step0, n_steps, lanes, s);
}

}  // namespace

void reduced_advance_groups(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                            int n_steps, bool lanes, ReducedLanesScratch& s) {
  if (b.n <= kSmallCap && s.small)
    run_groups_small(b, g0, g1, step0, n_steps, lanes, *s.small);
  else if (s.large)
    run_groups_large(b, g0, g1, step0, n_steps, lanes, *s.large);
  else
    throw std::invalid_argument("reduced_advance_groups: the scratch holds fewer links than the robot's " +
                                std::to_string(b.n));
}

const char* reduced_lanes_target() {
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return "avx512";
  if (__builtin_cpu_supports("x86-64-v3")) return "avx2";
  return "sse2";
#elif defined(__x86_64__)
  return "sse2";
#else
  return "generic";
#endif
}

}  // namespace simphant::simd
