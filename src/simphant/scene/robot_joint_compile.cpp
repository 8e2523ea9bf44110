// The joint-force and base keys of a scene's "robot" section (docs/robots.md, "Actuators,
// limits, damping and friction", "Servos", "Floating base"): robot.servos,
// robot.urdf_dynamics, robot.friction_velocity, robot.floating_base, robot.base.
#include <cmath>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "simphant/log/log.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::scene_detail {

void warn_once(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(message).second) logger().warn("{}", message);
}

namespace {

/// Sets each mimic follower's q0 / qd0 from its leader's (q = r q_l + o, qd = r qd_l), so
/// every solver starts on the relation; warns of a start outside a joint's position
/// limits, and (dae) of a revolute limit further than pi from q0, which the DAE's angle,
/// read within q0 +- pi (docs/robots.md, "Angle wrapping"), never reaches, and of a
/// mimic pair's revolute joint that can turn further than that.
void settle_initial_joint_state(const std::string& path, RobotJointSpace& rj) {
  const int n = rj.n();
  for (int k = 0; k < n; ++k) {
    const RobotJointParams<double>& p = rj.joints[static_cast<std::size_t>(k)];
    if (p.mimic < 0) continue;
    const std::size_t j = static_cast<std::size_t>(k), l = static_cast<std::size_t>(p.mimic);
    rj.q0[j] = p.mimic_multiplier * rj.q0[l] + p.mimic_offset;
    rj.qd0[j] = p.mimic_multiplier * rj.qd0[l];
  }
  const double pi = 3.14159265358979323846;
  // (dae) A mimic pair with a revolute joint that may turn: the mimic row reads each angle
  // within q0 +- pi (docs/solver.md, "Mimic rows"), so a turn past that jumps the row's Phi
  // by 2 pi (2 pi r for the leader), which Baumgarte's terms then pull against.
  for (int k = 0; rj.solver == RobotSolver::Dae && k < n; ++k) {
    const RobotJointParams<double>& p = rj.joints[static_cast<std::size_t>(k)];
    if (p.mimic < 0) continue;
    for (const int j : {k, p.mimic}) {
      const RobotJointParams<double>& pj = rj.joints[static_cast<std::size_t>(j)];
      const ReducedLink& link = rj.model.links[static_cast<std::size_t>(j)];
      const double q0 = rj.q0[static_cast<std::size_t>(j)];
      if (link.type == ReducedJointType::Revolute && (!pj.limited || pj.upper - q0 > pi || q0 - pj.lower > pi))
        warn_once(path + ": joint '" + link.joint_name + "' of the mimic pair '" +
                  rj.model.links[static_cast<std::size_t>(k)].joint_name + "' <- '" +
                  rj.model.links[static_cast<std::size_t>(p.mimic)].joint_name +
                  "' can turn more than pi from q0 = " + format_number(q0) +
                  "; solver dae reads its angle within q0 +- pi, and the mimic row is wrong past that (aba and cga "
                  "are not)");
    }
  }
  for (int k = 0; k < n; ++k) {
    const RobotJointParams<double>& p = rj.joints[static_cast<std::size_t>(k)];
    const ReducedLink& link = rj.model.links[static_cast<std::size_t>(k)];
    if (rj.solver == RobotSolver::Dae && link.type == ReducedJointType::Revolute && p.stiffness > 0 &&
        (!p.limited || p.upper - rj.q0[static_cast<std::size_t>(k)] > pi ||
         rj.q0[static_cast<std::size_t>(k)] - p.lower > pi))
      warn_once(child_path(child_path(path, "q0"), static_cast<std::size_t>(k)) + ": joint '" + link.joint_name +
                "' has a spring and can turn more than pi from q0 = " +
                format_number(rj.q0[static_cast<std::size_t>(k)]) +
                "; solver dae reads its angle within q0 +- pi, and the spring's force jumps by 2 pi stiffness past "
                "that (aba and cga do not)");
    if (!p.limited) continue;
    const double q0 = rj.q0[static_cast<std::size_t>(k)];
    const std::string where =
        child_path(child_path(path, "q0"), static_cast<std::size_t>(k)) + ": joint '" + link.joint_name + "'";
    if (q0 < p.lower || q0 > p.upper)
      warn_once(where + " starts at " + format_number(q0) + ", outside its limits [" + format_number(p.lower) + ", " +
                format_number(p.upper) + "]: the limit's spring pushes it back from the first step");
    if (rj.solver == RobotSolver::Dae && link.type == ReducedJointType::Revolute &&
        (p.upper - q0 > pi || q0 - p.lower > pi))
      warn_once(where + ": a limit of [" + format_number(p.lower) + ", " + format_number(p.upper) +
                "] lies more than pi from q0 = " + format_number(q0) +
                "; solver dae reads the angle within q0 +- pi and does not enforce it there (aba and cga do)");
  }
}

bool as_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) throw SceneError(path, std::string("must be a boolean (got ") + type_word(j) + ")");
  return j.get<bool>();
}

