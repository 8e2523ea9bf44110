// The "solver" section of a scene -> SolverSettings (docs/scene-format.md, "Solver").
#include <algorithm>
#include <cmath>
#include <limits>

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/core/build_features.hpp"

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

/// The integrator and its settings (docs/scene-format.md, "Solver"; model/integrator.hpp),
/// after dt.
void compile_integrator(const json& solver, const std::string& path, SolverSettings& s) {
  const std::string ip = child_path(path, "integrator");
  if (const json* v = find_key(solver, "integrator")) {
    const std::string name = as_string(*v, ip);
    if (!parse_integrator(name, s.integrator))
      throw SceneError(ip, "must be \"rk4\", \"euler\", \"symplectic_euler\", \"dopri5\" or \"bdf\" (got \"" + name +
                               "\")");
    if (s.integrator == Integrator::Bdf && !bdf_available()) throw SceneError(ip, kBdfUnavailable);
  }
  s.rtol = bounded(solver, path, "rtol", s.rtol, 0.0, true);
  s.atol = bounded(solver, path, "atol", s.atol, 0.0, false);
  s.min_step = bounded(solver, path, "min_step", s.min_step, 0.0, false);
  s.max_step = bounded(solver, path, "max_step", s.max_step, 0.0, false);
  s.first_step = bounded(solver, path, "first_step", s.first_step, 0.0, false);
  // CVODE's error weights are 1 / (rtol |y_i| + atol): a component at 0 (a velocity at rest,
  // a quaternion component) would get an infinite weight.
  if (s.integrator == Integrator::Bdf && !(s.atol > 0))
    throw SceneError(child_path(path, "atol"), "must be > 0 with integrator bdf (CVODE weighs each component's error "
                                               "by 1 / (rtol |y| + atol), infinite where a component is 0)");
  // An error per step below a few units of round-off cannot be met in double precision
  // (Hairer's DOPRI5 refuses rtol <= 10 eps too).
  constexpr double kEps = std::numeric_limits<double>::epsilon();
  if (s.rtol < 10 * kEps)
    throw SceneError(child_path(path, "rtol"), "must be >= 10 machine epsilons = " + format_number(10 * kEps) +
                                                   " (got " + format_number(s.rtol) + "): tighter cannot be met in double "
                                                   "precision");
  // The adaptive step's floor (formulas/dopri5.hpp step_floor): a first step below it
  // would stop every instance at once (step_size_underflow).
  const double floor0 = std::max(s.min_step, 16 * kEps * s.dt);
  if (s.first_step > 0 && s.first_step < floor0)
    throw SceneError(child_path(path, "first_step"), "must be 0 (estimated) or >= " + format_number(floor0) +
                                                         ", the smallest step allowed (max(min_step, 16 eps dt); got " +
                                                         format_number(s.first_step) + ")");
  if (s.min_step > s.dt)
    throw SceneError(child_path(path, "min_step"), "must be <= dt = " + format_number(s.dt) + " (got " +
                                                       format_number(s.min_step) + ")");
  if (s.max_step > 0 && s.max_step < s.min_step)
    throw SceneError(child_path(path, "max_step"), "must be >= min_step = " + format_number(s.min_step) + " (got " +
                                                       format_number(s.max_step) + ")");
  if (s.first_step > 0 && s.max_step > 0 && s.first_step > s.max_step)
    throw SceneError(child_path(path, "first_step"), "must be <= max_step = " + format_number(s.max_step) + " (got " +
                                                         format_number(s.first_step) + ")");
  if (const json* v = find_key(solver, "error_estimate")) {
    if (!v->is_boolean())
      throw SceneError(child_path(path, "error_estimate"), std::string("must be a boolean (got ") + type_word(*v) + ")");
    s.error_estimate = v->get<bool>();
  }
  if (s.error_estimate && is_adaptive(s.integrator))
    throw SceneError(child_path(path, "error_estimate"),
                     std::string("applies to the fixed-step integrators (rk4, euler, symplectic_euler); integrator \"") +
                         integrator_name(s.integrator) + "\" controls its error itself (rtol, atol)");
}

}  // namespace

SolverSettings compile_solver(const json& solver, const std::string& path, const double* file_dt) {
  expect_object(solver, path);
  check_keys(solver, path,
             {"type", "dt", "t_end", "baumgarte_alpha", "baumgarte_beta", "tikhonov_epsilon", "refinement_steps",
              "record_every", "violation_bound", "assembly_max_iterations", "assembly_tolerance",
              "runaway_kinetic_energy", "allow_unstable", "projection", "integrator", "rtol", "atol", "min_step",
              "max_step", "first_step", "error_estimate", "redundant_rows"});
  SolverSettings s;
  const std::string dt_path = child_path(path, "dt");
  s.dt = file_dt != nullptr && find_key(solver, "dt") == nullptr ? *file_dt
                                                                   : as_number(require_key(solver, path, "dt"), dt_path);
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
  // 0 (absent): the bound derived at load (dynamics/runaway_bound.hpp).
  if (find_key(solver, "runaway_kinetic_energy") != nullptr)
    s.runaway_kinetic_energy = bounded(solver, path, "runaway_kinetic_energy", 0.0, 0.0, true);
  if (const json* v = find_key(solver, "allow_unstable")) {
    if (!v->is_boolean())
      throw SceneError(child_path(path, "allow_unstable"), std::string("must be a boolean (got ") + type_word(*v) + ")");
    s.allow_unstable = v->get<bool>();
  }
  if (const json* v = find_key(solver, "projection")) {
    const std::string p = child_path(path, "projection");
    const std::string name = as_string(*v, p);
    if (!parse_projection(name, s.projection))
      throw SceneError(p, "must be \"none\", \"velocity\", \"position_velocity\" or \"auto\" (got \"" + name + "\")");
  }
  if (const json* v = find_key(solver, "redundant_rows")) {
    const std::string p = child_path(path, "redundant_rows");
    const std::string name = as_string(*v, p);
    if (!parse_redundant_rows(name, s.redundant_rows))
      throw SceneError(p, "must be \"keep\" or \"remove\" (got \"" + name + "\")");
  }
  compile_integrator(solver, path, s);
  return s;
}

}  // namespace simphant::scene_detail
