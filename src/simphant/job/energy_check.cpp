#include "simphant/job/energy_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "simphant/io/h5_file.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

namespace {

bool nonzero(const Vec3d& v) { return v.x != 0 || v.y != 0 || v.z != 0; }

/// What a robot joint's law adds beyond a torque input, "" when nothing.
std::string joint_law_work(const RobotJointParams<double>& p) {
  std::string why;
  const auto add = [&](const char* w) { why += (why.empty() ? "" : ", ") + std::string(w); };
  if (p.mode != static_cast<int>(ActuatorMode::Torque)) add("servo");
  if (p.damping > 0) add("damping");
  if (p.stiffness > 0) add("joint springs");
  if (p.friction > 0) add("friction");
  if (p.limited != 0) add("limits");
  return why;
}

/// One warning per instance of `flagged` (text(i)), at most kEnergyWarningsListed, then a
/// count of the others, "... and K more instances " + rest.
template <class Text>
void add_listed(std::vector<std::string>& out, const std::vector<int>& flagged, const Text& text, const char* rest) {
  for (std::size_t k = 0; k < flagged.size() && k < static_cast<std::size_t>(kEnergyWarningsListed); ++k)
    out.push_back(text(flagged[k]));
  if (flagged.size() > static_cast<std::size_t>(kEnergyWarningsListed))
    out.push_back("... and " + std::to_string(flagged.size() - kEnergyWarningsListed) + " more instances " + rest);
}

}  // namespace

std::vector<std::string> energy_sources(const Model& model) {
  std::vector<std::string> out;
  for (const ForceElement& f : model.forces) {
    // A robot's actuators carry its joint laws (model/robot_joint_laws.hpp): named by the URDF joint.
    const bool robot_joint = model.robot && f.type == ForceType::Actuator && f.joint >= 0 &&
                             f.joint < static_cast<int>(model.robot->model.links.size());
    const std::string name = robot_joint
                                 ? "robot joint '" + model.robot->model.links[static_cast<std::size_t>(f.joint)].joint_name + "'"
                                 : f.type == ForceType::Contact || f.type == ForceType::JointStop ? f.name
                                                                                                  : "forces." + f.name;
    switch (f.type) {
      case ForceType::PointForce:
      case ForceType::Torque:
        if (nonzero(f.vec)) out.push_back(name + (f.law >= 0 ? " (time-varying load)" : " (applied load)"));
        break;
      case ForceType::SpringDamper:
      case ForceType::RotationalSpringDamper:
        if (f.damping != 0 || !f.damping_table.empty()) out.push_back(name + " (damping)");
        break;
      case ForceType::Contact:
        if (f.contact.normal.damping != 0 || f.contact.friction.mu != 0 || f.contact.friction.mu_roll != 0)
          out.push_back(name + " (contact damping, friction or rolling resistance)");
        break;
      case ForceType::JointStop:
        if (f.contact.normal.damping != 0) out.push_back(name + " (damping)");
        break;
      case ForceType::Actuator: {
        if (f.value != 0 || f.law >= 0) out.push_back(name + " (actuator input)");
        const std::string law = f.has_joint_law ? joint_law_work(f.joint_law.p) : "";
        if (!law.empty()) out.push_back(name + " (" + law + ")");
        break;
      }
    }
  }
  for (const Driver& d : model.drivers) out.push_back("drivers." + d.name + " (rheonomic driver)");
  return out;
}

