#pragma once
// Joint coordinates of a URDF robot read back from its maximal-coordinate DAE state
// (the model of urdf/maximal_from_urdf.hpp: joint k is link k's joint, body_i the parent
// or ground, body_j = k, frame triads u, v, a, b on each side that coincide at q = 0).
#include <cstdint>

#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// One joint's coordinate q and rate qd (dae_joint_coordinates below) at the states Bi,
/// Bj of its bodies, for any number type T (the sensitivity engine's dual numbers).
/// revolute: the angle and (omega_j - omega_i) . v_i as its law reads them
/// (joint_coordinate_state, formulas/joint_law.hpp): with a law (law true) in
/// (q_ref - pi, q_ref + pi], else in (-pi, pi]. Else the slide along v_i and
/// (dP_j/dt - dP_i/dt) . v_i: without joint_coordinate_state's
/// (P_j - P_i) . (omega_i x v_i), which is 0 while the joint holds.
template <class T>
void dae_joint_coordinate(bool revolute, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                          bool law, T q_ref, T& q, T& qd) {
  Vec3<T> v;
  if (revolute) {
    joint_coordinate_state(true, f, Bi, Bj, law ? q_ref : T(0), q, qd, v);
    return;
  }
  v = mul(Bi.A, f.v_i);
  Vec3<T> Pi, Vi, Pj, Vj;
  body_point_state(Bi, f.u_i, Pi, Vi);
  body_point_state(Bj, f.u_j, Pj, Vj);
  q = coordinate_slide_value(f, Bi, Bj);
  qd = dot(Vj - Vi, v);
}

/// The force [N m | N] of an actuator with joint law L and input u on the joint with frame
/// f between the body states Bi, Bj (angle: a torque actuator): joint_actuator_force
/// (reduced/joint_forces.hpp: servo law, effort clamp, velocity cut) at the coordinate and
/// rate the law reads (joint_coordinate_state), for any number type T.
template <class T>
T dae_joint_law_force(const JointLaw<T>& L, bool angle, const JointFrame<T>& f, const BodyKin<T>& Bi,
                      const BodyKin<T>& Bj, T u) {
  T q, qd;
  Vec3<T> v;
  joint_coordinate_state(angle, f, Bi, Bj, L.q_ref, q, qd, v);
  return joint_actuator_force(L.p, u, q, qd);
}

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
