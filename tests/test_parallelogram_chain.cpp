// A chain of parallelogram cells swinging through the configuration where every link
// lies flat (Phi_q loses rank there; tests/parallelogram_chain.hpp), against its reduced
// one-degree-of-freedom Lagrangian integrated independently: the energy and the driving
// rocker's angle after 20 s, with and without the projection onto the constraint
// manifold (docs/solver.md, Projection onto the constraint manifold).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "parallelogram_chain.hpp"
#include "temp_dir.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/job/singular_passage_hint.hpp"
#include "simphant/scene/scene.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

struct ChainRun {
  bool ok = true;                 ///< every step succeeded
  double energy_error = 0;        ///< max over the run of |E - E0| / (peak kinetic energy)
  double angle_error = 0;         ///< |theta(t_end) - theta_ref(t_end)| [rad]
  double max_violation = 0;       ///< max over the run of max |Phi|
  int flat_passages = 0;          ///< times the driving rocker crossed theta = 0 or -pi
  long projected_steps = 0;       ///< auto: the steps that projected
};

/// as_run: the model as a run makes it (Simulator::create): redundant rows removed
/// (set_removed_rows) and auto resolved (set_auto_projection); else the scene's model.
ChainRun run_chain(const test::ParallelogramChain& ch, double dt, double t_end, const char* projection,
                   const nlohmann::json& solver = nlohmann::json::object(), bool as_run = false) {
  nlohmann::json doc = ch.scene(dt, t_end, projection);
  doc["solver"].update(solver);
  std::vector<Model> models{parse_scene(doc.dump()).model};
  if (as_run) {
    set_removed_rows(models);
    set_auto_projection(models);
  }
  const Model& model = models.front();
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  EXPECT_TRUE(assemble(model, d, Y.data()).ok);
  set_kinematics(model, d, Y.data());
  const double E0 = total_energy(model, d);
  EXPECT_NEAR(E0, ch.energy(ch.theta0(), ch.theta_dot0()), 1e-12 * std::abs(E0));
  const double scale = ch.energy(ch.theta0(), ch.theta_dot0()) - ch.energy(ch.theta0(), 0.0);  // peak kinetic energy
  const int rocker = model.body_index("rocker0");
  auto angle = [&]() { return std::atan2(Y[7 * rocker + 2], Y[7 * rocker + 0]); };  // pivot at the origin
  double prev = angle(), theta = ch.theta0();
  ChainRun res;
  const long n = std::lround(t_end / dt);
  for (long s = 0; s < n; ++s) {
    if (!rk4_step(model, d, static_cast<double>(s) * dt, Y.data(), nullptr, dt)) {
      res.ok = false;
      break;
    }
    // A step of auto projected when its factorisations before the projection fell below
    // the pivot; the projection's own solves come after, so the step's smallest tells.
    res.projected_steps += model.solver.projection == Projection::Auto &&
                           d.step_pivot < model.solver.auto_projection_pivot;
    set_kinematics(model, d, Y.data());
    evaluate_constraints(model, d, 0.0);
    res.max_violation = std::max(res.max_violation, max_violation(d));
    res.energy_error = std::max(res.energy_error, std::abs(total_energy(model, d) - E0) / scale);
    const double a = angle();
    const double next = theta + test::angle_step(prev, a);
    // Flat: theta crosses 0 or -pi (theta stays in (-3 pi / 2, pi / 2) on this swing).
    if ((theta < 0) != (next < 0) || (theta < -M_PI) != (next < -M_PI)) ++res.flat_passages;
    theta = next;
    prev = a;
  }
  const double ref = test::reduced_chain_solution(ch, t_end, 1e-5).first;
  res.angle_error = std::abs(theta - ref);
  return res;
}

// The reference itself: RK4 at h = 1e-5 and 2e-5 agree to 1e-11 rad after 20 s (its
// error is below 1e-12 rad), and it conserves the reduced energy to 1e-12 of the peak
// kinetic energy (rounding over 2e6 steps; measured 3.7e-13 and 1.9e-12 of |E0|).
TEST(ParallelogramChain, ReducedReferenceIsConverged) {
  for (int cells : {1, 40}) {
    test::ParallelogramChain ch;
    ch.cells = cells;
    const auto fine = test::reduced_chain_solution(ch, 20.0, 1e-5);
    const auto coarse = test::reduced_chain_solution(ch, 20.0, 2e-5);
    EXPECT_LE(std::abs(fine.first - coarse.first), 1e-11) << cells;
    const double E0 = ch.energy(ch.theta0(), ch.theta_dot0());
    const double peak_kinetic = ch.energy(ch.theta0(), ch.theta_dot0()) - ch.energy(ch.theta0(), 0.0);
    EXPECT_LE(std::abs(ch.energy(fine.first, fine.second) - E0), 1e-12 * peak_kinetic) << cells;
  }
}

