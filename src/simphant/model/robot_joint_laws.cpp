#include "simphant/model/robot_joint_laws.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

void attach_robot_joint_laws(Model& model) {
  if (!model.robot || model.robot->joints.empty()) return;
  const RobotJointSpace& rj = *model.robot;
  const int n = rj.n();
  if (static_cast<int>(rj.joints.size()) != n || static_cast<int>(rj.q0.size()) != n)
    throw std::invalid_argument("attach_robot_joint_laws: robot '" + rj.model.name + "' has " + std::to_string(n) +
                                " joints but " + std::to_string(rj.joints.size()) + " joint parameters and " +
                                std::to_string(rj.q0.size()) + " initial positions");
  std::vector<ReducedLinkParams<double>> links;
  for (int k = 0; k < n; ++k) links.push_back(reduced_link_params<double>(rj.model, k));
  std::unique_ptr<AbaWorkspace<double>> ws;  // large: not on the stack; made for a mimic only
  // c^T M^-1 c: the joint accelerations qdd = M^-1 c that the joint forces c produce from
  // rest without gravity (one ABA call; a floating base free, as the DAE's base body).
  const auto inverse_inertia = [&](const std::vector<double>& c) {
    const std::vector<double> zero(static_cast<std::size_t>(n), 0.0);
    std::vector<double> qdd(static_cast<std::size_t>(n), 0.0);
    const Vec3d o{0, 0, 0};
    if (!ws) ws = std::make_unique<AbaWorkspace<double>>();
    if (rj.model.floating) {
      const RobotBaseParams<double> base{rj.model.base.mass, rj.model.base.com, rj.model.base.inertia_com};
      Vec3d vdot_B, omegadot_B;
      aba_floating(n, links.data(), base, o, o, Quatd{1, 0, 0, 0}, o, o, rj.q0.data(), zero.data(), c.data(), vdot_B,
                   omegadot_B, qdd.data(), *ws);
    } else {
      aba(n, links.data(), o, rj.q0.data(), zero.data(), c.data(), qdd.data(), *ws);
    }
    double w = 0;
    for (int k = 0; k < n; ++k) w += c[static_cast<std::size_t>(k)] * qdd[static_cast<std::size_t>(k)];
    return w;
  };
  for (ForceElement& f : model.forces) {
    if (f.type != ForceType::Actuator || f.joint < 0 || f.joint >= n) continue;
    const int k = f.joint;
    JointLaw<double> L = plain_joint_law<double>();
    L.p = rj.joints[static_cast<std::size_t>(k)];
    L.q_ref = rj.q0[static_cast<std::size_t>(k)];
    const int m = L.p.mimic;
    if (m >= 0) {
      if (m >= n || m == k)
        throw std::invalid_argument("attach_robot_joint_laws: joint " + std::to_string(k) + " mimics joint " +
                                    std::to_string(m) + " (need another joint of the robot)");
      L.leader_q_ref = rj.q0[static_cast<std::size_t>(m)];
      std::vector<double> c(static_cast<std::size_t>(n), 0.0);
      c[static_cast<std::size_t>(k)] = 1;
      c[static_cast<std::size_t>(m)] = -L.p.mimic_multiplier;
      const double w = inverse_inertia(c);
      if (!(w > 0) || !std::isfinite(w))
        throw std::invalid_argument("attach_robot_joint_laws: the mimic coupling of joint '" +
                                    rj.model.links[static_cast<std::size_t>(k)].joint_name +
                                    "' moves no mass at q0 (inverse inertia " + std::to_string(w) + ")");
      const double omega = kMimicCouplingOmegaDt / model.solver.dt;
      L.coupling_stiffness = omega * omega / w;
      L.coupling_damping = 2 * omega / w;
    }
    f.has_joint_law = true;
    f.joint_law = L;
  }
}

}  // namespace simphant
