#pragma once
// The rank-revealing factorisation behind the constraint analysis
// (dynamics/constraint_analysis.hpp): a Householder QR of Phi_q^T whose columns, the rows
// of Phi_q, are taken in their own order and skipped when they depend on the rows kept
// before them (Golub and Van Loan, "Matrix Computations", 4th ed., section 5.2, with the
// rank decision of section 5.4 made row by row instead of by column pivoting).
//
// Sparse: a row of Phi_q touches only the coordinates of its joint's two bodies, so each row is reduced left-looking by the reflections that touch
// its nonzeros (in their order), and a new reflection acts only on the coordinates the
// reduced row touches that no earlier reflection has taken as its pivot (the row pivot of
// the reflection is the lowest such coordinate). The result is the QR of the dense
// method up to rounding, Phi_q_kept^T = Q R with Q = H_0 ... H_{r-1}, at a cost that
// follows the fill instead of m * r * 6N: a 1000-body closed chain in well under a second.
// The stop flag (core/stop_flag.hpp) is polled every 64 rows.
//
//   simphant::RowQR qr(sparse_jacobian(model, d));   // dynamics/sparse_jacobian.hpp
//   qr.analysis().redundant_rows;                    // rows that depend on earlier ones
//   Eigen::VectorXd dq = qr.min_norm_solution(-Phi);  // Phi_q_kept dq = -Phi_kept
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "simphant/dynamics/constraint_analysis.hpp"

namespace simphant {

class RowQR {
 public:
  /// Factorises Phi_q (m, n; rows with NaN or inf count as redundant). interruptible:
  /// throws Interrupted("constraint analysis") when a stop is requested during the work
  /// (false for a caller that polls the flag itself between factorisations: assembly).
  explicit RowQR(const Eigen::SparseMatrix<double, Eigen::RowMajor>& Phi_q, bool interruptible = true);

  /// Upper bound of the bytes the factorisation of an (m, n) Phi_q holds: its reflections
  /// and R (values, coordinates and the reflections by coordinate) hold at most the
  /// entries of a dense (m, n) factor; a mechanism's fill is far below.
  static double bytes_bound(double m, double n) { return 16 * m * n + 16 * m; }

  /// Rank, dof = n - rank, redundant rows and remainders (constraint_analysis.hpp).
  const ConstraintAnalysis& analysis() const { return analysis_; }

  /// (n) A fixed combination of an orthonormal basis of the null space of Phi_q (the
  /// columns of Q at the coordinates no reflection took as pivot), the k-th basis vector
  /// with weight (-1)^k / (1 + k); zero when the rank is n.
  Eigen::VectorXd null_space_combination() const;

  /// (n) The minimum-norm dq with Phi_q_kept dq = b_kept: b (m) is read at the kept rows
  /// only (a redundant row's equation holds when b is consistent with Phi_q).
  Eigen::VectorXd min_norm_solution(const Eigen::VectorXd& b) const;

  /// (m) The self-stress of redundant row k: mu with mu_k = 1, nonzero only at k and at
  /// kept rows before it, and Phi_q^T mu = 0 up to k's remainder.
  Eigen::VectorXd self_stress(int k) const;

 private:
  struct Reflector {
    std::vector<int> at;     ///< coordinates it acts on; at[0] is its pivot
    std::vector<double> v;   ///< Householder vector on them, v[0] = 1
    double tau = 0;
  };
  /// A reduced row on the kept rows' pivots: (kept index, value).
  using Coordinates = std::vector<std::pair<int, double>>;

  void apply_q(Eigen::VectorXd& x) const;  ///< x <- Q x

  int n_ = 0;
  ConstraintAnalysis analysis_;
  std::vector<Reflector> reflectors_;  ///< by kept index; tau = 0 where the row needed none
  std::vector<int> pivot_;             ///< by kept index: its pivot coordinate
  std::vector<int> kept_row_;          ///< by kept index: the row of Phi_q
  std::vector<Coordinates> r_;         ///< by kept index: column of R above and on the diagonal
  std::vector<Coordinates> redundant_; ///< by redundant index: the reduced row on the pivots
};

}  // namespace simphant
