#pragma once
// Private to scene/: typed access to JSON values that tracks the JSON pointer of every
// value, so that each validation error names it (docs/scene-format.md). Every function
// throws SceneError(path, reason) on a wrong type, a missing key or a non-finite number.
#include <cstddef>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/math/small.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::scene_detail {

using nlohmann::json;

/// "null", "a boolean", "a number", "a string", "an array" or "an object", for messages.
const char* type_word(const json& j);

/// JSON pointer of `key` inside the value at `path` ("~" and "/" escaped per RFC 6901; a
/// NUL character, which no valid key has, is written as the six characters \u0000).
std::string child_path(const std::string& path, const std::string& key);
/// JSON pointer of element `index` of the array at `path`.
std::string child_path(const std::string& path, std::size_t index);

/// Throws "must be an object" / "must be an array" unless `j` has that type.
void expect_object(const json& j, const std::string& path);
void expect_array(const json& j, const std::string& path);

/// Throws SceneError(path/key, "unknown key (allowed: ...)") for the first key of the
/// object `obj` not in `allowed`. Precondition: obj is an object.
void check_keys(const json& obj, const std::string& path, std::initializer_list<const char*> allowed);

/// The member `key` of object `obj`, or nullptr when absent.
const json* find_key(const json& obj, const char* key);
/// The member `key` of object `obj`; throws SceneError(path/key, "required key is missing").
const json& require_key(const json& obj, const std::string& path, const char* key);

/// A finite number; throws "must be a number" or "must be finite (got inf)".
double as_number(const json& j, const std::string& path);
/// An integer (an integral-valued number is accepted) in the int range.
long long as_integer(const json& j, const std::string& path);
/// A string without NUL characters; throws "must be a string" or "must not contain a NUL
/// character" (a NUL would cut names short in C APIs such as HDF5's).
std::string as_string(const json& j, const std::string& path);
/// `s` with each NUL character written as \u0000, for messages.
std::string printable(const std::string& s);
/// The name of a body, joint or force: a non-empty string without '.', '[', ']' or '/'
/// (they separate the parts of a sweep path and of the output's /params/<path> names);
/// throws "must not be empty" / "must not contain ...".
std::string as_name(const json& j, const std::string& path);
/// A 3-vector [x, y, z] of finite numbers; throws "must be an array of 3 numbers".
Vec3d as_vec3(const json& j, const std::string& path);

/// Optional members with a fallback value when absent.
double number_or(const json& obj, const std::string& path, const char* key, double fallback);
Vec3d vec3_or(const json& obj, const std::string& path, const char* key, const Vec3d& fallback);

/// Shortest decimal text that reads back as `x` (for messages).
std::string format_number(double x);

}  // namespace simphant::scene_detail
