#pragma once
// Joint coordinates of a URDF robot read back from its maximal-coordinate DAE state
// (the model of urdf/maximal_from_urdf.hpp: joint k is link k's joint, body_i the parent
// or ground, body_j = k, frame triads u, v, a, b on each side that coincide at q = 0).
#include <cstdint>

#include "simphant/model/model.hpp"

namespace simphant {

/// From the DAE state Y (13N, formulas/state.hpp) of a robot model (model.robot set):
/// q[k], qd[k] for each joint k (n = model.n_joints() entries each).
///  revolute : q = coordinate_angle_value (joints/joint_coordinate.hpp: the rotation from a_i to a_j
///             about v_i), in (-pi, pi]; for a joint whose actuator has a joint law (robot
///             scenes) in (q_ref - pi, q_ref + pi] with q_ref = its q0, the coordinate the
///             law reads (formulas/joint_law.hpp) -- wrapped, unlike the reduced
///             backend's integrated q; qd = (omega_j - omega_i) . v_i [rad/s]
///  prismatic: q = (P_j - P_i) . v_i with P the anchors r + A u [m] (coordinate_slide_value);
///             qd = (dP_j/dt - dP_i/dt) . v_i [m/s] (exact while the joint holds)
void dae_joint_coordinates(const Model& model, const double* Y, double* q, double* qd);

/// The actuator force of each robot joint [N m | N] at the DAE state Y with the per-instance
/// inputs (model.n_inputs; nullptr: the actuators' default values): for an actuator with a
/// joint law (ForceElement::has_joint_law) joint_actuator_force (reduced/joint_forces.hpp:
/// servo law, effort clamp, velocity cut) at the law's coordinate and rate
/// (formulas/joint_law.hpp), else its input. tau[joint] for each actuator of a joint
/// (n = model.n_joints() entries; a joint without an actuator gets 0). Motion laws s(t) of
/// actuators are not added (robot actuators have none).
void dae_joint_actuator_forces(const Model& model, const double* Y, const double* inputs, double* tau);

/// The actuators with a joint law in `model` (the laws dae_joint_law_branches reads).
int dae_joint_law_count(const Model& model);

/// out (dae_joint_law_count): joint_law_branch (reduced/joint_forces.hpp: which side of
/// the velocity cut and of a damped position limit) of each actuator with a joint law, in
/// model order, at the DAE state Y and the inputs (as dae_joint_actuator_forces).
void dae_joint_law_branches(const Model& model, const double* Y, const double* inputs, std::uint8_t* out);

}  // namespace simphant
