#include "simphant/simd/simd_step.hpp"

#include "fused_stage.hpp"

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

}  // namespace

void advance_groups(const SimdBatchView& v, int g0, int g1, int n_steps, bool lanes) {
  (void)lanes;  // the lane code is not built yet: the scalar form runs
  for (int i = g0 * kLaneWidth; i < g1 * kLaneWidth; ++i) advance_instance(v, i, n_steps);
}

const char* simd_target() { return "generic"; }

}  // namespace simphant::simd
