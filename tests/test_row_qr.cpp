// The rank-revealing QR of the constraint rows (dynamics/row_qr.hpp) against independent
// dense references: on random Jacobians shaped like a mechanism's (each row on two bodies'
// 6 columns, dependent rows planted among them) the same kept and redundant rows and
// remainders as the dense Householder QR of Phi_q^T taken row by row; its null-space
// combination, minimum-norm solution and self-stresses against Phi_q itself and a dense
// complete orthogonal decomposition; the stop flag; and a 1000-body closed chain that
// the dense QR took minutes for.
#include <gtest/gtest.h>

#include <Eigen/Householder>
#include <Eigen/QR>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/job/check_scene.hpp"
#include "simphant/scene/scene.hpp"
#include "chain_scenes.hpp"

namespace simphant {
namespace {

using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The dense reference: Householder QR of Phi_q^T over all of its rows at every step, a
/// column skipped when its remainder is at most kConstraintRankTolerance times the
/// largest row norm (the method of constraint_analysis.hpp before the sparse one).
ConstraintAnalysis dense_reference(const Eigen::MatrixXd& Phi_q) {
  ConstraintAnalysis a;
  a.rows = static_cast<int>(Phi_q.rows());
  const Eigen::Index n = Phi_q.cols();
  double scale = 0;
  for (Eigen::Index k = 0; k < Phi_q.rows(); ++k) scale = std::max(scale, Phi_q.row(k).norm());
  Eigen::MatrixXd A = Phi_q.transpose();
  Eigen::VectorXd essential(n), workspace(a.rows);
  Eigen::Index r = 0;
  for (Eigen::Index k = 0; k < A.cols(); ++k) {
    const double remainder = r == n ? 0.0 : A.col(k).tail(n - r).norm();
    a.remainders.push_back(remainder / scale);
    if (!(remainder > kConstraintRankTolerance * scale)) {
      a.redundant_rows.push_back(static_cast<int>(k));
      continue;
    }
    double tau = 0, beta = 0;
    auto part = essential.head(n - r - 1);
    A.col(k).tail(n - r).makeHouseholder(part, tau, beta);
    if (k + 1 < A.cols()) A.bottomRightCorner(n - r, A.cols() - k - 1).applyHouseholderOnTheLeft(part, tau, workspace.data());
    ++r;
  }
  a.rank = static_cast<int>(r);
  a.dof = static_cast<int>(n - r);
  return a;
}

/// A Jacobian shaped like a mechanism's: `bodies` bodies (6 columns each), rows on two
/// random bodies each (or one: a joint to the ground), every fifth row a combination of
/// three earlier ones (a redundant row), m rows in all.
Eigen::MatrixXd random_jacobian(int bodies, int m, std::mt19937& g) {
  std::uniform_int_distribution<int> body(0, bodies - 1), pick(0, 4);
  std::normal_distribution<double> N(0, 1);
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(m, 6 * bodies);
  for (int k = 0; k < m; ++k) {
    if (k >= 5 && k % 5 == 4) {
      std::uniform_int_distribution<int> earlier(0, k - 1);
      for (int c = 0; c < 3; ++c) P.row(k) += N(g) * P.row(earlier(g));
      continue;
    }
    const int a = body(g), b = body(g);
    for (int c = 0; c < 6; ++c) {
      P(k, 6 * a + c) = N(g);
      if (pick(g) > 0) P(k, 6 * b + c) = N(g);
    }
  }
  return P;
}

TEST(RowQR, SameRowsAndRemaindersAsTheDenseQr) {
  std::mt19937 g(11);
  int redundant = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int bodies = 2 + trial % 9, m = 3 + (trial * 7) % (7 * bodies);
    const Eigen::MatrixXd P = random_jacobian(bodies, m, g);
    const ConstraintAnalysis ref = dense_reference(P);
    const ConstraintAnalysis got = RowQR(RowMajor(P.sparseView())).analysis();
    SCOPED_TRACE("trial " + std::to_string(trial));
    EXPECT_EQ(got.rank, ref.rank);
    EXPECT_EQ(got.dof, ref.dof);
    EXPECT_EQ(got.redundant_rows, ref.redundant_rows);
    ASSERT_EQ(got.remainders.size(), ref.remainders.size());
    // The same distances up to rounding: relative 1e-9 for the kept rows (well above the
    // 1e-14 of a few hundred reflections in fp64, well below any kept row's distance),
    // round-off for the redundant ones.
    for (std::size_t k = 0; k < got.remainders.size(); ++k) {
      if (ref.remainders[k] > 1e-6) {
        EXPECT_NEAR(got.remainders[k], ref.remainders[k], 1e-9 * ref.remainders[k]) << k;
      } else {
        EXPECT_LE(got.remainders[k], kConstraintRankTolerance) << k;
      }
    }
    redundant += static_cast<int>(ref.redundant_rows.size());
  }
  EXPECT_GT(redundant, 40);  // the planted rows, and rows past the column count
}

TEST(RowQR, NullSpaceMinimumNormSolutionAndSelfStresses) {
  std::mt19937 g(5);
  std::normal_distribution<double> N(0, 1);
  for (int trial = 0; trial < 20; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const int bodies = 3 + trial % 6, m = 4 + (trial * 5) % (6 * bodies);
    const Eigen::MatrixXd P = random_jacobian(bodies, m, g);
    const RowQR qr{RowMajor(P.sparseView())};
    const ConstraintAnalysis& a = qr.analysis();
    const double norm = P.norm();

    // The null-space combination: Phi_q z = 0, and |z|^2 = sum of the squared weights
    // (an orthonormal basis), one per degree of freedom.
    const Eigen::VectorXd z = qr.null_space_combination();
    double weights = 0;
    for (int k = 0; k < a.dof; ++k) weights += 1.0 / ((1.0 + k) * (1.0 + k));
    EXPECT_NEAR(z.squaredNorm(), weights, 1e-12 * std::max(1.0, weights));
    EXPECT_LE((P * z).norm(), 1e-12 * norm * std::max(1.0, z.norm()));

    // The minimum-norm solution of the kept rows: against a complete orthogonal
    // decomposition of those rows.
    std::vector<int> kept;
    for (int k = 0, r = 0; k < m; ++k) {
      if (r < static_cast<int>(a.redundant_rows.size()) && a.redundant_rows[static_cast<std::size_t>(r)] == k) {
        ++r;
      } else {
        kept.push_back(k);
      }
    }
    Eigen::MatrixXd K(static_cast<Eigen::Index>(kept.size()), P.cols());
    Eigen::VectorXd b(m), bk(K.rows());
    for (int k = 0; k < m; ++k) b[k] = N(g);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      K.row(static_cast<Eigen::Index>(i)) = P.row(kept[i]);
      bk[static_cast<Eigen::Index>(i)] = b[kept[i]];
    }
    const Eigen::VectorXd x = qr.min_norm_solution(b);
    const Eigen::VectorXd x_ref = K.completeOrthogonalDecomposition().solve(bk);
    EXPECT_LE((x - x_ref).norm(), 1e-9 * std::max(1.0, x_ref.norm()));
    EXPECT_LE((K * x - bk).norm(), 1e-9 * std::max(1.0, bk.norm()));

    // A self-stress per redundant row: Phi_q^T mu = 0, mu_k = 1, nothing at later rows or
    // at the other redundant rows.
    for (const int k : a.redundant_rows) {
      const Eigen::VectorXd mu = qr.self_stress(k);
      EXPECT_EQ(mu[k], 1.0);
      EXPECT_LE((P.transpose() * mu).norm(), 1e-9 * norm * mu.norm()) << k;
      for (int j = k + 1; j < m; ++j) EXPECT_EQ(mu[j], 0.0);
      for (const int other : a.redundant_rows)
        if (other != k) EXPECT_EQ(mu[other], 0.0);
    }
    EXPECT_EQ(qr.self_stress(kept.empty() ? 0 : kept.front()).norm(), kept.empty() ? 1.0 : 0.0);
  }
}

