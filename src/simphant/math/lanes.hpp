#pragma once
// Lanes<S, W>: W independent instances' values of one scalar S (double or float) in one
// SIMD vector, the scalar type T with which the batched CPU path (backend `cpu-simd`,
// docs/performance.md) runs the kernels' per-thread functions: instance i of a batch is
// lane i % W of group i / W, and a structure-of-arrays buffer of S with the instance
// count padded to a multiple of W is, read as Lanes, the same buffer with n / W
// "instances" (element e of group g at a[e * (n / W) + g]).
//
// A GCC/Clang vector extension (no intrinsics), so one source serves every x86-64 level:
// the functions that run it are compiled for several targets and picked at run time
// (target_clones), and the same type lowers to SSE2, AVX2 or AVX-512 there. Arithmetic
// is lane-wise IEEE, the same operations in the same order as the scalar code, so each
// lane equals the scalar result up to the contraction of a * b + c into an FMA.
// Comparisons give a LaneMask; lane_select / lane_all / lane_any / lane_isfinite
// (math/lane_ops.hpp for scalars) replace branches on values. Host only.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// Lane count of the CPU batched path for scalar S: 8 doubles or 16 floats (one
/// AVX-512 register, two AVX2 registers, four SSE2 registers).
template <class S>
constexpr int kSimdLanes = 64 / static_cast<int>(sizeof(S));

template <class S, int W>
struct alignas(sizeof(S) * W) LaneMask {
  using I = std::conditional_t<sizeof(S) == 8, std::int64_t, std::int32_t>;
  typedef I V __attribute__((vector_size(sizeof(I) * W), aligned(sizeof(I) * W)));
  V v;  ///< -1 where true, 0 where false
};

// Aligned to its size explicitly: GCC otherwise aligns a vector type to what the
// compiling target supports (16 bytes for SSE2, 64 inside an AVX-512 clone), and code of
// two targets would disagree on the layout of the same buffers and structs.
template <class S, int W>
struct alignas(sizeof(S) * W) Lanes {
  static_assert(std::is_floating_point_v<S>, "Lanes of float or double");
  typedef S V __attribute__((vector_size(sizeof(S) * W), aligned(sizeof(S) * W)));
  static constexpr int width = W;
  using scalar = S;
  V v;

  Lanes() = default;
  /// Every lane x (T(0.5), T(2) and static_cast<T>(x) in the shared math).
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>
  Lanes(A x) : v(static_cast<S>(x) - V{}) {}  // NOLINT(google-explicit-constructor): a scalar broadcasts
  static Lanes of(V x) {
    Lanes r;
    r.v = x;
    return r;
  }
  S operator[](int l) const { return v[l]; }
  void set(int l, S x) { v[l] = x; }

  Lanes& operator+=(const Lanes& b) { v += b.v; return *this; }
  Lanes& operator-=(const Lanes& b) { v -= b.v; return *this; }
  Lanes& operator*=(const Lanes& b) { v *= b.v; return *this; }
  Lanes& operator/=(const Lanes& b) { v /= b.v; return *this; }
};

template <class S, int W>
struct LaneScalar<Lanes<S, W>> {
  using type = S;
};

template <class S, int W> inline Lanes<S, W> operator+(Lanes<S, W> a, Lanes<S, W> b) { return Lanes<S, W>::of(a.v + b.v); }
template <class S, int W> inline Lanes<S, W> operator-(Lanes<S, W> a, Lanes<S, W> b) { return Lanes<S, W>::of(a.v - b.v); }
template <class S, int W> inline Lanes<S, W> operator*(Lanes<S, W> a, Lanes<S, W> b) { return Lanes<S, W>::of(a.v * b.v); }
template <class S, int W> inline Lanes<S, W> operator/(Lanes<S, W> a, Lanes<S, W> b) { return Lanes<S, W>::of(a.v / b.v); }
template <class S, int W> inline Lanes<S, W> operator-(Lanes<S, W> a) { return Lanes<S, W>::of(-a.v); }
// A scalar on either side broadcasts (2.0 * x, x / 6.0).
#define SP_LANES_SCALAR_OP(op)                                                                    \
  template <class S, int W, class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>           \
  inline Lanes<S, W> operator op(Lanes<S, W> a, A b) { return a op Lanes<S, W>(b); }              \
  template <class S, int W, class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>           \
  inline Lanes<S, W> operator op(A a, Lanes<S, W> b) { return Lanes<S, W>(a) op b; }
