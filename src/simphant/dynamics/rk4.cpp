#include "simphant/dynamics/rk4.hpp"

#include <cmath>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/dynamics/state.hpp"

namespace simphant {

bool rk4_step(const Model& model, Data& d, double* Y, const double* inputs, double dt) {
  const int n = model.ny();
  double* ys = d.y_stage.data();
  if (!evaluate(model, d, Y, inputs, d.k1.data())) return false;
  d.violation_start = max_violation(d);  // the first stage evaluates the start state
  if (!(d.violation_start <= model.solver.violation_bound)) return false;
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + 0.5 * dt * d.k1[i];
  if (!project_stage_state(model, d, ys)) return false;
  if (!evaluate(model, d, ys, inputs, d.k2.data())) return false;
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + 0.5 * dt * d.k2[i];
  if (!project_stage_state(model, d, ys)) return false;
  if (!evaluate(model, d, ys, inputs, d.k3.data())) return false;
  for (int i = 0; i < n; ++i) ys[i] = Y[i] + dt * d.k3[i];
  if (!project_stage_state(model, d, ys)) return false;
  if (!evaluate(model, d, ys, inputs, d.k4.data())) return false;
  for (int i = 0; i < n; ++i) {
    ys[i] = Y[i] + dt / 6.0 * (d.k1[i] + 2.0 * d.k2[i] + 2.0 * d.k3[i] + d.k4[i]);
    if (!std::isfinite(ys[i])) return false;
  }
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Quatd p = normalized(state_p(ys, k));
    ys[7 * k + 3] = p.w; ys[7 * k + 4] = p.x; ys[7 * k + 5] = p.y; ys[7 * k + 6] = p.z;
  }
  if (!project(model, d, ys)) return false;  // solver.projection (docs/solver.md)
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(ys[i])) return false;
  for (int i = 0; i < n; ++i) Y[i] = ys[i];
  return true;
}

}  // namespace simphant
