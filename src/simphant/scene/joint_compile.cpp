// The "joints" section of a scene -> Model::joints (docs/scene-format.md, "Joint").
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/name_index.hpp"

namespace simphant::scene_detail {

namespace {

JointType joint_type(const json& j, const std::string& path) {
  const std::string s = as_string(j, path);
  if (s == "spherical") return JointType::Spherical;
  if (s == "revolute") return JointType::Revolute;
  if (s == "prismatic") return JointType::Prismatic;
  if (s == "cylindrical") return JointType::Cylindrical;
  if (s == "planar") return JointType::Planar;
  if (s == "fixed") return JointType::Fixed;
  throw SceneError(path, "unknown joint type \"" + s +
                             "\" (expected spherical, revolute, prismatic, cylindrical, planar or fixed)");
}

/// The "initial" object of a joint: angle / rate need a revolute or cylindrical joint,
/// slide / velocity a prismatic or cylindrical one.
JointInitial compile_initial(const json& j, const std::string& path, JointType type) {
  expect_object(j, path);
  check_keys(j, path, {"angle", "rate", "slide", "velocity"});
  const bool turns = type == JointType::Revolute || type == JointType::Cylindrical;
  const bool slides = type == JointType::Prismatic || type == JointType::Cylindrical;
  JointInitial in;
  auto take = [&](const char* key, bool allowed, const char* needs, bool& has, double& value) {
    const json* v = find_key(j, key);
    if (v == nullptr) return;
    const std::string p = child_path(path, key);
    if (!allowed)
      throw SceneError(p, std::string("an initial ") + key + " needs a " + needs + " joint (this one is " +
                              joint_type_name(type) + ")");
    value = as_number(*v, p);
    has = true;
  };
  take("angle", turns, "revolute or cylindrical", in.has_angle, in.angle);
  take("rate", turns, "revolute or cylindrical", in.has_rate, in.rate);
  take("slide", slides, "prismatic or cylindrical", in.has_slide, in.slide);
  take("velocity", slides, "prismatic or cylindrical", in.has_velocity, in.velocity);
  return in;
}

Joint compile_joint(const json& j, const std::string& path, const Model& model, const NameIndex& bodies) {
  expect_object(j, path);
  check_keys(j, path,
             {"name", "type", "body_i", "body_j", "frame", "frame_i", "frame_j", "initial", "clearance", "limits"});
  Joint jt;
  jt.name = as_name(require_key(j, path, "name"), child_path(path, "name"));
  jt.type = joint_type(require_key(j, path, "type"), child_path(path, "type"));
  jt.body_i = body_ref(j, path, "body_i", bodies);
  jt.body_j = body_ref(j, path, "body_j", bodies);
  if (jt.body_i == jt.body_j) throw SceneError(child_path(path, "body_j"), "must differ from body_i");
  const json* frame = find_key(j, "frame");
  const json* frame_i = find_key(j, "frame_i");
  const json* frame_j = find_key(j, "frame_j");
  if (frame != nullptr) {
    if (frame_i != nullptr) throw SceneError(child_path(path, "frame_i"), "exclusive with frame");
    if (frame_j != nullptr) throw SceneError(child_path(path, "frame_j"), "exclusive with frame");
    jt.frame = compile_world_frame(*frame, child_path(path, "frame"), model, jt.body_i, jt.body_j);
  } else if (frame_i != nullptr && frame_j != nullptr) {
    jt.frame = compile_local_frames(*frame_i, child_path(path, "frame_i"), *frame_j, child_path(path, "frame_j"));
  } else if (frame_i != nullptr) {
    throw SceneError(child_path(path, "frame_j"), "required key is missing (frame_i given)");
  } else if (frame_j != nullptr) {
    throw SceneError(child_path(path, "frame_i"), "required key is missing (frame_j given)");
  } else {
    throw SceneError(child_path(path, "frame"), "required key is missing (give frame, or frame_i and frame_j)");
  }
  if (const json* clearance = find_key(j, "clearance")) {
    // A revolute joint with a radial clearance (docs/contact.md, "Joint clearance"): its
    // planar rows keep the axes parallel and the journal in the bearing's plane; the
    // radial play is a bearing-journal contact pair (scene/contact_compile.cpp).
    const std::string cp = child_path(path, "clearance");
    if (jt.type != JointType::Revolute)
      throw SceneError(cp, std::string("a radial clearance needs a revolute joint (this one is ") +
                               joint_type_name(jt.type) + ")");
    expect_object(*clearance, cp);
    if (find_key(j, "initial") != nullptr)
      throw SceneError(child_path(path, "initial"), "not with a clearance: the journal moves freely in its bearing, so "
                                                    "the joint has no angle or rate to set (place the bodies and give "
                                                    "their velocities instead)");
    jt.type = JointType::Planar;
  }
  if (const json* init = find_key(j, "initial")) jt.initial = compile_initial(*init, child_path(path, "initial"), jt.type);
  return jt;
}

}  // namespace

void check_clearance_joint_refs(const json& doc) {
  const json* joints = find_key(doc, "joints");
  if (joints == nullptr || !joints->is_array()) return;
  const auto clearance_of = [joints](const std::string& name) -> int {
    for (std::size_t k = 0; k < joints->size(); ++k) {
      const json& j = (*joints)[k];
      if (j.is_object() && find_key(j, "clearance") != nullptr) {
        const json* n = find_key(j, "name");
        if (n != nullptr && n->is_string() && n->get<std::string>() == name) return static_cast<int>(k);
      }
    }
    return -1;
  };
  for (const char* section : {"drivers", "forces"}) {
    const json* items = find_key(doc, section);
    if (items == nullptr || !items->is_array()) continue;
    for (std::size_t i = 0; i < items->size(); ++i) {
      const json* ref = (*items)[i].is_object() ? find_key((*items)[i], "joint") : nullptr;
      if (ref == nullptr || !ref->is_string()) continue;
      const int k = clearance_of(ref->get<std::string>());
      if (k < 0) continue;
      throw SceneError(child_path(child_path(child_path("", section), i), "joint"),
                       "joint \"" + printable(ref->get<std::string>()) + "\" has a clearance (" +
                           child_path(child_path("/joints", static_cast<std::size_t>(k)), "clearance") +
                           "): its journal moves freely in its bearing, so it has no angle for a driver, an actuator "
                           "or a rotational spring-damper (docs/contact.md, \"Joint clearance\")");
    }
  }
}

void compile_joints(const json& joints, const std::string& path, Model& model) {
  expect_array(joints, path);
  model.joints.clear();
  model.joints.reserve(joints.size());
  int rows = 0;
  const NameIndex bodies(model.bodies);
  NameIndex names;
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const std::string joint_path = child_path(path, k);
    Joint jt = compile_joint(joints[k], joint_path, model, bodies);
    if (!names.insert(jt.name, static_cast<int>(k))) {
      throw SceneError(child_path(joint_path, "name"), "duplicate joint name \"" + jt.name + "\"");
    }
    jt.row_offset = rows;
    rows += joint_rows(jt.type);
    model.joints.push_back(std::move(jt));
  }
  model.n_rows = rows;
}

}  // namespace simphant::scene_detail
