#pragma once
// The joint-space equations of motion of a robot instance, dy/dt = f(y, u), written once
// as header-only SP_HD templates for the CPU backend (sim/reduced_backend.cpp) and the
// GPU one (kernels/reduced_step.hpp): a fixed or floating base, forward dynamics by the
// spatial-vector ABA (aba.hpp) or its CGA form (cga/cga_dynamics.hpp), the joint forces
// of joint_forces.hpp, and mimic joints as shared coordinates (docs/robots.md, "Mimic
// joints"). State layout and RobotView: robot_view.hpp.
//
// Mimic joints. A follower j of joint l (RobotJointParams::mimic = l, multiplier r,
// offset o) keeps q_j = r q_l + o. In the velocity coordinates nu (robot_view.hpp's v part)
// this is the constraint J nu = 0, one row J_a = e_j - r e_l per follower, constant, so
// the accelerations satisfy J nudot = 0 too. The equations of motion with the coupling's
// constraint forces J^T lambda (Featherstone, Rigid Body Dynamics Algorithms, ch. 8.1-8.3):
//   M nudot = tau - h + J^T lambda,  J nudot = 0
//   => nudot = nudot_0 + Y lambda,  (J Y) lambda = -J nudot_0,
// with nudot_0 = ABA(y, tau) the unconstrained accelerations and Y = M^-1 J^T the unit
// responses, column a = ABA at the same positions with zero rates, zero gravity and the
// joint forces J_a (M^-1 J_a^T exactly: with no velocity and no gravity the bias h
// vanishes). On a fixed base the responses reuse the first call's articulated inertias
// (robot_detail::unit_response: passes 2-3 only, no poses, inertias or velocity terms); on a floating
// base each is a full call (m + 1 ABA calls). J Y is symmetric positive definite (m x m,
// m <= kMaxRobotMimic) and solved by Cholesky. The follower's rate and acceleration are
// then set to r qd_l and r qdd_l exactly, and robot_normalize_state sets q_j, qd_j from the
// leader after every step, so the pair never drifts apart. The effect is that of a shared
// coordinate: the effective inertia of the pair about q_l is M_ll + 2 r M_lj + r^2 M_jj
// (m_1 + r^2 m_2 for two decoupled sliders), and the follower's own joint force tau_j acts
// on the leader as r tau_j. Preconditions: the followed joint is not itself a follower,
// and no joint follows itself (urdf/urdf_import.hpp resolves or refuses those).
#include <cmath>
#include <type_traits>

#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/robot_contact.hpp"
#include "simphant/reduced/robot_kinematics.hpp"
#include "simphant/reduced/robot_view.hpp"

