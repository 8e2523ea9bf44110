// The fixed-size block kernels of the topology-ordered sparse Cholesky
// (formulas/sparse_cholesky.hpp) for every joint row count 1..6 and every pair of them:
// chains, trees, rings with fill and random topologies, in double and float against
// Eigen's dense LLT, and with T = Lanes<S, 8> (each lane its own matrix) equal bit for
// bit to the scalar factorisation and solve of each lane's matrix, at stride 1 and in a
// structure-of-arrays layout. The run-time row-count form that device code runs
// (kFixedBlockRows false) equals the fixed-size form bit for bit.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "simphant/math/lanes.hpp"
#include "simphant/formulas/sparse_cholesky.hpp"

namespace simphant {
namespace {

struct Topo {
  std::vector<int> joint_body, rows, row_offset;
  int m = 0, n_bodies = 0;
  void add(int bi, int bj, int r) {
    joint_body.push_back(bi);
    joint_body.push_back(bj);
    rows.push_back(r);
    row_offset.push_back(m);
    m += r;
    n_bodies = std::max({n_bodies, bi + 1, bj + 1});
  }
  int n_joints() const { return static_cast<int>(rows.size()); }
  SchurPattern pattern() const { return build_schur_pattern(n_joints(), 2, joint_body.data(), rows.data(), row_offset.data()); }
};

// The test topologies: for every r in 1..6 a chain of r-row joints; chains, a tree and
// rings (fill) whose joints take the row counts 1..6 in turn, so that every (block rows,
// update rows) pair occurs; and 300 random topologies (parallel joints, loops).
std::vector<Topo> topologies() {
  std::vector<Topo> out;
  for (int r = 1; r <= 6; ++r) {
    Topo t;
    for (int k = 0; k < 5; ++k) t.add(k - 1, k, r);
    out.push_back(t);
  }
  for (int shift = 0; shift < 6; ++shift) {
    Topo chain, tree, ring;
    for (int k = 0; k < 8; ++k) chain.add(k - 1, k, 1 + (k + shift) % 6);
    // Body 0 carries three branches of two links: the joints at body 0 form a clique.
    tree.add(-1, 0, 1 + shift);
    for (int br = 0; br < 3; ++br) {
      tree.add(0, 1 + 2 * br, 1 + (br + shift + 1) % 6);
      tree.add(1 + 2 * br, 2 + 2 * br, 1 + (br + shift + 3) % 6);
    }
    for (int k = 0; k < 5; ++k) ring.add(k, (k + 1) % 5, 1 + (k + shift) % 6);
    ring.add(-1, 0, 1 + (shift + 2) % 6);
    ring.add(1, 3, 1 + (shift + 4) % 6);
    out.push_back(chain);
    out.push_back(tree);
    out.push_back(ring);
  }
  std::mt19937 rng(11);
  for (int it = 0; it < 300; ++it) {
    const int n_bodies = 1 + static_cast<int>(rng() % 7), n_joints = 1 + static_cast<int>(rng() % 10);
    Topo t;
    for (int a = 0; a < n_joints; ++a) {
      int bi = static_cast<int>(rng() % (n_bodies + 1)) - 1, bj;
      do bj = static_cast<int>(rng() % (n_bodies + 1)) - 1;
      while (bj == bi);
      t.add(bi, bj, 1 + static_cast<int>(rng() % 6));
    }
    out.push_back(t);
  }
  return out;
}

// C = G G^T + shift I with G (m, 6 N) random in each joint's two bodies' columns.
Eigen::MatrixXd random_schur(const Topo& t, double shift, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(t.m, 6 * std::max(1, t.n_bodies));
  for (int a = 0; a < t.n_joints(); ++a)
    for (int s = 0; s < 2; ++s) {
      const int k = t.joint_body[2 * a + s];
      if (k < 0) continue;
      for (int r = 0; r < t.rows[a]; ++r)
        for (int c = 0; c < 6; ++c) G(t.row_offset[a] + r, 6 * k + c) = u(rng);
    }
  return G * G.transpose() + shift * Eigen::MatrixXd::Identity(t.m, t.m);
}

// The lower blocks of C in the pattern's value layout, value e at out[e * stride].
template <class T>
void to_blocks(const SchurPattern& P, const Eigen::MatrixXd& C, T* out, std::size_t stride) {
  for (int p = 0; p < P.n_joints; ++p)
    for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b];
      for (int r = 0; r < P.pos_rows[q]; ++r)
        for (int s = 0; s < P.pos_rows[p]; ++s)
          out[static_cast<std::size_t>(P.block_value[b] + r * P.pos_rows[p] + s) * stride] =
              static_cast<T>(C(P.pos_row0[q] + r, P.pos_row0[p] + s));
    }
}

