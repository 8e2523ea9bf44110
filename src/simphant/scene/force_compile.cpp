// The "forces" section of a scene -> Model::forces (docs/scene-format.md, "Force").
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

/// A body reference: a moving body, or also "ground" when allow_ground.
int body_ref(const json& obj, const std::string& path, const char* key, const Model& model, bool allow_ground) {
  const std::string p = child_path(path, key);
  const std::string name = as_string(require_key(obj, path, key), p);
  const int k = model.body_index(name);
  if (k == -2) throw SceneError(p, "unknown body \"" + name + "\"");
  if (k == kGround && !allow_ground) throw SceneError(p, "must be a moving body (not \"ground\")");
  return k;
}

int joint_ref(const json& obj, const std::string& path, const Model& model) {
  const std::string p = child_path(path, "joint");
  const std::string name = as_string(require_key(obj, path, "joint"), p);
  const int k = model.joint_index(name);
  if (k == -1) throw SceneError(p, "unknown joint \"" + name + "\"");
  return k;
}

double non_negative(const json& obj, const std::string& path, const char* key, bool required) {
  const std::string p = child_path(path, key);
  const json* v = find_key(obj, key);
  if (v == nullptr) {
    if (required) throw SceneError(p, "required key is missing");
    return 0.0;
  }
  const double x = as_number(*v, p);
  if (!(x >= 0)) throw SceneError(p, "must be >= 0 (got " + format_number(x) + ")");
  return x;
}

bool world_frame_flag(const json& obj, const std::string& path) {
  const json* v = find_key(obj, "frame");
  if (v == nullptr) return true;
  const std::string p = child_path(path, "frame");
  const std::string s = as_string(*v, p);
  if (s == "world") return true;
  if (s == "body") return false;
  throw SceneError(p, "must be \"world\" or \"body\" (got \"" + s + "\")");
}

void compile_force(const json& j, const std::string& path, const Model& model, ForceElement& f) {
  const std::string type_path = child_path(path, "type");
  const std::string type = as_string(require_key(j, path, "type"), type_path);
  if (type == "point_force") {
    check_keys(j, path, {"name", "type", "body", "force", "point", "frame"});
    f.type = ForceType::PointForce;
    f.body = body_ref(j, path, "body", model, false);
    f.vec = as_vec3(require_key(j, path, "force"), child_path(path, "force"));
    f.point_B = vec3_or(j, path, "point", zero3<double>());
    f.world_frame = world_frame_flag(j, path);
  } else if (type == "torque") {
    check_keys(j, path, {"name", "type", "body", "torque", "frame"});
    f.type = ForceType::Torque;
    f.body = body_ref(j, path, "body", model, false);
    f.vec = as_vec3(require_key(j, path, "torque"), child_path(path, "torque"));
    f.world_frame = world_frame_flag(j, path);
  } else if (type == "spring_damper") {
    check_keys(j, path, {"name", "type", "body_i", "point_i", "body_j", "point_j", "stiffness", "damping",
                         "rest_length"});
    f.type = ForceType::SpringDamper;
    f.body_i = body_ref(j, path, "body_i", model, true);
    f.body_j = body_ref(j, path, "body_j", model, true);
    if (f.body_i == f.body_j) throw SceneError(child_path(path, "body_j"), "must differ from body_i");
    f.point_i = vec3_or(j, path, "point_i", zero3<double>());
    f.point_j = vec3_or(j, path, "point_j", zero3<double>());
    f.stiffness = non_negative(j, path, "stiffness", true);
    f.damping = non_negative(j, path, "damping", false);
    f.rest = non_negative(j, path, "rest_length", true);
  } else if (type == "rotational_spring_damper") {
    check_keys(j, path, {"name", "type", "joint", "stiffness", "damping", "rest_angle"});
    f.type = ForceType::RotationalSpringDamper;
    f.joint = joint_ref(j, path, model);
    const JointType jt = model.joints[static_cast<std::size_t>(f.joint)].type;
    if (jt != JointType::Revolute && jt != JointType::Cylindrical) {
      throw SceneError(child_path(path, "joint"), "rotational_spring_damper needs a revolute or cylindrical joint");
    }
    f.stiffness = non_negative(j, path, "stiffness", true);
    f.damping = non_negative(j, path, "damping", false);
    f.rest = number_or(j, path, "rest_angle", 0.0);
  } else if (type == "actuator") {
    check_keys(j, path, {"name", "type", "joint", "kind", "value"});
    f.type = ForceType::Actuator;
    f.joint = joint_ref(j, path, model);
    const JointType jt = model.joints[static_cast<std::size_t>(f.joint)].type;
    const std::string kind_path = child_path(path, "kind");
    const std::string kind = as_string(require_key(j, path, "kind"), kind_path);
    if (kind == "torque") {
      f.kind = ActuatorKind::Torque;
      if (jt != JointType::Revolute && jt != JointType::Cylindrical) {
        throw SceneError(kind_path, "a torque actuator needs a revolute or cylindrical joint");
      }
    } else if (kind == "force") {
      f.kind = ActuatorKind::Force;
      if (jt != JointType::Prismatic && jt != JointType::Cylindrical) {
        throw SceneError(kind_path, "a force actuator needs a prismatic or cylindrical joint");
      }
    } else {
      throw SceneError(kind_path, "must be \"torque\" or \"force\" (got \"" + kind + "\")");
    }
    f.value = number_or(j, path, "value", 0.0);
  } else {
    throw SceneError(type_path, "unknown force type \"" + type +
                                    "\" (expected point_force, torque, spring_damper, rotational_spring_damper or "
                                    "actuator)");
  }
}

}  // namespace

void compile_forces(const json& forces, const std::string& path, Model& model) {
  expect_array(forces, path);
  model.forces.clear();
  model.forces.reserve(forces.size());
  int n_inputs = 0;
  for (std::size_t k = 0; k < forces.size(); ++k) {
    const std::string force_path = child_path(path, k);
    const json& j = forces[k];
    expect_object(j, force_path);
    ForceElement f;
    const std::string name_path = child_path(force_path, "name");
    f.name = as_name(require_key(j, force_path, "name"), name_path);
    for (const ForceElement& g : model.forces) {
      if (g.name == f.name) throw SceneError(name_path, "duplicate force name \"" + f.name + "\"");
    }
    compile_force(j, force_path, model, f);
    if (f.type == ForceType::Actuator) f.input_index = n_inputs++;
    model.forces.push_back(std::move(f));
  }
  model.n_inputs = n_inputs;
}

}  // namespace simphant::scene_detail
