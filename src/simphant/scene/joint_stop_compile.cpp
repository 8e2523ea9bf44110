// joints[k].limits -> end-stop force elements (docs/scene-format.md, "Joint"; docs/contact.md,
// "End stops").
#include <cmath>
#include <limits>

#include "simphant/contact/contact_law.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

constexpr double kPiStop = 3.14159265358979323846;

/// A side's moment of inertia [kg m^2] about the joint's axis line (axis v and anchor u in
/// its body frame, u from the CoM): v . J v + m |v x u|^2; the ground's is infinite.
double axis_inertia(const Model& model, int body, const Vec3d& v, const Vec3d& u) {
  if (body == kGround) return std::numeric_limits<double>::infinity();
  const Body& b = model.bodies[static_cast<std::size_t>(body)];
  const Vec3d vxu = cross(v, u);
  return dot(v, mul(b.inertia_B, v)) + b.mass * dot(vxu, vxu);
}

double side_mass(const Model& model, int body) {
  return body == kGround ? std::numeric_limits<double>::infinity() : model.bodies[static_cast<std::size_t>(body)].mass;
}

/// The end-stop element of joint k from its limits object at `path`.
ForceElement compile_stop(const json& lim, const std::string& path, const json& joint_doc, int k, const Model& model) {
  const Joint& jt = model.joints[static_cast<std::size_t>(k)];
  expect_object(lim, path);
  check_keys(lim, path, {"lower", "upper", "stiffness", "restitution", "coordinate"});
  const std::string joint_path = path.substr(0, path.rfind('/'));
  if (find_key(joint_doc, "clearance") != nullptr)
    throw SceneError(path, "not with a clearance (" + child_path(joint_path, "clearance") +
                               "): the journal moves freely in its bearing, so the joint has no angle to limit");
  if (jt.type != JointType::Revolute && jt.type != JointType::Prismatic && jt.type != JointType::Cylindrical)
    throw SceneError(path, std::string("end stops need a revolute, prismatic or cylindrical joint (this one is ") +
                               joint_type_name(jt.type) + ")");
  bool angle = jt.type == JointType::Revolute;
  const std::string cp = child_path(path, "coordinate");
  if (jt.type == JointType::Cylindrical) {
    const std::string c = as_string(require_key(lim, path, "coordinate"), cp);
    if (c != "angle" && c != "slide") throw SceneError(cp, "must be \"angle\" or \"slide\" (got \"" + printable(c) + "\")");
    angle = c == "angle";
  } else if (const json* c = find_key(lim, "coordinate")) {
    const std::string want = angle ? "angle" : "slide";
    if (as_string(*c, cp) != want)
      throw SceneError(cp, std::string("a ") + joint_type_name(jt.type) + " joint has only its " + want);
  }
  const json* lo = find_key(lim, "lower");
  const json* up = find_key(lim, "upper");
  if (lo == nullptr && up == nullptr)
    throw SceneError(path, "give \"lower\", \"upper\" or both (the coordinate's range; an end left out has no stop)");
  ForceElement f;
  f.name = "end stops of joint '" + jt.name + "'";
  f.type = ForceType::JointStop;
  f.joint = k;
  f.kind = angle ? ActuatorKind::Torque : ActuatorKind::Force;
  f.lower = lo ? as_number(*lo, child_path(path, "lower")) : -std::numeric_limits<double>::infinity();
  f.upper = up ? as_number(*up, child_path(path, "upper")) : std::numeric_limits<double>::infinity();
  if (!(f.lower < f.upper))
    throw SceneError(child_path(path, "upper"), "must be above lower (" + format_number(f.lower) + "; got " +
                                                    format_number(f.upper) + ")");
  if (angle) {  // read on the turn about the range's middle (joint_stop_coordinate)
    if (lo == nullptr || up == nullptr)
      throw SceneError(child_path(path, lo == nullptr ? "lower" : "upper"),
                       "required key is missing: an angle's stops need both ends (the angle is read on a turn, so a "
                       "single stop would be met from both sides; give the far face's angle as the other end)");
    if (!(f.upper - f.lower < 2 * kPiStop))
      throw SceneError(child_path(path, "upper"), "the range of an angle must be shorter than a turn, upper - lower < "
                                                  "2 pi (got " + format_number(f.upper - f.lower) + " rad)");
  }
  const std::string kp = child_path(path, "stiffness"), ep = child_path(path, "restitution");
  const double K = as_number(require_key(lim, path, "stiffness"), kp);
  if (!(K > 0)) throw SceneError(kp, "must be > 0 [N m/rad | N/m] (got " + format_number(K) + ")");
  const double e = as_number(require_key(lim, path, "restitution"), ep);
  if (!(e > 0 && e <= 1)) throw SceneError(ep, "must be in (0, 1] (got " + format_number(e) + ")");
  // Tsuji's damping with the two bodies' inertia about the joint's axis (angle) or their
  // reduced mass (slide): e is exact for one body on the joint (docs/contact.md, "End stops").
  const JointFrame<double>& fr = jt.frame;
  const double m_eff = angle ? effective_mass(axis_inertia(model, jt.body_i, fr.v_i, fr.u_i),
                                              axis_inertia(model, jt.body_j, fr.v_j, fr.u_j))
                             : effective_mass(side_mass(model, jt.body_i), side_mass(model, jt.body_j));
  f.contact.normal = normal_law_params(NormalLaw::Tsuji, K, 1.0, e, m_eff, 0.0, 0.0);
  f.contact_source = {kp, ep, "", ""};
  return f;
}

}  // namespace

void compile_joint_stops(const json& doc, Model& model) {
  const json* joints = find_key(doc, "joints");
  if (joints == nullptr || !joints->is_array()) return;
  for (std::size_t k = 0; k < joints->size(); ++k) {
    const json& j = (*joints)[k];
    const json* lim = j.is_object() ? find_key(j, "limits") : nullptr;
    if (lim == nullptr) continue;
    model.forces.push_back(compile_stop(*lim, child_path(child_path("/joints", k), "limits"), j, static_cast<int>(k), model));
  }
}

}  // namespace simphant::scene_detail
