#pragma once
// MotorAction: the linear map B -> M B ~M of a unit motor on twists and wrenches,
// computed once per motor and then applied with 3x3 products instead of geometric
// products (docs/cga-dynamics.md, "The motor as a 6x6 map"). For M = T(p) R:
//   twists  (b = e23/e13/e12 part, v = ei part):  b' = Rb b,  v' = Rv v + K' b'
//   wrenches (b, f = e0 part):                    f' = Rv f,  b' = Rb b + K f'
// with Rv the rotation matrix (on e1, e2, e3), Rb = D Rv D, D = diag(1, -1, 1) (the
// rotor's action on e23, e13, e12: e13 = -e3 I3 flips the middle sign), and the
// translation couplings K f = coefficients of p ^ f, K' b = p x (D b) (translating the
// bivector part, p ^ f and the contraction of p with b). In matrix form, on the 6
// coefficients,  X_tw = [Rb 0; K' Rb Rv],  X_wr = [Rb K Rv; 0 Rv] = X_tw^-T.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/cga/motor.hpp"

namespace simphant {
namespace cga {

template <class T>
struct MotorAction {
  Mat3<T> Rb;  ///< rotor action on (e23, e13, e12) coefficients = D Rv D
  Mat3<T> Rv;  ///< rotor action on (e1, e2, e3) coefficients (the rotation matrix)
  Vec3<T> p;   ///< translation [m]
};

/// The action of the unit motor m: Rv from its rotor, p = motor_translation(m).
template <class T> SP_HD MotorAction<T> motor_action(const Motor<T>& m) {
  MotorAction<T> X;
  X.Rv = motor_rotation(m);
  X.Rb = X.Rv;
  X.Rb.m[0][1] = -X.Rb.m[0][1];
  X.Rb.m[1][0] = -X.Rb.m[1][0];
  X.Rb.m[1][2] = -X.Rb.m[1][2];
  X.Rb.m[2][1] = -X.Rb.m[2][1];
  X.p = motor_translation(m);
  return X;
}

namespace detail {
/// K f: the (e23, e13, e12) coefficients of p ^ f (the moment p x f in wrench coordinates).
template <class T> SP_HD Vec3<T> wedge_pf(const Vec3<T>& p, T f1, T f2, T f3) {
  return {p.y * f3 - p.z * f2, p.x * f3 - p.z * f1, p.x * f2 - p.y * f1};
}
/// K' b: the ei coefficients that translating the bivector b23 e23 + b13 e13 + b12 e12
/// by p adds (p x w for w = (b23, -b13, b12)).
template <class T> SP_HD Vec3<T> contract_pb(const Vec3<T>& p, T b23, T b13, T b12) {
  return {p.y * b12 + p.z * b13, p.z * b23 - p.x * b12, -p.x * b13 - p.y * b23};
}
}  // namespace detail

/// M V ~M (twist, e.g. link -> parent coordinates for M = parent_M_link).
template <class T> SP_HD Twist<T> apply(const MotorAction<T>& X, const Twist<T>& V) {
  const Vec3<T> b = mul(X.Rb, Vec3<T>{V.c[0], V.c[1], V.c[2]});
  const Vec3<T> v = mul(X.Rv, Vec3<T>{V.c[3], V.c[4], V.c[5]}) + detail::contract_pb(X.p, b.x, b.y, b.z);
  return {{b.x, b.y, b.z, v.x, v.y, v.z}};
}

/// ~M V M (twist, parent -> link): undo the translation, then the rotation.
template <class T> SP_HD Twist<T> apply_inverse(const MotorAction<T>& X, const Twist<T>& V) {
  const Vec3<T> b = mul_t(X.Rb, Vec3<T>{V.c[0], V.c[1], V.c[2]});
  const Vec3<T> v = mul_t(X.Rv, Vec3<T>{V.c[3], V.c[4], V.c[5]} - detail::contract_pb(X.p, V.c[0], V.c[1], V.c[2]));
  return {{b.x, b.y, b.z, v.x, v.y, v.z}};
}

/// M W ~M (wrench, link -> parent), e_k ei parts dropped.
template <class T> SP_HD Wrench<T> apply(const MotorAction<T>& X, const Wrench<T>& W) {
  const Vec3<T> f = mul(X.Rv, Vec3<T>{W.c[3], W.c[4], W.c[5]});
  const Vec3<T> b = mul(X.Rb, Vec3<T>{W.c[0], W.c[1], W.c[2]}) + detail::wedge_pf(X.p, f.x, f.y, f.z);
  return {{b.x, b.y, b.z, f.x, f.y, f.z}};
}

/// ~M W M (wrench, parent -> link), e_k ei parts dropped.
template <class T> SP_HD Wrench<T> apply_inverse(const MotorAction<T>& X, const Wrench<T>& W) {
  const Vec3<T> f = mul_t(X.Rv, Vec3<T>{W.c[3], W.c[4], W.c[5]});
  const Vec3<T> b = mul_t(X.Rb, Vec3<T>{W.c[0], W.c[1], W.c[2]} - detail::wedge_pf(X.p, W.c[3], W.c[4], W.c[5]));
  return {{b.x, b.y, b.z, f.x, f.y, f.z}};
}

}  // namespace cga
}  // namespace simphant
