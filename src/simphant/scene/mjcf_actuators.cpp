// robot.actuators "mjcf" (docs/mjcf.md, "The file's actuators"): an MJCF file's actuators
// applied as SimPhant's joint laws. MuJoCo's actuator force f and joint force gear f
// (length = gear qpos, qpos = q + ref):
//   motor    f = gain ctrl                               -> the joint's torque input
//   position f = kp ctrl - kp gear qpos - kv gear qdot   -> a position servo with
//            kp' = gear^2 kp, kd' = gear^2 kv on the target ctrl / gear - ref
//   velocity f = kv ctrl - kv gear qdot                  -> a velocity servo, kd' = gear^2 kv,
//            on the target ctrl / gear
// f clamped to a symmetric forcerange [-F, F] is the joint's effort |gear| F; a motor's
// symmetric ctrlrange [-c, c] clamps its torque at |gear gain| c (unless the file disables
// clampctrl); the joint's symmetric actuatorfrcrange bounds the sum; the effort is the
// smallest of these. A servo's initial target is MuJoCo's ctrl 0 clamped to its
// ctrlrange. The servos are written as robot.servos entries, so their rules (the tau
// check, the step-size check) are robot_joint_compile.cpp's.
#include <array>
#include <cmath>
#include <string>

#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

using nlohmann::json;

std::string mjcf_actuators_problem(const MjcfModel& mj) {
  if (!mj.options.actuation) return "the file disables them: <option><flag actuation=\"disable\">";
  std::vector<int> owner(static_cast<std::size_t>(mj.model.nq()), -1);
  auto range = [](const char* what, double lo, double hi) {
    return std::string("an asymmetric ") + what + " [" + format_number(lo) + ", " + format_number(hi) +
           "] (SimPhant's effort bound is symmetric)";
  };
  for (std::size_t i = 0; i < mj.actuators.size(); ++i) {
    const MjcfActuator& a = mj.actuators[i];
    const std::string name = "actuator '" + a.name + "': ";
    int& o = owner[static_cast<std::size_t>(a.link)];
    if (o >= 0)
      return "actuators '" + mj.actuators[static_cast<std::size_t>(o)].name + "' and '" + a.name +
             "' drive one joint ('" + a.joint + "'); one actuator per joint";
    o = static_cast<int>(i);
    if (!(a.gear != 0 && std::isfinite(a.gear))) return name + "gear must be nonzero and finite";
    if (a.forcelimited && a.force_lower != -a.force_upper) return name + range("forcerange", a.force_lower, a.force_upper);
    if (a.type == MjcfActuatorType::Motor && a.ctrllimited && mj.options.clampctrl && a.ctrl_lower != -a.ctrl_upper)
      return name + range("ctrlrange of a motor", a.ctrl_lower, a.ctrl_upper);
    const std::array<double, 2>& jf = mj.actuator_force_range[static_cast<std::size_t>(a.link)];
    if (jf[0] != -jf[1]) return name + "its joint's " + range("actuatorfrcrange", jf[0], jf[1]);
  }
  return "";
}

bool apply_mjcf_actuators(const MjcfModel& mj, const json& robot, const std::string& path, json& servos,
                          ReducedModel& rm) {
  const json* v = find_key(robot, "actuators");
  if (v == nullptr) return false;
  const std::string ptr = child_path(path, "actuators");
  if (!v->is_string() || v->get<std::string>() != "mjcf")
    throw SceneError(ptr, "must be \"mjcf\" (the MJCF file's actuators drive the joints; without the key, none)");
  const std::string problem = mjcf_actuators_problem(mj);
  if (!problem.empty()) throw SceneError(child_path(path, "mjcf"), "the file's actuators cannot be applied: " + problem);
  expect_object(servos, child_path(path, "servos"));
  for (const MjcfActuator& a : mj.actuators) {
    ReducedLink* l = nullptr;  // by name: robot.floating_base may re-index the links
    for (ReducedLink& c : rm.links)
      if (c.joint_name == a.joint) l = &c;
    if (l == nullptr) throw SceneError(ptr, "actuator '" + a.name + "': joint '" + a.joint + "' is not a moving joint");
    if (servos.contains(a.joint))
      throw SceneError(child_path(child_path(path, "servos"), a.joint),
                       "joint '" + a.joint + "' is driven by the file's actuator '" + a.name +
                           "' (robot.actuators \"mjcf\"); give it one law");
    const double g = a.gear;
    const bool clamped = a.ctrllimited && mj.options.clampctrl;
    auto bound = [](double effort, double b) { return effort > 0 ? std::fmin(effort, b) : b; };
    double effort = a.forcelimited ? std::fabs(g) * a.force_upper : 0.0;  // 0: unbounded
    const double joint_bound = mj.actuator_force_range[static_cast<std::size_t>(a.link)][1];
    if (joint_bound > 0) effort = bound(effort, joint_bound);
    // The servo's initial target: MuJoCo's ctrl 0, clamped to the ctrlrange as MuJoCo clamps it.
    const double ctrl0 = clamped ? std::fmin(std::fmax(0.0, a.ctrl_lower), a.ctrl_upper) : 0.0;
    if (a.type == MjcfActuatorType::Motor) {
      if (clamped) effort = bound(effort, std::fabs(g * a.gain) * a.ctrl_upper);
    } else if (a.type == MjcfActuatorType::Position) {  // target ctrl / g - ref (q = qpos - ref)
      servos[a.joint] = {{"mode", "position"}, {"kp", g * g * a.kp}, {"kd", g * g * a.kv},
                         {"target", ctrl0 / g - mj.qpos_ref[static_cast<std::size_t>(a.link)]}};
    } else {
      servos[a.joint] = {{"mode", "velocity"}, {"kd", g * g * a.kv}, {"target", ctrl0 / g}};
    }
    if (effort > 0) l->effort = bound(l->effort, effort);
  }
  return true;
}

}  // namespace simphant::scene_detail
