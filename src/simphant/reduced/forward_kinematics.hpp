#pragma once
// Forward kinematics of a ReducedModel tree (reduced_model.hpp for the frames), written
// once as header-only __host__ __device__ templates over the plain-data link array
// ReducedLinkParams<T> (reduced_params.hpp). No heap: the caller provides every output
// array, n entries each, n = number of links (<= kMaxReducedLinks is not required here).
//
// Recursion over the links in topological order (parent < k), base = W at rest (the
// *_floating variants move the result with a floating base's pose and twist):
//   revolute : R_k = R_p R_pj Rot(axis, q_k),  o_k = o_p + R_p p_pj,
//              w_k = w_p + R_k axis qdot_k,     vo_k = vo_p + w_p x (o_k - o_p)
//   prismatic: R_k = R_p R_pj,                  o_k = o_p + R_p (p_pj + R_pj axis q_k),
//              w_k = w_p,                        vo_k = vo_p + w_p x (o_k - o_p) + R_k axis qdot_k
// with R the link rotation L -> W, o the link-frame origin in W, w the angular velocity
// in W and vo the velocity of the point o. (Featherstone, Rigid Body Dynamics Algorithms,
// ch. 4, in 3-vector form; 3x3 helpers from spatial.hpp.) Units: q [rad or m], qdot [rad/s or m/s].
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/spatial.hpp"

namespace simphant {

/// Link poses at q. links (n), q (n) -> R_W (n): rotation link frame L -> W;
/// o_W (n): link-frame origin in W [m].
template <class T>
SP_HD void forward_kinematics(int n, const ReducedLinkParams<T>* links, const T* q, Mat3<T>* R_W, Vec3<T>* o_W) {
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<T>& L = links[k];
    const Mat3<T> Rp = L.parent < 0 ? identity3<T>() : R_W[L.parent];
    const Vec3<T> op = L.parent < 0 ? zero3<T>() : o_W[L.parent];
    const Mat3<T> R_joint = spatial_detail::m3_mul(Rp, L.R_parent_joint);  // joint frame -> W
    if (L.type == static_cast<int>(ReducedJointType::Revolute)) {
      R_W[k] = spatial_detail::m3_mul(R_joint, spatial_detail::m3_axis_angle(L.axis, q[k]));
      o_W[k] = op + mul(Rp, L.p_parent_joint);
    } else {
      R_W[k] = R_joint;
      o_W[k] = op + mul(Rp, L.p_parent_joint) + q[k] * mul(R_joint, L.axis);
    }
  }
}

/// Link poses and velocities at (q, qdot). Outputs (n each): R_W, o_W as
/// forward_kinematics; c_W: CoM position in W [m]; v_com_W: CoM velocity in W [m/s];
/// omega_B: angular velocity of the link in its own frame L (= the body frame axes of
/// the maximal model) [rad/s]. vo_W: velocity of the link-frame origin in W [m/s]
/// (a workspace the recursion needs; also an output).
template <class T>
SP_HD void forward_kinematics_velocity(int n, const ReducedLinkParams<T>* links, const T* q, const T* qdot,
                                       Mat3<T>* R_W, Vec3<T>* o_W, Vec3<T>* c_W, Vec3<T>* v_com_W,
                                       Vec3<T>* omega_B, Vec3<T>* vo_W) {
  forward_kinematics(n, links, q, R_W, o_W);
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<T>& L = links[k];
    Vec3<T> w_p = zero3<T>(), vo_p = zero3<T>(), o_p = zero3<T>();
    if (L.parent >= 0) {
      w_p = mul(R_W[L.parent], omega_B[L.parent]);
      vo_p = vo_W[L.parent];
      o_p = o_W[L.parent];
    }
    const Vec3<T> axis_W = mul(R_W[k], L.axis);
    Vec3<T> w = w_p;
    Vec3<T> vo = vo_p + cross(w_p, o_W[k] - o_p);
    if (L.type == static_cast<int>(ReducedJointType::Revolute)) {
      w += qdot[k] * axis_W;
    } else {
      vo += qdot[k] * axis_W;
    }
    const Vec3<T> arm_W = mul(R_W[k], L.com);
    vo_W[k] = vo;
    omega_B[k] = mul_t(R_W[k], w);
    c_W[k] = o_W[k] + arm_W;
    v_com_W[k] = vo + cross(w, arm_W);
  }
}

/// Link poses in W for a floating base at (p_B [m], quat_B (w, x, y, z), B -> W; normalised
/// here): the poses relative to B (forward_kinematics) moved rigidly,
///   R_k = R_B R_k/B,  o_k = p_B + R_B o_k/B.
/// links, q, R_W, o_W as forward_kinematics (n entries each).
template <class T>
SP_HD void forward_kinematics_floating(int n, const ReducedLinkParams<T>* links, const Vec3<T>& p_B,
                                       const Quat<T>& quat_B, const T* q, Mat3<T>* R_W, Vec3<T>* o_W) {
  forward_kinematics(n, links, q, R_W, o_W);
  const Mat3<T> R_B = rotation(normalized(quat_B));
  for (int k = 0; k < n; ++k) {
    o_W[k] = p_B + mul(R_B, o_W[k]);
    R_W[k] = spatial_detail::m3_mul(R_B, R_W[k]);
  }
}

/// Link poses and velocities in W for a floating base at (p_B, quat_B) moving with v_B (the
/// velocity of B's origin, W [m/s]) and omega_B (B [rad/s]) (robot_dynamics.hpp's base
/// state): forward_kinematics_velocity relative to B, then moved rigidly with
/// R_B = rotation(quat_B) and omega_W = R_B omega_B (velocities of points of a moving
/// frame, Featherstone ch. 2):
///   R_k = R_B R_k/B,  x_W = p_B + R_B x_B  (x = o, c),
///   xdot_W = v_B + omega_W x (R_B x_B) + R_B xdot_B,
///   omega_k (link frame L) = R_k/B^T omega_B + omega_k/B.
/// Outputs (n each) as forward_kinematics_velocity, all in W except omega_B (link frames).
template <class T>
SP_HD void forward_kinematics_velocity_floating(int n, const ReducedLinkParams<T>* links, const Vec3<T>& p_B,
                                                const Quat<T>& quat_B, const Vec3<T>& v_B, const Vec3<T>& omega_B,
                                                const T* q, const T* qdot, Mat3<T>* R_W, Vec3<T>* o_W,
                                                Vec3<T>* c_W, Vec3<T>* v_com_W, Vec3<T>* omega_L, Vec3<T>* vo_W) {
  forward_kinematics_velocity(n, links, q, qdot, R_W, o_W, c_W, v_com_W, omega_L, vo_W);
  const Mat3<T> R_B = rotation(normalized(quat_B));
  const Vec3<T> omega_W = mul(R_B, omega_B);
  for (int k = 0; k < n; ++k) {
    const Vec3<T> c = mul(R_B, c_W[k]), o = mul(R_B, o_W[k]);
    v_com_W[k] = v_B + cross(omega_W, c) + mul(R_B, v_com_W[k]);
    vo_W[k] = v_B + cross(omega_W, o) + mul(R_B, vo_W[k]);
    omega_L[k] = mul_t(R_W[k], omega_B) + omega_L[k];
    c_W[k] = p_B + c;
    o_W[k] = p_B + o;
    R_W[k] = spatial_detail::m3_mul(R_B, R_W[k]);
  }
}

}  // namespace simphant
