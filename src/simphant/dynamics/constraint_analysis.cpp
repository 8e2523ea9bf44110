#include "simphant/dynamics/constraint_analysis.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/dynamics/sparse_jacobian.hpp"
#include "simphant/model/topology.hpp"

namespace simphant {

ConstraintAnalysis analyse_jacobian(const Eigen::MatrixXd& Phi_q) {
  return RowQR(Eigen::SparseMatrix<double, Eigen::RowMajor>(Phi_q.sparseView())).analysis();
}

namespace {

/// For a model whose joints form a forest (has_closed_loop false): per joint the side (0:
/// body_i, 1: body_j) of the body it adds when each tree is walked from the ground, or,
/// for a tree that does not reach the ground, from its lowest-index body.
std::vector<int> added_sides(const Model& model) {
  const int N = model.n_bodies();
  std::vector<std::vector<int>> at(static_cast<std::size_t>(N) + 1);  // node -> joints; ground: node N
  const auto node = [N](int body) { return body < 0 ? N : body; };
  for (int j = 0; j < model.n_joints(); ++j) {
    at[static_cast<std::size_t>(node(model.joints[j].body_i))].push_back(j);
    at[static_cast<std::size_t>(node(model.joints[j].body_j))].push_back(j);
  }
  std::vector<int> side(static_cast<std::size_t>(model.n_joints()), 1);
  std::vector<char> seen(static_cast<std::size_t>(N) + 1, 0);
  std::vector<int> stack;
  const auto walk = [&](int root) {
    seen[static_cast<std::size_t>(root)] = 1;
    stack.assign(1, root);
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      for (int j : at[static_cast<std::size_t>(k)]) {
        const Joint& jt = model.joints[j];
        const int other = node(jt.body_i) == k ? node(jt.body_j) : node(jt.body_i);
        if (seen[static_cast<std::size_t>(other)]) continue;
        seen[static_cast<std::size_t>(other)] = 1;
        side[static_cast<std::size_t>(j)] = other == node(jt.body_j) ? 1 : 0;
        stack.push_back(other);
      }
    }
  };
  walk(N);
  for (int k = 0; k < N; ++k)
    if (!seen[static_cast<std::size_t>(k)]) walk(k);
  return side;
}

/// The analysis of a forest from d.rows (evaluated): per joint, its rows and its drivers'
/// on the columns of the body it adds (analyse_jacobian of that block). Ordered from the
/// roots, Phi_q is block triangular with these blocks on its diagonal (no joint before a
/// body's own joint touches the body), so when every block has full row rank so has
/// Phi_q; false when some block does not (the caller then analyses Phi_q whole).
bool analyse_forest(const Model& model, const Data& d, ConstraintAnalysis& a) {
  const std::vector<int> side = added_sides(model);
  std::vector<std::vector<int>> drivers(static_cast<std::size_t>(model.n_joints()));
  for (int k = 0; k < model.n_drivers(); ++k) drivers[static_cast<std::size_t>(model.drivers[k].joint)].push_back(k);
  a.rows = model.n_rows;
  a.remainders.assign(static_cast<std::size_t>(model.n_rows), 0.0);
  for (int j = 0; j < model.n_joints(); ++j) {
    const int c0 = 6 * side[static_cast<std::size_t>(j)];
    std::vector<std::pair<int, const double*>> rows;  // (global row, its 12 Jacobian entries)
    for (int r = 0; r < d.rows[j].m; ++r) rows.emplace_back(model.joints[j].row_offset + r, d.rows[j].jac[r]);
    for (int k : drivers[static_cast<std::size_t>(j)])
      rows.emplace_back(model.drivers[k].row_offset, d.rows[model.n_joints() + k].jac[0]);
    Eigen::MatrixXd block(static_cast<Eigen::Index>(rows.size()), 6);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (int c = 0; c < 6; ++c) block(static_cast<Eigen::Index>(r), c) = rows[r].second[c0 + c];
    const ConstraintAnalysis local = analyse_jacobian(block);
    if (!local.redundant_rows.empty()) return false;
    for (std::size_t r = 0; r < rows.size(); ++r)
      a.remainders[static_cast<std::size_t>(rows[r].first)] = local.remainders[r];
  }
  a.rank = model.n_rows;
  a.dof = model.nv() - a.rank;
  return true;
}

}  // namespace

ConstraintAnalysis analyse_constraints(const Model& model, Data& d, const double* Y) {
  ConstraintAnalysis a;
  if (model.n_rows == 0) {
    a.dof = model.nv();
    return a;
  }
  set_kinematics(model, d, Y);
  evaluate_constraints(model, d, 0.0);
  // A mimic row couples two joints' bodies: Phi_q is no longer block triangular by joint.
  if (!has_closed_loop(model) && model.mimics.empty() && analyse_forest(model, d, a)) return a;
  return RowQR(sparse_jacobian(model, d)).analysis();
}

}  // namespace simphant
