// The topology-ordered block-sparse Schur factorisation (formulas/schur_pattern.hpp,
// formulas/sparse_cholesky.hpp): the symbolic analysis (no fill for chains and trees,
// the fill of a closed loop of joints, linear cost in the chain length), the numeric
// factorisation and solve against Eigen's dense LLT, and the CPU evaluation with the
// sparse path against the dense one on every example.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "example_models.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/sparse_cholesky.hpp"
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {
namespace {

// A topology as build_schur_pattern takes it: (body_i, body_j) and rows per joint.
struct Topo {
  std::vector<int> joint_body, rows, row_offset;
  int m = 0;
  void add(int bi, int bj, int r) {
    joint_body.push_back(bi);
    joint_body.push_back(bj);
    rows.push_back(r);
    row_offset.push_back(m);
    m += r;
  }
  int n_joints() const { return static_cast<int>(rows.size()); }
  SchurPattern pattern() const { return build_schur_pattern(n_joints(), 2, joint_body.data(), rows.data(), row_offset.data()); }
};

// N-link chain of revolute joints (5 rows), the first to the ground.
Topo chain(int N) {
  Topo t;
  for (int k = 0; k < N; ++k) t.add(k - 1, k, 5);
  return t;
}

// A random C with exactly the topology's coupling: C = G D G^T + eps I, G (m, 6 N) with
// random entries in each joint's two bodies' columns, D positive diagonal.
Eigen::MatrixXd random_schur(const Topo& t, int n_bodies, double eps, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(t.m, 6 * n_bodies);
  for (int a = 0; a < t.n_joints(); ++a)
    for (int s = 0; s < 2; ++s) {
      const int k = t.joint_body[2 * a + s];
      if (k < 0) continue;
      for (int r = 0; r < t.rows[a]; ++r)
        for (int c = 0; c < 6; ++c) G(t.row_offset[a] + r, 6 * k + c) = u(rng);
    }
  Eigen::VectorXd D(6 * n_bodies);
  for (int c = 0; c < D.size(); ++c) D[c] = 0.5 + 0.5 * (u(rng) + 1.0);
  return G * D.asDiagonal() * G.transpose() + eps * Eigen::MatrixXd::Identity(t.m, t.m);
}

// The lower blocks of C in the pattern's value layout.
std::vector<double> to_blocks(const SchurPattern& P, const Eigen::MatrixXd& C) {
  std::vector<double> v(P.n_values, 0.0);
  for (int p = 0; p < P.n_joints; ++p)
    for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b];
      for (int r = 0; r < P.pos_rows[q]; ++r)
        for (int s = 0; s < P.pos_rows[p]; ++s)
          v[P.block_value[b] + r * P.pos_rows[p] + s] = C(P.pos_row0[q] + r, P.pos_row0[p] + s);
    }
  return v;
}

// Entry (r, s) of the factor's block b (column p) as L holds it: sparse_cholesky keeps
// the reciprocals of the diagonal entries of the diagonal blocks.
double factor_entry(const SchurPattern& P, const std::vector<double>& L, int b, int r, int s) {
  const double v = L[P.block_value[b] + r * P.pos_rows[P.block_col[b]] + s];
  return P.block_row[b] == P.block_col[b] && r == s ? 1.0 / v : v;
}

TEST(SchurPattern, ChainsAndTreesHaveNoFillAndChainCostIsLinear) {
  for (int N : {1, 2, 4, 8, 16, 32}) {
    const SchurPattern P = chain(N).pattern();
    EXPECT_EQ(P.n_fill_blocks, 0) << N;
    EXPECT_EQ(P.n_blocks(), 2 * N - 1) << N;  // the diagonal and one neighbour per joint
    EXPECT_EQ(P.n_rows, 5 * N);
  }
  // Cost per joint is constant along a chain (the dense one grows as N^2).
  const double f16 = static_cast<double>(chain(16).pattern().factor_flops());
  const double f32 = static_cast<double>(chain(32).pattern().factor_flops());
  EXPECT_NEAR(f32 / f16, 2.0, 0.1);
  EXPECT_LT(chain(32).pattern().factor_flops() * 20, chain(32).pattern().dense_factor_flops());
  // A tree: body 0 on the ground carries three branches of three links each, and one
  // body with a weld (6 rows) and a spherical (3 rows).
  Topo tree;
  tree.add(-1, 0, 5);
  for (int br = 0; br < 3; ++br) {
    int parent = 0;
    for (int l = 0; l < 3; ++l) {
      const int body = 1 + 3 * br + l;
      tree.add(parent, body, l == 1 ? 6 : l == 2 ? 3 : 5);
      parent = body;
    }
  }
  const SchurPattern T = tree.pattern();
  EXPECT_EQ(T.n_fill_blocks, 0);
  // Joints 0, 1, 4, 7 share body 0: a clique of 4, 6 off-diagonal blocks; each branch
  // adds 2 more.
  EXPECT_EQ(T.n_blocks() - T.n_joints, 6 + 3 * 2);
}

