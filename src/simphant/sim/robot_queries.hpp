#pragma once
// Batched joint-space queries of a robot model (Model::robot; docs/robots.md,
// "Kinematics and dynamics queries"): forward kinematics, link Jacobians, the mass matrix,
// inverse and forward dynamics at given states, for B states at once. They run the
// header-only recursions the joint-space backends step with (reduced/: forward_kinematics,
// crba, rnea, aba, aba_floating), on the rigid bodies alone: no joint laws (servos,
// damping, friction, limits, mimic), no actuators, no external loads; gravity is the
// model's robot gravity.
//
// Coordinates (the joint-space state's, robot_kinematics.hpp): q (nq) = the n joint
// positions [rad | m], with a floating base first p_B [m] (W) and quat_B (w, x, y, z;
// B -> W), nq = n + 7; velocities nu (nv) = the joint rates, with a floating base first
// v_B (B's origin, W) [m/s] and omega_B (B axes) [rad/s], nv = n + 6. Generalised forces
// (nv) are dual to nu: for the base a force on B's origin in W [N] and a moment in B's axes
// [N m]. Arrays are row-major; F the frames asked for (link frame indices,
// sim/link_frames.hpp: the moving links, then the floating base). Every function throws
// std::invalid_argument for a model without a robot or a frame index out of range.
#include "simphant/model/model.hpp"

namespace simphant {

/// Frame poses at q (B, nq): out (B, F, 7) = origin in W [m], orientation (w, x, y, z;
/// frame -> W, w >= 0).
void robot_forward_kinematics(const Model& model, int batch, const double* q, const int* frames, int count,
                              double* out);

/// Frame Jacobians at q (B, nq): out (B, F, 6, nv): rows 0-2 map nu to the velocity of the
/// frame's origin in W [m/s], rows 3-5 to its angular velocity in W [rad/s] (Pinocchio's
/// LOCAL_WORLD_ALIGNED). Joint j's column is zero unless j is on the path from the base to
/// the frame: revolute (z_j x (o_k - o_j), z_j), prismatic (z_j, 0), z_j the axis in W; a
/// floating base's columns are (I, 0) for v_B and (-[o_k - p_B]x R_B, R_B) for omega_B.
void robot_link_jacobians(const Model& model, int batch, const double* q, const int* frames, int count, double* out);

/// Mass matrix M(q): out (B, nv, nv), symmetric positive definite, the kinetic energy
/// 1/2 nu^T M nu. Fixed base: CRBA. Floating base: the sum over the bodies of
/// m J_c^T J_c + J_w^T I_W J_w (J_c, J_w: the CoM velocity's and the angular velocity's
/// Jacobians in W). Both add each joint's armature to its diagonal entry
/// (docs/robots.md, "Armature").
void robot_mass_matrix(const Model& model, int batch, const double* q, double* out);

/// Inverse dynamics: out (B, nv) = the generalised forces that give the accelerations
/// nudot (qdd, B x nv) at (q, nu = qd): M(q) nudot + h(q, nu). Fixed base: RNEA. Floating
/// base: M (nudot - a0), a0 the accelerations under no load (ABA).
void robot_inverse_dynamics(const Model& model, int batch, const double* q, const double* qd, const double* qdd,
                            double* out);

/// Forward dynamics: out (B, nv) = nudot at (q, nu = qd) under the generalised forces tau
/// (B, nv): ABA (floating base: ABA with the joint forces, plus M^-1 (Q_B, 0) for a load
/// Q_B on the base).
void robot_forward_dynamics(const Model& model, int batch, const double* q, const double* qd, const double* tau,
                            double* out);

}  // namespace simphant