// Every (block rows, update rows) pair of the diagonal updates and every block row count
// of the factorisation, so that each fixed-size kernel is exercised.
TEST(SparseCholeskyKernels, TopologiesCoverEveryBlockSizePair) {
  std::set<std::pair<int, int>> diag_updates, below_updates;
  std::set<int> below_solves;
  for (const Topo& t : topologies()) {
    const SchurPattern P = t.pattern();
    for (int b = 0; b < P.n_blocks(); ++b) {
      const int p = P.block_col[b], q = P.block_row[b];
      if (q != p) below_solves.insert(P.pos_rows[p]);
      for (int u = P.update_start[b]; u < P.update_start[b + 1]; ++u) {
        const int rc = P.pos_rows[P.block_col[P.update[2 * u]]];
        (q == p ? diag_updates : below_updates).insert({P.pos_rows[p], rc});
      }
    }
  }
  EXPECT_EQ(diag_updates.size(), 36u);
  EXPECT_EQ(below_updates.size(), 36u);
  EXPECT_EQ(below_solves.size(), 6u);
}

// In precision T, the sparse solve against Eigen's dense LLT in double. Both are backward
// stable (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Thm 10.4):
// the relative error of x is below about 4 m^(3/2) cond_2(C) u_T; the test bound is
// 4 m cond_2(C) u_T * sqrt(m) and the measured worst ratio to it is printed. L L^T
// reproduces C to 4 m u_T |C|_F likewise (the diagonal read back from its reciprocal).
template <class T>
void check_against_dense() {
  std::mt19937 rng(5);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  double worst_solve = 0, worst_factor = 0;
  for (const Topo& t : topologies()) {
    const SchurPattern P = t.pattern();
    const Eigen::MatrixXd C = random_schur(t, 0.5, rng);
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(t.m);
    const Eigen::VectorXd x_ref = C.llt().solve(rhs);
    const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(C).eigenvalues();
    const double cond = ev.maxCoeff() / ev.minCoeff();
    std::vector<T> L(P.n_values, T(0));
    to_blocks(P, C, L.data(), 1);
    ASSERT_TRUE(sparse_cholesky(P.view(), L.data(), 1));
    std::vector<T> x(t.m);
    for (int R = 0; R < t.m; ++R) x[R] = static_cast<T>(rhs[R]);
    sparse_solve(P.view(), static_cast<const T*>(L.data()), 1, x.data(), 1);
    double err = 0;
    for (int R = 0; R < t.m; ++R) err += (x[R] - x_ref[R]) * (x[R] - x_ref[R]);
    const double bound = 4.0 * t.m * std::sqrt(double(t.m)) * cond * u;
    worst_solve = std::max(worst_solve, std::sqrt(err) / x_ref.norm() / bound);
    Eigen::MatrixXd Ld = Eigen::MatrixXd::Zero(t.m, t.m);
    for (int p = 0; p < P.n_joints; ++p)
      for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
        const int q = P.block_row[b];
        for (int r = 0; r < P.pos_rows[q]; ++r)
          for (int s = 0; s < (q == p ? r + 1 : P.pos_rows[p]); ++s) {
            const double v = L[P.block_value[b] + r * P.pos_rows[p] + s];
            Ld(P.pos_row0[q] + r, P.pos_row0[p] + s) = q == p && r == s ? 1.0 / v : v;
          }
      }
    worst_factor = std::max(worst_factor, (Ld * Ld.transpose() - C).norm() / (4.0 * t.m * u * C.norm()));
  }
  std::printf("worst solve error / bound %.3g, worst |L L^T - C| / bound %.3g\n", worst_solve, worst_factor);
  EXPECT_LE(worst_solve, 1.0);
  EXPECT_LE(worst_factor, 1.0);
}

