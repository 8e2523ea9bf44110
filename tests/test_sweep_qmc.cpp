// Sobol' and Saltelli designs and correlated normals of the sweep (docs/scene-format.md,
// "Sweep"). The points against closed forms (the first Sobol' dimension is the van der
// Corput sequence in Gray-code order; the first two form a (0, m, 2)-net); scipy and
// SALib cross-checks are in tests/python/test_doe.py.
#include <algorithm>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "simphant/scene/scene.hpp"
#include "sweep_scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

Scene parse(const json& sweep) { return parse_scene(test::two_body_scene_with(sweep).dump(), "doe.json"); }

void expect_error(const json& sweep, const std::string& path, const std::string& fragment) {
  test::expect_scene_error([&] { parse(sweep); }, path, fragment);
}

json uniform01(const std::string& path) { return {{"path", path}, {"dist", "uniform"}, {"low", 0}, {"high", 1}}; }
json normal(const std::string& path, double mean, double sd) {
  return {{"path", path}, {"dist", "normal"}, {"mean", mean}, {"std", sd}};
}

/// Radical inverse in base 2 of k (32 bits): the van der Corput point.
double radical_inverse(std::uint32_t k) {
  double u = 0, f = 0.5;
  for (; k != 0; k >>= 1, f *= 0.5) u += (k & 1u) ? f : 0.0;
  return u;
}

TEST(SweepSobol, FirstDimensionIsVanDerCorputInGrayCodeOrder) {
  const Scene s = parse({{"mode", "sobol"}, {"instances", 1024}, {"parameters", {uniform01("bodies.a.mass")}}});
  const SweepSamples v = sample_sweep(s.sweep);
  ASSERT_EQ(v.n_instances, 1024);
  for (std::uint32_t k = 0; k < 1024; ++k) EXPECT_EQ(v.values[0][k], radical_inverse(k ^ (k >> 1))) << "point " << k;
}

/// Each of the 2^m elementary intervals [i 2^-a, (i+1) 2^-a) x [j 2^-b, (j+1) 2^-b),
/// a + b = m, holds exactly one of the 2^m points: a (0, m, 2)-net.
void expect_net(const std::vector<double>& x, const std::vector<double>& y, int m) {
  const int n = 1 << m;
  for (int a = 0; a <= m; ++a) {
    std::vector<int> count(static_cast<std::size_t>(n), 0);
    for (int k = 0; k < n; ++k) {
      const int i = static_cast<int>(std::floor(x[k] * (1 << a)));
      const int j = static_cast<int>(std::floor(y[k] * (1 << (m - a))));
      ++count[static_cast<std::size_t>(i * (1 << (m - a)) + j)];
    }
    EXPECT_EQ(*std::min_element(count.begin(), count.end()), 1) << "a = " << a;
    EXPECT_EQ(*std::max_element(count.begin(), count.end()), 1) << "a = " << a;
  }
}

TEST(SweepSobol, FirstTwoDimensionsFormANetAlsoScrambled) {
  for (bool scramble : {false, true}) {
    const Scene s = parse({{"mode", "sobol"},
                           {"instances", 256},
                           {"seed", 5},
                           {"scramble", scramble},
                           {"parameters", {uniform01("bodies.a.mass"), uniform01("bodies.b.mass")}}});
    const SweepSamples v = sample_sweep(s.sweep);
    expect_net(v.values[0], v.values[1], 8);
  }
}

TEST(SweepSobol, ScrambleIsADigitalShiftReproducibleFromTheSeed) {
  json sw = {{"mode", "sobol"}, {"instances", 64}, {"seed", 11}, {"scramble", true},
             {"parameters", {uniform01("bodies.a.mass"), uniform01("bodies.b.mass")}}};
  const SweepSamples a = sample_sweep(parse(sw).sweep);
  const SweepSamples b = sample_sweep(parse(sw).sweep);
  EXPECT_EQ(a.values, b.values);
  sw["seed"] = 12;
  const SweepSamples c = sample_sweep(parse(sw).sweep);
  EXPECT_NE(a.values, c.values);
  sw["scramble"] = false;
  const SweepSamples plain = sample_sweep(parse(sw).sweep);
  // XOR with one word per dimension: x_k ^ x_0 is the unscrambled point k (53 bits kept).
  for (int d = 0; d < 2; ++d)
    for (std::size_t k = 0; k < 64; ++k) {
      const auto bits = [](double u) { return static_cast<std::uint64_t>(u * 0x1p53); };
      EXPECT_EQ(bits(a.values[d][k]) ^ bits(a.values[d][0]), bits(plain.values[d][k])) << d << " " << k;
    }
}

