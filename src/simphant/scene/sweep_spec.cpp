// The "sweep" section of a scene -> a validated SweepSpec (docs/scene-format.md, "Sweep").
#include <cfloat>
#include <climits>
#include <cmath>
#include <filesystem>

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

bool as_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) throw SceneError(path, "must be true or false");
  return j.get<bool>();
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

void check_per_instance_path(const std::string& json_pointer, const std::string& path, const std::string& error_path) {
  // One step loop advances every instance: its step, horizon, recording and integrator
  // settings are shared (the GPU backends take them from the batch's first model); the
  // Tikhonov shift is the run's, chosen from the first instance (set_run_shift).
  for (const char* shared : {"/solver/dt", "/solver/t_end", "/solver/record_every", "/solver/rtol", "/solver/atol",
                             "/solver/min_step", "/solver/max_step", "/solver/first_step",
                             "/solver/tikhonov_epsilon"}) {
    if (json_pointer == shared)
      throw SceneError(error_path, "path \"" + path +
                                       "\" names a setting shared by all instances (dt, t_end, record_every, the "
                                       "integrator's rtol, atol, min_step, max_step, first_step, and tikhonov_epsilon, "
                                       "the run's shift chosen once: docs/solver.md)");
  }
}

void add_parameter(SweepSpec& spec, SweepParameter p, const std::string& path_field,
                   const std::vector<std::string>& earlier_fields) {
  check_per_instance_path(p.json_pointer, p.path, path_field);
  for (std::size_t j = 0; j < spec.parameters.size(); ++j) {
    if (spec.parameters[j].json_pointer != p.json_pointer) continue;
    throw SceneError(path_field, "path \"" + p.path + "\" names the same value as " + earlier_fields[j] + " (\"" +
                                     spec.parameters[j].path + "\", both " + p.json_pointer + ")");
  }
  spec.parameters.push_back(std::move(p));
}

namespace {

SweepMode parse_mode(const json& m, const std::string& m_path) {
  const std::string mode = as_string(m, m_path);
  for (SweepMode x : {SweepMode::Random, SweepMode::LatinHypercube, SweepMode::Grid, SweepMode::Sobol,
                      SweepMode::Saltelli, SweepMode::Design}) {
    if (mode == sweep_mode_name(x)) return x;
  }
  throw SceneError(m_path, "unknown mode \"" + mode + "\" (expected random, lhs, grid, sobol, saltelli or design)");
}

/// Refuses a key the mode does not take. (check_keys takes an initializer_list, whose
/// array lives only in the full-expression: one call per mode.)
void check_mode_keys(const json& sweep, const std::string& path, SweepMode mode) {
  switch (mode) {
    case SweepMode::Sobol:
      return check_keys(sweep, path, {"mode", "instances", "seed", "parameters", "correlation", "covariance", "scramble"});
    case SweepMode::Saltelli:
      // Saltelli's estimators of the Sobol' indices assume independent inputs
      // (Saltelli et al. 2010, "Variance based sensitivity analysis of model output").
      for (const char* key : {"correlation", "covariance"})
        if (find_key(sweep, key) != nullptr)
          throw SceneError(child_path(path, key), std::string(key) +
                                                      " is not allowed in saltelli mode (Sobol' indices need "
                                                      "independent inputs)");
      return check_keys(sweep, path, {"mode", "instances", "seed", "parameters", "base", "second_order", "scramble"});
    case SweepMode::Design:
      return check_keys(sweep, path, {"mode", "instances", "seed", "file", "columns"});
    case SweepMode::Grid:
      return check_keys(sweep, path, {"mode", "instances", "seed", "parameters"});
    case SweepMode::Random:
    case SweepMode::LatinHypercube:
      return check_keys(sweep, path, {"mode", "instances", "seed", "parameters", "correlation", "covariance"});
  }
}

void parse_parameters(const json& sweep, const std::string& path, const json& doc, SweepSpec& spec) {
  const json* params = find_key(sweep, "parameters");
  if (params == nullptr) return;
  const std::string p_path = child_path(path, "parameters");
  expect_array(*params, p_path);
  std::vector<std::string> fields;
  for (std::size_t k = 0; k < params->size(); ++k) {
    const std::string k_path = child_path(p_path, k);
    add_parameter(spec, parse_parameter((*params)[k], k_path, doc), child_path(k_path, "path"), fields);
    fields.push_back(child_path(k_path, "path"));
  }
}

/// Design mode: the parameters are the design file's columns, each a List of its column.
void parse_design(const json& sweep, const std::string& path, const json& doc, const std::string& source,
                  SweepSpec& spec) {
  const std::string f_path = child_path(path, "file");
  const std::string ref = as_string(require_key(sweep, path, "file"), f_path);
  if (ref.empty()) throw SceneError(f_path, "must name a design file (got an empty string)");
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file(ref);
  if (file.is_relative() && fs::is_regular_file(source, ec)) file = fs::path(source).parent_path() / file;
  spec.design_file = file.lexically_normal().string();
  const std::string c_path = child_path(path, "columns");
  DesignTable t = read_design_file(spec.design_file, f_path, find_key(sweep, "columns"), c_path);
  const bool from_header = find_key(sweep, "columns") == nullptr;
  std::vector<std::string> fields;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const std::string field = from_header ? f_path : child_path(c_path, c);
    const std::string place = from_header ? spec.design_file + ", header column " + std::to_string(c + 1) + ": " : "";
    SweepParameter p;
    p.path = t.columns[c];
    p.dist = Distribution::List;
    try {
      p.json_pointer = resolve_sweep_path(doc, p.path, field);
      p.values = std::move(t.values[c]);
      add_parameter(spec, std::move(p), field, fields);
    } catch (const SceneError& e) {
      throw SceneError(field, place + e.reason());
    }
    fields.push_back(from_header ? "header column " + std::to_string(c + 1) : child_path(c_path, c));
  }
  spec.design_crc64 = t.crc64;
  spec.instances = t.rows;
}