namespace simphant {

/// Per-call scratch of robot_derivative and robot_kinetic_energy; fixed size (Cap >= n
/// links), no allocation. The ABA, CGA and kinematics scratch share storage (one is in use
/// at a time), so the per-thread size on the GPU is the largest of them plus the mimic solve.
template <class T, int Cap = kMaxReducedLinks>
struct RobotWorkspace {
  union {
    AbaWorkspace<T, Cap> aba;
    cga::CgaWorkspace<T, Cap> cga;
    RobotLinkKinematics<T, Cap> kin;
  };
  T tau[Cap];                          ///< joint forces at y
  T unit[Cap];                         ///< mimic: a row J_a as joint forces
  T zero[Cap + 6];                     ///< mimic: zero rates of the unit responses
  T resp[kMaxRobotMimic][Cap + 6];     ///< mimic: unit responses M^-1 J_a^T (v layout)
  T C[kMaxRobotMimic * kMaxRobotMimic];  ///< mimic: J M^-1 J^T, then its Cholesky factor
  T lambda[kMaxRobotMimic];            ///< mimic: constraint forces of the coupling [N m | N]
  int follower[kMaxRobotMimic];        ///< mimic: the following joints
};

namespace robot_detail {

/// dnu/dt (robot_v_size: [vdot_B (W), omegadot_B (B), qdd] or [qdd]) at the positions of y
/// and the velocities v (robot_v_size) with joint forces tau (n) and gravity g; base_wrench:
/// an external wrench on the floating base (B coordinates, about B's origin; nullptr none).
template <class T, int Cap>
SP_HD void forward_dynamics(const RobotView<T>& r, const T* y, const T* v, const T* tau, const Vec3<T>& g, T* vdot,
                            RobotWorkspace<T, Cap>& ws, const SpatialForce<T>* base_wrench = nullptr) {
  const int n = r.n;
  if (!r.floating) {
    if (r.use_cga)
      cga::cga_aba(n, r.cga_links, g, y, v, tau, vdot, ws.cga);
    else
      aba(n, r.links, g, y, v, tau, vdot, ws.aba);
    return;
  }
  const Vec3<T> p_B{y[0], y[1], y[2]}, v_B{v[0], v[1], v[2]}, omega_B{v[3], v[4], v[5]};
  const Quat<T> quat_B{y[3], y[4], y[5], y[6]};
  Vec3<T> vdot_B, omegadot_B;
  if (r.use_cga)
    cga::cga_aba_floating(n, r.cga_links, r.base, g, p_B, quat_B, v_B, omega_B, y + 7, v + 6, tau, vdot_B, omegadot_B,
                          vdot + 6, ws.cga, base_wrench ? &base_wrench->ang : nullptr,
                          base_wrench ? &base_wrench->lin : nullptr);
  else
    aba_floating(n, r.links, r.base, g, p_B, quat_B, v_B, omega_B, y + 7, v + 6, tau, vdot_B, omegadot_B, vdot + 6,
                 ws.aba, base_wrench);
  vdot[0] = vdot_B.x;
  vdot[1] = vdot_B.y;
  vdot[2] = vdot_B.z;
  vdot[3] = omegadot_B.x;
  vdot[4] = omegadot_B.y;
  vdot[5] = omegadot_B.z;
}

/// M^-1 e for joint forces e (n) at the positions of the preceding full ABA call, into
/// out (robot_v_size), from that call's factorisation: with zero rates and no gravity the
/// velocity-product terms and bias forces vanish, so passes 2-3 of the ABA (Featherstone
/// Table 7.1) reduce to propagating e through the stored articulated inertias (U, D^-1)
/// and the joint subspaces; the result is the full call's at (q, 0, e, g = 0) to the bit.
/// Fixed base only: a floating base's articulated inertia is not kept by aba_floating, so
/// its responses take a full call (forward_dynamics with zero rates and gravity). Leaves
/// the factorisation in ws (uses ws.pA / ws.f, ws.a and ws.u as scratch).
template <class T, int Cap>
SP_HD void unit_response(const RobotView<T>& r, const T* e, T* out, RobotWorkspace<T, Cap>& ws) {
  const int n = r.n;
  if (r.use_cga) {
    cga::CgaWorkspace<T, Cap>& w = ws.cga;
    for (int k = 0; k < n; ++k) w.f[k] = cga::wrench_zero<T>();
    for (int k = n - 1; k >= 0; --k) {
      const cga::CgaLink<T>& l = r.cga_links[k];
      const T u = e[k] - cga::power(cga::joint_screw(l.type == 0, l.axis), w.f[k]);
      w.u[k] = u;
      if (l.parent >= 0) w.f[l.parent] += cga::apply(w.X[k], w.f[k] + (u * w.Dinv[k]) * w.U[k]);
    }
    for (int k = 0; k < n; ++k) {
      const cga::CgaLink<T>& l = r.cga_links[k];
      const cga::Twist<T> ap = l.parent < 0 ? cga::twist_zero<T>() : cga::apply_inverse(w.X[k], w.a[l.parent]);
      const T qdd = (w.u[k] - cga::power(ap, w.U[k])) * w.Dinv[k];
      out[k] = qdd;
      w.a[k] = ap + qdd * cga::joint_screw(l.type == 0, l.axis);
    }
    return;
  }
  AbaWorkspace<T, Cap>& w = ws.aba;
  for (int k = 0; k < n; ++k) w.pA[k] = zero_force<T>();
  for (int k = n - 1; k >= 0; --k) {
    const T u = e[k] - spatial_dot(w.S[k], w.pA[k]);
    w.u[k] = u;
    const int p = r.links[k].parent;
    if (p >= 0) w.pA[p] += w.pA[k] + (u * w.Dinv[k]) * w.U[k];
  }
  for (int k = 0; k < n; ++k) {
    const int p = r.links[k].parent;
    const SpatialMotion<T> ap = p < 0 ? zero_motion<T>() : w.a[p];
    const T qdd = (w.u[k] - spatial_dot(ap, w.U[k])) * w.Dinv[k];
    out[k] = qdd;
    w.a[k] = ap + qdd * w.S[k];
  }
}

/// Solves C x = b in place (b <- x) for the SPD m x m row-major C (C <- its lower
/// Cholesky factor), m <= kMaxRobotMimic; reciprocal pivots. A C that is not positive
/// definite gives NaN (the step then reports the instance non-finite).
template <class T>
SP_HD void cholesky_solve_small(int m, T* C, T* b) {
  T inv[kMaxRobotMimic];  // 1 / L_jj
  for (int j = 0; j < m; ++j) {
    T d = C[j * m + j];
    for (int k = 0; k < j; ++k) d -= C[j * m + k] * C[j * m + k];
    const T L = lane_sqrt(d);
    C[j * m + j] = L;
    inv[j] = T(1) / L;
    for (int i = j + 1; i < m; ++i) {
      T s = C[i * m + j];
      for (int k = 0; k < j; ++k) s -= C[i * m + k] * C[j * m + k];
      C[i * m + j] = s * inv[j];
    }
  }
  for (int i = 0; i < m; ++i) {
    T s = b[i];
    for (int k = 0; k < i; ++k) s -= C[i * m + k] * b[k];
    b[i] = s * inv[i];
  }
  for (int i = m - 1; i >= 0; --i) {
    T s = b[i];
    for (int k = i + 1; k < m; ++k) s -= C[k * m + i] * b[k];
    b[i] = s * inv[i];
  }
}

}  // namespace robot_detail

/// Position rates dq/dt (robot_q_size entries) at the positions of y and the velocities v
/// (robot_v_size): floating dp_B/dt = v_B, dquat_B/dt = quat_B (0, omega_B) / 2; joints qd,
/// a mimic follower's exactly r qd[leader].
template <class T>
SP_HD void robot_position_rate(const RobotView<T>& r, const T* y, const T* v, T* qdot) {
  const int qo = r.floating ? 7 : 0, vo = r.floating ? 6 : 0;
  if (r.floating) {
    for (int e = 0; e < 3; ++e) qdot[e] = v[e];
    const Quat<T> pd = quat_rate(Quat<T>{y[3], y[4], y[5], y[6]}, Vec3<T>{v[3], v[4], v[5]});
    qdot[3] = pd.w;
    qdot[4] = pd.x;
    qdot[5] = pd.y;
    qdot[6] = pd.z;
  }
  for (int k = 0; k < r.n; ++k) {
    const int l = r.joints[k].mimic;
    qdot[qo + k] = l >= 0 ? r.joints[k].mimic_multiplier * v[vo + l] : v[vo + k];
  }
}

/// dy/dt at y with inputs u (robot_state_size entries): [dq/dt (q size), dv/dt (v size)];
/// for a floating base dp_B/dt = v_B, dquat_B/dt = quat_B (0, omega_B) / 2, then the base's
/// (dv_B/dt, domega_B/dt) and qdd. The joint forces are joint_applied_force of each joint's
/// RobotJointParams at (u_k, q_k, qd_k), plus the contact pairs' generalised forces
/// (robot_contact.hpp; the floating base's share as its external wrench). Mimic joints get
/// qd = r qd[m] and qdd = r qdd[m] exactly (constraint forces of the coupling, see the
/// header comment). ydot may not alias y.
template <class T, int Cap>
SP_HD void robot_derivative(const RobotView<T>& r, const T* y, const T* u, T* ydot, RobotWorkspace<T, Cap>& ws) {
  const int n = r.n, nq = robot_q_size(n, r.floating), nv = robot_v_size(n, r.floating);
  const int qo = r.floating ? 7 : 0, vo = r.floating ? 6 : 0;
  const T* q = y + qo;
  const T* v = y + nq;
  const T* qd = v + vo;
  for (int k = 0; k < n; ++k) ws.tau[k] = joint_applied_force(r.joints[k], u[k], q[k], qd[k]);
  SpatialForce<T> base_wrench{zero3<T>(), zero3<T>()};
  if (r.n_contacts > 0) {  // before the ABA: the kinematics share its scratch
    if constexpr (std::is_floating_point<T>::value) {
      robot_contact_forces(r, y, ws.tau, base_wrench, ws.kin);
    } else if constexpr (RobotLaneContact<T>::enabled) {
      RobotLaneContact<T>::forces(r, y, ws.tau, base_wrench, ws.kin);
    } else {
      // The collision geometry branches on values: no dual-number form, so a contact
      // force through such a T would be wrong; NaN makes that visible.
      for (int k = 0; k < n; ++k) ws.tau[k] = T(NAN);
    }
  }
  robot_position_rate(r, y, v, ydot);
  T* vdot = ydot + nq;
  robot_detail::forward_dynamics(r, y, v, ws.tau, r.gravity, vdot, ws, r.n_contacts > 0 ? &base_wrench : nullptr);
  int m = 0;
  for (int k = 0; k < n && m < kMaxRobotMimic; ++k)
    if (r.joints[k].mimic >= 0) ws.follower[m++] = k;
  if (m == 0) return;
  // Unit responses Y_a = M^-1 J_a^T (zero rates, zero gravity) and C = J Y.
  for (int e = 0; e < nv; ++e) ws.zero[e] = T(0);
  const Vec3<T> no_gravity = zero3<T>();
  for (int a = 0; a < m; ++a) {
    const int j = ws.follower[a], l = r.joints[j].mimic;
    for (int k = 0; k < n; ++k) ws.unit[k] = T(0);
    ws.unit[j] = T(1);
    ws.unit[l] = -r.joints[j].mimic_multiplier;
    if (r.floating)
      robot_detail::forward_dynamics(r, y, ws.zero, ws.unit, no_gravity, ws.resp[a], ws);
    else
      robot_detail::unit_response(r, ws.unit, ws.resp[a], ws);
  }
  for (int a = 0; a < m; ++a) {
    const int j = ws.follower[a], l = r.joints[j].mimic;
    const T ra = r.joints[j].mimic_multiplier;
    for (int b = 0; b < m; ++b) ws.C[a * m + b] = ws.resp[b][vo + j] - ra * ws.resp[b][vo + l];
    ws.lambda[a] = -(vdot[vo + j] - ra * vdot[vo + l]);
  }
  robot_detail::cholesky_solve_small(m, ws.C, ws.lambda);
  for (int e = 0; e < nv; ++e) {
    T s = vdot[e];
    for (int b = 0; b < m; ++b) s += ws.lambda[b] * ws.resp[b][e];
    vdot[e] = s;
  }
  for (int a = 0; a < m; ++a) {
    const int j = ws.follower[a];
    vdot[vo + j] = r.joints[j].mimic_multiplier * vdot[vo + r.joints[j].mimic];
  }
}

/// The actuator forces (n) at y with inputs u (joint_actuator_force: the servo law, the
/// effort clamp and the velocity cut; what /joint_state/tau records) [N m | N].
template <class T>
SP_HD void robot_actuator_forces(const RobotView<T>& r, const T* y, const T* u, T* tau_out) {
  const int qo = r.floating ? 7 : 0, vo = robot_q_size(r.n, r.floating) + (r.floating ? 6 : 0);
  for (int k = 0; k < r.n; ++k) tau_out[k] = joint_actuator_force(r.joints[k], u[k], y[qo + k], y[vo + k]);
}

/// After a step: the base quaternion renormalised, mimic joints set to
/// q = r q[m] + offset and qd = r qd[m].
template <class T>
SP_HD void robot_normalize_state(const RobotView<T>& r, T* y) {
  const int qo = r.floating ? 7 : 0, vo = robot_q_size(r.n, r.floating) + (r.floating ? 6 : 0);
  if (r.floating) {
    const Quat<T> p = normalized(Quat<T>{y[3], y[4], y[5], y[6]});
    y[3] = p.w;
    y[4] = p.x;
    y[5] = p.y;
    y[6] = p.z;
  }
  for (int k = 0; k < r.n; ++k) {
    const RobotJointParams<T>& p = r.joints[k];
    if (p.mimic < 0) continue;
    y[qo + k] = p.mimic_multiplier * y[qo + p.mimic] + p.mimic_offset;
    y[vo + k] = p.mimic_multiplier * y[vo + p.mimic];
  }
}

}  // namespace simphant
