#include "simphant/job/stability_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "simphant/formulas/joint_stop.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/contact_stability.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/dynamics/robot_stability.hpp"
#include "simphant/dynamics/stability.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

namespace {

using nlohmann::json;

constexpr double kPi = 3.14159265358979323846;

const char* field_key(StabilityField f) {
  switch (f) {
    case StabilityField::BaumgarteAlpha: return "baumgarte_alpha";
    case StabilityField::BaumgarteBeta: return "baumgarte_beta";
    case StabilityField::Stiffness: return "stiffness";
    case StabilityField::Damping: return "damping";
    case StabilityField::SlipSpeed: return "slip_speed";
    case StabilityField::RollingSpeed: return "rolling_speed";
  }
  return "";
}

/// JSON pointer of the field that sets a mode; a force the document does not list at
/// its model index (robot-derived) is named "force '<name>'".
std::string field_path(const StabilityMode& m, const Model& model, const json& doc) {
  if (m.joint >= 0) return robot_mode_field(m, *model.robot);
  if (m.force < 0) return std::string("/solver/") + field_key(m.field);
  const ForceElement& fe = model.forces[static_cast<std::size_t>(m.force)];
  const std::string& name = fe.name;
  if (fe.type == ForceType::Contact) {  // the material key that sets the pair's coefficient
    const int k = m.field == StabilityField::Stiffness  ? 0
                  : m.field == StabilityField::Damping  ? 1
                  : m.field == StabilityField::SlipSpeed ? 2
                                                         : 3;
    return fe.contact_source[static_cast<std::size_t>(k)];
  }
  if (fe.type == ForceType::JointStop)  // the stop's stiffness, or its restitution that sets the damping
    return fe.contact_source[m.field == StabilityField::Stiffness ? 0 : 1];
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
  if (m.joint >= 0) return robot_mode_name(m, *model.robot);
  if (m.force < 0) return "Baumgarte error dynamics";
  const ForceElement& f = model.forces[static_cast<std::size_t>(m.force)];
  if (f.type == ForceType::Contact)
    return std::string(m.field == StabilityField::SlipSpeed      ? "friction of '"
                       : m.field == StabilityField::RollingSpeed ? "rolling resistance of '"
                                                                 : "normal force of '") +
           f.name + "'";
  if (f.type == ForceType::JointStop) return f.name;  // "end stops of joint '<name>'"
  return std::string(f.type == ForceType::RotationalSpringDamper ? "rotational spring-damper '" : "spring-damper '") +
         f.name + "'";
}

std::string g4(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

/// Warnings of the end stops at model's assembled state Y, one per stop, naming
/// /joints/<k>/limits: a joint that starts beyond a limit (an initial angle past it), where
/// the run begins with the stop's push the scene did not ask for; and an angle's stops
/// that store less than the mechanism's starting kinetic energy, K h^2 / 2, before a
/// coordinate driven past a limit by h, half the arc beyond the range, is read at the other
/// stop (joint_stop_coordinate): an impact with that energy would pass through.
std::vector<std::string> stop_warnings_at_start(const Model& model, Data& d, const double* Y) {
  std::vector<std::string> out;
  set_kinematics(model, d, Y);
  double kinetic = 0;
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Body& b = model.bodies[static_cast<std::size_t>(k)];
    kinetic += body_kinetic_energy(b.mass, b.inertia_B, d.kin[static_cast<std::size_t>(k)]);
  }
  for (const ForceElement& f : model.forces) {
    if (f.type != ForceType::JointStop) continue;
    const Joint& jt = model.joints[static_cast<std::size_t>(f.joint)];
    const bool angle = f.kind == ActuatorKind::Torque;
    const std::string& stiffness = f.contact_source[0];  // /joints/<k>/limits/stiffness
    const std::string path = stiffness.substr(0, stiffness.rfind('/'));
    double q, qd;
    joint_stop_coordinate(angle, jt.frame, jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>(),
                          jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>(), joint_stop_middle(f.lower, f.upper),
                          q, qd);
    const bool upper = q > f.upper;
    const double beyond = upper ? q - f.upper : f.lower - q;
    if (beyond > 0)
      out.push_back(path + ": joint '" + jt.name + "' starts at " + g4(q) + (angle ? " rad, " : " m, ") + g4(beyond) +
                    (upper ? " beyond its upper limit " : " beyond its lower limit ") + g4(upper ? f.upper : f.lower) +
                    ": its end stop pushes it back from the start with " + g4(f.contact.normal.stiffness * beyond) +
                    (angle ? " N m" : " N") + "; start the joint inside [lower, upper]");
    if (!angle) continue;
    const double h = kPi - 0.5 * (f.upper - f.lower);
    const double capacity = 0.5 * f.contact.normal.stiffness * h * h;
    if (capacity < kinetic)
      out.push_back(path + ": the end stops of joint '" + jt.name + "' store K h^2 / 2 = " + g4(capacity) +
                    " J before the angle, driven h = " + g4(h) + " rad past a limit, reaches the middle of the arc "
                    "beyond the range and is read at the other stop, less than the " + g4(kinetic) +
                    " J of kinetic energy the mechanism starts with: an impact with it would pass through the stop; "
                    "raise " + stiffness);
  }
  return out;
}

}  // namespace

