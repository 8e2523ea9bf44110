#pragma once
// The joint coordinates and rates a scene gives in joint terms (Joint::initial,
// docs/scene-format.md "Joints"), as extra rows that assembly (dynamics/assembly.hpp)
// fixes at the given values: the position Newton iterations solve Phi = 0 together with
// coord(q) - value = 0 (an angle wrapped into (-pi, pi]), the velocity projection
// Phi_q qdot = 0 together with coord_q qdot = rate. Rows from joints/joint_coordinate.hpp.
#include <string>
#include <vector>

#include <Eigen/Core>

#include "simphant/dynamics/data.hpp"
#include "simphant/joints/joint_coordinate.hpp"

namespace simphant {

/// One given value: a coordinate (angle [rad] or slide [m]) or its rate ([rad/s] or [m/s]).
struct CoordinateTarget {
  int joint = -1;
  JointCoordinate coordinate = JointCoordinate::Angle;
  double value = 0;
};

/// The given coordinates (rates = false) or rates (rates = true) of the model's joints,
/// in joint order, angle before slide.
std::vector<CoordinateTarget> coordinate_targets(const Model& model, bool rates);

/// "joint 'crank' initial angle" / "... rate" / "... slide" / "... velocity".
std::string target_name(const Model& model, const CoordinateTarget& t, bool rate);

/// The coordinate row of a target at the kinematics d.kin (set_kinematics called).
CoordinateRow<double> target_row(const Model& model, const Data& d, const CoordinateTarget& t);

/// Writes a coordinate row's 12 Jacobian entries into row r of J (rows, 6N) at the
/// columns of the joint's bodies (ground: none), as assemble_jacobian does for Phi_q.
void scatter_target_row(const Model& model, const CoordinateTarget& t, const double* jac, Eigen::MatrixXd& J, int r);

/// The first target whose row does not raise the rank of [Phi_q; earlier target rows]
/// (relative threshold 1e-10, the assembly's): more coordinates fixed than the
/// mechanism's mobility allows; -1 when every row is independent. Phi_q: the joints' rows
/// at the current state; rows: the targets' rows (targets.size(), 6N).
int first_dependent_target(const Eigen::MatrixXd& Phi_q, const Eigen::MatrixXd& rows);

}  // namespace simphant
