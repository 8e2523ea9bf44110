// The "drivers" section of a scene -> Model::drivers and their motion laws
// (docs/scene-format.md, "Drivers"; docs/solver.md, "Rheonomic drivers").
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/name_index.hpp"

namespace simphant::scene_detail {

namespace {

const char* coordinate_name(JointCoordinate c) { return c == JointCoordinate::Angle ? "angle" : "slide"; }

/// The coordinate of a driver: "angle" or "slide"; when absent, the joint's only one
/// (revolute: angle, prismatic: slide). Checked against the joint's type.
JointCoordinate driver_coordinate(const json& j, const std::string& path, const Joint& joint) {
  const std::string p = child_path(path, "coordinate");
  const json* v = find_key(j, "coordinate");
  JointCoordinate c;
  if (v == nullptr) {
    if (joint.type == JointType::Revolute) return JointCoordinate::Angle;
    if (joint.type == JointType::Prismatic) return JointCoordinate::Slide;
    if (joint.type == JointType::Cylindrical)
      throw SceneError(p, "required key is missing (joint \"" + joint.name + "\" is cylindrical: \"angle\" or \"slide\")");
    c = JointCoordinate::Angle;  // reported below as the missing coordinate of this type
  } else {
    const std::string s = as_string(*v, p);
    if (s == "angle")
      c = JointCoordinate::Angle;
    else if (s == "slide")
      c = JointCoordinate::Slide;
    else
      throw SceneError(p, "must be \"angle\" or \"slide\" (got \"" + printable(s) + "\")");
  }
  if (!joint_has_coordinate(joint.type, c))
    throw SceneError(v ? p : child_path(path, "joint"),
                     "joint \"" + joint.name + "\" is " + joint_type_name(joint.type) + " and has no " +
                         coordinate_name(c) + " coordinate (angle: revolute, cylindrical; slide: prismatic, cylindrical)");
  return c;
}

}  // namespace

void compile_drivers(const json& drivers, const std::string& path, Model& model) {
  expect_array(drivers, path);
  const NameIndex joints(model.joints);
  NameIndex names(model.drivers);
  for (std::size_t k = 0; k < drivers.size(); ++k) {
    const std::string dp = child_path(path, k);
    const json& j = drivers[k];
    expect_object(j, dp);
    check_keys(j, dp, {"name", "joint", "coordinate", "law"});
    Driver dr;
    const std::string name_path = child_path(dp, "name");
    dr.name = as_name(require_key(j, dp, "name"), name_path);
    if (!names.insert(dr.name, static_cast<int>(model.drivers.size())))
      throw SceneError(name_path, "duplicate driver name \"" + dr.name + "\"");
    const std::string jp = child_path(dp, "joint");
    const std::string joint_name = as_string(require_key(j, dp, "joint"), jp);
    dr.joint = joints.find(joint_name, -1);
    if (dr.joint < 0) throw SceneError(jp, "unknown joint \"" + printable(joint_name) + "\"");
    dr.coordinate = driver_coordinate(j, dp, model.joints[static_cast<std::size_t>(dr.joint)]);
    for (const Driver& other : model.drivers)
      if (other.joint == dr.joint && other.coordinate == dr.coordinate)
        throw SceneError(jp, "the " + std::string(coordinate_name(dr.coordinate)) + " of joint \"" + joint_name +
                                 "\" is already driven by driver \"" + other.name + "\"");
    // The driver prescribes the coordinate and its rate for all time: an initial value of
    // either on the joint would contradict the law (the assembly could only fail on it).
    {
      const JointInitial& in = model.joints[static_cast<std::size_t>(dr.joint)].initial;
      const bool angle = dr.coordinate == JointCoordinate::Angle;
      const char* given = angle ? (in.has_angle ? "angle" : in.has_rate ? "rate" : nullptr)
                                : (in.has_slide ? "slide" : in.has_velocity ? "velocity" : nullptr);
      if (given != nullptr)
        throw SceneError(child_path(child_path(child_path("/joints", static_cast<std::size_t>(dr.joint)), "initial"), given),
                         "the " + std::string(coordinate_name(dr.coordinate)) + " of joint \"" + joint_name +
                             "\" is prescribed by driver \"" + dr.name + "\" (" + dp +
                             "): an initial " + given + " would contradict its law (remove it)");
    }
    dr.law = compile_motion_law(require_key(j, dp, "law"), child_path(dp, "law"), model);
    dr.row_offset = model.n_rows;  // after every joint's rows
    model.n_rows += 1;
    model.drivers.push_back(std::move(dr));
  }
}

}  // namespace simphant::scene_detail
