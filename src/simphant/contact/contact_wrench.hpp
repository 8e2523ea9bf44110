#pragma once
// The contact wrenches of a pair of bodies (docs/contact.md, "Contact between bodies"):
// from two bodies' kinematics and one collision shape on each, the force and the torque
// about the centre of mass that the contacts apply to each body. One per-thread function
// for both solvers: the maximal-coordinate DAE adds (force_W, torque_B) to the body's
// generalised force [F (W), T (B, about the CoM)] (docs/solver.md, Forces); a joint-space
// robot applies (force_W, torque_W) to the link as an external wrench about its CoM.
// Header-only __host__ __device__ code over scalar T = double or float (the geometry of
// collide.hpp branches on values, so no SIMD lanes); fixed size, no allocation, no
// exceptions, branches only on the shape kinds and the law's integer field.
//
// Per contact i of the ContactSet (collide.hpp: point x midway between the surfaces,
// unit normal n from A to B, depth delta):
//   velocity of the material point of body k at x:  V_k = v_k + omega_k,W x (x - r_k)
//   relative velocity of B with respect to A:       v_rel = V_B - V_A
//   approach rate (> 0 approaching):                delta_dot = -(v_rel . n)
//   normal force on B:                              F_n n,  F_n = contact_normal_force(...) >= 0
//   friction on B (against B's slip over A):        F_t = friction_force(mu, F_n, v_rel - (v_rel . n) n)
//   rolling torque on B:                            M_r = rolling_torque(mu_roll, F_n, w_t),
//                                                   w_t the tangential part of omega_B,W - omega_A,W
// Body A gets exactly minus B's force at the same point x, and minus M_r (Newton's third
// law; the pair's total force and total torque about any point vanish to rounding).
//
// The ground (body index -1) is ground_kin<T>() (r = 0, A = I, zero velocities): its
// shapes are placed in the world by their pos_B / quat_B. Either side may be the ground.
#include "simphant/contact/collide.hpp"
#include "simphant/contact/contact_law.hpp"
#include "simphant/joints/joint_math.hpp"

