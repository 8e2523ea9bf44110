#pragma once
// Spatial (6D) vector algebra for the reduced-coordinate recursive algorithms (RNEA,
// CRBA, ABA), after Featherstone, Rigid Body Dynamics Algorithms (2008), ch. 2.
// Header-only SP_HD templates on plain aggregates: no Eigen, no heap, no constructors,
// so they compile for CUDA and live in registers. Scalar T is double or float.
//
// Conventions (Featherstone ch. 2, Plücker coordinates):
//  - SpatialMotion m = (ang, lin): angular velocity omega and the velocity of the body
//    point at the frame origin [rad/s, m/s] (or their time derivatives: the *spatial*
//    acceleration, whose linear part is not the classical acceleration of a body point).
//  - SpatialForce f = (ang, lin): moment about the frame origin and force [N m, N].
//  - SpatialTransform X = (E, r) is the transform B_X_A from frame A to frame B
//    (ch. 2): E rotates A coordinates into B coordinates (E = B_R_A,
//    i.e. E = A_R_B^T) and r is B's origin relative to A's origin, A coordinates [m].
//      B_X_A     = [ E, 0; -E r^, E ]          (motion, A -> B)
//      B_X_A^*   = [ E, -E r^; 0, E ]          (force,  A -> B)
//      X^T = A_X_B^* (force, B -> A)       and  X^-1 = A_X_B (motion, B -> A)
//  - RigidInertia (m, h = m c, I_bar): the spatial inertia about the frame origin
//    (eq. 2.63): I = [ I_bar, h^; h^T, m 1 ], I_bar = I_com + m c^ c^T.
//  - ArticulatedInertia: a symmetric 6x6 [ M, H; H^T, L ] (ch. 7), M = M^T, L = L^T.
// Mat3 is row-major m[r][c] (small.hpp).
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/lane_math.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

// ---------------------------------------------------------------------------------
// 3x3 helpers, kept in their own namespace with distinct names so that they can never
// clash with helpers added to small.hpp later.
namespace spatial_detail {

template <class T> SP_HD Mat3<T> m3_add(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = A.m[i][j] + B.m[i][j];
  return C;
}
/// C = A B
template <class T> SP_HD Mat3<T> m3_mul(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = A.m[i][0] * B.m[0][j] + A.m[i][1] * B.m[1][j] + A.m[i][2] * B.m[2][j];
  return C;
}
/// C = A^T B
template <class T> SP_HD Mat3<T> m3_mul_tn(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = A.m[0][i] * B.m[0][j] + A.m[1][i] * B.m[1][j] + A.m[2][i] * B.m[2][j];
  return C;
}
/// E^T S E for a symmetric S; the result is symmetric (upper half computed, mirrored).
template <class T> SP_HD Mat3<T> m3_congruence_sym(const Mat3<T>& E, const Mat3<T>& S) {
  const Mat3<T> SE = m3_mul(S, E);
  Mat3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      C.m[i][j] = E.m[0][i] * SE.m[0][j] + E.m[1][i] * SE.m[1][j] + E.m[2][i] * SE.m[2][j];
      C.m[j][i] = C.m[i][j];
    }
  return C;
}
/// Rotation by `angle` [rad] about the unit axis a (Rodrigues):
/// R = cos 1 + sin a^ + (1 - cos) a a^T.
template <class T> SP_HD Mat3<T> m3_axis_angle(const Vec3<T>& a, T angle) {
  T s, c;
  lane_sincos(angle, s, c);
  const T t = T(1) - c;
  Mat3<T> R;
  R.m[0][0] = c + t * a.x * a.x;
  R.m[1][1] = c + t * a.y * a.y;
  R.m[2][2] = c + t * a.z * a.z;
  const T xy = t * a.x * a.y, xz = t * a.x * a.z, yz = t * a.y * a.z;
  R.m[0][1] = xy - s * a.z;
  R.m[1][0] = xy + s * a.z;
  R.m[0][2] = xz + s * a.y;
  R.m[2][0] = xz - s * a.y;
  R.m[1][2] = yz - s * a.x;
  R.m[2][1] = yz + s * a.x;
  return R;
}

}  // namespace spatial_detail

// ---------------------------------------------------------------------------------
// Spatial vectors (Featherstone ch. 2)