double energy_error_bound(const SolverSettings& solver, const std::string& precision) {
  const double u = precision == "fp32" ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double floor = std::cbrt(u);
  switch (solver.integrator) {
    case Integrator::Rk4:
      return floor;
    case Integrator::Dopri5:
    case Integrator::Bdf:
      return std::max(floor, 100 * solver.rtol);
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

EnergyCheck energy_account(const std::vector<Model>& models, int n_instances, const std::string& precision) {
  EnergyCheck c;
  c.bound = models.empty() ? std::numeric_limits<double>::quiet_NaN()
                           : energy_error_bound(models.front().solver, precision);
  for (const Model& m : models) {
    const std::vector<std::string> s = energy_sources(m);
    c.conservative.push_back(s.empty() ? 1 : 0);
    for (const std::string& name : s)
      if (std::find(c.sources.begin(), c.sources.end(), name) == c.sources.end()) c.sources.push_back(name);
  }
  // One model shared by every instance (a design without a sweep): each instance is it.
  if (c.conservative.size() == 1) c.conservative.assign(static_cast<std::size_t>(std::max(n_instances, 1)), c.conservative[0]);
  return c;
}



void finish_energy_check(EnergyCheck& c, const RunStats& stats, const std::vector<std::int8_t>& status,
                         const std::vector<double>* work) {
  const std::size_t n = c.conservative.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  c.relative_error.assign(n, 0.0);
  c.time.assign(n, 0.0);
  c.flagged.clear();
  c.balance_flagged.clear();
  c.balanced = work != nullptr;
  c.work.assign(c.balanced ? n : 0, nan);
  c.balance.assign(c.balanced ? n : 0, nan);
  c.balance_relative.assign(c.balanced ? n : 0, nan);
  for (std::size_t k = 0; k < n; ++k) {
    const int i = static_cast<int>(k);
    if (c.balanced && status[k] == 0) {
      const double W = (*work)[k];
      c.work[k] = W;
      c.balance[k] = stats.energy_change(i) - W;
      c.balance_relative[k] = std::abs(c.balance[k]) / std::max(stats.energy_scale(i), std::abs(W));
      const double b = c.balance_relative[k];
      if (c.conservative[k] == 0 && !std::isnan(c.bound) && !(b <= c.bound)) c.balance_flagged.push_back(i);
    }
    c.relative_error[k] = stats.relative_drift(i);
    c.time[k] = stats.drift_time(i);
    const double e = c.relative_error[k];
    if (status[k] == 0 && c.conservative[k] != 0 && !std::isnan(c.bound) && !(e <= c.bound))
      c.flagged.push_back(static_cast<int>(k));
  }
  // The largest error first (NaN first of all), then by index.
  const auto largest_first = [](std::vector<int>& list, const std::vector<double>& error) {
    std::stable_sort(list.begin(), list.end(), [&](int a, int b) {
      const double ea = error[static_cast<std::size_t>(a)], eb = error[static_cast<std::size_t>(b)];
      return std::isnan(ea) ? !std::isnan(eb) : ea > eb;
    });
  };
  largest_first(c.flagged, c.relative_error);
  largest_first(c.balance_flagged, c.balance_relative);
}

std::vector<std::string> energy_check_warnings(const EnergyCheck& c) {
  std::vector<std::string> out;
  char buf[512];
  add_listed(
      out, c.flagged,
      [&](int i) {
        const auto k = static_cast<std::size_t>(i);
        std::snprintf(buf, sizeof buf,
                      "instance %d: the energy of this conservative model changed by %.2e of its scale (largest at "
                      "t = %.6g s), beyond the energy check's bound %.2e: the run is not accurate to the precision it "
                      "reports; lower solver.dt, or check solver.baumgarte_alpha / baumgarte_beta against the step "
                      "(docs/solver.md, \"Energy check\")",
                      i, c.relative_error[k], c.time[k], c.bound);
        return std::string(buf);
      },
      "whose energy changed beyond the bound (/energy_check/relative_error)");
  add_listed(
      out, c.balance_flagged,
      [&](int i) {
        std::snprintf(buf, sizeof buf,
                      "instance %d: the energy balance E(T) - E(0) - W (W the work of the loads, drives and dampers) "
                      "is %.2e of its scale, beyond the energy check's bound %.2e: the run is not accurate to the "
                      "precision it reports; a force that switches inside a step (a joint limit, an effort or "
                      "velocity limit, a contact that begins) or a mode near the step-size limit is integrated at "
                      "low order (docs/solver.md, \"Energy balance\"; contact: docs/contact.md, \"Contact in the "
                      "DAE\")",
                      i, c.balance_relative[static_cast<std::size_t>(i)], c.bound);
        return std::string(buf);
      },
      "whose energy balance is beyond the bound (/energy_check/balance_relative)");
  return out;
}

void write_energy_check(Recorder& recorder, const EnergyCheck& c) {
  const std::vector<hsize_t> shape = {static_cast<hsize_t>(c.conservative.size())};
  recorder.write_instance_dataset("energy_check/relative_error", shape, c.relative_error.data(), {"instance"}, {"1"});
  recorder.write_instance_dataset("energy_check/time", shape, c.time.data(), {"instance"}, {"s"});
  recorder.write_instance_dataset("energy_check/conservative", shape, c.conservative.data(), {"instance"}, {"1"});
  recorder.write_long_names(
      "energy_check", {{"relative_error", "max over the frames of |E(t) - E(0)| / max(|E(0)|, peak kinetic energy)"},
                       {"time", "frame time of that maximum"},
                       {"conservative", "1 where nothing but gravity and springs does work on the model"}});
  if (c.balanced) {
    recorder.write_instance_dataset("energy_check/work", shape, c.work.data(), {"instance"}, {"J"});
    recorder.write_instance_dataset("energy_check/balance", shape, c.balance.data(), {"instance"}, {"J"});
    recorder.write_instance_dataset("energy_check/balance_relative", shape, c.balance_relative.data(), {"instance"},
                                    {"1"});
    recorder.write_long_names(
        "energy_check",
        {{"work", "work of the loads, drives and dampers over the run (Gregory's rule over every step's power)"},
         {"balance", "E(T) - E(0) - work at the last frame"},
         {"balance_relative", "|balance| / max(|E(0)|, peak kinetic energy, |work|)"}});
  }
  const h5::Handle g(H5Gopen2(recorder.file_id(), "energy_check", H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw h5::H5Error("H5Gopen2(/energy_check) failed");
  h5::write_attr(g.id(), "bound", c.bound);
}

}  // namespace simphant
