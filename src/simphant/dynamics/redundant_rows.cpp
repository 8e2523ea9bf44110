#include "simphant/dynamics/redundant_rows.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/dynamics/sparse_jacobian.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {
namespace {

// The rows redundant at Y (assembled), as analyse_constraints finds them.
std::vector<int> redundant_at(const Model& model, Data& d, const double* Y) {
  return analyse_constraints(model, d, Y).redundant_rows;
}

// Moves the assembled positions Y (d.rows evaluated there) a finite step along the free
// motion, a fixed combination of an orthonormal basis of the null space of Phi_q
// (RowQR::null_space_combination) with its largest component kGenericStep [m | rad], and
// assembles again. Returns kNoMotion when the mechanism has
// no free motion (its rank cannot change along a motion it does not have), kMoved, or
// kFailed when the moved state does not assemble. A start in a singular configuration
// (a parallelogram's flat one) has rows that are redundant there only; at a nearby
// point of the motion they are not, so only the rows redundant at both are removed.
constexpr double kGenericStep = 1e-2;
enum class Moved { kNoMotion, kMoved, kFailed };
Moved move_along_free_motion(const Model& model, Data& d, double* Y) {
  const RowQR qr(sparse_jacobian(model, d));
  if (qr.analysis().rank >= model.nv()) return Moved::kNoMotion;
  Eigen::VectorXd dq = qr.null_space_combination();
  const double largest = dq.cwiseAbs().maxCoeff();
  if (!(largest > 0)) return Moved::kNoMotion;
  dq *= kGenericStep / largest;
  for (int k = 0; k < model.n_bodies(); ++k) apply_position_correction(Y, k, dq.data() + 6 * k);
  return assemble(model, d, Y).ok ? Moved::kMoved : Moved::kFailed;
}

}  // namespace

RedundantRowsFound find_redundant_rows(const Model& model) {
  RedundantRowsFound found;
  found.mask.assign(static_cast<std::size_t>(model.n_constraints()), 0);
  if (model.n_rows == 0 || !has_closed_loop(model)) return found;
  Model full = model;
  full.removed_rows.clear();
  Data d(full, SchurFactorization::Sparse);  // no Schur solve here: its factor stays empty
  std::vector<double> Y(static_cast<std::size_t>(full.ny()));
  initial_state(full, Y.data());
  if (!assemble(full, d, Y.data()).ok) return found;
  std::vector<int> rows = redundant_at(full, d, Y.data());
  if (rows.empty()) return found;
  // The second configuration: the joints' given coordinates (Joint::initial) would hold
  // assembly at the start, so they are dropped for it.
  Model free = full;
  for (Joint& j : free.joints) j.initial = JointInitial{};
  switch (move_along_free_motion(free, d, Y.data())) {
    case Moved::kNoMotion:
      break;
    case Moved::kMoved: {
      const std::vector<int> there = redundant_at(free, d, Y.data());
      std::vector<int> both;
      std::set_intersection(rows.begin(), rows.end(), there.begin(), there.end(), std::back_inserter(both));
      rows = std::move(both);
      break;
    }
    case Moved::kFailed:  // unconfirmed: every row kept (the regularised solve copes, and reports)
      rows.clear();
      break;
  }
  for (const int row : rows)
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
