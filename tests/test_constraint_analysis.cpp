// The rank analysis of `simphant check` (dynamics/constraint_analysis.hpp): one QR of
// Phi_q^T gives the rank and the same redundant rows as testing the rank of every prefix
// of rows with its own SVD (the earlier method, kept here as the reference) on every
// example scene; hand-made Jacobians; and a 200-body chain, which that method took
// minutes for.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <Eigen/SVD>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "simphant/bench/bench_models.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/bdf_support.hpp"

namespace fs = std::filesystem;
using namespace simphant;

namespace {

/// Rank with the SVD, relative threshold 1e-9 of the largest singular value.
int svd_rank(const Eigen::MatrixXd& A) {
  if (A.size() == 0) return 0;  // no rows (a scene of free bodies): Eigen's SVD needs entries
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A);
  const auto& s = svd.singularValues();
  if (s.size() == 0 || s[0] == 0.0) return 0;
  int r = 0;
  for (int i = 0; i < s.size(); ++i) r += s[i] > 1e-9 * s[0];
  return r;
}

/// The earlier analysis: row r is redundant when the first r + 1 rows have the rank of
/// the first r (one SVD per prefix).
std::vector<int> prefix_svd_redundant_rows(const Eigen::MatrixXd& Phi_q) {
  std::vector<int> redundant;
  int previous = 0;
  for (int r = 0; r < Phi_q.rows(); ++r) {
    const int rank = svd_rank(Phi_q.topRows(r + 1));
    if (rank == previous) redundant.push_back(r);
    previous = rank;
  }
  return redundant;
}

/// Whether a scene file names the bdf integrator (refused at load without SUNDIALS).
bool uses_bdf(const fs::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("\"integrator\": \"bdf\"") != std::string::npos;
}

/// Every examples/*.json (a bdf scene only in a build with SUNDIALS).
std::vector<fs::path> example_scenes() {
  std::vector<fs::path> scenes;
  for (const auto& e : fs::directory_iterator(fs::path(SIMPHANT_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".json" && (bdf_available() || !uses_bdf(e.path()))) scenes.push_back(e.path());
  return scenes;
}

}  // namespace

// Every example, at its assembled state (what `simphant check` analyses): the same rank,
// dof and redundant rows as the prefix SVDs, and a clear margin on both sides of the
// tolerance.
TEST(ConstraintAnalysis, SameAsPrefixSvdOnEveryExample) {
  const std::vector<fs::path> scenes = example_scenes();
  ASSERT_GE(scenes.size(), 10u);
  int with_redundant_rows = 0;
  for (const fs::path& file : scenes) {
    SCOPED_TRACE(file.filename().string());
    const Model model = load_scene(file.string()).model;
    Data d(model);
    std::vector<double> Y(static_cast<std::size_t>(model.ny()));
    initial_state(model, Y.data());
    ASSERT_TRUE(assemble(model, d, Y.data()).ok);
    const ConstraintAnalysis a = analyse_constraints(model, d, Y.data());
    const std::vector<int> expected = prefix_svd_redundant_rows(d.Phi_q);
    EXPECT_EQ(a.rows, model.n_rows);
    EXPECT_EQ(a.redundant_rows, expected);
    EXPECT_EQ(a.rank, svd_rank(d.Phi_q));
    EXPECT_EQ(a.dof, model.nv() - a.rank);
    with_redundant_rows += !expected.empty();
    // Margins: a redundant row's remainder is round-off, a kept row's is far above it.
    ASSERT_EQ(a.remainders.size(), static_cast<std::size_t>(a.rows));
    std::size_t next_redundant = 0;
    for (int r = 0; r < a.rows; ++r) {
      const bool redundant = next_redundant < a.redundant_rows.size() && a.redundant_rows[next_redundant] == r;
      next_redundant += redundant;
      if (redundant) {
        EXPECT_LT(a.remainders[r], 1e-13) << "row " << r;
      } else {
        EXPECT_GT(a.remainders[r], 1e-3) << "row " << r;
      }
    }
  }
  EXPECT_GE(with_redundant_rows, 3);  // four-bar, slider-crank, Bricard
}

// A 20-body chain closed back to the ground by a second hinge at its tip: a loop whose
// redundant rows sit deep in a long Jacobian (105 rows), as the prefix SVDs find them.
TEST(ConstraintAnalysis, ClosedChainSameAsPrefixSvd) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  const int N = 20;
  for (int k = 0; k < N; ++k) {
    bodies.push_back({{"name", "b" + std::to_string(k)}, {"mass", 1.0}, {"inertia", {1e-4, 1e-3, 1e-3}},
                      {"position", {(k + 0.5) * 0.1, 0, 0}}});
    joints.push_back({{"name", "j" + std::to_string(k)}, {"type", "revolute"},
                      {"body_i", k == 0 ? std::string("ground") : "b" + std::to_string(k - 1)},
                      {"body_j", "b" + std::to_string(k)},
                      {"frame", {{"origin", {k * 0.1, 0, 0}}, {"z", {0, 1, 0}}, {"x", {1, 0, 0}}}}});
  }
  joints.push_back({{"name", "tip"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "b" + std::to_string(N - 1)},
                    {"frame", {{"origin", {N * 0.1, 0, 0}}, {"z", {0, 1, 0}}, {"x", {1, 0, 0}}}}});
  const nlohmann::json doc = {{"bodies", bodies}, {"joints", joints}, {"solver", {{"dt", 0.001}, {"t_end", 0.01}}}};
  const Model model = parse_scene(doc.dump()).model;
  Data d(model);
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  const ConstraintAnalysis a = analyse_constraints(model, d, Y.data());
  EXPECT_EQ(a.rows, 5 * (N + 1));
  EXPECT_EQ(a.redundant_rows, prefix_svd_redundant_rows(d.Phi_q));
  EXPECT_EQ(a.rank, svd_rank(d.Phi_q));
  // A planar loop of hinges repeats 3 rows; stretched straight (a singular pose) one more.
  EXPECT_EQ(a.redundant_rows.size(), 4u);
}

