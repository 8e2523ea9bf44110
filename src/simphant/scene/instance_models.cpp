// build_instance_models: one validated Model per sweep instance (docs/scene-format.md,
// "Sweep"). Each instance's document is the scene document with the sampled values
// written at their JSON pointers, compiled by compile_model.
#include "simphant/core/stop_flag.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

namespace {

/// "sampled <path> = <value>" for the parameter whose pointer is the error path or a
/// prefix of it; all sampled values when none matches.
std::string describe_samples(const SweepSamples& samples, std::size_t k, const std::string& error_path) {
  std::string all;
  for (std::size_t p = 0; p < samples.paths.size(); ++p) {
    const std::string one = samples.paths[p] + " = " + scene_detail::format_number(samples.values[p][k]);
    const std::string& ptr = samples.json_pointers[p];
    const bool match = error_path == ptr || (error_path.compare(0, ptr.size(), ptr) == 0 &&
                                             error_path.size() > ptr.size() && error_path[ptr.size()] == '/');
    if (match) return "sampled " + one;
    all += (all.empty() ? "sampled " : ", ") + one;
  }
  return all;
}

}  // namespace

std::vector<Model> build_instance_models(const Scene& scene, const SweepSamples& samples) {
  std::vector<Model> models;
  if (samples.json_pointers.empty()) {
    models.push_back(scene.model);
    return models;
  }
  check_instance_count(scene, samples.n_instances);
  std::vector<nlohmann::json::json_pointer> pointers;
  for (const std::string& p : samples.json_pointers) pointers.emplace_back(p);
  const auto n = static_cast<std::size_t>(samples.n_instances);
  models.reserve(n);
  nlohmann::json doc = scene.doc;
  for (std::size_t k = 0; k < n; ++k) {
    throw_if_stop_requested("compiling instance models");
    for (std::size_t p = 0; p < pointers.size(); ++p) doc.at(pointers[p]) = samples.values[p][k];
    try {
      models.push_back(compile_model(doc));
    } catch (const SceneError& e) {
      throw SceneError(e.path(), "instance " + std::to_string(k) + " (" + describe_samples(samples, k, e.path()) +
                                     "): " + e.reason());
    }
  }
  return models;
}

}  // namespace simphant
