// The "output" section of a scene -> OutputSettings (docs/scene-format.md, "Output"),
// and the names of model/output_settings.hpp.
#include <algorithm>

#include "simphant/model/output_settings.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant {

const char* frame_selection_name(FrameSelection f) {
  switch (f) {
    case FrameSelection::Every: return "every";
    case FrameSelection::FirstLast: return "first_last";
    case FrameSelection::None: return "none";
  }
  return "every";
}

bool parse_frame_selection(const std::string& name, FrameSelection& out) {
  for (FrameSelection f : {FrameSelection::Every, FrameSelection::FirstLast, FrameSelection::None})
    if (name == frame_selection_name(f)) {
      out = f;
      return true;
    }
  return false;
}

bool OutputSettings::wants_dataset(const std::string& name) const {
  return std::find(datasets.begin(), datasets.end(), name) != datasets.end();
}

bool OutputSettings::wants_reduction(const std::string& name) const {
  return std::find(reductions.begin(), reductions.end(), name) != reductions.end();
}

namespace scene_detail {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// A list of names out of `valid`, returned in the order of `valid` (so that the file's
/// layout does not depend on how the list was written); duplicates refused.
std::vector<std::string> name_list(const json& list, const std::string& path, const std::vector<std::string>& valid,
                                   const char* what) {
  expect_array(list, path);
  std::vector<bool> chosen(valid.size(), false);
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string p = child_path(path, k);
    const std::string name = as_string(list[k], p);
    const auto it = std::find(valid.begin(), valid.end(), name);
    if (it == valid.end())
      throw SceneError(p, "unknown " + std::string(what) + " \"" + printable(name) + "\" (valid: " + joined(valid) + ")");
    const auto index = static_cast<std::size_t>(it - valid.begin());
    if (chosen[index]) throw SceneError(p, "\"" + name + "\" is listed twice");
    chosen[index] = true;
  }
  std::vector<std::string> out;
  for (std::size_t k = 0; k < valid.size(); ++k)
    if (chosen[k]) out.push_back(valid[k]);
  return out;
}

}  // namespace

OutputSettings compile_output(const json& output, const std::string& path) {
  expect_object(output, path);
  check_keys(output, path, {"datasets", "frames", "reductions", "compression"});
  OutputSettings s;
  if (const json* v = find_key(output, "datasets"))
    s.datasets = name_list(*v, child_path(path, "datasets"), frame_dataset_names(), "dataset");
  if (const json* v = find_key(output, "frames")) {
    const std::string p = child_path(path, "frames");
    const std::string name = as_string(*v, p);
    if (!parse_frame_selection(name, s.frames))
      throw SceneError(p, "must be one of every, first_last, none (got \"" + printable(name) + "\")");
  }
  if (const json* v = find_key(output, "reductions")) {
    const std::string p = child_path(path, "reductions");
    if (v->is_string()) {
      const std::string name = as_string(*v, p);
      if (name == "all") {
        s.reductions = reduction_names();
      } else if (name != "none") {
        throw SceneError(p, "must be \"none\", \"all\" or a list of quantities (" + joined(reduction_names()) +
                                "; got \"" + printable(name) + "\")");
      }
    } else if (v->is_array()) {
      s.reductions = name_list(*v, p, reduction_names(), "quantity");
    } else {
      throw SceneError(p, std::string("must be \"none\", \"all\" or a list of quantities (got ") + type_word(*v) + ")");
    }
  }
  if (const json* v = find_key(output, "compression")) {
    const std::string p = child_path(path, "compression");
    const long long level = as_integer(*v, p);
    if (level < 0 || level > 9)
      throw SceneError(p, "must be a deflate level 0..9 (0: none; got " + std::to_string(level) + ")");
    s.compression = static_cast<int>(level);
  }
  return s;
}

}  // namespace scene_detail

namespace {

/// "a, b,c" -> ["a", "b", "c"] (blanks around names dropped); an empty name is refused.
nlohmann::json split_names(const std::string& text, const char* flag) {
  nlohmann::json list = nlohmann::json::array();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
    if (item.empty()) throw SceneError(flag, "an empty name in the list '" + text + "' (names separated by commas)");
    list.push_back(item);
    if (comma == std::string::npos) return list;
    start = comma + 1;
  }
}

}  // namespace

void apply_output_flags(nlohmann::json& doc, const std::string& datasets, const std::string& frames,
                        const std::string& reductions, std::optional<int> compression) {
  nlohmann::json flags = nlohmann::json::object();
  // Each flag is checked alone, so that an error names it.
  const auto check = [&](const char* flag, const char* key, const nlohmann::json& value) {
    nlohmann::json one = nlohmann::json::object();
    one[key] = value;
    try {
      scene_detail::compile_output(one, "/output");
    } catch (const SceneError& e) {
      throw SceneError(flag, e.reason());
    }
    flags[key] = value;
  };
  if (!datasets.empty()) check("--datasets", "datasets", split_names(datasets, "--datasets"));
  if (!frames.empty()) check("--frames", "frames", frames);
  if (!reductions.empty())
    check("--reductions", "reductions",
          reductions == "all" || reductions == "none" ? nlohmann::json(reductions) : split_names(reductions, "--reductions"));
  if (compression) check("--compression", "compression", *compression);
  if (flags.empty()) return;
  if (!doc.contains("output") || !doc["output"].is_object()) doc["output"] = nlohmann::json::object();
  for (auto it = flags.begin(); it != flags.end(); ++it) doc["output"][it.key()] = it.value();
}

}  // namespace simphant
