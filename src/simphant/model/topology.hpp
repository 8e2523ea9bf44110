#pragma once
// Whether two models can run as instances of one batch: every backend sizes its
// workspaces once from one model, so all instances share its topology and step.
#include <stdexcept>
#include <string>

#include "simphant/model/model.hpp"

namespace simphant {

/// "" when b has a's topology and dt: the same bodies (count), joints (type, bodies,
/// row offsets), drivers (joint, coordinate, law, row), motion laws (type, parameter
/// count), rows, inputs, force elements (type, bodies, joint, frame flag, kind,
/// input slot), solver dt and integrator and, for robot models (docs/robots.md), the same joint count
/// and robot solver. Otherwise a short phrase naming the first difference, e.g.
/// "joint 2 differs in type, bodies or rows" or "dt differs (0.001 vs 0.002)".
/// Parameters (masses, frames, force values, ...) may differ freely.
std::string topology_difference(const Model& a, const Model& b);

/// Whether some joint closes a loop in the graph of the bodies and the ground (union-find
/// over the joints; drivers add no edge). In a tree every joint constrains a new body, so
/// its rows are independent of the others: no redundant rows (dynamics/redundant_rows.hpp)
/// and no configuration where Phi_q loses rank.
bool has_closed_loop(const Model& model);

/// Backend::set_models' check: throws std::invalid_argument("set_models: models[k]
/// (instance i) cannot join the batch: <difference>") for the first of the count models
/// that differs from `batch` (topology_difference); instance(k) names the instance of
/// models[k].
template <class InstanceOf>
void check_models_join(const Model& batch, const Model* models, int count, InstanceOf instance) {
  for (int k = 0; k < count; ++k) {
    const std::string diff = topology_difference(batch, models[k]);
    if (!diff.empty())
      throw std::invalid_argument("set_models: models[" + std::to_string(k) + "] (instance " +
                                  std::to_string(instance(k)) + ") cannot join the batch: " + diff);
  }
}

}  // namespace simphant
