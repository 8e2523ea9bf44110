// The benchmark suite's models and pieces (`simphant bench`, src/simphant/bench/): the
// generated chain_N has N bodies, N joints and 5 N rows, assembles, and moves as the
// reduced ABA path moves the same URDF; arm7 loads; a shared model assembled once equals
// per-instance assembly; the cost model is positive and grows with N; the exported
// scenes compile to the bench's models; configurations, ratios and the CLI's JSON; the
// joint-space robot models (<robot>_aba / _cga) step as the DAE form of the same scene.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/bench/bench_config.hpp"
#include "simphant/bench/bench_models.hpp"
#include "simphant/bench/bench_ratios.hpp"
#include "simphant/bench/cost_model.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/simulator.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;
const std::string kExamples = std::string(SIMPHANT_SOURCE_DIR) + "/examples";

TEST(BenchModels, ChainHasNBodiesNJointsAnd5NRows) {
  for (int N : {1, 2, 4, 8, 16, 32}) {
    SCOPED_TRACE(N);
    const Model m = bench::chain_model(N);
    EXPECT_EQ(m.name, "chain_" + std::to_string(N));
    EXPECT_EQ(m.n_bodies(), N);
    EXPECT_EQ(m.n_joints(), N);
    EXPECT_EQ(m.n_rows, 5 * N);
    EXPECT_TRUE(m.forces.empty());
    EXPECT_FALSE(m.robot);
    for (int k = 0; k < N; ++k) {
      const Body& b = m.bodies[static_cast<std::size_t>(k)];
      EXPECT_EQ(b.mass, 1.0);
      EXPECT_DOUBLE_EQ(b.inertia_B.m[1][1], 0.25 / 12);
      // Straight along +x at q0 = 0: CoM of link k at x = 0.5 k + 0.25.
      EXPECT_NEAR(b.r0_W[0], 0.5 * k + 0.25, 1e-15);
      EXPECT_NEAR(b.r0_W[2], 0.0, 1e-15);
      EXPECT_EQ(m.joints[static_cast<std::size_t>(k)].type, JointType::Revolute);
      EXPECT_EQ(m.joints[static_cast<std::size_t>(k)].body_i, k - 1);  // kGround = -1 for joint 1
    }
  }
  EXPECT_THROW(bench::chain_model(0), std::invalid_argument);
  EXPECT_THROW(bench::bench_model("chain_x", kExamples), std::invalid_argument);
  EXPECT_THROW(bench::bench_model("no_such_scene", kExamples), std::invalid_argument);
}

TEST(BenchModels, ChainAssembles) {
  for (int N : {1, 8, 32}) {
    const AssembledBatch a = assemble_batch({bench::chain_model(N)}, 1, 1);
    ASSERT_TRUE(a.results[0].ok) << N;
    EXPECT_LT(a.results[0].position_residual, 1e-12) << N;
    EXPECT_LT(a.results[0].velocity_residual, 1e-12) << N;
  }
}

// One shared Model is assembled once and copied (sim/assemble_batch.cpp): the result must
// be the one of assembling every instance from its own copy of the model. The four-bar's
// crank is moved 1 cm off its joints so that the Newton assembly has work to do.
TEST(BenchModels, SharedModelAssemblyEqualsPerInstanceAssembly) {
  Model m = load_scene(kExamples + "/four_bar.json").model;
  m.bodies[0].r0_W[0] += 0.01;
  const int n = 5;
  const AssembledBatch shared = assemble_batch({m}, n, 2);
  const AssembledBatch each = assemble_batch(std::vector<Model>(n, m), n, 2);
  ASSERT_EQ(shared.Y.size(), each.Y.size());
  EXPECT_EQ(std::memcmp(shared.Y.data(), each.Y.data(), shared.Y.size() * sizeof(double)), 0);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(shared.results[i].ok, each.results[i].ok);
    EXPECT_GT(shared.results[i].iterations, 0);
    EXPECT_EQ(shared.results[i].iterations, each.results[i].iterations);
    EXPECT_EQ(shared.results[i].position_residual, each.results[i].position_residual);
    EXPECT_EQ(shared.results[i].velocity_residual, each.results[i].velocity_residual);
    EXPECT_EQ(shared.status[i], each.status[i]);
  }
}