StabilityCheck check_step_stability(const std::vector<Model>& models, const json& doc) {
  StabilityCheck out;
  const Model& m0 = models.front();
  const double dt = m0.solver.dt;
  const Integrator integrator = m0.solver.integrator;
  if (is_adaptive(integrator)) {  // the error control sets the step (docs/solver.md, "Integrators")
    out.estimate = json{{"dt_s", dt},
                        {"allow_unstable", m0.solver.allow_unstable},
                        {"integrator", integrator_name(integrator)},
                        {"modes", json::array()}};
    return out;
  }
  // The refusal limit per mode: the integrator's stability limit; explicit Euler's is
  // h |lambda| <= 2, beyond which every mode grows by at least h |lambda| - 1 per step
  // (below it an oscillating mode still grows by |1 + h lambda|: a warning).
  const auto limit_of = [integrator](StabilityMode m) {
    m.dt_max = integrator == Integrator::Euler ? euler_blowup_step(m) : integrator_stable_step(integrator, m);
    if (!(m.dt_max >= 0)) m.dt_max = 0;  // an infinite mode (a stiffness near the largest double): no dt is stable
    return m;
  };
  const bool reduced = m0.robot && m0.robot->solver != RobotSolver::Dae;
  std::vector<StabilityMode> base;
  std::vector<std::string> stop_warnings;
  if (has_spring_dampers(m0)) {  // their effective masses need the assembled state
    Data d(m0);
    std::vector<double> Y(static_cast<std::size_t>(m0.ny()));
    initial_state(m0, Y.data());
    if (m0.n_rows > 0) assemble(m0, d, Y.data());
    base = stability_modes(m0, d, Y.data());
    stop_warnings = stop_warnings_at_start(m0, d, Y.data());
  } else if (m0.n_rows > 0 && (m0.solver.baumgarte_alpha > 0 || m0.solver.baumgarte_beta > 0)) {
    base.push_back(baumgarte_mode(m0.solver.baumgarte_alpha, m0.solver.baumgarte_beta));
  }
  if (reduced) {  // no Baumgarte stabilisation in joint coordinates
    std::vector<StabilityMode> kept;
    for (const StabilityMode& m : base)
      if (m.force >= 0) kept.push_back(m);
    base = kept;
  }
  // A robot's joint forces (servos, springs, limits, damping, friction): one mode per joint, made
  // per instance from its own gains and effective inertia.
  const std::vector<StabilityMode> model_modes = base;
  if (m0.robot) {
    for (const StabilityMode& m : robot_joint_modes(*m0.robot)) base.push_back(m);
  }
  // The contacts: three modes per pair, made per instance from its own initial state,
  // materials and shapes (dynamics/contact_stability.hpp).
  const bool contact = std::any_of(m0.forces.begin(), m0.forces.end(),
                                   [](const ForceElement& f) { return f.type == ForceType::Contact; });
  // Bodies in joints feel a contact through the constraints: their mobility at the first
  // instance's assembled state stands for every instance.
  std::vector<Eigen::Matrix<double, 6, 6>> mobility;
  // A pair that starts pressed together over twice as hard as the load its modes assume
  // (a body at rest on its contact carries that load exactly): the check does not cover it, and the run begins with a push the scene did not ask for (shapes
  // placed into each other). Once per pair, at the first instance that shows it.
  std::vector<std::string> overlap_warnings;
  std::vector<char> overlap_named(m0.forces.size(), 0);
  const auto add_contact_modes = [&](std::size_t i, const double* Y, std::vector<StabilityMode>& to) {
    const Model& m = models[i];
    const std::vector<StabilityMode> cm = contact_modes(m, Y, mobility.empty() ? nullptr : &mobility);
    for (const StabilityMode& c : cm) to.push_back(c);
    for (const ContactOverlap& o : contact_overlaps(m, Y)) {
      double reference = 0;
      for (const StabilityMode& c : cm)
        if (c.force == o.force && c.field != StabilityField::SlipSpeed && c.field != StabilityField::RollingSpeed)
          reference = c.contact_force;
      if (!(o.normal_force > 2 * reference) || overlap_named[static_cast<std::size_t>(o.force)]) continue;
      overlap_named[static_cast<std::size_t>(o.force)] = 1;
      overlap_warnings.push_back("/contact: '" + m.forces[static_cast<std::size_t>(o.force)].name + "'" +
                                 (models.size() > 1 ? " (instance " + std::to_string(i) + ")" : std::string()) +
                                 " starts with its shapes " + g4(o.depth) + " m into each other, at a normal force of " +
                                 g4(o.normal_force) + " N, over twice the " + g4(reference) +
                                 " N the step-size check assumes (an impact at the reference speed, or the weight "
                                 "at rest): the run begins with a push; place the shapes apart at the start");
    }
  };
  if (contact) {
    std::vector<double> Y0(static_cast<std::size_t>(m0.ny()));
    initial_state(m0, Y0.data());
    if (m0.n_rows > 0) {
      Data d(m0);
      assemble(m0, d, Y0.data());
      mobility = body_mobilities(m0, d, Y0.data());
    }
    add_contact_modes(0, Y0.data(), base);
  }
  // Per mode, the instance with the smallest stable step.
  for (StabilityMode& m : base) m = limit_of(m);
  std::vector<StabilityMode> worst = base;
  std::vector<int> worst_instance(base.size(), 0);
  for (std::size_t i = 1; i < models.size(); ++i) {
    std::vector<StabilityMode> mi = rescale_modes(model_modes, models[i]);
    if (models[i].robot) {
      for (const StabilityMode& m : robot_joint_modes(*models[i].robot)) mi.push_back(m);
    }
    if (contact) {
      std::vector<double> Yi(static_cast<std::size_t>(models[i].ny()));
      initial_state(models[i], Yi.data());
      add_contact_modes(i, Yi.data(), mi);
    }
    for (StabilityMode& m : mi) m = limit_of(m);
    for (std::size_t k = 0; k < mi.size(); ++k)
      if (mi[k].dt_max < worst[k].dt_max) {
        worst[k] = mi[k];
        worst_instance[k] = static_cast<int>(i);
      }
  }
  json modes = json::array();
  for (std::size_t k = 0; k < worst.size(); ++k) {
    const StabilityMode& m = worst[k];
    const Model& mk = models[static_cast<std::size_t>(worst_instance[k])];
    const bool contact_mode = m.force >= 0 && mk.forces[static_cast<std::size_t>(m.force)].type == ForceType::Contact;
    if (contact_mode && std::abs(m.lambda) == 0.0) continue;  // no friction, no rolling resistance
    // Friction and rolling resistance stay within mu F_n: beyond their limit the slip
    // stalls or oscillates inside that bound (a warning), the run does not blow up.
    const bool bounded = m.field == StabilityField::SlipSpeed || m.field == StabilityField::RollingSpeed;
    const double ratio = dt / m.dt_max;
    // Explicit Euler inside its refusal limit but outside |1 + h lambda| <= 1.
    const double gain = integrator == Integrator::Euler ? euler_gain(m, dt) : 0.0;
    const bool euler_grows = integrator == Integrator::Euler && ratio <= 1.0 && gain > 1.0 + 1e-12;
    // A contact's normal mode lasts about half its period, pi / |lambda|: resolved by fewer
    // than kContactStepsWarn steps, the rebound and peak force are off by about 1 % or more
    // (docs/contact.md, "Step size").
    // An end stop's impact alike (the same law at n = 1).
    const bool stop_mode = m.force >= 0 && mk.forces[static_cast<std::size_t>(m.force)].type == ForceType::JointStop;
    const bool impact = (contact_mode && !bounded) || stop_mode;
    const double contact_steps = impact ? kPi / (std::abs(m.lambda) * dt) : 0.0;
    const bool coarse_contact = impact && ratio <= 1.0 && contact_steps < kContactStepsWarn;
    const char* verdict = ratio > 1.0                                              ? "unstable"
                          : ratio > kStabilityWarnRatio || euler_grows || coarse_contact ? "warn"
                                                                                   : "ok";
    const std::string field = field_path(m, mk, doc), name = mode_name(m, mk);
    json entry{{"field", field},
               {"name", name},
               {"lambda_re", m.lambda.real()},
               {"lambda_im", m.lambda.imag()},
               {"lambda_dt", std::abs(m.lambda) * dt},
               {"effective_inverse_mass", m.inverse_mass},
               {"dt_max_s", m.dt_max},
               {"ratio", ratio},
               {"instance", worst_instance[k]},
               {"verdict", verdict}};
    if (contact_mode) {
      entry["reference_speed_m_s"] = m.contact_speed;
      entry["normal_force_n"] = m.contact_force;
    }
    if (impact) entry["steps_per_contact"] = contact_steps;
    modes.push_back(std::move(entry));
    if (coarse_contact && ratio <= kStabilityWarnRatio && !euler_grows && stop_mode) {
      char msg[512];
      std::snprintf(msg, sizeof msg,
                    "%s: an impact on the stop lasts about pi / |lambda| = %.3g s, %.3g steps of dt = %.4g s: its "
                    "rebound is off by about 1 %% or more; use dt <= %.4g s (%d steps per impact) or a softer stiffness",
                    name.c_str(), kPi / std::abs(m.lambda), contact_steps, dt,
                    kPi / (std::abs(m.lambda) * kContactStepsWarn), static_cast<int>(kContactStepsWarn));
      out.warnings.push_back(field + ": " + msg);
      continue;
    }
    if (coarse_contact && ratio <= kStabilityWarnRatio && !euler_grows) {
      char msg[512];
      std::snprintf(msg, sizeof msg,
                    "%s: a contact at normal force %.4g N (impact at %.4g m/s, contact.impact_speed; or the weight at "
                    "rest) lasts about pi / |lambda| = %.3g s, %.3g steps of dt = %.4g s: its rebound and peak force "
                    "are off by about 1 %% or more; use dt <= %.4g s (%d steps per contact) or a softer stiffness",
                    name.c_str(), m.contact_force, m.contact_speed, kPi / std::abs(m.lambda), contact_steps, dt,
                    kPi / (std::abs(m.lambda) * kContactStepsWarn), static_cast<int>(kContactStepsWarn));
      out.warnings.push_back(field + ": " + msg);
      continue;
    }
    if (ratio <= kStabilityWarnRatio && !euler_grows) continue;
    char msg[1024];
    const std::string where = models.size() > 1 ? " (instance " + std::to_string(worst_instance[k]) + ")" : "";
    const std::string mass =
        m.joint >= 0 ? ", effective inverse inertia " + g4(m.inverse_mass) + " 1/(kg m^2) | 1/kg of the joint"
        : m.force < 0 ? std::string()
        : contact_mode
            ? ", effective inverse " +
                  (m.field == StabilityField::RollingSpeed ? "inertia " + g4(m.inverse_mass) + " 1/(kg m^2)"
                                                           : "mass " + g4(m.inverse_mass) + " 1/kg") +
                  " at the contact point (an upper bound), at normal force " + g4(m.contact_force) +
                  " N (impact at " + g4(m.contact_speed) + " m/s, contact.impact_speed; or the weight at rest)"
            : ", effective inverse mass " + g4(m.inverse_mass) +
                  (mk.forces[static_cast<std::size_t>(m.force)].type == ForceType::RotationalSpringDamper ||
                           (mk.forces[static_cast<std::size_t>(m.force)].type == ForceType::JointStop &&
                            mk.forces[static_cast<std::size_t>(m.force)].kind == ActuatorKind::Torque)
                       ? " 1/(kg m^2) about its axis"
                       : " 1/kg along its line");
    std::snprintf(msg, sizeof msg,
                  "%s%s: mode lambda = %.4g%+.4gi 1/s, |lambda| dt = %.3g%s; %s %s dt <= %.4g s along "
                  "this mode (|lambda| dt <= %.4g)",
                  name.c_str(), where.c_str(), m.lambda.real(), m.lambda.imag(), std::abs(m.lambda) * dt, mass.c_str(),
                  integrator == Integrator::Rk4 ? "RK4" : integrator_name(integrator),
                  integrator == Integrator::Euler ? "blows up beyond" : "is stable for", m.dt_max,
                  m.dt_max * std::abs(m.lambda));
    if (bounded) {
      const std::string where_dt = ratio > 1.0                    ? ": dt = " + g4(dt) + " s is beyond it"
                                   : ratio > kStabilityWarnRatio ? std::string(": dt is within a factor 2 of it")
                                                                 : ": explicit Euler amplifies it by |1 + lambda dt| = " +
                                                                       g4(gain) + " per step";
      out.warnings.push_back(field + ": " + msg + where_dt +
                             "; the force stays within its Coulomb bound, but the slip stalls or oscillates "
                             "instead of dying out (a body that should stick or roll keeps sliding; not a "
                             "blow-up): use dt <= " +
                             g4(kStabilityWarnRatio * m.dt_max) + " s or a larger " + field_key(m.field));
      continue;
    }
    if (ratio > 1.0 && out.refused_field.empty()) {
      out.refused_field = field;
      out.refused_reason = std::string(msg) + ": dt = " + g4(dt) +
                           " s is beyond it and the run would blow up; use dt <= " + g4(m.dt_max) +
                           (contact_mode ? " s, give contact.impact_speed where no contact can be that fast" : " s") +
                           ", or set solver.allow_unstable: true";
    }
    if (ratio > 1.0 && !m0.solver.allow_unstable) continue;  // refused: the refusal says it
    if (euler_grows) {
      // |1 + h lambda| > 1: the mode's amplitude grows by that factor per step (docs/solver.md, "Integrators").
      const double steps = std::round(m0.solver.t_end / dt);
      const double stable = integrator_stable_step(integrator, m);
      char grow[384];
      std::snprintf(grow, sizeof grow,
                    ": explicit Euler amplifies this mode by |1 + lambda dt| = %.6g per step (x %.3g by t_end; it "
                    "adds energy to every undamped or lightly damped oscillation): use symplectic_euler or rk4",
                    gain, std::exp(std::min(700.0, steps * std::log(gain))));
      out.warnings.push_back(field + ": " + msg + grow +
                             (stable > 0 ? ", or dt <= " + g4(stable) + " s" : std::string(" (no dt is stable for it)")));
      continue;
    }
    out.warnings.push_back(field + ": " + msg +
                           (ratio > 1.0 ? ": dt is beyond the stability limit (run as solver.allow_unstable is true)"
                                        : ": dt is within a factor 2 of the stability limit"));
  }
  for (const std::string& w : overlap_warnings) out.warnings.push_back(w);
  for (const std::string& w : stop_warnings) out.warnings.push_back(w);
  out.estimate = json{{"dt_s", dt},
                      {"allow_unstable", m0.solver.allow_unstable},
                      {"integrator", integrator_name(integrator)},
                      {"modes", modes}};
  return out;
}

}  // namespace simphant
