#include "simphant/dynamics/robot_stability.hpp"

#include <cmath>
#include <utility>

namespace simphant {

namespace {

struct Contributions {
  double kp = 0, kd = 0, damping = 0, spring = 0, limit_k = 0, limit_c = 0, friction_slope = 0;
};

Contributions contributions(const RobotJointParams<double>& p) {
  Contributions c;
  if (p.mode == static_cast<int>(ActuatorMode::Position)) c.kp = p.kp;
  if (p.mode != static_cast<int>(ActuatorMode::Torque)) c.kd = p.kd;
  c.damping = p.damping;
  c.spring = p.stiffness;
  if (p.limited) {
    c.limit_k = p.limit_stiffness;
    c.limit_c = p.limit_damping;
  }
  if (p.friction > 0) c.friction_slope = p.friction / p.friction_velocity;
  return c;
}

}  // namespace

std::vector<StabilityMode> robot_joint_modes(const RobotJointSpace& robot) {
  std::vector<StabilityMode> modes;
  const std::size_t n = robot.joints.size();
  if (n == 0 || robot.effective_inertia.size() != n) return modes;
  for (std::size_t k = 0; k < n; ++k) {
    const Contributions c = contributions(robot.joints[k]);
    const double stiffness = c.kp + c.spring + c.limit_k;
    const double damping = c.kd + c.damping + c.limit_c + c.friction_slope;
    if (!(stiffness > 0) && !(damping > 0)) continue;
    StabilityMode m = spring_mode(-1, stiffness, damping, 1.0 / robot.effective_inertia[k]);
    m.joint = static_cast<int>(k);
    modes.push_back(m);
  }
  return modes;
}

std::string robot_mode_field(const StabilityMode& m, const RobotJointSpace& robot) {
  const std::size_t k = static_cast<std::size_t>(m.joint);
  const Contributions c = contributions(robot.joints[k]);
  const double w = 1.0 / robot.effective_inertia[k];
  const bool from_file = k < robot.servo_from_file.size() && robot.servo_from_file[k];
  const std::string servo = "/robot/servos/" + robot.model.links[k].joint_name;
  const std::pair<double, std::string> parts[] = {
      {std::sqrt(c.kp * w), from_file ? "/robot/mjcf" : servo + "/kp"},
      {c.kd * w, from_file ? "/robot/mjcf" : servo + "/kd"},
      {c.damping * w, "/robot/" + robot.file_key},
      {std::sqrt(c.spring * w), "/robot/" + robot.file_key},
      {std::sqrt(c.limit_k * w), "/robot/urdf_dynamics/limits"},
      {c.limit_c * w, "/robot/urdf_dynamics/limits"},
      {c.friction_slope * w, "/robot/friction_velocity"}};
  const std::pair<double, std::string>* best = &parts[0];
  for (const auto& p : parts)
    if (p.first > best->first) best = &p;
  return best->second;
}

std::string robot_mode_name(const StabilityMode& m, const RobotJointSpace& robot) {
  const std::size_t k = static_cast<std::size_t>(m.joint);
  const Contributions c = contributions(robot.joints[k]);
  std::string parts;
  const auto add = [&parts](bool on, const char* what) {
    if (on) parts += (parts.empty() ? "" : " + ") + std::string(what);
  };
  add(c.kp > 0 || c.kd > 0, "servo");
  add(c.damping > 0, "damping");
  add(c.spring > 0, "spring");
  add(c.limit_k > 0 || c.limit_c > 0, "limit spring-damper");
  add(c.friction_slope > 0, "friction slope");
  return "joint '" + robot.model.links[k].joint_name + "' (" + parts + ")";
}

}  // namespace simphant