// The DAE path on chain_N against the reduced ABA path on the same URDF, from the same
// state, 100 RK4 steps of 1 ms (the chain falls from horizontal). Both integrate the same
// motion; they differ by their RK4 truncation errors (different coordinates, so different
// error constants: O(dt^4) per unit time) and by the DAE's eps = 1e-10 regularisation.
// Measured over all links (N = 1, 4, 8): max |r_dae - r_aba| 5.0e-12, 8.2e-12, 1.3e-11 m;
// quaternions 1.4e-12 .. 1.9e-11; |v| 6.8e-11 .. 1.2e-10 m/s; |omega| 3.2e-11 .. 1.2e-10
// rad/s. The bounds (1e-9 for r and p, 1e-8 for v and omega) leave a factor ~80 for other
// compilers and still catch any wrong mass, inertia, joint frame or sign (those give
// differences of order 1e-3 and more after 0.1 s).
TEST(BenchModels, ChainDaeMotionAgreesWithReducedAba) {
  for (int N : {1, 4, 8}) {
    SCOPED_TRACE(N);
    const Model dae = bench::chain_model(N);
    Model red = dae;
    auto rj = std::make_shared<RobotJointSpace>();
    rj->model = parse_urdf(bench::chain_urdf(N), "chain.urdf");
    rj->q0.assign(static_cast<std::size_t>(N), 0.0);
    rj->qd0 = rj->q0;
    rj->tau = rj->q0;
    rj->joints.assign(static_cast<std::size_t>(N), plain_joint_params<double>());  // no limits, damping, ...
    rj->solver = RobotSolver::Aba;
    red.robot = rj;
    SimulatorOptions o;
    o.backend = "cpu";
    o.threads = 1;
    auto a = Simulator::create({dae}, o);
    auto b = Simulator::create({red}, o);
    a->advance(100);
    b->advance(100);
    std::vector<double> ya(13 * static_cast<std::size_t>(N)), yb(ya.size());
    a->read_states(ya.data());
    b->read_states(yb.data());
    double dr = 0, dp = 0, dv = 0, dw = 0, drop = 0;
    for (int k = 0; k < N; ++k) {
      const double* sa = &ya[13 * static_cast<std::size_t>(k)];
      const double* sb = &yb[13 * static_cast<std::size_t>(k)];
      for (int c = 0; c < 3; ++c) dr = std::max(dr, std::abs(sa[c] - sb[c]));
      for (int c = 3; c < 7; ++c) dp = std::max(dp, std::abs(sa[c] - sb[c]));
      for (int c = 7; c < 10; ++c) dv = std::max(dv, std::abs(sa[c] - sb[c]));
      for (int c = 10; c < 13; ++c) dw = std::max(dw, std::abs(sa[c] - sb[c]));
      drop = std::max(drop, -sb[2]);
    }
    std::printf("  chain_%d after 0.1 s: max |dr| %.2e m, |dp| %.2e, |dv| %.2e m/s, |dw| %.2e rad/s (drop %.3f m)\n",
                N, dr, dp, dv, dw, drop);
    EXPECT_GT(drop, 0.03);  // it did fall (CoM drop 0.037 .. 0.054 m): not two resting states
    EXPECT_LT(dr, 1e-9);
    EXPECT_LT(dp, 1e-9);
    EXPECT_LT(dv, 1e-8);
    EXPECT_LT(dw, 1e-8);
  }
}

