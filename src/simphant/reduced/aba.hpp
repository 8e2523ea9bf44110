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
// placed kilometres from its base frame's origin. A floating base (aba_floating) runs the
// same passes in the base frame B's coordinates at B's origin, so a robot far from the W
// origin loses nothing.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/spatial.hpp"
#include "simphant/reduced/spd6.hpp"

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
  T Dinv[Cap];                           ///< 1 / (S^T U + armature)
  T u[Cap];                              ///< tau - S^T pA
  SpatialMotion<T> a[Cap];               ///< link spatial acceleration (gravity as -g of the base)
};

namespace aba_detail {

/// Passes 1 (outward: poses, joint subspaces, velocities, velocity-product terms, rigid
/// inertias) and 2 (inward: articulated inertias and bias forces) of aba(), in the base
/// frame's coordinates at its origin. kFloating: the base moves with the spatial velocity
/// v0 and the root links' articulated inertias and bias forces are added to IA0 / pA0
/// (initialised by the caller with the base body's own); else the base is at rest and
/// v0, IA0, pA0 are not used.
template <bool kFloating, class T, int Cap>
SP_HD void inward(int n, const ReducedLinkParams<T>* links, const SpatialMotion<T>& v0, const T* q, const T* qd,
                  const T* tau, AbaWorkspace<T, Cap>& ws, ArticulatedInertia<T>& IA0, SpatialForce<T>& pA0) {
  using spatial_detail::m3_axis_angle;
  using spatial_detail::m3_congruence_sym;
  using spatial_detail::m3_mul;
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<T>& l = links[k];
    const int p = l.parent;
    Mat3<T> Rj;  // joint frame at q = 0 -> base
    Vec3<T> o;
    if (p < 0) {
      Rj = l.R_parent_joint;
      o = l.p_parent_joint;
    } else {
      Rj = m3_mul(ws.R[p], l.R_parent_joint);
      o = ws.o[p] + mul(ws.R[p], l.p_parent_joint);
    }
    const Vec3<T> z = mul(Rj, l.axis);  // joint axis, base coordinates
    Mat3<T> R;
    SpatialMotion<T> S;
    if (l.type == static_cast<int>(ReducedJointType::Revolute)) {
      R = m3_mul(Rj, m3_axis_angle(l.axis, q[k]));
      S = {z, cross(o, z)};  // rotation about the line (o, z), seen at the base origin
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
    if (p >= 0) {
      v = ws.v[p] + vJ;
      ws.c[k] = crm(v, vJ);
    } else if (kFloating) {
      v = v0 + vJ;
      ws.c[k] = crm(v, vJ);
    } else {
      v = vJ;
      ws.c[k] = zero_motion<T>();  // vJ x vJ = 0
    }
    ws.v[k] = v;
    // Inertia about the base origin, base axes: R I_com R^T shifted to the CoM at o + R com.
    Mat3<T> Rt;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Rt.m[i][j] = R.m[j][i];
    const RigidInertia<T> I = rigid_inertia(l.mass, o + mul(R, l.com), m3_congruence_sym(Rt, l.inertia_com));
    ws.IA[k] = articulated(I);
    ws.pA[k] = crf(v, mul(I, v));
  }
  // Pass 2 (inward): articulated inertias and bias forces (no transforms: one frame).
  for (int k = n - 1; k >= 0; --k) {
    const SpatialMotion<T>& S = ws.S[k];
    const SpatialForce<T> U = mul(ws.IA[k], S);
    const T Dinv = T(1) / (spatial_dot(S, U) + links[k].armature);  // the rotor inertia on q_k joins D
    const T u = tau[k] - spatial_dot(S, ws.pA[k]);
    ws.U[k] = U;
    ws.Dinv[k] = Dinv;
    ws.u[k] = u;
    const int p = links[k].parent;
    if (p >= 0 || kFloating) {
      const ArticulatedInertia<T> Ia = rank1_sub(ws.IA[k], U, Dinv);
      const SpatialForce<T> pa = ws.pA[k] + mul(Ia, ws.c[k]) + (u * Dinv) * U;
      if (p >= 0) {
        ws.pA[p] += pa;
        ws.IA[p] += Ia;
      } else {
        pA0 += pa;
        IA0 += Ia;
      }
    }
  }
}

/// Pass 3 of aba() (outward): joint and link accelerations from the base's spatial
/// acceleration a0 (gravity included as a fictitious -g, Featherstone ch. 5).
template <class T, int Cap>
SP_HD void outward(int n, const ReducedLinkParams<T>* links, const SpatialMotion<T>& a0, T* qdd_out,
                   AbaWorkspace<T, Cap>& ws) {
  for (int k = 0; k < n; ++k) {
    const int p = links[k].parent;
    const SpatialMotion<T> ap = (p < 0 ? a0 : ws.a[p]) + ws.c[k];
    const T qdd = (ws.u[k] - spatial_dot(ap, ws.U[k])) * ws.Dinv[k];
    qdd_out[k] = qdd;
    ws.a[k] = ap + qdd * ws.S[k];
  }
}

}  // namespace aba_detail

