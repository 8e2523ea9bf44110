#include "simphant/model/sensitivity_support.hpp"

#include "simphant/model/integrator.hpp"

namespace simphant {

std::string sensitivity_unsupported(const Model& model) {
  const Integrator in = model.solver.integrator;
  if (in != Integrator::Rk4 && in != Integrator::Euler && in != Integrator::SymplecticEuler)
    return "solver.integrator: sensitivities run with the fixed-step integrators (rk4, euler, symplectic_euler), not " +
           std::string(integrator_name(in));
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact || f.type == ForceType::JointStop)
      return "contact: sensitivities do not run with contact pairs or end stops (" + f.name +
             "): their laws are not differentiated (not smooth at first touch)";
  return "";
}

}  // namespace simphant