SP_LANES_SCALAR_OP(+)
SP_LANES_SCALAR_OP(-)
SP_LANES_SCALAR_OP(*)
SP_LANES_SCALAR_OP(/)
#undef SP_LANES_SCALAR_OP

#define SP_LANES_CMP(op)                                                                          \
  template <class S, int W> inline LaneMask<S, W> operator op(Lanes<S, W> a, Lanes<S, W> b) {      \
    return {a.v op b.v};                                                                          \
  }                                                                                               \
  template <class S, int W, class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>           \
  inline LaneMask<S, W> operator op(Lanes<S, W> a, A b) { return a op Lanes<S, W>(b); }           \
  template <class S, int W, class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>           \
  inline LaneMask<S, W> operator op(A a, Lanes<S, W> b) { return Lanes<S, W>(a) op b; }
SP_LANES_CMP(<)
SP_LANES_CMP(<=)
SP_LANES_CMP(>)
SP_LANES_CMP(>=)
SP_LANES_CMP(==)
SP_LANES_CMP(!=)
#undef SP_LANES_CMP

template <class S, int W> inline LaneMask<S, W> operator&&(LaneMask<S, W> a, LaneMask<S, W> b) { return {a.v & b.v}; }
template <class S, int W> inline LaneMask<S, W> operator||(LaneMask<S, W> a, LaneMask<S, W> b) { return {a.v | b.v}; }
template <class S, int W> inline LaneMask<S, W> operator!(LaneMask<S, W> a) { return {~a.v}; }

template <class S, int W>
inline Lanes<S, W> lane_select(LaneMask<S, W> mask, Lanes<S, W> a, Lanes<S, W> b) {
  return Lanes<S, W>::of(mask.v ? a.v : b.v);
}
template <class S, int W>
inline bool lane_all(LaneMask<S, W> mask) {
  for (int l = 0; l < W; ++l)
    if (!mask.v[l]) return false;
  return true;
}
template <class S, int W>
inline bool lane_any(LaneMask<S, W> mask) {
  for (int l = 0; l < W; ++l)
    if (mask.v[l]) return true;
  return false;
}
template <class S, int W>
inline Lanes<S, W> lane_abs(Lanes<S, W> x) {
  return Lanes<S, W>::of(x.v < S(0) ? -x.v : x.v);
}
template <class S, int W>
inline Lanes<S, W> lane_min(Lanes<S, W> a, Lanes<S, W> b) {
  return Lanes<S, W>::of(a.v < b.v ? a.v : b.v);
}
template <class S, int W>
inline Lanes<S, W> lane_max(Lanes<S, W> a, Lanes<S, W> b) {
  return Lanes<S, W>::of(a.v > b.v ? a.v : b.v);
}
/// Finite: |x| below infinity (false for NaN and +-inf).
template <class S, int W>
inline LaneMask<S, W> lane_isfinite(Lanes<S, W> x) {
  return lane_abs(x) < Lanes<S, W>(std::numeric_limits<S>::infinity());
}
/// Lane-wise correctly rounded square root (the compiler's vector sqrt; a loop over the
/// lanes that it turns into one instruction where the target has it).
template <class S, int W>
inline Lanes<S, W> lane_sqrt(Lanes<S, W> x) {
  Lanes<S, W> r;
  for (int l = 0; l < W; ++l) r.v[l] = std::sqrt(x.v[l]);
  return r;
}
/// f applied to each lane (transcendental functions: sin, cos, atan2 of one lane at a time).
template <class S, int W, class F>
inline Lanes<S, W> lane_map(Lanes<S, W> x, F f) {
  Lanes<S, W> r;
  for (int l = 0; l < W; ++l) r.v[l] = f(x.v[l]);
  return r;
}

}  // namespace simphant
