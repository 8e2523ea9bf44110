// build_instance_models: one validated Model per sweep instance (docs/scene-format.md,
// "Sweep"). Each instance's document is the scene document with the sampled values
// written at their JSON pointers, compiled by compile_model.
#include <stdexcept>

#include "simphant/core/stop_flag.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

namespace {

/// "sampled <path> = <value>" for the parameter whose pointer is the error path or a
/// prefix of it; all sampled values when none matches. values: one per parameter.
std::string describe_samples(const std::vector<std::string>& paths, const std::vector<std::string>& json_pointers,
                             const std::vector<double>& values, const std::string& error_path) {
  std::string all;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const std::string one = paths[p] + " = " + scene_detail::format_number(values[p]);
    const std::string& ptr = json_pointers[p];
    const bool match = error_path == ptr || (error_path.compare(0, ptr.size(), ptr) == 0 &&
                                             error_path.size() > ptr.size() && error_path[ptr.size()] == '/');
    if (match) return "sampled " + one;
    all += (all.empty() ? "sampled " : ", ") + one;
  }
  return all;
}

/// Writes values (one per parameter) at their pointers into doc and compiles it; a
/// SceneError is rethrown with `who` ("instance 3") and the sampled values.
Model compile_instance(nlohmann::json& doc, const std::vector<std::string>& paths,
                       const std::vector<std::string>& json_pointers, const std::vector<double>& values,
                       const std::string& who) {
  for (std::size_t p = 0; p < json_pointers.size(); ++p) doc.at(nlohmann::json::json_pointer(json_pointers[p])) = values[p];
  try {
    return compile_model(doc);
  } catch (const SceneError& e) {
    throw SceneError(e.path(), who + " (" + describe_samples(paths, json_pointers, values, e.path()) + "): " + e.reason());
  }
}

}  // namespace

std::vector<Model> build_instance_models(const Scene& scene, const SweepSamples& samples) {
  std::vector<Model> models;
  if (samples.json_pointers.empty()) {
    models.push_back(scene.model);
    return models;
  }
  check_instance_count(scene, samples.n_instances);
  const auto n = static_cast<std::size_t>(samples.n_instances);
  models.reserve(n);
  nlohmann::json doc = scene.doc;
  std::vector<double> values(samples.json_pointers.size());
  for (std::size_t k = 0; k < n; ++k) {
    throw_if_stop_requested("compiling instance models");
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = samples.values[p][k];
    models.push_back(compile_instance(doc, samples.paths, samples.json_pointers, values, "instance " + std::to_string(samples.first_instance + static_cast<long long>(k))));
  }
  return models;
}

Model build_instance_model(const Scene& scene, const std::vector<double>& values, int instance, std::uint64_t episode) {
  const std::vector<SweepParameter>& params = scene.sweep.parameters;
  if (values.size() != params.size())
    throw std::invalid_argument("build_instance_model: " + std::to_string(values.size()) + " values for " +
                                std::to_string(params.size()) + " sweep parameters");
  if (params.empty()) return scene.model;
  std::vector<std::string> paths, pointers;
  for (const SweepParameter& p : params) {
    paths.push_back(p.path);
    pointers.push_back(p.json_pointer);
  }
  nlohmann::json doc = scene.doc;
  return compile_instance(doc, paths, pointers, values,
                          "instance " + std::to_string(instance) + ", episode " + std::to_string(episode));
}

}  // namespace simphant
