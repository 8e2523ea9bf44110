#pragma once
// The CGA inertia tensor (Löw & Calinon §4, eq. 12-19): a linear map from twists to
// wrenches held as six wrench-valued inertia elements I^{e_k}, one per wrench blade
// e_k in (e23, e13, e12, e01, e02, e03):  W = I[V] = -sum_k (I^{e_k} . V) e_k  (eq. 15).
// Since -(e23 . e23) = -(e01 . e1i) = 1, el[k].c[j] is the coefficient that multiplies
// V.c[j] in W.c[k]: a symmetric 6x6 array A (symmetric because the blade pairing is the
// identity in these coordinates). Rigid-body and articulated-body inertias alike.
// Derivation and the cheap transform: docs/cga-dynamics.md.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/cga/motor.hpp"
#include "simphant/reduced/cga/motor_action.hpp"

namespace simphant {
namespace cga {

template <class T>
struct Inertia {
  Wrench<T> el[6];  ///< el[k] = I^{e_k}: (e23, e13, e12, e01, e02, e03) elements [kg m^2 | kg m | kg]
};

/// W = I[V] (eq. 15): W.c[k] = sum_j el[k].c[j] V.c[j].
template <class T> SP_HD Wrench<T> apply(const Inertia<T>& I, const Twist<T>& V) {
  Wrench<T> W;
  for (int k = 0; k < 6; ++k) W.c[k] = power(V, I.el[k]);
  return W;
}

/// I[S] for a joint screw S = joint_screw(revolute, a) (three nonzero coefficients):
/// a combination of three columns, 18 multiplications instead of 36.
template <class T> SP_HD Wrench<T> apply_screw(const Inertia<T>& I, bool revolute, const Vec3<T>& a) {
  Wrench<T> W;
  if (revolute)
    for (int k = 0; k < 6; ++k) W.c[k] = I.el[k].c[0] * a.x - I.el[k].c[1] * a.y + I.el[k].c[2] * a.z;
  else
    for (int k = 0; k < 6; ++k) W.c[k] = I.el[k].c[3] * a.x + I.el[k].c[4] * a.y + I.el[k].c[5] * a.z;
  return W;
}

template <class T> SP_HD Inertia<T>& operator+=(Inertia<T>& a, const Inertia<T>& b) {
  for (int k = 0; k < 6; ++k) a.el[k] += b.el[k];
  return a;
}

/// I - s U (x) U: the element k loses s U_k U (the rank-one update of the ABA). I must
/// be symmetric (every inertia here is); the upper half is computed and mirrored.
template <class T> SP_HD Inertia<T> sub_outer(const Inertia<T>& I, const Wrench<T>& U, T s) {
  Inertia<T> r;
  for (int k = 0; k < 6; ++k) {
    const T f = s * U.c[k];
    for (int j = k; j < 6; ++j) {
      r.el[k].c[j] = I.el[k].c[j] - f * U.c[j];
      r.el[j].c[k] = r.el[k].c[j];
    }
  }
  return r;
}

/// Eq. 18: the inertia of a body of mass m [kg] and rotational inertia Ic [kg m^2] (about
/// its CoM, symmetric) seen from its CoM: I^e23 = ixx e23 - ixy e13 + ixz e12,
/// I^e13 = -ixy e23 + iyy e13 - iyz e12, I^e12 = ixz e23 - iyz e13 + izz e12, I^e0k = m e0k
/// (the signs: the e13 coordinate is -w2 and -n2).
template <class T> SP_HD Inertia<T> inertia_at_com(T m, const Mat3<T>& Ic) {
  Inertia<T> I;
  const T z = T(0);
  I.el[0] = {{Ic.m[0][0], -Ic.m[0][1], Ic.m[0][2], z, z, z}};
  I.el[1] = {{-Ic.m[1][0], Ic.m[1][1], -Ic.m[1][2], z, z, z}};
  I.el[2] = {{Ic.m[2][0], -Ic.m[2][1], Ic.m[2][2], z, z, z}};
  I.el[3] = {{z, z, z, m, z, z}};
  I.el[4] = {{z, z, z, z, m, z}};
  I.el[5] = {{z, z, z, z, z, m}};
  return I;
}

/// Eq. 19, I_CoM = M_CoM * I for the translator M_CoM = T(c), in closed form: with K the
/// map f -> p ^ f for p = c (motor_action.hpp), A11 = D Ic D + m K K^T, A12 = m K,
/// A22 = m 1. m [kg], c [m], Ic [kg m^2] about the CoM, frame axes.
template <class T> SP_HD Inertia<T> body_inertia(T m, const Vec3<T>& c, const Mat3<T>& Ic) {
  Inertia<T> I = inertia_at_com(m, Ic);
  // K = [0 -c3 c2; -c3 0 c1; -c2 c1 0]
  const T K[3][3] = {{T(0), -c.z, c.y}, {-c.z, T(0), c.x}, {-c.y, c.x, T(0)}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      I.el[i].c[j] += m * (K[i][0] * K[j][0] + K[i][1] * K[j][1] + K[i][2] * K[j][2]);
      I.el[i].c[3 + j] = m * K[i][j];
      I.el[3 + j].c[i] = m * K[i][j];
    }
  }
  return I;
}

namespace detail {
template <class T> SP_HD Mat3<T> block(const Inertia<T>& I, int r, int c) {
  Mat3<T> B;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) B.m[i][j] = I.el[r + i].c[c + j];
  return B;
}
/// P A Q^T
template <class T> SP_HD Mat3<T> mul_abt(const Mat3<T>& P, const Mat3<T>& A, const Mat3<T>& Q) {
  Mat3<T> PA, C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) PA.m[i][j] = P.m[i][0] * A.m[0][j] + P.m[i][1] * A.m[1][j] + P.m[i][2] * A.m[2][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = PA.m[i][0] * Q.m[j][0] + PA.m[i][1] * Q.m[j][1] + PA.m[i][2] * Q.m[j][2];
  return C;
}
/// P S P^T for a symmetric S (upper half computed, mirrored).
template <class T> SP_HD Mat3<T> mul_sym(const Mat3<T>& P, const Mat3<T>& S) {
  Mat3<T> PS, C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) PS.m[i][j] = P.m[i][0] * S.m[0][j] + P.m[i][1] * S.m[1][j] + P.m[i][2] * S.m[2][j];
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      C.m[i][j] = PS.m[i][0] * P.m[j][0] + PS.m[i][1] * P.m[j][1] + PS.m[i][2] * P.m[j][2];
      C.m[j][i] = C.m[i][j];
    }
  return C;
}
}  // namespace detail