TEST(RowQR, AStopRequestEndsTheFactorisation) {
  std::mt19937 g(2);
  const RowMajor P = RowMajor(random_jacobian(20, 100, g).sparseView());
  request_stop();
  EXPECT_THROW(RowQR{P}, Interrupted);
  EXPECT_THROW(analyse_jacobian(Eigen::MatrixXd(P)), Interrupted);
  EXPECT_NO_THROW(RowQR(P, false));  // a caller that polls the flag itself
  clear_stop_request();
  EXPECT_EQ(RowQR(P).analysis().rank, RowQR(P, false).analysis().rank);
}

// A 1000-body closed chain (5005 rows, 6000 columns): `check` finds the closing joint's
// 4 redundant rows and the run's redundant-row search removes them (the dense QR of Phi_q^T
// and the SVD of the search took minutes and gigabytes for it).
TEST(RowQR, ThousandBodyClosedChain) {
  const Scene scene = parse_scene(test::chain_scene(1000, true));
  const nlohmann::json report = check_scene(scene);
  EXPECT_EQ(report.at("rank"), 5001);
  EXPECT_EQ(report.at("redundant_rows"), (std::vector<int>{5000, 5001, 5003, 5004}));
  const RedundantRowsFound found = find_redundant_rows(scene.model);
  EXPECT_EQ(found.rows, (std::vector<int>{5000, 5001, 5003, 5004}));
}

}  // namespace
}  // namespace simphant
