#pragma once
// Articulated-body algorithm (forward dynamics, O(n)) for a fixed-base kinematic tree,
// Featherstone, Rigid Body Dynamics Algorithms (2008), ch. 7, Table 7.1, specialised to
// 1-DoF joints (revolute / prismatic): U = IA S is a 6-vector and D a scalar.
//
// Coordinates: Featherstone derives the recursion in coordinate-free spatial notation and
// tabulates it in link coordinates (Table 7.1); this implementation runs it in base
// (world, W) coordinates with every spatial vector referred to the W origin. Then
// lambda_X_i^* Ia i_X_lambda is the identity map, so pass 2 accumulates articulated
// inertias and bias forces by plain addition instead of a 6x6 congruence per link; the
// price is a W-frame S = (z, o x z) (U costs 36 flops, not 18) and rotating each link's
// inertia into W once. Measured on the 7-link arm of bench/bench_reduced_dynamics.cpp
// (shared 2-core AMD EPYC VM, -O3, CPU time, median of 3): 876 ns/call vs 1094 ns/call
// for Table 7.1 in link coordinates (-march=native: 758 vs 860 ns). Inertias are
// referred to the W origin, so rounding grows with (distance from the base / radius of
// gyration)^2: ABA(RNEA(qdd)) returns qdd to 2e-13 relative on the 20-link test trees
// (2e-14 in link coordinates); fine for a fixed-base robot near its base, not for one
// placed kilometres from its base frame's origin.
#include "simphant/core/hd.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/spatial.hpp"

