// Sweep: path resolution, spec validation, sampling (random / lhs / grid) and the
// per-instance models (docs/scene-format.md, "Sweep").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include <boost/math/distributions/normal.hpp>
#include <gtest/gtest.h>

#include "simphant/scene/scene.hpp"
#include "sweep_scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

/// A valid 5-body chain scene; `sweep` is added by the tests.
json base_scene() {
  json d = json::parse(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [],
    "joints": [],
    "forces": [{"name": "spring", "type": "spring_damper", "body_i": "ground", "body_j": "b4",
                "stiffness": 10, "rest_length": 0.3}],
    "solver": {"dt": 0.001, "t_end": 0.1}
  })");
  for (int k = 0; k < 5; ++k) {
    const std::string name = "b" + std::to_string(k);
    d["bodies"].push_back({{"name", name},
                           {"mass", 1.0 + k},
                           {"inertia", {{0.02, 0, 0}, {0, 0.03, 0}, {0, 0, 0.04}}},
                           {"position", {0.2 * k + 0.1, 0, 0}}});
    d["joints"].push_back({{"name", "j" + std::to_string(k)},
                           {"type", "revolute"},
                           {"body_i", k == 0 ? std::string("ground") : "b" + std::to_string(k - 1)},
                           {"body_j", name},
                           {"frame", {{"origin", {0.2 * k, 0, 0}}, {"z", {0, 0, 1}}}}});
  }
  return d;
}

json with_sweep(const std::string& sweep_text) {
  json d = base_scene();
  d["sweep"] = json::parse(sweep_text);
  return d;
}

Scene parse(const json& d) { return parse_scene(d.dump(), "sweep.json"); }

/// Expects parse_scene to throw SceneError at `path` with `fragment` in what().
void expect_error(const json& d, const std::string& path, const std::string& fragment) {
  test::expect_scene_error([&] { parse(d); }, path, fragment);
}

SweepSpec one_parameter(SweepMode mode, int n, std::uint64_t seed, SweepParameter p) {
  SweepSpec s;
  s.mode = mode;
  s.instances = n;
  s.seed = seed;
  p.path = "x";
  p.json_pointer = "/x";
  s.parameters.push_back(p);
  return s;
}

SweepParameter uniform(double lo, double hi) {
  SweepParameter p;
  p.dist = Distribution::Uniform;
  p.low = lo;
  p.high = hi;
  return p;
}

TEST(Sweep, PathsResolveToJsonPointers) {
  json d = base_scene();
  d["bodies"][2]["inertia"] = {0.02, 0.03, 0.04};
  d["solver"]["baumgarte_alpha"] = 10;
  d["sweep"] = json::parse(R"({"parameters": [
      {"path": "bodies.b1.mass", "dist": "uniform", "low": 1, "high": 2},
      {"path": "gravity[2]", "dist": "list", "values": [-9.81, -1.62]},
      {"path": "joints.j3.frame.origin[0]", "dist": "normal", "mean": 0.6, "std": 0.01},
      {"path": "bodies.b0.inertia[1][1]", "dist": "uniform", "low": 0.025, "high": 0.035},
      {"path": "bodies.b2.inertia[2]", "dist": "uniform", "low": 0.035, "high": 0.045},
      {"path": "forces.spring.stiffness", "dist": "uniform", "low": 1, "high": 2},
      {"path": "solver.baumgarte_alpha", "dist": "uniform", "low": 1, "high": 2}]})");
  const Scene s = parse(d);
  const std::vector<std::string> expected = {"/bodies/1/mass",         "/gravity/2",         "/joints/3/frame/origin/0",
                                             "/bodies/0/inertia/1/1", "/bodies/2/inertia/2", "/forces/0/stiffness",
                                             "/solver/baumgarte_alpha"};
  ASSERT_EQ(s.sweep.parameters.size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) EXPECT_EQ(s.sweep.parameters[k].json_pointer, expected[k]);
}

