#include "simphant/dynamics/rk4.hpp"

#include <cmath>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/force_math.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/dynamics/runaway.hpp"
#include "simphant/dynamics/state.hpp"

namespace simphant {

namespace {

/// The reason of a failed evaluate(): it writes every entry of Ydot once the Schur
/// system is solved and fails then only on a non-finite acceleration, so a failure that
/// leaves Ydot finite (it held the last stage's finite values) is the factorisation's.
std::int8_t evaluate_failure(const double* Ydot, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(Ydot[i])) return kReasonNonFinite;
  return kReasonFactorisationFailure;
}

/// Kinetic energy [J] of Y (13N): the sum of rigid_kinetic_energy over the bodies.
double kinetic_energy_of(const Model& model, const double* Y) {
  const int N = model.n_bodies();
  double K = 0;
  for (int k = 0; k < N; ++k)
    K += rigid_kinetic_energy(model.bodies[k].mass, model.bodies[k].inertia_B, state_v(Y, N, k), state_omega(Y, N, k));
  return K;
}

}  // namespace

bool rk4_step(const Model& model, Data& d, double t, double* Y, const double* inputs, double dt, double kinetic_bound) {
  const double t_half = t + 0.5 * dt, t_end = t + dt;  // as the batched kernels' instance_time_thread
  const int n = model.ny();
  double* ys = d.y_stage.data();
  d.failure = kReasonNone;
  for (int i = 0; i < n; ++i) d.k1[i] = 0.0;  // evaluate_failure reads k1 when the solve fails
  const bool start_ok = evaluate(model, d, t, Y, inputs, d.k1.data());
  // The first stage evaluates the start state; Phi is evaluated before the solve.
  d.violation_start = model.n_rows > 0 ? max_violation(d) : 0.0;
  if (!(d.violation_start <= model.solver.violation_bound)) {
    d.failure = std::isnan(d.violation_start) ? kReasonNonFinite : kReasonConstraintViolation;
    return false;
  }
  const auto failed = [&](const double* Ydot) {
    d.failure = evaluate_failure(Ydot, n);
    return false;
  };
  if (!start_ok) return failed(d.k1.data());
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
  for (int i = 0; i < n; ++i) {
    ys[i] = Y[i] + dt / 6.0 * (d.k1[i] + 2.0 * d.k2[i] + 2.0 * d.k3[i] + d.k4[i]);
    if (!std::isfinite(ys[i])) {
      d.failure = kReasonNonFinite;
      return false;
    }
  }
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Quatd p = normalized(state_p(ys, k));
    ys[7 * k + 3] = p.w; ys[7 * k + 4] = p.x; ys[7 * k + 5] = p.y; ys[7 * k + 6] = p.z;
  }
  if (!project(model, d, t_end, ys)) {  // solver.projection (docs/solver.md)
    d.failure = kReasonFactorisationFailure;
    return false;
  }
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(ys[i])) {
      d.failure = kReasonNonFinite;
      return false;
    }
  if (kinetic_energy_of(model, ys) > kinetic_bound) {
    d.failure = kReasonRunaway;
    return false;
  }
  for (int i = 0; i < n; ++i) Y[i] = ys[i];
  return true;
}

}  // namespace simphant
