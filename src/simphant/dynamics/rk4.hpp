#pragma once
// Fixed-step classical RK4 on Y (docs/solver.md), quaternions renormalised after the step,
// then the projection of model.solver.projection (dynamics/projection.hpp); with
// position_velocity the stage states 2 to 4 have their velocities projected before they
// are evaluated (project_stage_state).
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Advances Y (13N) by one step dt. Returns false (Y unchanged) if an evaluation or the
/// projection's factorisation failed, the result is not finite, or max |Phi| at the start state (d.violation_start)
/// exceeds model.solver.violation_bound.
bool rk4_step(const Model& model, Data& d, double* Y, const double* inputs, double dt);

}  // namespace simphant