/// The instance count that grid, saltelli and design mode fix (-1 in the other modes),
/// with the rule that explains it; sets the saltelli fields. Throws SceneError.
long long fixed_count(const json& sweep, const std::string& path, SweepSpec& spec, std::string& fixed_rule) {
  long long fixed = -1;
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
    fixed = product;
    fixed_rule = "grid mode runs the product of list lengths, ";
  } else if (spec.mode == SweepMode::Saltelli) {
    const std::string b_path = child_path(path, "base");
    const long long base = as_integer(require_key(sweep, path, "base"), b_path);
    if (base < 1) throw SceneError(b_path, "must be >= 1 (got " + std::to_string(base) + ")");
    if (const json* s = find_key(sweep, "second_order"))
      spec.saltelli_second_order = as_bool(*s, child_path(path, "second_order"));
    const long long dims = static_cast<long long>(spec.parameters.size());
    if (dims < 1) throw SceneError(child_path(path, "parameters"), "saltelli mode needs at least one parameter");
    if (2 * dims > max_sobol_dimension())
      throw SceneError(child_path(path, "parameters"), std::to_string(dims) + " parameters: saltelli mode samples " +
                                                           std::to_string(2 * dims) + " Sobol' dimensions, at most " +
                                                           std::to_string(max_sobol_dimension()));
    fixed = saltelli_rows(base, dims, spec.saltelli_second_order);
    if (fixed < 0) throw SceneError(b_path, "the design would have more than 2^31 - 1 instances");
    spec.saltelli_base = static_cast<int>(base);
    fixed_rule = spec.saltelli_second_order ? "saltelli mode runs base (2 D + 2) = " : "saltelli mode runs base (D + 2) = ";
  } else if (spec.mode == SweepMode::Design) {
    fixed = spec.instances;
    fixed_rule = "design mode runs the design file's rows, ";
  } else if (spec.mode == SweepMode::Sobol && static_cast<int>(spec.parameters.size()) > max_sobol_dimension()) {
    throw SceneError(child_path(path, "parameters"), std::to_string(spec.parameters.size()) +
                                                         " parameters: sobol mode supports at most " +
                                                         std::to_string(max_sobol_dimension()));
  }
  return fixed;
}

}  // namespace

SweepSpec parse_sweep(const json& sweep, const std::string& path, const json& doc, const std::string& source) {
  expect_object(sweep, path);
  SweepSpec spec;
  if (const json* m = find_key(sweep, "mode")) spec.mode = parse_mode(*m, child_path(path, "mode"));
  check_mode_keys(sweep, path, spec.mode);
  if (const json* s = find_key(sweep, "seed")) spec.seed = read_seed(*s, child_path(path, "seed"));
  if (const json* s = find_key(sweep, "scramble")) spec.scramble = as_bool(*s, child_path(path, "scramble"));
  const std::string n_path = child_path(path, "instances");
  const json* n = find_key(sweep, "instances");
  if (n != nullptr) {
    const long long count = as_integer(*n, n_path);
    if (count < 1) throw SceneError(n_path, "must be >= 1 (got " + std::to_string(count) + ")");
    spec.instances = static_cast<int>(count);
  }
  const long long given = spec.instances;
  if (spec.mode == SweepMode::Design) {
    parse_design(sweep, path, doc, source, spec);
  } else {
    parse_parameters(sweep, path, doc, spec);
  }
  std::string fixed_rule;
  const long long fixed = fixed_count(sweep, path, spec, fixed_rule);
  if (fixed >= 0) {
    if (n != nullptr && given != fixed)
      throw SceneError(n_path, fixed_rule + std::to_string(fixed) + " instances (got " + std::to_string(given) + ")");
    spec.instances = static_cast<int>(fixed);
  }
  for (const char* key : {"correlation", "covariance"}) {
    if (const json* c = find_key(sweep, key)) {
      if (!spec.correlation.parameters.empty())
        throw SceneError(child_path(path, key), "give either correlation or covariance, not both");
      spec.correlation = parse_correlation(*c, child_path(path, key), std::string(key) == "covariance", spec);
    }
  }
  return spec;
}

}  // namespace simphant::scene_detail