TEST(SweepSobol, NormalAndListGoThroughTheirInverseCdfs) {
  const Scene s = parse({{"mode", "sobol"}, {"instances", 8},
                         {"parameters", {{{"path", "bodies.b.mass"}, {"dist", "list"}, {"values", {1, 2, 3, 4}}},
                                         normal("bodies.a.mass", 2, 0.1)}}});
  const SweepSamples v = sample_sweep(s.sweep);
  for (std::uint32_t k = 0; k < 8; ++k)  // values[floor(4 u)] of the van der Corput u
    EXPECT_EQ(v.values[0][k], 1.0 + std::floor(4 * radical_inverse(k ^ (k >> 1)))) << k;
  EXPECT_EQ(v.values[1][1], 2.0);  // u = 1/2 (every dimension's point 1): the median
}

TEST(SweepSaltelli, RowsCrossSampleMatricesAAndBInSalibOrder) {
  for (bool second : {true, false}) {
    const Scene s = parse({{"mode", "saltelli"}, {"base", 8}, {"second_order", second},
                           {"parameters", {uniform01("bodies.a.mass"), uniform01("bodies.b.mass"), uniform01("gravity[0]")}}});
    const SweepSamples v = sample_sweep(s.sweep);
    const int D = 3, per = second ? 2 * D + 2 : D + 2;
    ASSERT_EQ(v.n_instances, 8 * per);
    ASSERT_EQ(s.sweep.instances, 8 * per);
    // The base points: the 2D-dimensional Sobol' design, A = columns 0..D-1, B = D..2D-1.
    json six = json::array();
    for (const char* p : {"bodies.a.mass", "bodies.b.mass", "gravity[0]", "gravity[1]", "gravity[2]", "bodies.a.position[0]"})
      six.push_back(uniform01(p));
    const SweepSamples base = sample_sweep(parse({{"mode", "sobol"}, {"instances", 8}, {"parameters", six}}).sweep);
    for (int i = 0; i < 8; ++i) {
      const auto row = [&](int r, int j) { return v.values[static_cast<std::size_t>(j)][static_cast<std::size_t>(i * per + r)]; };
      const auto A = [&](int j) { return base.values[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)]; };
      const auto B = [&](int j) { return base.values[static_cast<std::size_t>(j + D)][static_cast<std::size_t>(i)]; };
      for (int j = 0; j < D; ++j) {
        EXPECT_EQ(row(0, j), A(j));
        for (int k = 0; k < D; ++k) EXPECT_EQ(row(1 + k, j), j == k ? B(j) : A(j));
        if (second) {
          for (int k = 0; k < D; ++k) EXPECT_EQ(row(1 + D + k, j), j == k ? A(j) : B(j));
        }
        EXPECT_EQ(row(per - 1, j), B(j));
      }
    }
  }
}

TEST(SweepSaltelli, CountsAndErrors) {
  const json p = {uniform01("bodies.a.mass"), uniform01("bodies.b.mass")};
  expect_error({{"mode", "saltelli"}, {"parameters", p}}, "/sweep/base", "required");
  expect_error({{"mode", "saltelli"}, {"base", 0}, {"parameters", p}}, "/sweep/base", ">= 1");
  expect_error({{"mode", "saltelli"}, {"base", 4}, {"instances", 20}, {"parameters", p}}, "/sweep/instances", "24");
  expect_error({{"mode", "saltelli"}, {"base", 4}, {"second_order", 1}, {"parameters", p}}, "/sweep/second_order",
               "true or false");
  expect_error({{"mode", "saltelli"}, {"base", 4}}, "/sweep/parameters", "at least one");
  expect_error({{"mode", "saltelli"}, {"base", 4}, {"parameters", p},
                {"correlation", {{"parameters", {"bodies.a.mass", "bodies.b.mass"}}, {"matrix", {{1, 0}, {0, 1}}}}}},
               "/sweep/correlation",
               "correlation is not allowed in saltelli mode (Sobol' indices need independent inputs)");
  expect_error({{"mode", "saltelli"}, {"base", 4}, {"parameters", p},
                {"covariance", {{"parameters", {"bodies.a.mass", "bodies.b.mass"}}, {"matrix", {{1, 0}, {0, 1}}}}}},
               "/sweep/covariance", "covariance is not allowed in saltelli mode");
  const Scene s = parse({{"mode", "saltelli"}, {"base", 4}, {"second_order", false}, {"instances", 16}, {"parameters", p}});
  EXPECT_EQ(sample_sweep(s.sweep).n_instances, 16);
  EXPECT_THROW(sample_sweep(s.sweep, 17), SceneError);  // --instances must agree
  EXPECT_EQ(sample_sweep(s.sweep, 16).n_instances, 16);
  expect_error({{"mode", "sobol"}, {"instances", 4}, {"base", 4}, {"parameters", p}}, "/sweep/base", "unknown key");
}