TEST(Sweep, PathThatNamesNothingIsAnError) {
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.nobody.mass", "dist": "uniform", "low": 1, "high": 2}]})"),
               "/sweep/parameters/0/path", "\"bodies.nobody.mass\" names nothing");
  expect_error(with_sweep(R"({"parameters": [{"path": "b", "dist": "list", "values": [1]},
                                             {"path": "gravity[3]", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "\"b\" names nothing");
  expect_error(with_sweep(R"({"parameters": [{"path": "gravity[3]", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "\"gravity[3]\" names nothing");
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b1.mass[", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "malformed path \"bodies.b1.mass[\"");
  // A solver default that the scene does not write is not in the document: nothing to vary.
  expect_error(with_sweep(R"({"parameters": [{"path": "solver.baumgarte_beta", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "names nothing");
}

TEST(Sweep, PathThatNamesNonNumberIsAnError) {
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b1.name", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "\"bodies.b1.name\" names a non-number");
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b1.inertia[0]", "dist": "list", "values": [1]}]})"),
               "/sweep/parameters/0/path", "\"bodies.b1.inertia[0]\" names a non-number");
}

TEST(Sweep, TwoParametersNamingTheSameValueAreAnError) {
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b1.mass", "dist": "list", "values": [1]},
                                             {"path": "bodies.b1.mass", "dist": "uniform", "low": 1, "high": 2}]})"),
               "/sweep/parameters/1/path", "names the same value as /sweep/parameters/0/path");
  // Two spellings of one value: an element of a named array by name or by [k].
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b1.mass", "dist": "list", "values": [1]},
                                             {"path": "gravity[2]", "dist": "list", "values": [1]},
                                             {"path": "bodies[1].mass", "dist": "list", "values": [2]}]})"),
               "/sweep/parameters/2/path",
               "path \"bodies[1].mass\" names the same value as /sweep/parameters/0/path (\"bodies.b1.mass\", both "
               "/bodies/1/mass)");
  expect_error(with_sweep(R"({"parameters": [{"path": "bodies.b2.inertia[1][1]", "dist": "list", "values": [1]},
                                             {"path": "bodies[2].inertia[1][1]", "dist": "list", "values": [2]}]})"),
               "/sweep/parameters/1/path", "names the same value as /sweep/parameters/0/path");
  // Neighbouring values are distinct.
  EXPECT_NO_THROW(parse(with_sweep(R"({"parameters": [
      {"path": "bodies.b2.inertia[1][1]", "dist": "list", "values": [1]},
      {"path": "bodies.b2.inertia[1][2]", "dist": "list", "values": [0]},
      {"path": "bodies.b1.mass", "dist": "list", "values": [1]}]})")));
}

TEST(Sweep, BadDistributionParameters) {
  const std::string p = R"({"parameters": [{"path": "bodies.b1.mass", )";
  expect_error(with_sweep(p + R"("dist": "uniform", "low": 2, "high": 2}]})"), "/sweep/parameters/0/high", "> low");
  expect_error(with_sweep(p + R"("dist": "normal", "mean": 2, "std": 0}]})"), "/sweep/parameters/0/std", "> 0");
  expect_error(with_sweep(p + R"("dist": "normal", "mean": 2, "std": 0.1, "truncate": [2, 1]}]})"),
               "/sweep/parameters/0/truncate", "lo < hi");
  expect_error(with_sweep(p + R"("dist": "normal", "mean": 0, "std": 0.01, "truncate": [100, 101]}]})"),
               "/sweep/parameters/0/truncate", "no probability mass");
  expect_error(with_sweep(p + R"("dist": "list", "values": []}]})"), "/sweep/parameters/0/values", "empty");
  expect_error(with_sweep(p + R"("dist": "gamma", "k": 2}]})"), "/sweep/parameters/0/dist", "unknown distribution");
  expect_error(with_sweep(p + R"("dist": "uniform", "low": 1, "high": 2, "mean": 1}]})"), "/sweep/parameters/0/mean",
               "unknown key");
  expect_error(with_sweep(R"({"mode": "grid", "parameters": [{"path": "bodies.b1.mass", "dist": "uniform",
                             "low": 1, "high": 2}]})"),
               "/sweep/parameters/0/dist", "grid mode needs dist \"list\"");
  expect_error(with_sweep(R"({"instances": 0})"), "/sweep/instances", ">= 1");
  expect_error(with_sweep(R"({"mode": "halton"})"), "/sweep/mode", "unknown mode");
  expect_error(with_sweep(R"({"seed": -1})"), "/sweep/seed", ">= 0");
  expect_error(with_sweep(R"({"mode": "grid", "instances": 3, "parameters": [
                             {"path": "gravity[0]", "dist": "list", "values": [1, 2]}]})"),
               "/sweep/instances", "product");
}

