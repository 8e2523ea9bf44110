#pragma once
// State vector layout (docs/solver.md, State and coordinates): Y = [q, qdot] with
//   q    (7N): per body r (3, W) then p (4, w x y z)       -> q[7k .. 7k+6]
//   qdot (6N): per body v (3, W) then omega (3, B)          -> Y[7N + 6k .. 7N + 6k + 5]
// The recorded /state layout is per body 13 numbers: r, p, v, omega_B.
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

template <class T>
SP_HD Vec3<T> state_r(const T* Y, int k) { return {Y[7 * k], Y[7 * k + 1], Y[7 * k + 2]}; }
template <class T>
SP_HD Quat<T> state_p(const T* Y, int k) { return {Y[7 * k + 3], Y[7 * k + 4], Y[7 * k + 5], Y[7 * k + 6]}; }
template <class T>
SP_HD Vec3<T> state_v(const T* Y, int n_bodies, int k) {
  const T* v = Y + 7 * n_bodies + 6 * k;
  return {v[0], v[1], v[2]};
}
template <class T>
SP_HD Vec3<T> state_omega(const T* Y, int n_bodies, int k) {
  const T* w = Y + 7 * n_bodies + 6 * k + 3;
  return {w[0], w[1], w[2]};
}

/// Kinematics of body k (kGround = -1 gives the ground).
template <class T>
SP_HD BodyKin<T> state_body_kin(const T* Y, int n_bodies, int k) {
  if (k < 0) return ground_kin<T>();
  return make_body_kin(state_r(Y, k), state_p(Y, k), state_v(Y, n_bodies, k), state_omega(Y, n_bodies, k));
}

/// Copies Y into the recorded per-body layout out[13 k + ...] = r, p, v, omega_B.
template <class T>
SP_HD void state_to_record(const T* Y, int n_bodies, T* out) {
  for (int k = 0; k < n_bodies; ++k) {
    for (int c = 0; c < 7; ++c) out[13 * k + c] = Y[7 * k + c];
    for (int c = 0; c < 6; ++c) out[13 * k + 7 + c] = Y[7 * n_bodies + 6 * k + c];
  }
}

}  // namespace simphant
