#pragma once
// Recursive inverse dynamics (RNEA) and forward dynamics (articulated-body algorithm) of
// a kinematic tree in conformal geometric algebra (Löw & Calinon, "Recursive Forward
// Dynamics of Serial Kinematic Chains using Conformal Geometric Algebra"; the ABA steps
// the text lacks (its pages 10-15) are derived in docs/cga-dynamics.md from §3-4 and
// Featherstone ch. 7), on a fixed base or, for the ABA, a floating one (Featherstone ch. 9).
// Twists, wrenches and motors: motor.hpp; inertia elements: inertia.hpp. Frames and
// joints as ReducedModel (reduced_model.hpp): link k's motor parent_M_k(q) =
// T(p_parent_joint) R(R_parent_joint) exp(-q S_k / 2), S_k = axis I3 (revolute) or
// axis ei (prismatic), link coordinates. Every quantity of link k is in link k's frame.
// Header-only SP_HD, fixed workspaces, no allocation: the same code runs per CUDA thread.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/cga/inertia.hpp"
#include "simphant/reduced/cga/motor.hpp"
#include "simphant/reduced/cga/motor_action.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/spd6.hpp"

namespace simphant {
namespace cga {

/// A link with its constant CGA data precomputed (cga_link()): saves the rotation ->
/// rotor conversion and the inertia of eq. 19 on every call.
template <class T>
struct CgaLink {
  int parent;                ///< -1: base
  int type;                  ///< ReducedJointType as int (0 revolute, 1 prismatic)
  Vec3<T> axis;              ///< unit joint axis, link frame
  Motor<T> M_parent_joint;   ///< T(p_parent_joint) R(R_parent_joint)
  Inertia<T> I;              ///< body inertia about the link origin, link frame (eq. 19)
  T armature;                ///< rotor inertia on the joint coordinate [kg m^2 | kg] (ReducedLinkParams)
};

template <class T> SP_HD CgaLink<T> cga_link(const ReducedLinkParams<T>& l) {
  return {l.parent, l.type, l.axis, motor_from_rt(l.R_parent_joint, l.p_parent_joint),
          body_inertia(l.mass, l.com, l.inertia_com), l.armature};
}

/// Per-call scratch of cga_rnea() / cga_aba(); fixed size: Cap links (n <= Cap; a GPU
/// thread uses a small Cap, e.g. CgaWorkspace<T, 7> for a 7-link arm). Index k = link k,
/// link k's frame.
template <class T, int Cap = kMaxReducedLinks>
struct CgaWorkspace {
  static constexpr int kCapacity = Cap;  ///< the largest n this workspace holds
  MotorAction<T> X[Cap];                 ///< action of parent_M_k(q) (k -> parent)
  Twist<T> v[Cap];                       ///< link velocity twist [rad/s, m/s]
  Twist<T> a[Cap];                       ///< link acceleration twist, gravity as -g of the base
  Twist<T> c[Cap];                       ///< ABA: velocity-product acceleration (S qd) x v
  Wrench<T> f[Cap];                      ///< RNEA: joint wrench on link k; ABA: bias wrench pA
  Inertia<T> IA[Cap];                    ///< ABA: articulated-body inertia
  Wrench<T> U[Cap];                      ///< ABA: IA[S]
  T Dinv[Cap];                           ///< ABA: 1 / (<S, U> + armature)
  T u[Cap];                              ///< ABA: tau - <S, pA>
};

namespace detail {
/// parent_M_k(q) = M_parent_joint exp(-q S / 2).
template <class T> SP_HD Motor<T> compose_joint(const Motor<T>& M_parent_joint, int type, const Vec3<T>& axis, T q) {
  if (type == 0) return mul_rotor(M_parent_joint, rotor(axis, q));
  return M_parent_joint * translator(q * axis);
}
template <class T> SP_HD Motor<T> link_motor(const ReducedLinkParams<T>& l, T q) {
  return compose_joint(motor_from_rt(l.R_parent_joint, l.p_parent_joint), l.type, l.axis, q);
}
template <class T> SP_HD Motor<T> link_motor(const CgaLink<T>& l, T q) {
  return compose_joint(l.M_parent_joint, l.type, l.axis, q);
}
template <class T> SP_HD Inertia<T> link_inertia(const ReducedLinkParams<T>& l) {
  return body_inertia(l.mass, l.com, l.inertia_com);
}
template <class T> SP_HD const Inertia<T>& link_inertia(const CgaLink<T>& l) { return l.I; }

template <class T, class Link, int Cap>
SP_HD void rnea(int n, const Link* links, const Vec3<T>& gravity, const T* q, const T* qd, const T* qdd, T* tau_out,
                CgaWorkspace<T, Cap>& ws) {
  const Twist<T> a0 = {{T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z}};
  for (int k = 0; k < n; ++k) {
    const Link& l = links[k];
    const MotorAction<T> X = motor_action(detail::link_motor(l, q[k]));
    ws.X[k] = X;
    const Twist<T> S = joint_screw(l.type == 0, l.axis);
    const Twist<T> vJ = qd[k] * S;
    const T qddk = qdd ? qdd[k] : T(0);
    Twist<T> v, a;
    if (l.parent < 0) {
      v = vJ;  // the base is at rest: vJ x vJ = 0
      a = apply_inverse(X, a0) + qddk * S;
    } else {
      v = apply_inverse(X, ws.v[l.parent]) + vJ;
      a = apply_inverse(X, ws.a[l.parent]) + qddk * S + commutator(vJ, v);
    }
    ws.v[k] = v;
    ws.a[k] = a;
    const auto& I = detail::link_inertia(l);
    ws.f[k] = apply(I, a) - commutator(v, apply(I, v));  // I[a] + crf(v) I[v]
  }
  for (int k = n - 1; k >= 0; --k) {
    const Link& l = links[k];
    T tau = power(joint_screw(l.type == 0, l.axis), ws.f[k]);
    if (qdd) tau += l.armature * qdd[k];  // the joint's rotor inertia
    tau_out[k] = tau;
    if (l.parent >= 0) ws.f[l.parent] += apply(ws.X[k], ws.f[k]);
  }
}

/// Passes 1 (outward: motors, velocities, velocity-product accelerations, bias wrenches)
/// and 2 (inward: articulated inertias and bias wrenches) of the CGA ABA. kFloating: the
/// base moves with the twist v0 (base frame) and the root links' articulated inertias and
/// bias wrenches are carried into the base frame and added to IA0 / f0 (initialised by
/// the caller with the base body's own); else the base is at rest and v0, IA0, f0 are
/// not used.
template <bool kFloating, class T, class Link, int Cap>
SP_HD void aba_inward(int n, const Link* links, const Twist<T>& v0, const T* q, const T* qd, const T* tau,
                      CgaWorkspace<T, Cap>& ws, Inertia<T>& IA0, Wrench<T>& f0) {
  for (int k = 0; k < n; ++k) {
    const Link& l = links[k];
    const MotorAction<T> X = motor_action(detail::link_motor(l, q[k]));
    ws.X[k] = X;
    const Twist<T> vJ = qd[k] * joint_screw(l.type == 0, l.axis);
    Twist<T> v;
    if (l.parent >= 0) {
      v = apply_inverse(X, ws.v[l.parent]) + vJ;
      ws.c[k] = commutator(vJ, v);  // = crm(v) vJ
    } else if (kFloating) {
      v = apply_inverse(X, v0) + vJ;
      ws.c[k] = commutator(vJ, v);
    } else {
      v = vJ;
      ws.c[k] = twist_zero<T>();
    }
    ws.v[k] = v;
    const auto& I = detail::link_inertia(l);
    ws.IA[k] = I;
    ws.f[k] = wrench_zero<T>() - commutator(v, apply(I, v));  // pA = crf(v) I[v]
  }
  for (int k = n - 1; k >= 0; --k) {
    const Link& l = links[k];
    const Twist<T> S = joint_screw(l.type == 0, l.axis);
    const Wrench<T> U = apply_screw(ws.IA[k], l.type == 0, l.axis);  // = IA[S]
    const T Dinv = T(1) / (power(S, U) + l.armature);  // the rotor inertia on q_k joins D
    const T u = tau[k] - power(S, ws.f[k]);
    ws.U[k] = U;
    ws.Dinv[k] = Dinv;
    ws.u[k] = u;
    const int p = l.parent;
    if (p >= 0 || kFloating) {
      // Ia = IA - U (x) U / D; pa = pA + Ia[c] + U u / D = pA + IA[c] + U (u - <c, U>) / D.
      const Inertia<T> Ia = sub_outer(ws.IA[k], U, Dinv);
      const Wrench<T> pa = ws.f[k] + apply(ws.IA[k], ws.c[k]) + ((u - power(ws.c[k], U)) * Dinv) * U;
      if (p >= 0) {
        ws.IA[p] += transform(ws.X[k], Ia);
        ws.f[p] += apply(ws.X[k], pa);
      } else {
        IA0 += transform(ws.X[k], Ia);
        f0 += apply(ws.X[k], pa);
      }
    }
  }
}

/// Pass 3 (outward): joint accelerations and link acceleration twists from the base's
/// acceleration twist a0 (gravity as a fictitious -g).
template <class T, class Link, int Cap>
SP_HD void aba_outward(int n, const Link* links, const Twist<T>& a0, T* qdd_out, CgaWorkspace<T, Cap>& ws) {
  for (int k = 0; k < n; ++k) {
    const Link& l = links[k];
    const int p = l.parent;
    const Twist<T> ap = apply_inverse(ws.X[k], p < 0 ? a0 : ws.a[p]) + ws.c[k];
    const T qdd = (ws.u[k] - power(ap, ws.U[k])) * ws.Dinv[k];
    qdd_out[k] = qdd;
    ws.a[k] = ap + qdd * joint_screw(l.type == 0, l.axis);
  }
}

template <class T, class Link, int Cap>
SP_HD void aba(int n, const Link* links, const Vec3<T>& gravity, const T* q, const T* qd, const T* tau, T* qdd_out,
               CgaWorkspace<T, Cap>& ws) {
  Inertia<T> unused_IA;
  Wrench<T> unused_f;
  aba_inward<false>(n, links, twist_zero<T>(), q, qd, tau, ws, unused_IA, unused_f);
  const Twist<T> a0 = {{T(0), T(0), T(0), -gravity.x, -gravity.y, -gravity.z}};
  aba_outward(n, links, a0, qdd_out, ws);
}

template <class T, class Link, int Cap>
SP_HD void aba_floating(int n, const Link* links, const RobotBaseParams<T>& base, const Vec3<T>& gravity,
                        const Quat<T>& quat_B, const Vec3<T>& v_B, const Vec3<T>& omega_B, const T* q, const T* qd,
                        const T* tau, Vec3<T>& vdot_B, Vec3<T>& omegadot_B, T* qdd_out, CgaWorkspace<T, Cap>& ws,
                        const Vec3<T>* ext_moment_B, const Vec3<T>* ext_force_B) {
  const Mat3<T> R_B = rotation(normalized(quat_B));
  const Vec3<T> vb = mul_t(R_B, v_B);  // velocity of B's origin, B coordinates
  const Twist<T> v0 = twist(omega_B, vb);
  const Inertia<T> I0 = body_inertia(base.mass, base.com, base.inertia_com);
  Inertia<T> IA0 = I0;
  Wrench<T> f0 = wrench_zero<T>() - commutator(v0, apply(I0, v0));
  if (ext_moment_B) f0 = f0 - wrench(*ext_moment_B, *ext_force_B);  // the base's external wrench
  aba_inward<true>(n, links, v0, q, qd, tau, ws, IA0, f0);
  // IA0[a0'] = -f0: IA0.el[k].c[j] is the symmetric 6x6 of inertia.hpp.
  T A[6][6], b[6], x[6];
  for (int k = 0; k < 6; ++k) {
    for (int j = 0; j < 6; ++j) A[k][j] = IA0.el[k].c[j];
    b[k] = -f0.c[k];
  }
  spd6_solve(A, b, x);
  Twist<T> a0;
  for (int k = 0; k < 6; ++k) a0.c[k] = x[k];
  aba_outward(n, links, a0, qdd_out, ws);
  omegadot_B = {x[0], -x[1], x[2]};
  vdot_B = mul(R_B, Vec3<T>{x[3], x[4], x[5]} + cross(omega_B, vb)) + gravity;
}
}  // namespace detail

/// Inverse dynamics in CGA: tau = M(q) qdd + C(q, qd) qd + g(q).
///  n       number of links, 0 <= n <= Cap (the workspace's capacity)
///  links   (n) link parameters, topological order: links[k].parent < k
///  gravity [m/s^2], base (world) coordinates, e.g. (0, 0, -9.81); enters as the base
///          acceleration twist a_0 = -gravity ei
///  q, qd   (n) joint positions [rad | m] and rates [rad/s | m/s]
///  qdd     (n) joint accelerations [rad/s^2 | m/s^2]; nullptr means all zero
///  tau_out (n) joint forces [N m | N] (torque about / force along the axis)
///  ws      scratch; after the call ws.v, ws.a, ws.f hold the link twists, acceleration
///          twists and joint wrenches (link frames)
/// Per link: v = ~M v_parent M + S qd, a = ~M a_parent M + S qdd + (S qd) x v,
/// f = I[a] - v x I[v]; inward: tau = <S, f> + armature qdd, f_parent += M f ~M.
/// Cost O(n); no allocation. tau_out may not alias the inputs.
template <class T, int Cap>
SP_HD void cga_rnea(int n, const ReducedLinkParams<T>* links, const Vec3<T>& gravity, const T* q, const T* qd,
                    const T* qdd, T* tau_out, CgaWorkspace<T, Cap>& ws) {
  detail::rnea(n, links, gravity, q, qd, qdd, tau_out, ws);
}
/// cga_rnea over precomputed links (cga_link()).
template <class T, int Cap>
SP_HD void cga_rnea(int n, const CgaLink<T>* links, const Vec3<T>& gravity, const T* q, const T* qd, const T* qdd,
                    T* tau_out, CgaWorkspace<T, Cap>& ws) {
  detail::rnea(n, links, gravity, q, qd, qdd, tau_out, ws);
}

/// Forward dynamics in CGA (articulated-body algorithm): qdd = M(q)^-1 (tau - C qd - g).
///  n, links, gravity, q, qd as cga_rnea; links need mass > 0 and SPD inertia_com, or
///          armature > 0 (a joint's armature a adds to D = <S, U> + a, as aba.hpp)
///  tau     (n) joint forces [N m | N]
///  qdd_out (n) joint accelerations [rad/s^2 | m/s^2]; may not alias the inputs
///  ws      scratch; after the call ws.a holds the link acceleration twists
/// Derivation: docs/cga-dynamics.md. Cost O(n); no allocation.
template <class T, int Cap>
SP_HD void cga_aba(int n, const ReducedLinkParams<T>* links, const Vec3<T>& gravity, const T* q, const T* qd,
                   const T* tau, T* qdd_out, CgaWorkspace<T, Cap>& ws) {
  detail::aba(n, links, gravity, q, qd, tau, qdd_out, ws);
}
/// cga_aba over precomputed links (cga_link()).
template <class T, int Cap>
SP_HD void cga_aba(int n, const CgaLink<T>* links, const Vec3<T>& gravity, const T* q, const T* qd, const T* tau,
                   T* qdd_out, CgaWorkspace<T, Cap>& ws) {
  detail::aba(n, links, gravity, q, qd, tau, qdd_out, ws);
}

/// Floating-base forward dynamics in CGA: the same base state, outputs and conventions as
/// simphant::aba_floating (aba.hpp), computed in link frames as cga_aba with the base B a
/// free body (docs/cga-dynamics.md "Floating base"): the base twist v_0 = omega_B I3 +
/// (R_B^T v_B) ei enters the root links' velocities, their articulated inertias and bias
/// wrenches are carried into B (M * Ia, M pa ~M) and added to the base's own inertia
/// (eq. 19) and bias -v_0 x I_B[v_0], and the base's articulated inertia IA_0 (a symmetric
/// 6x6 in the coefficients of inertia.hpp) is solved for its acceleration twist
/// IA_0[a_0'] = -f_0 (spd6.hpp); pass 3 runs from a_0'. Gravity as aba_floating: a_0' is
/// gravity-free and omegadot_B = a_0' angular part, vdot_B = R_B (a_0' linear part +
/// omega_B x R_B^T v_B) + g.
///  n, links, q, qd, tau, qdd_out as cga_aba; links with parent -1 hang from B
///  base, gravity, p_B (unused: translation invariance), quat_B (normalised here), v_B,
///  omega_B, vdot_B, omegadot_B as aba_floating
///  ws       scratch; after the call ws.a holds the link acceleration twists (link frames,
///           gravity as -g)
///  ext_moment_B, ext_force_B  optional external wrench on the base, B coordinates, moment
///           about B's origin [N m, N], as aba_floating's f_ext_B (both or neither given)
/// Cost O(n) plus one 6x6 Cholesky solve; no allocation.
template <class T, int Cap>
SP_HD void cga_aba_floating(int n, const CgaLink<T>* links, const RobotBaseParams<T>& base, const Vec3<T>& gravity,
                            const Vec3<T>& p_B, const Quat<T>& quat_B, const Vec3<T>& v_B, const Vec3<T>& omega_B,
                            const T* q, const T* qd, const T* tau, Vec3<T>& vdot_B, Vec3<T>& omegadot_B, T* qdd_out,
                            CgaWorkspace<T, Cap>& ws, const Vec3<T>* ext_moment_B = nullptr,
                            const Vec3<T>* ext_force_B = nullptr) {
  (void)p_B;
  detail::aba_floating(n, links, base, gravity, quat_B, v_B, omega_B, q, qd, tau, vdot_B, omegadot_B, qdd_out, ws,
                       ext_moment_B, ext_force_B);
}
/// cga_aba_floating over plain link parameters (the CGA data computed on the fly).
template <class T, int Cap>
SP_HD void cga_aba_floating(int n, const ReducedLinkParams<T>* links, const RobotBaseParams<T>& base,
                            const Vec3<T>& gravity, const Vec3<T>& p_B, const Quat<T>& quat_B, const Vec3<T>& v_B,
                            const Vec3<T>& omega_B, const T* q, const T* qd, const T* tau, Vec3<T>& vdot_B,
                            Vec3<T>& omegadot_B, T* qdd_out, CgaWorkspace<T, Cap>& ws,
                            const Vec3<T>* ext_moment_B = nullptr, const Vec3<T>* ext_force_B = nullptr) {
  (void)p_B;
  detail::aba_floating(n, links, base, gravity, quat_B, v_B, omega_B, q, qd, tau, vdot_B, omegadot_B, qdd_out, ws,
                       ext_moment_B, ext_force_B);
}

}  // namespace cga
}  // namespace simphant
