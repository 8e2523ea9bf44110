#pragma once
// Dual<T, P>: a forward-mode dual number, a value v and P tangents d[0..P-1] (the
// directional derivatives of v along P seeded directions), the number type with which the
// per-thread functions (joints/, reduced/, formulas/, kernels/) compute sensitivities:
// instantiated with T = Dual<double, P> the same code that advances an instance computes,
// alongside each value, its derivatives with respect to whatever was seeded (initial
// state, a link's mass, a joint frame's origin, ...): no second copy of the dynamics.
// tests/test_dual.cpp runs the ABA, CRBA, RNEA, the CGA ABA, the joint rows and the
// joint-space RK4 step this way; tests/test_dual_dae.cpp the maximal-coordinate DAE's
// RK4 step of the `cuda-fused` path (kernels/fused_stage.hpp: joint rows, forces, the
// block-sparse Cholesky of the Schur matrix, the refined solve, projection and commit).
//
// T is double or float (host and CUDA device code), or a SIMD lane vector Lanes<S, W>
// (math/lanes.hpp, host only; then every value and tangent holds W instances).
// P is a compile-time count >= 1. Plain data: trivially copyable, trivial default
// constructor (so it lives in unions such as RobotWorkspace and in device arrays), no
// dynamic memory, no exceptions; every function SP_HD.
//
// Usage: seed with Dual<double, P>::variable(x, k) (value x, tangent k = 1, the others 0)
// or by setting d[k] directly; read y.v (or ad::value(y)) and y.d[k] = dy/d(seed k).
// Dual and its functions live in simphant::ad (simphant::Dual names the type): the <cmath>
// names defined for it (sqrt, sin, atan2, ...) are then found by argument-dependent
// lookup only, and never hide the standard functions of plain numbers in namespace
// simphant. Generic code calls them unqualified after `using std::sqrt;` (a call
// qualified std::sqrt(x) does not compile for a Dual) or through the lane functions of
// math/lane_ops.hpp and reduced/lane_math.hpp, which are overloaded here.
//
// Rules:
//  - Values are computed exactly as the scalar code computes them: every operation's
//    value part is the same IEEE operation on the same operands, in the same order, so
//    the value of f<Dual<double, P>>(x) is bit-identical to f<double>(x) (compiled with
//    the same contraction setting). A plain number next to a Dual is first converted to
//    T, as for Lanes (the shared math writes its constants T(0.5), T(2)).
//  - Comparisons compare values only and return what a comparison of T gives (bool for
//    double / float, a LaneMask for Lanes), so code that branches or selects on values
//    keeps working: the branch taken is that of the value, and the derivatives are those
//    of the branch taken (one-sided at a switching point; lane_min / lane_max / lane_abs /
//    fmin / fmax / clamps take the tangent of the operand whose value they return).
//  - Differentiate the converged solve, not the rounding. A direct factorisation
//    (Cholesky, LDL^T, the ABA's recursion) is a fixed sequence of operations, so its
//    tangents are the exact derivatives of the solution (up to rounding), and nothing
//    special is needed. An iteration stopped by a test on values (Newton, projection,
//    iterative refinement) yields the derivative of the iterate it stopped at, whose
//    tangents may be less converged than its value: where sensitivities of such a
//    solution matter, differentiate its defining equation F(x, p) = 0 at the converged x
//    instead (one extra solve with the converged factorisation:
//    dx = -F_x^-1 F_p dp), rather than the iterations.
//  - Points where a function is not differentiable give what the formula gives: sqrt and
//    hypot at 0, asin / acos at +-1, log at 0 give infinite or NaN tangents (even with zero
//    seeds: 0 * inf = NaN); pow(a, b) with a <= 0 gets no tangent from b (0 by convention).
//    lane_isfinite / isfinite of a Dual test the value and every tangent, so a step whose
//    sensitivities blew up is flagged as the values' non-finite check would flag it.
//  - Rounding, floor and ceil have zero tangents.
//  - A number leaves the differentiable code only through value_of(x) (math/lane_ops.hpp:
//    x itself for a plain number or lane vector, x.v for a Dual, the tangents dropped),
//    called unqualified where the quantity is genuinely not differentiable: an integer
//    field stored as T (formulas/joint_law.hpp, joint_law_from), the double accumulators
//    of the reductions over time (formulas/reductions.hpp). Dual has no conversion to a
//    plain number, so every other such place fails to compile instead of silently
//    dropping the tangents. Branches and status tests need no value_of: comparisons and
//    isfinite already give bool.
#include <cmath>
#include <type_traits>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {
namespace ad {

// The scalar overloads of the lane operations, visible beside this namespace's Dual ones.
using simphant::lane_abs;
using simphant::lane_isfinite;
using simphant::lane_max;
using simphant::lane_min;
using simphant::lane_select;
using simphant::lane_sqrt;
using simphant::value_of;

template <class T, int P>
struct Dual {
  static_assert(P >= 1, "at least one tangent");
  using value_type = T;
  static constexpr int size = P;  ///< number of tangents
  T v;                            ///< value
  T d[P];                         ///< tangents: d[k] = dv/d(seed k)