namespace simphant {

/// Per-call scratch of aba(); fixed size: Cap links (n <= Cap; a GPU thread running a
/// 7-link arm uses AbaWorkspace<T, 7> instead of the 64-link default to save registers /
/// local memory). Index k = link k; spatial quantities in W coordinates at the W origin.
template <class T, int Cap = kMaxReducedLinks>
struct AbaWorkspace {
  static constexpr int kCapacity = Cap;  ///< the largest n this workspace holds
  Mat3<T> R[Cap];                        ///< link orientation, link -> W
  Vec3<T> o[Cap];                        ///< link frame origin in W [m]
  SpatialMotion<T> S[Cap];               ///< joint motion subspace in W: (z, o x z) or (0, z)
  SpatialMotion<T> v[Cap];               ///< link velocity [rad/s, m/s]
  SpatialMotion<T> c[Cap];               ///< velocity-product acceleration v x (S qd)
  ArticulatedInertia<T> IA[Cap];         ///< articulated-body inertia
  SpatialForce<T> pA[Cap];               ///< articulated-body bias force
  SpatialForce<T> U[Cap];                ///< IA S
  T Dinv[Cap];                           ///< 1 / (S^T U)
  T u[Cap];                              ///< tau - S^T pA
  SpatialMotion<T> a[Cap];               ///< link spatial acceleration (gravity as -g of the base)
};

/// Forward dynamics qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)) (Featherstone Table 7.1,
/// c_J = 0; gravity as the base acceleration a_0 = (0, -gravity), ch. 5;
/// no external forces). In W coordinates the joint subspace of link k moves with the
/// link, dS/dt = v_k x S, which gives c_k = v_k x (S qd_k) (Table 7.1's c_i).
///
///  n       number of links, 0 <= n <= Cap (the workspace's capacity)
///  links   (n) link parameters, topological order: links[k].parent < k; mass > 0 and
///          SPD inertia_com (else D may vanish)
///  gravity [m/s^2], base (world) coordinates
///  q, qd   (n) joint positions [rad | m] and rates [rad/s | m/s]
///  tau     (n) joint forces [N m | N]
///  qdd_out (n) joint accelerations [rad/s^2 | m/s^2]; may not alias the inputs
///  ws      scratch; after the call ws.R / ws.o hold the link poses and ws.v / ws.a the
///          link velocities and accelerations (W coordinates, W origin)
/// Cost O(n); no allocation.
template <class T, int Cap>
SP_HD void aba(int n, const ReducedLinkParams<T>* links, Vec3<T> gravity, const T* q, const T* qd, const T* tau,
               T* qdd_out, AbaWorkspace<T, Cap>& ws) {
  using spatial_detail::m3_axis_angle;
  using spatial_detail::m3_congruence_sym;
  using spatial_detail::m3_mul;
  // Pass 1 (outward): poses, joint subspaces, velocities, velocity-product terms and
  // the rigid inertias, all in W.
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<T>& l = links[k];
    const int p = l.parent;
    Mat3<T> Rj;  // joint frame at q = 0 -> W
    Vec3<T> o;
    if (p < 0) {
      Rj = l.R_parent_joint;
      o = l.p_parent_joint;
    } else {
      Rj = m3_mul(ws.R[p], l.R_parent_joint);
      o = ws.o[p] + mul(ws.R[p], l.p_parent_joint);
    }
    const Vec3<T> z = mul(Rj, l.axis);  // joint axis in W
    Mat3<T> R;
    SpatialMotion<T> S;
    if (l.type == static_cast<int>(ReducedJointType::Revolute)) {
      R = m3_mul(Rj, m3_axis_angle(l.axis, q[k]));
      S = {z, cross(o, z)};  // rotation about the line (o, z), seen at the W origin
    } else {
      R = Rj;
      o += q[k] * z;
      S = {zero3<T>(), z};
    }
    ws.R[k] = R;
    ws.o[k] = o;
    ws.S[k] = S;
    const SpatialMotion<T> vJ = qd[k] * S;
    SpatialMotion<T> v;
    if (p < 0) {
      v = vJ;
      ws.c[k] = zero_motion<T>();  // vJ x vJ = 0
    } else {
      v = ws.v[p] + vJ;
      ws.c[k] = crm(v, vJ);
    }
    ws.v[k] = v;
    // Inertia about the W origin, W axes: R I_com R^T shifted to the CoM at o + R com.
    Mat3<T> Rt;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Rt.m[i][j] = R.m[j][i];
    const RigidInertia<T> I = rigid_inertia(l.mass, o + mul(R, l.com), m3_congruence_sym(Rt, l.inertia_com));
    ws.IA[k] = articulated(I);
    ws.pA[k] = crf(v, mul(I, v));
  }
  // Pass 2 (inward): articulated inertias and bias forces (no transforms in W).
  for (int k = n - 1; k >= 0; --k) {
    const SpatialMotion<T>& S = ws.S[k];
    const SpatialForce<T> U = mul(ws.IA[k], S);
    const T Dinv = T(1) / spatial_dot(S, U);
    const T u = tau[k] - spatial_dot(S, ws.pA[k]);
    ws.U[k] = U;
    ws.Dinv[k] = Dinv;
    ws.u[k] = u;
    const int p = links[k].parent;
    if (p >= 0) {
      const ArticulatedInertia<T> Ia = rank1_sub(ws.IA[k], U, Dinv);
      ws.pA[p] += ws.pA[k] + mul(Ia, ws.c[k]) + (u * Dinv) * U;
      ws.IA[p] += Ia;
    }
  }
  // Pass 3 (outward): accelerations.
  const SpatialMotion<T> a0{zero3<T>(), -gravity};
  for (int k = 0; k < n; ++k) {
    const int p = links[k].parent;
    const SpatialMotion<T> ap = (p < 0 ? a0 : ws.a[p]) + ws.c[k];
    const T qdd = (ws.u[k] - spatial_dot(ap, ws.U[k])) * ws.Dinv[k];
    qdd_out[k] = qdd;
    ws.a[k] = ap + qdd * ws.S[k];
  }
}

/// Floating-base forward dynamics (Featherstone ch. 9.2: the base's articulated inertia
/// IA_B and bias pA_B give a_B = -IA_B^-1 pA_B, gravity as a uniform field), links with
/// parent -1 hanging from the base B. Base state and outputs in robot_dynamics.hpp's
/// convention: p_B (W), quat_B (B -> W), v_B = velocity of B's origin (W), omega_B (B);
/// vdot_B = dv_B/dt (W) and omegadot_B = domega_B/dt (B). Other arguments as aba().
template <class T, int Cap>
SP_HD void aba_floating(int n, const ReducedLinkParams<T>* links, const RobotBaseParams<T>& base, Vec3<T> gravity,
                        const Vec3<T>& p_B, const Quat<T>& quat_B, const Vec3<T>& v_B, const Vec3<T>& omega_B,
                        const T* q, const T* qd, const T* tau, Vec3<T>& vdot_B, Vec3<T>& omegadot_B, T* qdd_out,
                        AbaWorkspace<T, Cap>& ws);

}  // namespace simphant