// ---- correlated normals -------------------------------------------------------------

const double kRho[3][3] = {{1, 0.6, -0.3}, {0.6, 1, 0.2}, {-0.3, 0.2, 1}};

json correlated_sweep(const std::string& mode, int n) {
  json m = json::array();
  for (const auto& r : kRho) m.push_back({r[0], r[1], r[2]});
  json sw = {{"mode", mode}, {"instances", n}, {"seed", 3},
          {"parameters", {normal("bodies.a.mass", 2, 0.1), normal("bodies.b.mass", 5, 0.5),
                          uniform01("gravity[0]"), normal("gravity[1]", -1, 2)}},
          {"correlation", {{"parameters", {"bodies.a.mass", "bodies.b.mass", "gravity[1]"}}, {"matrix", m}}}};
  if (mode == "sobol") sw["scramble"] = true;
  return sw;
}

double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t k = 0; k < x.size(); ++k) mx += x[k] / n, my += y[k] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
    syy += (y[k] - my) * (y[k] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

// The sample correlation r of n bivariate normal pairs: atanh(r) is close to normal with
// mean atanh(rho) and variance 1 / (n - 3) (Fisher's z-transform); 5 standard
// deviations fail a correct sampler with probability 6e-7 per entry. The marginals: the
// mean within 5 std / sqrt(n), the sample std within 5 std / sqrt(2 (n - 1)).
void expect_correlated(const std::vector<std::vector<double>>& v, const std::string& what) {
  const std::size_t cols[3] = {0, 1, 3};
  const double mean[3] = {2, 5, -1}, sd[3] = {0.1, 0.5, 2};
  const double n = static_cast<double>(v[0].size());
  for (int r = 0; r < 3; ++r) {
    const std::vector<double>& x = v[cols[r]];
    double m = 0, s = 0;
    for (double a : x) m += a / n;
    for (double a : x) s += (a - m) * (a - m) / (n - 1);
    EXPECT_LT(std::fabs(m - mean[r]), 5 * sd[r] / std::sqrt(n)) << what << " mean " << r;
    EXPECT_LT(std::fabs(std::sqrt(s) / sd[r] - 1), 5 / std::sqrt(2 * (n - 1))) << what << " std " << r;
    for (int c = 0; c < r; ++c) {
      const double rho = correlation(v[cols[r]], v[cols[c]]);
      EXPECT_LT(std::fabs(std::atanh(rho) - std::atanh(kRho[r][c])), 5 / std::sqrt(n - 3))
          << what << " rho[" << r << "][" << c << "] = " << rho << ", target " << kRho[r][c];
    }
  }
  // The uncorrelated uniform stays uncorrelated.
  EXPECT_LT(std::fabs(std::atanh(correlation(v[2], v[0]))), 5 / std::sqrt(n - 3)) << what;
}

TEST(SweepCorrelation, TargetCorrelationWithinItsSamplingErrorInEveryMode) {
  for (const char* mode : {"random", "lhs", "sobol"}) {
    const Scene s = parse(correlated_sweep(mode, 20000));
    const SweepSamples v = sample_sweep(s.sweep);
    expect_correlated(v.values, mode);
    EXPECT_EQ(sample_sweep(parse(correlated_sweep(mode, 20000)).sweep).values, v.values) << mode << ": reproducible";
  }
}

TEST(SweepCorrelation, EpisodesAreCorrelatedToo) {
  const Scene s = parse(correlated_sweep("random", 4));
  std::vector<std::vector<double>> v(4);
  for (std::uint64_t e = 1; e <= 20000; ++e) {
    const std::vector<double> x = sample_episode(s.sweep, 2, e);
    for (std::size_t p = 0; p < 4; ++p) v[p].push_back(x[p]);
  }
  expect_correlated(v, "episodes");
}

TEST(SweepCorrelation, IdentityMatrixLeavesTheDrawsAsIndependentOnes) {
  json sw = correlated_sweep("lhs", 50);
  sw["correlation"]["matrix"] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const SweepSamples a = sample_sweep(parse(sw).sweep);
  sw.erase("correlation");
  const SweepSamples b = sample_sweep(parse(sw).sweep);
  EXPECT_EQ(a.values, b.values);
}

TEST(SweepCorrelation, CovarianceEqualsTheCorrelationItImplies) {
  json sw = correlated_sweep("random", 100);
  const double sd[3] = {0.1, 0.5, 2};
  json cov = json::array();
  for (int r = 0; r < 3; ++r) cov.push_back({kRho[r][0] * sd[r] * sd[0], kRho[r][1] * sd[r] * sd[1], kRho[r][2] * sd[r] * sd[2]});
  const SweepSamples a = sample_sweep(parse(sw).sweep);
  sw["covariance"] = {{"parameters", sw["correlation"]["parameters"]}, {"matrix", cov}};
  sw.erase("correlation");
  const SweepSamples b = sample_sweep(parse(sw).sweep);
  for (std::size_t p = 0; p < 4; ++p)
    for (std::size_t k = 0; k < 100; ++k) EXPECT_NEAR(a.values[p][k], b.values[p][k], 1e-12 * std::fabs(a.values[p][k]));
}

TEST(SweepCorrelation, BadMatricesAndParametersAreRefusedNamingTheField) {
  json sw = correlated_sweep("random", 10);
  const auto with_matrix = [&](const json& m) {
    json x = sw;
    x["correlation"]["matrix"] = m;
    return x;
  };
  expect_error(with_matrix({{1, 0.9, 0.9}, {0.9, 1, -0.9}, {0.9, -0.9, 1}}), "/sweep/correlation/matrix",
               "not positive definite");
  expect_error(with_matrix({{1, 1, 0}, {1, 1, 0}, {0, 0, 1}}), "/sweep/correlation/matrix", "not positive definite");
  expect_error(with_matrix({{1, 0.5, 0}, {0.4, 1, 0}, {0, 0, 1}}), "/sweep/correlation/matrix", "symmetric");
  expect_error(with_matrix({{1, 0}, {0, 1}}), "/sweep/correlation/matrix", "3 rows");
  expect_error(with_matrix({{1, 0, 0}, {0, 1}, {0, 0, 1}}), "/sweep/correlation/matrix/1", "3 entries");
  expect_error(with_matrix({{2, 0, 0}, {0, 1, 0}, {0, 0, 1}}), "/sweep/correlation/matrix/0/0", "1 on its diagonal");
  expect_error(with_matrix({{1, 0, 0}, {0, 1, 0}, {0, 0, "x"}}), "/sweep/correlation/matrix/2/2", "number");
  json x = sw;
  x["correlation"]["parameters"][1] = "gravity[0]";
  expect_error(x, "/sweep/correlation/parameters/1", "normal");
  x["correlation"]["parameters"][1] = "bodies.c.mass";
  expect_error(x, "/sweep/correlation/parameters/1", "not the path of a sweep parameter");
  x["correlation"]["parameters"][1] = "bodies.a.mass";
  expect_error(x, "/sweep/correlation/parameters/1", "twice");
  x = sw;
  x["parameters"][0]["std"] = 3e306;  // 38 std is finite, 38 sqrt(3) std is not
  expect_error(x, "/sweep/correlation/parameters/0", "overflows");
  x = sw;
  x["parameters"][0]["truncate"] = {1.9, 2.1};
  expect_error(x, "/sweep/correlation/parameters/0", "truncated");
  x = sw;
  x["covariance"] = x["correlation"];
  expect_error(x, "/sweep/covariance", "not both");
  x.erase("correlation");
  expect_error(x, "/sweep/covariance/matrix/0/0", "variance std^2 = 0.01");
  x = sw;
  x["mode"] = "grid";
  expect_error(x, "/sweep/correlation", "unknown key");
}

}  // namespace
}  // namespace simphant
