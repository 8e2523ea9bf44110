#pragma once
// Assembly: moves positions onto Phi(q) = 0 by Newton iterations with the minimum-norm
// correction dq = -Phi_q^+ Phi (complete orthogonal decomposition, so rank-deficient
// Phi_q such as Bricard's works), then projects velocities onto Phi_q qdot = 0 with the
// minimum-norm correction. Rotational corrections are body-frame rotation vectors
// applied as p <- p * exp(dtheta / 2).
#include "simphant/dynamics/data.hpp"
#include "simphant/sim/backend.hpp"

namespace simphant {

/// Assembles Y (13N) in place. Fails (ok = false) if max |Phi| does not reach
/// model.solver.assembly_tolerance within assembly_max_iterations, or on NaN.
AssemblyResult assemble(const Model& model, Data& d, double* Y);

/// Initial state Y (13N) from the bodies' initial values.
void initial_state(const Model& model, double* Y);

/// Rank analysis of Phi_q at Y: rank (SVD, relative threshold 1e-9 of the largest
/// singular value), dof = 6N - rank, redundant rows = rows that are linear
/// combinations of the rows before them.
struct ConstraintAnalysis {
  int rows = 0;
  int rank = 0;
  int dof = 0;
  std::vector<int> redundant_rows;
};
ConstraintAnalysis analyse_constraints(const Model& model, Data& d, const double* Y);

}  // namespace simphant
