#include "simphant/job/run_inputs.hpp"

#include <filesystem>

#include "simphant/core/input_file.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/urdf/urdf_mesh.hpp"

namespace simphant {

namespace {

/// The values of every attribute `filename = "..."` (or '...') in XML text, by a plain
/// scan (no regex: its backtracking recursion grows with the length of a value).
std::vector<std::string> filename_values(const std::string& text) {
  std::vector<std::string> values;
  const std::string key = "filename";
  auto skip_space = [&](std::size_t k) {
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) ++k;
    return k;
  };
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
    std::size_t k = skip_space(at + key.size());
    if (k >= text.size() || text[k] != '=') continue;
    k = skip_space(k + 1);
    if (k >= text.size() || (text[k] != '"' && text[k] != '\'')) continue;
    const std::size_t end = text.find(text[k], k + 1);
    if (end == std::string::npos) break;
    if (end > k + 1) values.push_back(text.substr(k + 1, end - k - 1));
  }
  return values;
}

/// The mesh files of the bodies' visual shapes (bodies[k].visual: one shape or a list;
/// docs/scene-format.md, "Visual shapes"), relative ones taken from `folder`.
void add_visual_meshes(const nlohmann::json& doc, const std::filesystem::path& folder, std::vector<std::string>& out) {
  const auto bodies = doc.find("bodies");
  if (bodies == doc.end() || !bodies->is_array()) return;
  for (const nlohmann::json& body : *bodies) {
    if (!body.is_object() || !body.contains("visual")) continue;
    const nlohmann::json& visual = body["visual"];
    const auto add = [&](const nlohmann::json& shape) {
      if (!shape.is_object() || shape.value("type", "") != "mesh" || !shape.contains("file") || !shape["file"].is_string())
        return;
      const std::filesystem::path p(shape["file"].get<std::string>());
      out.push_back((p.is_absolute() ? p : folder / p).string());
    };
    if (visual.is_array()) {
      for (const nlohmann::json& shape : visual) add(shape);
    } else {
      add(visual);
    }
  }
}

}  // namespace

std::vector<std::string> run_input_files(const Scene& scene, const std::string& scene_file) {
  namespace fs = std::filesystem;
  std::vector<std::string> inputs;
  if (!scene_file.empty()) inputs.push_back(scene_file);
  if (!scene.sweep.design_file.empty()) inputs.push_back(scene.sweep.design_file);
  add_visual_meshes(scene.doc, scene_file.empty() ? fs::path() : fs::path(scene_file).parent_path(), inputs);
  if (!scene.model.robot || scene.model.robot->urdf_path.empty()) return inputs;
  const std::string& urdf = scene.model.robot->urdf_path;
  inputs.push_back(urdf);
  std::string text;
  try {
    text = read_input_file(urdf);
  } catch (const InputFileError&) {
    return inputs;  // read when the scene was loaded; gone since: nothing more to protect
  }
  for (const std::string& value : filename_values(text)) {
    const std::string file = resolve_urdf_filename(value, fs::path(urdf).parent_path().string());  // "" for a name that finds no file
    if (!file.empty()) inputs.push_back(file);
  }
  return inputs;
}

}  // namespace simphant
