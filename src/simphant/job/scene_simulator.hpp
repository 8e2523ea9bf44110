#pragma once
// make_simulator: a Simulator for a scene in one call, as `simphant run` builds it (the
// sweep sampled with the scene's seed, one model per instance), with the scene sweep's
// domain randomisation installed for reset(..., resample = true) (docs/state.md).
//
//   auto sim = simphant::make_simulator(simphant::load_scene("examples/slider_crank.json"), 64, {});
//   sim->advance(100);
//   const int ids[] = {3, 7};
//   sim->reset(ids, 2, /*resample=*/true);  // instances 3 and 7: episode 1, new parameters
#include <memory>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

/// Samples scene.sweep for n_instances (<= 0: the sweep's own count; grid, saltelli and
/// design mode: must equal the design's size), builds the instance models (build_instance_models) and
/// creates the Simulator with `options`: the same instances, bit for bit, as `simphant
/// run` on that scene; then attach_scene. Throws SceneError (bad sample,
/// /sweep/instances), Simulator::create's and attach_scene's errors.
std::unique_ptr<Simulator> make_simulator(const Scene& scene, int n_instances, const SimulatorOptions& options);

/// Ties a Simulator created from build_instance_models(scene, *samples) to its scene:
/// installs the resampler (episode 0 of instance i is the sweep's sample for i; episode
/// e >= 1 is sample_episode(scene.sweep, i, e) applied to the scene, build_instance_model;
/// the instance's set_parameters overrides are written on top of either; a scene without
/// sweep parameters resamples its one model), and with a "sensitivities" section enables
/// them (Simulator::enable_sensitivities, each path's value per instance its sweep sample
/// or the scene's value). Throws enable_sensitivities' errors.
void attach_scene(Simulator& sim, const Scene& scene, std::shared_ptr<const SweepSamples> samples);

}  // namespace simphant
