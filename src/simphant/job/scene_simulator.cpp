#include "simphant/job/scene_simulator.hpp"

#include <utility>
#include <vector>

namespace simphant {

std::unique_ptr<Simulator> make_simulator(const Scene& scene, int n_instances, const SimulatorOptions& options) {
  auto samples = std::make_shared<const SweepSamples>(sample_sweep(scene.sweep, n_instances > 0 ? n_instances : -1));
  const int n = samples->n_instances;
  std::unique_ptr<Simulator> sim = Simulator::create(build_instance_models(scene, *samples), options, n);
  auto shared_scene = std::make_shared<const Scene>(scene);
  sim->set_resampler([shared_scene, samples](int instance, std::uint64_t episode,
                                              const ParameterOverrides& overrides) -> Model {
    const Scene& s = *shared_scene;
    if (episode > 0)
      return build_instance_model(s, sample_episode(s.sweep, instance, episode), instance, episode, overrides);
    std::vector<double> values(samples->values.size());
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = samples->values[p][static_cast<std::size_t>(instance)];
    return build_instance_model(s, values, instance, 0, overrides);
  });
  return sim;
}

}  // namespace simphant
