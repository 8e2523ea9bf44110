#include "simphant/job/stability_check.hpp"

#include <cmath>
#include <cstdio>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/stability.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

namespace {

using nlohmann::json;

const char* field_key(StabilityField f) {
  switch (f) {
    case StabilityField::BaumgarteAlpha: return "baumgarte_alpha";
    case StabilityField::BaumgarteBeta: return "baumgarte_beta";
    case StabilityField::Stiffness: return "stiffness";
    case StabilityField::Damping: return "damping";
  }
  return "";
}

/// JSON pointer of the field that sets a mode; a force the document does not list at
/// its model index (robot-derived) is named "force '<name>'".
std::string field_path(const StabilityMode& m, const Model& model, const json& doc) {
  if (m.force < 0) return std::string("/solver/") + field_key(m.field);
  const std::string& name = model.forces[static_cast<std::size_t>(m.force)].name;
  const json* forces = doc.is_object() && doc.contains("forces") ? &doc.at("forces") : nullptr;
  if (forces && forces->is_array() && static_cast<std::size_t>(m.force) < forces->size()) {
    const json& f = (*forces)[static_cast<std::size_t>(m.force)];
    if (f.is_object() && f.contains("name") && f.at("name") == name) {
      // A tabulated characteristic is analysed with its largest slope (mode_stiffness).
      const std::string key = field_key(m.field);
      const bool table = f.contains(key + "_table");
      return "/forces/" + std::to_string(m.force) + "/" + key + (table ? "_table" : "");
    }
  }
  return "force '" + name + "' " + field_key(m.field);
}

std::string mode_name(const StabilityMode& m, const Model& model) {
  if (m.force < 0) return "Baumgarte error dynamics";
  const ForceElement& f = model.forces[static_cast<std::size_t>(m.force)];
  return std::string(f.type == ForceType::RotationalSpringDamper ? "rotational spring-damper '" : "spring-damper '") +
         f.name + "'";
}

std::string g4(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

}  // namespace

StabilityCheck check_step_stability(const std::vector<Model>& models, const json& doc) {
  StabilityCheck out;
  const Model& m0 = models.front();
  const double dt = m0.solver.dt;
  const bool reduced = m0.robot && m0.robot->solver != RobotSolver::Dae;
  std::vector<StabilityMode> base;
  if (has_spring_dampers(m0)) {  // their effective masses need the assembled state
    Data d(m0);
    std::vector<double> Y(static_cast<std::size_t>(m0.ny()));
    initial_state(m0, Y.data());
    if (m0.n_rows > 0) assemble(m0, d, Y.data());
    base = stability_modes(m0, d, Y.data());
  } else if (m0.n_rows > 0 && (m0.solver.baumgarte_alpha > 0 || m0.solver.baumgarte_beta > 0)) {
    base.push_back(baumgarte_mode(m0.solver.baumgarte_alpha, m0.solver.baumgarte_beta));
  }
  if (reduced) {  // no Baumgarte stabilisation in joint coordinates
    std::vector<StabilityMode> kept;
    for (const StabilityMode& m : base)
      if (m.force >= 0) kept.push_back(m);
    base = kept;
  }
  // Per mode, the instance with the smallest stable step.
  std::vector<StabilityMode> worst = base;
  std::vector<int> worst_instance(base.size(), 0);
  for (std::size_t i = 1; i < models.size(); ++i) {
    const std::vector<StabilityMode> mi = rescale_modes(base, models[i]);
    for (std::size_t k = 0; k < mi.size(); ++k)
      if (mi[k].dt_max < worst[k].dt_max) {
        worst[k] = mi[k];
        worst_instance[k] = static_cast<int>(i);
      }
  }
  json modes = json::array();
  for (std::size_t k = 0; k < worst.size(); ++k) {
    const StabilityMode& m = worst[k];
    const double ratio = dt / m.dt_max;
    const char* verdict = ratio > 1.0 ? "unstable" : ratio > kStabilityWarnRatio ? "warn" : "ok";
    const std::string field = field_path(m, m0, doc), name = mode_name(m, m0);
    modes.push_back(json{{"field", field},
                         {"name", name},
                         {"lambda_re", m.lambda.real()},
                         {"lambda_im", m.lambda.imag()},
                         {"lambda_dt", std::abs(m.lambda) * dt},
                         {"effective_inverse_mass", m.inverse_mass},
                         {"dt_max_s", m.dt_max},
                         {"ratio", ratio},
                         {"instance", worst_instance[k]},
                         {"verdict", verdict}});
    // bdf is implicit (CVODE's BDF, A-stable up to order 2, A(alpha)-stable above): RK4's
    // limit does not bound its step, the modes are an estimate only.
    if (ratio <= kStabilityWarnRatio || m0.solver.integrator == Integrator::Bdf) continue;
    char msg[768];
    const std::string where = models.size() > 1 ? " (instance " + std::to_string(worst_instance[k]) + ")" : "";
    const std::string mass =
        m.force < 0 ? std::string()
                    : ", effective inverse mass " + g4(m.inverse_mass) +
                          (m0.forces[static_cast<std::size_t>(m.force)].type == ForceType::RotationalSpringDamper
                               ? " 1/(kg m^2) about its axis"
                               : " 1/kg along its line");
    std::snprintf(msg, sizeof msg,
                  "%s%s: mode lambda = %.4g%+.4gi 1/s, |lambda| dt = %.3g%s; RK4 is stable for dt <= %.4g s along "
                  "this mode (|lambda| dt <= %.4g)",
                  name.c_str(), where.c_str(), m.lambda.real(), m.lambda.imag(), std::abs(m.lambda) * dt, mass.c_str(),
                  m.dt_max, m.dt_max * std::abs(m.lambda));
    if (ratio > 1.0 && out.refused_field.empty()) {
      out.refused_field = field;
      out.refused_reason = std::string(msg) + ": dt = " + g4(dt) +
                           " s is beyond it and the run would blow up; use dt <= " + g4(m.dt_max) +
                           " s, or set solver.allow_unstable: true";
    }
    if (ratio > 1.0 && !m0.solver.allow_unstable) continue;  // refused: the refusal says it
    out.warnings.push_back(field + ": " + msg +
                           (ratio > 1.0 ? ": dt is beyond the stability limit (run as solver.allow_unstable is true)"
                                        : ": dt is within a factor 2 of the stability limit"));
  }
  out.estimate = json{{"dt_s", dt}, {"allow_unstable", m0.solver.allow_unstable}, {"modes", modes}};
  return out;
}

}  // namespace simphant
