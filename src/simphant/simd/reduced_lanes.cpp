#include "simphant/simd/reduced_lanes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "simphant/simd/dispatch.hpp"
#include "simphant/simd/reduced_group.hpp"

namespace simphant::simd {

// One link capacity for the lane code (one copy of it per target keeps this file's
// compile time down): a workspace's arrays are used up to n whatever their capacity, so a
// small robot touches the same bytes in it as in a workspace of its own size.
constexpr int kCap = kMaxReducedLinks;

struct ReducedLanesScratch {
  std::unique_ptr<ReducedGroupScratch<kCap>> group;
};

void ReducedLanesScratchDelete::operator()(ReducedLanesScratch* s) const { delete s; }

ReducedLanesScratchPtr make_reduced_lanes_scratch(int n_links) {
  if (n_links < 0 || n_links > kCap)
    throw std::invalid_argument("make_reduced_lanes_scratch: " + std::to_string(n_links) + " links (0 .. " +
                                std::to_string(kCap) + ")");
  ReducedLanesScratchPtr s(new ReducedLanesScratch);
  s->group = std::make_unique<ReducedGroupScratch<kCap>>();
  return s;
}

double reduced_lanes_scratch_bytes(int /*n_links*/) { return sizeof(ReducedGroupScratch<kCap>); }

int reduced_group_count(int n_instances) { return (n_instances + kReducedLaneWidth - 1) / kReducedLaneWidth; }

namespace {


/// The scalar form of a group (lanes off, or a group whose integer fields differ),
/// compiled once for the baseline target: noinline keeps it out of the lane clones.
__attribute__((noinline)) void scalar_group(const batch::ReducedBatchView<double>& b, int g, std::int64_t step0,
                                            int n_steps, batch::ReducedStepWorkspace<double, kCap>& ws) {
  const int i0 = g * kReducedLaneWidth;
  const int i1 = std::min(b.n_instances, i0 + kReducedLaneWidth);
  for (int i = i0; i < i1; ++i) batch::reduced_advance_thread(i, b, step0, n_steps, ws);
}

SP_SIMD_CLONES void run_groups(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                                  int n_steps, bool lanes, ReducedGroupScratch<kCap>& s) {
  s.broadcast_slot = -1;  // the rows are gathered again once per call
  for (int g = g0; g < g1; ++g)
    if (!lanes || !reduced_advance_group(b, g, step0, n_steps, s)) scalar_group(b, g, step0, n_steps, s.ws_scalar);
}

}  // namespace

void reduced_advance_groups(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                            int n_steps, bool lanes, ReducedLanesScratch& s) {
  if (b.n > kCap || !s.group)
    throw std::invalid_argument("reduced_advance_groups: a robot of " + std::to_string(b.n) + " links (0 .. " +
                                std::to_string(kCap) + ")");
  run_groups(b, g0, g1, step0, n_steps, lanes, *s.group);
}


}  // namespace simphant::simd