TEST(SchurPattern, ClosedLoopOfJointsGetsFill) {
  // Four bodies in a ring (1-2, 2-3, 3-4, 4-1 between bodies) plus a joint to the
  // ground: a 4-cycle in the joint graph, which one fill block makes chordal.
  Topo ring;
  ring.add(-1, 0, 5);
  ring.add(0, 1, 5);
  ring.add(1, 2, 5);
  ring.add(2, 3, 5);
  ring.add(3, 0, 5);
  const SchurPattern P = ring.pattern();
  EXPECT_EQ(P.n_fill_blocks, 1);
  // Every block's position pair is lower (q >= p) and each column starts at its diagonal.
  for (int p = 0; p < P.n_joints; ++p) {
    EXPECT_EQ(P.block_row[P.col_start[p]], p);
    for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) EXPECT_GE(P.block_row[b], p);
  }
}

TEST(SchurPattern, BadTopologyIsRefused) {
  Topo t;
  t.add(-1, 0, 0);
  EXPECT_THROW(t.pattern(), std::invalid_argument);
  Topo u;
  u.add(-2, 0, 5);
  EXPECT_THROW(u.pattern(), std::invalid_argument);
}

// Numeric factorisation and solve against Eigen's dense LLT on random matrices with the
// pattern's structure. cond(C) stays below ~1e5 for these (eps = 1e-2 against entries of
// order 1), so the two backward-stable Choleskys agree to ~cond x 2^-52 ~ 1e-11 in the
// solution; the bound is 1e-10 relative to |x|. L L^T reproduces C to 1e-13 relative.
TEST(SparseCholesky, SolveEqualsDenseLltOnChainsTreesAndLoops) {
  std::mt19937 rng(42);
  std::vector<std::pair<Topo, int>> cases = {{chain(1), 1}, {chain(7), 7}, {chain(32), 32}};
  Topo ring;
  ring.add(-1, 0, 5);
  ring.add(0, 1, 3);
  ring.add(1, 2, 6);
  ring.add(2, 3, 4);
  ring.add(3, 0, 2);
  ring.add(1, 3, 1);
  cases.push_back({ring, 4});
  for (const auto& [topo, n_bodies] : cases) {
    const SchurPattern P = topo.pattern();
    const Eigen::MatrixXd C = random_schur(topo, n_bodies, 1e-2, rng);
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(topo.m);
    const Eigen::VectorXd x_dense = C.llt().solve(rhs);
    std::vector<double> L = to_blocks(P, C);
    ASSERT_TRUE(sparse_cholesky(P.view(), L.data(), 1));
    Eigen::VectorXd x = rhs;
    sparse_solve(P.view(), static_cast<const double*>(L.data()), 1, x.data(), 1);
    EXPECT_LE((x - x_dense).norm(), 1e-10 * x_dense.norm()) << "m = " << topo.m;
    // L L^T == C (both triangles of every block of the pattern; zero elsewhere).
    Eigen::MatrixXd Ld = Eigen::MatrixXd::Zero(topo.m, topo.m);
    for (int p = 0; p < P.n_joints; ++p)
      for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
        const int q = P.block_row[b];
        for (int r = 0; r < P.pos_rows[q]; ++r)
          for (int s = 0; s < (q == p ? r + 1 : P.pos_rows[p]); ++s)
            Ld(P.pos_row0[q] + r, P.pos_row0[p] + s) = factor_entry(P, L, b, r, s);
      }
    EXPECT_LE((Ld * Ld.transpose() - C).norm(), 1e-13 * C.norm()) << "m = " << topo.m;
  }
}

