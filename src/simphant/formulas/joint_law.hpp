#pragma once
// Robot joint forces in maximal coordinates (docs/solver.md, "Robot joint forces in the
// DAE"; docs/robots.md): the joint-space law of reduced/joint_forces.hpp (actuator mode
// and servo, effort clamp, velocity cut, damping, joint spring, Coulomb friction, position
// limits)
// evaluated at the joint coordinate and rate read from the two bodies' states. A URDF
// <mimic> is not a force here: the DAE holds it as a constraint row (Model::mimics,
// joints/joint_coordinate.hpp mimic_row).
// A generalised force Q along a joint's coordinate becomes body wrenches as an actuator:
// revolute, +Q v_i on body_j and -Q v_i on body_i (torques, W); prismatic, +-Q v_i at
// body_j's anchor. Its power is Q times the coordinate's rate wherever the joint's
// constraints hold. Header-only __host__ __device__: one copy for the CPU reference
// (dynamics/forces.cpp) and the batched kernels (kernels/body_forces.hpp).
#include "simphant/formulas/force_math.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/reduced/joint_forces.hpp"

namespace simphant {

/// Parameters of one robot joint's law in the DAE: the joint-space parameters and what the
/// maximal form adds. Plain data; kJointLawParams numbers in the order of
/// joint_law_values (the GPU's per-instance parameter block, batch/model_view.hpp).
template <class T>
struct JointLaw {
  RobotJointParams<T> p;  ///< the joint-space law (reduced/joint_forces.hpp)
  /// Revolute: the body states give the angle only modulo 2 pi; the law reads
  /// q = q_ref + wrap(theta - q_ref) in (q_ref - pi, q_ref + pi] [rad] (the scene compile
  /// sets q_ref = the joint's q0). Prismatic: unused.
  T q_ref;
};

/// Numbers of a JointLaw (joint_law_values / joint_law_from).
constexpr int kJointLawParams = 19;

/// A joint law with the plain joint-space parameters: a torque input, nothing else.
template <class T>
SP_HD JointLaw<T> plain_joint_law() {
  return {plain_joint_params<T>(), T(0)};
}

/// The kJointLawParams numbers of L: the 18 RobotJointParams fields in declaration order
/// (the integers mode, limited, mimic as numbers), then q_ref.
template <class T>
SP_HD void joint_law_values(const JointLaw<T>& L, T* out) {
  const RobotJointParams<T>& p = L.p;
  const T v[kJointLawParams] = {T(p.mode),           p.kp,         p.kd,           p.effort,
                                p.velocity,          p.damping,    p.friction,     p.friction_velocity,
                                T(p.limited),        p.lower,      p.upper,        p.limit_stiffness,
                                p.limit_damping,     T(p.mimic),   p.mimic_multiplier, p.mimic_offset,
                                p.stiffness,         p.spring_q,   L.q_ref};
  for (int k = 0; k < kJointLawParams; ++k) out[k] = v[k];
}

/// The JointLaw whose numbers (joint_law_values' order) an accessor k -> T gives.
/// The integer fields (mode, limited, mimic) are read through value_of (math/lane_ops.hpp):
/// they select a branch and are not differentiated.
template <class T, class P>
SP_HD JointLaw<T> joint_law_from(const P& v) {
  JointLaw<T> L;
  L.p.mode = static_cast<int>(value_of(v(0)));
  L.p.kp = v(1);
  L.p.kd = v(2);
  L.p.effort = v(3);
  L.p.velocity = v(4);
  L.p.damping = v(5);
  L.p.friction = v(6);
  L.p.friction_velocity = v(7);
  L.p.limited = static_cast<int>(value_of(v(8)));
  L.p.lower = v(9);
  L.p.upper = v(10);
  L.p.limit_stiffness = v(11);
  L.p.limit_damping = v(12);
  L.p.mimic = static_cast<int>(value_of(v(13)));
  L.p.mimic_multiplier = v(14);
  L.p.mimic_offset = v(15);
  L.p.stiffness = v(16);
  L.p.spring_q = v(17);
  L.q_ref = v(18);
  return L;
}

/// The coordinate q and its rate qd of a revolute (angle = true) or prismatic joint from
/// the bodies' states:
///  angle: q = q_ref + wrap(theta - q_ref), theta = coordinate_angle_value (the rotation
///         from a_i to a_j about v_i), qd = (omega_j - omega_i) . v_i [rad, rad/s];
///  slide: q = (P_j - P_i) . v_i with P the anchors r + A u, qd = (P_j' - P_i') . v_i +
///         (P_j - P_i) . (omega_i x v_i), its exact time derivative [m, m/s].
/// v_i_W gets the axis in W (the direction of the generalised force).
template <class T>
SP_HD void joint_coordinate_state(bool angle, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                                  T q_ref, T& q, T& qd, Vec3<T>& v_i_W) {
  v_i_W = mul(Bi.A, f.v_i);
  if (angle) {
    q = coordinate_about(JointCoordinate::Angle, coordinate_angle_value(f, Bi, Bj), q_ref);
    qd = dot(Bj.omega_W - Bi.omega_W, v_i_W);
  } else {
    Vec3<T> Pi, Vi, Pj, Vj;
    body_point_state(Bi, f.u_i, Pi, Vi);
    body_point_state(Bj, f.u_j, Pj, Vj);
    const Vec3<T> d = Pj - Pi;
    q = dot(d, v_i_W);
    qd = dot(Vj - Vi, v_i_W) + dot(d, cross(Bi.omega_W, v_i_W));
  }
}

/// The wrench [F (W) [N], T (B, about the CoM) [N m]] that a generalised force Q along a
/// joint's axis v_i_W (W) puts on one of its bodies B: on body_j (on_j) +Q v_i, on body_i
/// -Q v_i; as a torque (angle) or as a force at body_j's anchor P_j (slide).
template <class T>
SP_HD void joint_force_wrench(bool angle, bool on_j, const Vec3<T>& v_i_W, const Vec3<T>& P_j, T Q,
                              const BodyKin<T>& B, Vec3<T>& F_W, Vec3<T>& T_B) {
  const Vec3<T> w = on_j ? Q * v_i_W : -(Q * v_i_W);
  if (angle) {
    F_W = zero3<T>();
    T_B = mul_t(B.A, w);
  } else {
    F_W = w;
    T_B = torque_B_of_force_at(B, w, P_j);
  }
}

/// The generalised-force side of one joint for the wrenches: whether its coordinate is an
/// angle, its axis v_i (W), body_j's anchor P_j (W) and the generalised force Q.
template <class T>
struct JointLoad {
  bool angle;
  Vec3<T> v_i_W, P_j;
  T Q;
};

/// One robot joint's law at the bodies' states (frame f between Bi and Bj, input u = the
/// actuator's input plus s(t)): Q = joint_applied_force(L.p, u, q, qd) at the joint's
/// coordinate and rate (joint_coordinate_state). Each body's wrench is then
/// joint_load_wrench.
template <class T>
SP_HD void joint_law_loads(const JointLaw<T>& L, T u, bool angle, const JointFrame<T>& f, const BodyKin<T>& Bi,
                           const BodyKin<T>& Bj, JointLoad<T>& self) {
  T q, qd;
  self.angle = angle;
  joint_coordinate_state(angle, f, Bi, Bj, L.q_ref, q, qd, self.v_i_W);
  self.P_j = Bj.r + mul(Bj.A, f.u_j);
  self.Q = joint_applied_force(L.p, u, q, qd);
}

/// joint_force_wrench of a JointLoad on body B (on_j: B is the joint's body_j, else body_i).
template <class T>
SP_HD void joint_load_wrench(const JointLoad<T>& J, bool on_j, const BodyKin<T>& B, Vec3<T>& F_W, Vec3<T>& T_B) {
  joint_force_wrench(J.angle, on_j, J.v_i_W, J.P_j, J.Q, B, F_W, T_B);
}

}  // namespace simphant
