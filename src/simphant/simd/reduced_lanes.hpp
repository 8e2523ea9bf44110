#pragma once
// The joint-space robot step in SIMD lanes (docs/robots.md, "CPU backends"): groups of
// kReducedLaneWidth = 8 instances advanced together by the per-thread function of
// kernels/reduced_step.hpp with T = Lanes<double, 8> (simd/reduced_group.hpp), compiled
// for x86-64 (SSE2), x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512) and picked at run time
// (GCC function multiversioning), so one binary runs on any x86-64. ReducedBackend runs
// it on its worker threads; instance i is lane i % 8 of group i / 8 whatever the thread
// count, so results do not depend on it.
#include <cstdint>
#include <memory>

namespace simphant {

namespace batch {
template <class T>
struct ReducedBatchView;  // kernels/reduced_step.hpp
}  // namespace batch

namespace simd {

/// One worker's fixed-size scratch for robots of up to a given number of links (opaque).
struct ReducedLanesScratch;
struct ReducedLanesScratchDelete {
  void operator()(ReducedLanesScratch* s) const;
};
using ReducedLanesScratchPtr = std::unique_ptr<ReducedLanesScratch, ReducedLanesScratchDelete>;

/// Scratch for robots with n_links moving joints (0 .. kMaxReducedLinks; 0: a free body).
ReducedLanesScratchPtr make_reduced_lanes_scratch(int n_links);
/// [bytes] of make_reduced_lanes_scratch(n_links)'s scratch.
double reduced_lanes_scratch_bytes(int n_links);

/// Groups of a batch of n_instances: ceil(n_instances / 8).
int reduced_group_count(int n_instances);

/// Advances the instances of groups [g0, g1) of b (any layout: b's Strided views) by
/// n_steps steps from batch step step0, as reduced_advance_thread<double> does for each
/// instance (commit, status and freezing rules of kernels/reduced_step.hpp); each group
/// runs all n_steps by itself. lanes false: one instance at a time with T = double (the
/// same arithmetic as the per-thread loop, compiled for this function's target). s: made
/// for at least b.n links; one per concurrent caller.
void reduced_advance_groups(const batch::ReducedBatchView<double>& b, int g0, int g1, std::int64_t step0,
                            int n_steps, bool lanes, ReducedLanesScratch& s);

}  // namespace simd
}  // namespace simphant
