#include "simphant/dynamics/redundant_rows.hpp"

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/state.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {
namespace {

// Whether some joint closes a loop in the graph of the bodies and ground (union-find): in
// a tree every joint constrains a new body, so its rows are independent of the others and
// the analysis (a QR of the m x 6N Phi_q) is skipped.
bool has_closed_loop(const Model& model) {
  std::vector<int> parent(static_cast<std::size_t>(model.n_bodies()) + 1);
  for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = static_cast<int>(k);
  const auto root = [&](int k) {
    while (parent[static_cast<std::size_t>(k)] != k) k = parent[static_cast<std::size_t>(k)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(k)])];
    return k;
  };
  const auto node = [&](int body) { return body < 0 ? model.n_bodies() : body; };  // ground: the last node
  for (const Joint& j : model.joints) {
    const int a = root(node(j.body_i)), b = root(node(j.body_j));
    if (a == b) return true;
    parent[static_cast<std::size_t>(a)] = b;
  }
  return false;
}

}  // namespace

RedundantRowsFound find_redundant_rows(const Model& model) {
  RedundantRowsFound found;
  found.mask.assign(static_cast<std::size_t>(model.n_constraints()), 0);
  if (model.n_rows == 0 || !has_closed_loop(model)) return found;
  Model full = model;
  full.removed_rows.clear();
  Data d(full, SchurFactorization::Dense);
  std::vector<double> Y(static_cast<std::size_t>(full.ny()));
  initial_state(full, Y.data());
  if (!assemble(full, d, Y.data()).ok) return found;
  const ConstraintAnalysis an = analyse_constraints(full, d, Y.data());
  for (const int row : an.redundant_rows)
    for (int a = 0; a < full.n_joints(); ++a) {
      const ConstraintElement e = full.constraint(a);
      if (row >= e.row_offset && row < e.row_offset + e.rows) {
        found.mask[static_cast<std::size_t>(a)] |= 1 << (row - e.row_offset);
        found.rows.push_back(row);
      }
    }
  return found;
}

void set_removed_rows(std::vector<Model>& models) {
  if (models.empty() || models.front().n_rows == 0) return;
  const Model& first = models.front();
  if (first.robot && first.robot->solver != RobotSolver::Dae) return;
  std::vector<int> mask;
  if (first.solver.redundant_rows == RedundantRows::Remove) {
    RedundantRowsFound found = find_redundant_rows(first);
    if (!found.rows.empty()) mask = std::move(found.mask);
  }
  for (Model& m : models) m.removed_rows = mask;
}

std::vector<std::string> removed_row_names(const Model& model) {
  std::vector<std::string> names;
  for (int a = 0; a < model.n_joints(); ++a)
    for (int r = 0; r < model.constraint(a).rows; ++r)
      if (model.removed_mask(a) & (1 << r))
        names.push_back("joint " + model.joints[static_cast<std::size_t>(a)].name + " row " + std::to_string(r));
  return names;
}

}  // namespace simphant
