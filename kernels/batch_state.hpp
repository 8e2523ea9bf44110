#pragma once
// Structure-of-arrays access to the batched state (kernels/batch_buffers.hpp):
// element e of instance i at a[e * n + i]; Y's elements in the layout of formulas/state.hpp
// (r, p of body k at 7k..7k+6; v, omega_B at 7N + 6k ..).
#include <cstddef>

#include "simphant/joints/joint_math.hpp"

namespace simphant::batch {

template <class T>
SP_HD T& soa(T* a, int e, int n, int i) { return a[static_cast<std::size_t>(e) * n + i]; }
template <class T>
SP_HD T soa(const T* a, int e, int n, int i) { return a[static_cast<std::size_t>(e) * n + i]; }

/// Row r of instance i's solved right-hand side (BatchBuffers::rhs): (n, m) per
/// instance when lambda_soa is 0 (cuSOLVER), (m, n) structure of arrays otherwise.
template <class T>
SP_HD T lambda_at(const T* lambda, int lambda_soa, int m, int n, int i, int r) {
  return lambda_soa ? lambda[static_cast<std::size_t>(r) * n + i] : lambda[static_cast<std::size_t>(i) * m + r];
}

/// Quaternion of body k, as stored (not normalised).
template <class T>
SP_HD Quat<T> soa_quat(const T* y, int n, int i, int k) {
  return {soa(y, 7 * k + 3, n, i), soa(y, 7 * k + 4, n, i), soa(y, 7 * k + 5, n, i), soa(y, 7 * k + 6, n, i)};
}

/// Kinematics of body k of instance i (k < 0: ground); quaternion normalised for A, as
/// the CPU reference's set_kinematics does.
template <class T>
SP_HD BodyKin<T> soa_body_kin(const T* y, int n, int i, int N, int k) {
  if (k < 0) return ground_kin<T>();
  const Vec3<T> r = {soa(y, 7 * k, n, i), soa(y, 7 * k + 1, n, i), soa(y, 7 * k + 2, n, i)};
  const int o = 7 * N + 6 * k;
  const Vec3<T> v = {soa(y, o, n, i), soa(y, o + 1, n, i), soa(y, o + 2, n, i)};
  const Vec3<T> w = {soa(y, o + 3, n, i), soa(y, o + 4, n, i), soa(y, o + 5, n, i)};
  return make_body_kin(r, normalized(soa_quat(y, n, i, k)), v, w);
}

}  // namespace simphant::batch
