#pragma once
// Which models forward sensitivities run on (docs/sensitivities.md, "What runs them"):
// checked when a scene with a "sensitivities" section is parsed and when a Simulator
// enables them.
#include <string>

#include "simphant/model/model.hpp"

namespace simphant {

/// Why forward sensitivities cannot run on `model` (the scene field and the reason:
/// solver.integrator or contact), or "" when they can: the DAE path or a robot in joint
/// coordinates (aba, cga) with a fixed-step integrator (rk4, euler, symplectic_euler),
/// without contact pairs or end stops (their laws are not differentiated yet).
std::string sensitivity_unsupported(const Model& model);

}  // namespace simphant
