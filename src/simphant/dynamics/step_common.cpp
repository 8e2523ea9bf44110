#include "simphant/dynamics/step_common.hpp"

#include <cmath>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {

std::int8_t evaluate_failure(const double* Ydot, int n) {
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(Ydot[i])) return kReasonNonFinite;
  return kReasonFactorisationFailure;
}

double kinetic_energy_of(const Model& model, const double* Y) {
  const int N = model.n_bodies();
  double K = 0;
  for (int k = 0; k < N; ++k)
    K += rigid_kinetic_energy(model.bodies[k].mass, model.bodies[k].inertia_B, state_v(Y, N, k), state_omega(Y, N, k));
  return K;
}

bool begin_step(const Model& model, Data& d, double t, const double* Y, const double* inputs, const ReductionSink* sink) {
  const int n = model.ny();
  d.failure = kReasonNone;
  d.step_pivot = no_schur_pivot<double>();  // a new step: the auto projection's indicator starts afresh
  for (int i = 0; i < n; ++i) d.k1[i] = 0.0;  // evaluate_failure reads k1 when the solve fails
  const bool start_ok = evaluate(model, d, t, Y, inputs, d.k1.data());
  // The first evaluation is of the start state; Phi is evaluated before the solve.
  d.violation_start = model.n_rows > 0 ? max_violation(d) : 0.0;
  if (!(d.violation_start <= model.solver.violation_bound)) {
    d.failure = std::isnan(d.violation_start) ? kReasonNonFinite : kReasonConstraintViolation;
    return false;
  }
  if (!start_ok) {
    d.failure = evaluate_failure(d.k1.data(), n);
    return false;
  }
  if (sink) sample_reductions(model, d, t, inputs, *sink->layout, sink->acc, sink->step);
  return true;
}

bool finish_step(const Model& model, Data& d, double t_end, double* ys, double kinetic_bound, double* Y) {
  const int n = model.ny();
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(ys[i])) {
      d.failure = kReasonNonFinite;
      return false;
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
