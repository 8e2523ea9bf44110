#pragma once
// The starting tangents of a sensitivity run (docs/sensitivities.md, "Seeds"): for each
// parameter path and instance, the derivative of the instance's packed parameters
// (batch::flatten_params) and of its assembled initial state with respect to the path's
// value, by central differences of the scene compiler and the assembly. The compiler
// maps most scene numbers to parameters linearly (a mass, a frame origin, a driver
// coefficient), where the difference is exact up to rounding; the assembly is converged
// to rounding, so its difference has the error of the assembly tolerance over the step.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/sim/sensitivity_engine.hpp"

namespace simphant {

/// Why forward sensitivities cannot run on `model` (the scene field and the reason), or
/// "" when they can: the DAE path (solver.type dae for a robot) with a fixed-step
/// integrator (rk4, euler, symplectic_euler), without contact pairs or end stops (their
/// laws are not differentiated yet).
std::string sensitivity_unsupported(const Model& model);

/// The central-difference step of the seeds for a value v in the scene's units:
/// h = kSeedStep max(|v|, kSeedFloor), relative to the value (a frame origin of a few cm
/// and a mass of a few kg alike), with a floor for values at or near zero.
constexpr double kSeedStep = 1e-6, kSeedFloor = 1e-3;

/// Instance i's model with one scene value replaced: (instance, {{path, value}}).
using SensitivityRebuild = std::function<Model(int, const std::vector<std::pair<std::string, double>>&)>;

/// The seeds of `paths` for n_instances: values[s][i] is path s's value in instance i
/// (its sweep sample, or the scene's value), rebuild compiles instance i with one value
/// replaced (Simulator::enable_sensitivities passes its resampler with the run's
/// settings). An instance whose perturbed models fail to assemble gets NaN state seeds
/// (and so no valid tangents). Throws what rebuild throws (SceneError naming the path
/// for a path that names nothing, a shared setting, or a value that makes the model
/// invalid), and std::invalid_argument when a perturbed model's parameter layout differs
/// (a path that changes the topology).
SensitivitySeeds sensitivity_seeds(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values,
                                   int n_instances, const SensitivityRebuild& rebuild);

}  // namespace simphant
