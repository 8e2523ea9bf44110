#pragma once
// Fixed-step classical RK4 on Y (docs/solver.md), quaternions renormalised after the step,
// then the projection of model.solver.projection (dynamics/projection.hpp); with
// position_velocity the stage states 2 to 4 have their velocities projected before they
// are evaluated (project_stage_state).
#include <limits>

#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/reduce_sample.hpp"

namespace simphant {

/// Advances Y (13N) by one step dt from the instance time t [s] (docs/state.md; the
/// stages are evaluated at t, t + dt/2, t + dt/2, t + dt and the projection at t + dt). Returns false (Y unchanged) and sets d.failure to
/// the reason (formulas/runaway.hpp, kReason*) when max |Phi| at the start state
/// (d.violation_start) exceeds model.solver.violation_bound (constraint violation;
/// non-finite when it is NaN), an evaluation's or the projection's factorisation failed
/// (factorisation failure), an evaluation or the result is not finite (non-finite), or
/// the result's kinetic energy [J] exceeds kinetic_bound (runaway; the step loop passes
/// the runaway bound at the end of the step). On success d.failure is kReasonNone.
/// sink (optional): the start state's reduction sample (dynamics/reduce_sample.hpp) is
/// added to it from the first evaluation, once that evaluation and the violation check
/// succeed (a step that fails later has still sampled its start state).
bool rk4_step(const Model& model, Data& d, double t, double* Y, const double* inputs, double dt,
              double kinetic_bound = std::numeric_limits<double>::infinity(), const ReductionSink* sink = nullptr);

}  // namespace simphant