/// M * I (eq. 16) in closed form: the congruence A' = X_wr A X_wr^T with the motor's
/// wrench map X_wr = [1 K; 0 1] diag(Rb, Rv) (motor_action.hpp), done on 3x3 blocks:
///   B11 = Rb A11 Rb^T, B12 = Rb A12 Rv^T, B22 = Rv A22 Rv^T            (rotation)
///   A22' = B22, A12' = B12 + K B22, A11' = B11 + K G^T + G K^T,  G = B12 + K B22 / 2
/// (translation; K y = p ^ y costs 6 multiplications per column). About 190
/// multiplications (plus about 25 for motor_action, once per motor), against about 790
/// for the 12 sandwich products of eq. 16 as sandwich() evaluates them (66 each) and over
/// 2000 for the sandwiches written as full products on the even subalgebra.
template <class T> SP_HD Inertia<T> transform(const MotorAction<T>& X, const Inertia<T>& I) {
  using namespace detail;
  const Mat3<T> B11 = mul_sym(X.Rb, block(I, 0, 0));
  const Mat3<T> B12 = mul_abt(X.Rb, block(I, 0, 3), X.Rv);
  const Mat3<T> B22 = mul_sym(X.Rv, block(I, 3, 3));
  Inertia<T> r;
  Mat3<T> G;
  for (int j = 0; j < 3; ++j) {
    const Vec3<T> kb = wedge_pf(X.p, B22.m[0][j], B22.m[1][j], B22.m[2][j]);  // column j of K B22
    for (int i = 0; i < 3; ++i) {
      const T a12 = B12.m[i][j] + kb[i];
      G.m[i][j] = B12.m[i][j] + T(0.5) * kb[i];
      r.el[i].c[3 + j] = a12;
      r.el[3 + j].c[i] = a12;
      r.el[3 + i].c[3 + j] = B22.m[i][j];
    }
  }
  Mat3<T> KGt;  // column j of K G^T = K (row j of G)
  for (int j = 0; j < 3; ++j) {
    const Vec3<T> kg = wedge_pf(X.p, G.m[j][0], G.m[j][1], G.m[j][2]);
    KGt.m[0][j] = kg.x;
    KGt.m[1][j] = kg.y;
    KGt.m[2][j] = kg.z;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = i; j < 3; ++j) {
      const T a = B11.m[i][j] + KGt.m[i][j] + KGt.m[j][i];
      r.el[i].c[j] = a;
      r.el[j].c[i] = a;
    }
  return r;
}

/// M * I exactly as the paper's eq. 16 writes it, with 12 sandwich products:
/// (M * I)^{e_j} = M ( sum_k <M I^{e_k} ~M>_{e_j} e_k ) ~M. The reference for transform()
/// (tests, benchmark); the algorithms use transform().
template <class T> SP_HD Inertia<T> transform_sandwich(const Motor<T>& M, const Inertia<T>& I) {
  Wrench<T> Y[6];
  for (int k = 0; k < 6; ++k) Y[k] = sandwich(M, I.el[k]);
  Inertia<T> r;
  for (int j = 0; j < 6; ++j) {
    Wrench<T> Z;
    for (int k = 0; k < 6; ++k) Z.c[k] = Y[k].c[j];
    r.el[j] = sandwich(M, Z);
  }
  return r;
}

}  // namespace cga
}  // namespace simphant
