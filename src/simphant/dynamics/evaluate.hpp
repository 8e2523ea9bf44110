#pragma once
// The system evaluator (docs/solver.md, The Schur complement and The refined regularised
// solve): given Y, builds Q, Phi_q, gamma*, and solves the Schur complement
//   C lambda = Phi_q M^-1 Q - gamma*,   C = Phi_q M^-1 Phi_q^T,
// by a Cholesky factorisation of C + E (E_R = eps C_RR; Eigen LLT or the block-sparse
// sparse_cholesky.hpp; a rejected pivot retried with a larger shift) refined on that
// factor (refined_solve.hpp), then qddot = M^-1 (Q - Phi_q^T lambda).
// C is built from the per-joint row blocks: M is block diagonal, so C(a, b) is non-zero
// only for joints a, b that share a body.
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Sets d.kin from Y (13N), quaternions normalised for A.
void set_kinematics(const Model& model, Data& d, const double* Y);

/// Evaluates every constraint element (the joints, then the drivers: Model::constraint)
/// at d.kin and the instance time t [s] into d.rows (Phi_q blocks) and the global d.phi,
/// d.phi_dot (= Phi_q qdot + Phi_t), d.gamma_star (Baumgarte with the model's alpha,
/// beta; docs/solver.md, "Rheonomic drivers").
void evaluate_constraints(const Model& model, Data& d, double t);

/// The dense (m, 6N) d.Phi_q from d.rows (call evaluate_constraints first), sized on
/// the first call (it allocates then). For assembly, rank analysis and test references;
/// a step never forms it.
void assemble_jacobian(const Model& model, Data& d);

/// The solve of evaluate() from d.rows, d.Q and d.gamma_star (evaluate_constraints and
/// the forces already in place): lambda from the Schur system into d.lambda, then
/// d.qddot = M^-1 (Q - Phi_q^T lambda) (6N); d.Q is overwritten with Q - Phi_q^T lambda.
/// The refined solve's relative error estimate goes to d.refine_estimate and is recorded
/// in d.refinement at the instance time t [s]. Also the solve of the projection
/// (dynamics/projection.hpp), with Q = 0 and gamma* set to minus the residual. Returns
/// false if the factorisation failed.
bool solve_accelerations(const Model& model, Data& d, double t);

/// Full evaluation: Ydot = f(t, Y) (13N) at the instance time t [s] (docs/state.md: the
/// instance's steps since reset times dt, plus the RK4 stage offset). Fills d.lambda,
/// d.qddot. inputs as compute_forces.
/// Returns false if no factorisation attempt succeeded (refined_solve.hpp) or a result is
/// not finite.
bool evaluate(const Model& model, Data& d, double t, const double* Y, const double* inputs, double* Ydot);

/// Joint reactions from d.lambda at d.kin: out (n_joints, 6) = force [N] and torque
/// [N m] that each joint applies to its body_j, about the anchor, in W.
void joint_reactions(const Model& model, const Data& d, double* out);

/// Driver loads from d.lambda: out (n_drivers) = the driving torque [N m] (angle) or
/// force [N] (slide) that each driver applies to its joint's body_j, positive along the
/// joint axis v_i (body_i takes the opposite). The driver's generalised force on body_j
/// is -Phi_q,j^T lambda with Phi_q,j = [0, A_j^T v_i] (angle, at an assembled joint) or
/// [v_i, A_j^T (s_j x v_i)] (slide), so the load is -lambda (docs/solver.md,
/// "Rheonomic drivers").
void driver_loads(const Model& model, const Data& d, double* out);

/// Kinetic energy [J], sum of 1/2 m v.v + 1/2 omega_B . J omega_B, at d.kin.
double kinetic_energy(const Model& model, const Data& d);

/// Total energy [J]: kinetic + gravity potential (-m g . r) + spring potential, at d.kin.
double total_energy(const Model& model, const Data& d);

/// max |Phi| over all rows at d.kin (call evaluate_constraints first).
double max_violation(const Data& d);

}  // namespace simphant
