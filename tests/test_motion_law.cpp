// Motion laws (formulas/motion_law.hpp): s' and s'' of every law against central
// differences of s and s', the boundary values of the 3-4-5 and cycloidal rises, the
// natural cubic spline through its knots, C2 at the inner knots, natural ends, held or
// linear outside; and the scene validation of compile_motion_law (scene/law_compile.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/formulas/motion_law.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

struct Law {
  MotionLawType type;
  std::vector<double> p;
};

void eval(const Law& l, double t, double& s, double& sd, double& sdd) {
  motion_law_eval(l.type, l.p.data(), static_cast<int>(l.p.size()), t, s, sd, sdd);
}

Law table_law(const std::vector<double>& x, const std::vector<double>& y) {
  const int n = static_cast<int>(x.size());
  Law l{MotionLawType::Table, std::vector<double>(3 * n)};
  for (int k = 0; k < n; ++k) {
    l.p[k] = x[k];
    l.p[n + k] = y[k];
  }
  natural_spline_m2(x.data(), y.data(), n, l.p.data() + 2 * n);
  return l;
}

std::vector<Law> all_laws() {
  return {
      {MotionLawType::ConstantSpeed, {0.3, 2.5}},
      {MotionLawType::Polynomial, {0.1, -0.7, 1.3, 0.4, -0.25, 0.05, 0.02, -0.003}},
      {MotionLawType::Rise345, {0.2, 0.6, -0.4, 1.7}},
      {MotionLawType::RiseCycloidal, {0.2, 0.6, -0.4, 1.7}},
      {MotionLawType::Harmonic, {0.5, 0.8, 1.3, 0.4}},
      table_law({0.0, 0.15, 0.4, 0.55, 0.9, 1.2}, {0.0, 0.3, -0.2, 0.5, 0.45, 1.0}),
  };
}

// Central differences with h = 1e-5 on laws of size O(1) with derivatives up to ~1e3
// (the rises' jerk h/T^3 ~ 1e2 .. 1e3, the harmonic's (2 pi f)^3 ~ 5e2): truncation
// h^2 |s'''| / 6 ~ 2e-8, rounding ~ eps |s| / h ~ 1e-11. Tolerance 1e-6 (relative to
// max(1, |s''|)) leaves more than an order of margin; a wrong factor fails by O(1).
constexpr double kH = 1e-5;
constexpr double kTol = 1e-6;

