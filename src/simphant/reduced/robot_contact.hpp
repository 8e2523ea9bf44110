#pragma once
// Contact of a joint-space robot (solver aba / cga; docs/contact.md, "Contact in joint
// coordinates"): the robot's shape pairs, evaluated by the same per-thread pair function as
// the DAE's (contact/contact_wrench.hpp), enter the equations of motion as generalised
// forces. A wrench (F, M_c) on body k, force F at its CoM c and moment M_c about it (W),
// does the virtual power F . v_c + M_c . omega_k; with v_c and omega_k linear in the rates,
// its generalised force is Q = J_k^T (M_c, F) (Featherstone, Rigid Body Dynamics
// Algorithms, ch. 5.2, external forces):
//   joint j on the path from link k to the base, axis z_j (W) through the link origin o_j:
//     revolute   Q_j = z_j . (M_c + (c - o_j) x F)   (the moment about the joint's axis)
//     prismatic  Q_j = z_j . F
//   floating base: the base's 6 coordinates (v_B (W), omega_B (B)) take the wrench moved to
//     B's origin, in B coordinates: (R_B^T (M_c + (c - p_B) x F), R_B^T F), which the
//     floating ABA adds to the base's bias force (aba_floating's f_ext_B).
// Both the joint forces and the base wrench go to the unchanged ABA (spatial or CGA), so
// contact costs one forward-kinematics pass, the pairs and a walk to the base per touched
// side. Header-only __host__ __device__ code over T = double or float. The geometry
// branches on values: the SIMD lanes evaluate each pair one lane at a time in double
// (RobotLaneContact, specialised by simd/reduced_lane_contact.hpp); dual numbers have no
// form (robot_dynamics.hpp makes their forces NaN).
#include <type_traits>

#include "simphant/contact/contact_wrench.hpp"
#include "simphant/reduced/robot_contact_pair.hpp"
#include "simphant/reduced/robot_kinematics.hpp"
#include "simphant/reduced/spatial.hpp"

namespace simphant {

namespace robot_contact_detail {

/// The kinematics of owner o at y (kin: robot_link_kinematics of y).
template <class T, int Cap>
SP_HD BodyKin<T> owner_kin(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin, int o) {
  using namespace robot_detail;
  if (o == kRobotWorldOwner) return ground_kin<T>();
  BodyKin<T> b;
  if (o == kRobotBaseOwner) {
    b.A = rotation(normalized(base_quat(y)));
    b.r = base_position(y) + mul(b.A, r.base.com);
    b.v = base_com_velocity(r, y, b.A);
    b.omega_B = base_omega(y, r.n);
  } else {
    b.A = kin.R[o];
    b.r = kin.c[o];
    b.v = kin.vc[o];
    b.omega_B = kin.w[o];
  }
  b.omega_W = mul(b.A, b.omega_B);
  return b;
}

/// Adds the generalised force of the wrench w on owner o (CoM at c, W) to Q (n) and, with
/// a floating base, to the base wrench (B coordinates, about B's origin).
template <class T, int Cap>
SP_HD void add_generalised(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin, int o,
                           const Vec3<T>& c, const BodyWrench<T>& w, T* Q, SpatialForce<T>& base_wrench) {
  if (o == kRobotWorldOwner) return;
  for (int k = o; k >= 0; k = r.links[k].parent) {
    const Vec3<T> z = mul(kin.R[k], r.links[k].axis);
    Q[k] += r.links[k].type == static_cast<int>(ReducedJointType::Revolute)
                ? dot(z, w.torque_W + cross(c - kin.o[k], w.force_W))
                : dot(z, w.force_W);
  }
  if (!r.floating) return;
  const Mat3<T> R_B = rotation(normalized(robot_detail::base_quat(y)));
  base_wrench.ang = base_wrench.ang + mul_t(R_B, w.torque_W + cross(c - robot_detail::base_position(y), w.force_W));
  base_wrench.lin = base_wrench.lin + mul_t(R_B, w.force_W);
}

/// contact_pair_wrench of pair c between its owners' kinematics ka and kb: the broad
/// phase on, no impact slots (the scene refuses the impact laws).
template <class T>
SP_HD ContactPairWrench<T> pair_wrench(const RobotContactPair<T>& c, const BodyKin<T>& ka, const BodyKin<T>& kb) {
  return contact_pair_wrench(c.shape_a, ka, c.shape_b, kb, c.params, static_cast<const T*>(nullptr), true);
}

}  // namespace robot_contact_detail

/// The contact pairs' generalised forces at the state y (robot_state_size, an RK stage's
/// base quaternion off unit length is normalised): added to Q (n joint forces [N m | N]);
/// base_wrench is set to the floating base's share (B coordinates, moment about B's
/// origin [N m, N]; zero on a fixed base). Leaves y's robot_link_kinematics in kin.
/// Each pair runs contact_pair_wrench with the broad phase on and no impact slots (the
/// scene refuses the impact laws), in the order of r.contacts.
template <class T, int Cap>
SP_HD void robot_contact_forces(const RobotView<T>& r, const T* y, T* Q, SpatialForce<T>& base_wrench,
                                RobotLinkKinematics<T, Cap>& kin) {
  using namespace robot_contact_detail;
  base_wrench = SpatialForce<T>{zero3<T>(), zero3<T>()};
  robot_link_kinematics(r, y, kin);
  for (int p = 0; p < r.n_contacts; ++p) {
    const RobotContactPair<T>& c = r.contacts[p];
    const BodyKin<T> ka = owner_kin(r, y, kin, c.owner_a), kb = owner_kin(r, y, kin, c.owner_b);
    const ContactPairWrench<T> w = pair_wrench(c, ka, kb);
    if (w.contacts.count == 0) continue;  // no contact: a zero wrench, nothing to add
    add_generalised(r, y, kin, c.owner_a, ka.r, w.a, Q, base_wrench);
    add_generalised(r, y, kin, c.owner_b, kb.r, w.b, Q, base_wrench);
  }
}

/// Pair p's contact_pair_wrench at y (kin: robot_link_kinematics of y), T double or float:
/// what robot_contact_forces applies, for the energy and the reductions over time.
template <class T, int Cap>
SP_HD ContactPairWrench<T> robot_contact_pair(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin,
                                              int p) {
  using namespace robot_contact_detail;
  const RobotContactPair<T>& c = r.contacts[p];
  return pair_wrench(c, owner_kin(r, y, kin, c.owner_a), owner_kin(r, y, kin, c.owner_b));
}

/// The contact forces of the SIMD lane type T: `enabled` and a static
/// forces(r, y, Q, base_wrench, kin) with robot_contact_forces' contract where
/// simd/reduced_lane_contact.hpp specialises it; the primary template has none.
template <class T>
struct RobotLaneContact {
  static constexpr bool enabled = false;
};

/// Elastic energy [J] stored in the robot's contacts at y (contact_pair_potential summed
/// over the pairs), for the energy output; kin: robot_link_kinematics of y.
template <class T, int Cap>
SP_HD T robot_contact_potential(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin) {
  T V = T(0);
  if constexpr (std::is_floating_point<T>::value) {
    for (int p = 0; p < r.n_contacts; ++p)
      V += contact_pair_potential(robot_contact_pair(r, y, kin, p), r.contacts[p].params);
  } else if (r.n_contacts > 0) {
    V = T(NAN);
  }
  return V;
}

}  // namespace simphant
