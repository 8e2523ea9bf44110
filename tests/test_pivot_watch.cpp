// The rank watch (formulas/pivot_watch.hpp; docs/solver.md, "Rank watch"): the smallest
// relative pivot L_RR^2 / C_RR of every Schur factorisation against an independent
// Householder QR of the rows of Phi_q M^-1/2 taken in the factorisation's order; the
// flat passage of the parallelogram chain (1 to 40 cells) seen at the time the reduced
// Lagrangian gives; the batched paths (kernels/pivot_watch.hpp, run on the CPU over their
// whole grids) and cpu-simd against the CPU reference; and the run's warning and summary.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <Eigen/QR>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "parallelogram_chain.hpp"
#include "temp_dir.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/singular_passage_hint.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

std::vector<Model> chain_models(int cells, const char* projection = "none") {
  test::ParallelogramChain ch;
  ch.cells = cells;
  std::vector<Model> models{parse_scene(ch.scene(1e-3, 1.0, projection).dump()).model};
  set_removed_rows(models);
  set_auto_projection(models);
  return models;
}

/// The independent reference: the rows w_R of W = Phi_q M^-1/2 in the given order
/// (C_RR = |w_R|^2), each extended by sqrt(E_R) in a column of its own (E_R = eps C_RR, the
/// shift: the Gram matrix of the extended rows is C + E), a Householder QR of their
/// transpose, and min over the rows with C_RR > 0 of R_RR^2 / C_RR. R_RR^2 is the pivot of
/// C + E in that order (R^T R = C + E), and without the shift R_RR^2 / C_RR is the squared
/// sine of the angle between w_R and the span of the rows before it.
double qr_smallest_relative_pivot(const Model& model, const Eigen::MatrixXd& Phi_q, const std::vector<int>& order,
                                  double eps) {
  const int N = model.n_bodies();
  Eigen::MatrixXd Mih = Eigen::MatrixXd::Zero(6 * N, 6 * N);  // M^-1/2, block by block
  for (int k = 0; k < N; ++k) {
    const Body& b = model.bodies[k];
    Mih.block<3, 3>(6 * k, 6 * k).diagonal().setConstant(1.0 / std::sqrt(b.mass));
    Eigen::Matrix3d Ji;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Ji(i, j) = b.inertia_inv_B.m[i][j];
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(Ji);
    Mih.block<3, 3>(6 * k + 3, 6 * k + 3) = es.operatorSqrt();
  }
  std::vector<int> kept;
  for (int R : order)
    if (Phi_q.row(R).squaredNorm() > 0) kept.push_back(R);
  const int m = static_cast<int>(kept.size());
  Eigen::MatrixXd Wt = Eigen::MatrixXd::Zero(6 * N + m, m);
  std::vector<double> c_rr(m);
  for (int c = 0; c < m; ++c) {
    Wt.col(c).head(6 * N) = Mih * Phi_q.row(kept[c]).transpose();
    c_rr[c] = Wt.col(c).head(6 * N).squaredNorm();
    Wt(6 * N + c, c) = std::sqrt(eps * c_rr[c]);
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(Wt);
  const Eigen::MatrixXd R = qr.matrixQR().triangularView<Eigen::Upper>();
  double rho = no_schur_pivot<double>();
  for (int c = 0; c < m; ++c) rho = std::min(rho, R(c, c) * R(c, c) / c_rr[c]);
  return rho;
}

// At the assembled start of every example, of the chain near its flat configuration and
// at a state moved along its motion: the rank watch of one evaluation equals the QR's value
// with the rows in the factorisation's order (dense: row order; sparse: topology order)
// to 1e-9 of itself (measured up to 5.2e-11, Bricard; 4e-12 and below elsewhere: both are pivots of the same Gram matrix, C
// formed by the Schur build and by the QR of the extended rows); the shift matters here
// (without it in the reference the four-bar and Bricard differ by 3e-6 and 4e-5 of rho:
// eps over the small pivots of the rows before).
TEST(PivotWatch, EqualsTheQrOfTheMetricRowsInFactorisationOrder) {
  std::vector<std::pair<std::string, std::vector<Model>>> cases;
  for (const std::string& name : test::example_names()) {
    cases.emplace_back(name, test::example_models(name, 1));
  }
  cases.emplace_back("parallelogram_chain_2", chain_models(2));
  cases.emplace_back("parallelogram_chain_8", chain_models(8));
  int checked = 0;
  for (const auto& [name, models] : cases) {
    const Model& model = models.front();
    if (model.n_rows == 0) continue;
    for (SchurFactorization schur : {SchurFactorization::Dense, SchurFactorization::Sparse}) {
      Data d(model, schur);
      std::vector<double> Y(model.ny()), Yd(model.ny());
      initial_state(model, Y.data());
      ASSERT_TRUE(assemble(model, d, Y.data()).ok) << name;
      d.refinement = RefinementRecord{};
      ASSERT_TRUE(evaluate(model, d, 0.0, Y.data(), nullptr, Yd.data())) << name;
      const double rho = d.refinement.min_pivot;
      set_kinematics(model, d, Y.data());
      evaluate_constraints(model, d, 0.0);
      assemble_jacobian(model, d);
      std::vector<int> order;
      if (d.sparse_schur) {
        const SchurPatternView P = d.schur_pattern.view();
        for (int p = 0; p < P.n_joints; ++p)
          for (int r = 0; r < P.pos_rows[p]; ++r) order.push_back(P.pos_row0[p] + r);
      } else {
        for (int R = 0; R < model.n_rows; ++R) order.push_back(R);
      }
      const double ref = qr_smallest_relative_pivot(model, d.Phi_q, order, model.solver.tikhonov_epsilon);
      EXPECT_NEAR(rho, ref, 1e-9 * ref) << name << (d.sparse_schur ? " sparse" : " dense");
      EXPECT_EQ(d.refinement.min_pivot_time, 0.0);
      ++checked;
    }
  }
  EXPECT_GE(checked, 16);
}

/// The time [s] at which the reduced chain first reaches theta = 0 (RK4 at h = 1e-6 s,
/// linear between the steps around the crossing).
double first_flat_time(const test::ParallelogramChain& ch) {
  const double k = ch.weight_moment() / ch.inertia(), h = 1e-6;
  double th = ch.theta0(), w = ch.theta_dot0(), t = 0;
  const auto acc = [&](double x) { return -k * std::cos(x); };
  while (true) {
    const double a1 = acc(th), v1 = w;
    const double a2 = acc(th + 0.5 * h * v1), v2 = w + 0.5 * h * a1;
    const double a3 = acc(th + 0.5 * h * v2), v3 = w + 0.5 * h * a2;
    const double a4 = acc(th + h * v3), v4 = w + h * a3;
    const double next = th + h / 6 * (v1 + 2 * v2 + 2 * v3 + v4);
    w += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
    if (next >= 0) return t + h * (-th) / (next - th);
    th = next;
    t += h;
  }
}

// Every chain (1, 2, 8, 40 cells) run 0.4 s at dt = 1 ms without projection: the start
// hanging gives rho = 0.05 (0.9 theta^2 with theta = pi / 2 capped by the rows' own
// geometry), the watch falls below kSingularRelativePivot, and its time lies within one
// step of the reduced model's first flat passage (0.25 s).
TEST(PivotWatch, SeesTheFlatPassageOfEveryChain) {
  for (int cells : {1, 2, 8, 40}) {
    test::ParallelogramChain ch;
    ch.cells = cells;
    const std::vector<Model> models = chain_models(cells);
    const Model& model = models.front();
    Data d(model);
    std::vector<double> Y(model.ny());
    initial_state(model, Y.data());
    ASSERT_TRUE(assemble(model, d, Y.data()).ok);
    d.refinement = RefinementRecord{};
    const double dt = 1e-3;
    for (int s = 0; s < 400; ++s) ASSERT_TRUE(rk4_step(model, d, s * dt, Y.data(), nullptr, dt)) << cells << " " << s;
    const double t_flat = first_flat_time(ch);
    EXPECT_LT(d.refinement.min_pivot, kSingularRelativePivot) << cells;
    EXPECT_NEAR(d.refinement.min_pivot_time, t_flat, dt) << cells;
  }
}

// The batched paths, run over their whole grids on the CPU, record what the CPU reference
// records: the `cuda` path's dense factor against the dense CPU backend, the `cuda-fused`
// path's blocks against the sparse one, over the chain's first flat passage (300 steps,
// 2 cells, 2 instances); the smallest pivot to 1e-9 of itself plus 1e-14 (the factors
// agree to rounding, rho is formed from them) and its time exactly.
TEST(PivotWatch, BatchedPathsRecordWhatTheCpuReferenceRecords) {
  const int n = 2, steps = 300;
  const std::vector<Model> models = chain_models(2);
  for (bool fused : {false, true}) {
    const AssembledBatch asm_batch = assemble_batch(models, n, 1);
    test::HostBatch<double> hb(models, n, asm_batch, fused);
    test::CpuGridExec<double> x;
    for (int s = 0; s < steps; ++s) hb.rk4_step(x);
    CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1,
                   fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
    cpu.advance(steps);
    std::vector<RefinementRecord> rec(n);
    cpu.read_refinement(rec.data());
    for (int i = 0; i < n; ++i) {
      EXPECT_LT(rec[i].min_pivot, kSingularRelativePivot);
      EXPECT_NEAR(hb.pivot_min[i], rec[i].min_pivot, 1e-9 * rec[i].min_pivot + 1e-14) << (fused ? "fused" : "cuda");
      EXPECT_EQ(hb.pivot_min_time[i], rec[i].min_pivot_time) << (fused ? "fused" : "cuda");
    }
  }
}

// cpu-simd (its lanes, and a lane solved on its own) records what the cpu backend with the
// same topology-ordered factorisation records, 9 instances (a group of 8 and a padded one).
TEST(PivotWatch, CpuSimdRecordsWhatTheCpuBackendRecords) {
  const int n = 9, steps = 300;
  const auto models = std::make_shared<const std::vector<Model>>(chain_models(2));
  CpuBackend simd(models, n, 2, SchurFactorization::Sparse, true);
  CpuBackend cpu(models, n, 2, SchurFactorization::Sparse);
  simd.advance(steps);
  cpu.advance(steps);
  std::vector<RefinementRecord> a(n), b(n);
  simd.read_refinement(a.data());
  cpu.read_refinement(b.data());
  for (int i = 0; i < n; ++i) {
    EXPECT_LT(b[i].min_pivot, kSingularRelativePivot);
    EXPECT_NEAR(a[i].min_pivot, b[i].min_pivot, 1e-9 * b[i].min_pivot + 1e-14) << i;
    EXPECT_EQ(a[i].min_pivot_time, b[i].min_pivot_time) << i;
  }
}

JobResult run_scene(const std::string& text, const std::string& name, const std::string& backend = "cpu") {
  JobOptions o;
  o.scene = name + ".json";
  o.scene_text = text;
  o.threads = 1;
  o.backend = backend;
  o.checkpoint_every_s = 0;
  static const std::filesystem::path dir = test::make_process_temp_dir("pivot_watch");
  o.out = (dir / (name + ".h5")).string();
  return run_job(o, JobHooks{});
}

int count_warnings(const JobResult& r, const std::string& text) {
  int c = 0;
  for (const nlohmann::json& w : r.summary.at("warnings")) c += w.get<std::string>().find(text) != std::string::npos;
  return c;
}

// A run says where an instance passed near a singular configuration, and what carries it:
// the chain without projection (0.5 s, before it leaves its branch) gets a warning naming
// the instance, the time of the first flat passage and solver.projection:
// position_velocity; with that option one line says it held the passage; with the redundant
// rows kept (their pivots sit at the shift throughout) the watch does not tell, and says
// nothing; the double pendulum (a tree, rho 7.8e-4 at its lowest on this run) says nothing.
TEST(PivotWatch, TheRunNamesTheInstanceTheTimeAndTheOption) {
  test::ParallelogramChain ch;
  ch.cells = 2;
  const double t_flat = first_flat_time(ch);
  {
    const JobResult r = run_scene(ch.scene(1e-3, 0.5, "none").dump(), "chain_none");
    EXPECT_EQ(r.summary.at("singular_passage_instances"), 1);
    EXPECT_LT(r.summary.at("min_relative_pivot").get<double>(), kSingularRelativePivot);
    int found = 0;
    for (const nlohmann::json& w : r.summary.at("warnings")) {
      const std::string s = w.get<std::string>();
      if (s.find("instance 0 passed near a configuration where Phi_q loses rank at t = ") == std::string::npos) continue;
      ++found;
      const double t = std::stod(s.substr(s.find("at t = ") + 7));
      EXPECT_NEAR(t, t_flat, 1e-3);
      EXPECT_NE(s.find("solver.projection: position_velocity keeps it"), std::string::npos);
    }
    EXPECT_EQ(found, 1);
  }
  {
    const JobResult r = run_scene(ch.scene(1e-3, 0.5, "position_velocity").dump(), "chain_projected");
    EXPECT_EQ(r.summary.at("singular_passage_instances"), 1);
    EXPECT_EQ(count_warnings(r, "held it on the constraint manifold"), 1);
    EXPECT_EQ(count_warnings(r, "keeps it on the constraint manifold"), 0);
  }
  {
    nlohmann::json kept = ch.scene(1e-3, 0.2, "position_velocity");
    kept["solver"]["redundant_rows"] = "keep";
    const JobResult r = run_scene(kept.dump(), "chain_kept");
    EXPECT_EQ(r.summary.at("singular_passage_instances"), 0);
    EXPECT_LT(r.summary.at("min_relative_pivot").get<double>(), 1e-9);  // the kept rows' pivots
    EXPECT_EQ(count_warnings(r, "loses rank"), 0);
  }
  {
    std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/double_pendulum.json");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const JobResult r = run_scene(text, "double_pendulum");
    EXPECT_EQ(r.summary.at("singular_passage_instances"), 0);
    EXPECT_GT(r.summary.at("min_relative_pivot").get<double>(), 1e-4);
    EXPECT_EQ(count_warnings(r, "loses rank"), 0);
  }
}

// Which passages the warnings call held: position_velocity holds every one; auto those
// whose pivot fell below its auto_projection_pivot (it projected there), the others get
// the warning of a run without projection; a divergence under auto gets the hint too.
TEST(PivotWatch, WarningsSayWhichPassagesTheProjectionHeld) {
  Model m = chain_models(2, "auto").front();
  ASSERT_EQ(m.solver.projection, Projection::Auto);
  const std::vector<double> pivot = {5e-7, 0.01, 2e-7}, time = {0.25, 0.0, 0.57};
  m.solver.auto_projection_pivot = 1e-3;  // both passages projected
  std::vector<std::string> w = singular_passage_warnings(m, pivot, time);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("2 instances passed near"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("instance 2 at t = 0.57 s"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("solver.projection: auto held them"), std::string::npos) << w[0];
  m.solver.auto_projection_pivot = 3e-7;  // instance 2 projected, instance 0 not
  w = singular_passage_warnings(m, pivot, time);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("1 instance passed near"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("instance 0 passed near a configuration where Phi_q loses rank at t = 0.25 s"),
            std::string::npos) << w[1];
  EXPECT_NE(w[1].find("position_velocity keeps it"), std::string::npos) << w[1];
  m.solver.projection = Projection::PositionVelocity;
  w = singular_passage_warnings(m, pivot, time);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("position_velocity held them"), std::string::npos) << w[0];
  m.solver.projection = Projection::Auto;
  const std::string hint = singular_passage_hint(m, {2, 0, 0}, {kReasonRunaway, 0, 0}, {1.5, 0.0, 0.0});
  EXPECT_NE(hint.find("diverged with solver.projection auto"), std::string::npos) << hint;
  EXPECT_NE(hint.find("position_velocity keeps it"), std::string::npos) << hint;
}

}  // namespace
}  // namespace simphant
