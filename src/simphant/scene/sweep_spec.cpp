// The "sweep" section of a scene -> a validated SweepSpec (docs/scene-format.md, "Sweep").
#include <cfloat>
#include <climits>
#include <cmath>

#include "simphant/scene/json_access.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

/// |z| of the standard normal quantile at the smallest probability the sampler uses
/// (DBL_MIN, sweep_dist.cpp): about 37.5, rounded up.
constexpr double kMaxNormalQuantile = 38.0;

std::uint64_t read_seed(const json& j, const std::string& path) {
  if (j.is_number_unsigned()) return j.get<std::uint64_t>();
  const double x = as_number(j, path);
  if (j.is_number_integer() || (std::floor(x) == x && x >= 0 && x < 0x1p64)) {
    if (x < 0) throw SceneError(path, "must be >= 0 (got " + format_number(x) + ")");
    return static_cast<std::uint64_t>(x);
  }
  throw SceneError(path, "must be a non-negative integer (got " + format_number(x) + ")");
}

double required_number(const json& obj, const std::string& path, const char* key) {
  return as_number(require_key(obj, path, key), child_path(path, key));
}

SweepParameter parse_parameter(const json& j, const std::string& path, const json& doc) {
  expect_object(j, path);
  SweepParameter p;
  const std::string path_path = child_path(path, "path");
  p.path = as_string(require_key(j, path, "path"), path_path);
  const std::string dist_path = child_path(path, "dist");
  const std::string dist = as_string(require_key(j, path, "dist"), dist_path);
  if (dist == "uniform") {
    check_keys(j, path, {"path", "dist", "low", "high"});
    p.dist = Distribution::Uniform;
    p.low = required_number(j, path, "low");
    p.high = required_number(j, path, "high");
    if (!(p.low < p.high)) {
      throw SceneError(child_path(path, "high"), "must be > low = " + format_number(p.low) + " (got " +
                                                     format_number(p.high) + ")");
    }
    // Sampling computes low + u (high - low): the width must be a finite number.
    if (!std::isfinite(p.high - p.low)) {
      throw SceneError(child_path(path, "high"), "high - low overflows (low " + format_number(p.low) + ", high " +
                                                     format_number(p.high) + "): the range must be narrower than " +
                                                     format_number(DBL_MAX));
    }
  } else if (dist == "normal") {
    check_keys(j, path, {"path", "dist", "mean", "std", "truncate"});
    p.dist = Distribution::Normal;
    p.mean = required_number(j, path, "mean");
    const std::string std_path = child_path(path, "std");
    p.std = required_number(j, path, "std");
    if (!(p.std > 0)) throw SceneError(std_path, "must be > 0 (got " + format_number(p.std) + ")");
    // Every sample is mean + std z with |z| <= kMaxNormalQuantile: it must stay finite.
    if (!std::isfinite(std::fabs(p.mean) + kMaxNormalQuantile * p.std)) {
      throw SceneError(std_path, "too large: mean +- " + format_number(kMaxNormalQuantile) +
                                     " std (the widest sample) overflows (mean " + format_number(p.mean) + ", std " +
                                     format_number(p.std) + ")");
    }
    if (const json* t = find_key(j, "truncate")) {
      const std::string t_path = child_path(path, "truncate");
      if (!t->is_array() || t->size() != 2) throw SceneError(t_path, "must be an array [lo, hi]");
      p.truncated = true;
      p.trunc_low = as_number((*t)[0], child_path(t_path, 0));
      p.trunc_high = as_number((*t)[1], child_path(t_path, 1));
      if (!(p.trunc_low < p.trunc_high)) throw SceneError(t_path, "must have lo < hi");
      if (!(normal_mass(p.mean, p.std, p.trunc_low, p.trunc_high) >= DBL_MIN)) {
        throw SceneError(t_path, "contains no probability mass of the normal distribution (mean " +
                                     format_number(p.mean) + ", std " + format_number(p.std) + ")");
      }
    }
  } else if (dist == "list") {
    check_keys(j, path, {"path", "dist", "values"});
    p.dist = Distribution::List;
    const std::string v_path = child_path(path, "values");
    const json& v = require_key(j, path, "values");
    expect_array(v, v_path);
    if (v.empty()) throw SceneError(v_path, "must not be empty");
    for (std::size_t k = 0; k < v.size(); ++k) p.values.push_back(as_number(v[k], child_path(v_path, k)));
  } else {
    throw SceneError(dist_path, "unknown distribution \"" + dist + "\" (expected uniform, normal or list)");
  }
  p.json_pointer = resolve_sweep_path(doc, p.path, path_path);
  return p;
}

}  // namespace

