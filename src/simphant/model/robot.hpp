#pragma once
// RobotJointSpace: what a scene with a "robot" section (docs/robots.md) adds to a Model:
// the URDF robot in joint coordinates and its initial joint state, so that the reduced
// backend (sim/reduced_backend.hpp) can integrate it with ABA or CGA-ABA, and every
// backend can report joint coordinates. The Model's bodies and joints are the same robot
// in maximal coordinates (urdf/maximal_from_urdf.hpp): body k = link k, joint k = the
// joint of link k, actuator k = the constant joint torque / force tau[k].
#include <string>
#include <vector>

#include "simphant/reduced/reduced_model.hpp"
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
  std::vector<double> tau;  ///< (n) constant joint torques / forces [N m | N] (= the actuators' values)
  RobotSolver solver = RobotSolver::Aba;
  std::string urdf_path;    ///< the resolved URDF file
  int n() const { return model.nq(); }
};

}  // namespace simphant
