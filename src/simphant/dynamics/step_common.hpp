#pragma once
// The parts of a fixed step that every fixed-step integrator shares (dynamics/rk4.hpp,
// dynamics/euler.hpp): the start state's evaluation with its violation check and
// reduction sample, and the checks, projection and commit of the candidate state
// (docs/solver.md, "Instance status").
#include <cstdint>

#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/reduce_sample.hpp"

namespace simphant {

/// The reason of a failed evaluate() that wrote into Ydot (n entries): non_finite when
/// an entry is not finite, else factorisation_failure (evaluate writes every entry once
/// the Schur system is solved and fails then only on a non-finite acceleration).
std::int8_t evaluate_failure(const double* Ydot, int n);

/// Kinetic energy [J] of Y (13N): the sum of rigid_kinetic_energy over the bodies.
double kinetic_energy_of(const Model& model, const double* Y);

/// Evaluates the start state Y at the instance time t [s] into d.k1 and checks it: false
/// with d.failure set when max |Phi| (d.violation_start) exceeds solver.violation_bound
/// (constraint violation; non-finite when NaN) or the evaluation failed
/// (evaluate_failure). Once both pass, adds the start state's reduction sample to sink
/// (optional).
bool begin_step(const Model& model, Data& d, double t, const double* Y, const double* inputs, const ReductionSink* sink);

/// Commits the candidate ys (13N, quaternions already unit) to Y when it passes: finite,
/// projected by solver.projection at t_end (factorisation failure when a projection solve
/// fails), finite again, kinetic energy <= kinetic_bound (runaway). Returns false (Y
/// unchanged, d.failure set) otherwise.
bool finish_step(const Model& model, Data& d, double t_end, double* ys, double kinetic_bound, double* Y);

}  // namespace simphant