// Random topologies: 1-8 bodies, 1-12 joints of 1-6 rows between random pairs of bodies
// or the ground (parallel joints, ground-only joints and several loops included), row
// offsets in joint order or shuffled. The sparse solve equals Eigen's dense LLT of the
// same C (C = G G^T + 0.1 I, G random with each joint's rows in its two bodies'
// columns): cond(C) < ~1e4, so the two agree to ~1e-12; the bound is 1e-10.
TEST(SparseCholesky, RandomTopologiesEqualDenseLlt) {
  std::mt19937 rng(2026);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0;
  int fill_cases = 0;
  for (int it = 0; it < 2000; ++it) {
    const int n_bodies = 1 + static_cast<int>(rng() % 8), n_joints = 1 + static_cast<int>(rng() % 12);
    std::vector<int> joint_body(2 * n_joints), rows(n_joints), row_offset(n_joints), order(n_joints);
    for (int a = 0; a < n_joints; ++a) {
      int bi = static_cast<int>(rng() % (n_bodies + 1)) - 1, bj;
      do bj = static_cast<int>(rng() % (n_bodies + 1)) - 1;
      while (bj == bi);
      joint_body[2 * a] = bi;
      joint_body[2 * a + 1] = bj;
      rows[a] = 1 + static_cast<int>(rng() % 6);
      order[a] = a;
    }
    if (it % 2) std::shuffle(order.begin(), order.end(), rng);
    int m = 0;
    for (int a : order) {
      row_offset[a] = m;
      m += rows[a];
    }
    const SchurPattern P = build_schur_pattern(n_joints, 2, joint_body.data(), rows.data(), row_offset.data());
    fill_cases += P.n_fill_blocks > 0;
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(m, 6 * n_bodies);
    for (int a = 0; a < n_joints; ++a)
      for (int s = 0; s < 2; ++s) {
        const int k = joint_body[2 * a + s];
        if (k < 0) continue;
        for (int r = 0; r < rows[a]; ++r)
          for (int c = 0; c < 6; ++c) G(row_offset[a] + r, 6 * k + c) = u(rng);
      }
    const Eigen::MatrixXd C = G * G.transpose() + 0.1 * Eigen::MatrixXd::Identity(m, m);
    std::vector<double> L = to_blocks(P, C);
    ASSERT_TRUE(sparse_cholesky(P.view(), L.data(), 1)) << "case " << it;
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(m);
    Eigen::VectorXd x = rhs;
    sparse_solve(P.view(), static_cast<const double*>(L.data()), 1, x.data(), 1);
    const Eigen::VectorXd x_dense = C.llt().solve(rhs);
    worst = std::max(worst, (x - x_dense).norm() / x_dense.norm());
  }
  EXPECT_LE(worst, 1e-10);
  EXPECT_GT(fill_cases, 100) << "the random topologies should include loops that need fill";
}

// Structure of arrays: instance i of n interleaved (stride n) gives the same bits as
// alone (stride 1), the way the cuda-fused kernel reads its values.
TEST(SparseCholesky, StridedLayoutGivesTheSameBits) {
  std::mt19937 rng(7);
  const Topo topo = chain(5);
  const SchurPattern P = topo.pattern();
  const int n = 3;
  std::vector<std::vector<double>> alone;
  std::vector<double> soa(static_cast<std::size_t>(P.n_values) * n), x_soa(static_cast<std::size_t>(topo.m) * n);
  std::vector<Eigen::VectorXd> x_alone;
  for (int i = 0; i < n; ++i) {
    alone.push_back(to_blocks(P, random_schur(topo, 5, 1e-3, rng)));
    x_alone.push_back(Eigen::VectorXd::Random(topo.m));
    for (int e = 0; e < P.n_values; ++e) soa[static_cast<std::size_t>(e) * n + i] = alone[i][e];
    for (int r = 0; r < topo.m; ++r) x_soa[static_cast<std::size_t>(r) * n + i] = x_alone[i][r];
  }
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(sparse_cholesky(P.view(), alone[i].data(), 1));
    sparse_solve(P.view(), static_cast<const double*>(alone[i].data()), 1, x_alone[i].data(), 1);
    ASSERT_TRUE(sparse_cholesky(P.view(), soa.data() + i, n));
    sparse_solve(P.view(), static_cast<const double*>(soa.data() + i), n, x_soa.data() + i, n);
    for (int r = 0; r < topo.m; ++r) EXPECT_EQ(x_soa[static_cast<std::size_t>(r) * n + i], x_alone[i][r]);
  }
}

TEST(SparseCholesky, NotPositiveDefiniteIsReported) {
  std::mt19937 rng(3);
  const Topo topo = chain(4);
  const SchurPattern P = topo.pattern();
  Eigen::MatrixXd C = random_schur(topo, 4, 1e-3, rng);
  C(7, 7) = -1.0;
  std::vector<double> L = to_blocks(P, C);
  EXPECT_FALSE(sparse_cholesky(P.view(), L.data(), 1));
  C(7, 7) = std::nan("");
  L = to_blocks(P, C);
  EXPECT_FALSE(sparse_cholesky(P.view(), L.data(), 1));
}