TEST(BenchModels, Arm7LoadsWithSevenBodies) {
  const Model m = bench::bench_model("arm7", kExamples);
  EXPECT_EQ(m.name, "arm7");
  EXPECT_EQ(m.n_bodies(), 7);
  EXPECT_EQ(m.n_joints(), 7);
  EXPECT_EQ(m.n_rows, 35);
  EXPECT_FALSE(m.robot);      // the joint-space form is dropped: every backend runs it
  EXPECT_EQ(m.n_inputs, 7);   // the scene's tau actuators stay
  EXPECT_DOUBLE_EQ(m.bodies[0].mass, 4.970684);  // panda_link1
  const AssembledBatch a = assemble_batch({m}, 1, 1);
  EXPECT_TRUE(a.results[0].ok);
  EXPECT_LT(a.results[0].position_residual, 1e-10);
}

TEST(BenchModels, CostModelPositiveAndMonotoneInN) {
  for (const char* backend : {"cuda", "cuda-fused"})
    for (const char* precision : {"fp64", "fp32"}) {
      SCOPED_TRACE(std::string(backend) + " " + precision);
      bench::StepCost prev;
      for (int N : bench::default_chain_sizes()) {
        const bench::StepCost c = bench::modelled_step_cost(bench::chain_model(N), backend, precision);
        EXPECT_GT(c.bytes, prev.bytes) << N;
        EXPECT_GT(c.flops, prev.flops) << N;
        prev = c;
      }
    }
  const Model m = bench::chain_model(4);
  const bench::StepCost c64 = bench::modelled_step_cost(m, "cuda", "fp64");
  const bench::StepCost c32 = bench::modelled_step_cost(m, "cuda", "fp32");
  EXPECT_LT(c32.bytes, c64.bytes);
  EXPECT_EQ(c32.flops, c64.flops);
  EXPECT_LT(bench::modelled_step_cost(m, "cuda-fused", "fp64").bytes, c64.bytes);
  // The dense Cholesky dominates a long chain: m^3 / 3 per evaluation, 4 per step.
  const double m32 = 5.0 * 32;
  EXPECT_GT(bench::modelled_step_cost(bench::chain_model(32), "cuda", "fp64").flops, 4 * m32 * m32 * m32 / 3);
  EXPECT_THROW(bench::modelled_step_cost(m, "cpu", "fp64", "banded"), std::invalid_argument);
  EXPECT_THROW(bench::modelled_step_cost(m, "cuda", "fp16"), std::invalid_argument);
}