/// Motion vector (angular [rad/s], linear [m/s] at the frame origin), one frame's coordinates.
template <class T>
struct SpatialMotion {
  Vec3<T> ang, lin;
};
/// Force vector (moment about the frame origin [N m], force [N]), one frame's coordinates.
template <class T>
struct SpatialForce {
  Vec3<T> ang, lin;
};

template <class T> SP_HD SpatialMotion<T> operator+(const SpatialMotion<T>& a, const SpatialMotion<T>& b) {
  return {a.ang + b.ang, a.lin + b.lin};
}
template <class T> SP_HD SpatialMotion<T> operator-(const SpatialMotion<T>& a, const SpatialMotion<T>& b) {
  return {a.ang - b.ang, a.lin - b.lin};
}
template <class T> SP_HD SpatialMotion<T> operator*(T s, const SpatialMotion<T>& a) { return {s * a.ang, s * a.lin}; }
template <class T> SP_HD SpatialForce<T> operator+(const SpatialForce<T>& a, const SpatialForce<T>& b) {
  return {a.ang + b.ang, a.lin + b.lin};
}
template <class T> SP_HD SpatialForce<T> operator-(const SpatialForce<T>& a, const SpatialForce<T>& b) {
  return {a.ang - b.ang, a.lin - b.lin};
}
template <class T> SP_HD SpatialForce<T> operator*(T s, const SpatialForce<T>& a) { return {s * a.ang, s * a.lin}; }
template <class T> SP_HD SpatialForce<T>& operator+=(SpatialForce<T>& a, const SpatialForce<T>& b) {
  a.ang += b.ang;
  a.lin += b.lin;
  return a;
}

template <class T> SP_HD SpatialMotion<T> zero_motion() { return {zero3<T>(), zero3<T>()}; }
template <class T> SP_HD SpatialForce<T> zero_force() { return {zero3<T>(), zero3<T>()}; }

/// Scalar product m . f = power [W]; both in the same frame.
template <class T> SP_HD T spatial_dot(const SpatialMotion<T>& m, const SpatialForce<T>& f) {
  return dot(m.ang, f.ang) + dot(m.lin, f.lin);
}

/// v x m (motion cross product crm, ch. 2): (w x mw, w x mv + v x mw) for v = (w, v).
template <class T> SP_HD SpatialMotion<T> crm(const SpatialMotion<T>& v, const SpatialMotion<T>& m) {
  return {cross(v.ang, m.ang), cross(v.ang, m.lin) + cross(v.lin, m.ang)};
}
/// v x* f (force cross product crf = -crm^T, ch. 2): (w x n + v x f, w x f).
template <class T> SP_HD SpatialForce<T> crf(const SpatialMotion<T>& v, const SpatialForce<T>& f) {
  return {cross(v.ang, f.ang) + cross(v.lin, f.lin), cross(v.ang, f.lin)};
}

// ---------------------------------------------------------------------------------
// Plücker transforms (Featherstone ch. 2, stored in the (E, r) form)

/// B_X_A stored as (E, r); see the file comment for the meaning of E and r.
template <class T>
struct SpatialTransform {
  Mat3<T> E;  ///< rotation, A coordinates -> B coordinates
  Vec3<T> r;  ///< B's origin relative to A's, A coordinates [m]
};

template <class T> SP_HD SpatialTransform<T> identity_transform() { return {identity3<T>(), zero3<T>()}; }

