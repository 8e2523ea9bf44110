#pragma once
// Test helper: a URDF robot's maximal (DAE) model with robot joint laws
// (model/robot_joint_laws.hpp), built as the scene compile builds it, and one instance of
// it stepped with rk4_step.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/robot_joint_laws.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"

namespace simphant::test {

using Vec = std::vector<double>;
using Params = std::vector<RobotJointParams<double>>;

/// A test link of mass m on a joint of `type` about `axis` at p in its parent (-1: the
/// base), CoM at com in the link frame, inertia diag(0.01, 0.02, 0.03) kg m^2 about it.
inline ReducedLink test_link(const char* name, int parent, Vec3d p, Vec3d axis, ReducedJointType type, double m,
                             Vec3d com) {
  ReducedLink l;
  l.name = name;
  l.joint_name = std::string(name) + "_joint";
  l.type = type;
  l.parent = parent;
  l.R_parent_joint = identity3<double>();
  l.p_parent_joint = p;
  l.axis = axis;
  l.mass = m;
  l.com = com;
  l.inertia_com = Mat3d{};
  l.inertia_com.m[0][0] = 0.01;
  l.inertia_com.m[1][1] = 0.02;
  l.inertia_com.m[2][2] = 0.03;
  return l;
}

/// The maximal model of rm as the scene compile makes it (scene/robot_compile.cpp: one
/// actuator per joint, input k) with joint laws and mimic rows from P
/// (attach_robot_joint_laws).
inline Model dae_robot(const ReducedModel& rm, const Vec& q0, const Vec& qd0, const Params& P, const Vec& u, double dt) {
  Model m = maximal_model_from_urdf(rm, q0, qd0);
  for (int k = 0; k < rm.nq(); ++k) {
    ForceElement f;
    f.type = ForceType::Actuator;
    f.joint = k;
    f.kind = rm.links[k].type == ReducedJointType::Revolute ? ActuatorKind::Torque : ActuatorKind::Force;
    f.value = u[k];
    f.input_index = k;
    m.forces.push_back(f);
  }
  m.n_inputs = rm.nq();
  m.solver.dt = dt;
  auto rj = std::make_shared<RobotJointSpace>();
  rj->model = rm;
  rj->q0 = q0;
  rj->qd0 = qd0;
  rj->tau = u;
  rj->joints = P;
  rj->solver = RobotSolver::Dae;
  m.robot = rj;
  attach_robot_joint_laws(m);
  return m;
}

/// A model's state, stepped with rk4_step; q, qd read as the joint law reads them.
struct DaeRun {
  Model model;
  Data d;
  Vec Y, u;
  double t = 0;
  DaeRun(Model m, Vec inputs) : model(std::move(m)), d(model), Y(model.ny()), u(std::move(inputs)) {
    initial_state(model, Y.data());
  }
  bool run(double dt, int steps) {
    const double t0 = t;
    for (int k = 0; k < steps; ++k) {
      if (!rk4_step(model, d, t, Y.data(), u.data(), dt)) return false;
      t = t0 + (k + 1) * dt;
    }
    return true;
  }
  /// Joint k's coordinate about its law's q_ref, and its rate.
  void joint(int k, double& q, double& qd) const {
    const Joint& jt = model.joints[k];
    const int N = model.n_bodies();
    Vec3d v;
    joint_coordinate_state(jt.type == JointType::Revolute, jt.frame, state_body_kin(Y.data(), N, jt.body_i),
                           state_body_kin(Y.data(), N, jt.body_j), model.forces[k].joint_law.q_ref, q, qd, v);
  }
};

}  // namespace simphant::test
