#pragma once
// Element-wise operations that the shared per-thread math (kernels/, joints/, dynamics/)
// writes once for any scalar type T: float and double here (host and device), and the
// SIMD lane vector Lanes<S, W> (math/lanes.hpp, host only), whose comparisons give a
// per-lane mask instead of a bool. Code that must run with T = Lanes uses these instead
// of std::sqrt, ?: on a comparison of T values, std::isfinite, std::min / std::max:
//   lane_sqrt(x), lane_abs(x), lane_min(a, b), lane_max(a, b),
//   lane_select(mask, a, b)   (mask ? a : b, per lane),
//   lane_isfinite(x)          (a mask), lane_all(mask), lane_any(mask) (a bool).
// For a scalar the mask is bool and every function is the plain operation, so the
// scalar path compiles to what it did before.
// value_of(x) is the one way a number leaves the differentiable code (math/dual.hpp):
// an integer field stored as T, an accumulator kept in double.
#include <cmath>

#include "simphant/core/hd.hpp"

namespace simphant {

/// The scalar of T: T itself for float and double, S for Lanes<S, W> (math/lanes.hpp).
/// Precision tests (sizeof, machine epsilon) ask this, not sizeof(T).
template <class T>
struct LaneScalar {
  using type = T;
};
template <class T>
using lane_scalar_t = typename LaneScalar<T>::type;

SP_HD double lane_sqrt(double x) { return std::sqrt(x); }
SP_HD float lane_sqrt(float x) { return std::sqrt(x); }
SP_HD double lane_abs(double x) { return std::fabs(x); }
SP_HD float lane_abs(float x) { return std::fabs(x); }
SP_HD double lane_min(double a, double b) { return a < b ? a : b; }
SP_HD float lane_min(float a, float b) { return a < b ? a : b; }
SP_HD double lane_max(double a, double b) { return a > b ? a : b; }
SP_HD float lane_max(float a, float b) { return a > b ? a : b; }
SP_HD double lane_select(bool mask, double a, double b) { return mask ? a : b; }
SP_HD float lane_select(bool mask, float a, float b) { return mask ? a : b; }
SP_HD bool lane_isfinite(double x) { return std::isfinite(x); }
SP_HD bool lane_isfinite(float x) { return std::isfinite(x); }
SP_HD bool lane_all(bool mask) { return mask; }
SP_HD bool lane_any(bool mask) { return mask; }

/// The plain value of x, for a quantity that is not differentiated: an integer field
/// stored as a number of type T (a joint law's mode), a double accumulator of the
/// reductions over time. x itself for float, double and Lanes (the same operation as
/// before, bit for bit); math/dual.hpp overloads it for a Dual (its value, the tangents
/// dropped). Call it unqualified; use it only where the quantity is genuinely not
/// differentiable, and say so at the call.
template <class T>
SP_HD T value_of(const T& x) {
  return x;
}

}  // namespace simphant
