#pragma once
// The free coordinate of a joint as a function of the two bodies' positions: the angle
// of a revolute or cylindrical joint about v_i, or the slide of a prismatic or cylindrical
// joint along v_i, with its 12-column Jacobian row, rate and velocity-product term
// (header-only __host__ __device__, shared by the CPU reference and the kernels). The
// rheonomic drivers (docs/solver.md, "Rheonomic drivers") are built on these rows.
//
// Columns as JointRows (joints/joint_math.hpp): [v_i (W), omega_i (B_i), v_j (W),
// omega_j (B_j)]. Each row is the exact derivative of the value, also where the joint's
// own constraints are violated; tests/test_joint_coordinate.cpp checks it against finite
// differences.
#include <cmath>

#include "simphant/joints/joint_math.hpp"

namespace simphant {

/// Which coordinate of a joint: the angle about v_i [rad] or the slide along v_i [m].
enum class JointCoordinate : int { Angle = 0, Slide = 1 };

/// Whether a joint type has the coordinate: angle for revolute and cylindrical, slide for
/// prismatic and cylindrical.
SP_HD constexpr bool joint_has_coordinate(JointType t, JointCoordinate c) {
  return c == JointCoordinate::Angle ? (t == JointType::Revolute || t == JointType::Cylindrical)
                                     : (t == JointType::Prismatic || t == JointType::Cylindrical);
}

/// One coordinate row: value, Jacobian row (12), rate = row . qdot, and gamma, the
/// velocity-product term with coord_ddot = row . qddot - gamma (as the joint rows:
/// Phi_q qddot = gamma for a constant value).
template <class T>
struct CoordinateRow {
  T value;
  T jac[12];
  T rate;
  T gamma;
};

namespace detail {

/// row . qdot over the 12 columns in column order (as joint_eval sums Phi_dot).
template <class T>
SP_HD T row_times_qdot(const T* row, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  const T qd[12] = {Bi.v.x, Bi.v.y, Bi.v.z, Bi.omega_B.x, Bi.omega_B.y, Bi.omega_B.z,
                    Bj.v.x, Bj.v.y, Bj.v.z, Bj.omega_B.x, Bj.omega_B.y, Bj.omega_B.z};
  T r = T(0);
  for (int c = 0; c < 12; ++c) r += row[c] * qd[c];
  return r;
}

}  // namespace detail

/// The angle of body_j about v_i from a_i to a_j, theta = atan2(b_i . a_j, a_i . a_j) in
/// (-pi, pi] [rad] (b_i = v_i x a_i, so b_i . a_j = (a_i x a_j) . v_i), zero where
/// a_i = a_j: the value of coordinate_angle without its row, for the rotational
/// spring-damper, the frames and the reductions.
template <class T>
SP_HD T coordinate_angle_value(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  using std::atan2;  // unqualified: a number type's own atan2 by argument-dependent lookup (math/dual.hpp)
  const Vec3<T> a_i = mul(Bi.A, f.a_i), b_i = mul(Bi.A, f.b_i), a_j = mul(Bj.A, f.a_j);
  return atan2(dot(b_i, a_j), dot(a_i, a_j));
}

/// The slide z = d . v_i [m], d = (r_j + A_j u_j) - (r_i + A_i u_i) the anchor-to-anchor
/// vector: the value of coordinate_slide without its row.
template <class T>
SP_HD T coordinate_slide_value(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  const Vec3<T> P_i = Bi.r + mul(Bi.A, f.u_i), P_j = Bj.r + mul(Bj.A, f.u_j);
  return dot(P_j - P_i, mul(Bi.A, f.v_i));
}

/// The angle theta = atan2(y, x), x = a_i . a_j, y = b_i . a_j (coordinate_angle_value),
/// in (-pi, pi]. With every triad vector moving as e' = w x e (w in W):
///   theta_dot = G . (w_j - w_i),  G = ((y a_i - x b_i) x a_j) / (x^2 + y^2),
/// which is v_i where the joint's axis constraints hold; the Jacobian's rotational blocks
/// are -A_i^T G and A_j^T G, translations zero, and gamma = -G' . (w_j - w_i) (the terms
/// of d/dt (A^T G) . omega_B other than G' vanish: (w x G) . w = 0).
template <class T>
SP_HD void coordinate_angle(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                            CoordinateRow<T>& out) {
  const Vec3<T> a_i = mul(Bi.A, f.a_i), b_i = mul(Bi.A, f.b_i), a_j = mul(Bj.A, f.a_j);
  const Vec3<T> wi = Bi.omega_W, wj = Bj.omega_W;
  const T x = dot(a_i, a_j), y = dot(b_i, a_j);
  const T r2 = x * x + y * y;
  const Vec3<T> e = y * a_i - x * b_i;
  const Vec3<T> C = cross(e, a_j);
  const Vec3<T> G = (T(1) / r2) * C;
  // Time derivatives along the motion.
  const Vec3<T> ai_d = cross(wi, a_i), bi_d = cross(wi, b_i), aj_d = cross(wj, a_j);
  const T x_d = dot(ai_d, a_j) + dot(a_i, aj_d);
  const T y_d = dot(bi_d, a_j) + dot(b_i, aj_d);
  const Vec3<T> e_d = y_d * a_i + y * ai_d - x_d * b_i - x * bi_d;
  const Vec3<T> C_d = cross(e_d, a_j) + cross(e, aj_d);
  const T r2_d = T(2) * (x * x_d + y * y_d);
  const Vec3<T> G_d = (T(1) / r2) * C_d - (r2_d / (r2 * r2)) * C;
  for (int c = 0; c < 12; ++c) out.jac[c] = T(0);
  detail::set_block(out.jac, 3, -mul_t(Bi.A, G));
  detail::set_block(out.jac, 9, mul_t(Bj.A, G));
  using std::atan2;  // unqualified: a number type's own atan2 by argument-dependent lookup (math/dual.hpp)
  out.value = atan2(y, x);
  out.rate = detail::row_times_qdot(out.jac, Bi, Bj);  // = G . (w_j - w_i)
  out.gamma = -dot(G_d, wj - wi);
}

/// The slide z = d . v_i, d = (r_j + s_j) - (r_i + s_i) the anchor-to-anchor vector [m]:
/// the dot-2 row of joint_math.hpp with h = v_i (docs/solver.md, Joints).
template <class T>
SP_HD void coordinate_slide(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                            CoordinateRow<T>& out) {
  const detail::SideW<T> Si = detail::side_world(Bi, f.u_i, f.v_i, f.a_i, f.b_i);
  const detail::SideW<T> Sj = detail::side_world(Bj, f.u_j, f.v_j, f.a_j, f.b_j);
  JointRows<T> rows;
  detail::row_dot2(Bi, Bj, Si, Sj, Si.v, rows, 0);
  for (int c = 0; c < 12; ++c) out.jac[c] = rows.jac[0][c];
  out.value = rows.phi[0];
  out.gamma = rows.gamma[0];
  out.rate = detail::row_times_qdot(out.jac, Bi, Bj);
}

/// The coordinate row of `coord` (coordinate_angle / coordinate_slide).
template <class T>
SP_HD void joint_coordinate_row(JointCoordinate coord, const JointFrame<T>& f, const BodyKin<T>& Bi,
                                const BodyKin<T>& Bj, CoordinateRow<T>& out) {
  if (coord == JointCoordinate::Angle)
    coordinate_angle(f, Bi, Bj, out);
  else
    coordinate_slide(f, Bi, Bj, out);
}

/// x wrapped into (-pi, pi].
template <class T>
SP_HD T wrap_angle(T x) {
  const T pi = T(3.14159265358979323846264338327950288);
  const T two_pi = T(2) * pi;
  using std::floor;  // unqualified: a number type's own floor (math/dual.hpp: zero tangent, so w' = x')
  T w = x - two_pi * floor((x + pi) / two_pi);  // [-pi, pi)
  if (w <= -pi) w += two_pi;
  return w;
}

/// The one constraint row of a rheonomic driver (docs/solver.md, "Rheonomic drivers")
/// into row r of out: Phi = coord(q) - s (an angle wrapped into (-pi, pi]), Phi_q the
/// coordinate's row, Phi_dot = coord_dot - s' (= Phi_q qdot + Phi_t) and gamma = gamma_c +
/// s'' (Phi_q qddot = gamma). s [rad | m], sd = s', sdd = s'' from the motion law.
template <class T>
SP_HD void driver_row(JointCoordinate coord, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj, T s,
                      T sd, T sdd, JointRows<T>& out, int r) {
  CoordinateRow<T> c;
  joint_coordinate_row(coord, f, Bi, Bj, c);
  for (int k = 0; k < 12; ++k) out.jac[r][k] = c.jac[k];
  out.phi[r] = coord == JointCoordinate::Angle ? wrap_angle(c.value - s) : c.value - s;
  out.phi_dot[r] = c.rate - sd;
  out.gamma[r] = c.gamma + sdd;
}

/// The coordinate q read about a reference: an angle as q_ref + wrap(theta - q_ref) in
/// (q_ref - pi, q_ref + pi] [rad], a slide as it is [m].
template <class T>
SP_HD T coordinate_about(JointCoordinate coord, T value, T q_ref) {
  return coord == JointCoordinate::Angle ? q_ref + wrap_angle(value - q_ref) : value;
}

/// The one constraint row of a mimic (docs/solver.md, "Mimic rows"), row 0 of out with
/// out.m = 1: Phi = q_f - r q_l - o for the follower's coordinate q_f (cf, frame ff
/// between Bfi and Bfj) and the leader's q_l (cl, frame fl between Bli and Blj), each
/// read by coordinate_about with its q_ref; Phi_q = [row_f, -r row_l]: the follower's 12
/// columns in out.jac[0], the leader's in leader_jac (12); Phi_dot = qd_f - r qd_l and
/// gamma = gamma_f - r gamma_l (Phi_q qddot = gamma for Phi = 0), exact derivatives
/// (tests/test_joint_coordinate.cpp). r dimensionless for like coordinates, o in the
/// follower's unit.
template <class T>
SP_HD void mimic_row(JointCoordinate cf, const JointFrame<T>& ff, const BodyKin<T>& Bfi, const BodyKin<T>& Bfj,
                     JointCoordinate cl, const JointFrame<T>& fl, const BodyKin<T>& Bli, const BodyKin<T>& Blj, T r,
                     T o, T q_ref, T leader_q_ref, JointRows<T>& out, T* leader_jac) {
  CoordinateRow<T> f, l;
  joint_coordinate_row(cf, ff, Bfi, Bfj, f);
  joint_coordinate_row(cl, fl, Bli, Blj, l);
  out.m = 1;
  for (int k = 0; k < 12; ++k) {
    out.jac[0][k] = f.jac[k];
    leader_jac[k] = -r * l.jac[k];
  }
  out.phi[0] = coordinate_about(cf, f.value, q_ref) - r * coordinate_about(cl, l.value, leader_q_ref) - o;
  out.phi_dot[0] = f.rate - r * l.rate;
  out.gamma[0] = f.gamma - r * l.gamma;
}

}  // namespace simphant
