#pragma once
// RobotJointSpace: what a scene with a "robot" section (docs/robots.md) adds to a Model:
// the URDF robot in joint coordinates and its initial joint state, so that the reduced
// backend (sim/reduced_backend.hpp) can integrate it with ABA or CGA-ABA, and every
// backend can report joint coordinates. The Model's bodies and joints are the same robot
// in maximal coordinates (urdf/maximal_from_urdf.hpp): body k = link k (with a floating
// base: body 0 = the base, body k + 1 = link k), joint k = the joint of link k, actuator
// k = joint k's actuator with input tau[k].
#include <string>
#include <vector>

#include "simphant/reduced/reduced_model.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

/// Which formulation integrates the robot (scene "solver.type").
enum class RobotSolver : int {
  Dae = 0,  ///< maximal coordinates, constraint solver (the cpu / cuda backends)
  Aba = 1,  ///< joint coordinates, spatial-vector ABA (reduced/aba.hpp)
  Cga = 2   ///< joint coordinates, CGA ABA (reduced/cga/cga_dynamics.hpp)
};

/// "dae", "aba" or "cga".
inline const char* robot_solver_name(RobotSolver s) {
  return s == RobotSolver::Dae ? "dae" : (s == RobotSolver::Aba ? "aba" : "cga");
}

/// Most moving joints a robot may have (the fixed workspaces of the recursive algorithms).
constexpr int kMaxRobotJoints = kMaxReducedLinks;

struct RobotJointSpace {
  ReducedModel model;       ///< payload merged in; gravity = the scene's robot gravity [m/s^2], W
  std::vector<double> q0;   ///< (n) initial joint positions [rad | m]
  std::vector<double> qd0;  ///< (n) initial joint rates [rad/s | m/s]
  /// (n) initial per-instance inputs u: per joint, what RobotJointParams::mode reads (a
  /// torque / force [N m | N], or a servo's target position or rate); the actuators' values.
  std::vector<double> tau;
  /// (n) per joint: actuator mode and gains, limits, damping, friction, mimic, as the
  /// compile derived them (reduced/joint_forces.hpp; docs/robots.md).
  std::vector<RobotJointParams<double>> joints;
  /// (n) per joint the smallest effective inertia 1 / (M(q)^-1)_kk [kg m^2 | kg] found
  /// over q0 and sampled configurations (a floating base free; M with the joints'
  /// armatures, so a joint's own adds to its value), from which the limit
  /// gains were derived and the step-size check's joint modes are made
  /// (scene/robot_joint_params.hpp, joint_inertia_lower_bound).
  std::vector<double> effective_inertia;
  /// Floating base only (model.floating): initial base state, robot_dynamics.hpp's layout:
  /// base_q0 = p_B (3, W) then quat_B (4, w x y z); base_v0 = v_B (3, W) then omega_B (3, B).
  std::vector<double> base_q0, base_v0;
  RobotSolver solver = RobotSolver::Aba;
  std::string urdf_path;    ///< the resolved robot file (URDF or MJCF)
  std::string file_key = "urdf";  ///< the scene key that names it: "urdf" or "mjcf" (error pointers)
  /// (n, or empty: none) per joint, 1 where its servo is one of the MJCF file's actuators
  /// (robot.actuators "mjcf"), whose gains the step-size check then names as /robot/mjcf.
  std::vector<char> servo_from_file;
  int n() const { return model.nq(); }
};

}  // namespace simphant
