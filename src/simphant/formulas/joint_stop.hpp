#pragma once
// End stops on a joint coordinate (docs/contact.md, "End stops"): a unilateral stop at
// each end of the range [lower, upper] of a revolute, prismatic or cylindrical joint's
// angle or slide, pushing the coordinate back with the contact law's normal force
// (contact_law.hpp) of the penetration past the limit. Header-only SP_HD, one copy for the
// CPU reference (dynamics/forces.cpp), the SIMD lanes and the GPU (kernels/body_forces.hpp).
//
// The stop acts like an actuator on its joint: a generalised force u [N m | N] along the
// coordinate, a torque u v_i on body_j and -u v_i on body_i (angle), or forces u v_i and
// -u v_i at body_j's anchor (slide).
#include "simphant/contact/contact_law.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// The coordinate q [rad | m] and its rate qd [rad/s | m/s] of joint frame f between Bi and
/// Bj that the stops limit: the joints' own joint_coordinate_state (formulas/joint_law.hpp),
/// an angle read on the turn centred on the middle of the stops' range, q in
/// (mid - pi, mid + pi] (the range is shorter than a turn, so the arc beyond it splits at
/// its middle between the two stops); mid unused for a slide.
template <class T>
SP_HD void joint_stop_coordinate(bool angle, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                                 T mid, T& q, T& qd) {
  Vec3<T> v_i_W;
  joint_coordinate_state(angle, f, Bi, Bj, mid, q, qd, v_i_W);
}

/// The middle of a stop's range [rad], about which joint_stop_coordinate reads an angle.
template <class T>
SP_HD T joint_stop_middle(T lower, T upper) {
  return T(0.5) * (lower + upper);
}

/// The stops' generalised force u [N m | N] along +q at coordinate q and rate qd: the lower
/// stop's F_n(lower - q, -qd) minus the upper stop's F_n(q - upper, qd), F_n the normal force
/// of `law` (contact_normal_force: 0 outside the stop, never pulling). elastic (optional)
/// gets the elastic part, K (lower - q)^n - K (q - upper)^n of the stop that is entered.
/// An infinite limit has no stop.
template <class T>
SP_HD T joint_stop_force(const NormalLawParams<T>& law, T lower, T upper, T q, T qd, T* elastic = nullptr) {
  const T below = lower - q, above = q - upper;
  const T u = contact_normal_force(law, below, -qd, T(0)) - contact_normal_force(law, above, qd, T(0));
  if (elastic) {
    const T kb = law.stiffness * contact_pow(lane_max(below, T(0)), law.exponent);
    const T ka = law.stiffness * contact_pow(lane_max(above, T(0)), law.exponent);
    *elastic = kb - ka;
  }
  return u;
}

/// Elastic potential [J] of the stops at coordinate q: K delta^(n+1) / (n + 1) of the
/// penetration delta past the limit (0 inside the range).
template <class T>
SP_HD T joint_stop_potential(const NormalLawParams<T>& law, T lower, T upper, T q) {
  const T delta = lane_max(lane_max(lower - q, q - upper), T(0));
  return law.stiffness * contact_pow(delta, law.exponent + T(1)) / (law.exponent + T(1));
}

}  // namespace simphant
