// The "bodies" section of a scene -> Model::bodies (docs/scene-format.md, "Body").

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/name_index.hpp"

namespace simphant::scene_detail {

namespace {

Body compile_body(const json& j, const std::string& path) {
  expect_object(j, path);
  check_keys(j, path,
             {"name", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity",
              "angular_velocity_world", "visual", "collision"});  // collision: contact_compile.cpp
  Body b;
  b.name = as_name(require_key(j, path, "name"), child_path(path, "name"));
  if (b.name == "ground") throw SceneError(child_path(path, "name"), "the name \"ground\" is reserved");
  const std::string mass_path = child_path(path, "mass");
  b.mass = as_number(require_key(j, path, "mass"), mass_path);
  if (!(b.mass > 0)) throw SceneError(mass_path, "must be > 0 (got " + format_number(b.mass) + ")");
  b.inertia_B = compile_inertia(require_key(j, path, "inertia"), child_path(path, "inertia"));
  b.inertia_inv_B = inertia_inverse(b.inertia_B);
  b.r0_W = as_vec3(require_key(j, path, "position"), child_path(path, "position"));
  if (const json* q = find_key(j, "orientation")) b.p0 = compile_quaternion(*q, child_path(path, "orientation"));
  b.v0_W = vec3_or(j, path, "velocity", zero3<double>());
  b.omega0_B = vec3_or(j, path, "angular_velocity", zero3<double>());
  if (const json* w = find_key(j, "angular_velocity_world")) {
    const std::string w_path = child_path(path, "angular_velocity_world");
    if (find_key(j, "angular_velocity") != nullptr) throw SceneError(w_path, "exclusive with angular_velocity");
    b.omega0_B = mul_t(rotation(b.p0), as_vec3(*w, w_path));  // omega_B = A^T omega_W
  }
  if (const json* v = find_key(j, "visual")) check_visual(*v, child_path(path, "visual"));
  return b;
}

}  // namespace

void compile_bodies(const json& bodies, const std::string& path, Model& model) {
  expect_array(bodies, path);
  if (bodies.empty()) throw SceneError(path, "must contain at least one body");
  model.bodies.clear();
  model.bodies.reserve(bodies.size());
  NameIndex names;
  for (std::size_t k = 0; k < bodies.size(); ++k) {
    const std::string body_path = child_path(path, k);
    Body b = compile_body(bodies[k], body_path);
    if (!names.insert(b.name, static_cast<int>(k))) {
      throw SceneError(child_path(body_path, "name"), "duplicate body name \"" + b.name + "\"");
    }
    model.bodies.push_back(std::move(b));
  }
}

}  // namespace simphant::scene_detail
