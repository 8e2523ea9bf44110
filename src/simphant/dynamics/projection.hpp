#pragma once
// Projection of one instance's state onto the constraint manifold after a step
// (docs/solver.md, Projection onto the constraint manifold), the CPU reference of
// kernels/projection.hpp. Uses the step's own Schur build and factorisation
// (dynamics/evaluate.hpp, solve_accelerations); no allocation.
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// One projection stage (projection_math.hpp, kProjectPosition or kProjectVelocity) of
/// Y (13N) in place: evaluates Phi, Phi_q at Y, solves C lambda = residual and applies
/// the correction -M^-1 Phi_q^T lambda to the positions or the velocities. Returns false
/// (Y unchanged) when the factorisation failed.
bool projection_stage(const Model& model, Data& d, double* Y, int stage);

/// model.solver.projection applied to Y (13N) in place: nothing (none); the velocity
/// stage (velocity); kProjectionNewtonIterations position stages and then the velocity
/// stage (position_velocity). Returns false when a factorisation failed.
bool project(const Model& model, Data& d, double* Y);

}  // namespace simphant