// `simphant bench --export` writes robot scenes that compile (scene/robot_compile.cpp)
// to the bench's own chain model, and copies arm7.
TEST(BenchModels, ExportedScenesCompileToTheBenchModels) {
  const fs::path dir = fs::temp_directory_path() / ("simphant_bench_export_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::vector<std::string> files = bench::export_bench_models(dir.string(), kExamples, {1, 3});
  EXPECT_EQ(files.size(), 6u);
  for (int N : {1, 3}) {
    const Model from_scene = load_scene((dir / ("chain_" + std::to_string(N) + ".json")).string()).model;
    const Model bench_m = bench::chain_model(N);
    ASSERT_EQ(from_scene.n_bodies(), N);
    ASSERT_EQ(from_scene.n_rows, bench_m.n_rows);
    EXPECT_EQ(from_scene.solver.dt, 1e-3);
    for (int k = 0; k < N; ++k) {
      const Body &a = from_scene.bodies[static_cast<std::size_t>(k)], &b = bench_m.bodies[static_cast<std::size_t>(k)];
      EXPECT_EQ(a.mass, b.mass);
      EXPECT_EQ(std::memcmp(&a.inertia_B, &b.inertia_B, sizeof(Mat3d)), 0);
      EXPECT_EQ(std::memcmp(&a.r0_W, &b.r0_W, sizeof(Vec3d)), 0);
      EXPECT_EQ(std::memcmp(&a.p0, &b.p0, sizeof(Quatd)), 0);
    }
  }
  EXPECT_EQ(load_scene((dir / "arm7.json").string()).model.n_bodies(), 7);
  fs::remove_all(dir);
}

// <robot>_aba / <robot>_cga keep the robot scene's joint-space form with that solver, and
// step as the maximal DAE form of the same scene does: after 100 RK4 steps (0.1 s) of arm7
// the joint angles of aba and cga agree to round-off (the same equations) and with the
// DAE to 1e-10 rad: the DAE's Tikhonov term (eps = 1e-10) and Baumgarte stabilisation
// leave a difference of that order (measured here: 7e-12 rad at most; 3e-10 rad at 0.1 s
// against MuJoCo's ABA, docs/performance.md).
TEST(BenchModels, JointSpaceRobotModelsStepAsTheDae) {
  const Model aba = bench::bench_model("arm7_aba", kExamples), cga = bench::bench_model("arm7_cga", kExamples);
  // The scene as compiled (solver dae, with its joint-space form: the cpu backend reports
  // joint coordinates); the bench's "arm7" drops that form.
  const Model dae = load_scene(kExamples + "/arm7.json").model;
  ASSERT_TRUE(aba.robot && cga.robot && dae.robot);
  EXPECT_EQ(aba.name, "arm7_aba");
  EXPECT_EQ(aba.robot->solver, RobotSolver::Aba);
  EXPECT_EQ(cga.robot->solver, RobotSolver::Cga);
  EXPECT_TRUE(bench::is_joint_space(aba));
  EXPECT_FALSE(bench::is_joint_space(dae));
  EXPECT_FALSE(bench::is_joint_space(bench::bench_model("arm7", kExamples)));
  EXPECT_STREQ(bench::bench_solver_name(cga), "cga");
  EXPECT_STREQ(bench::bench_solver_name(dae), "dae");
  EXPECT_THROW(bench::bench_model("four_bar_aba", kExamples), std::invalid_argument);  // not a robot scene
  EXPECT_THROW(bench::bench_model("no_such_robot_cga", kExamples), std::invalid_argument);

  SimulatorOptions so;
  so.backend = "cpu";
  so.threads = 1;
  auto q_after = [&](const Model& m) {
    auto sim = Simulator::create({m}, so, 2);
    sim->advance(100);
    std::vector<double> q(static_cast<std::size_t>(2 * sim->n_joint_coordinates())), qd(q.size()), tau(q.size());
    sim->read_joint_state(q.data(), qd.data(), tau.data());
    return q;
  };
  const std::vector<double> qa = q_after(aba), qc = q_after(cga), qm = q_after(dae);
  ASSERT_EQ(qa.size(), 14u);
  ASSERT_EQ(qm.size(), qa.size());
  double moved = 0;
  for (std::size_t k = 0; k < qa.size(); ++k) {
    EXPECT_NEAR(qc[k], qa[k], 1e-12) << k;
    EXPECT_NEAR(qm[k], qa[k], 1e-10) << k;
    moved = std::max(moved, std::abs(qa[k] - aba.robot->q0[k % 7]));
  }
  EXPECT_GT(moved, 1e-3);  // the arm moved (0.3 rad/s for 0.1 s, and gravity)
}

TEST(BenchModels, CgaOverAbaRatio) {
  auto row = [](const char* model, const char* solver, const char* config, int n, double ips) {
    bench::BenchRow r;
    r.model = model;
    r.solver = solver;
    r.config = bench::select_bench_configs({config}).front();
    r.instances = n;
    r.instance_steps_per_s = ips;
    r.status = "ok";
    return r;
  };
  const std::vector<bench::BenchRatio> q = bench::bench_ratios(
      {row("panda_aba", "aba", "cpu-dense", 64, 400), row("panda_cga", "cga", "cpu-dense", 64, 300),
       row("panda_cga", "cga", "cpu-dense", 16, 100), row("arm7_cga", "cga", "cuda64", 64, 50)});
  int n = 0;
  for (const bench::BenchRatio& r : q)
    if (r.kind == "cga/aba") {
      ++n;
      EXPECT_EQ(r.model, "panda_cga");
      EXPECT_EQ(r.baseline, "panda_aba");
      EXPECT_EQ(r.instances, 64);
      EXPECT_DOUBLE_EQ(r.value, 0.75);
    }
  EXPECT_EQ(n, 1);  // no aba row at 16 instances, no arm7_aba row at all
}

TEST(BenchModels, ConfigSelectionAndRatios) {
  std::vector<std::string> names;
  for (const bench::BenchConfig& c : bench::select_bench_configs({"fused64", "cpu", "cpu-dense"})) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cpu-dense", "cpu-sparse", "cpu-simd", "fused64"}));
  EXPECT_EQ(bench::select_bench_configs({"all"}).size(), bench::all_bench_configs().size());
  EXPECT_THROW(bench::select_bench_configs({"cuda16"}), std::invalid_argument);

  auto row = [](const char* config, int n, double ips) {
    bench::BenchRow r;
    r.model = "chain_1";
    r.config = bench::select_bench_configs({config}).front();
    r.instances = n;
    r.instance_steps_per_s = ips;
    r.status = "ok";
    return r;
  };
  const std::vector<bench::BenchRow> rows = {row("cpu-dense", 64, 100), row("cpu-sparse", 64, 300),
                                             row("cpu1-dense", 64, 50), row("cuda64", 4096, 1e4),
                                             row("cuda64", 65536, 4e4), row("cuda32", 65536, 8e4)};
  const std::vector<bench::BenchRatio> q = bench::bench_ratios(rows);
  auto find = [&](const char* kind, const char* config) {
    for (const bench::BenchRatio& r : q)
      if (r.kind == kind && r.config == config) return r.value;
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(find("sparse/dense", "cpu-sparse"), 3.0);
  EXPECT_DOUBLE_EQ(find("threads_all/threads_1", "cpu-dense"), 2.0);
  EXPECT_DOUBLE_EQ(find("fp32/fp64", "cuda32"), 2.0);
  EXPECT_DOUBLE_EQ(find("gpu/cpu", "cuda64"), 4e4 / 300);  // best GPU size vs the best cpu row at the largest size
}

// The CLI end to end on the smallest suite: one cpu row measured, one GPU row measured or
// recorded with its error (no device here), JSON written.
TEST(BenchModels, CliWritesJsonRows) {
  const fs::path out = fs::temp_directory_path() / ("simphant_bench_" + std::to_string(::getpid()) + ".json");
  const std::string cmd = std::string("\"") + SIMPHANT_BINARY +
                          "\" bench --models chain_2 --configs cpu1-dense,cuda64 --cpu-sizes 3 --gpu-sizes 2 "
                          "--min-seconds 0.001 --json \"" + out.string() + "\" >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  std::ifstream in(out);
  const nlohmann::json doc = nlohmann::json::parse(in);  // written even when a row failed
  ASSERT_EQ(doc["rows"].size(), 2u);
  const nlohmann::json& cpu = doc["rows"][0];
  EXPECT_EQ(cpu["config"], "cpu1-dense");
  EXPECT_EQ(cpu["status"], "ok");
  EXPECT_EQ(cpu["m"], 10);
  EXPECT_EQ(cpu["instances"], 3);
  EXPECT_GT(cpu["instance_steps_per_s"].get<double>(), 0);
  const nlohmann::json& gpu = doc["rows"][1];
  EXPECT_EQ(gpu["backend"], "cuda");
  EXPECT_GT(gpu["flops_per_instance_step"].get<double>(), 0);
  if (gpu["status"] != "ok") {
    EXPECT_FALSE(gpu["error"].get<std::string>().empty());
  }
  EXPECT_EQ(WEXITSTATUS(rc), gpu["status"] == "error" ? 3 : 0);  // a failed row fails the suite
  EXPECT_TRUE(doc["machine"].contains("host_cpu"));
  EXPECT_EQ(doc["cost_model"]["kind"], "modelled");
  fs::remove(out);
  EXPECT_NE(std::system((std::string("\"") + SIMPHANT_BINARY + "\" bench --configs nope >/dev/null 2>&1").c_str()), 0);
}

}  // namespace
}  // namespace simphant
