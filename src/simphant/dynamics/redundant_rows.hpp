#pragma once
// Redundant constraint removal (docs/solver.md, "Redundant constraints"), as Adams and
// Chrono do it: at the assembled start of the first instance, the rank analysis of Phi_q
// (constraint_analysis.hpp: a Householder QR of Phi_q^T taking the rows in their order)
// names the joint rows that are combinations of the rows before them, confirmed at a
// second configuration moved along the free motion (a singular start has rows redundant
// there only), and the run takes each of them out of the solve (remove_rows,
// row_gamma_star in joints/joint_math.hpp; its Phi is still measured): its multiplier is
// then 0 and C = Phi_q M^-1 Phi_q^T has no null space left from the redundancy. Without removal the
// null-space share of an inconsistent right-hand side (Baumgarte terms off the manifold,
// round-off) is amplified by 1 / E and left to the refinement, which moves along it
// instead of converging (docs/solver.md measures Bricard).
// The kept rows fix the same motion: on the manifold the removed ones are implied by
// them (equal dimension), so positions, velocities and accelerations are unchanged; the
// removed rows' reactions are 0 in the output, and those loads are statically
// indeterminate (load_indeterminacy.hpp names them from the full Phi_q).
// Driver rows are never removed: a driver dependent on the joints over-determines the
// motion, and the run keeps it (and the regularised solve's minimum-norm answer).
#include <string>
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// The redundant joint rows of `model` (its removed_rows ignored) at its assembled
/// initial state and at a configuration moved from it along the free motion (both):
/// per constraint element the bits of Model::removed_rows, and the global
/// row indices in ascending order. Empty (no bit set) when the model has no redundant
/// joint row (a model whose joints form a tree has none: it is not analysed) or its start
/// does not assemble (the run reports that failure itself), or the moved one does not.
struct RedundantRowsFound {
  std::vector<int> mask;  ///< (n_constraints) bit r: row r of the element
  std::vector<int> rows;  ///< global rows of Phi, ascending
};
RedundantRowsFound find_redundant_rows(const Model& model);

/// Sets Model::removed_rows of every model from the first one's find_redundant_rows when
/// its solver.redundant_rows is remove, clears them when it is keep. Models without
/// constraint rows, and robot scenes run in joint coordinates, are left alone.
void set_removed_rows(std::vector<Model>& models);

/// "joint <name> row <r>" per removed row of `model` (Model::removed_rows), in row order.
std::vector<std::string> removed_row_names(const Model& model);

}  // namespace simphant
