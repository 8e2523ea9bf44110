#pragma once
// The explicit Runge-Kutta method of Dormand and Prince of order 5 with an embedded
// order-4 error estimate, its 4th-order continuous extension (dense output), the scaled
// RMS error norm, the step-size controller and the first-step estimate (docs/solver.md
// "Dormand-Prince 5(4)"). The one copy of the method's arithmetic: the CPU path
// (sim/cpu_dopri5.cpp) and the CUDA per-thread functions call these templates with
// T = double or float.
//
// Sources: J. R. Dormand, P. J. Prince, "A family of embedded Runge-Kutta formulae",
// J. Comput. Appl. Math. 6 (1980) 19-26; E. Hairer, S. P. Norsett, G. Wanner, "Solving
// Ordinary Differential Equations I", 2nd ed., Springer 1993: Table II.5.2 (tableau),
// II.4 (error norm (4.11), step-size selection (4.12)-(4.13), starting step size),
// II.6 (dense output, the coefficients of the code DOPRI5, subroutine CONTD5), IV.2 /
// Gustafsson's PI ("Lund") stabilisation with beta = 0.04 as in DOPRI5.
//
// Vectors are strided: component i of a vector v of m entries is v[i * stride] (stride 1
// for the CPU's array of structures, stride n_instances for the GPU's structure of
// arrays). Stage derivatives are passed as k[0..6] = k_1..k_7, each a strided vector;
// k_7 = f(t + h, y1) is the first stage of the next step (FSAL: first same as last).
#include <cmath>

#include "simphant/core/hd.hpp"