// The examples' known figures (README "Command line", docs/scene-format.md).
TEST(ConstraintAnalysis, KnownMechanisms) {
  struct Known {
    const char* scene;
    int rows, rank, dof;
    std::vector<int> redundant;
  };
  for (const Known& k : {Known{"four_bar.json", 20, 17, 1, {16, 18, 19}}, Known{"slider_crank.json", 20, 17, 1, {16, 17, 19}},
                         Known{"bricard.json", 30, 29, 1, {29}}, Known{"pendulum.json", 5, 5, 1, {}}}) {
    SCOPED_TRACE(k.scene);
    const Model model = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + k.scene).model;
    Data d(model);
    std::vector<double> Y(static_cast<std::size_t>(model.ny()));
    initial_state(model, Y.data());
    ASSERT_TRUE(assemble(model, d, Y.data()).ok);
    const ConstraintAnalysis a = analyse_constraints(model, d, Y.data());
    EXPECT_EQ(a.rows, k.rows);
    EXPECT_EQ(a.rank, k.rank);
    EXPECT_EQ(a.dof, k.dof);
    EXPECT_EQ(a.redundant_rows, k.redundant);
  }
}

TEST(ConstraintAnalysis, HandMadeJacobians) {
  Eigen::MatrixXd A(5, 4);
  A << 1, 0, 0, 0,   //
      0, 2, 0, 0,    //
      1, 2, 0, 0,    // row 0 + row 1
      0, 0, 0, 0,    // zero
      0, 0, 3, 1e-3;
  ConstraintAnalysis a = analyse_jacobian(A);
  EXPECT_EQ(a.rank, 3);
  EXPECT_EQ(a.dof, 1);
  EXPECT_EQ(a.redundant_rows, (std::vector<int>{2, 3}));
  EXPECT_EQ(a.redundant_rows, prefix_svd_redundant_rows(A));
  // More rows than columns: every row after the span is full is redundant.
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(4, 2);
  B(2, 0) = 1;
  B(3, 1) = 1;
  a = analyse_jacobian(B);
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.redundant_rows, (std::vector<int>{2, 3}));
  // All zero: rank 0, every row redundant. No rows: rank 0, dof n.
  a = analyse_jacobian(Eigen::MatrixXd::Zero(3, 6));
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.dof, 6);
  EXPECT_EQ(a.redundant_rows, (std::vector<int>{0, 1, 2}));
  a = analyse_jacobian(Eigen::MatrixXd(0, 6));
  EXPECT_EQ(a.rank, 0);
  EXPECT_EQ(a.dof, 6);
  EXPECT_TRUE(a.redundant_rows.empty());
  // A row holding NaN is redundant (no rank claimed from it); the others count as usual.
  Eigen::MatrixXd C = Eigen::MatrixXd::Identity(3, 3);
  C(1, 1) = std::numeric_limits<double>::quiet_NaN();
  a = analyse_jacobian(C);
  EXPECT_EQ(a.rank, 2);
  EXPECT_EQ(a.redundant_rows, (std::vector<int>{1}));
  // A dependent row scaled far below the others is still found (the tolerance is
  // relative to the largest row, not to the row itself).
  Eigen::MatrixXd D(3, 3);
  D << 1e6, 0, 0,  //
      0, 1, 0,     //
      1e-3, 1e-9, 0;  // 1e-9 x row 0 + 1e-9 x row 1
  a = analyse_jacobian(D);
  EXPECT_EQ(a.redundant_rows, (std::vector<int>{2}));
}

// A 200-body chain (1000 rows, 1200 columns): the analysis is one QR, which the
// per-prefix SVDs (one per row, each of up to 1000 x 1200) made a matter of minutes.
// The bound is generous against a loaded machine; it fails on a per-prefix method.
TEST(ConstraintAnalysis, LargeChainInOneFactorisation) {
  const Model model = bench::chain_model(200);
  Data d(model, SchurFactorization::Sparse);
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  const auto t0 = std::chrono::steady_clock::now();
  const ConstraintAnalysis a = analyse_constraints(model, d, Y.data());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(a.rows, 1000);
  EXPECT_EQ(a.rank, 1000);
  EXPECT_EQ(a.dof, 200);
  EXPECT_TRUE(a.redundant_rows.empty());
  EXPECT_LT(seconds, 20.0);
  std::printf("chain_200: rows %d, rank %d, analysed in %.3f s\n", a.rows, a.rank, seconds);
}
