#include "simphant/job/scene_simulator.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace simphant {

void attach_scene(Simulator& sim, const Scene& scene, std::shared_ptr<const SweepSamples> samples) {
  auto shared_scene = std::make_shared<const Scene>(scene);
  sim.set_resampler([shared_scene, samples](int instance, std::uint64_t episode,
                                            const ParameterOverrides& overrides) -> Model {
    const Scene& s = *shared_scene;
    if (episode > 0)
      return build_instance_model(s, sample_episode(s.sweep, instance, episode), instance, episode, overrides);
    std::vector<double> values(samples->values.size());
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = samples->values[p][static_cast<std::size_t>(instance)];
    return build_instance_model(s, values, instance, 0, overrides);
  });
  const SensitivitySpec& sens = scene.sensitivities;
  if (sens.paths.empty()) return;
  // Each path's value per instance: its sweep sample, else the scene's own value.
  const std::size_t n = static_cast<std::size_t>(sim.n_instances());
  std::vector<std::vector<double>> values(sens.paths.size());
  for (std::size_t s = 0; s < sens.paths.size(); ++s) {
    const auto swept = std::find(samples->json_pointers.begin(), samples->json_pointers.end(), sens.json_pointers[s]);
    if (swept != samples->json_pointers.end())
      values[s] = samples->values[static_cast<std::size_t>(swept - samples->json_pointers.begin())];
    else
      values[s].assign(n, scene.doc.at(nlohmann::json::json_pointer(sens.json_pointers[s])).get<double>());
  }
  sim.enable_sensitivities(sens.paths, values);
}

std::unique_ptr<Simulator> make_simulator(const Scene& scene, int n_instances, const SimulatorOptions& options) {
  auto samples = std::make_shared<const SweepSamples>(sample_sweep(scene.sweep, n_instances > 0 ? n_instances : -1));
  std::unique_ptr<Simulator> sim = Simulator::create(build_instance_models(scene, *samples), options, samples->n_instances);
  attach_scene(*sim, scene, samples);
  return sim;
}

}  // namespace simphant
