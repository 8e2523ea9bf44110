// parse_scene / load_scene: scene text or file -> validated Scene (docs/scene-format.md).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

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
    if (it != scene.doc.end()) scene.sweep = scene_detail::parse_sweep(*it, "/sweep", scene.doc);
  }
  scene.text = text;
  return scene;
}

Scene load_scene(const std::string& file) {
  // std::ifstream opens a directory on Linux and then reads nothing, which would read as
  // "invalid JSON at byte 1".
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw SceneError(file, "cannot open: is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SceneError(file, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw SceneError(file, std::string("cannot read: ") + std::strerror(errno));
  return parse_scene(buf.str(), file);
}

}  // namespace simphant
