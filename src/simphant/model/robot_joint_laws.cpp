#include "simphant/model/robot_joint_laws.hpp"

#include <Eigen/Dense>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/crba.hpp"

namespace simphant {

void attach_robot_joint_laws(Model& model) {
  if (!model.robot || model.robot->joints.empty()) return;
  const RobotJointSpace& rj = *model.robot;
  const int n = rj.n();
  if (static_cast<int>(rj.joints.size()) != n || static_cast<int>(rj.q0.size()) != n)
    throw std::invalid_argument("attach_robot_joint_laws: robot '" + rj.model.name + "' has " + std::to_string(n) +
                                " joints but " + std::to_string(rj.joints.size()) + " joint parameters and " +
                                std::to_string(rj.q0.size()) + " initial positions");
  bool any_mimic = false;
  for (const RobotJointParams<double>& p : rj.joints) any_mimic = any_mimic || p.mimic >= 0;
  Eigen::MatrixXd Minv;
  if (any_mimic) {  // M(q0) with the base held fixed (crba.hpp), inverted once
    std::vector<ReducedLinkParams<double>> links;
    for (int k = 0; k < n; ++k) links.push_back(reduced_link_params<double>(rj.model, k));
    CrbaWorkspace<double> ws;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(n, n);
    crba(n, links.data(), rj.model.gravity, rj.q0.data(), static_cast<const double*>(nullptr), M.data(),
         static_cast<double*>(nullptr), ws);
    Minv = M.llt().solve(Eigen::MatrixXd::Identity(n, n));
  }
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
      const double r = L.p.mimic_multiplier;
      const double w = Minv(k, k) - 2 * r * Minv(k, m) + r * r * Minv(m, m);
      const double omega = kMimicCouplingOmegaDt / model.solver.dt;
      L.coupling_stiffness = omega * omega / w;
      L.coupling_damping = 2 * omega / w;
    }
    f.has_joint_law = true;
    f.joint_law = L;
  }
}

}  // namespace simphant
