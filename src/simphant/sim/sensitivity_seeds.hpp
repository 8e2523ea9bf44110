#pragma once
// The starting tangents of a sensitivity run (docs/sensitivities.md, "Seeds"): for each
// parameter path and instance, the derivative of the instance's packed parameters
// (batch::flatten_params; a joint-space robot's batch::robot_flat_params), of its default
// inputs and of its initial state (assembled; a joint-space robot's after its reset) with
// respect to the path's value, by central differences of the scene compiler and the
// assembly, each quaternion taken on one branch (sim/quaternion_sign.hpp). The compiler
// maps most scene numbers to parameters linearly (a mass, a frame origin, a driver
// coefficient), where the difference is exact up to rounding; the assembly is converged
// to rounding, so its difference has the error of the assembly tolerance over the step.
// On the DAE path the engine then projects the state's tangents onto the constraints'
// tangent at the start (DaeSensitivityEngine::project_seeds: the implicit function theorem).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/model/sensitivity_support.hpp"
#include "simphant/sim/sensitivity_engine.hpp"

namespace simphant {

/// The central-difference step of the seeds for a value v in the scene's units:
/// h = kSeedStep max(|v|, kSeedFloor), relative to the value (a frame origin of a few cm
/// and a mass of a few kg alike), with a floor for values at or near zero.
constexpr double kSeedStep = 1e-6, kSeedFloor = 1e-3;
/// The assembly tolerance of the seeds' perturbed models (max |Phi|; the run's own is
/// solver.assembly_tolerance): their states' difference over 2 h has an error of at most
/// about this over h.
constexpr double kSeedAssemblyTolerance = 1e-13;

/// Instance i's model with one scene value replaced: (instance, {{path, value}}).
using SensitivityRebuild = std::function<Model(int, const std::vector<std::pair<std::string, double>>&)>;

/// The seeds of `paths` for n_instances: values[s][i] is path s's value in instance i
/// (its sweep sample, or the scene's value), rebuild compiles instance i with one value
/// replaced (Simulator::enable_sensitivities passes its resampler with the run's
/// settings); shared: every instance has the same model, so an instance with instance
/// 0's value gets its seeds. Each value is differenced centrally at v +- h; where one side
/// is refused by the scene (a damping or a mass of 0 at the bound of its range) one-sided
/// from v, with an error O(h). An instance whose perturbed models fail to assemble gets
/// NaN state seeds (and so no valid tangents). Polls the stop flag (core/stop_flag.hpp)
/// per instance: Interrupted. Throws what rebuild throws when both sides are refused
/// (SceneError naming the path for a path that names nothing, a shared setting, or a
/// value that makes the model invalid), and std::invalid_argument when a perturbed model's
/// layout differs (a path that changes the structure).
SensitivitySeeds sensitivity_seeds(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values,
                                   int n_instances, bool shared, const SensitivityRebuild& rebuild);

}  // namespace simphant
