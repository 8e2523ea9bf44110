// parse_scene / load_scene: scene text or file -> validated Scene (docs/scene-format.md).
#include <set>
#include <string>
#include <vector>

#include "simphant/core/input_file.hpp"
#include "simphant/model/sensitivity_support.hpp"

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant {

namespace {

using nlohmann::json;

/// Parser callback state that rejects duplicate keys within one object (nlohmann::json
/// keeps the last one silently). It tracks the JSON pointer of the current position: one
/// frame per open object (its keys so far and the current key) or array (the index of
/// the element being parsed).
class DuplicateKeyCheck {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        frames_.push_back(Frame{true, {}, {}, 0});
        break;
      case json::parse_event_t::array_start:
        frames_.push_back(Frame{false, {}, {}, 0});
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        std::string key = parsed.get<std::string>();
        if (key.find('\0') != std::string::npos) {
          throw SceneError(scene_detail::child_path(pointer(frames_.size() - 1), key),
                           "key contains a NUL character (\\u0000)");
        }
        if (!f.keys.insert(key).second) {
          throw SceneError(scene_detail::child_path(pointer(frames_.size() - 1), key),
                           "duplicate key \"" + key + "\" (JSON objects must have unique keys)");
        }
        f.key = std::move(key);
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool is_object;
    std::set<std::string> keys;  ///< objects: keys seen so far
    std::string key;             ///< objects: the current key
    std::size_t index;           ///< arrays: the element being parsed
  };

  /// A value just completed: in an array, move on to the next element.
  void element_done() {
    if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().index;
  }

  /// JSON pointer of the value that holds frames_[n] (its first n frames' positions).
  std::string pointer(std::size_t n) const {
    std::string out;
    for (std::size_t k = 0; k < n; ++k) {
      out = frames_[k].is_object ? scene_detail::child_path(out, frames_[k].key)
                                 : scene_detail::child_path(out, frames_[k].index);
    }
    return out;
  }

  std::vector<Frame> frames_;
};

}  // namespace

Scene parse_scene(const std::string& text, const std::string& source) {
  // nlohmann::json ends its input at a NUL byte (it reads C strings too), so text after
  // one would be ignored; a raw NUL is never valid JSON (inside a string it is \u0000).
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos)
    throw SceneError(source, "invalid JSON at byte " + std::to_string(nul + 1) +
                                 ": a NUL byte (JSON text has none)");
  Scene scene;
  DuplicateKeyCheck check;
  try {
    scene.doc = json::parse(text, [&check](int depth, json::parse_event_t event, json& parsed) {
      return check(depth, event, parsed);
    });
  } catch (const json::parse_error& e) {
    throw SceneError(source, "invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const json::out_of_range& e) {
    // A number beyond the double range (1e400): nlohmann reports no position for it.
    throw SceneError(source, std::string("invalid JSON: numbers must be finite: ") + e.what());
  }
  scene_detail::resolve_robot_paths(scene.doc, source);  // robot.urdf relative to the scene file
  scene.model = compile_model(scene.doc);
  if (scene.doc.is_object()) {
    const auto it = scene.doc.find("sweep");
    if (it != scene.doc.end()) scene.sweep = scene_detail::parse_sweep(*it, "/sweep", scene.doc, source);
    const auto sens = scene.doc.find("sensitivities");
    if (sens != scene.doc.end()) {
      scene.sensitivities = scene_detail::parse_sensitivities(*sens, "/sensitivities", scene.doc);
      if (const std::string why = sensitivity_unsupported(scene.model); !why.empty())
        throw SceneError("/sensitivities", why);
    }
  }
  check_instance_count(scene, scene.sweep.instances);  // before anything is sampled
  scene.text = text;
  return scene;
}

Scene load_scene(const std::string& file) {
  std::string text;
  try {
    text = read_input_file(file);
  } catch (const InputFileError& e) {
    throw SceneError(file, e.what());
  }
  if (scene_detail::looks_like_xml(text)) return parse_scene(scene_detail::mjcf_scene_text(file), file);
  return parse_scene(text, file);
}

}  // namespace simphant
