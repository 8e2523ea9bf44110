#pragma once
// Joint-space forces of a robot joint (docs/robots.md, "Actuators, limits, damping and
// friction"): the generalised force [N m | N] that the joint's actuator and its passive
// elements apply along / about the joint axis, as a function of the joint coordinate q,
// its rate qd and the joint's per-instance input u. Header-only SP_HD, one copy of the
// law for the joint-space solvers (CPU and GPU) and the DAE path.
//
//  actuator (ActuatorMode):
//    torque   : a = u                                (u: the torque / force)
//    position : a = kp (u - q) - kd qd               (u: the target position, as
//                                                     MuJoCo's position actuator + damping)
//    velocity : a = kd (u - qd)                      (u: the target rate)
//    effort > 0   : a clamped to [-effort, effort]   (URDF <limit effort>)
//    velocity > 0 : a = 0 where it would drive |qd| further beyond the limit
//                   (qd >= velocity and a > 0, or qd <= -velocity and a < 0)
//  passive:
//    damping      : -damping qd                      (URDF <dynamics damping>, exact)
//    friction     : -friction tanh(qd / friction_velocity)
//                   (URDF <dynamics friction>, Coulomb smoothed over friction_velocity)
//    spring       : -stiffness (q - spring_q)        (MJCF joint stiffness about springref)
//    limits       : q < lower: max(0, limit_stiffness (lower - q) - limit_damping qd)
//                   q > upper: min(0, limit_stiffness (upper - q) - limit_damping qd)
//                   (a one-sided spring-damper that pushes, never pulls)
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"
#include "simphant/reduced/lane_math.hpp"