bool bool_or(const json& obj, const std::string& path, const char* key, bool fallback) {
  const json* v = find_key(obj, key);
  return v == nullptr ? fallback : as_bool(*v, child_path(path, key));
}

double non_negative(const json& j, const std::string& path) {
  const double x = as_number(j, path);
  if (!(x >= 0)) throw SceneError(path, "must be >= 0 (got " + format_number(x) + ")");
  return x;
}

UrdfDynamicsUse compile_urdf_dynamics(const json& robot, const std::string& path) {
  UrdfDynamicsUse use;
  const json* v = find_key(robot, "urdf_dynamics");
  if (v == nullptr) return use;
  const std::string p = child_path(path, "urdf_dynamics");
  expect_object(*v, p);
  check_keys(*v, p, {"limits", "damping", "friction", "mimic"});
  use.limits = bool_or(*v, p, "limits", true);
  use.damping = bool_or(*v, p, "damping", true);
  use.friction = bool_or(*v, p, "friction", true);
  use.mimic = bool_or(*v, p, "mimic", true);
  return use;
}

std::string moving_joint_names(const ReducedModel& rm) {
  std::string s;
  for (const ReducedLink& l : rm.links) s += (s.empty() ? "" : ", ") + l.joint_name;
  return s;
}

int joint_index(const ReducedModel& rm, const std::string& name) {
  for (int k = 0; k < rm.nq(); ++k)
    if (rm.links[static_cast<std::size_t>(k)].joint_name == name) return k;
  return -1;
}

/// robot.servos -> servo specs; the input slot of a servo joint starts at its target.
std::vector<ServoSpec> compile_servos(const json& robot, const std::string& path, RobotJointSpace& rj) {
  std::vector<ServoSpec> out;
  const json* v = find_key(robot, "servos");
  if (v == nullptr) return out;
  const std::string p = child_path(path, "servos");
  expect_object(*v, p);
  const ReducedModel& rm = rj.model;
  for (auto it = v->begin(); it != v->end(); ++it) {
    const std::string sp = child_path(p, it.key());
    const int k = joint_index(rm, it.key());
    if (k < 0)
      throw SceneError(sp, "unknown joint '" + printable(it.key()) + "' (moving joints: " + moving_joint_names(rm) + ")");
    const json& s = it.value();
    expect_object(s, sp);
    check_keys(s, sp, {"mode", "kp", "kd", "target"});
    ServoSpec servo;
    servo.joint = k;
    const std::string mode_ptr = child_path(sp, "mode");
    const std::string mode = as_string(require_key(s, sp, "mode"), mode_ptr);
    if (mode == "position") {
      servo.mode = ActuatorMode::Position;
      servo.kp = non_negative(require_key(s, sp, "kp"), child_path(sp, "kp"));
      if (const json* kd = find_key(s, "kd")) servo.kd = non_negative(*kd, child_path(sp, "kd"));
    } else if (mode == "velocity") {
      servo.mode = ActuatorMode::Velocity;
      if (find_key(s, "kp") != nullptr)
        throw SceneError(child_path(sp, "kp"), "a velocity servo has no kp (its law is kd (target - qd))");
      servo.kd = non_negative(require_key(s, sp, "kd"), child_path(sp, "kd"));
    } else {
      throw SceneError(mode_ptr, "must be \"position\" or \"velocity\" (got \"" + printable(mode) + "\")");
    }
    const std::size_t ks = static_cast<std::size_t>(k);
    if (rj.tau[ks] != 0)
      throw SceneError(child_path(child_path(path, "tau"), ks),
                       "joint '" + it.key() + "' has a servo (robot.servos): its input is the servo's target, so "
                       "its tau entry must be 0 (got " + format_number(rj.tau[ks]) + ")");
    // Default target: hold the initial position, or rest.
    const double fallback = servo.mode == ActuatorMode::Position ? rj.q0[ks] : 0.0;
    rj.tau[ks] = number_or(s, sp, "target", fallback);
    out.push_back(servo);
  }
  return out;
}

}  // namespace

