// Typed, path-tracking access to JSON values for the scene compiler (json_access.hpp).
#include "simphant/scene/json_access.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace simphant::scene_detail {

const char* type_word(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}

std::string child_path(const std::string& path, const std::string& key) {
  std::string out = path;
  out.reserve(path.size() + key.size() + 1);
  out += '/';
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else if (c == '\0') {
      out += "\\u0000";  // keeps the path printable; such a key is refused anyway
    } else {
      out += c;
    }
  }
  return out;
}

std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\0') {
      out += "\\u0000";
    } else {
      out += c;
    }
  }
  return out;
}

std::string child_path(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

void expect_object(const json& j, const std::string& path) {
  if (!j.is_object()) throw SceneError(path, std::string("must be an object (got ") + type_word(j) + ")");
}

void expect_array(const json& j, const std::string& path) {
  if (!j.is_array()) throw SceneError(path, std::string("must be an array (got ") + type_word(j) + ")");
}

void check_keys(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw SceneError(child_path(path, it.key()), "unknown key \"" + printable(it.key()) + "\" (allowed: " + list + ")");
  }
}

const json* find_key(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const json& require_key(const json& obj, const std::string& path, const char* key) {
  const json* v = find_key(obj, key);
  if (v == nullptr) throw SceneError(child_path(path, key), "required key is missing");
  return *v;
}

double as_number(const json& j, const std::string& path) {
  if (!j.is_number()) throw SceneError(path, std::string("must be a number (got ") + type_word(j) + ")");
  const double x = j.get<double>();
  if (!std::isfinite(x)) throw SceneError(path, "must be finite (got " + format_number(x) + ")");
  return x;
}

long long as_integer(const json& j, const std::string& path) {
  const double x = as_number(j, path);
  if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<long long>();
  if (std::floor(x) != x) throw SceneError(path, "must be an integer (got " + format_number(x) + ")");
  if (std::fabs(x) > static_cast<double>(std::numeric_limits<int>::max())) {
    throw SceneError(path, "integer out of range (got " + format_number(x) + ")");
  }
  return static_cast<long long>(x);
}

std::string as_string(const json& j, const std::string& path) {
  if (!j.is_string()) throw SceneError(path, std::string("must be a string (got ") + type_word(j) + ")");
  std::string s = j.get<std::string>();
  if (s.find('\0') != std::string::npos)
    throw SceneError(path, "must not contain a NUL character (\\u0000), got \"" + printable(s) + "\"");
  return s;
}

std::string as_name(const json& j, const std::string& path) {
  std::string name = as_string(j, path);
  if (name.empty()) throw SceneError(path, "must not be empty");
  if (name.find_first_of(".[]/") != std::string::npos) {
    throw SceneError(path, "must not contain '.', '[', ']' or '/' (they separate sweep path parts), got \"" +
                               name + "\"");
  }
  return name;
}

Vec3d as_vec3(const json& j, const std::string& path) {
  if (!j.is_array() || j.size() != 3) {
    throw SceneError(path, std::string("must be an array of 3 numbers (got ") + type_word(j) +
                               (j.is_array() ? " of size " + std::to_string(j.size()) : std::string()) + ")");
  }
  return {as_number(j[0], child_path(path, 0)), as_number(j[1], child_path(path, 1)),
          as_number(j[2], child_path(path, 2))};
}

double number_or(const json& obj, const std::string& path, const char* key, double fallback) {
  const json* v = find_key(obj, key);
  return v == nullptr ? fallback : as_number(*v, child_path(path, key));
}

Vec3d vec3_or(const json& obj, const std::string& path, const char* key, const Vec3d& fallback) {
  const json* v = find_key(obj, key);
  return v == nullptr ? fallback : as_vec3(*v, child_path(path, key));
}

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

}  // namespace simphant::scene_detail
