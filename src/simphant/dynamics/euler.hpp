#pragma once
// Fixed-step explicit Euler and symplectic (semi-implicit) Euler on Y (docs/solver.md,
// "Integrators"): one evaluation per step, the body update of formulas/euler_math.hpp
// (quaternions renormalised), then the projection of model.solver.projection, with the
// failure checks of rk4_step (dynamics/rk4.hpp).
#include <limits>

#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/euler_math.hpp"
#include "simphant/dynamics/reduce_sample.hpp"

namespace simphant {

/// Advances Y (13N) by one step dt from the instance time t [s]: the one evaluation at
/// (t, Y), the projection at t + dt. Returns false (Y unchanged) with d.failure set for
/// the reasons of rk4_step (constraint violation or non-finite start state, factorisation
/// failure, non-finite result, kinetic energy [J] above kinetic_bound); sink (optional)
/// gets the start state's reduction sample once its evaluation and violation check pass.
bool euler_step(EulerKind kind, const Model& model, Data& d, double t, double* Y, const double* inputs, double dt,
                double kinetic_bound = std::numeric_limits<double>::infinity(), const ReductionSink* sink = nullptr);

}  // namespace simphant
