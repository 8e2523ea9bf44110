#pragma once
// The small part of conformal geometric algebra G(4,1) that the CGA recursive dynamics
// needs (Löw & Calinon, "Recursive Forward Dynamics of Serial Kinematic Chains using
// Conformal Geometric Algebra", §3.2; the
// derivation and every convention: docs/cga-dynamics.md). Header-only SP_HD templates
// on plain aggregates: no heap, no Eigen, no constructors, so they compile for CUDA.
//
// Basis. e1, e2, e3 Euclidean, e0 (origin) and ei (= e_inf, infinity) null vectors with
// e0 . ei = -1 (e0 = (e- - e+)/2, ei = e- + e+ for an orthonormal e+^2 = 1, e-^2 = -1).
// Blades are named by ordered outer products in the order e0 < e1 < e2 < e3 < ei, as in
// the paper: e23 = e2^e3, e13 = e1^e3, e12 = e1^e2, e1i = e1^ei, e01 = e0^e1,
// e123i = e1^e2^e3^ei. Only these element kinds exist here:
//  - Motor (8 numbers: 1, e23, e13, e12, e1i, e2i, e3i, e123i): a rigid motion,
//    X' = M X ~M. M = T R with the rotor R = exp(-theta/2 n I3) (I3 = e123, so
//    n I3 = n1 e23 - n2 e13 + n3 e12) and the translator T = 1 - 1/2 p ei; it maps a
//    point x to R x + p, with R the right-handed rotation by theta about n.
//  - Twist (bivector on e23, e13, e12, e1i, e2i, e3i, the paper's eq. 7): for angular
//    velocity w and velocity v of the frame-origin point (Plücker, same frame),
//    V = w I3 + v ei, i.e. c = (w1, -w2, w3, v1, v2, v3). The motor of a constant twist
//    applied for unit time is exp(-V/2) (motor_exp).
//  - Wrench (bivector on e23, e13, e12, e01, e02, e03, eq. 8): for the moment n about the
//    frame origin and the force f, W = n I3 + e0 ^ f, i.e. c = (n1, -n2, n3, f1, f2, f3).
// Power (eq. 9): -V . W = sum_k V.c[k] W.c[k] (e23 . e23 = -1, e1i . e01 = -1, ...).
// A motor maps a twist to a twist exactly; it maps a wrench to a wrench plus terms in
// e_k ^ ei (k = 0..3), which are dropped (the wrench space is the quotient of the
// bivectors by the ideal of ei: ei is motor-invariant, so this is consistent).
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/lane_math.hpp"