TEST(SparseCholeskyKernels, DoubleEqualsDenseLlt) { check_against_dense<double>(); }
TEST(SparseCholeskyKernels, FloatEqualsDenseLlt) { check_against_dense<float>(); }

// Lanes<S, 8>: lane l holds its own matrix and right-hand side; the factor and the
// solution equal, bit for bit, the scalar ones of each lane's matrix. Layout: instance
// (the group of lanes) 1 of 3 interleaved (stride 3), as the batched path reads it.
template <class S>
void check_lanes() {
  constexpr int W = 8;
  using V = Lanes<S, W>;
  std::mt19937 rng(9);
  const std::size_t n = 3, i = 1;
  int cases = 0;
  for (const Topo& t : topologies()) {
    if (++cases % 4) continue;  // every fourth topology: the fixed ones and 75 random
    const SchurPattern P = t.pattern();
    std::vector<V> L(P.n_values * n, V(S(0))), x(static_cast<std::size_t>(t.m) * n, V(S(0)));
    std::vector<std::vector<S>> L_s(W, std::vector<S>(P.n_values, S(0))), x_s(W, std::vector<S>(t.m));
    for (int l = 0; l < W; ++l) {
      to_blocks(P, random_schur(t, 0.5, rng), L_s[l].data(), 1);
      const Eigen::VectorXd rhs = Eigen::VectorXd::Random(t.m);
      for (int R = 0; R < t.m; ++R) x_s[l][R] = static_cast<S>(rhs[R]);
      for (int e = 0; e < P.n_values; ++e) L[e * n + i].set(l, L_s[l][e]);
      for (int R = 0; R < t.m; ++R) x[R * n + i].set(l, x_s[l][R]);
    }
    ASSERT_TRUE(sparse_cholesky(P.view(), L.data() + i, n));
    sparse_solve(P.view(), static_cast<const V*>(L.data() + i), n, x.data() + i, n);
    for (int l = 0; l < W; ++l) {
      ASSERT_TRUE(sparse_cholesky(P.view(), L_s[l].data(), 1));
      sparse_solve(P.view(), static_cast<const S*>(L_s[l].data()), 1, x_s[l].data(), 1);
      for (int e = 0; e < P.n_values; ++e)
        ASSERT_EQ(L[e * n + i][l], L_s[l][e]) << "lane " << l << " value " << e << " m = " << t.m;
      for (int R = 0; R < t.m; ++R) ASSERT_EQ(x[R * n + i][l], x_s[l][R]) << "lane " << l << " row " << R;
    }
  }
}

TEST(SparseCholeskyKernels, LanesOfDoubleEqualScalarPerLane) { check_lanes<double>(); }
TEST(SparseCholeskyKernels, LanesOfFloatEqualScalarPerLane) { check_lanes<float>(); }

