#pragma once
// Projection of one instance's state onto the constraint manifold after a step
// (docs/solver.md, Projection onto the constraint manifold), the CPU reference of
// kernels/projection.hpp. Uses the step's own Schur build and factorisation
// (dynamics/evaluate.hpp, solve_accelerations); no allocation.
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// One projection stage (projection_math.hpp, kProjectPosition or kProjectVelocity) of
/// Y (13N) at the instance time t [s] in place (a driver's row projects onto
/// Phi(q, t) = 0 and Phi_q qdot = -Phi_t): evaluates Phi, Phi_q at Y, solves C lambda = residual and applies
/// the correction -M^-1 Phi_q^T lambda to the positions or the velocities. Returns false
/// (Y unchanged) when the factorisation failed.
bool projection_stage(const Model& model, Data& d, double t, double* Y, int stage);

/// model.solver.projection applied to Y (13N) in place: nothing (none); the velocity
/// stage (velocity); kProjectionNewtonIterations position stages and then the velocity
/// stage (position_velocity; auto: as position_velocity when d.step_pivot is below
/// solver.auto_projection_pivot, else nothing: step_projection). Returns false when a
/// factorisation failed.
bool project(const Model& model, Data& d, double t, double* Y);

/// The RK4 stage-state projection of position_velocity: the velocity stage applied to an
/// RK4 stage state Y (13N) in place before it is evaluated (stages 2 to 4). A stage state
/// Y + h/2 k carries a velocity residual Phi_q qdot of order h, which near a configuration
/// where Phi_q loses rank makes the Schur right-hand side incompatible and is amplified
/// into the accelerations (docs/solver.md, Projection onto the constraint manifold).
/// Nothing for none and velocity, and for auto where project() would do nothing. Returns
/// false when the factorisation failed.
bool project_stage_state(const Model& model, Data& d, double t, double* Y);

}  // namespace simphant