/// Forward dynamics qdd = M(q)^-1 (tau - C(q, qd) qd - g(q)) (Featherstone Table 7.1,
/// c_J = 0; gravity as the base acceleration a_0 = (0, -gravity), ch. 5;
/// no external forces). In W coordinates the joint subspace of link k moves with the
/// link, dS/dt = v_k x S, which gives c_k = v_k x (S qd_k) (Table 7.1's c_i). A joint's
/// armature a_k (a rotor inertia on q_k, ReducedLinkParams::armature) adds a_k qdd_k to its
/// joint force equation, tau_k = S^T f_k + a_k qdd_k, so D_k = S^T U_k + a_k and the rest
/// of the recursion is unchanged: M(q) gains a_k on its diagonal.
///
///  n       number of links, 0 <= n <= Cap (the workspace's capacity)
///  links   (n) link parameters, topological order: links[k].parent < k; mass > 0 and
///          SPD inertia_com, or armature > 0 (else D may vanish)
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
  ArticulatedInertia<T> unused_IA;
  SpatialForce<T> unused_pA;
  aba_detail::inward<false>(n, links, zero_motion<T>(), q, qd, tau, ws, unused_IA, unused_pA);
  aba_detail::outward(n, links, SpatialMotion<T>{zero3<T>(), -gravity}, qdd_out, ws);
}

/// Floating-base forward dynamics (the articulated-body algorithm with a floating base,
/// Featherstone, Rigid Body Dynamics Algorithms, ch. 9; docs/robots.md "Floating base"):
/// the base B is a free rigid body (base: mass, CoM and inertia about the CoM in B) and
/// the links with parent -1 hang from it. The recursion runs in B's coordinates at B's origin, so the link
/// poses relative to B are those of the fixed-base aba() and p_B never enters (the
/// dynamics are invariant under translation; rounding does not grow with |p_B|):
///   v_0 = (omega_B, R_B^T v_B)                      base spatial velocity, B coordinates
///   passes 1-2 as aba() with v_0 added to the root links' velocities (and their
///   c_k = v_k x (S qd_k)); the root links' articulated inertias and bias forces are
///   added to the base's own IA_0 = I_B, pA_0 = v_0 x* I_B v_0
///   a_0' = -IA_0^-1 pA_0                             (6x6 SPD solve, spd6.hpp)
///   pass 3 as aba() from a_0'.
/// Gravity: a uniform field accelerates every body by g, so in the frame falling with g the
/// system is gravity-free: qdd and a_0' do not depend on gravity, and the base's true
/// spatial acceleration is a_0 = a_0' + (0, R_B^T g). In body coordinates the spatial
/// acceleration is the time derivative of v_0's coordinates, so
///   omegadot_B = a_0.ang,   vdot_B = R_B (a_0'.lin + omega_B x R_B^T v_B) + g.
///
///  n, links, q, qd, tau, qdd_out as aba(); links may have parent -1 (hang from B)
///  base     the base's mass properties in B: mass > 0, SPD inertia_com
///  gravity  [m/s^2], W coordinates
///  p_B      base frame origin in W [m] (not used: see above; part of the state)
///  quat_B   base orientation (w, x, y, z), B -> W; normalised here (an RK stage's
///           quaternion is off unit length by O((omega dt)^2))
///  v_B      velocity of B's origin, W coordinates [m/s]
///  omega_B  base angular velocity, B coordinates [rad/s]
///  vdot_B   out: dv_B/dt, W coordinates [m/s^2]
///  omegadot_B out: domega_B/dt, B coordinates [rad/s^2]
///  ws       scratch; after the call ws.R / ws.o hold the link poses relative to B
///           (B coordinates) and ws.v / ws.a the link spatial velocities and accelerations
///           (B coordinates, B origin; ws.a with gravity as -g, as aba())
///  f_ext_B  optional external wrench on the base, B coordinates, moment about B's origin
///           [N m, N] (the contact forces' share of the base: reduced/robot_contact.hpp);
///           it joins the base's bias force, pA_0 = v_0 x* I_B v_0 - f_ext (Featherstone
///           Table 7.1's external forces). nullptr: none.
/// Cost O(n) plus one 6x6 Cholesky solve; no allocation.
template <class T, int Cap>
SP_HD void aba_floating(int n, const ReducedLinkParams<T>* links, const RobotBaseParams<T>& base, Vec3<T> gravity,
                        const Vec3<T>& p_B, const Quat<T>& quat_B, const Vec3<T>& v_B, const Vec3<T>& omega_B,
                        const T* q, const T* qd, const T* tau, Vec3<T>& vdot_B, Vec3<T>& omegadot_B, T* qdd_out,
                        AbaWorkspace<T, Cap>& ws, const SpatialForce<T>* f_ext_B = nullptr) {
  (void)p_B;
  const Mat3<T> R_B = rotation(normalized(quat_B));
  const SpatialMotion<T> v0{omega_B, mul_t(R_B, v_B)};
  const RigidInertia<T> I0 = rigid_inertia(base.mass, base.com, base.inertia_com);
  ArticulatedInertia<T> IA0 = articulated(I0);
  SpatialForce<T> pA0 = crf(v0, mul(I0, v0));
  if (f_ext_B) pA0 = SpatialForce<T>{pA0.ang - f_ext_B->ang, pA0.lin - f_ext_B->lin};
  aba_detail::inward<true>(n, links, v0, q, qd, tau, ws, IA0, pA0);
  // a0' = -IA0^-1 pA0 with IA0 = [M H; H^T L] acting on (ang, lin).
  T A[6][6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      A[i][j] = IA0.M.m[i][j];
      A[i][3 + j] = IA0.H.m[i][j];
      A[3 + i][j] = IA0.H.m[j][i];
      A[3 + i][3 + j] = IA0.L.m[i][j];
    }
  const T b[6] = {-pA0.ang.x, -pA0.ang.y, -pA0.ang.z, -pA0.lin.x, -pA0.lin.y, -pA0.lin.z};
  T x[6];
  spd6_solve(A, b, x);
  const SpatialMotion<T> a0{{x[0], x[1], x[2]}, {x[3], x[4], x[5]}};
  aba_detail::outward(n, links, a0, qdd_out, ws);
  omegadot_B = a0.ang;
  vdot_B = mul(R_B, a0.lin + cross(omega_B, v0.lin)) + gravity;
}

}  // namespace simphant
