#include "simphant/dynamics/projection.hpp"

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {

bool projection_stage(const Model& model, Data& d, double t, double* Y, int stage) {
  const int N = model.n_bodies();
  set_kinematics(model, d, Y);
  evaluate_constraints(model, d, t);
  d.Q.setZero();
  for (int R = 0; R < model.n_rows; ++R) d.gamma_star[R] = projection_gamma_star(stage, d.phi[R], d.phi_dot[R]);
  if (!solve_accelerations(model, d, t)) return false;
  for (int k = 0; k < N; ++k) {
    const double* dq = d.qddot.data() + 6 * k;
    if (stage == kProjectPosition) {
      apply_position_correction(Y, k, dq);
    } else {
      double* qd = Y + 7 * N + 6 * k;
      for (int c = 0; c < 6; ++c) qd[c] += dq[c];
    }
  }
  return true;
}

namespace {

// The mode this step of the instance runs (step_projection: auto decided by d.step_pivot;
// an adaptive integrator's step takes no such decision: none, projects_adaptive_step).
Projection step_mode(const Model& model, const Data& d) {
  const int p = static_cast<int>(model.solver.projection);
  if (is_adaptive(model.solver.integrator))
    return projects_adaptive_step(p) ? model.solver.projection : Projection::None;
  return static_cast<Projection>(step_projection(p, d.step_pivot, model.solver.auto_projection_pivot));
}

}  // namespace

bool project(const Model& model, Data& d, double t, double* Y) {
  const Projection mode = step_mode(model, d);
  if (mode == Projection::None || model.n_rows == 0) return true;
  if (mode == Projection::PositionVelocity)
    for (int it = 0; it < kProjectionNewtonIterations; ++it)
      if (!projection_stage(model, d, t, Y, kProjectPosition)) return false;
  return projection_stage(model, d, t, Y, kProjectVelocity);
}

bool project_stage_state(const Model& model, Data& d, double t, double* Y) {
  if (!projects_stage_states(static_cast<int>(step_mode(model, d))) || model.n_rows == 0) return true;
  return projection_stage(model, d, t, Y, kProjectVelocity);
}

}  // namespace simphant
