#pragma once
// Motion laws s(t) of prescribed motion (docs/scene-format.md, "Motion laws"): the value
// s, its rate s' and acceleration s'' at a time t [s], written once as header-only
// __host__ __device__ templates shared by the CPU reference (drivers, time-varying loads)
// and the batched kernels (batch/model_view.hpp, motion_law_value).
//
// A law is a type and a flat parameter vector (MotionLaw in model/model.hpp):
//   ConstantSpeed  [s0, w]                       s = s0 + w t
//   Polynomial     [c0, ..., c_{n-1}] (n <= 8)   s = sum c_k t^k
//   Rise345        [t0, T, s0, h]                3-4-5 polynomial rise by h over [t0, t0 + T]
//   RiseCycloidal  [t0, T, s0, h]                cycloidal rise by h over [t0, t0 + T]
//   Harmonic       [a, A, f, phi]                s = a + A sin(2 pi f t + phi), f [Hz]
//   Table          [x (n), y (n), m2 (n)]        natural cubic spline through (x_k, y_k),
//                                                held constant outside [x_0, x_{n-1}]
// The rises dwell at s0 before t0 and at s0 + h after t0 + T (R. L. Norton, Cam Design
// and Manufacturing Handbook, ch. 3: the 3-4-5 polynomial and cycloidal rise); the
// spline is the natural cubic spline of Numerical Recipes (3rd ed., sec. 3.3), m2 its
// second derivatives at the knots (natural_spline_m2).
//
// Parameters are read through an accessor p(k) -> T so that the same code reads a
// contiguous array (motion_law_eval) or the per-instance parameters of a ModelView.
#include <cmath>
#include <vector>

#include "simphant/core/hd.hpp"

namespace simphant {

enum class MotionLawType : int {
  ConstantSpeed = 0,
  Polynomial = 1,
  Rise345 = 2,
  RiseCycloidal = 3,
  Harmonic = 4,
  Table = 5
};

/// Most coefficients of a polynomial law (degree 7).
constexpr int kMaxPolynomialCoefficients = 8;

namespace detail {

template <class T>
SP_HD T two_pi() {
  return T(6.283185307179586476925286766559);
}

/// Accessor over a contiguous parameter array.
template <class T>
struct ArrayParams {
  const T* p;
  SP_HD T operator()(int k) const { return p[k]; }
};

/// Accessor of an offset sub-array of another accessor.
template <class P>
struct OffsetParams {
  P p;
  int offset;
  SP_HD auto operator()(int k) const { return p(offset + k); }
};

}  // namespace detail

/// The natural cubic spline through (x_k, y_k), k < n, and its derivatives at xq. x
/// strictly increasing, n >= 2, m2 its second derivatives (natural_spline_m2); the ends
/// x_0, x_{n-1} take the spline's one-sided values. Outside [x_0, x_{n-1}]: with
/// linear_outside the spline is continued by its tangent at the end (s'' = 0), else s is
/// held at the end value (s' = s'' = 0). X, Y, M: accessors k -> T.
template <class T, class X, class Y, class M>
SP_HD void spline_eval_at(const X& x, const Y& y, const M& m2, int n, T xq, bool linear_outside, T& s, T& ds,
                          T& dds) {
  // Outside [x_0, x_{n-1}] (the ends themselves belong to the spline: at t = x_0 a table
  // law starts with the spline's slope, which assembly gives the velocities).
  if (xq < x(0) || xq > x(n - 1)) {
    const bool low = xq < x(0);
    const int e = low ? 0 : n - 1;
    const int k0 = low ? 0 : n - 2;
    const T h = x(k0 + 1) - x(k0);
    // End slope of interval k0 at its end e (the derivative formula below with A, B at e).
    const T slope = (y(k0 + 1) - y(k0)) / h +
                    (low ? (-T(2) * m2(k0) - m2(k0 + 1)) : (m2(k0) + T(2) * m2(k0 + 1))) * h / T(6);
    s = y(e);
    ds = T(0);
    dds = T(0);
    if (linear_outside) {
      s += slope * (xq - x(e));
      ds = slope;
    }
    return;
  }
  // Interval k with x_k <= xq <= x_{k+1} (binary search).
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (x(mid) > xq)
      hi = mid;
    else
      lo = mid;
  }
  const int k = lo;
  const T h = x(k + 1) - x(k);
  const T A = (x(k + 1) - xq) / h, B = (xq - x(k)) / h;
  const T Mk = m2(k), Mk1 = m2(k + 1);
  s = A * y(k) + B * y(k + 1) + ((A * A * A - A) * Mk + (B * B * B - B) * Mk1) * (h * h) / T(6);
  ds = (y(k + 1) - y(k)) / h - (T(3) * A * A - T(1)) / T(6) * h * Mk + (T(3) * B * B - T(1)) / T(6) * h * Mk1;
  dds = A * Mk + B * Mk1;
}

