#pragma once
// ReducedModel (joint coordinates) -> the maximal-coordinate DAE Model of the constraint
// solver (model/model.hpp), so that one URDF robot runs on both formulations.
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// Builds the DAE Model of `rm` with its initial state at the joint coordinates q and
/// rates qdot (rm.nq() entries each; [rad] or [m], [rad/s] or [m/s]).
///
/// Bodies: body k is link k (same name), body frame B at the link's CoM with the axes of
/// the link frame L; mass and inertia_B = rm.links[k].inertia_com (inertia_inv_B its
/// inverse). Initial state from forward_kinematics_velocity (reduced/forward_kinematics.hpp):
/// r0_W = CoM position, p0 = rotation L -> W as a unit quaternion (w >= 0), v0_W = CoM
/// velocity, omega0_B = angular velocity in L. So the state satisfies Phi = 0 and
/// Phi_q qdot = 0 to rounding.
///
/// Joints: joint k (name rm.links[k].joint_name) of type Revolute or Prismatic between
/// body_i = links[k].parent (kGround for the base) and body_j = k. Its frame is the URDF
/// joint frame: on body j, u_j = -com_k (the link origin), v_j = axis, a_j = a fixed unit
/// vector normal to the axis, b_j = v_j x a_j; on body i the same triad carried through
/// R_parent_joint: u_i = p_parent_joint - com_parent (base: p_parent_joint in W),
/// v_i = R_parent_joint v_j, a_i = R_parent_joint a_j, b_i = v_i x a_i. At q = 0 the two
/// triads coincide; the revolute angle is the rotation from a_i to a_j about v.
/// row_offset and n_rows are filled as the scene compiler does (joint rows in order).
///
/// gravity = rm.gravity; forces none; solver settings default. Limits are not modelled.
/// Errors: std::invalid_argument if q or qdot do not have rm.nq() entries.
Model maximal_model_from_urdf(const ReducedModel& rm, const std::vector<double>& q, const std::vector<double>& qdot);

}  // namespace simphant
