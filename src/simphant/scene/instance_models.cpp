// build_instance_models: one validated Model per sweep instance (docs/scene-format.md,
// "Sweep"). Each instance's document is the scene document with the sampled values
// written at their JSON pointers, compiled by compile_model; build_instance_model writes
// run-time overrides (Simulator::set_parameters) after them.
#include <cmath>
#include <stdexcept>

#include "simphant/core/stop_flag.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant {

namespace {

/// The values written into an instance's document: the sweep's (`sampled`) first, then
/// the overrides (`set`), in that order, so that an override of a sweep path wins.
struct Writes {
  std::vector<std::string> paths;     ///< sweep path syntax, as named in messages
  std::vector<std::string> pointers;  ///< resolved JSON pointers
  std::vector<double> values;
  std::size_t n_sampled = 0;          ///< the first n_sampled entries are sweep values
};

/// "sampled <path> = <value>" (or "set <path> = <value>" for an override) for the last
/// written value whose pointer is the error path or a prefix of it; all values when none
/// matches ("sampled a = 1, b = 2, set c = 3").
std::string describe_writes(const Writes& w, const std::string& error_path) {
  const auto label = [&w](std::size_t p) { return p < w.n_sampled ? "sampled " : "set "; };
  const auto one = [&w](std::size_t p) { return w.paths[p] + " = " + scene_detail::format_number(w.values[p]); };
  for (std::size_t p = w.paths.size(); p-- > 0;) {
    const std::string& ptr = w.pointers[p];
    const bool match = error_path == ptr || (error_path.compare(0, ptr.size(), ptr) == 0 &&
                                             error_path.size() > ptr.size() && error_path[ptr.size()] == '/');
    if (match) return label(p) + one(p);
  }
  std::string all;
  for (std::size_t p = 0; p < w.paths.size(); ++p) {
    const bool new_label = p == 0 || label(p) != label(p - 1);
    all += (p == 0 ? "" : ", ") + std::string(new_label ? label(p) : "") + one(p);
  }
  return all;
}

/// Writes the values at their pointers into doc, in order, and compiles it; a SceneError
/// is rethrown with `who` ("instance 3") and the values written.
Model compile_instance(nlohmann::json& doc, const Writes& w, const std::string& who) {
  for (std::size_t p = 0; p < w.pointers.size(); ++p) doc.at(nlohmann::json::json_pointer(w.pointers[p])) = w.values[p];
  try {
    return compile_model(doc);
  } catch (const SceneError& e) {
    throw SceneError(e.path(), who + " (" + describe_writes(w, e.path()) + "): " + e.reason());
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
  Writes w{samples.paths, samples.json_pointers, std::vector<double>(samples.json_pointers.size()),
           samples.json_pointers.size()};
  for (std::size_t k = 0; k < n; ++k) {
    throw_if_stop_requested("compiling instance models");
    for (std::size_t p = 0; p < w.values.size(); ++p) w.values[p] = samples.values[p][k];
    const long long instance = samples.first_instance + static_cast<long long>(k);
    models.push_back(compile_instance(doc, w, "instance " + std::to_string(instance)));
  }
  return models;
}

Model build_instance_model(const Scene& scene, const std::vector<double>& values, int instance, std::uint64_t episode,
                           const ParameterOverrides& overrides) {
  const std::vector<SweepParameter>& params = scene.sweep.parameters;
  if (values.size() != params.size())
    throw std::invalid_argument("build_instance_model: " + std::to_string(values.size()) + " values for " +
                                std::to_string(params.size()) + " sweep parameters");
  if (params.empty() && overrides.empty()) return scene.model;
  const std::string who = "instance " + std::to_string(instance) + ", episode " + std::to_string(episode);
  Writes w;
  w.n_sampled = params.size();
  for (std::size_t p = 0; p < params.size(); ++p) {
    w.paths.push_back(params[p].path);
    w.pointers.push_back(params[p].json_pointer);
    w.values.push_back(values[p]);
  }
  for (const auto& [path, value] : overrides) {
    std::string pointer = scene_detail::resolve_sweep_path(scene.doc, path, path);
    scene_detail::check_per_instance_path(pointer, path, path);
    if (!std::isfinite(value))
      throw SceneError(path, who + ": the value " + scene_detail::format_number(value) + " is not finite");
    w.paths.push_back(path);
    w.pointers.push_back(std::move(pointer));
    w.values.push_back(value);
  }
  nlohmann::json doc = scene.doc;
  return compile_instance(doc, w, who);
}

}  // namespace simphant