SweepSpec parse_sweep(const json& sweep, const std::string& path, const json& doc) {
  expect_object(sweep, path);
  check_keys(sweep, path, {"mode", "instances", "seed", "parameters"});
  SweepSpec spec;
  if (const json* m = find_key(sweep, "mode")) {
    const std::string m_path = child_path(path, "mode");
    const std::string mode = as_string(*m, m_path);
    if (mode == "random") {
      spec.mode = SweepMode::Random;
    } else if (mode == "lhs") {
      spec.mode = SweepMode::LatinHypercube;
    } else if (mode == "grid") {
      spec.mode = SweepMode::Grid;
    } else {
      throw SceneError(m_path, "unknown mode \"" + mode + "\" (expected random, lhs or grid)");
    }
  }
  if (const json* s = find_key(sweep, "seed")) spec.seed = read_seed(*s, child_path(path, "seed"));
  const std::string n_path = child_path(path, "instances");
  const json* n = find_key(sweep, "instances");
  if (n != nullptr) {
    const long long count = as_integer(*n, n_path);
    if (count < 1) throw SceneError(n_path, "must be >= 1 (got " + std::to_string(count) + ")");
    spec.instances = static_cast<int>(count);
  }
  if (const json* params = find_key(sweep, "parameters")) {
    const std::string p_path = child_path(path, "parameters");
    expect_array(*params, p_path);
    for (std::size_t k = 0; k < params->size(); ++k) {
      const std::string k_path = child_path(p_path, k);
      SweepParameter p = parse_parameter((*params)[k], k_path, doc);
      // One step loop advances every instance: its step, horizon and recording are shared.
      for (const char* shared : {"/solver/dt", "/solver/t_end", "/solver/record_every"}) {
        if (p.json_pointer == shared)
          throw SceneError(child_path(k_path, "path"), "path \"" + p.path +
                                                           "\" names a setting shared by all instances (dt, t_end and "
                                                           "record_every cannot be swept)");
      }
      for (std::size_t j = 0; j < spec.parameters.size(); ++j) {
        if (spec.parameters[j].json_pointer != p.json_pointer) continue;
        throw SceneError(child_path(k_path, "path"), "path \"" + p.path + "\" names the same value as " +
                                                         child_path(child_path(p_path, j), "path") + " (\"" +
                                                         spec.parameters[j].path + "\", both " + p.json_pointer + ")");
      }
      spec.parameters.push_back(std::move(p));
    }
  }
  if (spec.mode == SweepMode::Grid) {
    long long product = 1;
    for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
      const SweepParameter& p = spec.parameters[k];
      if (p.dist != Distribution::List) {
        throw SceneError(child_path(child_path(child_path(path, "parameters"), k), "dist"),
                         "grid mode needs dist \"list\"");
      }
      product *= static_cast<long long>(p.values.size());
      if (product > INT_MAX) throw SceneError(child_path(path, "parameters"), "grid has more than 2^31 - 1 instances");
    }
    if (n != nullptr && spec.instances != product) {
      throw SceneError(n_path, "grid mode runs the product of list lengths, " + std::to_string(product) +
                                   " instances (got " + std::to_string(spec.instances) + ")");
    }
    spec.instances = static_cast<int>(product);
  }
  return spec;
}

}  // namespace simphant::scene_detail
