// Large models bounded (docs/reliability.md, "Memory"; docs/solver.md, "Assembly"): a
// chain above kDenseAssemblyRows is assembled with the sparse normal equations, and the
// result is the minimum-norm correction the dense decomposition gives (checked against
// a dense complete orthogonal decomposition here); a forest's rank analysis is made joint
// by joint and agrees with the QR of the whole Phi_q; the memory the run and check of a
// 3000-body chain plan is that of its sparse matrices, not of dense m x 6N ones.
#include <gtest/gtest.h>

#include <Eigen/QR>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"
#include "chain_scenes.hpp"

namespace simphant {
namespace {

using test::chain_scene;

TEST(LargeChain, SparseAssemblyGivesTheMinimumNormCorrection) {
  // 250 bodies: 1250 rows, above kDenseAssemblyRows, and small enough for a dense check.
  const Model model = parse_scene(chain_scene(250)).model;
  ASSERT_TRUE(uses_sparse_assembly(model));
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  // Off the manifold: positions moved by up to 1 mm, velocities random.
  std::mt19937 g(3);
  std::uniform_real_distribution<double> U(-1, 1);
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k)
    for (int c = 0; c < 3; ++c) Y[7 * k + c] += 1e-3 * U(g);
  for (int i = 7 * N; i < 13 * N; ++i) Y[i] = U(g);
  const AssemblyResult res = assemble(model, d, Y.data());
  ASSERT_TRUE(res.ok) << res.message;
  EXPECT_LE(res.position_residual, model.solver.assembly_tolerance);
  EXPECT_LE(res.velocity_residual, 1e-10);
  // The velocity correction is the minimum-norm one: qdot = qdot_0 - Phi_q^+ Phi_q qdot_0
  // at the assembled positions (Phi_t = 0), with Phi_q^+ from a dense complete orthogonal
  // decomposition. Re-run the velocity projection on the random velocities to compare.
  std::vector<double> Y2 = Y;
  for (int i = 7 * N; i < 13 * N; ++i) Y2[i] = U(g);
  const Eigen::VectorXd qdot0 = Eigen::Map<const Eigen::VectorXd>(Y2.data() + 7 * N, 6 * N);
  ASSERT_TRUE(assemble(model, d, Y2.data()).ok);
  Data dense(model);
  set_kinematics(model, dense, Y2.data());
  evaluate_constraints(model, dense, 0.0);
  assemble_jacobian(model, dense);
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(1e-10);
  cod.compute(dense.Phi_q);
  const Eigen::VectorXd want = qdot0 - cod.solve(Eigen::VectorXd(dense.Phi_q * qdot0));
  const Eigen::VectorXd got = Eigen::Map<const Eigen::VectorXd>(Y2.data() + 7 * N, 6 * N);
  std::printf("  250-body chain: sparse assembly's velocities vs the dense minimum-norm projection: %.2e (|qdot| %.2e)\n",
              (got - want).cwiseAbs().maxCoeff(), want.cwiseAbs().maxCoeff());
  EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-10 * want.cwiseAbs().maxCoeff());
}

TEST(LargeChain, AForestIsAnalysedJointByJointAsTheWholeQrDoes) {
  // A tree: the chain with a branch, and a driver on one joint (6 rows on its body).
  nlohmann::json doc = nlohmann::json::parse(chain_scene(40));
  doc["bodies"].push_back({{"name", "branch"}, {"mass", 0.1}, {"inertia", {1e-5, 1e-4, 1e-4}},
                           {"position", {0.5, 0.0, -0.05}}});
  doc["joints"].push_back({{"name", "to_branch"}, {"type", "spherical"}, {"body_i", "b4"}, {"body_j", "branch"},
                           {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 0.0, 1.0}}, {"x", {1.0, 0.0, 0.0}}}}});
  doc["drivers"] = {{{"name", "d"},
                     {"joint", "j7"},
                     {"coordinate", "angle"},
                     {"law", {{"type", "constant_speed"}, {"initial", 0.0}, {"speed", 1.0}}}}};
  const Model model = parse_scene(doc.dump()).model;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  const ConstraintAnalysis forest = analyse_constraints(model, d, Y.data());
  assemble_jacobian(model, d);
  const ConstraintAnalysis whole = analyse_jacobian(d.Phi_q);
  EXPECT_EQ(forest.rank, whole.rank);
  EXPECT_EQ(forest.rank, model.n_rows);
  EXPECT_EQ(forest.dof, whole.dof);
  EXPECT_TRUE(forest.redundant_rows.empty());
  EXPECT_TRUE(whole.redundant_rows.empty());
}

TEST(LargeChain, ThreeThousandBodiesPlanSparseMemory) {
  // Dense, the run's assembly planned Phi_q and its decomposition (2 x 15000 x 18000
  // doubles, 4.3 GB) and check a dense C besides; the sparse path needs megabytes.
  const Scene scene = parse_scene(chain_scene(3000));
  ASSERT_TRUE(uses_sparse_assembly(scene.model));
  JobOptions o;
  o.instances = 1;
  o.threads = 1;
  o.backend = "cpu";
  const MemoryEstimate run = estimate_run_memory(scene, o), check = estimate_check_memory(scene);
  std::printf("  3000-body chain: run plans %s; check plans %s\n", run.describe().c_str(), check.describe().c_str());
  EXPECT_LT(run.total(), 200e6);
  EXPECT_LT(check.total(), 200e6);
}

}  // namespace
}  // namespace simphant