/// X m: motion A -> B = (E w, E (v - r x w)).
template <class T> SP_HD SpatialMotion<T> apply(const SpatialTransform<T>& X, const SpatialMotion<T>& m) {
  return {mul(X.E, m.ang), mul(X.E, m.lin - cross(X.r, m.ang))};
}
/// X^-1 m: motion B -> A = (E^T w, E^T v + r x E^T w).
template <class T> SP_HD SpatialMotion<T> apply_inverse(const SpatialTransform<T>& X, const SpatialMotion<T>& m) {
  const Vec3<T> w = mul_t(X.E, m.ang);
  return {w, mul_t(X.E, m.lin) + cross(X.r, w)};
}
/// X^* f: force A -> B = (E (n - r x f), E f).
template <class T> SP_HD SpatialForce<T> apply_force(const SpatialTransform<T>& X, const SpatialForce<T>& f) {
  return {mul(X.E, f.ang - cross(X.r, f.lin)), mul(X.E, f.lin)};
}
/// X^T f: force B -> A = (E^T n + r x E^T f, E^T f) (X^T = (X^-1)^*).
template <class T> SP_HD SpatialForce<T> apply_transpose(const SpatialTransform<T>& X, const SpatialForce<T>& f) {
  const Vec3<T> fl = mul_t(X.E, f.lin);
  return {mul_t(X.E, f.ang) + cross(X.r, fl), fl};
}
/// C_X_A = C_X_B * B_X_A (X2 = C_X_B, X1 = B_X_A): (E2 E1, r1 + E1^T r2).
template <class T> SP_HD SpatialTransform<T> compose(const SpatialTransform<T>& X2, const SpatialTransform<T>& X1) {
  return {spatial_detail::m3_mul(X2.E, X1.E), X1.r + mul_t(X1.E, X2.r)};
}
/// A_X_B = (B_X_A)^-1 = (E^T, -E r).
template <class T> SP_HD SpatialTransform<T> inverse(const SpatialTransform<T>& X) {
  Mat3<T> Et;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Et.m[i][j] = X.E.m[j][i];
  return {Et, -mul(X.E, X.r)};
}

// ---------------------------------------------------------------------------------
// Rigid-body inertia (Featherstone ch. 2, eq. 2.63)

/// Spatial inertia of a rigid body about a frame origin, in that frame's coordinates.
template <class T>
struct RigidInertia {
  T m;          ///< mass [kg]
  Vec3<T> h;    ///< first moment m c [kg m], c = CoM in this frame
  Mat3<T> Ibar; ///< rotational inertia about the frame origin [kg m^2], symmetric
};

/// From mass [kg], CoM c [m] and inertia about the CoM I_com [kg m^2] (same frame axes):
/// I_bar = I_com + m (|c|^2 1 - c c^T).
template <class T> SP_HD RigidInertia<T> rigid_inertia(T m, const Vec3<T>& c, const Mat3<T>& I_com) {
  RigidInertia<T> I;
  I.m = m;
  I.h = m * c;
  const T cc = dot(c, c);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) I.Ibar.m[i][j] = I_com.m[i][j] + m * ((i == j ? cc : T(0)) - c[i] * c[j]);
  return I;
}

/// I v = (I_bar w + h x v, m v - h x w): momentum of the body moving with v [N m s, N s].
template <class T> SP_HD SpatialForce<T> mul(const RigidInertia<T>& I, const SpatialMotion<T>& v) {
  return {mul(I.Ibar, v.ang) + cross(I.h, v.lin), I.m * v.lin - cross(I.h, v.ang)};
}

template <class T> SP_HD RigidInertia<T>& operator+=(RigidInertia<T>& a, const RigidInertia<T>& b) {
  a.m += b.m;
  a.h += b.h;
  a.Ibar = spatial_detail::m3_add(a.Ibar, b.Ibar);
  return a;
}

/// X^T I X: the inertia I given in B coordinates, expressed in A (X = B_X_A):
///   m' = m, h' = g + m r, I_bar' = E^T I_bar E - r^ g^ - g^ r^ - m r^ r^ with g = E^T h
/// (derived from I = [I_bar, h^; h^T, m 1]); a^ b^ = b a^T - (a.b) 1 keeps it symmetric.
template <class T>
SP_HD RigidInertia<T> transform_transpose(const SpatialTransform<T>& X, const RigidInertia<T>& I) {
  RigidInertia<T> J;
  J.m = I.m;
  const Vec3<T> g = mul_t(X.E, I.h);
  const Vec3<T>& r = X.r;
  J.h = g + I.m * r;
  const Mat3<T> R = spatial_detail::m3_congruence_sym(X.E, I.Ibar);
  // -(r^ g^ + g^ r^) - m r^ r^ = -(g r^T + r g^T) + 2 (r.g) 1 - m (r r^T - (r.r) 1)
  const T diag = T(2) * dot(r, g) + I.m * dot(r, r);
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      T v = R.m[i][j] - g[i] * r[j] - r[i] * g[j] - I.m * r[i] * r[j];
      if (i == j) v += diag;
      J.Ibar.m[i][j] = v;
      J.Ibar.m[j][i] = v;
    }
  return J;
}

