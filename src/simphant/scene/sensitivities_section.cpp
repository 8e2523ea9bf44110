// The "sensitivities" section (docs/sensitivities.md, "Scene and command line").
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

SensitivitySpec parse_sensitivities(const json& j, const std::string& path, const json& doc) {
  expect_object(j, path);
  check_keys(j, path, {"parameters"});
  const std::string list_path = child_path(path, "parameters");
  const json& list = require_key(j, path, "parameters");
  expect_array(list, list_path);
  if (list.empty()) throw SceneError(list_path, "lists no parameter (give at least one sweep path)");
  SensitivitySpec spec;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string item = child_path(list_path, k);
    const std::string p = as_string(list[k], item);
    const std::string pointer = resolve_sweep_path(doc, p, item);
    check_per_instance_path(pointer, p, item);
    for (std::size_t e = 0; e < spec.json_pointers.size(); ++e)
      if (spec.json_pointers[e] == pointer)
        throw SceneError(item, "path \"" + p + "\" names the same value as " + child_path(list_path, e) + " (\"" +
                                   spec.paths[e] + "\", both " + pointer + ")");
    spec.paths.push_back(p);
    spec.json_pointers.push_back(pointer);
  }
  return spec;
}

}  // namespace simphant::scene_detail

namespace simphant {

SensitivitySpec sensitivity_spec(const nlohmann::json& doc, const std::vector<std::string>& paths,
                                 const std::string& path) {
  if (paths.empty()) return {};
  return scene_detail::parse_sensitivities(nlohmann::json{{"parameters", paths}}, path, doc);
}

}  // namespace simphant