namespace simphant {
namespace cga {

/// Even-grade rigid-motion element: s + e23 e23 + e13 e13 + e12 e12 + e1i e1i + e2i e2i +
/// e3i e3i + e123i e123i. A proper motor has M ~M = 1.
template <class T>
struct Motor {
  T s, e23, e13, e12, e1i, e2i, e3i, e123i;
};

/// Twist bivector, c = (e23, e13, e12, e1i, e2i, e3i) = (w1, -w2, w3, v1, v2, v3)
/// [rad/s, m/s] (or the derivatives: spatial acceleration).
template <class T>
struct Twist {
  T c[6];
};

/// Wrench bivector, c = (e23, e13, e12, e01, e02, e03) = (n1, -n2, n3, f1, f2, f3) [N m, N].
template <class T>
struct Wrench {
  T c[6];
};

template <class T> SP_HD Motor<T> motor_identity() { return {T(1), T(0), T(0), T(0), T(0), T(0), T(0), T(0)}; }
template <class T> SP_HD Twist<T> twist_zero() { return {{T(0), T(0), T(0), T(0), T(0), T(0)}}; }
template <class T> SP_HD Wrench<T> wrench_zero() { return {{T(0), T(0), T(0), T(0), T(0), T(0)}}; }

/// Twist from (angular, linear) 3-vectors (the coordinate map of the file comment).
template <class T> SP_HD Twist<T> twist(const Vec3<T>& w, const Vec3<T>& v) { return {{w.x, -w.y, w.z, v.x, v.y, v.z}}; }
/// Wrench from (moment, force) 3-vectors.
template <class T> SP_HD Wrench<T> wrench(const Vec3<T>& n, const Vec3<T>& f) { return {{n.x, -n.y, n.z, f.x, f.y, f.z}}; }

template <class T> SP_HD Twist<T> operator+(const Twist<T>& a, const Twist<T>& b) {
  Twist<T> r;
  for (int k = 0; k < 6; ++k) r.c[k] = a.c[k] + b.c[k];
  return r;
}
template <class T> SP_HD Twist<T> operator*(T s, const Twist<T>& a) {
  Twist<T> r;
  for (int k = 0; k < 6; ++k) r.c[k] = s * a.c[k];
  return r;
}
template <class T> SP_HD Wrench<T> operator+(const Wrench<T>& a, const Wrench<T>& b) {
  Wrench<T> r;
  for (int k = 0; k < 6; ++k) r.c[k] = a.c[k] + b.c[k];
  return r;
}
template <class T> SP_HD Wrench<T> operator-(const Wrench<T>& a, const Wrench<T>& b) {
  Wrench<T> r;
  for (int k = 0; k < 6; ++k) r.c[k] = a.c[k] - b.c[k];
  return r;
}
template <class T> SP_HD Wrench<T> operator*(T s, const Wrench<T>& a) {
  Wrench<T> r;
  for (int k = 0; k < 6; ++k) r.c[k] = s * a.c[k];
  return r;
}
template <class T> SP_HD Wrench<T>& operator+=(Wrench<T>& a, const Wrench<T>& b) {
  for (int k = 0; k < 6; ++k) a.c[k] += b.c[k];
  return a;
}

/// Power of a wrench on a twist, -V . W = sum_k V_k W_k (paper eq. 9) [W].
template <class T> SP_HD T power(const Twist<T>& V, const Wrench<T>& W) {
  return V.c[0] * W.c[0] + V.c[1] * W.c[1] + V.c[2] * W.c[2] + V.c[3] * W.c[3] + V.c[4] * W.c[4] + V.c[5] * W.c[5];
}

/// Reverse ~M: grade 2 changes sign, grades 0 and 4 do not. For a motor, ~M = M^-1.
template <class T> SP_HD Motor<T> reverse(const Motor<T>& m) {
  return {m.s, -m.e23, -m.e13, -m.e12, -m.e1i, -m.e2i, -m.e3i, m.e123i};
}

/// Geometric product of two motors, M N (composition: apply N first, then M). The full
/// product of the 8-component even elements, from the G(4,1) multiplication table
/// (e23 e13 = -e12, e23 e1i = e123i, e12 e3i = e123i, e123i e23 = -e1i, ...); the
/// e_k ei e_l ei terms vanish because ei^2 = 0.
template <class T> SP_HD Motor<T> operator*(const Motor<T>& m, const Motor<T>& n) {
  Motor<T> r;
  r.s = m.s * n.s - m.e23 * n.e23 - m.e13 * n.e13 - m.e12 * n.e12;
  r.e23 = m.s * n.e23 + m.e23 * n.s + m.e13 * n.e12 - m.e12 * n.e13;
  r.e13 = m.s * n.e13 + m.e13 * n.s + m.e12 * n.e23 - m.e23 * n.e12;
  r.e12 = m.s * n.e12 + m.e12 * n.s + m.e23 * n.e13 - m.e13 * n.e23;
  r.e1i = m.s * n.e1i + m.e1i * n.s + m.e12 * n.e2i - m.e2i * n.e12 + m.e13 * n.e3i - m.e3i * n.e13 -
          m.e123i * n.e23 - m.e23 * n.e123i;
  r.e2i = m.s * n.e2i + m.e2i * n.s - m.e12 * n.e1i + m.e1i * n.e12 + m.e23 * n.e3i - m.e3i * n.e23 +
          m.e123i * n.e13 + m.e13 * n.e123i;
  r.e3i = m.s * n.e3i + m.e3i * n.s - m.e13 * n.e1i + m.e1i * n.e13 - m.e23 * n.e2i + m.e2i * n.e23 -
          m.e123i * n.e12 - m.e12 * n.e123i;
  r.e123i = m.s * n.e123i + m.e123i * n.s + m.e12 * n.e3i + m.e3i * n.e12 - m.e13 * n.e2i - m.e2i * n.e13 +
            m.e23 * n.e1i + m.e1i * n.e23;
  return r;
}

/// M R for a rotor R (its ei parts zero): the motor product without the 32 terms that
/// vanish, for composing a link's placement with a revolute joint's rotor.
template <class T> SP_HD Motor<T> mul_rotor(const Motor<T>& m, const Motor<T>& n) {
  Motor<T> r;
  r.s = m.s * n.s - m.e23 * n.e23 - m.e13 * n.e13 - m.e12 * n.e12;
  r.e23 = m.s * n.e23 + m.e23 * n.s + m.e13 * n.e12 - m.e12 * n.e13;
  r.e13 = m.s * n.e13 + m.e13 * n.s + m.e12 * n.e23 - m.e23 * n.e12;
  r.e12 = m.s * n.e12 + m.e12 * n.s + m.e23 * n.e13 - m.e13 * n.e23;
  r.e1i = m.e1i * n.s - m.e2i * n.e12 - m.e3i * n.e13 - m.e123i * n.e23;
  r.e2i = m.e2i * n.s + m.e1i * n.e12 - m.e3i * n.e23 + m.e123i * n.e13;
  r.e3i = m.e3i * n.s + m.e1i * n.e13 + m.e2i * n.e23 - m.e123i * n.e12;
  r.e123i = m.e123i * n.s + m.e3i * n.e12 - m.e2i * n.e13 + m.e1i * n.e23;
  return r;
}

/// Translator T = 1 - 1/2 p ei: the motor of the translation by p [m].
template <class T> SP_HD Motor<T> translator(const Vec3<T>& p) {
  return {T(1), T(0), T(0), T(0), T(-0.5) * p.x, T(-0.5) * p.y, T(-0.5) * p.z, T(0)};
}

/// Rotor R = cos(angle/2) - sin(angle/2) a I3 = exp(-angle/2 a I3): the right-handed
/// rotation by `angle` [rad] about the unit axis a through the origin.
template <class T> SP_HD Motor<T> rotor(const Vec3<T>& a, T angle) {
  T s, c;
  lane_sincos(T(0.5) * angle, s, c);
  return {c, -s * a.x, s * a.y, -s * a.z, T(0), T(0), T(0), T(0)};
}

/// The unit screw twist of a joint about / along the unit axis a through the origin:
/// revolute a I3 (c = (a1, -a2, a3, 0, 0, 0)), prismatic a ei (c = (0, 0, 0, a1, a2, a3)).
template <class T> SP_HD Twist<T> joint_screw(bool revolute, const Vec3<T>& a) {
  if (revolute) return {{a.x, -a.y, a.z, T(0), T(0), T(0)}};
  return {{T(0), T(0), T(0), a.x, a.y, a.z}};
}

/// exp(-q S / 2) for a joint screw S = joint_screw(revolute, a) (paper eq. 6 with
/// B = -S/2): the rotor(a, q) for a revolute joint ((a I3)^2 = -1), the translator
/// 1 - q/2 a ei for a prismatic one ((a ei)^2 = 0). q in [rad] or [m].
template <class T> SP_HD Motor<T> joint_motor(bool revolute, const Vec3<T>& a, T q) {
  if (revolute) return rotor(a, q);
  return translator(q * a);
}

/// exp(-V/2) for any twist V = w I3 + v ei (the motor of moving with the constant twist V
/// for unit time). With phi = |w|/2, sinc = sin(phi)/phi and v = v_par + v_perp along / across w
/// (v_par commutes with w I3, v_perp anticommutes):
///   exp(-V/2) = cos phi - sinc/2 w I3 - 1/2 (cos phi v_par + sinc v_perp) ei + sinc/4 (w.v) e123i.
template <class T> SP_HD Motor<T> motor_exp(const Twist<T>& V) {
  using std::cos;  // unqualified calls: a number type's own sqrt, sin, cos by argument-dependent lookup
  using std::sin;  // (math/dual.hpp; a Dual's tangents through sqrt are not finite at w = 0)
  using std::sqrt;
  const Vec3<T> w{V.c[0], -V.c[1], V.c[2]}, v{V.c[3], V.c[4], V.c[5]};
  const T th2 = dot(w, w), wv = dot(w, v);
  const T phi = T(0.5) * sqrt(th2);
  T cs, sinc, k;  // k = (cos phi - sinc) / th2, so that cos phi v_par + sinc v_perp = sinc v + k (w.v) w
  cs = cos(phi);
  if (phi < T(1e-4)) {
    const T p2 = phi * phi;
    sinc = T(1) - p2 / T(6) + p2 * p2 / T(120);
    k = (T(-1) / T(12)) * (T(1) - p2 / T(10));
  } else {
    sinc = sin(phi) / phi;
    k = (cs - sinc) / th2;
  }
  const T hs = T(0.5) * sinc;
  const Vec3<T> t = sinc * v + (k * wv) * w;  // cos phi v_par + sinc v_perp
  return {cs, -hs * V.c[0], -hs * V.c[1], -hs * V.c[2], T(-0.5) * t.x, T(-0.5) * t.y, T(-0.5) * t.z,
          T(0.25) * sinc * wv};
}

/// The 3x3 rotation matrix of the rotor part of M (x' = R x for vectors). With the
/// quaternion (w, x, y, z) = (s, -e23, e13, -e12) this is small.hpp's rotation().
template <class T> SP_HD Mat3<T> motor_rotation(const Motor<T>& m) {
  return rotation(Quat<T>{m.s, -m.e23, m.e13, -m.e12});
}

/// The translation p of M = T(p) R: p ei = -2 <M_ei ~R>_2 with M_ei the ei-part of M.
template <class T> SP_HD Vec3<T> motor_translation(const Motor<T>& m) {
  return {T(-2) * (m.e1i * m.s + m.e2i * m.e12 + m.e3i * m.e13 + m.e123i * m.e23),
          T(2) * (m.e1i * m.e12 - m.e2i * m.s - m.e3i * m.e23 + m.e123i * m.e13),
          T(2) * (m.e1i * m.e13 + m.e2i * m.e23 - m.e3i * m.s - m.e123i * m.e12)};
}

/// The motor T(p) R(A) of the rigid motion x -> A x + p (A a rotation matrix; its rotor
/// by Shepperd's method, the sign with s >= 0 chosen).
template <class T> SP_HD Motor<T> motor_from_rt(const Mat3<T>& A, const Vec3<T>& p) {
  using std::sqrt;  // unqualified calls: a number type's own sqrt by argument-dependent lookup (math/dual.hpp)
  const T tr = A.m[0][0] + A.m[1][1] + A.m[2][2];
  T w, x, y, z;
  if (tr > A.m[0][0] && tr > A.m[1][1] && tr > A.m[2][2]) {
    const T r = sqrt(T(1) + tr), h = T(0.5) / r;
    w = T(0.5) * r;
    x = (A.m[2][1] - A.m[1][2]) * h;
    y = (A.m[0][2] - A.m[2][0]) * h;
    z = (A.m[1][0] - A.m[0][1]) * h;
  } else if (A.m[0][0] >= A.m[1][1] && A.m[0][0] >= A.m[2][2]) {
    const T r = sqrt(T(1) + A.m[0][0] - A.m[1][1] - A.m[2][2]), h = T(0.5) / r;
    x = T(0.5) * r;
    w = (A.m[2][1] - A.m[1][2]) * h;
    y = (A.m[0][1] + A.m[1][0]) * h;
    z = (A.m[0][2] + A.m[2][0]) * h;
  } else if (A.m[1][1] >= A.m[2][2]) {
    const T r = sqrt(T(1) - A.m[0][0] + A.m[1][1] - A.m[2][2]), h = T(0.5) / r;
    y = T(0.5) * r;
    w = (A.m[0][2] - A.m[2][0]) * h;
    x = (A.m[0][1] + A.m[1][0]) * h;
    z = (A.m[1][2] + A.m[2][1]) * h;
  } else {
    const T r = sqrt(T(1) - A.m[0][0] - A.m[1][1] + A.m[2][2]), h = T(0.5) / r;
    z = T(0.5) * r;
    w = (A.m[1][0] - A.m[0][1]) * h;
    x = (A.m[0][2] + A.m[2][0]) * h;
    y = (A.m[1][2] + A.m[2][1]) * h;
  }
  if (w < T(0)) { w = -w; x = -x; y = -y; z = -z; }
  const T s = w, r23 = -x, r13 = y, r12 = -z;
  // T(p) R expanded: the ei-part is -1/2 p ei R.
  const T h = T(0.5);
  return {s,
          r23,
          r13,
          r12,
          h * (-p.x * s + p.y * r12 + p.z * r13),
          h * (-p.x * r12 - p.y * s + p.z * r23),
          h * (-p.x * r13 - p.y * r23 - p.z * s),
          h * (-p.x * r23 + p.y * r13 - p.z * r12)};
}

/// The point x moved by M: the Euclidean part of M X ~M for the conformal point
/// X = e0 + x + x^2/2 ei, i.e. R x + p.
template <class T> SP_HD Vec3<T> motor_apply_point(const Motor<T>& m, const Vec3<T>& x) {
  return mul(motor_rotation(m), x) + motor_translation(m);
}

namespace detail {
/// R B ~R for the Euclidean bivector B = b23 e23 + b13 e13 + b12 e12 and the rotor part
/// R = s + r23 e23 + r13 e13 + r12 e12 of a unit motor: two products in the
/// quaternion-like subalgebra {1, e23, e13, e12} (the scalar of the result is zero).
template <class T> SP_HD void rotor_sandwich(const Motor<T>& m, T b23, T b13, T b12, T& o23, T& o13, T& o12) {
  // P = R B
  const T ps = -(m.e23 * b23 + m.e13 * b13 + m.e12 * b12);
  const T p23 = m.s * b23 + m.e13 * b12 - m.e12 * b13;
  const T p13 = m.s * b13 + m.e12 * b23 - m.e23 * b12;
  const T p12 = m.s * b12 + m.e23 * b13 - m.e13 * b23;
  // P ~R, ~R = (s, -r23, -r13, -r12)
  o23 = -ps * m.e23 + p23 * m.s - p13 * m.e12 + p12 * m.e13;
  o13 = -ps * m.e13 + p13 * m.s - p12 * m.e23 + p23 * m.e12;
  o12 = -ps * m.e12 + p12 * m.s - p23 * m.e13 + p13 * m.e23;
}
}  // namespace detail

/// M V ~M for a unit motor M = T(p) R and a twist V (exact, stays a twist):
/// R rotates the Euclidean bivector part, and the ei part v ei through the bivector v I3
/// (R commutes with I3 and ei; v I3 has the coefficients (v1, -v2, v3)), then T adds the
/// contraction of the rotated angular part with p to the ei part: v' += p x w'.
template <class T> SP_HD Twist<T> sandwich(const Motor<T>& m, const Twist<T>& V) {
  Twist<T> r;
  detail::rotor_sandwich(m, V.c[0], V.c[1], V.c[2], r.c[0], r.c[1], r.c[2]);
  T a, b, c;
  detail::rotor_sandwich(m, V.c[3], -V.c[4], V.c[5], a, b, c);
  const Vec3<T> p = motor_translation(m);
  r.c[3] = a + p.y * r.c[2] + p.z * r.c[1];
  r.c[4] = -b + p.z * r.c[0] - p.x * r.c[2];
  r.c[5] = c - p.x * r.c[1] - p.y * r.c[0];
  return r;
}

/// M W ~M for a unit motor and a wrench, the e_k ei parts dropped (file comment):
/// R rotates both parts, then T adds p ^ f' to the moment part.
template <class T> SP_HD Wrench<T> sandwich(const Motor<T>& m, const Wrench<T>& W) {
  Wrench<T> r;
  T b23, b13, b12, a, b, c;
  detail::rotor_sandwich(m, W.c[0], W.c[1], W.c[2], b23, b13, b12);
  detail::rotor_sandwich(m, W.c[3], -W.c[4], W.c[5], a, b, c);
  r.c[3] = a;
  r.c[4] = -b;
  r.c[5] = c;
  const Vec3<T> p = motor_translation(m);
  r.c[0] = b23 + p.y * r.c[5] - p.z * r.c[4];
  r.c[1] = b13 + p.x * r.c[5] - p.z * r.c[3];
  r.c[2] = b12 + p.x * r.c[4] - p.y * r.c[3];
  return r;
}

/// Commutator product V x U = (V U - U V)/2 of two twists (paper eq. 10-11), a twist.
/// Equals minus the spatial motion cross product crm(V) U (the minus from exp(-V/2)).
template <class T> SP_HD Twist<T> commutator(const Twist<T>& V, const Twist<T>& U) {
  const T* v = V.c;
  const T* u = U.c;
  return {{v[1] * u[2] - v[2] * u[1], v[2] * u[0] - v[0] * u[2], v[0] * u[1] - v[1] * u[0],
           v[2] * u[4] + v[1] * u[5] - v[4] * u[2] - v[5] * u[1],
           v[3] * u[2] - v[2] * u[3] + v[0] * u[5] - v[5] * u[0],
           v[3] * u[1] - v[1] * u[3] + v[4] * u[0] - v[0] * u[4]}};
}

/// Commutator product V x W of a twist and a wrench, the e_k ei parts dropped: a wrench.
/// Equals minus the spatial force cross product crf(V) W.
template <class T> SP_HD Wrench<T> commutator(const Twist<T>& V, const Wrench<T>& W) {
  const T* v = V.c;
  const T* w = W.c;
  return {{v[1] * w[2] - v[2] * w[1] + v[5] * w[4] - v[4] * w[5],
           v[2] * w[0] - v[0] * w[2] + v[5] * w[3] - v[3] * w[5],
           v[0] * w[1] - v[1] * w[0] + v[4] * w[3] - v[3] * w[4],
           v[2] * w[4] + v[1] * w[5], v[0] * w[5] - v[2] * w[3], -v[1] * w[3] - v[0] * w[4]}};
}

}  // namespace cga
}  // namespace simphant
