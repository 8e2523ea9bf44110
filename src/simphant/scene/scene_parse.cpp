// parse_scene / load_scene: scene text or file -> validated Scene (docs/scene-format.md).
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "simphant/scene/scene.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant {

Scene parse_scene(const std::string& text, const std::string& source) {
  Scene scene;
  try {
    scene.doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SceneError(source, "invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond the double range (1e400): nlohmann reports no position for it.
    throw SceneError(source, std::string("invalid JSON: numbers must be finite: ") + e.what());
  }
  scene.model = compile_model(scene.doc);
  if (scene.doc.is_object()) {
    const auto it = scene.doc.find("sweep");
    if (it != scene.doc.end()) scene.sweep = scene_detail::parse_sweep(*it, "/sweep", scene.doc);
  }
  scene.text = text;
  return scene;
}

Scene load_scene(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError(file, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw SceneError(file, std::string("cannot read: ") + std::strerror(errno));
  return parse_scene(buf.str(), file);
}

}  // namespace simphant