  Dual() = default;
  /// A constant: value x, zero tangents (T(2), static_cast<T>(x) in the shared math).
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A> || std::is_same_v<A, T>>>
  SP_HD Dual(const A& x) : v(static_cast<T>(x)) {  // NOLINT(google-explicit-constructor): a constant converts
    for (int k = 0; k < P; ++k) d[k] = T(0);
  }
  /// The k-th seeded variable: value x, tangent k = 1, the others 0.
  SP_HD static Dual variable(const T& x, int k) {
    Dual r(x);
    r.d[k] = T(1);
    return r;
  }

  SP_HD Dual& operator+=(const Dual& b) {
    v += b.v;
    for (int k = 0; k < P; ++k) d[k] += b.d[k];
    return *this;
  }
  SP_HD Dual& operator-=(const Dual& b) {
    v -= b.v;
    for (int k = 0; k < P; ++k) d[k] -= b.d[k];
    return *this;
  }
  SP_HD Dual& operator*=(const Dual& b) { return *this = *this * b; }
  SP_HD Dual& operator/=(const Dual& b) { return *this = *this / b; }
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A> || std::is_same_v<A, T>>>
  SP_HD Dual& operator+=(const A& b) {
    v += static_cast<T>(b);
    return *this;
  }
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A> || std::is_same_v<A, T>>>
  SP_HD Dual& operator-=(const A& b) {
    v -= static_cast<T>(b);
    return *this;
  }
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A> || std::is_same_v<A, T>>>
  SP_HD Dual& operator*=(const A& b) {
    const T s = static_cast<T>(b);
    v *= s;
    for (int k = 0; k < P; ++k) d[k] *= s;
    return *this;
  }
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A> || std::is_same_v<A, T>>>
  SP_HD Dual& operator/=(const A& b) {
    const T s = static_cast<T>(b);
    v /= s;
    for (int k = 0; k < P; ++k) d[k] /= s;
    return *this;
  }
};

/// Whether A acts as a constant next to a Dual<T, P>: an arithmetic type or T itself.
template <class A, class T>
constexpr bool kDualScalar = std::is_arithmetic_v<A> || std::is_same_v<A, T>;

template <class X>
struct IsDual : std::false_type {};
template <class T, int P>
struct IsDual<Dual<T, P>> : std::true_type {};
/// The number of tangents of X: P for a Dual<T, P>, 0 for a plain number or lane vector.
template <class X>
constexpr int kTangents = 0;
template <class T, int P>
constexpr int kTangents<Dual<T, P>> = P;

/// The value of x (x itself for a plain number).
template <class T, int P>
SP_HD const T& value(const Dual<T, P>& x) { return x.v; }
template <class T, class = std::enable_if_t<!IsDual<T>::value>>
SP_HD const T& value(const T& x) { return x; }
/// The magnitude sqrt(x_0^2 + .. + x_{count-1}^2) of a vector whose components x are all
/// exactly 0: value 0, each tangent 0 where every component's tangent is 0 (a magnitude
/// that stays 0 under the change, as a spherical joint's torque does) and NaN otherwise
/// (along a change h it is |h| |x'|: no derivative). sqrt's own formula gives NaN for
/// both. For the magnitudes of outputs (formulas/joint_loads.hpp, output_magnitude).
template <class T, int P>
SP_HD Dual<T, P> magnitude_at_zero(const Dual<T, P>* const* x, int count) {
  Dual<T, P> r(T(0));
  for (int k = 0; k < P; ++k) {
    bool moves = false;
    for (int c = 0; c < count; ++c) moves = moves || !(x[c]->d[k] == T(0));
    r.d[k] = moves ? T(NAN) : T(0);
  }
  return r;
}
/// value_of (math/lane_ops.hpp) of a Dual: its value, the tangents dropped.
template <class T, int P>
SP_HD T value_of(const Dual<T, P>& x) { return x.v; }

namespace detail {

// The functions of the value type T: the standard library's for float and double, per
// lane for a lane vector (T::width lanes through operator[] and set(), as Lanes).
template <class T>
constexpr bool kBuiltin = std::is_floating_point_v<T>;

template <class T, class F>
SP_HD T map1(const T& x, F f) {
  T r;
  for (int l = 0; l < T::width; ++l) r.set(l, f(x[l]));
  return r;
}
template <class T, class F>
SP_HD T map2(const T& a, const T& b, F f) {
  T r;
  for (int l = 0; l < T::width; ++l) r.set(l, f(a[l], b[l]));
  return r;
}

#define SP_DUAL_FN1(name, stdf)                                                      \
  template <class T>                                                                 \
  SP_HD T name(const T& x) {                                                         \
    if constexpr (kBuiltin<T>)                                                       \
      return stdf(x);                                                                \
    else                                                                             \
      return map1(x, [](lane_scalar_t<T> s) { return stdf(s); });                    \
  }
#define SP_DUAL_FN2(name, stdf)                                                      \
  template <class T>                                                                 \
  SP_HD T name(const T& a, const T& b) {                                             \
    if constexpr (kBuiltin<T>)                                                       \
      return stdf(a, b);                                                             \
    else                                                                             \
      return map2(a, b, [](lane_scalar_t<T> s, lane_scalar_t<T> t) { return stdf(s, t); }); \
  }
SP_DUAL_FN1(f_sin, std::sin)
SP_DUAL_FN1(f_cos, std::cos)
SP_DUAL_FN1(f_tan, std::tan)
SP_DUAL_FN1(f_asin, std::asin)
SP_DUAL_FN1(f_acos, std::acos)
SP_DUAL_FN1(f_atan, std::atan)
SP_DUAL_FN1(f_exp, std::exp)
SP_DUAL_FN1(f_log, std::log)
SP_DUAL_FN1(f_floor, std::floor)
SP_DUAL_FN1(f_ceil, std::ceil)
SP_DUAL_FN2(f_atan2, std::atan2)
SP_DUAL_FN2(f_pow, std::pow)
SP_DUAL_FN2(f_hypot, std::hypot)
SP_DUAL_FN2(f_fmin, std::fmin)
SP_DUAL_FN2(f_fmax, std::fmax)
SP_DUAL_FN2(f_copysign, std::copysign)
#undef SP_DUAL_FN1
#undef SP_DUAL_FN2

/// tanh and sincos: the project's lane functions for a lane vector (reduced/lane_math.hpp,
/// simd/reduced_lane_math.hpp, found by argument-dependent lookup), so that a Dual of
/// lanes has the values of the lane code; for float and double the standard library's,
/// which is what lane_tanh / lane_sincos are there.
template <class T>
SP_HD T f_tanh(const T& x) {
  if constexpr (kBuiltin<T>)
    return std::tanh(x);
  else
    return lane_tanh(x);
}
template <class T>
SP_HD void f_sincos(const T& x, T& s, T& c) {
  if constexpr (kBuiltin<T>) {
    s = std::sin(x);
    c = std::cos(x);
  } else {
    lane_sincos(x, s, c);
  }
}

/// r with value fv and tangents g * x.d (the chain rule of a function of one argument).
template <class T, int P>
SP_HD Dual<T, P> chain(const T& fv, const T& g, const Dual<T, P>& x) {
  Dual<T, P> r;
  r.v = fv;
  for (int k = 0; k < P; ++k) r.d[k] = g * x.d[k];
  return r;
}

}  // namespace detail

// ---- arithmetic -----------------------------------------------------------------------

template <class T, int P>
SP_HD Dual<T, P> operator+(const Dual<T, P>& a) { return a; }
template <class T, int P>
SP_HD Dual<T, P> operator-(const Dual<T, P>& a) {
  Dual<T, P> r;
  r.v = -a.v;
  for (int k = 0; k < P; ++k) r.d[k] = -a.d[k];
  return r;
}
template <class T, int P>
SP_HD Dual<T, P> operator+(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = a.v + b.v;
  for (int k = 0; k < P; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <class T, int P>
SP_HD Dual<T, P> operator-(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = a.v - b.v;
  for (int k = 0; k < P; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <class T, int P>
SP_HD Dual<T, P> operator*(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = a.v * b.v;
  for (int k = 0; k < P; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
/// a / b: value a.v / b.v (as the scalar code); tangents (a' - (a / b) b') / b.
template <class T, int P>
SP_HD Dual<T, P> operator/(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = a.v / b.v;
  const T inv = T(1) / b.v;
  for (int k = 0; k < P; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
  return r;
}

template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator+(const Dual<T, P>& a, const A& b) {
  Dual<T, P> r = a;
  r.v = a.v + static_cast<T>(b);
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator+(const A& a, const Dual<T, P>& b) {
  Dual<T, P> r = b;
  r.v = static_cast<T>(a) + b.v;
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator-(const Dual<T, P>& a, const A& b) {
  Dual<T, P> r = a;
  r.v = a.v - static_cast<T>(b);
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator-(const A& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = static_cast<T>(a) - b.v;
  for (int k = 0; k < P; ++k) r.d[k] = -b.d[k];
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator*(const Dual<T, P>& a, const A& b) {
  const T s = static_cast<T>(b);
  Dual<T, P> r;
  r.v = a.v * s;
  for (int k = 0; k < P; ++k) r.d[k] = a.d[k] * s;
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator*(const A& a, const Dual<T, P>& b) {
  const T s = static_cast<T>(a);
  Dual<T, P> r;
  r.v = s * b.v;
  for (int k = 0; k < P; ++k) r.d[k] = s * b.d[k];
  return r;
}
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator/(const Dual<T, P>& a, const A& b) {
  const T s = static_cast<T>(b);
  Dual<T, P> r;
  r.v = a.v / s;
  const T inv = T(1) / s;
  for (int k = 0; k < P; ++k) r.d[k] = a.d[k] * inv;
  return r;
}
/// s / b: value s / b.v; tangents -(s / b) b' / b.
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> operator/(const A& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = static_cast<T>(a) / b.v;
  const T g = -(r.v / b.v);
  for (int k = 0; k < P; ++k) r.d[k] = g * b.d[k];
  return r;
}

// ---- comparisons: on the values; the result is what comparing T gives ----------------

#define SP_DUAL_CMP(op)                                                                      \
  template <class T, int P>                                                                  \
  SP_HD auto operator op(const Dual<T, P>& a, const Dual<T, P>& b)->decltype(a.v op b.v) {   \
    return a.v op b.v;                                                                       \
  }                                                                                          \
  template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>            \
  SP_HD auto operator op(const Dual<T, P>& a, const A& b)->decltype(a.v op a.v) {            \
    return a.v op static_cast<T>(b);                                                         \
  }                                                                                          \
  template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>            \
  SP_HD auto operator op(const A& a, const Dual<T, P>& b)->decltype(b.v op b.v) {            \
    return static_cast<T>(a) op b.v;                                                         \
  }
SP_DUAL_CMP(<)
SP_DUAL_CMP(<=)
SP_DUAL_CMP(>)
SP_DUAL_CMP(>=)
SP_DUAL_CMP(==)
SP_DUAL_CMP(!=)
#undef SP_DUAL_CMP

// ---- the lane operations of math/lane_ops.hpp -----------------------------------------

/// mask ? a : b for value and tangents (mask: bool, or a LaneMask for Dual of lanes).
template <class M, class T, int P>
SP_HD Dual<T, P> lane_select(const M& mask, const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = lane_select(mask, a.v, b.v);
  for (int k = 0; k < P; ++k) r.d[k] = lane_select(mask, a.d[k], b.d[k]);
  return r;
}
/// sqrt: tangents x' / (2 sqrt(x)) (infinite at x = 0).
template <class T, int P>
SP_HD Dual<T, P> lane_sqrt(const Dual<T, P>& x) {
  const T s = lane_sqrt(x.v);
  return detail::chain(s, T(0.5) / s, x);
}
/// |x|: tangents -x' where x < 0, x' elsewhere (x' at 0: the right derivative).
template <class T, int P>
SP_HD Dual<T, P> lane_abs(const Dual<T, P>& x) {
  Dual<T, P> r;
  r.v = lane_abs(x.v);
  const auto neg = x.v < T(0);
  for (int k = 0; k < P; ++k) r.d[k] = lane_select(neg, -x.d[k], x.d[k]);
  return r;
}
/// a < b ? a : b (b on a tie, as lane_min of a scalar).
template <class T, int P>
SP_HD Dual<T, P> lane_min(const Dual<T, P>& a, const Dual<T, P>& b) { return lane_select(a.v < b.v, a, b); }
/// a > b ? a : b (b on a tie, as lane_max of a scalar).
template <class T, int P>
SP_HD Dual<T, P> lane_max(const Dual<T, P>& a, const Dual<T, P>& b) { return lane_select(a.v > b.v, a, b); }
/// Finite value and tangents.
template <class T, int P>
SP_HD auto lane_isfinite(const Dual<T, P>& x) -> decltype(lane_isfinite(x.v)) {
  auto m = lane_isfinite(x.v);
  for (int k = 0; k < P; ++k) m = m && lane_isfinite(x.d[k]);
  return m;
}
/// s = sin(x), c = cos(x) (reduced/lane_math.hpp's lane_sincos).
template <class T, int P>
SP_HD void lane_sincos(const Dual<T, P>& x, Dual<T, P>& s, Dual<T, P>& c) {
  T sv, cv;
  detail::f_sincos(x.v, sv, cv);
  s.v = sv;
  c.v = cv;
  for (int k = 0; k < P; ++k) {
    s.d[k] = cv * x.d[k];
    c.d[k] = -sv * x.d[k];
  }
}
/// tanh: tangents (1 - tanh^2) x' (reduced/lane_math.hpp's lane_tanh).
template <class T, int P>
SP_HD Dual<T, P> lane_tanh(const Dual<T, P>& x) {
  const T t = detail::f_tanh(x.v);
  return detail::chain(t, T(1) - t * t, x);
}

// ---- <cmath> functions (unqualified calls; found by argument-dependent lookup) --------

template <class T, int P>
SP_HD Dual<T, P> sqrt(const Dual<T, P>& x) { return lane_sqrt(x); }
template <class T, int P>
SP_HD Dual<T, P> fabs(const Dual<T, P>& x) { return lane_abs(x); }
template <class T, int P>
SP_HD Dual<T, P> abs(const Dual<T, P>& x) { return lane_abs(x); }
template <class T, int P>
SP_HD Dual<T, P> tanh(const Dual<T, P>& x) { return lane_tanh(x); }
template <class T, int P>
SP_HD Dual<T, P> sin(const Dual<T, P>& x) { return detail::chain(detail::f_sin(x.v), detail::f_cos(x.v), x); }
template <class T, int P>
SP_HD Dual<T, P> cos(const Dual<T, P>& x) { return detail::chain(detail::f_cos(x.v), -detail::f_sin(x.v), x); }
/// tan: tangents (1 + tan^2) x'.
template <class T, int P>
SP_HD Dual<T, P> tan(const Dual<T, P>& x) {
  const T t = detail::f_tan(x.v);
  return detail::chain(t, T(1) + t * t, x);
}
/// asin: tangents x' / sqrt(1 - x^2) (infinite at +-1).
template <class T, int P>
SP_HD Dual<T, P> asin(const Dual<T, P>& x) {
  return detail::chain(detail::f_asin(x.v), T(1) / lane_sqrt(T(1) - x.v * x.v), x);
}
/// acos: tangents -x' / sqrt(1 - x^2) (infinite at +-1).
template <class T, int P>
SP_HD Dual<T, P> acos(const Dual<T, P>& x) {
  return detail::chain(detail::f_acos(x.v), T(-1) / lane_sqrt(T(1) - x.v * x.v), x);
}
template <class T, int P>
SP_HD Dual<T, P> atan(const Dual<T, P>& x) {
  return detail::chain(detail::f_atan(x.v), T(1) / (T(1) + x.v * x.v), x);
}
template <class T, int P>
SP_HD Dual<T, P> exp(const Dual<T, P>& x) {
  const T e = detail::f_exp(x.v);
  return detail::chain(e, e, x);
}
template <class T, int P>
SP_HD Dual<T, P> log(const Dual<T, P>& x) { return detail::chain(detail::f_log(x.v), T(1) / x.v, x); }
/// Zero tangents (piecewise constant).
template <class T, int P>
SP_HD Dual<T, P> floor(const Dual<T, P>& x) { return Dual<T, P>(detail::f_floor(x.v)); }
template <class T, int P>
SP_HD Dual<T, P> ceil(const Dual<T, P>& x) { return Dual<T, P>(detail::f_ceil(x.v)); }
/// Finite value and tangents (as lane_isfinite).
template <class T, int P>
SP_HD auto isfinite(const Dual<T, P>& x) -> decltype(lane_isfinite(x)) { return lane_isfinite(x); }

/// atan2(y, x): tangents (x y' - y x') / (x^2 + y^2).
template <class T, int P>
SP_HD Dual<T, P> atan2(const Dual<T, P>& y, const Dual<T, P>& x) {
  Dual<T, P> r;
  r.v = detail::f_atan2(y.v, x.v);
  const T inv = T(1) / (x.v * x.v + y.v * y.v);
  for (int k = 0; k < P; ++k) r.d[k] = (x.v * y.d[k] - y.v * x.d[k]) * inv;
  return r;
}
/// hypot(a, b): tangents (a a' + b b') / hypot (NaN at the origin).
template <class T, int P>
SP_HD Dual<T, P> hypot(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = detail::f_hypot(a.v, b.v);
  const T inv = T(1) / r.v;
  for (int k = 0; k < P; ++k) r.d[k] = (a.v * a.d[k] + b.v * b.d[k]) * inv;
  return r;
}
/// pow(a, b) = a^b: tangents b a^(b-1) a' + a^b log(a) b' (the second term 0 where a <= 0).
template <class T, int P>
SP_HD Dual<T, P> pow(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r;
  r.v = detail::f_pow(a.v, b.v);
  const T ga = b.v * detail::f_pow(a.v, b.v - T(1));
  const T gb = lane_select(a.v > T(0), r.v * detail::f_log(a.v), T(0));
  for (int k = 0; k < P; ++k) r.d[k] = ga * a.d[k] + gb * b.d[k];
  return r;
}
/// pow(a, s) for a constant exponent s: tangents s a^(s-1) a'.
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> pow(const Dual<T, P>& a, const A& s) {
  const T e = static_cast<T>(s);
  return detail::chain(detail::f_pow(a.v, e), e * detail::f_pow(a.v, e - T(1)), a);
}
/// pow(s, b) for a constant base s: tangents s^b log(s) b' (0 where s <= 0).
template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>
SP_HD Dual<T, P> pow(const A& s, const Dual<T, P>& b) {
  const T base = static_cast<T>(s);
  const T v = detail::f_pow(base, b.v);
  return detail::chain(v, lane_select(base > T(0), v * detail::f_log(base), T(0)), b);
}
/// fmin: the value of std::fmin (the other operand where one is NaN); the tangents of the
/// operand returned (a's on a tie).
template <class T, int P>
SP_HD Dual<T, P> fmin(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r = lane_select(b.v < a.v || a.v != a.v, b, a);
  r.v = detail::f_fmin(a.v, b.v);
  return r;
}
/// fmax: as fmin.
template <class T, int P>
SP_HD Dual<T, P> fmax(const Dual<T, P>& a, const Dual<T, P>& b) {
  Dual<T, P> r = lane_select(b.v > a.v || a.v != a.v, b, a);
  r.v = detail::f_fmax(a.v, b.v);
  return r;
}
/// copysign(a, b): |a| with b's sign; tangents +-a' (- where the signs differ).
template <class T, int P>
SP_HD Dual<T, P> copysign(const Dual<T, P>& a, const Dual<T, P>& b) {
  const T g = detail::f_copysign(T(1), a.v) * detail::f_copysign(T(1), b.v);
  return detail::chain(detail::f_copysign(a.v, b.v), g, a);
}

// The two-argument functions with a constant on either side.
#define SP_DUAL_FN2_SCALAR(name)                                                   \
  template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>  \
  SP_HD Dual<T, P> name(const Dual<T, P>& a, const A& b) {                         \
    return name(a, Dual<T, P>(b));                                                 \
  }                                                                                \
  template <class T, int P, class A, class = std::enable_if_t<kDualScalar<A, T>>>  \
  SP_HD Dual<T, P> name(const A& a, const Dual<T, P>& b) {                         \
    return name(Dual<T, P>(a), b);                                                 \
  }
SP_DUAL_FN2_SCALAR(atan2)
SP_DUAL_FN2_SCALAR(hypot)
SP_DUAL_FN2_SCALAR(fmin)
SP_DUAL_FN2_SCALAR(fmax)
SP_DUAL_FN2_SCALAR(copysign)
#undef SP_DUAL_FN2_SCALAR

}  // namespace ad

using ad::Dual;

/// The scalar of a Dual is that of its value type (precision tests: sizeof, epsilon).
template <class T, int P>
struct LaneScalar<ad::Dual<T, P>> {
  using type = lane_scalar_t<T>;
};

}  // namespace simphant
