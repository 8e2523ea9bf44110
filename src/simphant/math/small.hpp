#pragma once
// Small fixed-size vector, matrix and quaternion types shared by the CPU path and
// CUDA kernels. Plain aggregates (no constructors) so they live in registers and in
// structure-of-arrays device memory alike. Scalar T is double (fp64) or float (fp32).
//
// Conventions (docs/solver.md, State and coordinates): a quaternion p = (w, x, y, z)
// rotates body frame B to world W; A(p) is the 3x3 rotation matrix with x_W = A x_B.
// Mat3 is row-major: m[r][c].
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

template <class T>
struct Vec3 {
  T x, y, z;
  SP_HD T& operator[](int k) { return k == 0 ? x : (k == 1 ? y : z); }
  SP_HD const T& operator[](int k) const { return k == 0 ? x : (k == 1 ? y : z); }
};

template <class T>
struct Mat3 {
  T m[3][3];
};

/// Unit quaternion (w, x, y, z), body-to-world.
template <class T>
struct Quat {
  T w, x, y, z;
};

using Vec3d = Vec3<double>;
using Mat3d = Mat3<double>;
using Quatd = Quat<double>;

template <class T> SP_HD Vec3<T> operator+(const Vec3<T>& a, const Vec3<T>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> SP_HD Vec3<T> operator-(const Vec3<T>& a, const Vec3<T>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> SP_HD Vec3<T> operator-(const Vec3<T>& a) { return {-a.x, -a.y, -a.z}; }
template <class T> SP_HD Vec3<T> operator*(T s, const Vec3<T>& a) { return {s * a.x, s * a.y, s * a.z}; }
template <class T> SP_HD Vec3<T>& operator+=(Vec3<T>& a, const Vec3<T>& b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
template <class T> SP_HD Vec3<T>& operator-=(Vec3<T>& a, const Vec3<T>& b) { a.x -= b.x; a.y -= b.y; a.z -= b.z; return a; }

template <class T> SP_HD T dot(const Vec3<T>& a, const Vec3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> SP_HD Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> SP_HD T norm(const Vec3<T>& a) { return lane_sqrt(dot(a, a)); }
template <class T> SP_HD Vec3<T> zero3() { return {T(0), T(0), T(0)}; }

/// y = A x
template <class T> SP_HD Vec3<T> mul(const Mat3<T>& A, const Vec3<T>& x) {
  return {A.m[0][0] * x.x + A.m[0][1] * x.y + A.m[0][2] * x.z,
          A.m[1][0] * x.x + A.m[1][1] * x.y + A.m[1][2] * x.z,
          A.m[2][0] * x.x + A.m[2][1] * x.y + A.m[2][2] * x.z};
}
/// y = A^T x
template <class T> SP_HD Vec3<T> mul_t(const Mat3<T>& A, const Vec3<T>& x) {
  return {A.m[0][0] * x.x + A.m[1][0] * x.y + A.m[2][0] * x.z,
          A.m[0][1] * x.x + A.m[1][1] * x.y + A.m[2][1] * x.z,
          A.m[0][2] * x.x + A.m[1][2] * x.y + A.m[2][2] * x.z};
}
template <class T> SP_HD Mat3<T> identity3() {
  return {{{T(1), T(0), T(0)}, {T(0), T(1), T(0)}, {T(0), T(0), T(1)}}};
}

/// Rotation matrix A(p), body to world (docs/solver.md, State and coordinates).
/// Precondition: p has unit length.
template <class T> SP_HD Mat3<T> rotation(const Quat<T>& p) {
  const T w = p.w, x = p.x, y = p.y, z = p.z;
  Mat3<T> A;
  A.m[0][0] = T(1) - T(2) * (y * y + z * z);
  A.m[0][1] = T(2) * (x * y - w * z);
  A.m[0][2] = T(2) * (x * z + w * y);
  A.m[1][0] = T(2) * (x * y + w * z);
  A.m[1][1] = T(1) - T(2) * (x * x + z * z);
  A.m[1][2] = T(2) * (y * z - w * x);
  A.m[2][0] = T(2) * (x * z - w * y);
  A.m[2][1] = T(2) * (y * z + w * x);
  A.m[2][2] = T(1) - T(2) * (x * x + y * y);
  return A;
}

/// Hamilton product a*b.
template <class T> SP_HD Quat<T> qmul(const Quat<T>& a, const Quat<T>& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/// Quaternion rate pdot = 1/2 p * (0, omega_B) for the body-frame angular velocity
/// omega_B (pdot = 1/2 G^T omega).
template <class T> SP_HD Quat<T> quat_rate(const Quat<T>& p, const Vec3<T>& omega_B) {
  const T h = T(0.5);
  return {-h * (p.x * omega_B.x + p.y * omega_B.y + p.z * omega_B.z),
          h * (p.w * omega_B.x + p.y * omega_B.z - p.z * omega_B.y),
          h * (p.w * omega_B.y + p.z * omega_B.x - p.x * omega_B.z),
          h * (p.w * omega_B.z + p.x * omega_B.y - p.y * omega_B.x)};
}

template <class T> SP_HD Quat<T> normalized(const Quat<T>& p) {
  const T n = lane_sqrt(p.w * p.w + p.x * p.x + p.y * p.y + p.z * p.z);
  return {p.w / n, p.x / n, p.y / n, p.z / n};
}

/// Unit quaternion (w >= 0) of a rotation matrix A (body to world, as rotation()); the
/// largest of 4w^2, 4x^2, 4y^2, 4z^2 is the pivot (Shepperd's method), accurate for every
/// rotation. Precondition: A orthonormal with det +1.
template <class T> SP_HD Quat<T> quat_from_rotation(const Mat3<T>& A) {
  const T (&m)[3][3] = A.m;
  const T t[4] = {T(1) + m[0][0] + m[1][1] + m[2][2], T(1) + m[0][0] - m[1][1] - m[2][2],
                  T(1) - m[0][0] + m[1][1] - m[2][2], T(1) - m[0][0] - m[1][1] + m[2][2]};
  int k = 0;
  for (int i = 1; i < 4; ++i)
    if (t[i] > t[k]) k = i;
  using std::sqrt;  // unqualified: a number type's own sqrt by argument-dependent lookup (math/dual.hpp)
  const T s = T(0.5) / sqrt(t[k]);
  Quat<T> p;
  if (k == 0) p = {T(0.25) / s, (m[2][1] - m[1][2]) * s, (m[0][2] - m[2][0]) * s, (m[1][0] - m[0][1]) * s};
  else if (k == 1) p = {(m[2][1] - m[1][2]) * s, T(0.25) / s, (m[0][1] + m[1][0]) * s, (m[0][2] + m[2][0]) * s};
  else if (k == 2) p = {(m[0][2] - m[2][0]) * s, (m[0][1] + m[1][0]) * s, T(0.25) / s, (m[1][2] + m[2][1]) * s};
  else p = {(m[1][0] - m[0][1]) * s, (m[0][2] + m[2][0]) * s, (m[1][2] + m[2][1]) * s, T(0.25) / s};
  if (p.w < T(0)) p = {-p.w, -p.x, -p.y, -p.z};
  return normalized(p);
}

/// Exact rotation by the rotation vector theta (axis * angle, radians) as a quaternion.
template <class T> SP_HD Quat<T> quat_from_rotvec(const Vec3<T>& theta) {
  const T angle = norm(theta);
  if (angle < T(1e-12)) {
    return normalized(Quat<T>{T(1), T(0.5) * theta.x, T(0.5) * theta.y, T(0.5) * theta.z});
  }
  using std::cos;  // unqualified: a number type's own sin / cos by argument-dependent lookup (math/dual.hpp)
  using std::sin;
  const T s = sin(T(0.5) * angle) / angle;
  return {cos(T(0.5) * angle), s * theta.x, s * theta.y, s * theta.z};
}

}  // namespace simphant