/// spline_eval_at on contiguous arrays x, y, m2 (n each).
template <class T>
SP_HD void spline_eval(const T* x, const T* y, const T* m2, int n, T xq, bool linear_outside, T& s, T& ds, T& dds) {
  spline_eval_at(detail::ArrayParams<T>{x}, detail::ArrayParams<T>{y}, detail::ArrayParams<T>{m2}, n, xq,
                 linear_outside, s, ds, dds);
}

/// Second derivatives m2 (n) of the natural cubic spline through (x_k, y_k): m2_0 =
/// m2_{n-1} = 0 and the tridiagonal continuity equations of s' at the inner knots, solved
/// by the Thomas algorithm (diagonally dominant, so no pivoting). Preconditions: n >= 2,
/// x strictly increasing. Host only (compile time).
inline void natural_spline_m2(const double* x, const double* y, int n, double* m2) {
  m2[0] = 0.0;
  m2[n - 1] = 0.0;
  if (n < 3) return;
  // Row k (1 <= k <= n-2): h_{k-1} m_{k-1} + 2 (h_{k-1} + h_k) m_k + h_k m_{k+1} = rhs_k;
  // the forward sweep keeps the modified super-diagonal in c and the right side in m2.
  std::vector<double> c(n, 0.0);
  for (int k = 1; k <= n - 2; ++k) {
    const double h0 = x[k] - x[k - 1], h1 = x[k + 1] - x[k];
    const double rhs = 6.0 * ((y[k + 1] - y[k]) / h1 - (y[k] - y[k - 1]) / h0);
    const double diag = 2.0 * (h0 + h1) - h0 * c[k - 1];
    c[k] = k <= n - 3 ? h1 / diag : 0.0;
    m2[k] = (rhs - h0 * m2[k - 1]) / diag;
  }
  for (int k = n - 3; k >= 1; --k) m2[k] -= c[k] * m2[k + 1];
}

/// s, s', s'' of a law of `type` with n_params parameters read through the accessor p
/// (layout in the header comment) at time t [s].
template <class T, class P>
SP_HD void motion_law_eval_at(MotionLawType type, const P& p, int n_params, T t, T& s, T& sd, T& sdd) {
  using std::cos;  // unqualified: a number type's own sin / cos by argument-dependent lookup (math/dual.hpp)
  using std::sin;
  switch (type) {
    case MotionLawType::ConstantSpeed:
      s = p(0) + p(1) * t;
      sd = p(1);
      sdd = T(0);
      return;
    case MotionLawType::Polynomial: {
      // Horner for s, s', s''.
      s = T(0);
      sd = T(0);
      sdd = T(0);
      for (int k = n_params - 1; k >= 0; --k) {
        sdd = sdd * t + T(2) * sd;
        sd = sd * t + s;
        s = s * t + p(k);
      }
      return;
    }
    case MotionLawType::Rise345:
    case MotionLawType::RiseCycloidal: {
      const T t0 = p(0), dur = p(1), s0 = p(2), h = p(3);
      sd = T(0);
      sdd = T(0);
      if (t <= t0) {
        s = s0;
        return;
      }
      if (t >= t0 + dur) {
        s = s0 + h;
        return;
      }
      const T u = (t - t0) / dur;
      if (type == MotionLawType::Rise345) {
        const T u2 = u * u, u3 = u2 * u;
        s = s0 + h * u3 * (T(10) - T(15) * u + T(6) * u2);
        sd = h / dur * T(30) * u2 * (T(1) - T(2) * u + u2);
        sdd = h / (dur * dur) * T(60) * u * (T(1) - T(3) * u + T(2) * u2);
      } else {
        const T w = detail::two_pi<T>();
        s = s0 + h * (u - sin(w * u) / w);
        sd = h / dur * (T(1) - cos(w * u));
        sdd = h / (dur * dur) * w * sin(w * u);
      }
      return;
    }
    case MotionLawType::Harmonic: {
      const T a = p(0), A = p(1), w = detail::two_pi<T>() * p(2), ph = p(3);
      const T sn = sin(w * t + ph), cs = cos(w * t + ph);
      s = a + A * sn;
      sd = A * w * cs;
      sdd = -A * w * w * sn;
      return;
    }
    case MotionLawType::Table: {
      const int n = n_params / 3;
      spline_eval_at(p, detail::OffsetParams<P>{p, n}, detail::OffsetParams<P>{p, 2 * n}, n, t, false, s, sd, sdd);
      return;
    }
  }
  s = sd = sdd = T(0);
}

/// motion_law_eval_at on a contiguous parameter array p (n_params).
template <class T>
SP_HD void motion_law_eval(MotionLawType type, const T* p, int n_params, T t, T& s, T& sd, T& sdd) {
  motion_law_eval_at(type, detail::ArrayParams<T>{p}, n_params, t, s, sd, sdd);
}

}  // namespace simphant
