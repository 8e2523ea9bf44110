// The optional "visual" of a body (docs/scene-format.md, "Visual shapes"): validated here,
// not part of the Model (the dynamics never read it; the replay of `simphant view` and of
// the service's web page draws it from the scene text stored in the output file).

#include <cstring>
#include <string>

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

/// Upper bound on the shapes of one body's visual (a drawing, not a CAD model).
constexpr std::size_t kMaxVisualShapes = 256;

double positive(const json& obj, const std::string& path, const char* key) {
  const std::string p = child_path(path, key);
  const double x = as_number(require_key(obj, path, key), p);
  if (!(x > 0)) throw SceneError(p, "must be > 0 (got " + format_number(x) + ")");
  return x;
}

void check_size(const json& obj, const std::string& path) {
  const std::string p = child_path(path, "size");
  const Vec3d s = as_vec3(require_key(obj, path, "size"), p);
  for (int k = 0; k < 3; ++k) {
    if (!(s[k] > 0)) throw SceneError(child_path(p, k), "must be > 0 (got " + format_number(s[k]) + ")");
  }
}

void check_scale(const json& obj, const std::string& path) {
  const json* s = find_key(obj, "scale");
  if (s == nullptr) return;
  const std::string p = child_path(path, "scale");
  if (s->is_number()) {
    positive(obj, path, "scale");
    return;
  }
  if (!s->is_array() || s->size() != 3) throw SceneError(p, "must be a number > 0 or an array of 3 numbers > 0");
  const Vec3d v = as_vec3(*s, p);
  for (int k = 0; k < 3; ++k) {
    if (!(v[k] > 0)) throw SceneError(child_path(p, k), "must be > 0 (got " + format_number(v[k]) + ")");
  }
}

void check_color(const json& obj, const std::string& path) {
  const json* c = find_key(obj, "color");
  if (c == nullptr) return;
  const std::string p = child_path(path, "color");
  const std::string s = as_string(*c, p);
  bool ok = s.size() == 7 && s[0] == '#';
  for (std::size_t k = 1; ok && k < s.size(); ++k) ok = std::strchr("0123456789abcdefABCDEF", s[k]) != nullptr;
  if (!ok) throw SceneError(p, "must be a colour \"#rrggbb\" (got \"" + printable(s) + "\")");
}

void check_origin(const json& obj, const std::string& path) {
  const json* o = find_key(obj, "origin");
  if (o == nullptr) return;
  const std::string p = child_path(path, "origin");
  expect_object(*o, p);
  check_keys(*o, p, {"position", "orientation"});
  if (const json* r = find_key(*o, "position")) as_vec3(*r, child_path(p, "position"));
  if (const json* q = find_key(*o, "orientation")) compile_quaternion(*q, child_path(p, "orientation"));
}

void check_shape(const json& v, const std::string& path) {
  expect_object(v, path);
  const std::string type_path = child_path(path, "type");
  const std::string type = as_string(require_key(v, path, "type"), type_path);
  if (type == "box") {
    check_keys(v, path, {"type", "size", "origin", "color"});
    check_size(v, path);
  } else if (type == "sphere") {
    check_keys(v, path, {"type", "radius", "origin", "color"});
    positive(v, path, "radius");
  } else if (type == "cylinder" || type == "capsule") {
    check_keys(v, path, {"type", "radius", "length", "origin", "color"});
    positive(v, path, "radius");
    positive(v, path, "length");
  } else if (type == "mesh") {
    check_keys(v, path, {"type", "file", "scale", "origin", "color"});
    const std::string file_path = child_path(path, "file");
    if (as_string(require_key(v, path, "file"), file_path).empty()) throw SceneError(file_path, "must not be empty");
    check_scale(v, path);
  } else {
    throw SceneError(type_path, "unknown visual type \"" + printable(type) +
                                    "\" (one of box, cylinder, sphere, capsule, mesh)");
  }
  check_origin(v, path);
  check_color(v, path);
}

}  // namespace

void check_visual(const json& visual, const std::string& path) {
  if (!visual.is_array()) {
    if (!visual.is_object()) {
      throw SceneError(path, std::string("must be a shape object or an array of them (got ") + type_word(visual) + ")");
    }
    check_shape(visual, path);
    return;
  }
  if (visual.empty()) throw SceneError(path, "must contain at least one shape (or leave visual out)");
  if (visual.size() > kMaxVisualShapes) {
    throw SceneError(path, std::to_string(visual.size()) + " shapes, over the limit of " +
                               std::to_string(kMaxVisualShapes));
  }
  for (std::size_t k = 0; k < visual.size(); ++k) check_shape(visual[k], child_path(path, k));
}

}  // namespace simphant::scene_detail
