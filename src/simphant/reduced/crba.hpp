#pragma once
// Composite-rigid-body algorithm: the joint-space mass matrix of a fixed-base kinematic
// tree, Featherstone, Rigid Body Dynamics Algorithms (2008), ch. 6, Table 6.2, in link
// coordinates; the bias forces C(q, qd) qd + g(q) by RNEA with qdd = 0 (ch. 6).
#include "simphant/core/hd.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/rnea.hpp"
#include "simphant/reduced/spatial.hpp"

namespace simphant {

/// Per-call scratch of crba(); fixed size. Index k = link k, link k's coordinates.
template <class T>
struct CrbaWorkspace {
  SpatialTransform<T> X[kMaxReducedLinks];  ///< k_X_parent(k) at q
  RigidInertia<T> Ic[kMaxReducedLinks];     ///< composite inertia of the subtree rooted at k
  RneaWorkspace<T> rnea;                    ///< for the bias forces
};

/// Joint-space mass matrix M(q) (Featherstone Table 6.2) and, optionally, the bias
/// forces C(q, qd) qd + g(q) = rnea(q, qd, 0).
///
///  n        number of links, 0 <= n <= kMaxReducedLinks
///  links    (n) link parameters, topological order: links[k].parent < k
///  gravity  [m/s^2], base (world) coordinates; used only for the bias
///  q        (n) joint positions [rad | m]
///  qd       (n) joint rates; used only for the bias (may be nullptr if bias_out is)
///  M_out    (n, n) row-major, M_out[i * n + j]: symmetric positive definite
///           [kg m^2 | kg m | kg]; entries of joints on different branches are 0; the
///           diagonal includes each joint's armature (ReducedLinkParams::armature)
///  bias_out (n) [N m | N], or nullptr to skip the bias
///  ws       scratch
/// Cost O(n d) for tree depth d (plus O(n^2) to clear M_out); no allocation.
template <class T>
SP_HD void crba(int n, const ReducedLinkParams<T>* links, Vec3<T> gravity, const T* q, const T* qd, T* M_out,
                T* bias_out, CrbaWorkspace<T>& ws) {
  for (int i = 0; i < n * n; ++i) M_out[i] = T(0);
  for (int k = 0; k < n; ++k) {
    ws.X[k] = link_transform(links[k], q[k]);
    ws.Ic[k] = link_inertia(links[k]);
  }
  for (int i = n - 1; i >= 0; --i) {
    const ReducedLinkParams<T>& li = links[i];
    // Ic[i] is complete: every child (index > i) has been folded in.
    SpatialForce<T> F = inertia_times_joint(li, ws.Ic[i]);
    M_out[i * n + i] = joint_force(li, F) + li.armature;  // the joint's rotor inertia: diagonal only
    int j = i;
    while (links[j].parent >= 0) {
      F = apply_transpose(ws.X[j], F);  // into the parent's coordinates
      j = links[j].parent;
      const T Mij = joint_force(links[j], F);
      M_out[i * n + j] = Mij;
      M_out[j * n + i] = Mij;
    }
    if (li.parent >= 0) ws.Ic[li.parent] += transform_transpose(ws.X[i], ws.Ic[i]);
  }
  if (bias_out) rnea(n, links, gravity, q, qd, static_cast<const T*>(nullptr), bias_out, ws.rnea);
}

}  // namespace simphant
