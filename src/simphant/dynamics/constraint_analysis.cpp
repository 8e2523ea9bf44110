#include "simphant/dynamics/constraint_analysis.hpp"

#include <cmath>

#include <Eigen/Householder>

#include "simphant/dynamics/evaluate.hpp"

namespace simphant {

ConstraintAnalysis analyse_jacobian(const Eigen::MatrixXd& Phi_q) {
  ConstraintAnalysis a;
  a.rows = static_cast<int>(Phi_q.rows());
  const Eigen::Index n = Phi_q.cols();
  a.dof = static_cast<int>(n);
  if (a.rows == 0) return a;
  // The largest finite row norm (a row holding NaN or inf is never kept: its remainder
  // does not compare greater than the tolerance).
  double scale = 0;
  for (Eigen::Index k = 0; k < Phi_q.rows(); ++k) {
    const double norm = Phi_q.row(k).norm();
    if (std::isfinite(norm) && norm > scale) scale = norm;
  }
  const double tol = kConstraintRankTolerance * scale;
  // A = Phi_q^T: column k is row k of Phi_q. The first r entries of a reduced column are
  // its coordinates along the kept rows; the rest, its remainder.
  Eigen::MatrixXd A = Phi_q.transpose();
  Eigen::VectorXd essential(n), workspace(a.rows);
  Eigen::Index r = 0;
  a.remainders.reserve(static_cast<std::size_t>(a.rows));
  for (Eigen::Index k = 0; k < A.cols(); ++k) {
    const double remainder = r == n ? 0.0 : A.col(k).tail(n - r).norm();
    a.remainders.push_back(scale > 0 ? remainder / scale : remainder);
    if (!(remainder > tol)) {  // NaN counts as redundant
      a.redundant_rows.push_back(static_cast<int>(k));
      continue;
    }
    double tau = 0, beta = 0;
    auto essential_part = essential.head(n - r - 1);
    A.col(k).tail(n - r).makeHouseholder(essential_part, tau, beta);
    if (k + 1 < A.cols())
      A.bottomRightCorner(n - r, A.cols() - k - 1)
          .applyHouseholderOnTheLeft(essential_part, tau, workspace.data());
    ++r;
  }
  a.rank = static_cast<int>(r);
  a.dof = static_cast<int>(n - r);
  return a;
}

ConstraintAnalysis analyse_constraints(const Model& model, Data& d, const double* Y) {
  if (model.n_rows == 0) {
    ConstraintAnalysis a;
    a.dof = model.nv();
    return a;
  }
  set_kinematics(model, d, Y);
  evaluate_constraints(model, d, 0.0);
  assemble_jacobian(model, d);
  return analyse_jacobian(d.Phi_q);
}

}  // namespace simphant
