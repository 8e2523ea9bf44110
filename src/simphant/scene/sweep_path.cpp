// Sweep path syntax -> JSON pointer (docs/scene-format.md, "Sweep").
#include <cctype>
#include <vector>

#include "simphant/scene/json_access.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

struct Segment {
  std::string key;                   ///< object key or element name
  std::vector<std::size_t> indices;  ///< trailing [k] subscripts
};

std::vector<Segment> split_path(const std::string& path, const std::string& error_path) {
  const std::string quoted = "\"" + path + "\"";
  std::vector<Segment> out;
  std::size_t i = 0;
  while (true) {
    Segment seg;
    while (i < path.size() && path[i] != '.' && path[i] != '[') seg.key += path[i++];
    if (seg.key.empty()) throw SceneError(error_path, "malformed path " + quoted + ": empty key");
    while (i < path.size() && path[i] == '[') {
      std::size_t k = 0;
      std::size_t digits = 0;
      ++i;
      while (i < path.size() && std::isdigit(static_cast<unsigned char>(path[i])) && digits < 9) {
        k = 10 * k + static_cast<std::size_t>(path[i++] - '0');
        ++digits;
      }
      if (digits == 0 || i >= path.size() || path[i] != ']') {
        throw SceneError(error_path, "malformed path " + quoted + ": expected [index]");
      }
      ++i;
      seg.indices.push_back(k);
    }
    out.push_back(std::move(seg));
    if (i == path.size()) return out;
    if (path[i] != '.') throw SceneError(error_path, "malformed path " + quoted + ": expected '.' after ']'");
    ++i;
  }
}

}  // namespace

std::string resolve_sweep_path(const json& doc, const std::string& path, const std::string& error_path) {
  const std::string quoted = "\"" + path + "\"";
  const std::vector<Segment> segments = split_path(path, error_path);
  for (const char* section : {"sweep", "sensitivities"})
    if (segments.front().key == section)
      throw SceneError(error_path, "path " + quoted + " points into the " + section + " section");
  const json* cur = &doc;
  std::string ptr;
  for (const Segment& seg : segments) {
    if (cur->is_object()) {
      const json* next = find_key(*cur, seg.key.c_str());
      if (next == nullptr) {
        throw SceneError(error_path, "path " + quoted + " names nothing: no key \"" + seg.key + "\" at \"" + ptr + "\"");
      }
      cur = next;
      ptr = child_path(ptr, seg.key);
    } else if (cur->is_array()) {
      std::size_t found = cur->size();
      for (std::size_t k = 0; k < cur->size() && found == cur->size(); ++k) {
        const json& e = (*cur)[k];
        const json* name = e.is_object() ? find_key(e, "name") : nullptr;
        if (name != nullptr && name->is_string() && name->get_ref<const std::string&>() == seg.key) found = k;
      }
      if (found == cur->size()) {
        throw SceneError(error_path,
                         "path " + quoted + " names nothing: no element named \"" + seg.key + "\" in \"" + ptr + "\"");
      }
      cur = &(*cur)[found];
      ptr = child_path(ptr, found);
    } else {
      throw SceneError(error_path, "path " + quoted + " names nothing: \"" + ptr + "\" is " + type_word(*cur) +
                                       ", it has no key \"" + seg.key + "\"");
    }
    for (std::size_t k : seg.indices) {
      if (!cur->is_array() || k >= cur->size()) {
        throw SceneError(error_path, "path " + quoted + " names nothing: \"" + ptr + "\" has no element [" +
                                         std::to_string(k) + "]");
      }
      cur = &(*cur)[k];
      ptr = child_path(ptr, k);
    }
  }
  if (!cur->is_number()) {
    throw SceneError(error_path, "path " + quoted + " names a non-number (\"" + ptr + "\" is " + type_word(*cur) + ")");
  }
  return ptr;
}

}  // namespace simphant::scene_detail
