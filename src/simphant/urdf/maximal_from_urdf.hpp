#pragma once
// ReducedModel (joint coordinates) -> the maximal-coordinate DAE Model of the constraint
// solver (model/model.hpp), so that one URDF robot runs on both formulations.
#include <string>
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// Builds the DAE Model of `rm` with its initial state at the joint coordinates q and
/// rates qdot (rm.nq() entries each; [rad] or [m], [rad/s] or [m/s]) and, for a floating
/// base (rm.floating), the base state base_q = p_B (3, W) [m], quat_B (4, w x y z, B -> W;
/// normalised here) and base_v = v_B (3, W: velocity of B's origin) [m/s], omega_B (3, B)
/// [rad/s] (robot_dynamics.hpp's layout). Empty base_q / base_v mean the base at rest at
/// the world origin; a fixed base ignores them.
///
/// Bodies: fixed base: body k is link k. Floating base: body 0 is the base (name
/// rm.base.link; mass, inertia_B = rm.base's; frame at its CoM with B's axes) and body
/// k + 1 is link k. A link's body (same name) has its frame at the link's CoM with the
/// axes of the link frame L; mass and inertia_B = rm.links[k].inertia_com (inertia_inv_B
/// its inverse). A massless link (mass 0, accepted by the import for aba / cga) becomes a
/// body of mass 0 with zero inertia and zero inertia_inv_B: not a valid DAE body, which
/// require_dae_masses refuses. Initial state from forward_kinematics_velocity
/// (reduced/forward_kinematics.hpp) in B, carried to W by the base pose and twist:
/// r0_W = CoM position, p0 = rotation L -> W as a unit quaternion (w >= 0), v0_W = CoM
/// velocity, omega0_B = angular velocity in L. So the state satisfies Phi = 0 and
/// Phi_q qdot = 0 to rounding.
///
/// Joints: joint k (name rm.links[k].joint_name) of type Revolute or Prismatic between
/// body_i = the body of links[k].parent (kGround for a fixed base, body 0 for a floating
/// one) and body_j = link k's body. Its frame is the URDF joint frame: on body j,
/// u_j = -com_k (the link origin), v_j = axis, a_j = a fixed unit vector normal to the
/// axis, b_j = v_j x a_j; on body i the same triad carried through R_parent_joint:
/// u_i = p_parent_joint - com_parent (fixed base: p_parent_joint in W; floating base:
/// com_parent = rm.base.com), v_i = R_parent_joint v_j, a_i = R_parent_joint a_j,
/// b_i = v_i x a_i. At q = 0 the two triads coincide; the revolute angle is the rotation
/// from a_i to a_j about v. row_offset and n_rows are filled as the scene compiler does
/// (joint rows in order). The floating base has no joint: it is a free body.
///
/// gravity = rm.gravity; forces none; solver settings default. Limits, damping, friction
/// and mimic are not modelled here (the scene compile adds them).
/// Errors: std::invalid_argument if q or qdot do not have rm.nq() entries, or (floating)
/// base_q / base_v are neither empty nor of 7 / 6 entries, or quat_B is zero or not finite.
Model maximal_model_from_urdf(const ReducedModel& rm, const std::vector<double>& q, const std::vector<double>& qdot,
                              const std::vector<double>& base_q = {}, const std::vector<double>& base_v = {});

/// The maximal-coordinate DAE integrates every body's Newton-Euler equations, so it needs
/// mass > 0 on every moving link (the import accepts massless intermediate links for the
/// reduced solvers). Throws UrdfError (urdf_import.hpp) "URDF robot '<name>': link '<l>'
/// (joint '<j>'): no mass: solver dae needs mass on every moving link; use solver aba or
/// cga" for the first massless link; returns otherwise.
void require_dae_masses(const ReducedModel& rm);

/// The maximal-coordinate DAE has no coordinate of a joint's own on which a rotor inertia
/// (ReducedLink::armature) could act. "" when no joint has armature > 0; else, for the
/// first such joint, "robot joint '<j>': armature <a> kg m^2 (a rotor inertia on the joint
/// coordinate) is not supported by solver 'dae' (maximal coordinates); use solver 'aba' or
/// 'cga'" (kg for a prismatic joint), which the scene compile raises.
std::string dae_armature_error(const ReducedModel& rm);

}  // namespace simphant
