#include "simphant/dynamics/rk4.hpp"

#include <cmath>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/dynamics/step_common.hpp"

namespace simphant {

bool rk4_step(const Model& model, Data& d, double t, double* Y, const double* inputs, double dt, double kinetic_bound,
              const ReductionSink* sink) {
  const double t_half = t + 0.5 * dt, t_end = t + dt;  // as the batched kernels' instance_time_thread
  const int n = model.ny();
  double* ys = d.y_stage.data();
  if (!begin_step(model, d, t, Y, inputs, sink)) return false;
  const auto failed = [&](const double* Ydot) {
    d.failure = evaluate_failure(Ydot, n);
    return false;
  };
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + 0.5 * dt * d.k1[i];
  const auto project_failed = [&] {
    d.failure = kReasonFactorisationFailure;
    return false;
  };
  if (!project_stage_state(model, d, t_half, ys)) return project_failed();
  if (!evaluate(model, d, t_half, ys, inputs, d.k2.data())) return failed(d.k2.data());
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + 0.5 * dt * d.k2[i];
  if (!project_stage_state(model, d, t_half, ys)) return project_failed();
  if (!evaluate(model, d, t_half, ys, inputs, d.k3.data())) return failed(d.k3.data());
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + dt * d.k3[i];
  if (!project_stage_state(model, d, t_end, ys)) return project_failed();
  if (!evaluate(model, d, t_end, ys, inputs, d.k4.data())) return failed(d.k4.data());
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + dt / 6.0 * (d.k1[i] + 2.0 * d.k2[i] + 2.0 * d.k3[i] + d.k4[i]);
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Quatd p = normalized(state_p(ys, k));
    ys[7 * k + 3] = p.w; ys[7 * k + 4] = p.x; ys[7 * k + 5] = p.y; ys[7 * k + 6] = p.z;
  }
  return finish_step(model, d, t_end, ys, kinetic_bound, Y);
}

}  // namespace simphant