// (cells, t_end [s], energy bound, angle bound [rad]) at dt = 1 ms with
// position_velocity. Measured 2026-12-01 (energy relative to the peak kinetic energy, the
// driving rocker's angle against the reduced solution):
//   N = 1, 20 s: 2.2e-10, 6.8e-9;  N = 2, 20 s: 1.6e-10, 5.4e-9;
//   N = 8, 20 s: 1.8e-10, 9.5e-10; N = 40, 3 s: 1.6e-10, 2.4e-10.
// The angle error is the energy error's phase drift: an energy offset of 1e-9 of the peak
// kinetic energy moves theta(20 s) by 4.4e-8 rad (N = 1), 5.4e-8 (N = 2) and 9e-9 (N = 8)
// in the reduced model. Without the projection of the RK4 stage states' velocities
// (project_stage_state) steps whose stages land within about 1e-5 rad of the flat
// configuration changed the energy at once, the stage states' velocity residual amplified
// through the near-singular Schur matrix (docs/solver.md, Projection onto the constraint
// manifold): N = 1: 5.1e-9, 1.0e-7 rad; N = 2: 5.2e-9, 1.4e-7; N = 8: 3.4e-5, 5.9e-5;
// N = 40: 8.1e-9, 1.2e-8, so these bounds fail without it. The bounds are the targets
// (1e-8 and 1e-8 rad) where the measured value is within a factor of 2 of them, else the
// measured value with a factor of 3 to 5.
struct ChainCase {
  int cells;
  double t_end, energy_bound, angle_bound;
};

class ParallelogramChainCells : public ::testing::TestWithParam<ChainCase> {};

TEST_P(ParallelogramChainCells, ProjectedRunFollowsTheReducedSolution) {
  const ChainCase c = GetParam();
  test::ParallelogramChain ch;
  ch.cells = c.cells;
  const ChainRun r = run_chain(ch, 1e-3, c.t_end, "position_velocity");
  EXPECT_TRUE(r.ok);
  EXPECT_GE(r.flat_passages, 2);
  EXPECT_LE(r.max_violation, 1e-13);
  EXPECT_LE(r.energy_error, c.energy_bound);
  EXPECT_LE(r.angle_error, c.angle_bound);
  std::printf("N = %d, %.0f s: energy %.3g, angle %.3g rad, max |Phi| %.3g, %d flat passages\n", c.cells, c.t_end,
              r.energy_error, r.angle_error, r.max_violation, r.flat_passages);
}

INSTANTIATE_TEST_SUITE_P(Cells, ParallelogramChainCells,
                         ::testing::Values(ChainCase{1, 20.0, 1e-9, 1e-8}, ChainCase{2, 20.0, 5e-10, 1e-8},
                                           ChainCase{8, 20.0, 5e-10, 5e-9}, ChainCase{40, 3.0, 5e-10, 1e-9}),
                         [](const ::testing::TestParamInfo<ChainCase>& p) {
                           return "N" + std::to_string(p.param.cells);
                         });

// solver.projection auto, the default (dynamics/auto_projection.hpp), with the model as
// a run makes it: the steps near a flat passage project (position_velocity), the others
// not. Every chain passes every flat configuration at dt = 1 ms and follows the reduced
// solution; measured (energy relative to the peak kinetic energy, the driving rocker's
// angle error, steps projected):
//   N = 1, 20 s: 1.8e-9, 3.9e-8 rad, 579 of 20000;  N = 2, 20 s: 1.5e-9, 3.6e-8 rad, 816;
//   N = 8, 20 s: 1.5e-9, 7.1e-9 rad, 909;           N = 40, 20 s: 4.0e-9, 5.3e-9 rad, 933.
// The angle error is 1 to 7 times position_velocity's (above), the phase drift of an energy
// error of 1e-9 that the unprojected steps between the passages leave (Baumgarte alone, as
// on the examples); 3.9e-8 rad is 2e-8 m at the rocker's tip. Bounds: 2.5 to 4 times the
// measured values. Mutation check: without the per-step decision (auto as none) every
// chain leaves its branch (WithoutThePositionProjectionItDiverges).
class ParallelogramChainAuto : public ::testing::TestWithParam<ChainCase> {};

