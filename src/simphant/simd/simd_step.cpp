#include "simphant/simd/simd_step.hpp"

#include "simphant/simd/dispatch.hpp"

#include <cstdint>
#include <vector>

#include "simd_group.hpp"

namespace simphant::simd {

namespace {

/// Instance i's n_steps steps, one at a time through the per-thread functions (T = double).
void advance_instance(const SimdBatchView& v, int i, int n_steps) {
  const batch::ModelView<double>& mv = v.mv;
  batch::BatchBuffers<double> b = v.b;
  std::int64_t step = *v.b.step;
  b.step = &step;  // this instance's own counter (advance_groups' contract)
  const bool euler = mv.integrator == static_cast<std::int8_t>(Integrator::Euler) ||
                     mv.integrator == static_cast<std::int8_t>(Integrator::SymplecticEuler);
  const double half_dt = 0.5 * mv.dt;
  const double stage_h[4] = {half_dt, half_dt, mv.dt, mv.dt};
  for (int t = 0; t < n_steps; ++t) {
    if (euler) {
      batch::fused_euler_thread(i, mv, v.P, b);
    } else {
      for (int s = 0; s < 4; ++s) batch::fused_stage_thread(i, mv, v.P, b, s, stage_h[s]);
    }
    ++step;
  }
}

/// The group's solve compiled for each target (simd/dispatch.hpp), and out of line: the
/// group step evaluates at up to six places (stages, projections), and inlining the
/// flattened solve (assembly, block Cholesky, refinement) at each of them made this file
/// take 8-15 minutes of one core to compile instead of 2, and the step 5-8 % slower
/// (docs/performance.md, "The cpu-simd backend"). The compiler memory barriers: as
/// SP_LANES_BARRIER's in simd_group.hpp.
[[gnu::noinline]] SP_SIMD_CLONES void group_solve_dispatched(GroupState& s, const double* y, double h,
                                                             int projection_stage) {
  asm volatile("" ::: "memory");
  group_solve(s, y, h, projection_stage);
  asm volatile("" ::: "memory");
}

/// The group step compiled for each target (simd/dispatch.hpp).
SP_SIMD_CLONES void advance_group_dispatched(const GroupContext& ctx, int g, int n_steps) {
  advance_group(ctx, g, n_steps, group_solve_dispatched);
}

}  // namespace

void advance_groups(const SimdBatchView& v, int g0, int g1, int n_steps, bool lanes) {
  if (!lanes) {
    for (int i = g0 * kLaneWidth; i < g1 * kLaneWidth; ++i) advance_instance(v, i, n_steps);
    return;
  }
  // Per thread and kept: after a thread's first call with a model, no allocation.
  thread_local std::vector<unsigned char> scalar_forces;
  thread_local std::vector<BodyKin<double>> kin;
  const GroupContext ctx = make_group_context(v, scalar_forces, kin);
  for (int g = g0; g < g1; ++g) advance_group_dispatched(ctx, g, n_steps);
}


}  // namespace simphant::simd