TEST(MotionLaw, DerivativesMatchCentralDifferences) {
  int checked = 0;
  for (const Law& l : all_laws()) {
    for (double t = -0.3; t <= 1.6; t += 0.0137) {
      double s, sd, sdd, sp, sdp, sddp, sm, sdm, sddm;
      eval(l, t, s, sd, sdd);
      eval(l, t + kH, sp, sdp, sddp);
      eval(l, t - kH, sm, sdm, sddm);
      ASSERT_TRUE(std::isfinite(s) && std::isfinite(sd) && std::isfinite(sdd));
      EXPECT_NEAR(sd, (sp - sm) / (2 * kH), kTol * std::max(1.0, std::abs(sd))) << int(l.type) << " t " << t;
      EXPECT_NEAR(sdd, (sdp - sdm) / (2 * kH), kTol * std::max(1.0, std::abs(sdd))) << int(l.type) << " t " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 800);
}

TEST(MotionLaw, ClosedFormValues) {
  double s, sd, sdd;
  eval({MotionLawType::ConstantSpeed, {0.3, 2.5}}, 0.4, s, sd, sdd);
  EXPECT_DOUBLE_EQ(s, 0.3 + 2.5 * 0.4);
  EXPECT_EQ(sdd, 0.0);
  eval({MotionLawType::Polynomial, {1.0, 2.0, 3.0}}, 2.0, s, sd, sdd);
  EXPECT_DOUBLE_EQ(s, 1 + 4 + 12);
  EXPECT_DOUBLE_EQ(sd, 2 + 12);
  EXPECT_DOUBLE_EQ(sdd, 6);
  const double f = 1.3, ph = 0.4, w = 2 * M_PI * f, t = 0.77;
  eval({MotionLawType::Harmonic, {0.5, 0.8, f, ph}}, t, s, sd, sdd);
  EXPECT_NEAR(s, 0.5 + 0.8 * std::sin(w * t + ph), 1e-15);
  EXPECT_NEAR(sd, 0.8 * w * std::cos(w * t + ph), 1e-14);
}

// The rises: s0 with s' = s'' = 0 at the start, s0 + h with s' = s'' = 0 at the end, half
// the lift at mid-time with the peak speed (3-4-5: 15/8 h/T, cycloidal: 2 h/T).
TEST(MotionLaw, RiseBoundaryValues) {
  const double t0 = 0.2, T = 0.6, s0 = -0.4, h = 1.7;
  for (MotionLawType type : {MotionLawType::Rise345, MotionLawType::RiseCycloidal}) {
    const Law l{type, {t0, T, s0, h}};
    double s, sd, sdd;
    for (double t : {t0 - 1.0, t0, t0 + 1e-12}) {
      eval(l, t, s, sd, sdd);
      EXPECT_NEAR(s, s0, 1e-12);
      EXPECT_NEAR(sd, 0.0, 1e-9);
      EXPECT_NEAR(sdd, 0.0, 1e-9);
    }
    for (double t : {t0 + T - 1e-12, t0 + T, t0 + T + 1.0}) {
      eval(l, t, s, sd, sdd);
      EXPECT_NEAR(s, s0 + h, 1e-12);
      EXPECT_NEAR(sd, 0.0, 1e-9);
      EXPECT_NEAR(sdd, 0.0, 1e-9);
    }
    eval(l, t0 + 0.5 * T, s, sd, sdd);
    EXPECT_NEAR(s, s0 + 0.5 * h, 1e-14);
    EXPECT_NEAR(sd, (type == MotionLawType::Rise345 ? 15.0 / 8.0 : 2.0) * h / T, 1e-13);
    EXPECT_NEAR(sdd, 0.0, 1e-12);
  }
}

TEST(MotionLaw, SplineInterpolatesIsC2AndNatural) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0.05, 0.5), v(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + trial % 9;
    std::vector<double> x(n), y(n);
    x[0] = v(g);
    for (int k = 0; k < n; ++k) {
      if (k > 0) x[k] = x[k - 1] + u(g);
      y[k] = v(g);
    }
    const Law l = table_law(x, y);
    const double* m2 = l.p.data() + 2 * n;
    EXPECT_EQ(m2[0], 0.0);
    EXPECT_EQ(m2[n - 1], 0.0);
    double s, sd, sdd;
    for (int k = 0; k < n; ++k) {
      eval(l, x[k], s, sd, sdd);
      EXPECT_NEAR(s, y[k], 1e-14) << "knot " << k;
    }
    // Both one-sided limits at each inner knot: s, s', s'' continuous (C2); the
    // differences of the formulas across the knot are O(d) = 1e-9 times the derivative.
    const double d = 1e-9;
    for (int k = 1; k < n - 1; ++k) {
      double sl, sdl, sddl, sr, sdr, sddr;
      eval(l, x[k] - d, sl, sdl, sddl);
      eval(l, x[k] + d, sr, sdr, sddr);
      EXPECT_NEAR(sl, sr, 1e-7);
      EXPECT_NEAR(sdl, sdr, 1e-6);
      EXPECT_NEAR(sddl, sddr, 1e-5);
      eval(l, x[k], s, sd, sdd);
      EXPECT_NEAR(sdd, m2[k], 1e-9);
    }
    // Held outside; the tangent continuation when linear_outside.
    eval(l, x[0] - 0.3, s, sd, sdd);
    EXPECT_EQ(s, y[0]);
    EXPECT_EQ(sd, 0.0);
    double e0, e0d, e0dd, lo, lod, lodd;
    spline_eval(l.p.data(), l.p.data() + n, m2, n, x[0] + 1e-9, true, e0, e0d, e0dd);
    spline_eval(l.p.data(), l.p.data() + n, m2, n, x[0] - 0.3, true, lo, lod, lodd);
    EXPECT_NEAR(lod, e0d, 1e-6);
    EXPECT_NEAR(lo, y[0] - 0.3 * lod, 1e-14);
    double e1, e1d, e1dd, hi, hid, hidd;
    spline_eval(l.p.data(), l.p.data() + n, m2, n, x[n - 1] - 1e-9, true, e1, e1d, e1dd);
    spline_eval(l.p.data(), l.p.data() + n, m2, n, x[n - 1] + 0.2, true, hi, hid, hidd);
    EXPECT_NEAR(hid, e1d, 1e-6);
    EXPECT_NEAR(hi, y[n - 1] + 0.2 * hid, 1e-14);
    EXPECT_EQ(hidd, 0.0);
  }
}

