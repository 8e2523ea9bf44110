#pragma once
// Step-size stability modes of a robot's joint forces (docs/robots.md, "Actuators, limits,
// damping and friction"; docs/solver.md, "Step-size stability"): per joint the linearised
// sum of every force that can act at once, s^2 + p s + q = 0 with
//   q = (kp + stiffness + limit_stiffness) / I_k,
//   p = (kd + damping + limit_damping + friction / friction_velocity) / I_k,
// kp / kd of a servo (kp only for a position servo), stiffness the joint's spring (MJCF),
// the limit terms only for a limited
// joint (a joint resting on its stop), the Coulomb law's slope at rest, and I_k the
// joint's smallest effective inertia over q0 and sampled configurations
// (RobotJointSpace::effective_inertia; the joint's armature included, since it comes from
// the mass matrix that holds it). Joints with no such force have no mode. A mimic
// is no force in any solver (the DAE holds it as a constraint row), so it has no mode.
#include <string>
#include <vector>

#include "simphant/dynamics/stability.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

/// The joint modes of `robot` (StabilityMode::joint = the joint, force = -1), in joint
/// order. Empty when robot.joints or robot.effective_inertia is empty.
std::vector<StabilityMode> robot_joint_modes(const RobotJointSpace& robot);

/// The scene key whose value contributes most to the joint mode m (the largest of
/// sqrt(kp / I), kd / I, damping / I, sqrt(stiffness / I), sqrt(limit_stiffness / I), limit_damping / I and
/// friction / (friction_velocity I)): "/robot/servos/<joint>/kp" or ".../kd" ("/robot/mjcf"
/// for a servo that is one of the file's actuators), "/robot/urdf"
/// (or "/robot/mjcf", RobotJointSpace::file_key) for the file's damping and spring, "/robot/urdf_dynamics/limits" for the derived limit gains,
/// "/robot/friction_velocity" for the friction slope.
std::string robot_mode_field(const StabilityMode& m, const RobotJointSpace& robot);

/// "joint '<name>' (<the forces summed>)".
std::string robot_mode_name(const StabilityMode& m, const RobotJointSpace& robot);

}  // namespace simphant
