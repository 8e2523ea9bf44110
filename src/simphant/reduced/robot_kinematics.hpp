#pragma once
// Link kinematics, body records and energies of a robot instance in joint coordinates
// (robot_view.hpp's state), header-only SP_HD for the CPU backend and the GPU kernels
// (kernels/reduced_step.hpp). The links' poses and velocities relative to the base come
// from forward_kinematics_velocity (forward_kinematics.hpp); a floating base B then moves
// them rigidly: with R_B = rotation(quat_B) and omega_W = R_B omega_B,
//   R_k = R_B R_k/B,  x_W = p_B + R_B x_B (the link origin o and the CoM c),
//   xdot_W = v_B + omega_W x (R_B x_B) + R_B xdot_B,  omega_k (link frame) = R_k/B^T omega_B + omega_k/B
// (velocities of points rigidly attached to a moving frame; Featherstone, Rigid Body
// Dynamics Algorithms, ch. 2).
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/robot_view.hpp"

namespace simphant {

/// Per-link kinematics of one instance (robot_link_kinematics), Cap >= n entries each.
template <class T, int Cap>
struct RobotLinkKinematics {
  Mat3<T> R[Cap];   ///< rotation link frame -> W
  Vec3<T> o[Cap];   ///< link-frame origin in W [m]
  Vec3<T> c[Cap];   ///< CoM in W [m]
  Vec3<T> vc[Cap];  ///< CoM velocity in W [m/s]
  Vec3<T> w[Cap];   ///< angular velocity in the link frame [rad/s]
  Vec3<T> vo[Cap];  ///< velocity of the link-frame origin in W [m/s]
};

namespace robot_detail {
template <class T> SP_HD Vec3<T> base_position(const T* y) { return {y[0], y[1], y[2]}; }
template <class T> SP_HD Quat<T> base_quat(const T* y) { return {y[3], y[4], y[5], y[6]}; }
/// v_B (W) and omega_B (B) of a floating instance with n joints.
template <class T> SP_HD Vec3<T> base_velocity(const T* y, int n) { return {y[7 + n], y[8 + n], y[9 + n]}; }
template <class T> SP_HD Vec3<T> base_omega(const T* y, int n) { return {y[10 + n], y[11 + n], y[12 + n]}; }
/// Index of q[0] and of qd[0] in y.
SP_HD int q_index(int floating) { return floating ? 7 : 0; }
SP_HD int qd_index(int n, int floating) { return floating ? 13 + n : n; }
/// The base's CoM velocity in W [m/s].
template <class T>
SP_HD Vec3<T> base_com_velocity(const RobotView<T>& r, const T* y, const Mat3<T>& R_B) {
  return base_velocity(y, r.n) + cross(mul(R_B, base_omega(y, r.n)), mul(R_B, r.base.com));
}
}  // namespace robot_detail

/// Every link's pose and velocity in W at the state y (robot_state_size entries).
template <class T, int Cap>
SP_HD void robot_link_kinematics(const RobotView<T>& r, const T* y, RobotLinkKinematics<T, Cap>& kin) {
  using namespace robot_detail;
  const int n = r.n;
  forward_kinematics_velocity(n, r.links, y + q_index(r.floating), y + qd_index(n, r.floating), kin.R, kin.o, kin.c,
                              kin.vc, kin.w, kin.vo);
  if (!r.floating) return;
  const Vec3<T> p_B = base_position(y), v_B = base_velocity(y, n), omega_B = base_omega(y, n);
  const Mat3<T> R_B = rotation(normalized(base_quat(y)));  // an RK stage's quaternion is off unit length
  const Vec3<T> omega_W = mul(R_B, omega_B);
  for (int k = 0; k < n; ++k) {
    const Vec3<T> c = mul(R_B, kin.c[k]), o = mul(R_B, kin.o[k]);
    kin.vc[k] = v_B + cross(omega_W, c) + mul(R_B, kin.vc[k]);
    kin.vo[k] = v_B + cross(omega_W, o) + mul(R_B, kin.vo[k]);
    kin.w[k] = mul_t(kin.R[k], omega_B) + kin.w[k];
    kin.c[k] = p_B + c;
    kin.o[k] = p_B + o;
    kin.R[k] = spatial_detail::m3_mul(R_B, kin.R[k]);
  }
}

/// Body record `body` (0 .. robot_n_bodies - 1: the base first when floating, then the
/// links) from y and its robot_link_kinematics: rec = [CoM r (W) [m], orientation p (body
/// frame -> W, w x y z: the state's quat_B for the base, w >= 0 for a link), CoM velocity
/// v (W) [m/s], angular velocity omega (body frame) [rad/s]] (Backend::read_states).
template <class T, int Cap>
SP_HD void robot_body_record(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin, int body,
                             T* rec) {
  using namespace robot_detail;
  Vec3<T> c, v, w;
  Quat<T> p;
  if (r.floating && body == 0) {
    p = base_quat(y);
    const Mat3<T> R_B = rotation(p);
    c = base_position(y) + mul(R_B, r.base.com);
    v = base_com_velocity(r, y, R_B);
    w = base_omega(y, r.n);
  } else {
    const int k = body - (r.floating ? 1 : 0);
    c = kin.c[k];
    p = quat_from_rotation(kin.R[k]);
    v = kin.vc[k];
    w = kin.w[k];
  }
  const T out[13] = {c.x, c.y, c.z, p.w, p.x, p.y, p.z, v.x, v.y, v.z, w.x, w.y, w.z};
  for (int e = 0; e < 13; ++e) rec[e] = out[e];
}

/// Kinetic energy [J] at y: sum over the bodies of 1/2 m v_c . v_c + 1/2 w . I_com w
/// (body-frame w and inertia), plus 1/2 a_k qd_k^2 for each joint's armature a_k (its
/// rotor inertia, ReducedLinkParams::armature), so that K = 1/2 nu^T M nu with the M of
/// crba() / aba(). Leaves y's robot_link_kinematics in kin.
template <class T, int Cap>
SP_HD T robot_kinetic_energy(const RobotView<T>& r, const T* y, RobotLinkKinematics<T, Cap>& kin) {
  using namespace robot_detail;
  robot_link_kinematics(r, y, kin);
  const T* qd = y + qd_index(r.n, r.floating);
  T K = T(0);
  for (int k = 0; k < r.n; ++k) {
    const ReducedLinkParams<T>& l = r.links[k];
    K += T(0.5) * l.mass * dot(kin.vc[k], kin.vc[k]) + T(0.5) * dot(kin.w[k], mul(l.inertia_com, kin.w[k]));
    K += T(0.5) * l.armature * qd[k] * qd[k];
  }
  if (r.floating) {
    const Vec3<T> v = base_com_velocity(r, y, rotation(base_quat(y))), w = base_omega(y, r.n);
    K += T(0.5) * r.base.mass * dot(v, v) + T(0.5) * dot(w, mul(r.base.inertia_com, w));
  }
  return K;
}

/// Gravity potential energy [J], -sum over the bodies of m g . c (zero at the W origin),
/// from y and its robot_link_kinematics.
template <class T, int Cap>
SP_HD T robot_potential_energy(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin) {
  using namespace robot_detail;
  T V = T(0);
  for (int k = 0; k < r.n; ++k) V -= r.links[k].mass * dot(r.gravity, kin.c[k]);
  if (r.floating) {
    const Vec3<T> c = base_position(y) + mul(rotation(base_quat(y)), r.base.com);
    V -= r.base.mass * dot(r.gravity, c);
  }
  return V;
}

}  // namespace simphant
