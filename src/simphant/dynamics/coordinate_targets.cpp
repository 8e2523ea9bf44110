#include "simphant/dynamics/coordinate_targets.hpp"

#include "simphant/dynamics/assembly.hpp"

#include <Eigen/QR>

namespace simphant {

std::vector<CoordinateTarget> coordinate_targets(const Model& model, bool rates) {
  std::vector<CoordinateTarget> out;
  for (int j = 0; j < model.n_joints(); ++j) {
    const JointInitial& in = model.joints[j].initial;
    if (rates ? in.has_rate : in.has_angle) out.push_back({j, JointCoordinate::Angle, rates ? in.rate : in.angle});
    if (rates ? in.has_velocity : in.has_slide)
      out.push_back({j, JointCoordinate::Slide, rates ? in.velocity : in.slide});
  }
  return out;
}

std::string target_name(const Model& model, const CoordinateTarget& t, bool rate) {
  const char* what = t.coordinate == JointCoordinate::Angle ? (rate ? "rate" : "angle") : (rate ? "velocity" : "slide");
  return "joint '" + model.joints[t.joint].name + "' initial " + what;
}

CoordinateRow<double> target_row(const Model& model, const Data& d, const CoordinateTarget& t) {
  const Joint& jt = model.joints[t.joint];
  const BodyKin<double> Bi = jt.body_i < 0 ? ground_kin<double>() : d.kin[jt.body_i];
  const BodyKin<double> Bj = jt.body_j < 0 ? ground_kin<double>() : d.kin[jt.body_j];
  CoordinateRow<double> row;
  joint_coordinate_row(t.coordinate, jt.frame, Bi, Bj, row);
  return row;
}

void scatter_target_row(const Model& model, const CoordinateTarget& t, const double* jac, Eigen::MatrixXd& J, int r) {
  const Joint& jt = model.joints[t.joint];
  J.row(r).setZero();
  for (int c = 0; c < 6; ++c) {
    if (jt.body_i >= 0) J(r, 6 * jt.body_i + c) = jac[c];
    if (jt.body_j >= 0) J(r, 6 * jt.body_j + c) = jac[6 + c];
  }
}

int first_dependent_target(const Eigen::MatrixXd& Phi_q, const Eigen::MatrixXd& rows) {
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kAssemblyRankThreshold);
  Eigen::MatrixXd A(Phi_q.rows() + rows.rows(), Phi_q.cols());
  A.topRows(Phi_q.rows()) = Phi_q;
  A.bottomRows(rows.rows()) = rows;
  Eigen::Index rank = 0;
  if (Phi_q.rows() > 0) rank = cod.compute(Phi_q).rank();
  for (Eigen::Index t = 0; t < rows.rows(); ++t) {
    const Eigen::Index next = cod.compute(A.topRows(Phi_q.rows() + t + 1)).rank();
    if (next <= rank) return static_cast<int>(t);
    rank = next;
  }
  return -1;
}

}  // namespace simphant
