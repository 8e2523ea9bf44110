#pragma once
// Recursive Newton-Euler algorithm (inverse dynamics) for a fixed-base kinematic tree,
// Featherstone, Rigid Body Dynamics Algorithms (2008), ch. 5, Table 5.1, in link
// coordinates. Spatial algebra: spatial.hpp; frames and joints: reduced_model.hpp.
#include "simphant/core/hd.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/spatial.hpp"

namespace simphant {

/// Per-call scratch of rnea(); fixed size, lives on the stack or per thread.
/// Index k = link k; every entry in link k's coordinates.
template <class T>
struct RneaWorkspace {
  SpatialTransform<T> X[kMaxReducedLinks];  ///< k_X_parent(k) at q
  SpatialMotion<T> v[kMaxReducedLinks];     ///< link velocity [rad/s, m/s]
  SpatialMotion<T> a[kMaxReducedLinks];     ///< link spatial acceleration, gravity included as -g of the base
  SpatialForce<T> f[kMaxReducedLinks];      ///< force transmitted by joint k onto link k [N m, N]
};

/// Inverse dynamics tau = M(q) qdd + C(q, qd) qd + g(q) (Featherstone Table 5.1,
/// with c_J = 0 since S is constant in link coordinates; gravity enters as
/// the fictitious base acceleration a_0 = (0, -gravity), ch. 5; no external forces).
/// A joint's armature a_k adds a_k qdd_k to tau_k (M's diagonal, as crba()).
///
///  n       number of links, 0 <= n <= kMaxReducedLinks
///  links   (n) link parameters, topological order: links[k].parent < k
///  gravity [m/s^2], base (world) coordinates, e.g. (0, 0, -9.81)
///  q, qd   (n) joint positions [rad | m] and rates [rad/s | m/s]
///  qdd     (n) joint accelerations [rad/s^2 | m/s^2]; nullptr means all zero
///  tau_out (n) joint forces [N m | N]: revolute torque about, prismatic force along, the axis
///  ws      scratch; after the call ws.v / ws.a / ws.f hold the link velocities,
///          accelerations and joint forces (link coordinates)
/// Cost O(n); no allocation. tau_out may not alias q, qd or qdd.
template <class T>
SP_HD void rnea(int n, const ReducedLinkParams<T>* links, Vec3<T> gravity, const T* q, const T* qd, const T* qdd,
                T* tau_out, RneaWorkspace<T>& ws) {
  const SpatialMotion<T> a0{zero3<T>(), -gravity};
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<T>& l = links[k];
    const SpatialTransform<T> X = link_transform(l, q[k]);
    ws.X[k] = X;
    const SpatialMotion<T> vJ = joint_motion(l, qd[k]);
    const SpatialMotion<T> aJ = joint_motion(l, qdd ? qdd[k] : T(0));
    SpatialMotion<T> v, a;
    if (l.parent < 0) {
      v = vJ;                  // the base does not move
      a = apply(X, a0) + aJ;   // v x vJ = vJ x vJ = 0
    } else {
      v = apply(X, ws.v[l.parent]) + vJ;
      a = apply(X, ws.a[l.parent]) + aJ + crm(v, vJ);
    }
    ws.v[k] = v;
    ws.a[k] = a;
    const RigidInertia<T> I = link_inertia(l);
    ws.f[k] = mul(I, a) + crf(v, mul(I, v));
  }
  for (int k = n - 1; k >= 0; --k) {
    const ReducedLinkParams<T>& l = links[k];
    T tau = joint_force(l, ws.f[k]);
    if (qdd) tau += l.armature * qdd[k];  // the joint's rotor inertia (ReducedLinkParams::armature)
    tau_out[k] = tau;
    if (l.parent >= 0) ws.f[l.parent] += apply_transpose(ws.X[k], ws.f[k]);
  }
}

}  // namespace simphant