namespace simphant {

/// The wrench that the contacts of a pair apply to one body, about its centre of mass.
template <class T>
struct BodyWrench {
  Vec3<T> force_W;   ///< [N], W
  Vec3<T> torque_W;  ///< [N m] about the CoM, W
  Vec3<T> torque_B;  ///< [N m] about the CoM, B (= A^T torque_W): the DAE's generalised torque
};

/// Result of contact_pair_wrench: the contacts and their forces.
template <class T>
struct ContactPairWrench {
  CollideStatus status;               ///< Unsupported: no contacts, zero wrenches
  ContactSet<T> contacts;             ///< collide() of (A, B): normals A -> B, W
  BodyWrench<T> a;                    ///< on body A
  BodyWrench<T> b;                    ///< on body B (force exactly -a.force_W)
  T delta_dot[kMaxContacts];          ///< approach rate of contact i [m/s], > 0 approaching
  T normal_force[kMaxContacts];       ///< F_n of contact i [N] >= 0, on B along +n, on A along -n
  Vec3<T> friction_W[kMaxContacts];   ///< friction force of contact i on B [N], W (A: minus)
  Vec3<T> rolling_W[kMaxContacts];    ///< rolling-resistance torque of contact i on B [N m], W (A: minus)
};

namespace contact_wrench_detail {
template <class T>
SP_HD Mat3<T> mat_mul(const Mat3<T>& X, const Mat3<T>& Y) {
  Mat3<T> Z;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Z.m[r][c] = X.m[r][0] * Y.m[0][c] + X.m[r][1] * Y.m[1][c] + X.m[r][2] * Y.m[2][c];
  return Z;
}
template <class T>
struct identity {
  using type = T;
};
template <class T>
SP_HD BodyWrench<T> zero_wrench() {
  return {zero3<T>(), zero3<T>(), zero3<T>()};
}
}  // namespace contact_wrench_detail

/// World placement of shape s on a body with kinematics k (shape_pose_W from the rotation
/// matrix k.A instead of the quaternion; the ground: k = ground_kin<T>()).
template <class T>
SP_HD ShapePose<T> shape_pose_W(const Shape<T>& s, const BodyKin<T>& k) {
  ShapePose<T> pose;
  pose.pos_W = k.r + mul(k.A, s.pos_B);
  pose.rot_W = contact_wrench_detail::mat_mul(k.A, rotation(normalized(s.quat_B)));
  return pose;
}

/// The broad phase of contact_pair_wrench: true when the bounding spheres of the two shapes
/// (a plane: its half-space; bounding_spheres_overlap) lie farther apart than margin, so
/// that the pair has no contact; false for a pair of unsupported kinds (collide_supported).
/// Solid shapes need only their positions, placed as shape_pose_W places them. A caller
/// that finds a pair apart may skip contact_pair_wrench: its result for such a pair is
/// contact_pair_apart_result.
template <class T>
SP_HD bool contact_pair_apart(const Shape<T>& shape_a, const BodyKin<T>& ka, const Shape<T>& shape_b,
                              const BodyKin<T>& kb, T margin) {
  if (!collide_supported(shape_a.kind, shape_b.kind)) return false;
  if (bounding_radius(shape_a) < T(0) || bounding_radius(shape_b) < T(0))
    return !bounding_spheres_overlap(shape_a, shape_pose_W(shape_a, ka), shape_b, shape_pose_W(shape_b, kb), margin);
  ShapePose<T> pa{}, pb{};
  pa.pos_W = ka.r + mul(ka.A, shape_a.pos_B);
  pb.pos_W = kb.r + mul(kb.A, shape_b.pos_B);
  return !bounding_spheres_overlap(shape_a, pa, shape_b, pb, margin);
}

/// contact_pair_wrench's result for a pair that contact_pair_apart finds apart: status Ok,
/// no contacts (distance +infinity, not computed), zero wrenches and forces.
template <class T>
SP_HD ContactPairWrench<T> contact_pair_apart_result() {
  ContactPairWrench<T> w;
  w.a = contact_wrench_detail::zero_wrench<T>();
  w.b = contact_wrench_detail::zero_wrench<T>();
  for (int i = 0; i < kMaxContacts; ++i) {
    w.delta_dot[i] = T(0);
    w.normal_force[i] = T(0);
    w.friction_W[i] = zero3<T>();
    w.rolling_W[i] = zero3<T>();
  }
  w.status = CollideStatus::Ok;
  w.contacts = collide_detail::no_contact(T(INFINITY), Vec3<T>{T(0), T(0), T(1)});
  return w;
}

/// The contact wrenches of shape_a on body A (kinematics ka) and shape_b on body B (kb):
/// make_body_kin(r, p, v, omega_B) for a body (p unit; normalise RK4 stage quaternions),
/// ground_kin<T>() for the ground. Vectors in W (torque_B in each body frame), torques about
/// each body's CoM.
///
/// v_impact: the pair's impact-speed slots, one per contact index of the set (kMaxContacts),
/// read by the impact laws (LankaraniNikravesh, Flores, ExactImpact) through
/// contact_impact_speed(slot[i], delta_dot[i]); nullptr for Tsuji and HuntCrossley (with an
/// impact law, nullptr reads the present rate as the impact speed: not the law). The slots
/// change only after an accepted step: contact_pair_update_impact_slots.
///
/// Unsupported kind pairs (collide_supported) give status Unsupported and zero wrenches.
///
/// broad_phase: test the bounding spheres first (contact_pair_apart); a pair farther apart
/// than the margin then gets contact_pair_apart_result (status Ok, no contacts, zero
/// wrenches, contacts.distance = +infinity, not computed). The solvers pass true: the
/// forces are the same either way, since such a pair has no contact.
template <class T>
SP_HD ContactPairWrench<T> contact_pair_wrench(const Shape<T>& shape_a, const BodyKin<T>& ka, const Shape<T>& shape_b,
                                               const BodyKin<T>& kb, const ContactPairParams<T>& params,
                                               const typename contact_wrench_detail::identity<T>::type* v_impact,
                                               bool broad_phase = false) {
  ContactPairWrench<T> w = contact_pair_apart_result<T>();
  if (broad_phase && contact_pair_apart(shape_a, ka, shape_b, kb, params.margin)) return w;
  const ShapePose<T> pose_a = shape_pose_W(shape_a, ka), pose_b = shape_pose_W(shape_b, kb);
  w.status = collide(shape_a, pose_a, shape_b, pose_b, params.margin, w.contacts);
  if (w.status != CollideStatus::Ok) return w;
  const Vec3<T> w_rel = kb.omega_W - ka.omega_W;
  Vec3<T> F_b = zero3<T>();  // on B: total force
  Vec3<T> M_r = zero3<T>();  // on B: total rolling torque (a couple)
  for (int i = 0; i < w.contacts.count; ++i) {
    const ContactPoint<T>& c = w.contacts.contact[i];
    const Vec3<T>& n = c.normal_W;
    const Vec3<T> sa = c.point_W - ka.r, sb = c.point_W - kb.r;
    const Vec3<T> v_rel = (kb.v + cross(kb.omega_W, sb)) - (ka.v + cross(ka.omega_W, sa));
    const T vn = dot(v_rel, n);
    const T delta_dot = -vn;
    const T slot = v_impact ? v_impact[i] : T(0);
    const T fn = contact_normal_force(params.normal, c.depth, delta_dot, contact_impact_speed(slot, delta_dot));
    const Vec3<T> ft = friction_force(params.friction, fn, v_rel - vn * n);
    const Vec3<T> mr = rolling_torque(params.friction, fn, tangential_part(w_rel, n));
    w.delta_dot[i] = delta_dot;
    w.normal_force[i] = fn;
    w.friction_W[i] = ft;
    w.rolling_W[i] = mr;
    const Vec3<T> f = fn * n + ft;
    F_b += f;
    w.b.torque_W += cross(sb, f);
    w.a.torque_W -= cross(sa, f);
    M_r += mr;
  }
  w.b.force_W = F_b;
  w.a.force_W = -F_b;
  w.b.torque_W += M_r;
  w.a.torque_W -= M_r;
  w.a.torque_B = mul_t(ka.A, w.a.torque_W);
  w.b.torque_B = mul_t(kb.A, w.b.torque_W);
  return w;
}

/// After an accepted step (not after a stage): each slot of the pair from the wrench
/// evaluated at the accepted state, contact_impact_slot per contact index: 0 out of contact
/// (and for indices >= count), max(delta_dot, v_floor) at the first step in contact, then
/// unchanged. The force at the accepted state is the same before and after the update, so
/// that evaluation may serve as the next step's first stage.
template <class T>
SP_HD void contact_pair_update_impact_slots(const ContactPairWrench<T>& w, T v_floor, T* v_impact) {
  for (int i = 0; i < kMaxContacts; ++i) {
    const T depth = i < w.contacts.count ? w.contacts.contact[i].depth : T(0);
    v_impact[i] = contact_impact_slot(v_impact[i], depth, w.delta_dot[i], v_floor);
  }
}

/// Elastic energy [J] stored in the pair's contacts: sum over contacts with depth > 0 of
/// K delta^(n+1) / (n + 1), the potential of the elastic part K delta^n of the normal
/// force (docs/contact.md, "Contact in the DAE"). w from contact_pair_wrench.
template <class T>
SP_HD T contact_pair_potential(const ContactPairWrench<T>& w, const ContactPairParams<T>& params) {
  const T K = params.normal.stiffness, n = params.normal.exponent;
  T V = T(0);
  for (int i = 0; i < w.contacts.count; ++i) {
    const T d = w.contacts.contact[i].depth;
    if (d > T(0)) V += K * contact_pow(d, n + T(1)) / (n + T(1));
  }
  return V;
}

/// Power [W] of the pair's contact forces on both bodies less the elastic part's, so that
/// d/dt (kinetic + potentials incl. contact_pair_potential) = this + the other loads'
/// powers: per contact (F_n - K delta^n)(-delta_dot) + F_t . v_rel (damping and friction,
/// <= 0 by the laws), plus the rolling torque's M_r . (omega_B - omega_A). w from
/// contact_pair_wrench at the kinematics ka, kb.
template <class T>
SP_HD T contact_pair_dissipation_power(const ContactPairWrench<T>& w, const ContactPairParams<T>& params,
                                       const BodyKin<T>& ka, const BodyKin<T>& kb) {
  const T K = params.normal.stiffness, n = params.normal.exponent;
  const Vec3<T> w_rel = kb.omega_W - ka.omega_W;
  T P = T(0);
  for (int i = 0; i < w.contacts.count; ++i) {
    const ContactPoint<T>& c = w.contacts.contact[i];
    const Vec3<T> v_rel = (kb.v + cross(kb.omega_W, c.point_W - kb.r)) - (ka.v + cross(ka.omega_W, c.point_W - ka.r));
    const T elastic = c.depth > T(0) ? K * contact_pow(c.depth, n) : T(0);
    P += (w.normal_force[i] - elastic) * (-w.delta_dot[i]) + dot(w.friction_W[i], v_rel) + dot(w.rolling_W[i], w_rel);
  }
  return P;
}

/// Number of components of contact_pair_summary: the table kContactTable
/// (model/components.hpp) spells their names and units.
constexpr int kContactSummaryComponents = 4;

/// What one pair's forces amount to, as the frames of /contacts record it and the
/// reductions over time accumulate it (docs/contact.md, "Outputs"): out = [the sum of its
/// contacts' normal forces [N] (>= 0), the magnitude of the sum of their friction forces
/// [N], the largest penetration [m] (0 when apart), the number of contacts]. w from
/// contact_pair_wrench.
template <class T>
SP_HD void contact_pair_summary(const ContactPairWrench<T>& w, T* out) {
  T fn = T(0), depth = T(0);
  Vec3<T> ft = zero3<T>();
  for (int c = 0; c < w.contacts.count; ++c) {
    fn += w.normal_force[c];
    ft = ft + w.friction_W[c];
    if (w.contacts.contact[c].depth > depth) depth = w.contacts.contact[c].depth;
  }
  out[0] = fn;
  out[1] = norm(ft);
  out[2] = depth;
  out[3] = T(w.contacts.count);
}

}  // namespace simphant
