// A motion law object of a scene -> Model::laws (docs/scene-format.md, "Motion laws";
// formulas/motion_law.hpp for the parameter layouts).
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

double required_number(const json& obj, const std::string& path, const char* key) {
  return as_number(require_key(obj, path, key), child_path(path, key));
}

/// An array of finite numbers with at least `min_size` and at most `max_size` entries.
std::vector<double> number_array(const json& obj, const std::string& path, const char* key, std::size_t min_size,
                                 std::size_t max_size) {
  const std::string p = child_path(path, key);
  const json& a = require_key(obj, path, key);
  expect_array(a, p);
  if (a.size() < min_size) throw SceneError(p, "must have at least " + std::to_string(min_size) + " entries (got " + std::to_string(a.size()) + ")");
  if (a.size() > max_size) throw SceneError(p, "must have at most " + std::to_string(max_size) + " entries (got " + std::to_string(a.size()) + ")");
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) out.push_back(as_number(a[k], child_path(p, k)));
  return out;
}

}  // namespace

int compile_motion_law(const json& law, const std::string& path, Model& model) {
  expect_object(law, path);
  const std::string type_path = child_path(path, "type");
  const std::string type = as_string(require_key(law, path, "type"), type_path);
  MotionLaw out;
  if (type == "constant_speed") {
    check_keys(law, path, {"type", "initial", "speed"});
    out.type = MotionLawType::ConstantSpeed;
    out.params = {number_or(law, path, "initial", 0.0), required_number(law, path, "speed")};
  } else if (type == "polynomial") {
    check_keys(law, path, {"type", "coefficients"});
    out.type = MotionLawType::Polynomial;
    out.params = number_array(law, path, "coefficients", 1, kMaxPolynomialCoefficients);
  } else if (type == "rise") {
    check_keys(law, path, {"type", "profile", "start", "duration", "initial", "lift"});
    const std::string pp = child_path(path, "profile");
    const std::string profile = as_string(require_key(law, path, "profile"), pp);
    if (profile == "345")
      out.type = MotionLawType::Rise345;
    else if (profile == "cycloidal")
      out.type = MotionLawType::RiseCycloidal;
    else
      throw SceneError(pp, "must be \"345\" or \"cycloidal\" (got \"" + printable(profile) + "\")");
    const double duration = required_number(law, path, "duration");
    if (!(duration > 0)) throw SceneError(child_path(path, "duration"), "must be > 0 (got " + format_number(duration) + ")");
    out.params = {number_or(law, path, "start", 0.0), duration, number_or(law, path, "initial", 0.0),
                  required_number(law, path, "lift")};
  } else if (type == "harmonic") {
    check_keys(law, path, {"type", "offset", "amplitude", "frequency", "phase"});
    out.type = MotionLawType::Harmonic;
    const double f = required_number(law, path, "frequency");
    if (!(f >= 0)) throw SceneError(child_path(path, "frequency"), "must be >= 0 (got " + format_number(f) + ")");
    out.params = {number_or(law, path, "offset", 0.0), required_number(law, path, "amplitude"), f,
                  number_or(law, path, "phase", 0.0)};
  } else if (type == "table") {
    check_keys(law, path, {"type", "time", "value"});
    out.type = MotionLawType::Table;
    constexpr std::size_t kMaxKnots = 100000;
    const std::vector<double> x = number_array(law, path, "time", 2, kMaxKnots);
    const std::vector<double> y = number_array(law, path, "value", 2, kMaxKnots);
    const std::string tp = child_path(path, "time");
    if (y.size() != x.size())
      throw SceneError(child_path(path, "value"), "must have as many entries as time (" + std::to_string(x.size()) + ", got " + std::to_string(y.size()) + ")");
    for (std::size_t k = 1; k < x.size(); ++k)
      if (!(x[k] > x[k - 1]))
        throw SceneError(child_path(tp, k), "time must be strictly increasing (time[" + std::to_string(k) + "] = " +
                                                format_number(x[k]) + " <= time[" + std::to_string(k - 1) + "] = " + format_number(x[k - 1]) + ")");
    const int n = static_cast<int>(x.size());
    out.params.resize(3 * x.size());
    for (int k = 0; k < n; ++k) {
      out.params[k] = x[k];
      out.params[n + k] = y[k];
    }
    natural_spline_m2(x.data(), y.data(), n, out.params.data() + 2 * n);
  } else {
    throw SceneError(type_path, "unknown motion law type \"" + printable(type) +
                                    "\" (allowed: constant_speed, polynomial, rise, harmonic, table)");
  }
  model.laws.push_back(std::move(out));
  return static_cast<int>(model.laws.size()) - 1;
}

}  // namespace simphant::scene_detail
