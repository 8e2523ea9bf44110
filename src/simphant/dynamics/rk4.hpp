#pragma once
// Fixed-step classical RK4 on Y (design.md §3), quaternions renormalised after the step.
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Advances Y (13N) by one step dt. Returns false (Y unchanged) if an evaluation failed
/// or the result is not finite. Sets d.violation_start = max |Phi| at the start state.
bool rk4_step(const Model& model, Data& d, double* Y, const double* inputs, double dt);

}  // namespace simphant
