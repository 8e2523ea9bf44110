// The "solver" section of a scene -> SolverSettings (docs/scene-format.md, "Solver").
#include <cmath>
#include <limits>

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

/// Largest accepted number of steps round(t_end / dt).
constexpr double kMaxSteps = 1e12;
/// Largest accepted assembly_max_iterations: Newton converges in a handful of iterations
/// or stalls (dynamics/assembly.hpp), so more would only bound a runaway loop later.
constexpr int kMaxAssemblyIterations = 1000;

/// Optional number with a lower bound: x >= lo (or x > lo when strict).
double bounded(const json& obj, const std::string& path, const char* key, double fallback, double lo, bool strict) {
  const std::string p = child_path(path, key);
  const double x = number_or(obj, path, key, fallback);
  if (strict ? !(x > lo) : !(x >= lo)) {
    throw SceneError(p, std::string(strict ? "must be > " : "must be >= ") + format_number(lo) + " (got " +
                            format_number(x) + ")");
  }
  return x;
}

/// Optional integer in [lo, hi].
int int_in_range(const json& obj, const std::string& path, const char* key, int fallback, int lo, int hi) {
  const json* v = find_key(obj, key);
  if (v == nullptr) return fallback;
  const std::string p = child_path(path, key);
  const long long n = as_integer(*v, p);
  if (n < lo) throw SceneError(p, "must be >= " + std::to_string(lo) + " (got " + std::to_string(n) + ")");
  if (n > hi) throw SceneError(p, "must be <= " + std::to_string(hi) + " (got " + std::to_string(n) + ")");
  return static_cast<int>(n);
}

}  // namespace

SolverSettings compile_solver(const json& solver, const std::string& path) {
  expect_object(solver, path);
  check_keys(solver, path,
             {"type", "dt", "t_end", "baumgarte_alpha", "baumgarte_beta", "tikhonov_epsilon", "refinement_steps", "record_every",
              "violation_bound", "assembly_max_iterations", "assembly_tolerance", "projection"});
  SolverSettings s;
  const std::string dt_path = child_path(path, "dt");
  s.dt = as_number(require_key(solver, path, "dt"), dt_path);
  if (!(s.dt > 0)) throw SceneError(dt_path, "must be > 0 (got " + format_number(s.dt) + ")");
  const std::string t_end_path = child_path(path, "t_end");
  s.t_end = as_number(require_key(solver, path, "t_end"), t_end_path);
  if (!(s.t_end >= s.dt)) {
    throw SceneError(t_end_path, "must be >= dt = " + format_number(s.dt) + " (got " + format_number(s.t_end) + ")");
  }
  // The runner steps llround(t_end / dt) times; keep that count far inside int64 and
  // exactly representable (docs/scene-format.md, "Solver").
  const double steps = std::round(s.t_end / s.dt);
  if (!(steps <= kMaxSteps)) {
    throw SceneError(t_end_path, "t_end / dt = " + format_number(steps) + " steps exceeds the limit of 1e12 steps");
  }
  s.baumgarte_alpha = bounded(solver, path, "baumgarte_alpha", s.baumgarte_alpha, 0.0, false);
  s.baumgarte_beta = bounded(solver, path, "baumgarte_beta", s.baumgarte_beta, 0.0, false);
  s.tikhonov_epsilon = bounded(solver, path, "tikhonov_epsilon", s.tikhonov_epsilon, 0.0, false);
  s.refinement_steps = int_in_range(solver, path, "refinement_steps", s.refinement_steps, 0, kMaxRefinementSteps);
  s.record_every = int_in_range(solver, path, "record_every", s.record_every, 1, std::numeric_limits<int>::max());
  s.violation_bound = bounded(solver, path, "violation_bound", s.violation_bound, 0.0, true);
  s.assembly_max_iterations =
      int_in_range(solver, path, "assembly_max_iterations", s.assembly_max_iterations, 1, kMaxAssemblyIterations);
  s.assembly_tolerance = bounded(solver, path, "assembly_tolerance", s.assembly_tolerance, 0.0, true);
  if (const json* v = find_key(solver, "projection")) {
    const std::string p = child_path(path, "projection");
    const std::string name = as_string(*v, p);
    if (!parse_projection(name, s.projection))
      throw SceneError(p, "must be \"none\", \"velocity\" or \"position_velocity\" (got \"" + name + "\")");
  }
  return s;
}

}  // namespace simphant::scene_detail
