#include "simphant/model/robot_joint_laws.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "simphant/model/robot.hpp"

namespace simphant {

void attach_robot_joint_laws(Model& model) {
  if (!model.robot || model.robot->joints.empty()) return;
  const RobotJointSpace& rj = *model.robot;
  const int n = rj.n();
  if (static_cast<int>(rj.joints.size()) != n || static_cast<int>(rj.q0.size()) != n)
    throw std::invalid_argument("attach_robot_joint_laws: robot '" + rj.model.name + "' has " + std::to_string(n) +
                                " joints but " + std::to_string(rj.joints.size()) + " joint parameters and " +
                                std::to_string(rj.q0.size()) + " initial positions");
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
      const double w = static_cast<int>(rj.coupling_inverse_inertia.size()) == n
                           ? rj.coupling_inverse_inertia[static_cast<std::size_t>(k)]
                           : 0.0;
      if (!(w > 0) || !std::isfinite(w))
        throw std::invalid_argument("attach_robot_joint_laws: the mimic coupling of joint '" +
                                    rj.model.links[static_cast<std::size_t>(k)].joint_name +
                                    "' has no positive inverse inertia (coupling_inverse_inertia " +
                                    std::to_string(w) + ")");
      const double omega = kMimicCouplingOmegaDt / model.solver.dt;
      L.coupling_stiffness = omega * omega / w;
      L.coupling_damping = 2 * omega / w;
    }
    f.has_joint_law = true;
    f.joint_law = L;
  }
}

}  // namespace simphant