namespace simphant {
namespace dopri5 {

/// Number of stages (the 7th is the FSAL evaluation at the step's end).
constexpr int kStages = 7;
/// Classical order of the propagated solution (the controller's exponent uses it).
constexpr int kOrder = 5;

/// Machine epsilon of T (numeric_limits is not usable in device code).
template <class T> SP_HD T epsilon();
template <> SP_HD double epsilon<double>() { return 2.220446049250313080847e-16; }
template <> SP_HD float epsilon<float>() { return 1.1920928955078125e-7f; }

/// Node c_s (s = 1..7) of the tableau: stage s is evaluated at t + c_s h.
template <class T> SP_HD T node(int s) {
  switch (s) {
    case 2: return T(1) / T(5);
    case 3: return T(3) / T(10);
    case 4: return T(4) / T(5);
    case 5: return T(8) / T(9);
    case 6: case 7: return T(1);
    default: return T(0);
  }
}

/// Coefficient a_{s j} (1 <= j < s <= 7) of the tableau; row 7 holds the weights b_j of the
/// 5th-order solution (b_7 = 0). Zero outside the lower triangle.
template <class T> SP_HD T coefficient(int s, int j) {
  switch (s * 8 + j) {
    case 2 * 8 + 1: return T(1) / T(5);
    case 3 * 8 + 1: return T(3) / T(40);
    case 3 * 8 + 2: return T(9) / T(40);
    case 4 * 8 + 1: return T(44) / T(45);
    case 4 * 8 + 2: return T(-56) / T(15);
    case 4 * 8 + 3: return T(32) / T(9);
    case 5 * 8 + 1: return T(19372) / T(6561);
    case 5 * 8 + 2: return T(-25360) / T(2187);
    case 5 * 8 + 3: return T(64448) / T(6561);
    case 5 * 8 + 4: return T(-212) / T(729);
    case 6 * 8 + 1: return T(9017) / T(3168);
    case 6 * 8 + 2: return T(-355) / T(33);
    case 6 * 8 + 3: return T(46732) / T(5247);
    case 6 * 8 + 4: return T(49) / T(176);
    case 6 * 8 + 5: return T(-5103) / T(18656);
    case 7 * 8 + 1: return T(35) / T(384);
    case 7 * 8 + 3: return T(500) / T(1113);
    case 7 * 8 + 4: return T(125) / T(192);
    case 7 * 8 + 5: return T(-2187) / T(6784);
    case 7 * 8 + 6: return T(11) / T(84);
    default: return T(0);
  }
}

/// Weight b_j (j = 1..7) of the 5th-order solution y1 = y0 + h sum_j b_j k_j.
template <class T> SP_HD T weight(int j) { return coefficient<T>(7, j); }

/// Error weight e_j = b_j - bhat_j (j = 1..7): the difference of the 5th- and the embedded
/// 4th-order solutions is h sum_j e_j k_j (bhat = 5179/57600, 0, 7571/16695, 393/640,
/// -92097/339200, 187/2100, 1/40; Hairer-Norsett-Wanner Table II.5.2).
template <class T> SP_HD T error_weight(int j) {
  switch (j) {
    case 1: return T(71) / T(57600);
    case 3: return T(-71) / T(16695);
    case 4: return T(71) / T(1920);
    case 5: return T(-17253) / T(339200);
    case 6: return T(22) / T(525);
    case 7: return T(-1) / T(40);
    default: return T(0);
  }
}

/// Dense-output weight d_j (j = 1..7) of DOPRI5's continuous extension (CONTD5; d_2 = 0).
template <class T> SP_HD T dense_weight(int j) {
  switch (j) {
    case 1: return T(-12715105075.0) / T(11282082432.0);
    case 3: return T(87487479700.0) / T(32700410799.0);
    case 4: return T(-10690763975.0) / T(1880347072.0);
    case 5: return T(701980252875.0) / T(199316789632.0);
    case 6: return T(-1453857185.0) / T(822651844.0);
    case 7: return T(69997945.0) / T(29380423.0);
    default: return T(0);
  }
}

/// Stage state of stage s (2..7): ys = y + h sum_{j<s} a_{s j} k_j over m strided entries.
/// s = 7 gives the 5th-order solution y1 at t + h. k[j-1] must be valid for j < s; ys may
/// not alias y or k.
template <class T>
SP_HD void stage_state(int s, int m, int stride, T h, const T* y, const T* const* k, T* ys) {
  T a[kStages - 1];
  for (int j = 1; j < s; ++j) a[j - 1] = h * coefficient<T>(s, j);
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    T acc = T(0);
    for (int j = 1; j < s; ++j) acc += a[j - 1] * k[j - 1][o];
    ys[o] = y[o] + acc;
  }
}

/// Error scale sc_i = atol + rtol max(|y0_i|, |y1_i|) (Hairer-Norsett-Wanner (II.4.10)).
template <class T> SP_HD T error_scale(T y0, T y1, T atol, T rtol) {
  const T a0 = std::fabs(y0), a1 = std::fabs(y1);
  return atol + rtol * (a0 > a1 ? a0 : a1);
}

/// Scaled RMS norm of the local error estimate (II.4.11):
/// sqrt(1/m sum_i (h sum_j e_j k_{j,i} / sc_i)^2) over the m strided entries of the step
/// y0 -> y1 with stage derivatives k[0..6] (k_2 is not read: e_2 = 0). The step is
/// acceptable when the value is <= 1. An entry whose estimate is exactly 0 adds 0 (also
/// when sc_i = 0); one with sc_i = 0 and an error makes it +inf. Returns NaN or +inf
/// when an entry is not finite.
template <class T>
SP_HD T error_norm(int m, int stride, T h, const T* y0, const T* y1, const T* const* k, T atol, T rtol) {
  const T e1 = h * error_weight<T>(1), e3 = h * error_weight<T>(3), e4 = h * error_weight<T>(4);
  const T e5 = h * error_weight<T>(5), e6 = h * error_weight<T>(6), e7 = h * error_weight<T>(7);
  T sum = T(0);
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    const T err = e1 * k[0][o] + e3 * k[2][o] + e4 * k[3][o] + e5 * k[4][o] + e6 * k[5][o] + e7 * k[6][o];
    // An entry without error adds nothing, also where its scale is 0 (atol = 0 on an
    // entry that is 0 at both ends, e.g. a component of a planar motion).
    const T r = err == T(0) ? T(0) : err / error_scale(y0[o], y1[o], atol, rtol);
    sum += r * r;
  }
  return std::sqrt(sum / T(m > 0 ? m : 1));
}

