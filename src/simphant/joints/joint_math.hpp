#pragma once
// The joint constraint math of SimPhant: Phi, Phi_q, Phi_dot and gamma for the six
// joint types, written once as header-only __host__ __device__ functions shared by
// the CPU reference path and every CUDA kernel.
//
// Formulation: docs/solver.md, Joints (the constraint rows, Jacobians and gamma). Known
// slips of the original formulation are corrected here and every block is checked
// against central finite differences in tests/test_joint_math.cpp:
//  - the fixed joint's rows 1-3 use the local arm, -A_i u~_i (not the global s_i);
//  - Baumgarte is gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi (docs/solver.md, Joints).
//
// Velocity coordinates of one joint, 12 columns: [v_i (W), omega_i (B_i), v_j (W),
// omega_j (B_j)] with v the CoM velocity in the world frame and omega the angular
// velocity in the body frame (docs/solver.md, State and coordinates). A ground side
// (body index -1) is passed as BodyKin with r = 0, A = I and zero velocities; its columns
// are dropped by the caller when scattering into the global Phi_q.
#include "simphant/math/small.hpp"

namespace simphant {

enum class JointType : int { Spherical = 0, Revolute = 1, Prismatic = 2, Cylindrical = 3, Planar = 4, Fixed = 5 };

/// Maximum number of constraint rows of one joint (the fixed joint).
constexpr int kMaxJointRows = 6;
/// Most sides (bodies) of a constraint element: two for a joint or a driver, four for a
/// mimic row (the follower's two bodies, then the leader's; model/model.hpp Mimic).
constexpr int kMaxElementSides = 4;

/// Number of constraint rows m_k of a joint type (seed: 3, 5, 5, 4, 3, 6).
SP_HD constexpr int joint_rows(JointType t) {
  return t == JointType::Spherical     ? 3
         : t == JointType::Revolute    ? 5
         : t == JointType::Prismatic   ? 5
         : t == JointType::Cylindrical ? 4
         : t == JointType::Planar      ? 3
                                       : 6;
}

/// Scene-format name of a joint type ("spherical", "revolute", ...).
inline const char* joint_type_name(JointType t) {
  const char* names[] = {"spherical", "revolute", "prismatic", "cylindrical", "planar", "fixed"};
  return names[static_cast<int>(t)];
}

/// Joint frame on each body, body-frame coordinates (docs/solver.md notation): origin u (from the
/// CoM to the anchor), z axis v, x axis a, y axis b = v x a. For ground, world frame.
template <class T>
struct JointFrame {
  Vec3<T> u_i, v_i, a_i, b_i;
  Vec3<T> u_j, v_j, a_j, b_j;
};

/// Kinematic state of one body as the joint math needs it.
template <class T>
struct BodyKin {
  Vec3<T> r;        ///< CoM position, W [m]
  Mat3<T> A;        ///< rotation B -> W
  Vec3<T> v;        ///< CoM velocity, W [m/s]
  Vec3<T> omega_B;  ///< angular velocity, B [rad/s]
  Vec3<T> omega_W;  ///< angular velocity, W (= A omega_B)
};

template <class T>
SP_HD BodyKin<T> make_body_kin(const Vec3<T>& r, const Quat<T>& p, const Vec3<T>& v, const Vec3<T>& omega_B) {
  BodyKin<T> b;
  b.r = r;
  b.A = rotation(p);
  b.v = v;
  b.omega_B = omega_B;
  b.omega_W = mul(b.A, omega_B);
  return b;
}

template <class T>
SP_HD BodyKin<T> ground_kin() {
  return {zero3<T>(), identity3<T>(), zero3<T>(), zero3<T>(), zero3<T>()};
}

/// Rows of one joint: Phi (m_k), Phi_q (m_k x 12, columns as above), gamma (m_k,
/// without Baumgarte terms) and Phi_dot = Phi_q qdot (m_k).
template <class T>
struct JointRows {
  int m;
  T phi[kMaxJointRows];
  T jac[kMaxJointRows][12];
  T gamma[kMaxJointRows];
  T phi_dot[kMaxJointRows];
};

/// Rows of jr whose bit is set in mask (bit r: row r; Model::removed_rows) taken out of
/// the solve: the Jacobian row, Phi_dot and gamma zero (and gamma* zero: row_gamma_star),
/// so its multiplier is 0 and it moves no body (docs/solver.md, "Redundant constraints"). Phi is
/// kept: the violation a run reports is still that of every row, so a removed row that
/// the others do not imply shows as a growing violation, never silently. Any T.
template <class T>
SP_HD void remove_rows(JointRows<T>& jr, int mask) {
  if (mask == 0) return;
  for (int r = 0; r < jr.m; ++r)
    if (mask & (1 << r)) {
      jr.phi_dot[r] = T(0);
      jr.gamma[r] = T(0);
      for (int c = 0; c < 12; ++c) jr.jac[r][c] = T(0);
    }
}

namespace detail {

template <class T>
SP_HD void set_block(T* row, int col, const Vec3<T>& x) {
  row[col] = x.x;
  row[col + 1] = x.y;
  row[col + 2] = x.z;
}

/// Globals of one side of a joint: s (arm CoM->anchor, W) and the triad (v, a, b) in W.
template <class T>
struct SideW {
  Vec3<T> s, v, a, b;
};

template <class T>
SP_HD SideW<T> side_world(const BodyKin<T>& B, const Vec3<T>& u, const Vec3<T>& v, const Vec3<T>& a, const Vec3<T>& b) {
  return {mul(B.A, u), mul(B.A, v), mul(B.A, a), mul(B.A, b)};
}

/// Spherical block, 3 rows (docs/solver.md, Joints):
/// Phi = r_i + s_i - r_j - s_j, Phi_q = [I, -A_i u~_i, -I, A_j u~_j],
/// gamma = -w_i x (w_i x s_i) + w_j x (w_j x s_j).
template <class T>
SP_HD void rows_spherical(const BodyKin<T>& Bi, const BodyKin<T>& Bj, const Vec3<T>& u_i, const Vec3<T>& u_j,
                          const SideW<T>& Si, const SideW<T>& Sj, JointRows<T>& out, int r0) {
  const Vec3<T> phi = Bi.r + Si.s - Bj.r - Sj.s;
  const Vec3<T> ci = cross(Bi.omega_W, cross(Bi.omega_W, Si.s));
  const Vec3<T> cj = cross(Bj.omega_W, cross(Bj.omega_W, Sj.s));
  for (int k = 0; k < 3; ++k) {
    T* row = out.jac[r0 + k];
    for (int c = 0; c < 12; ++c) row[c] = T(0);
    row[k] = T(1);
    row[6 + k] = T(-1);
    // Row k of -A_i u~_i: d/dw_B of (A_i (w_B x u_i))_k = row k of A_i times (w_B x u_i)
    //   = (u_i x A_i^T e_k) . w_B.
    const Vec3<T> Ai_k = {Bi.A.m[k][0], Bi.A.m[k][1], Bi.A.m[k][2]};
    const Vec3<T> Aj_k = {Bj.A.m[k][0], Bj.A.m[k][1], Bj.A.m[k][2]};
    set_block(row, 3, cross(u_i, Ai_k));
    set_block(row, 9, -cross(u_j, Aj_k));
    out.phi[r0 + k] = phi[k];
    out.gamma[r0 + k] = -ci[k] + cj[k];
  }
}

/// Dot-1 row h_i . g_j = 0 with h fixed on body i and g on body j (seed, revolute rows
/// 4-5): Phi_q rot_i = A_i^T (h x g), rot_j = A_j^T (g x h), translations zero;
/// gamma = -[(w_i x (w_i x h)) . g + 2 (w_i x h) . (w_j x g) + h . (w_j x (w_j x g))].
template <class T>
SP_HD void row_dot1(const BodyKin<T>& Bi, const BodyKin<T>& Bj, const Vec3<T>& h, const Vec3<T>& g, JointRows<T>& out,
                    int r) {
  T* row = out.jac[r];
  for (int c = 0; c < 12; ++c) row[c] = T(0);
  set_block(row, 3, mul_t(Bi.A, cross(h, g)));
  set_block(row, 9, mul_t(Bj.A, cross(g, h)));
  out.phi[r] = dot(h, g);
  const Vec3<T> wih = cross(Bi.omega_W, h);
  const Vec3<T> wjg = cross(Bj.omega_W, g);
  out.gamma[r] = -(dot(cross(Bi.omega_W, wih), g) + T(2) * dot(wih, wjg) + dot(h, cross(Bj.omega_W, wjg)));
}

/// Dot-2 row d . h_i = 0, d = (r_j + s_j) - (r_i + s_i), h fixed on body i (seed,
/// prismatic rows 4-5): Phi_q = [-h^T, A_i^T (h x (d + s_i)), h^T, A_j^T (s_j x h)];
/// gamma = -[d_cent . h + 2 d_dot . (w_i x h) + d . (w_i x (w_i x h))].
template <class T>
SP_HD void row_dot2(const BodyKin<T>& Bi, const BodyKin<T>& Bj, const SideW<T>& Si, const SideW<T>& Sj,
                    const Vec3<T>& h, JointRows<T>& out, int r) {
  const Vec3<T> d = (Bj.r + Sj.s) - (Bi.r + Si.s);
  const Vec3<T> d_dot = (Bj.v + cross(Bj.omega_W, Sj.s)) - (Bi.v + cross(Bi.omega_W, Si.s));
  const Vec3<T> d_cent = cross(Bj.omega_W, cross(Bj.omega_W, Sj.s)) - cross(Bi.omega_W, cross(Bi.omega_W, Si.s));
  T* row = out.jac[r];
  set_block(row, 0, -h);
  set_block(row, 3, mul_t(Bi.A, cross(h, d + Si.s)));
  set_block(row, 6, h);
  set_block(row, 9, mul_t(Bj.A, cross(Sj.s, h)));
  out.phi[r] = dot(d, h);
  const Vec3<T> wih = cross(Bi.omega_W, h);
  out.gamma[r] = -(dot(d_cent, h) + T(2) * dot(d_dot, wih) + dot(d, cross(Bi.omega_W, wih)));
}

}  // namespace detail

/// Evaluates Phi, Phi_q, gamma and Phi_dot of one joint.
///
/// Rows per type (seed): spherical [sph x3]; revolute [sph x3, v_i.a_j, v_i.b_j];
/// prismatic [v_i.a_j, v_i.b_j, a_i.b_j, d.a_i, d.b_i]; cylindrical [v_i.a_j, v_i.b_j,
/// d.a_i, d.b_i]; planar [v_i.a_j, v_i.b_j, d.v_i]; fixed [sph x3, v_i.a_j, v_i.b_j,
/// a_i.b_j]. Units: spherical and dot-2 rows in m (gamma m/s^2), dot-1 rows
/// dimensionless (gamma 1/s^2).
template <class T>
SP_HD void joint_eval(JointType type, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                      JointRows<T>& out) {
  using detail::row_dot1;
  using detail::row_dot2;
  using detail::rows_spherical;
  const detail::SideW<T> Si = detail::side_world(Bi, f.u_i, f.v_i, f.a_i, f.b_i);
  const detail::SideW<T> Sj = detail::side_world(Bj, f.u_j, f.v_j, f.a_j, f.b_j);
  out.m = joint_rows(type);
  switch (type) {
    case JointType::Spherical:
      rows_spherical(Bi, Bj, f.u_i, f.u_j, Si, Sj, out, 0);
      break;
    case JointType::Revolute:
      rows_spherical(Bi, Bj, f.u_i, f.u_j, Si, Sj, out, 0);
      row_dot1(Bi, Bj, Si.v, Sj.a, out, 3);
      row_dot1(Bi, Bj, Si.v, Sj.b, out, 4);
      break;
    case JointType::Prismatic:
      row_dot1(Bi, Bj, Si.v, Sj.a, out, 0);
      row_dot1(Bi, Bj, Si.v, Sj.b, out, 1);
      row_dot1(Bi, Bj, Si.a, Sj.b, out, 2);
      row_dot2(Bi, Bj, Si, Sj, Si.a, out, 3);
      row_dot2(Bi, Bj, Si, Sj, Si.b, out, 4);
      break;
    case JointType::Cylindrical:
      row_dot1(Bi, Bj, Si.v, Sj.a, out, 0);
      row_dot1(Bi, Bj, Si.v, Sj.b, out, 1);
      row_dot2(Bi, Bj, Si, Sj, Si.a, out, 2);
      row_dot2(Bi, Bj, Si, Sj, Si.b, out, 3);
      break;
    case JointType::Planar:
      row_dot1(Bi, Bj, Si.v, Sj.a, out, 0);
      row_dot1(Bi, Bj, Si.v, Sj.b, out, 1);
      row_dot2(Bi, Bj, Si, Sj, Si.v, out, 2);
      break;
    case JointType::Fixed:
      rows_spherical(Bi, Bj, f.u_i, f.u_j, Si, Sj, out, 0);
      row_dot1(Bi, Bj, Si.v, Sj.a, out, 3);
      row_dot1(Bi, Bj, Si.v, Sj.b, out, 4);
      row_dot1(Bi, Bj, Si.a, Sj.b, out, 5);
      break;
  }
  const T qd[12] = {Bi.v.x, Bi.v.y, Bi.v.z, Bi.omega_B.x, Bi.omega_B.y, Bi.omega_B.z,
                    Bj.v.x, Bj.v.y, Bj.v.z, Bj.omega_B.x, Bj.omega_B.y, Bj.omega_B.z};
  for (int r = 0; r < out.m; ++r) {
    T s = T(0);
    for (int c = 0; c < 12; ++c) s += out.jac[r][c] * qd[c];
    out.phi_dot[r] = s;
  }
}

/// Baumgarte-stabilised right-hand side gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi
/// (docs/solver.md, Joints; the original formulation drops Phi in the last term).
/// alpha [1/s], beta [1/s].
template <class T>
SP_HD T baumgarte_gamma(T gamma, T phi_dot, T phi, T alpha, T beta) {
  return gamma - T(2) * alpha * phi_dot - beta * beta * phi;
}

/// gamma* of row r of jr (after remove_rows with the same mask): baumgarte_gamma, or 0 for
/// a removed row, whose multiplier is then exactly 0.
template <class T>
SP_HD T row_gamma_star(const JointRows<T>& jr, int r, int mask, T alpha, T beta) {
  return (mask & (1 << r)) ? T(0) : baumgarte_gamma(jr.gamma[r], jr.phi_dot[r], jr.phi[r], alpha, beta);
}

}  // namespace simphant