// ---------------------------------------------------------------------------------
// Articulated-body inertia (Featherstone ch. 7): a symmetric 6x6 [M, H; H^T, L].

template <class T>
struct ArticulatedInertia {
  Mat3<T> M;  ///< angular-angular block [kg m^2], symmetric
  Mat3<T> H;  ///< angular-linear block [kg m]
  Mat3<T> L;  ///< linear-linear block [kg], symmetric
};

/// The rigid inertia as a 6x6: M = I_bar, H = h^, L = m 1 (eq. 2.63).
template <class T> SP_HD ArticulatedInertia<T> articulated(const RigidInertia<T>& I) {
  ArticulatedInertia<T> A;
  A.M = I.Ibar;
  const Vec3<T>& h = I.h;
  A.H = {{{T(0), -h.z, h.y}, {h.z, T(0), -h.x}, {-h.y, h.x, T(0)}}};
  A.L = {{{I.m, T(0), T(0)}, {T(0), I.m, T(0)}, {T(0), T(0), I.m}}};
  return A;
}

/// IA v = (M w + H v, H^T w + L v).
template <class T> SP_HD SpatialForce<T> mul(const ArticulatedInertia<T>& A, const SpatialMotion<T>& v) {
  return {mul(A.M, v.ang) + mul(A.H, v.lin), mul_t(A.H, v.ang) + mul(A.L, v.lin)};
}

template <class T> SP_HD ArticulatedInertia<T>& operator+=(ArticulatedInertia<T>& a, const ArticulatedInertia<T>& b) {
  a.M = spatial_detail::m3_add(a.M, b.M);
  a.H = spatial_detail::m3_add(a.H, b.H);
  a.L = spatial_detail::m3_add(a.L, b.L);
  return a;
}

/// IA - s U U^T for a force-type U = (Ua, Ul) and scalar s (the rank-1 update of ABA,
/// Table 7.1, with s = 1/D for a 1-DoF joint).
template <class T>
SP_HD ArticulatedInertia<T> rank1_sub(const ArticulatedInertia<T>& A, const SpatialForce<T>& U, T s) {
  ArticulatedInertia<T> B;
  for (int i = 0; i < 3; ++i) {
    const T sa = s * U.ang[i], sl = s * U.lin[i];
    for (int j = 0; j < 3; ++j) {
      B.M.m[i][j] = A.M.m[i][j] - sa * U.ang[j];
      B.H.m[i][j] = A.H.m[i][j] - sa * U.lin[j];
      B.L.m[i][j] = A.L.m[i][j] - sl * U.lin[j];
    }
  }
  return B;
}

