#pragma once
// Rank analysis of the constraint Jacobian Phi_q (m, 6N) at one state, for
// `simphant check` (job/check_scene.hpp): its rank, the degrees of freedom 6N - rank and
// the redundant rows, i.e. the rows that are linear combinations of the rows before them.
//
// One factorisation (dynamics/row_qr.hpp): a Householder QR of Phi_q^T whose columns (the
// rows of Phi_q) are taken in their own order and skipped when dependent. Column k,
// reduced by the reflections of the columns kept before it, leaves a remainder whose norm
// is its distance to the span of those rows; row k is redundant when that distance is at
// most kConstraintRankTolerance times the largest row norm of Phi_q, else it is kept and
// its reflection reduces the columns after it. The rank is the number of rows kept. The
// reflections act only where the rows have nonzeros and fill, so a closed chain of 1000
// bodies takes well under a second (a dense QR, O(m * rank * 6N), took minutes); testing
// the rank of every prefix of rows with its own SVD would cost O(m^2 * 6N * m). A model
// without closed loops is analysed joint by joint instead (analyse_constraints), in O(N).
#include <vector>

#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Relative tolerance of the rank decision: a row whose distance to the span of the
/// rows before it is at most this times the largest row norm of Phi_q counts as
/// redundant. Exact dependencies of the examples leave remainders below 1e-14 of the
/// row scale and kept rows above 1e-2 (tests/test_constraint_analysis.cpp), so the
/// decision does not hinge on the value.
constexpr double kConstraintRankTolerance = 1e-9;

struct ConstraintAnalysis {
  int rows = 0;                     ///< m, rows of Phi
  int rank = 0;                     ///< rank of Phi_q = rows kept
  int dof = 0;                      ///< 6N - rank
  std::vector<int> redundant_rows;  ///< rows (0-based, ascending) that are combinations of earlier rows
  /// (m) each row's distance to the span of the rows kept before it, over the largest row
  /// norm of Phi_q: at most kConstraintRankTolerance for the redundant rows.
  std::vector<double> remainders;
};

/// Rank analysis of Phi_q at Y (13N, the state [q, qdot]). A model without constraint
/// rows gives rank 0 and dof 6N. A model whose joints form a forest (has_closed_loop
/// false) is analysed joint by joint, O(N): each joint's rows and its drivers' on the
/// columns of the body it adds (walking each tree from the ground); when each such block
/// has full row rank, Phi_q, block triangular in that order, has too (rank m, no
/// redundant rows; remainders: each row's within its block, over the block's largest row
/// norm). Otherwise (a closed loop, or a block that loses rank) the QR of the whole Phi_q
/// (dynamics/row_qr.hpp, on the sparse Phi_q). Either way d holds the evaluated rows
/// (d.rows) but not the dense Phi_q.
ConstraintAnalysis analyse_constraints(const Model& model, Data& d, const double* Y);

/// The analysis of a given Jacobian Phi_q (m, n): rank, dof = n - rank and redundant rows
/// as above. An all-zero Phi_q has rank 0 and every row redundant; a row holding NaN or
/// inf counts as redundant (no rank is claimed from it). Throws Interrupted when a stop
/// is requested during the factorisation (core/stop_flag.hpp; so does analyse_constraints).
ConstraintAnalysis analyse_jacobian(const Eigen::MatrixXd& Phi_q);

}  // namespace simphant
