#pragma once
// The robot joint forces of a URDF robot scene on its maximal-coordinate (DAE) model
// (docs/robots.md, "The DAE solver: joint forces, mimic, floating base"; docs/solver.md,
// "Robot joint forces in the DAE").
#include "simphant/model/model.hpp"

namespace simphant {

/// Undamped circular frequency times solver.dt of a mimic coupling in the DAE: the
/// coupling's mode, critically damped, has the double eigenvalue -omega, and
/// omega dt = 0.5 lies well inside RK4's real-axis stability limit 2.785 (and symplectic
/// Euler's 2), so the coupling needs no smaller step than the robot's own dynamics.
constexpr double kMimicCouplingOmegaDt = 0.5;

/// Gives each actuator of model.robot's joints (robot_compile: actuator k on joint k, input
/// k) the joint law of formulas/joint_law.hpp from model.robot->joints (no-op while that is
/// empty or model.robot is null): p = joints[k], q_ref = q0[k], and for a mimic joint
/// leader_q_ref = q0[mimic] and the coupling gains
///   w = coupling_inverse_inertia[k]  (the largest c^T M(q)^-1 c, c = e_k - mimic_multiplier
///                                     e_mimic, over q0 and sampled configurations:
///                                     scene/robot_joint_params.hpp),
///   omega = kMimicCouplingOmegaDt / solver.dt,  k = omega^2 / w,  c = 2 omega / w
/// (the error obeys e'' + c w(q) e' + k w(q) e = 0 near a configuration q: critically
/// damped at omega where w(q) = w, slower and underdamped where the coupling is heavier).
/// Throws std::invalid_argument when robot->joints does not have one entry per joint, a
/// joint mimics itself or no joint of the robot, or its coupling_inverse_inertia is
/// missing or not positive.
void attach_robot_joint_laws(Model& model);

}  // namespace simphant
