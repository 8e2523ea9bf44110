#pragma once
// The robot joint forces and mimic rows of a URDF robot scene on its maximal-coordinate
// (DAE) model (docs/robots.md, "The DAE solver: joint forces, mimic, floating base";
// docs/solver.md, "Robot joint forces in the DAE" and "Mimic rows").
#include "simphant/model/model.hpp"

namespace simphant {

/// Gives each actuator of model.robot's joints (robot_compile: actuator k on joint k, input
/// k) the joint law of formulas/joint_law.hpp from model.robot->joints (no-op while that is
/// empty or model.robot is null): p = joints[k], q_ref = q0[k]. Each mimic joint k
/// (joints[k].mimic = l >= 0) becomes a Mimic row after the drivers' rows: follower k,
/// leader l, the joints' coordinates (angle for a revolute, slide for a prismatic), the
/// multiplier and offset of joints[k], q_ref = q0[k], leader_q_ref = q0[l]; n_rows grows by
/// one per mimic. Throws std::invalid_argument when robot->joints does not have one entry
/// per joint, or a joint mimics itself, no joint of the robot, or a joint that is itself
/// a follower.
void attach_robot_joint_laws(Model& model);

}  // namespace simphant
