// The "forces" section of a scene -> Model::forces (docs/scene-format.md, "Force").
#include "simphant/formulas/motion_law.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/name_index.hpp"

namespace simphant::scene_detail {

namespace {

/// The names a force refers to (NameIndex of Model::bodies and of Model::joints).
struct ForceRefs {
  NameIndex bodies, joints;
};

/// A body reference: a moving body, or also "ground" when allow_ground.
int body_ref(const json& obj, const std::string& path, const char* key, const ForceRefs& refs, bool allow_ground) {
  const int k = body_ref(obj, path, key, refs.bodies);
  if (k == kGround && !allow_ground) throw SceneError(child_path(path, key), "must be a moving body (not \"ground\")");
  return k;
}

int joint_ref(const json& obj, const std::string& path, const ForceRefs& refs) {
  const std::string p = child_path(path, "joint");
  const std::string name = as_string(require_key(obj, path, "joint"), p);
  const int k = refs.joints.find(name, -1);
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

/// A tabulated characteristic {x_key: [...], "force": [...]} (docs/scene-format.md,
/// "Tabulated characteristics"): >= 2 knots, x strictly increasing, finite values, equal
/// lengths; the natural spline's second derivatives computed here.
CharacteristicTable compile_table(const json& j, const std::string& path, const char* x_key) {
  expect_object(j, path);
  check_keys(j, path, {x_key, "force"});
  const std::string xp = child_path(path, x_key), yp = child_path(path, "force");
  const json& xs = require_key(j, path, x_key);
  const json& ys = require_key(j, path, "force");
  expect_array(xs, xp);
  expect_array(ys, yp);
  if (xs.size() < 2) throw SceneError(xp, "needs at least 2 points (got " + std::to_string(xs.size()) + ")");
  if (ys.size() != xs.size())
    throw SceneError(yp, "needs as many values as " + std::string(x_key) + " (" + std::to_string(xs.size()) +
                             ", got " + std::to_string(ys.size()) + ")");
  const int n = static_cast<int>(xs.size());
  CharacteristicTable t;
  t.p.assign(3 * static_cast<std::size_t>(n), 0.0);
  for (int k = 0; k < n; ++k) {
    const std::string xk = child_path(xp, static_cast<std::size_t>(k));
    t.p[k] = as_number(xs[k], xk);
    t.p[n + k] = as_number(ys[k], child_path(yp, static_cast<std::size_t>(k)));
    if (k > 0 && !(t.p[k] > t.p[k - 1]))
      throw SceneError(xk, "must be strictly increasing (" + format_number(t.p[k]) + " after " +
                               format_number(t.p[k - 1]) + ")");
  }
  natural_spline_m2(t.p.data(), t.p.data() + n, n, t.p.data() + 2 * n);
  return t;
}

/// The stiffness (scalar or "stiffness_table") and damping (scalar or "damping_table")
/// of a spring-damper; a table and its scalar together are an error.
void compile_characteristics(const json& j, const std::string& path, ForceElement& f) {
  if (find_key(j, "law") != nullptr)
    throw SceneError(child_path(path, "law"),
                     "a spring-damper takes no motion law (laws vary point_force, torque and actuator loads; give a "
                     "nonlinear spring as stiffness_table)");
  const json* kt = find_key(j, "stiffness_table");
  const json* ct = find_key(j, "damping_table");
  if (kt != nullptr) {
    if (find_key(j, "stiffness") != nullptr)
      throw SceneError(child_path(path, "stiffness"), "give either stiffness or stiffness_table, not both");
    f.stiffness_table = compile_table(*kt, child_path(path, "stiffness_table"), "deflection");
  } else {
    f.stiffness = non_negative(j, path, "stiffness", true);
  }
  if (ct != nullptr) {
    if (find_key(j, "damping") != nullptr)
      throw SceneError(child_path(path, "damping"), "give either damping or damping_table, not both");
    f.damping_table = compile_table(*ct, child_path(path, "damping_table"), "rate");
  } else {
    f.damping = non_negative(j, path, "damping", false);
  }
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

/// The optional "law" of a point force, torque or actuator (a motion law appended to
/// model.laws), -1 without one.
int load_law(const json& j, const std::string& path, Model& model) {
  const json* law = find_key(j, "law");
  return law == nullptr ? -1 : compile_motion_law(*law, child_path(path, "law"), model);
}

void compile_force(const json& j, const std::string& path, const ForceRefs& refs, Model& model, ForceElement& f) {
  const std::string type_path = child_path(path, "type");
  const std::string type = as_string(require_key(j, path, "type"), type_path);
  if (type == "point_force") {
    check_keys(j, path, {"name", "type", "body", "force", "point", "frame", "law"});
    f.type = ForceType::PointForce;
    f.body = body_ref(j, path, "body", refs, false);
    f.vec = as_vec3(require_key(j, path, "force"), child_path(path, "force"));
    f.point_B = vec3_or(j, path, "point", zero3<double>());
    f.world_frame = world_frame_flag(j, path);
    f.law = load_law(j, path, model);
  } else if (type == "torque") {
    check_keys(j, path, {"name", "type", "body", "torque", "frame", "law"});
    f.type = ForceType::Torque;
    f.body = body_ref(j, path, "body", refs, false);
    f.vec = as_vec3(require_key(j, path, "torque"), child_path(path, "torque"));
    f.world_frame = world_frame_flag(j, path);
    f.law = load_law(j, path, model);
  } else if (type == "spring_damper") {
    check_keys(j, path, {"name", "type", "body_i", "point_i", "body_j", "point_j", "stiffness", "damping",
                         "rest_length", "stiffness_table", "damping_table", "law"});
    f.type = ForceType::SpringDamper;
    f.body_i = body_ref(j, path, "body_i", refs, true);
    f.body_j = body_ref(j, path, "body_j", refs, true);
    if (f.body_i == f.body_j) throw SceneError(child_path(path, "body_j"), "must differ from body_i");
    f.point_i = vec3_or(j, path, "point_i", zero3<double>());
    f.point_j = vec3_or(j, path, "point_j", zero3<double>());
    compile_characteristics(j, path, f);
    f.rest = non_negative(j, path, "rest_length", true);
  } else if (type == "rotational_spring_damper") {
    check_keys(j, path, {"name", "type", "joint", "stiffness", "damping", "rest_angle", "stiffness_table",
                         "damping_table", "law"});
    f.type = ForceType::RotationalSpringDamper;
    f.joint = joint_ref(j, path, refs);
    const JointType jt = model.joints[static_cast<std::size_t>(f.joint)].type;
    if (jt != JointType::Revolute && jt != JointType::Cylindrical) {
      throw SceneError(child_path(path, "joint"), "rotational_spring_damper needs a revolute or cylindrical joint");
    }
    compile_characteristics(j, path, f);
    f.rest = number_or(j, path, "rest_angle", 0.0);
  } else if (type == "actuator") {
    check_keys(j, path, {"name", "type", "joint", "kind", "value", "law"});
    f.type = ForceType::Actuator;
    f.joint = joint_ref(j, path, refs);
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
    f.law = load_law(j, path, model);
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
  const ForceRefs refs{NameIndex(model.bodies), NameIndex(model.joints)};
  NameIndex names;
  for (std::size_t k = 0; k < forces.size(); ++k) {
    const std::string force_path = child_path(path, k);
    const json& j = forces[k];
    expect_object(j, force_path);
    ForceElement f;
    const std::string name_path = child_path(force_path, "name");
    f.name = as_name(require_key(j, force_path, "name"), name_path);
    if (!names.insert(f.name, static_cast<int>(k)))
      throw SceneError(name_path, "duplicate force name \"" + f.name + "\"");
    compile_force(j, force_path, refs, model, f);
    if (f.type == ForceType::Actuator) f.input_index = n_inputs++;
    model.forces.push_back(std::move(f));
  }
  model.n_inputs = n_inputs;
}

}  // namespace simphant::scene_detail
