#include "simphant/sim/sensitivity_seeds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/assemble_batch.hpp"

namespace simphant {

std::string sensitivity_unsupported(const Model& model) {
  if (model.robot && model.robot->solver != RobotSolver::Dae)
    return "solver.type: sensitivities run on the DAE path (solver.type dae), not in joint coordinates (aba, cga)";
  const Integrator in = model.solver.integrator;
  if (in != Integrator::Rk4 && in != Integrator::Euler && in != Integrator::SymplecticEuler)
    return "solver.integrator: sensitivities run with the fixed-step integrators (rk4, euler, symplectic_euler), not " +
           std::string(integrator_name(in));
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact || f.type == ForceType::JointStop)
      return "forces." + f.name + ": contact pairs and end stops are not differentiated (their laws are not smooth at "
             "first touch)";
  return "";
}

SensitivitySeeds sensitivity_seeds(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values,
                                   int n_instances, const SensitivityRebuild& rebuild) {
  SensitivitySeeds seeds;
  seeds.paths = paths;
  const std::size_t S = paths.size(), n = static_cast<std::size_t>(n_instances);
  std::size_t np = 0, ny = 0, nu = 0;
  // The actuators' default inputs (ForceElement::value at input_index).
  const auto inputs_of = [](const Model& m) {
    std::vector<double> u(static_cast<std::size_t>(m.n_inputs), 0.0);
    for (const ForceElement& f : m.forces)
      if (f.type == ForceType::Actuator) u[static_cast<std::size_t>(f.input_index)] = f.value;
    return u;
  };
  for (std::size_t s = 0; s < S; ++s) {
    for (std::size_t i = 0; i < n; ++i) {
      const double v = values[s][i], h = kSeedStep * std::max(std::abs(v), kSeedFloor);
      const int id = static_cast<int>(i);
      const std::vector<Model> plus{rebuild(id, {{paths[s], v + h}})}, minus{rebuild(id, {{paths[s], v - h}})};
      const std::vector<double> fp = batch::flatten_params(plus.front()), fm = batch::flatten_params(minus.front());
      const AssembledBatch ap = assemble_batch(plus, 1, 1), am = assemble_batch(minus, 1, 1);
      if (np == 0) {
        np = fp.size();
        ny = ap.Y.size();
        seeds.dparam.assign(S * n * np, 0.0);
        seeds.dy0.assign(S * n * ny, 0.0);
        nu = static_cast<std::size_t>(plus.front().n_inputs);
        seeds.dinput.assign(S * n * nu, 0.0);
        seeds.step.assign(S * n, 0.0);
      }
      const std::vector<double> up = inputs_of(plus.front()), um = inputs_of(minus.front());
      if (fp.size() != np || fm.size() != np || ap.Y.size() != ny || am.Y.size() != ny || up.size() != nu ||
          um.size() != nu)
        throw std::invalid_argument("sensitivities: a change of " + paths[s] + " changes the model's structure");
      seeds.step[s * n + i] = h;
      for (std::size_t q = 0; q < np; ++q) seeds.dparam[(s * n + i) * np + q] = (fp[q] - fm[q]) / (2 * h);
      for (std::size_t e = 0; e < nu; ++e) seeds.dinput[(s * n + i) * nu + e] = (up[e] - um[e]) / (2 * h);
      const bool ok = ap.status.front() == 0 && am.status.front() == 0;
      for (std::size_t e = 0; e < ny; ++e)
        seeds.dy0[(s * n + i) * ny + e] = ok ? (ap.Y[e] - am.Y[e]) / (2 * h) : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return seeds;
}

}  // namespace simphant