void compile_robot_base(const json& robot, const std::string& path, RobotJointSpace& rj) {
  ReducedModel& rm = rj.model;
  const std::string fb_ptr = child_path(path, "floating_base");
  // A URDF without moving joints (an object to push or grasp) is a free body by default; in
  // MJCF a body without a joint is welded to the world, and a free one says <freejoint>.
  const bool floating = bool_or(robot, path, "floating_base", rm.floating || (rm.nq() == 0 && rj.file_key == "urdf"));
  try {
    if (floating)
      make_floating_base(rm);  // the root link and the links fixed to it become the free base
    else
      make_fixed_base(rm);  // a URDF floating joint held fixed: B welded to W at the origin
  } catch (const UrdfError& e) {
    throw SceneError(fb_ptr, e.what());
  }
  const json* base = find_key(robot, "base");
  const std::string p = child_path(path, "base");
  if (!floating) {
    if (base != nullptr)
      throw SceneError(p, "only a floating base has an initial pose and twist (robot.floating_base is false" +
                              std::string(find_key(robot, "floating_base") ? "" : " for this URDF: it has no floating root joint") + ")");
    rj.base_q0.clear();
    rj.base_v0.clear();
    return;
  }
  rj.base_q0 = {0, 0, 0, 1, 0, 0, 0};
  rj.base_v0 = {0, 0, 0, 0, 0, 0};
  if (base == nullptr) return;
  expect_object(*base, p);
  check_keys(*base, p, {"position", "orientation", "velocity", "angular_velocity"});
  const Vec3d r = vec3_or(*base, p, "position", zero3<double>());
  const Vec3d v = vec3_or(*base, p, "velocity", zero3<double>());
  const Vec3d w = vec3_or(*base, p, "angular_velocity", zero3<double>());
  double quat[4] = {1, 0, 0, 0};
  if (const json* o = find_key(*base, "orientation")) {
    const std::string op = child_path(p, "orientation");
    expect_array(*o, op);
    if (o->size() != 4) throw SceneError(op, "must be an array of 4 numbers [w, x, y, z] (got " + std::to_string(o->size()) + ")");
    double nn = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      quat[i] = as_number((*o)[i], child_path(op, i));
      nn += quat[i] * quat[i];
    }
    const double norm = std::sqrt(nn);
    if (!(norm > 0) || !std::isfinite(norm))
      throw SceneError(op, "must be a nonzero quaternion [w, x, y, z] (it is normalised; got norm " + format_number(norm) + ")");
    for (double& c : quat) c /= norm;
  }
  rj.base_q0 = {r.x, r.y, r.z, quat[0], quat[1], quat[2], quat[3]};
  rj.base_v0 = {v.x, v.y, v.z, w.x, w.y, w.z};
}

// robot.limit_law: "step" (the default: each stop's mode follows the step) or
// "solreflimit" (an MJCF robot's: each joint's solreflimit mode; docs/mjcf.md, "Joint
// limits").
bool compile_limit_law(const json& robot, const std::string& path, const RobotJointSpace& rj) {
  const json* v = find_key(robot, "limit_law");
  if (v == nullptr) return false;
  const std::string ptr = child_path(path, "limit_law");
  const std::string law = v->is_string() ? v->get<std::string>() : "";
  if (law != "step" && law != "solreflimit")
    throw SceneError(ptr, "must be \"step\" (the stops' stiffness follows the step) or \"solreflimit\" (an MJCF "
                          "file's joints: their solreflimit time constants) (got " + v->dump() + ")");
  if (law == "solreflimit" && rj.file_key != "mjcf")
    throw SceneError(ptr, "\"solreflimit\" applies to an MJCF robot (robot.mjcf); a URDF has no solreflimit");
  if (law == "solreflimit")
    for (const ReducedLink& l : rj.model.links)
      if (!l.continuous && !(l.limit_time_constant > 0))
        throw SceneError(ptr, "\"solreflimit\": joint '" + l.joint_name + "' has no time constant and damping ratio "
                              "(its <joint solreflimit> is MuJoCo's direct form, which is not read)");
  return law == "solreflimit";
}

void compile_robot_joints(const json& robot, const std::string& path, double dt, RobotJointSpace& rj) {
  UrdfDynamicsUse use = compile_urdf_dynamics(robot, path);
  use.effort = use.limits || rj.file_key == "mjcf";
  use.solreflimit = compile_limit_law(robot, path, rj);
  const std::vector<ServoSpec> servos = compile_servos(robot, path, rj);
  const std::string fv_ptr = child_path(path, "friction_velocity");
  const double fv = number_or(robot, path, "friction_velocity", kDefaultFrictionVelocity);
  if (!(fv > 0)) throw SceneError(fv_ptr, "must be > 0 [rad/s | m/s] (got " + format_number(fv) + ")");
  try {
    rj.effective_inertia = joint_inertia_lower_bound(rj.model, rj.q0);
  } catch (const std::invalid_argument& e) {
    throw SceneError(child_path(path, rj.file_key), e.what());
  }
  rj.joints = derive_joint_params(rj.model, rj.effective_inertia, use, servos, fv, dt);
  settle_initial_joint_state(path, rj);
}

}  // namespace simphant::scene_detail