/// Coefficients r[0..4] (each a strided vector of m entries) of the 4th-order continuous
/// extension of the step y0 -> y1 of size h (DOPRI5's CONTD5, Hairer-Norsett-Wanner II.6):
///   r1 = y0, r2 = y1 - y0, r3 = h k_1 - r2, r4 = r2 - h k_7 - r3,
///   r5 = h (d_1 k_1 + d_3 k_3 + d_4 k_4 + d_5 k_5 + d_6 k_6 + d_7 k_7).
/// k[6] is the derivative at y1 (k_7). r may not alias y0, y1 or k.
template <class T>
SP_HD void dense_coefficients(int m, int stride, T h, const T* y0, const T* y1, const T* const* k, T* const* r) {
  const T d1 = h * dense_weight<T>(1), d3 = h * dense_weight<T>(3), d4 = h * dense_weight<T>(4);
  const T d5 = h * dense_weight<T>(5), d6 = h * dense_weight<T>(6), d7 = h * dense_weight<T>(7);
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    const T ydiff = y1[o] - y0[o];
    const T bspl = h * k[0][o] - ydiff;
    r[0][o] = y0[o];
    r[1][o] = ydiff;
    r[2][o] = bspl;
    r[3][o] = ydiff - h * k[6][o] - bspl;
    r[4][o] = d1 * k[0][o] + d3 * k[2][o] + d4 * k[3][o] + d5 * k[4][o] + d6 * k[5][o] + d7 * k[6][o];
  }
}

/// Value of the continuous extension at t0 + theta h (theta in [0, 1]) of one component:
/// r1 + theta (r2 + (1 - theta) (r3 + theta (r4 + (1 - theta) r5))). theta = 0 gives y0,
/// theta = 1 gives y1 (to round-off), its derivative is k_1 at 0 and k_7 at 1.
template <class T> SP_HD T dense_value(T theta, T r1, T r2, T r3, T r4, T r5) {
  const T theta1 = T(1) - theta;
  return r1 + theta * (r2 + theta1 * (r3 + theta * (r4 + theta1 * r5)));
}

/// The continuous extension at theta over m strided entries: out_i = dense_value(theta, r_i).
template <class T>
SP_HD void dense_output(int m, int stride, T theta, const T* const* r, T* out) {
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    out[o] = dense_value(theta, r[0][o], r[1][o], r[2][o], r[3][o], r[4][o]);
  }
}

/// Step-size controller constants (DOPRI5's defaults): hnew = h / fac with
/// fac = clamp(err^(1/5 - 0.75 beta) / facold^beta / safety, 1/fac_max, 1/fac_min).
constexpr double kSafety = 0.9;    ///< safety factor
constexpr double kFacMin = 0.2;    ///< hnew / h >= kFacMin
constexpr double kFacMax = 10.0;   ///< hnew / h <= kFacMax
constexpr double kBeta = 0.04;     ///< PI (Lund) stabilisation exponent
constexpr double kFacOldInit = 1e-4;  ///< facold before the first accepted step

/// The controller's memory between steps: facold = max(err, 1e-4) of the last accepted
/// step, and whether the last attempt was rejected (then the next accepted step may not
/// grow h).
template <class T> struct ControllerState {
  T facold = T(kFacOldInit);
  int last_rejected = 0;
};

/// Step-size decision after a step of size h (> 0) with error norm err (error_norm):
/// accepted when err <= 1. Accepted: hnew = h / clamp(err^(0.2 - 0.03) / facold^0.04 / 0.9,
/// 0.1, 5), bounded by h_max (h_max <= 0: no bound) and by h after a rejection; facold =
/// max(err, 1e-4). Rejected: hnew = h / min(5, err^0.17 / 0.9). A non-finite err is a
/// rejection with hnew = 0.2 h. Writes *h_new; returns whether the step is accepted.
template <class T>
SP_HD bool control_step(T err, T h, T h_max, ControllerState<T>* cs, T* h_new) {
  const T facc1 = T(1) / T(kFacMin), facc2 = T(1) / T(kFacMax), safe = T(kSafety), beta = T(kBeta);
  if (!(err <= T(1))) {  // rejected, or NaN
    if (!std::isfinite(err)) {
      *h_new = h * T(kFacMin);
    } else {
      const T fac11 = std::pow(err, T(0.2) - beta * T(0.75)) / safe;
      *h_new = h / (fac11 < facc1 ? fac11 : facc1);
    }
    cs->last_rejected = 1;
    return false;
  }
  const T fac11 = std::pow(err, T(0.2) - beta * T(0.75));
  T fac = fac11 / std::pow(cs->facold, beta) / safe;
  fac = fac < facc1 ? fac : facc1;
  fac = fac > facc2 ? fac : facc2;
  T hn = h / fac;
  if (h_max > T(0) && hn > h_max) hn = h_max;
  if (cs->last_rejected && hn > h) hn = h;
  cs->facold = err > T(kFacOldInit) ? err : T(kFacOldInit);
  cs->last_rejected = 0;
  *h_new = hn;
  return true;
}

