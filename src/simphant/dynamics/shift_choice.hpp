#pragma once
// The relative Tikhonov shift of a run (docs/solver.md, "The shift of a run"). The shift
// E_R = eps C_RR is relative to the diagonal of C = Phi_q M^-1 Phi_q^T, which a light
// body (a point-mass bob, a massless dummy link of 1e-12 kg m^2) makes huge on its rows:
// there eps C_RR can exceed a mode sigma of C that the other bodies set, and the
// refinement then contracts its error by only q = E / (sigma + E) per correction (a
// dummy link between two revolutes of an arm: q above 0.99 at eps = 1e-10, so no number
// of corrections converges and the run diverges). solver.tikhonov_epsilon is therefore
// the largest shift: at the first instance's initial state the run measures q (the
// ratio of the refinement's last two corrections on a right-hand side that excites every
// row) and, where q is above kShiftContraction, lowers eps in proportion, q / (1 - q)
// being E / sigma, to the power of ten at or below what gives that contraction, and
// measures again (at most kShiftRounds times, never below kMinShiftEpsilon). The output's
// root attribute tikhonov_epsilon is the shift the run used, so shards that chose
// differently (from their own first instances) are refused by `simphant merge`. Redundant rows are removed before
// (dynamics/redundant_rows.hpp), so a null space the shift must regularise is left only
// where the run keeps them (solver.redundant_rows: keep), and the contraction is measured
// in the norm of C, which does not see it; near a singular configuration reached later the pivot
// recovery (refined_solve.hpp) raises the shift again.
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// The contraction per refinement correction the chosen shift gives at the start: ten
/// corrections (the default solver.refinement_steps) then reach 1e-20, far below the
/// fp64 refinement tolerance, leaving room for the configuration to change q.
constexpr double kShiftContraction = 1e-2;

/// The smallest relative shift chosen: about 45 units in the last place of C's
/// diagonal, so that the pivot floor E_R / 2 stays above the round-off of a pivot.
constexpr double kMinShiftEpsilon = 1e-14;

/// Measurements of the contraction (the first with the scene's eps).
constexpr int kShiftRounds = 4;

/// The contraction q of the refinement at `model`'s initial state (initial_state, not
/// assembled) with relative shift eps: the ratio of the last two corrections of a refined
/// solve whose right-hand side is Phi_q a for body accelerations a of 1s and -1s. 0 for
/// a model without rows.
double shift_contraction(const Model& model, double eps);

/// The chosen shift of `model` (above) and the contraction measured with it.
struct ShiftChoice {
  double epsilon = 0;      ///< the run's relative shift (<= solver.tikhonov_epsilon)
  double contraction = 0;  ///< q measured with it
  double contraction_given = 0;  ///< q measured with solver.tikhonov_epsilon
};
ShiftChoice choose_shift(const Model& model);

/// Sets solver.tikhonov_epsilon of every model to choose_shift of the first one (after
/// set_removed_rows). Models without constraint rows, with eps = 0 or with
/// refinement_steps 0, and robot scenes run in joint coordinates, are left alone.
void set_run_shift(std::vector<Model>& models);

}  // namespace simphant