TEST_P(ParallelogramChainAuto, DefaultsFollowTheReducedSolution) {
  const ChainCase c = GetParam();
  test::ParallelogramChain ch;
  ch.cells = c.cells;
  const ChainRun r = run_chain(ch, 1e-3, c.t_end, "auto", nlohmann::json::object(), true);
  const long steps = std::lround(c.t_end / 1e-3);
  EXPECT_TRUE(r.ok);
  EXPECT_GE(r.flat_passages, 45);
  EXPECT_LE(r.energy_error, c.energy_bound);
  EXPECT_LE(r.angle_error, c.angle_bound);
  EXPECT_GT(r.projected_steps, 0);
  EXPECT_LT(r.projected_steps, steps / 10);  // measured 2.9 to 4.7 % of the steps
  std::printf("auto, N = %d, %.0f s: energy %.3g, angle %.3g rad, max |Phi| %.3g, %d flat passages, %ld of %ld "
              "steps projected\n",
              c.cells, c.t_end, r.energy_error, r.angle_error, r.max_violation, r.flat_passages, r.projected_steps,
              steps);
}

INSTANTIATE_TEST_SUITE_P(Cells, ParallelogramChainAuto,
                         ::testing::Values(ChainCase{1, 20.0, 5e-9, 1e-7}, ChainCase{2, 20.0, 5e-9, 1e-7},
                                           ChainCase{8, 20.0, 5e-9, 3e-8}, ChainCase{40, 20.0, 1.2e-8, 2e-8}),
                         [](const ::testing::TestParamInfo<ChainCase>& p) {
                           return "N" + std::to_string(p.param.cells);
                         });

// Mutation check: the same runs without the projection (Baumgarte alone) leave the
// parallelogram branch at the first flat passages and diverge (status 2 at the violation
// bound) or gain energy by orders of magnitude; the velocity projection alone does not
// hold N = 8 either. Measured: none, N = 1: diverged (status 2) after 13 flat passages,
// N = 2: after 7; velocity, N = 8: after 5.
TEST(ParallelogramChain, WithoutThePositionProjectionItDiverges) {
  for (const auto& [cells, projection] : {std::pair<int, const char*>{1, "none"}, {2, "none"}, {8, "velocity"}}) {
    test::ParallelogramChain ch;
    ch.cells = cells;
    const ChainRun r = run_chain(ch, 1e-3, 20.0, projection);
    EXPECT_TRUE(!r.ok || r.energy_error > 1e-2) << cells << " " << projection << ": energy " << r.energy_error;
  }
}

// At the defaults (no projection) the chain leaves its branch at a flat passage and the
// run stops it (N = 2: runaway at 2.703 s, measured; N = 1: constraint violation at
// 11.3 s; N = 8: runaway at 2.8 s). The run cannot see the passage itself (no refined
// solve is left unconverged there for N = 2 and 8), so a diverged instance of a
// closed-loop mechanism run without projection is a warning naming the option that
// carries it; with that option the same run ends ok and says nothing; a tree (the chain
// without its couplers) or another reason (a factorisation failure) gets no hint.
TEST(ParallelogramChain, DivergenceWithoutProjectionNamesTheOption) {
  test::ParallelogramChain ch;
  ch.cells = 2;
  for (const char* projection : {"none", "position_velocity"}) {
    JobOptions o;
    o.scene = "chain.json";
    o.scene_text = ch.scene(1e-3, 3.0, projection).dump();
    o.threads = 1;
    o.backend = "cpu";
    o.checkpoint_every_s = 0;
    static const std::filesystem::path dir = test::make_process_temp_dir("chain_hint");
    o.out = (dir / ("chain_" + std::string(projection) + ".h5")).string();
    const JobResult r = run_job(o, JobHooks{});
    int hints = 0;
    for (const nlohmann::json& w : r.summary.at("warnings"))
      hints += w.get<std::string>().find("diverged without projection") != std::string::npos;
    EXPECT_EQ(hints, std::string(projection) == "none" ? 1 : 0) << projection;
    EXPECT_EQ(r.summary.at("instances_ok"), std::string(projection) == "none" ? 0 : 1) << projection;
  }
  const Model chain = parse_scene(ch.scene(1e-3, 1.0, "none").dump()).model;
  const std::vector<std::int8_t> diverged = {0, 2}, runaway = {kReasonNone, kReasonRunaway},
                                 factorisation = {kReasonNone, kReasonFactorisationFailure};
  const std::vector<double> t = {0.0, 1.5};
  EXPECT_NE(singular_passage_hint(chain, diverged, runaway, t).find("instance 1, runaway at t = 1.5 s"), std::string::npos);
  EXPECT_EQ(singular_passage_hint(chain, diverged, factorisation, t), "");
  nlohmann::json tree = ch.scene(1e-3, 1.0, "none");
  nlohmann::json joints = nlohmann::json::array();
  for (const auto& j : tree["joints"])
    if (j["name"].get<std::string>().rfind("pivot", 0) == 0) joints.push_back(j);
  tree["joints"] = joints;  // the rockers alone; the couplers fall free
  EXPECT_EQ(singular_passage_hint(parse_scene(tree.dump()).model, diverged, runaway, t), "");
}

}  // namespace
}  // namespace simphant