// The run-time row-count form (device code's, sparse_cholesky<T, false>) performs the
// fixed-size kernels' operations in the same order: factor and solution equal bit for
// bit on every topology, and a rejected pivot is rejected by both.
template <class T>
void check_runtime_rows() {
  std::mt19937 rng(11);
  for (const Topo& t : topologies()) {
    const SchurPattern P = t.pattern();
    Eigen::MatrixXd C = random_schur(t, 0.5, rng);
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(t.m);
    std::vector<T> Lf(P.n_values, T(0)), Lr(P.n_values, T(0)), xf(t.m), xr(t.m);
    to_blocks(P, C, Lf.data(), 1);
    to_blocks(P, C, Lr.data(), 1);
    for (int R = 0; R < t.m; ++R) xf[R] = xr[R] = static_cast<T>(rhs[R]);
    ASSERT_TRUE((sparse_cholesky<T, true>(P.view(), Lf.data(), 1)));
    ASSERT_TRUE((sparse_cholesky<T, false>(P.view(), Lr.data(), 1)));
    sparse_solve<T, true>(P.view(), static_cast<const T*>(Lf.data()), 1, xf.data(), 1);
    sparse_solve<T, false>(P.view(), static_cast<const T*>(Lr.data()), 1, xr.data(), 1);
    for (int e = 0; e < P.n_values; ++e) ASSERT_EQ(Lf[e], Lr[e]) << "value " << e << " m = " << t.m;
    for (int R = 0; R < t.m; ++R) ASSERT_EQ(xf[R], xr[R]) << "row " << R << " m = " << t.m;
    C(t.m - 1, t.m - 1) = -1.0;  // the last pivot negative
    to_blocks(P, C, Lf.data(), 1);
    to_blocks(P, C, Lr.data(), 1);
    EXPECT_FALSE((sparse_cholesky<T, true>(P.view(), Lf.data(), 1)));
    EXPECT_FALSE((sparse_cholesky<T, false>(P.view(), Lr.data(), 1)));
  }
}

TEST(SparseCholeskyKernels, RuntimeRowCountsEqualFixedSizeDouble) { check_runtime_rows<double>(); }
TEST(SparseCholeskyKernels, RuntimeRowCountsEqualFixedSizeFloat) { check_runtime_rows<float>(); }

// One lane's matrix not positive definite, or one lane's pivot below its floor: the
// factorisation of the group is refused; with every lane's matrix fine it is accepted.
TEST(SparseCholeskyKernels, LanesRejectWhenAnyLaneFails) {
  using V = Lanes<double, 8>;
  std::mt19937 rng(4);
  Topo t;
  for (int k = 0; k < 4; ++k) t.add(k - 1, k, 1 + k);  // rows 1, 2, 3, 4
  const SchurPattern P = t.pattern();
  std::vector<Eigen::MatrixXd> C(8);
  for (auto& c : C) c = random_schur(t, 0.5, rng);
  auto blocks = [&](int bad_lane, double bad_value) {
    std::vector<V> L(P.n_values, V(0.0));
    for (int l = 0; l < 8; ++l) {
      Eigen::MatrixXd c = C[l];
      if (l == bad_lane) c(7, 7) = bad_value;
      std::vector<double> v(P.n_values, 0.0);
      to_blocks(P, c, v.data(), 1);
      for (int e = 0; e < P.n_values; ++e) L[e].set(l, v[e]);
    }
    return L;
  };
  std::vector<V> L = blocks(-1, 0);
  EXPECT_TRUE(sparse_cholesky(P.view(), L.data(), 1));
  L = blocks(5, -1.0);
  EXPECT_FALSE(sparse_cholesky(P.view(), L.data(), 1));
  L = blocks(2, std::nan(""));
  EXPECT_FALSE(sparse_cholesky(P.view(), L.data(), 1));
  // Row 7's pivot is at most C(7, 7); a floor above it in lane 6 only.
  std::vector<V> floor(t.m, V(0.0));
  floor[7].set(6, C[6](7, 7) * 1.01);
  L = blocks(-1, 0);
  EXPECT_FALSE(sparse_cholesky(P.view(), L.data(), 1, static_cast<const V*>(floor.data()), 1));
  floor[7].set(6, 0.0);
  L = blocks(-1, 0);
  EXPECT_TRUE(sparse_cholesky(P.view(), L.data(), 1, static_cast<const V*>(floor.data()), 1));
}

}  // namespace
}  // namespace simphant