/// X^T IA X: IA given in B coordinates, expressed in A (X = B_X_A), Table 7.1's
/// "lambda_X_i^* I^a i_X_lambda". With X = diag(E, E) [1, 0; -r^, 1] and the rotated
/// blocks A = E^T M E, B = E^T H E, C = E^T L E:
///   M' = A - B r^ - (B r^)^T - r^ C r^,  H' = B + r^ C,  L' = C.
template <class T>
SP_HD ArticulatedInertia<T> transform_transpose(const SpatialTransform<T>& X, const ArticulatedInertia<T>& IA) {
  using namespace spatial_detail;
  const Mat3<T> A = m3_congruence_sym(X.E, IA.M);
  const Mat3<T> B = m3_mul_tn(X.E, m3_mul(IA.H, X.E));
  const Mat3<T> C = m3_congruence_sym(X.E, IA.L);
  const Vec3<T>& r = X.r;
  ArticulatedInertia<T> out;
  // rC = r^ C: column j is r x c_j.
  Mat3<T> rC;
  for (int j = 0; j < 3; ++j) {
    const Vec3<T> cj{C.m[0][j], C.m[1][j], C.m[2][j]};
    const Vec3<T> x = cross(r, cj);
    rC.m[0][j] = x.x;
    rC.m[1][j] = x.y;
    rC.m[2][j] = x.z;
  }
  // Br = B r^ (row i is b_i x r) and rCr = r^ C r^ (row i is (rC)_i x r).
  Mat3<T> Br, rCr;
  for (int i = 0; i < 3; ++i) {
    const Vec3<T> b = cross(Vec3<T>{B.m[i][0], B.m[i][1], B.m[i][2]}, r);
    const Vec3<T> c = cross(Vec3<T>{rC.m[i][0], rC.m[i][1], rC.m[i][2]}, r);
    for (int j = 0; j < 3; ++j) {
      Br.m[i][j] = b[j];
      rCr.m[i][j] = c[j];
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      out.M.m[i][j] = A.m[i][j] - Br.m[i][j] - Br.m[j][i] - rCr.m[i][j];
      out.H.m[i][j] = B.m[i][j] + rC.m[i][j];
    }
  out.L = C;
  return out;
}

// ---------------------------------------------------------------------------------
// Link transforms and joint subspaces of a ReducedLinkParams (frames: reduced_model.hpp)

/// i_X_parent(q): the Plücker transform from the parent's frame to link `l`'s frame
/// (Featherstone's X_J X_T, ch. 4, for the revolute and prismatic joints),
/// for X_parent_link(q) = (R_parent_joint Rot(axis, q), p_parent_joint) (revolute) or
/// (R_parent_joint, p_parent_joint + R_parent_joint axis q) (prismatic).
/// q in [rad] or [m]. E = Rot(axis, q)^T R_parent_joint^T.
template <class T> SP_HD SpatialTransform<T> link_transform(const ReducedLinkParams<T>& l, T q) {
  SpatialTransform<T> X;
  const Mat3<T>& Rp = l.R_parent_joint;
  if (l.type == static_cast<int>(ReducedJointType::Revolute)) {
    const Mat3<T> Rj = spatial_detail::m3_axis_angle(l.axis, q);
    // E = Rj^T Rp^T: E[i][j] = sum_k Rj[k][i] Rp[j][k]
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        X.E.m[i][j] = Rj.m[0][i] * Rp.m[j][0] + Rj.m[1][i] * Rp.m[j][1] + Rj.m[2][i] * Rp.m[j][2];
    X.r = l.p_parent_joint;
  } else {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) X.E.m[i][j] = Rp.m[j][i];
    X.r = l.p_parent_joint + q * mul(Rp, l.axis);
  }
  return X;
}

/// The spatial inertia of link `l` about its link-frame origin, link coordinates.
template <class T> SP_HD RigidInertia<T> link_inertia(const ReducedLinkParams<T>& l) {
  return rigid_inertia(l.mass, l.com, l.inertia_com);
}

/// S qd: the joint's motion subspace (Featherstone ch. 4: (axis, 0) revolute,
/// (0, axis) prismatic, link coordinates, constant) times a scalar rate s.
template <class T> SP_HD SpatialMotion<T> joint_motion(const ReducedLinkParams<T>& l, T s) {
  if (l.type == static_cast<int>(ReducedJointType::Revolute)) return {s * l.axis, zero3<T>()};
  return {zero3<T>(), s * l.axis};
}

/// S^T f: the joint's component of a force (generalised force [N m] or [N]).
template <class T> SP_HD T joint_force(const ReducedLinkParams<T>& l, const SpatialForce<T>& f) {
  return l.type == static_cast<int>(ReducedJointType::Revolute) ? dot(l.axis, f.ang) : dot(l.axis, f.lin);
}

/// I S for a rigid inertia: (I_bar a, -h x a) revolute, (h x a, m a) prismatic.
template <class T> SP_HD SpatialForce<T> inertia_times_joint(const ReducedLinkParams<T>& l, const RigidInertia<T>& I) {
  const Vec3<T>& a = l.axis;
  if (l.type == static_cast<int>(ReducedJointType::Revolute)) return {mul(I.Ibar, a), -cross(I.h, a)};
  return {cross(I.h, a), I.m * a};
}

/// U = IA S for an articulated inertia: (M a, H^T a) revolute, (H a, L a) prismatic
/// (with a unit coordinate axis this is a column of IA; an oblique axis costs 18 flops).
template <class T>
SP_HD SpatialForce<T> inertia_times_joint(const ReducedLinkParams<T>& l, const ArticulatedInertia<T>& IA) {
  const Vec3<T>& a = l.axis;
  if (l.type == static_cast<int>(ReducedJointType::Revolute)) return {mul(IA.M, a), mul_t(IA.H, a)};
  return {mul(IA.H, a), mul(IA.L, a)};
}

}  // namespace simphant