TEST(Sweep, GridOverrideMismatchIsAnError) {
  const Scene s = parse(with_sweep(R"({"mode": "grid", "parameters": [
      {"path": "gravity[0]", "dist": "list", "values": [1, 2]}]})"));
  EXPECT_EQ(sample_sweep(s.sweep, 2).n_instances, 2);
  try {
    sample_sweep(s.sweep, 5);
    ADD_FAILURE() << "override accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/sweep/instances");
  }
}

TEST(Sweep, SameSeedSameSamplesDifferentSeedDifferent) {
  for (SweepMode mode : {SweepMode::Random, SweepMode::LatinHypercube}) {
    const SweepSamples a = sample_sweep(one_parameter(mode, 100, 42, uniform(0, 1)));
    const SweepSamples b = sample_sweep(one_parameter(mode, 100, 42, uniform(0, 1)));
    const SweepSamples c = sample_sweep(one_parameter(mode, 100, 43, uniform(0, 1)));
    EXPECT_EQ(a.values, b.values);
    EXPECT_NE(a.values, c.values);
  }
}

TEST(Sweep, RandomDrawOrderIsInstanceMajor) {
  SweepSpec s = one_parameter(SweepMode::Random, 4, 7, uniform(0, 1));
  s.parameters.push_back(uniform(10, 20));
  const SweepSamples out = sample_sweep(s);
  std::mt19937_64 engine(7);
  for (int k = 0; k < 4; ++k) {
    for (int p = 0; p < 2; ++p) {
      const double u = static_cast<double>(engine() >> 11) * 0x1p-53;
      EXPECT_EQ(out.values[p][k], p == 0 ? u : 10 + u * 10);
    }
  }
}

TEST(Sweep, UniformWithinBounds) {
  const SweepSamples s = sample_sweep(one_parameter(SweepMode::Random, 5000, 1, uniform(-2, 3)));
  ASSERT_EQ(s.values[0].size(), 5000u);
  const auto [lo, hi] = std::minmax_element(s.values[0].begin(), s.values[0].end());
  EXPECT_GE(*lo, -2.0);
  EXPECT_LT(*hi, 3.0);
  EXPECT_LT(*lo, -1.99);  // and it fills the range
  EXPECT_GT(*hi, 2.99);
}

TEST(Sweep, LhsHasOneSamplePerStratum) {
  const int n = 257;
  const SweepSamples s = sample_sweep(one_parameter(SweepMode::LatinHypercube, n, 3, uniform(1, 2)));
  std::set<int> strata;
  for (double x : s.values[0]) strata.insert(static_cast<int>(std::floor((x - 1.0) * n)));
  EXPECT_EQ(static_cast<int>(strata.size()), n);
  EXPECT_EQ(*strata.begin(), 0);
  EXPECT_EQ(*strata.rbegin(), n - 1);
  // Normal: strata of equal probability, checked through the CDF.
  SweepParameter p;
  p.dist = Distribution::Normal;
  p.mean = 5;
  p.std = 2;
  const SweepSamples g = sample_sweep(one_parameter(SweepMode::LatinHypercube, n, 3, p));
  const boost::math::normal_distribution<double> N(5, 2);
  std::set<int> gs;
  for (double x : g.values[0]) gs.insert(static_cast<int>(std::floor(boost::math::cdf(N, x) * n)));
  EXPECT_EQ(static_cast<int>(gs.size()), n);
}