namespace simphant {

/// What a joint's per-instance input u means.
enum class ActuatorMode : int { Torque = 0, Position = 1, Velocity = 2 };

/// Per-joint parameters of the joint-space forces and of the mimic coupling; plain data
/// (device arrays). Scalar T is double or float.
template <class T>
struct RobotJointParams {
  int mode;             ///< ActuatorMode
  T kp;                 ///< position servo stiffness [N m/rad | N/m], >= 0
  T kd;                 ///< servo damping gain [N m s/rad | N s/m], >= 0
  T effort;             ///< > 0: |actuator| <= effort [N m | N]; <= 0: unbounded
  T velocity;           ///< > 0: velocity limit [rad/s | m/s]; <= 0: none
  T damping;            ///< viscous damping [N m s/rad | N s/m], >= 0
  T friction;           ///< Coulomb friction [N m | N], >= 0
  T friction_velocity;  ///< > 0: smoothing rate of the Coulomb law [rad/s | m/s]
  int limited;          ///< 1: position limits [lower, upper] enforced
  T lower, upper;       ///< [rad | m]
  T limit_stiffness;    ///< [N m/rad | N/m], >= 0
  T limit_damping;      ///< [N m s/rad | N s/m], >= 0
  int mimic;            ///< -1, or the joint whose coordinate this one follows
  T mimic_multiplier;   ///< q = mimic_multiplier q[mimic] + mimic_offset
  T mimic_offset;       ///< [rad | m]
  T stiffness;          ///< joint spring [N m/rad | N/m], >= 0 (MJCF <joint stiffness>)
  T spring_q;           ///< the spring's rest coordinate [rad | m], in q (MJCF springref - ref)
};

/// Parameters of a joint with no actuator law beyond a torque input, no limits, no
/// damping, no friction, no mimic and no spring.
template <class T>
SP_HD RobotJointParams<T> plain_joint_params() {
  return {static_cast<int>(ActuatorMode::Torque), T(0), T(0), T(0), T(0), T(0), T(0), T(1), 0, T(0), T(0), T(0), T(0),
          -1, T(1), T(0), T(0), T(0)};
}

/// The actuator's force before the velocity cut [N m | N]: the mode's law with the effort
/// clamp. Branches only on the joint's integer fields (mode); the laws on values are
/// selects (math/lane_ops.hpp), so T may be a SIMD lane vector (the integer fields then
/// equal in every lane).
template <class T>
SP_HD T joint_actuator_uncut(const RobotJointParams<T>& p, T u, T q, T qd) {
  T a;
  if (p.mode == static_cast<int>(ActuatorMode::Position))
    a = p.kp * (u - q) - p.kd * qd;
  else if (p.mode == static_cast<int>(ActuatorMode::Velocity))
    a = p.kd * (u - qd);
  else
    a = u;
  const T neg_effort = -p.effort;
  return lane_select(p.effort > T(0), lane_select(a > p.effort, p.effort, lane_select(a < neg_effort, neg_effort, a)), a);
}

/// Whether the velocity cut sets the actuator force a (joint_actuator_uncut) to 0 at rate qd.
template <class T>
SP_HD auto joint_velocity_cut(const RobotJointParams<T>& p, T a, T qd) {
  const T neg_velocity = -p.velocity;
  return p.velocity > T(0) && ((qd >= p.velocity && a > T(0)) || (qd <= neg_velocity && a < T(0)));
}

/// The actuator's force a(u, q, qd) [N m | N], with the effort clamp and the velocity cut.
template <class T>
SP_HD T joint_actuator_force(const RobotJointParams<T>& p, T u, T q, T qd) {
  const T a = joint_actuator_uncut(p, u, q, qd);
  return lane_select(joint_velocity_cut(p, a, qd), T(0), a);
}

/// Which side of the laws' discontinuities joint (p, u) is on at (q, qd), from values
/// (T double, or a Dual, whose comparisons take its value): bit 0 the velocity cut acts,
/// bit 1 below and bit 2 above a position limit with damping (limit_damping > 0), bit 3
/// |qd| at or beyond the velocity limit (velocity > 0). joint_law_jumps tells from two
/// of these whether the joint's force jumped between them.
template <class T>
SP_HD int joint_law_branch(const RobotJointParams<T>& p, T u, T q, T qd) {
  int b = joint_velocity_cut(p, joint_actuator_uncut(p, u, q, qd), qd) ? 1 : 0;
  if (p.limited && p.limit_damping > T(0)) b |= (q < p.lower ? 2 : 0) | (q > p.upper ? 4 : 0);
  const T neg_velocity = -p.velocity;
  if (p.velocity > T(0) && (qd >= p.velocity || qd <= neg_velocity)) b |= 8;
  return b;
}

/// Whether a joint's force jumps between two states whose joint_law_branch are `before`
/// and `after`: it entered a damped limit (its push starts at limit_damping |qd|, not 0;
/// leaving one is continuous, the push having fallen to max(0, -limit_damping qd) = 0), or
/// the velocity cut switched as |qd| crossed the velocity limit (the actuator's force
/// a != 0 drops to 0 or comes back; a cut that switches as a passes 0, |qd| staying
/// beyond the limit, is continuous). The effort clamp and the limits' own max(0, .) are
/// kinks and the friction's tanh is smooth: no jump.
SP_HD bool joint_law_jumps(int before, int after) {
  const bool entered_limit = (after & ~before & 6) != 0;
  const bool cut_at_limit = ((before ^ after) & 1) != 0 && ((before ^ after) & 8) != 0;
  return entered_limit || cut_at_limit;
}

/// The passive force (damping, friction, spring, position limits) at (q, qd) [N m | N].
/// The friction term is evaluated only where some lane has friction > 0.
template <class T>
SP_HD T joint_passive_force(const RobotJointParams<T>& p, T q, T qd) {
  T f = -p.damping * qd - p.stiffness * (q - p.spring_q);
  const auto rubs = p.friction > T(0);
  if (lane_any(rubs)) f = lane_select(rubs, f - p.friction * lane_tanh(qd / p.friction_velocity), f);
  if (p.limited) {
    const T push_lower = p.limit_stiffness * (p.lower - q) - p.limit_damping * qd;
    const T push_upper = p.limit_stiffness * (p.upper - q) - p.limit_damping * qd;
    const T push = lane_select(q < p.lower, lane_select(push_lower > T(0), push_lower, T(0)),
                               lane_select(q > p.upper, lane_select(push_upper < T(0), push_upper, T(0)), T(0)));
    f = f + push;
  }
  return f;
}

/// Actuator + passive force [N m | N].
template <class T>
SP_HD T joint_applied_force(const RobotJointParams<T>& p, T u, T q, T qd) {
  return joint_actuator_force(p, u, q, qd) + joint_passive_force(p, q, qd);
}

}  // namespace simphant