/// Smallest step the controller may take at time t [s] on a grid of interval dt:
/// max(min_step, 16 eps max(|t|, dt)) (below it t + h rounds to within a few ulps of t).
template <class T> SP_HD T step_floor(T t, T dt, T min_step) {
  const T at = std::fabs(t);
  const T floor = T(16) * epsilon<T>() * (at > dt ? at : dt);
  return min_step > floor ? min_step : floor;
}

/// First-step estimate, part 1 (Hairer-Norsett-Wanner II.4, "Starting step size" (a)-(b)):
/// with sc_i = atol + rtol |y0_i|, d0 = ||y0|| and d1 = ||f0|| (scaled RMS norms over the
/// m strided entries; entries with sc_i = 0, i.e. atol = 0 and y0_i = 0, are left out of
/// both parts), h0 = 0.01 d0 / d1, or 1e-6 when d0 or d1 < 1e-5; bounded by h_max
/// (<= 0: no bound). Writes d1 to *d1_out (part 2 needs it). The caller then evaluates
/// f1 = f(t0 + h0, y0 + h0 f0) (explicit Euler step) and calls first_step_final.
template <class T>
SP_HD T first_step_trial(int m, int stride, const T* y0, const T* f0, T atol, T rtol, T h_max, T* d1_out) {
  T s0 = T(0), s1 = T(0);
  int counted = 0;
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    const T sc = atol + rtol * std::fabs(y0[o]);
    if (!(sc > T(0))) continue;  // atol = 0 on an entry that is 0: no scale to measure it by
    const T a = y0[o] / sc, b = f0[o] / sc;
    s0 += a * a;
    s1 += b * b;
    ++counted;
  }
  const T mm = T(counted > 0 ? counted : 1);
  const T d0 = std::sqrt(s0 / mm), d1 = std::sqrt(s1 / mm);
  *d1_out = d1;
  T h0 = (d0 < T(1e-5) || d1 < T(1e-5)) ? T(1e-6) : T(0.01) * d0 / d1;
  if (h_max > T(0) && h0 > h_max) h0 = h_max;
  return h0;
}

/// First-step estimate, part 2 ((c)-(f)): d2 = ||f1 - f0|| / h0 estimates the second
/// derivative; h1 = (0.01 / max(d1, d2))^(1/5), or max(1e-6, 1e-3 h0) when
/// max(d1, d2) <= 1e-15; the result is min(100 h0, h1), bounded by h_max (<= 0: no bound).
template <class T>
SP_HD T first_step_final(int m, int stride, const T* y0, const T* f0, const T* f1, T h0, T d1, T atol, T rtol,
                         T h_max) {
  T s2 = T(0);
  int counted = 0;
  for (int i = 0; i < m; ++i) {
    const int o = i * stride;
    const T sc = atol + rtol * std::fabs(y0[o]);
    if (!(sc > T(0))) continue;  // as in first_step_trial
    const T b = (f1[o] - f0[o]) / sc;
    s2 += b * b;
    ++counted;
  }
  const T d2 = std::sqrt(s2 / T(counted > 0 ? counted : 1)) / h0;
  const T dmax = d1 > d2 ? d1 : d2;
  T h1;
  if (!(dmax > T(1e-15))) {
    h1 = T(1e-3) * h0;
    if (h1 < T(1e-6)) h1 = T(1e-6);
  } else {
    h1 = std::pow(T(0.01) / dmax, T(1) / T(kOrder));
  }
  T h = T(100) * h0 < h1 ? T(100) * h0 : h1;
  if (h_max > T(0) && h > h_max) h = h_max;
  return h;
}

}  // namespace dopri5
}  // namespace simphant
