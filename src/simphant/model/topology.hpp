#pragma once
// Whether two models can run as instances of one batch: every backend sizes its
// workspaces once from one model, so all instances share its topology and step.
#include <string>

#include "simphant/model/model.hpp"

namespace simphant {

/// "" when b has a's topology and dt: the same bodies (count), joints (type, bodies,
/// row offsets), rows, inputs, force elements (type, bodies, joint, frame flag, kind,
/// input slot), solver dt and, for robot models (docs/robots.md), the same joint count
/// and robot solver. Otherwise a short phrase naming the first difference, e.g.
/// "joint 2 differs in type, bodies or rows" or "dt differs (0.001 vs 0.002)".
/// Parameters (masses, frames, force values, ...) may differ freely.
std::string topology_difference(const Model& a, const Model& b);

}  // namespace simphant
