// compile_model: a scene document -> a validated Model (docs/scene-format.md).
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

Model compile_model(const nlohmann::json& doc) {
  using namespace scene_detail;
  const std::string root;  // JSON pointer of the document: ""
  expect_object(doc, "/");
  check_keys(doc, root, {"name", "gravity", "bodies", "joints", "forces", "solver", "sweep"});
  Model model;
  if (const json* name = find_key(doc, "name")) model.name = as_string(*name, "/name");
  model.gravity = vec3_or(doc, root, "gravity", zero3<double>());
  compile_bodies(require_key(doc, root, "bodies"), "/bodies", model);
  if (const json* joints = find_key(doc, "joints")) compile_joints(*joints, "/joints", model);
  if (const json* forces = find_key(doc, "forces")) compile_forces(*forces, "/forces", model);
  model.solver = compile_solver(require_key(doc, root, "solver"), "/solver");
  return model;
}

}  // namespace simphant
