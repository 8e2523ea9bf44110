#include "simphant/sim/reduction_names.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "simphant/model/components.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/backend_error.hpp"
#include "simphant/model/violation_units.hpp"

namespace simphant {

const char* reduction_quantity_name(ReductionQuantity q) {
  // The one list of names (model/output_settings.hpp), in the order of ReductionQuantity.
  return reduction_names()[static_cast<std::size_t>(q)].c_str();
}

const char* reduction_stat_name(int s) {
  static const char* names[kReductionStats] = {"max", "min", "mean", "rms", "time_of_max"};
  return names[s];
}

bool joint_space_reductions(const Model& model) { return model.robot && model.robot->solver != RobotSolver::Dae; }

bool joint_space_has(ReductionQuantity q) { return q == ReductionQuantity::Energy || q == ReductionQuantity::Contacts; }

std::vector<ReductionQuantity> parse_reduction_quantities(const std::vector<std::string>& names, int n_drivers,
                                                          const std::string& where, int n_contact_pairs,
                                                          bool joint_space) {
  std::vector<ReductionQuantity> out;
  if (names.empty() || (names.size() == 1 && names[0] == "none")) return out;
  const auto available = [&](ReductionQuantity q) { return !joint_space || joint_space_has(q); };
  // A scene's "all" compiles to every name (scene/output_compile.cpp), which for a robot in
  // joint coordinates means "all" as here.
  if ((names.size() == 1 && names[0] == "all") || (joint_space && names == reduction_names())) {
    for (int q = 0; q < kReductionQuantities; ++q)
      if ((q != static_cast<int>(ReductionQuantity::DriverLoads) || n_drivers > 0) &&
          (q != static_cast<int>(ReductionQuantity::Contacts) || n_contact_pairs > 0) &&
          available(static_cast<ReductionQuantity>(q)))
        out.push_back(static_cast<ReductionQuantity>(q));
    return out;
  }
  for (const std::string& name : names) {
    int found = -1;
    for (int q = 0; q < kReductionQuantities; ++q)
      if (name == reduction_quantity_name(static_cast<ReductionQuantity>(q))) found = q;
    if (found < 0)
      throw std::invalid_argument(where + ": unknown reduction quantity '" + name +
                                  "' (reactions, joint_loads, bearing_loads, driver_loads, constraint_violation, "
                                  "energy, joint_coordinates, power, contacts, or \"all\" / \"none\" alone)");
    const auto q = static_cast<ReductionQuantity>(found);
    if (!available(q))
      throw std::invalid_argument(where + ": reduction quantity '" + name + "' needs solver.type \"dae\" (a robot in "
                                  "joint coordinates, solver aba or cga, has energy and contacts)");
    if (std::find(out.begin(), out.end(), q) != out.end())
      throw std::invalid_argument(where + ": reduction quantity '" + name + "' given twice");
    out.push_back(q);
  }
  return out;
}

void check_joint_space_reductions(const std::string& backend, const std::vector<ReductionQuantity>& quantities) {
  for (ReductionQuantity q : quantities)
    if (!joint_space_has(q))
      throw BackendError("set_reductions: backend '" + backend + "' has the reductions energy and contacts, not '" +
                         reduction_quantity_name(q) + "'");
}

bool forms_energy_balance(const Model& model) {
  return (!model.forces.empty() || !model.drivers.empty()) && !is_adaptive(model.solver.integrator) &&
         !joint_space_reductions(model);
}

std::vector<ReductionQuantity> run_reduction_quantities(const Model& model, const std::string& where) {
  std::vector<ReductionQuantity> q = parse_reduction_quantities(model.output.reductions, model.n_drivers(), where,
                                                                model.contact_pair_count(), joint_space_reductions(model));
  if (forms_energy_balance(model) && std::find(q.begin(), q.end(), ReductionQuantity::Power) == q.end())
    q.push_back(ReductionQuantity::Power);
  return q;
}

ReductionLayout reduction_layout_of(const std::vector<ReductionQuantity>& quantities, const Model& model) {
  bool enabled[kReductionQuantities] = {};
  for (ReductionQuantity q : quantities) enabled[static_cast<int>(q)] = true;
  return make_reduction_layout(enabled, model.n_joints(), model.n_drivers(), model.contact_pair_count(),
                               model.solver.integrator != Integrator::Dopri5);
}

ReductionLayout estimated_reduction_layout(const Model& model) {
  try {
    return reduction_layout_of(run_reduction_quantities(model, "output.reductions"), model);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

namespace {
/// A vector of `a` followed by `b` (the reactions' components and their magnitudes).
std::vector<std::string> joined(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
}  // namespace

std::vector<std::string> reduction_components(ReductionQuantity q, const Model& model,
                                              const std::vector<std::string>& driver_names) {
  switch (q) {
    case ReductionQuantity::Reactions:
      return joined(component_names(kReactionTable), component_names(kReactionMagnitudeTable));
    case ReductionQuantity::JointLoads: return component_names(kJointLoadTable);
    case ReductionQuantity::BearingLoads: return component_names(kBearingTable);
    case ReductionQuantity::DriverLoads: return driver_names;
    case ReductionQuantity::Contacts: return component_names(kContactTable);
    case ReductionQuantity::JointCoordinates: {
      std::vector<std::string> names;
      for (const Joint& j : model.joints) names.push_back(j.name);
      return names;
    }
    default: return {reduction_quantity_name(q)};
  }
}

std::vector<std::string> reduction_units(ReductionQuantity q, const Model& model, const std::vector<std::string>& driver_units) {
  switch (q) {
    case ReductionQuantity::Reactions:
      return joined(component_units(kReactionTable), component_units(kReactionMagnitudeTable));
    case ReductionQuantity::JointLoads: return component_units(kJointLoadTable);
    case ReductionQuantity::BearingLoads: return component_units(kBearingTable);
    case ReductionQuantity::DriverLoads: return driver_units;
    case ReductionQuantity::ConstraintViolation: return {kConstraintViolationUnits};  // as /constraint_violation
    case ReductionQuantity::Energy: return {"J"};
    case ReductionQuantity::Power: return {"W"};
    case ReductionQuantity::Contacts: return component_units(kContactTable);
    case ReductionQuantity::JointCoordinates: {
      std::vector<std::string> units;
      for (const Joint& j : model.joints)
        units.push_back(j.type == JointType::Revolute || j.type == JointType::Cylindrical ? "rad"
                        : j.type == JointType::Prismatic                                  ? "m"
                                                                                         : "");
      return units;
    }
  }
  return {};
}

}  // namespace simphant
