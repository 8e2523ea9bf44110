#include "simphant/model/robot_joint_laws.hpp"

#include <stdexcept>
#include <string>

#include "simphant/model/robot.hpp"

namespace simphant {
namespace {

JointCoordinate coordinate_of(const Joint& j) {
  return j.type == JointType::Prismatic ? JointCoordinate::Slide : JointCoordinate::Angle;
}

}  // namespace

void attach_robot_joint_laws(Model& model) {
  if (!model.robot || model.robot->joints.empty()) return;
  const RobotJointSpace& rj = *model.robot;
  const int n = rj.n();
  if (static_cast<int>(rj.joints.size()) != n || static_cast<int>(rj.q0.size()) != n || model.n_joints() < n)
    throw std::invalid_argument("attach_robot_joint_laws: robot '" + rj.model.name + "' has " + std::to_string(n) +
                                " joints but " + std::to_string(rj.joints.size()) + " joint parameters, " +
                                std::to_string(rj.q0.size()) + " initial positions and " +
                                std::to_string(model.n_joints()) + " model joints");
  for (ForceElement& f : model.forces) {
    if (f.type != ForceType::Actuator || f.joint < 0 || f.joint >= n) continue;
    JointLaw<double> L = plain_joint_law<double>();
    L.p = rj.joints[static_cast<std::size_t>(f.joint)];
    L.q_ref = rj.q0[static_cast<std::size_t>(f.joint)];
    f.has_joint_law = true;
    f.joint_law = L;
  }
  model.n_rows -= model.n_mimics();  // made again below (the mimic rows are the last rows)
  model.mimics.clear();
  for (int k = 0; k < n; ++k) {
    const RobotJointParams<double>& p = rj.joints[static_cast<std::size_t>(k)];
    if (p.mimic < 0) continue;
    const int l = p.mimic;
    if (l >= n || l == k || rj.joints[static_cast<std::size_t>(l)].mimic >= 0)
      throw std::invalid_argument("attach_robot_joint_laws: joint " + std::to_string(k) + " mimics joint " +
                                  std::to_string(l) + " (need another joint of the robot that mimics none)");
    Mimic mi;
    mi.name = model.joints[static_cast<std::size_t>(k)].name;
    mi.joint = k;
    mi.leader = l;
    mi.coordinate = coordinate_of(model.joints[static_cast<std::size_t>(k)]);
    mi.leader_coordinate = coordinate_of(model.joints[static_cast<std::size_t>(l)]);
    mi.multiplier = p.mimic_multiplier;
    mi.offset = p.mimic_offset;
    mi.q_ref = rj.q0[static_cast<std::size_t>(k)];
    mi.leader_q_ref = rj.q0[static_cast<std::size_t>(l)];
    mi.row_offset = model.n_rows++;
    model.mimics.push_back(mi);
  }
}

}  // namespace simphant