// A natural spline through samples of a straight line is that line (m2 = 0).
TEST(MotionLaw, SplineOfALineIsTheLine) {
  const Law l = table_law({0.0, 0.3, 0.5, 1.1}, {1.0, 1.6, 2.0, 3.2});
  double s, sd, sdd;
  eval(l, 0.77, s, sd, sdd);
  EXPECT_NEAR(s, 1.0 + 2.0 * 0.77, 1e-14);
  EXPECT_NEAR(sd, 2.0, 1e-13);
  EXPECT_NEAR(sdd, 0.0, 1e-12);
}

std::string compile_error(const char* text) {
  Model m;
  try {
    scene_detail::compile_motion_law(nlohmann::json::parse(text), "/drivers/0/law", m);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

TEST(MotionLaw, CompileAppendsLaws) {
  Model m;
  const auto j = nlohmann::json::parse(R"({"type":"table","time":[0,1,3],"value":[0,2,1]})");
  EXPECT_EQ(scene_detail::compile_motion_law(j, "/x", m), 0);
  EXPECT_EQ(scene_detail::compile_motion_law(nlohmann::json::parse(R"({"type":"constant_speed","speed":3})"), "/y", m), 1);
  ASSERT_EQ(m.laws.size(), 2u);
  EXPECT_EQ(m.laws[0].type, MotionLawType::Table);
  EXPECT_EQ(m.laws[0].params.size(), 9u);
  EXPECT_NE(m.laws[0].params[7], 0.0);  // inner knot's second derivative
  EXPECT_EQ(m.laws[1].params, (std::vector<double>{0.0, 3.0}));
}

TEST(MotionLaw, CompileErrorsNameTheField) {
  const auto has = [](const std::string& msg, const char* path, const char* reason) {
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << msg;
  };
  has(compile_error(R"({"type":"spiral"})"), "/drivers/0/law/type", "unknown motion law type");
  has(compile_error(R"({"speed":1})"), "/drivers/0/law/type", "required key is missing");
  has(compile_error(R"({"type":"constant_speed"})"), "/drivers/0/law/speed", "required key is missing");
  has(compile_error(R"({"type":"constant_speed","speed":1,"sped":2})"), "/drivers/0/law/sped", "unknown key");
  has(compile_error(R"({"type":"table","time":[0,1,2,2],"value":[0,1,2,3]})"), "/drivers/0/law/time/3",
      "strictly increasing");
  has(compile_error(R"({"type":"table","time":[0],"value":[0]})"), "/drivers/0/law/time", "at least 2");
  has(compile_error(R"({"type":"table","time":[0,1],"value":[0,1,2]})"), "/drivers/0/law/value", "as many entries");
  has(compile_error(R"({"type":"rise","profile":"345","duration":0,"lift":1})"), "/drivers/0/law/duration", "> 0");
  has(compile_error(R"({"type":"rise","profile":"sine","duration":1,"lift":1})"), "/drivers/0/law/profile", "345");
  has(compile_error(R"({"type":"polynomial","coefficients":[1,2,3,4,5,6,7,8,9]})"), "/drivers/0/law/coefficients",
      "at most 8");
  has(compile_error(R"({"type":"harmonic","amplitude":1,"frequency":"x"})"), "/drivers/0/law/frequency", "number");
  has(compile_error(R"({"type":"polynomial","coefficients":[1,null]})"), "/drivers/0/law/coefficients/1", "number");
  has(compile_error(R"([1,2])"), "/drivers/0/law", "object");
}

}  // namespace
}  // namespace simphant
