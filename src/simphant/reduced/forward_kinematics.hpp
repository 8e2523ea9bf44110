#pragma once
// Forward kinematics of a ReducedModel tree (reduced_model.hpp for the frames), written
// once as header-only __host__ __device__ templates over the plain-data link array
// ReducedLinkParams<T> (reduced_params.hpp). No heap: the caller provides every output
// array, n entries each, n = number of links (<= kMaxReducedLinks is not required here).
//
// Recursion over the links in topological order (parent < k), base = W at rest:
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

}  // namespace simphant
