// The Dormand-Prince 5(4) header (formulas/dopri5.hpp) on ODEs with closed-form
// solutions: the tableau's order conditions, observed order 5 of the solution, order 5
// of the local error estimate, order 4 of the dense output, strided vectors, the
// controller's formulas and the first-step estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "simphant/formulas/dopri5.hpp"

namespace {

using namespace simphant;

/// One Dormand-Prince step of y' = f(t, y) on m entries with stride s (stage storage
/// k[0..6], each m * s long). Returns y1 in y1 and the stages in k.
template <class T, class F>
void step(const F& f, int m, int s, T t, T h, const std::vector<T>& y0, std::vector<std::vector<T>>& k,
          std::vector<T>& y1) {
  std::vector<T> ys(y0.size());
  const T* kp[7];
  for (int j = 0; j < 7; ++j) kp[j] = k[j].data();
  f(t, y0.data(), k[0].data());
  for (int st = 2; st <= 7; ++st) {
    dopri5::stage_state<T>(st, m, s, h, y0.data(), kp, ys.data());
    f(t + dopri5::node<T>(st) * h, ys.data(), k[st - 1].data());
  }
  y1 = ys;  // stage 7's state is the 5th-order solution
}

std::vector<std::vector<double>> stages(std::size_t n) { return std::vector<std::vector<double>>(7, std::vector<double>(n)); }

/// y' = -y (scalar): y(t) = exp(-t).
const auto decay = [](double, const double* y, double* f) { f[0] = -y[0]; };

TEST(Dopri5Tableau, RowSumsAndOrderConditions) {
  // c_s = sum_j a_sj (the stages are consistent), and the weights b satisfy the order
  // conditions up to order 5 that involve the nodes only plus the ones with a (Butcher
  // trees); the embedded weights bhat = b - e satisfy those up to order 4. The
  // rationals are exact, so the sums hold to a few ulps of the largest term (|a| < 12).
  const double tol = 64 * 2.2e-16 * 12;
  for (int s = 2; s <= 7; ++s) {
    double sum = 0;
    for (int j = 1; j < s; ++j) sum += dopri5::coefficient<double>(s, j);
    EXPECT_NEAR(sum, dopri5::node<double>(s), tol) << "row " << s;
  }
  const auto c = [](int j) { return dopri5::node<double>(j); };
  const auto a = [](int s, int j) { return dopri5::coefficient<double>(s, j); };
  const auto check = [&](auto w, int order, const char* name) {
    for (int q = 1; q <= order; ++q) {  // bushy trees: sum w c^(q-1) = 1/q
      double sum = 0;
      for (int j = 1; j <= 7; ++j) sum += w(j) * std::pow(c(j), q - 1);
      EXPECT_NEAR(sum, 1.0 / q, tol) << name << " q=" << q;
    }
    double s3 = 0, s4 = 0;  // sum w_i a_ij c_j = 1/6, sum w_i a_ij a_jk c_k = 1/24
    for (int i = 1; i <= 7; ++i)
      for (int j = 1; j < i; ++j) {
        s3 += w(i) * a(i, j) * c(j);
        for (int l = 1; l < j; ++l) s4 += w(i) * a(i, j) * a(j, l) * c(l);
      }
    EXPECT_NEAR(s3, 1.0 / 6, tol) << name;
    EXPECT_NEAR(s4, 1.0 / 24, tol) << name;
  };
  check([](int j) { return dopri5::weight<double>(j); }, 5, "b");
  check([](int j) { return dopri5::weight<double>(j) - dopri5::error_weight<double>(j); }, 4, "bhat");
  // The embedded 4th-order weights fail the 5th bushy-tree condition: e carries the
  // order-5 error term, so sum e_j c_j^4 != 0.
  double e_sum = 0, e_c4 = 0;
  for (int j = 1; j <= 7; ++j) {
    e_sum += dopri5::error_weight<double>(j);
    e_c4 += dopri5::error_weight<double>(j) * std::pow(c(j), 4);
  }
  EXPECT_NEAR(e_sum, 0.0, tol);
  EXPECT_GT(std::fabs(e_c4), 1e-4);
  EXPECT_EQ(dopri5::weight<double>(7), 0.0);  // FSAL: the 7th stage only feeds the error
}

/// Global error at t = 1 of y' = -y with n fixed steps.
double decay_error(int n) {
  std::vector<double> y{1.0}, y1;
  auto k = stages(1);
  const double h = 1.0 / n;
  for (int i = 0; i < n; ++i) {
    step(decay, 1, 1, i * h, h, y, k, y1);
    y = y1;
  }
  return std::fabs(y[0] - std::exp(-1.0));
}

TEST(Dopri5Order, GlobalErrorOrderFiveOnDecay) {
  // Halving h divides the global error by 2^5 = 32. With h = 1/16 .. 1/64 the error
  // (1e-10 .. 1e-13) stays far above round-off (64 steps * 1e-16), so the observed order
  // is 5 to within the next term of the error expansion (measured 5.08 and 5.04; at
  // h = 1/4 it is still 5.29).
  for (int n : {16, 32}) {
    const double p = std::log2(decay_error(n) / decay_error(2 * n));
    EXPECT_NEAR(p, 5.0, 0.15) << "n=" << n;
  }
}

TEST(Dopri5Order, LocalErrorEstimateOrderFive) {
  // The embedded estimate h sum e_j k_j is the local error of the 4th-order solution,
  // O(h^5): halving h divides it by 32. For y' = -y each stage is a polynomial in h, so
  // the estimate is C h^5 (1 + O(h)).
  const auto est = [](double h) {
    std::vector<double> y{1.0}, y1;
    auto k = stages(1);
    step(decay, 1, 1, 0.0, h, y, k, y1);
    const double* kp[7];
    for (int j = 0; j < 7; ++j) kp[j] = k[j].data();
    // atol = 1, rtol = 0: the norm is the plain error estimate.
    return dopri5::error_norm<double>(1, 1, h, y.data(), y1.data(), kp, 1.0, 0.0);
  };
  for (double h : {0.2, 0.1}) EXPECT_NEAR(std::log2(est(h) / est(h / 2)), 5.0, 0.1) << "h=" << h;
  // And it estimates the true local error of the 4th-order solution y1 - est: the
  // difference of y1 from exp(-h) is O(h^6), so y1_hat's error equals the estimate to
  // O(h^6) (checked with the sign through the 4th-order solution itself).
  const double h = 0.05;
  std::vector<double> y{1.0}, y1;
  auto k = stages(1);
  step(decay, 1, 1, 0.0, h, y, k, y1);
  double e = 0;
  for (int j = 1; j <= 7; ++j) e += h * dopri5::error_weight<double>(j) * k[j - 1][0];
  const double y4 = y1[0] - e, exact = std::exp(-h);
  EXPECT_NEAR((y4 - exact) / (-e), 1.0, 0.05);  // the estimate is the error to 5 %
}

TEST(Dopri5DenseOutput, EndpointsAndOrderFourAtMidStep) {
  // Continuous extension of one step of y' = -y from y = 1: theta = 0 and 1 give y0 and
  // y1 to round-off; at theta = 1/2 the local error is O(h^5) (an order-4 interpolant),
  // so halving h divides it by 32.
  const auto mid_error = [](double h, double theta, double* at0, double* at1, double* y1_out) {
    std::vector<double> y{1.0}, y1;
    auto k = stages(1);
    step(decay, 1, 1, 0.0, h, y, k, y1);
    const double* kp[7];
    for (int j = 0; j < 7; ++j) kp[j] = k[j].data();
    double r[5];
    double* rp[5] = {&r[0], &r[1], &r[2], &r[3], &r[4]};
    dopri5::dense_coefficients<double>(1, 1, h, y.data(), y1.data(), kp, rp);
    double out;
    const double* rc[5] = {rp[0], rp[1], rp[2], rp[3], rp[4]};
    dopri5::dense_output<double>(1, 1, theta, rc, &out);
    *at0 = dopri5::dense_value(0.0, r[0], r[1], r[2], r[3], r[4]);
    *at1 = dopri5::dense_value(1.0, r[0], r[1], r[2], r[3], r[4]);
    *y1_out = y1[0];
    return std::fabs(out - std::exp(-theta * h));
  };
  double a0, a1, y1;
  for (double h : {0.2, 0.1}) {
    const double e1 = mid_error(h, 0.5, &a0, &a1, &y1), e2 = mid_error(h / 2, 0.5, &a0, &a1, &y1);
    EXPECT_NEAR(std::log2(e1 / e2), 5.0, 0.2) << "h=" << h;
  }
  mid_error(0.3, 0.5, &a0, &a1, &y1);
  EXPECT_EQ(a0, 1.0);
  EXPECT_NEAR(a1, y1, 4 * 2.2e-16);
}

/// Harmonic oscillator x'' = -x as (x, v) stored with stride s inside a larger array.
template <class T>
struct Oscillator {
  int s;
  void operator()(T, const T* y, T* f) const {
    f[0] = y[s];
    f[s] = -y[0];
  }
};

TEST(Dopri5Strided, StrideGivesTheSameBitsAsContiguous) {
  // The GPU's structure of arrays reads component i of instance r at i * n + r; the
  // same step over stride 3 must equal the contiguous one bit for bit.
  const int m = 2;
  std::vector<double> yc{1.0, 0.25}, yc1;
  std::vector<double> ys(m * 3, 7.0), ys1;  // padding entries hold 7 and must stay
  ys[0] = 1.0;
  ys[3] = 0.25;
  auto kc = stages(m);
  auto kstr = stages(m * 3);
  for (int i = 0; i < 10; ++i) {
    step(Oscillator<double>{1}, m, 1, 0.0, 0.1, yc, kc, yc1);
    step(Oscillator<double>{3}, m, 3, 0.0, 0.1, ys, kstr, ys1);
    yc = yc1;
    for (int c = 0; c < m; ++c) ys[3 * c] = ys1[3 * c];
  }
  EXPECT_EQ(yc[0], ys[0]);
  EXPECT_EQ(yc[1], ys[3]);
  // 10 steps of h = 0.1: global error ~ 10 * h^6 / 720 ~ 1e-8 (measured 2.4e-9).
  EXPECT_NEAR(yc[0], std::cos(1.0) + 0.25 * std::sin(1.0), 1e-8);
  const double* kc_p[7];
  const double* ks_p[7];
  for (int j = 0; j < 7; ++j) {
    kc_p[j] = kc[j].data();
    ks_p[j] = kstr[j].data();
  }
  // error norm over the two layouts of the last step
  std::vector<double> y0c{1.0, 0.25}, y0s(6, 7.0);
  y0s[0] = 1.0;
  y0s[3] = 0.25;
  step(Oscillator<double>{1}, m, 1, 0.0, 0.1, y0c, kc, yc1);
  step(Oscillator<double>{3}, m, 3, 0.0, 0.1, y0s, kstr, ys1);
  EXPECT_EQ(dopri5::error_norm<double>(m, 1, 0.1, y0c.data(), yc1.data(), kc_p, 1e-9, 1e-6),
            dopri5::error_norm<double>(m, 3, 0.1, y0s.data(), ys1.data(), ks_p, 1e-9, 1e-6));
  std::vector<double> rc(5 * m), rs(5 * 3 * m, 7.0), oc(m), os(3 * m, 7.0);
  double* rcp[5];
  double* rsp[5];
  for (int j = 0; j < 5; ++j) {
    rcp[j] = rc.data() + j * m;
    rsp[j] = rs.data() + j * 3 * m;
  }
  dopri5::dense_coefficients<double>(m, 1, 0.1, y0c.data(), yc1.data(), kc_p, rcp);
  dopri5::dense_coefficients<double>(m, 3, 0.1, y0s.data(), ys1.data(), ks_p, rsp);
  const double* rcc[5] = {rcp[0], rcp[1], rcp[2], rcp[3], rcp[4]};
  const double* rsc[5] = {rsp[0], rsp[1], rsp[2], rsp[3], rsp[4]};
  dopri5::dense_output<double>(m, 1, 0.37, rcc, oc.data());
  dopri5::dense_output<double>(m, 3, 0.37, rsc, os.data());
  EXPECT_EQ(oc[0], os[0]);
  EXPECT_EQ(oc[1], os[3]);
  EXPECT_EQ(os[1], 7.0);  // entries between the strided ones are untouched
  EXPECT_EQ(os[5], 7.0);
}

TEST(Dopri5Controller, FormulasOfDopri5) {
  dopri5::ControllerState<double> cs;
  double hn = 0;
  // Accepted with err = 0.5 from the initial facold 1e-4:
  // fac = 0.5^0.17 / 1e-4^0.04 / 0.9 (clamped to [0.1, 5]), hnew = h / fac.
  ASSERT_TRUE(dopri5::control_step(0.5, 0.01, 0.0, &cs, &hn));
  const double fac = std::pow(0.5, 0.17) / std::pow(1e-4, 0.04) / 0.9;
  EXPECT_NEAR(hn, 0.01 / fac, 1e-15);
  EXPECT_EQ(cs.facold, 0.5);
  // err = 0: the growth is capped at kFacMax = 10, and by h_max.
  ASSERT_TRUE(dopri5::control_step(0.0, 0.01, 0.0, &cs, &hn));
  EXPECT_NEAR(hn, 0.1, 1e-15);
  EXPECT_EQ(cs.facold, 1e-4);
  ASSERT_TRUE(dopri5::control_step(0.0, 0.01, 0.03, &cs, &hn));
  EXPECT_EQ(hn, 0.03);
  // Rejected with err = 4: hnew = h / min(5, 4^0.17 / 0.9); err = 1e6 shrinks by 5.
  EXPECT_FALSE(dopri5::control_step(4.0, 0.01, 0.0, &cs, &hn));
  EXPECT_NEAR(hn, 0.01 / (std::pow(4.0, 0.17) / 0.9), 1e-15);
  EXPECT_EQ(cs.last_rejected, 1);
  EXPECT_FALSE(dopri5::control_step(1e6, 0.01, 0.0, &cs, &hn));
  EXPECT_NEAR(hn, 0.002, 1e-17);
  // A non-finite error is a rejection with the smallest factor.
  EXPECT_FALSE(dopri5::control_step(std::nan(""), 0.01, 0.0, &cs, &hn));
  EXPECT_NEAR(hn, 0.002, 1e-17);
  // After a rejection an accepted step may not grow h.
  ASSERT_TRUE(dopri5::control_step(1e-3, 0.01, 0.0, &cs, &hn));
  EXPECT_EQ(hn, 0.01);
  EXPECT_EQ(cs.last_rejected, 0);
  // The floor: 16 eps max(|t|, dt) unless min_step is larger.
  EXPECT_EQ(dopri5::step_floor(100.0, 1e-3, 0.0), 16 * 2.220446049250313e-16 * 100.0);
  EXPECT_EQ(dopri5::step_floor(0.0, 1e-3, 0.0), 16 * 2.220446049250313e-16 * 1e-3);
  EXPECT_EQ(dopri5::step_floor(0.0, 1e-3, 1e-5), 1e-5);
}

TEST(Dopri5FirstStep, HairerEstimateOnLinearDecay) {
  // y' = -lambda y, y0 = 1, atol = 0, rtol = r: sc = r, d0 = 1/r, d1 = lambda/r, h0 = 0.01 /
  // lambda; f1 - f0 = lambda^2 h0, d2 = lambda^2 / r; h1 = (0.01 r / lambda^2)^(1/5)
  // (lambda > 1: d2 > d1); h = min(100 h0, h1).
  const double lambda = 50.0, r = 1e-6;
  const double y0 = 1.0, f0 = -lambda * y0;
  double d1 = 0;
  const double h0 = dopri5::first_step_trial<double>(1, 1, &y0, &f0, 0.0, r, 0.0, &d1);
  EXPECT_NEAR(h0, 0.01 / lambda, 1e-17);
  EXPECT_NEAR(d1, lambda / r, 1e-6);
  const double y1 = y0 + h0 * f0, f1 = -lambda * y1;
  const double h = dopri5::first_step_final<double>(1, 1, &y0, &f0, &f1, h0, d1, 0.0, r, 0.0);
  EXPECT_NEAR(h, std::pow(0.01 * r / (lambda * lambda), 0.2), 1e-12);
  // h_max bounds both parts; a state at rest (f = 0) falls back to h0 = 1e-6, then
  // h1 = max(1e-6, 1e-3 h0) = 1e-6.
  EXPECT_EQ(dopri5::first_step_final<double>(1, 1, &y0, &f0, &f1, h0, d1, 0.0, r, 1e-5), 1e-5);
  const double zero = 0.0;
  const double hr0 = dopri5::first_step_trial<double>(1, 1, &y0, &zero, 1e-9, r, 0.0, &d1);
  EXPECT_EQ(hr0, 1e-6);
  EXPECT_EQ(dopri5::first_step_final<double>(1, 1, &y0, &zero, &zero, hr0, d1, 1e-9, r, 0.0), 1e-6);
}

TEST(Dopri5Controller, ZeroAbsoluteToleranceOnEntriesThatStayZero) {
  // atol = 0 is allowed: an entry that is 0 at both ends with no error estimate (a
  // component of a planar motion) adds nothing instead of 0/0; an error on an entry
  // whose scale is 0 cannot be accepted (+inf). The first-step estimate leaves such
  // entries out: the same h as without them.
  std::vector<double> y0{1.0, 0.0}, y1{0.9, 0.0};
  std::vector<std::vector<double>> k(7, std::vector<double>{-1.0, 0.0});
  const double* kp[7];
  for (int j = 0; j < 7; ++j) kp[j] = k[j].data();
  k[3][0] = -1.1;  // a nonzero estimate in entry 0 only
  const double e2 = dopri5::error_norm<double>(2, 1, 0.1, y0.data(), y1.data(), kp, 0.0, 1e-3);
  const double e1 = dopri5::error_norm<double>(1, 1, 0.1, y0.data(), y1.data(), kp, 0.0, 1e-3);
  EXPECT_TRUE(std::isfinite(e2));
  EXPECT_NEAR(e2, e1 / std::sqrt(2.0), 1e-15 * e1);
  k[3][1] = 1.0;  // an error where the scale is 0
  EXPECT_EQ(dopri5::error_norm<double>(2, 1, 0.1, y0.data(), y1.data(), kp, 0.0, 1e-3), INFINITY);
  const double ya[2] = {1.0, 0.0}, fa[2] = {-1.0, 0.0};
  double d1a = 0, d1b = 0;
  const double ha = dopri5::first_step_trial<double>(2, 1, ya, fa, 0.0, 1e-3, 0.0, &d1a);
  const double hb = dopri5::first_step_trial<double>(1, 1, ya, fa, 0.0, 1e-3, 0.0, &d1b);
  EXPECT_EQ(ha, hb);
  EXPECT_EQ(d1a, d1b);
  const double f1[2] = {-0.99, 0.0};
  EXPECT_EQ(dopri5::first_step_final<double>(2, 1, ya, fa, f1, ha, d1a, 0.0, 1e-3, 0.0),
            dopri5::first_step_final<double>(1, 1, ya, fa, f1, hb, d1b, 0.0, 1e-3, 0.0));
}

/// Adaptive integration of y' = f on [0, t_end] with the header's controller and
/// first step: the pattern of the CPU path (FSAL, accept / reject), on plain vectors.
template <class F>
double adaptive(const F& f, std::vector<double> y, double t_end, double rtol, double atol, int* accepted,
                int* rejected, std::vector<double>* out) {
  const int m = static_cast<int>(y.size());
  auto k = stages(y.size());
  std::vector<double> ys(y.size()), y1(y.size());
  const double* kp[7];
  for (int j = 0; j < 7; ++j) kp[j] = k[j].data();
  double t = 0;
  f(t, y.data(), k[0].data());
  double d1;
  const double h0 = dopri5::first_step_trial<double>(m, 1, y.data(), k[0].data(), atol, rtol, 0.0, &d1);
  for (int i = 0; i < m; ++i) ys[i] = y[i] + h0 * k[0][i];
  f(t + h0, ys.data(), k[1].data());
  double h = dopri5::first_step_final<double>(m, 1, y.data(), k[0].data(), k[1].data(), h0, d1, atol, rtol, 0.0);
  dopri5::ControllerState<double> cs;
  *accepted = *rejected = 0;
  while (t < t_end) {
    if (t + h > t_end) h = t_end - t;  // this scalar driver clips; the backend interpolates
    for (int s = 2; s <= 7; ++s) {
      dopri5::stage_state<double>(s, m, 1, h, y.data(), kp, s == 7 ? y1.data() : ys.data());
      f(t + dopri5::node<double>(s) * h, s == 7 ? y1.data() : ys.data(), k[s - 1].data());
    }
    const double err = dopri5::error_norm<double>(m, 1, h, y.data(), y1.data(), kp, atol, rtol);
    double hn;
    if (dopri5::control_step(err, h, 0.0, &cs, &hn)) {
      ++*accepted;
      t += h;
      y = y1;
      k[0] = k[6];
    } else {
      ++*rejected;
    }
    h = hn;
  }
  *out = y;
  return t;
}

TEST(Dopri5Controller, AchievedErrorFollowsRtol) {
  // Oscillator over 10 periods' worth of time: the controller keeps each step's local
  // error near rtol, so the global error falls roughly in proportion to rtol (within the
  // factor the accumulation over the steps and the h^5 / h^4 mismatch allow: measured
  // ratios per decade 8-12). It must be below 100 rtol and the step count grow as
  // rtol^(-1/5).
  const double t_end = 20.0;
  double prev_err = 0;
  int prev_steps = 0;
  for (double rtol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    int acc, rej;
    std::vector<double> y;
    adaptive(Oscillator<double>{1}, {1.0, 0.0}, t_end, rtol, rtol * 1e-3, &acc, &rej, &y);
    const double err = std::hypot(y[0] - std::cos(t_end), y[1] + std::sin(t_end));
    EXPECT_LT(err, 100 * rtol) << "rtol=" << rtol;
    if (prev_err > 0) {
      EXPECT_LT(err, prev_err / 20) << "rtol=" << rtol;  // two decades of rtol: > 20x
      EXPECT_NEAR(static_cast<double>(acc) / prev_steps, std::pow(100.0, 0.2), 0.6) << "rtol=" << rtol;
    }
    prev_err = err;
    prev_steps = acc;
  }
}

TEST(Dopri5Float, SinglePrecisionFollowsDouble) {
  // The float instantiation (the GPU's float mode) computes the same method: n steps on
  // y' = -y agree with the double ones to float round-off, a few ulps (eps_f = 1.2e-7)
  // per step and stage (bound 8 n eps_f |y|).
  const auto run = [](auto zero, int n) {
    using T = decltype(zero);
    std::vector<T> y{T(1)}, y1;
    std::vector<std::vector<T>> k(7, std::vector<T>(1));
    const auto f = [](T, const T* yy, T* ff) { ff[0] = -yy[0]; };
    for (int i = 0; i < n; ++i) {
      step(f, 1, 1, T(i) / T(n), T(1) / T(n), y, k, y1);
      y = y1;
    }
    return static_cast<double>(y[0]);
  };
  for (int n : {2, 4, 8}) {
    const double yd = run(0.0, n), yf = run(0.0f, n);
    EXPECT_NEAR(yf, yd, 8 * n * 1.2e-7 * yd) << "n=" << n;
    EXPECT_NE(yf, yd);  // it really ran in float
  }
  EXPECT_EQ(dopri5::epsilon<float>(), 1.1920928955078125e-7f);
  EXPECT_EQ(dopri5::epsilon<double>(), 2.220446049250313e-16);
}

}  // namespace