// The CPU evaluation through the sparse path equals the dense path on every example
// (three sampled instances at their assembled states). Two Cholesky factorisations of
// the same C differ by about cond(C) 2^-52 relative. With independent rows cond(C) is
// modest and Ydot and lambda agree to 1e-12 relative to max(1, |value|). The closed loops
// built with redundant rows (four-bar, slider-crank, Bricard) have a C that is singular
// up to eps = 1e-10, cond ~ 1e10: lambda's component along the null direction is then
// determined to ~1e-6 only, and Phi_q^T lambda (what Ydot sees) cancels most of it;
// measured worst Ydot difference 1.3e-11 relative (Bricard; lambda 7e-3), bound 1e-10.
TEST(SparseSchurCpu, EvaluationEqualsDensePathOnEveryExample) {
  for (const std::string& name : test::example_names()) {
    const std::vector<Model> models = test::example_models(name, 3);
    const bool redundant =
        name == "four_bar" || name == "slider_crank" || name == "slider_crank_driven" || name == "bricard";
    double worst_ydot = 0, worst_lambda = 0;
    for (int i = 0; i < 3; ++i) {
      const Model& model = models[i];
      CpuBackend cpu(std::make_shared<const std::vector<Model>>(std::vector<Model>{model}), 1, 1);
      std::vector<double> Y(model.ny());
      cpu.read_states(Y.data());  // (1, N, 13) = [r, p, v, omega] per body
      std::vector<double> y(model.ny());
      const int N = model.n_bodies();
      for (int k = 0; k < N; ++k)
        for (int c = 0; c < 13; ++c) y[c < 7 ? 7 * k + c : 7 * N + 6 * k + c - 7] = Y[13 * k + c];
      Data dense(model, SchurFactorization::Dense), sparse(model, SchurFactorization::Sparse);
      ASSERT_FALSE(dense.sparse_schur);
      ASSERT_TRUE(sparse.sparse_schur);
      std::vector<double> yd_dense(model.ny()), yd_sparse(model.ny());
      ASSERT_TRUE(evaluate(model, dense, 0.0, y.data(), nullptr, yd_dense.data())) << name;
      ASSERT_TRUE(evaluate(model, sparse, 0.0, y.data(), nullptr, yd_sparse.data())) << name;
      for (int e = 0; e < model.ny(); ++e)
        worst_ydot = std::max(worst_ydot, std::fabs(yd_sparse[e] - yd_dense[e]) / std::max(1.0, std::fabs(yd_dense[e])));
      for (int R = 0; R < model.n_rows; ++R)
        worst_lambda = std::max(worst_lambda,
                                std::fabs(sparse.lambda[R] - dense.lambda[R]) / std::max(1.0, std::fabs(dense.lambda[R])));
    }
    EXPECT_LE(worst_ydot, redundant ? 1e-10 : 1e-12) << name;
    if (!redundant) {
      EXPECT_LE(worst_lambda, 1e-12) << name;
    }
    std::printf("%-20s worst relative difference: Ydot %.2e, lambda %.2e\n", name.c_str(), worst_ydot, worst_lambda);
  }
}

}  // namespace
}  // namespace simphant

namespace simphant {
namespace {

// Two correct factorisations of the same C (dense LLT, topology-ordered sparse) differ
// only in rounding; over 1000 RK4 steps that difference grows, most for the closed loops
// with redundant rows. This is the rounding sensitivity any other path (the GPU's FMA
// contraction, cuSOLVER's Cholesky) meets too, so the GPU tests' bounds are set from it
// (tests/test_cuda_backend.cpp). Relative to the instance's largest state entry,
// measured: <= 1.6e-15 for every example but Bricard, 4.4e-8 for Bricard (its C is
// singular up to eps = 1e-10); bounds 1e-12 and 1e-6. On the H200 the cuda and cuda-fused
// paths differed from the CPU by 3.3e-8 .. 5.4e-8 on Bricard, the same spread.
TEST(SparseSchurCpu, TrajectoriesAfter1000StepsDifferOnlyByRounding) {
  for (const std::string& name : test::example_names()) {
    const std::vector<Model> models = test::example_models(name, 3);
    auto shared = std::make_shared<const std::vector<Model>>(models);
    CpuBackend dense(shared, 3, 1, SchurFactorization::Dense), sparse(shared, 3, 1, SchurFactorization::Sparse);
    dense.advance(1000);
    sparse.advance(1000);
    const int per = models[0].n_bodies() * 13;
    std::vector<double> a(3 * per), b(3 * per);
    dense.read_states(a.data());
    sparse.read_states(b.data());
    double worst = 0;
    for (int i = 0; i < 3; ++i) {
      double err = 0, scale = 0;
      for (int e = 0; e < per; ++e) {
        err = std::max(err, std::fabs(a[i * per + e] - b[i * per + e]));
        scale = std::max(scale, std::fabs(a[i * per + e]));
      }
      worst = std::max(worst, err / scale);
    }
    EXPECT_LE(worst, name == "bricard" ? 1e-6 : 1e-12) << name;
  }
}

}  // namespace
}  // namespace simphant