TEST(Sweep, TruncatedNormalBoundsAndMoments) {
  const int n = 20000;
  const double mu = 1.0, sd = 0.5, lo = 0.5, hi = 2.0;
  SweepParameter p;
  p.dist = Distribution::Normal;
  p.mean = mu;
  p.std = sd;
  p.truncated = true;
  p.trunc_low = lo;
  p.trunc_high = hi;
  const SweepSamples s = sample_sweep(one_parameter(SweepMode::Random, n, 11, p));
  double sum = 0, sum2 = 0;
  for (double x : s.values[0]) {
    ASSERT_GE(x, lo);
    ASSERT_LE(x, hi);
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  const double stdev = std::sqrt(sum2 / n - mean * mean);
  // Closed-form moments of the truncated normal.
  const boost::math::normal_distribution<double> N01;
  const double a = (lo - mu) / sd, b = (hi - mu) / sd;
  const double Z = boost::math::cdf(N01, b) - boost::math::cdf(N01, a);
  const double pa = boost::math::pdf(N01, a), pb = boost::math::pdf(N01, b);
  const double true_mean = mu + sd * (pa - pb) / Z;
  const double true_sd = sd * std::sqrt(1 + (a * pa - b * pb) / Z - std::pow((pa - pb) / Z, 2));
  // Standard errors: mean sd/sqrt(n) ~ 0.0027; sample sd about sd/sqrt(2n) ~ 0.0019 (the
  // truncated law has lighter tails than the normal, so this bounds it). Allow 5 of each.
  EXPECT_NEAR(mean, true_mean, 5 * true_sd / std::sqrt(n));
  EXPECT_NEAR(stdev, true_sd, 5 * true_sd / std::sqrt(2.0 * n));
  // Upper tail (the reflected branch): all samples inside [3, 4] sigma.
  p.mean = 0;
  p.std = 1;
  p.trunc_low = 3;
  p.trunc_high = 4;
  const SweepSamples t = sample_sweep(one_parameter(SweepMode::LatinHypercube, 1000, 5, p));
  for (double x : t.values[0]) {
    ASSERT_GE(x, 3.0);
    ASSERT_LE(x, 4.0);
  }
}

TEST(Sweep, NormalMeanAndStd) {
  const int n = 20000;
  SweepParameter p;
  p.dist = Distribution::Normal;
  p.mean = -3;
  p.std = 0.2;
  const SweepSamples s = sample_sweep(one_parameter(SweepMode::Random, n, 99, p));
  double sum = 0, sum2 = 0;
  for (double x : s.values[0]) {
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / n;
  // Standard errors: sd/sqrt(n) and sd/sqrt(2n); 5 of each.
  EXPECT_NEAR(mean, -3.0, 5 * 0.2 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(sum2 / n - mean * mean), 0.2, 5 * 0.2 / std::sqrt(2.0 * n));
}

TEST(Sweep, GridIsCartesianProductLastFastest) {
  const Scene s = parse(with_sweep(R"({"mode": "grid", "parameters": [
      {"path": "gravity[0]", "dist": "list", "values": [1, 2]},
      {"path": "gravity[1]", "dist": "list", "values": [10, 20, 30]}]})"));
  EXPECT_EQ(s.sweep.instances, 6);
  const SweepSamples g = sample_sweep(s.sweep);
  ASSERT_EQ(g.n_instances, 6);
  EXPECT_EQ(g.values[0], (std::vector<double>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(g.values[1], (std::vector<double>{10, 20, 30, 10, 20, 30}));
  EXPECT_EQ(g.paths[1], "gravity[1]");
  EXPECT_EQ(g.json_pointers[1], "/gravity/1");
}

TEST(Sweep, ListSamplingUsesEveryValueEvenly) {
  SweepParameter p;
  p.dist = Distribution::List;
  p.values = {-9.81, -1.62, -3.71};
  const int n = 30000;
  const SweepSamples s = sample_sweep(one_parameter(SweepMode::Random, n, 2, p));
  std::map<double, int> counts;
  for (double x : s.values[0]) ++counts[x];
  ASSERT_EQ(counts.size(), 3u);
  // Each count is binomial(n, 1/3): sd = sqrt(n 2/9) ~ 82; allow 5 sd.
  for (const auto& [value, c] : counts) EXPECT_NEAR(c, n / 3.0, 5 * std::sqrt(n * 2.0 / 9.0)) << value;
  // LHS over a list: exactly balanced.
  const SweepSamples l = sample_sweep(one_parameter(SweepMode::LatinHypercube, 300, 2, p));
  std::map<double, int> lc;
  for (double x : l.values[0]) ++lc[x];
  for (const auto& [value, c] : lc) EXPECT_EQ(c, 100) << value;
}

TEST(Sweep, NoSweepSectionMeansOneOrOverride) {
  const Scene s = parse(base_scene());
  EXPECT_EQ(sample_sweep(s.sweep).n_instances, 1);
  const SweepSamples o = sample_sweep(s.sweep, 64);
  EXPECT_EQ(o.n_instances, 64);
  EXPECT_TRUE(o.values.empty());
  const std::vector<Model> models = build_instance_models(s, o);
  ASSERT_EQ(models.size(), 1u);  // one shared model
  EXPECT_EQ(models[0].bodies[1].mass, 2.0);
}

TEST(Sweep, InstanceModelsApplySampledValues) {
  const Scene s = parse(with_sweep(R"({"mode": "lhs", "instances": 1000, "seed": 5, "parameters": [
      {"path": "bodies.b1.mass", "dist": "normal", "mean": 2, "std": 0.1, "truncate": [1.8, 2.2]},
      {"path": "bodies.b4.inertia[0][0]", "dist": "uniform", "low": 0.015, "high": 0.025},
      {"path": "forces.spring.stiffness", "dist": "list", "values": [5, 15]}]})"));
  const SweepSamples samples = sample_sweep(s.sweep);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Model> models = build_instance_models(s, samples);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(models.size(), 1000u);
  for (std::size_t k = 0; k < models.size(); ++k) {
    ASSERT_EQ(models[k].bodies[1].mass, samples.values[0][k]);
    ASSERT_EQ(models[k].bodies[4].inertia_B.m[0][0], samples.values[1][k]);
    ASSERT_EQ(models[k].forces[0].stiffness, samples.values[2][k]);
    ASSERT_EQ(models[k].bodies[0].mass, 1.0);  // untouched
  }
  RecordProperty("build_seconds_1000x5", std::to_string(seconds));  // recorded, not asserted: no timed tests
}

TEST(Sweep, SharedSolverSettingsCannotBeSwept) {
  for (const char* key : {"dt", "t_end", "record_every", "rtol", "atol", "min_step", "max_step", "first_step",
                          "tikhonov_epsilon"}) {
    const std::string sweep = std::string(R"({"instances": 2, "parameters": [
        {"path": "solver.)") + key + R"(", "dist": "list", "values": [1, 2]}]})";
    json doc = with_sweep(sweep);
    doc["solver"]["record_every"] = 1;  // written out, so that the path names a value
    if (std::string(key) != "record_every") doc["solver"][key] = 1e-3;
    try {
      parse(doc);
      ADD_FAILURE() << key << " was accepted";
    } catch (const SceneError& e) {
      EXPECT_EQ(e.path(), "/sweep/parameters/0/path") << key;
      EXPECT_NE(std::string(e.what()).find("shared by all instances"), std::string::npos) << e.what();
    }
  }
}

TEST(Sweep, SampledInvalidValueIsRejectedNamingInstanceAndPath) {
  const Scene s = parse(with_sweep(R"({"instances": 10, "parameters": [
      {"path": "gravity[0]", "dist": "uniform", "low": 0, "high": 1},
      {"path": "bodies.b2.mass", "dist": "uniform", "low": -1, "high": -0.5}]})"));
  const SweepSamples samples = sample_sweep(s.sweep);
  try {
    build_instance_models(s, samples);
    ADD_FAILURE() << "negative mass accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/bodies/2/mass");
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("/bodies/2/mass: instance 0 (sampled bodies.b2.mass = ", 0), 0u) << what;
    EXPECT_NE(what.find("): must be > 0"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace simphant
