// The CPU-grid twin of the GPU robot test: the joint-space step's per-thread function
// (kernels/reduced_step.hpp) run over a whole CUDA-style grid on the CPU
// (tests/cpu_grid_exec.hpp: blocks of 64, so threads past the end run too), with the GPU's
// structure-of-arrays state, one model slot per instance and the small workspace the GPU
// picks (reduced_capacity(n)), equals the CPU ReducedBackend (row-major, capacity 64) after
// 1000 RK4 steps, for Panda, UR5 and a floating-base robot, aba and cga, with differing
// instances (state, inputs, a link mass, a servo, damping). Bound: 1e-12 relative, the GPU
// test's; both run the same arithmetic, so on the CPU it holds with equality.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "reduced_step.hpp"
#include "robot_data.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/step_statistics.hpp"

namespace simphant {
namespace {

using nlohmann::json;

/// The robot of `urdf` (example-robot-data path) as a joint-space model, two instances
/// that differ in state, inputs, a link's mass, a servo and damping. Input torques are
/// 0.4 N m (arms) or 0.01 N m (solo12: its lower legs' joint inertia is ~2e-4 kg m^2, so
/// 0.4 N m would spin them past RK4's stable step within the second).
std::vector<Model> two_instances(const std::string& urdf, const char* solver, bool floating) {
  json doc;
  doc["name"] = "robot";
  doc["robot"] = {{"urdf", urdf}};
  if (floating) doc["robot"]["floating_base"] = true;
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  const int n = m.robot->n();
  std::vector<Model> out(2, m);
  for (int i = 0; i < 2; ++i) {
    if (out[i].robot.use_count() != 1) out[i].robot = std::make_shared<RobotJointSpace>(*out[i].robot);
    RobotJointSpace& r = const_cast<RobotJointSpace&>(*out[i].robot);  // made non-const just above
    for (int k = 0; k < n; ++k) {
      r.q0[k] = 0.3 * std::sin(1.7 * k + i);
      r.qd0[k] = 0.5 * std::cos(0.9 * k + 2 * i);
      r.tau[k] = (floating ? 0.01 : 0.4) * std::sin(2.3 * k - i);
      r.joints[k].damping = 0.1 * i;
    }
  }
  RobotJointSpace& r1 = const_cast<RobotJointSpace&>(*out[1].robot);
  r1.model.links[2].mass += 0.7;
  r1.joints[0].mode = static_cast<int>(ActuatorMode::Position);
  r1.joints[0].kp = 40;
  r1.joints[0].kd = 2;
  r1.tau[0] = 0.5;
  if (floating) {
    r1.base_q0[2] += 0.3;
    r1.base_v0[0] = 0.2;
    r1.base_v0[5] = -0.4;
  }
  return out;
}

/// Runs reduced_advance_thread<T, Cap> over the grid for 1000 steps (10 calls of 100
/// steps), structure-of-arrays state; returns the state row-major.
template <int Cap>
std::vector<double> grid_run(const std::vector<Model>& models) {
  const Model& m0 = models.front();
  const int I = static_cast<int>(models.size()), n = m0.robot->n(), floating = m0.robot->model.floating ? 1 : 0;
  const int N = robot_state_size(n, floating);
  std::vector<ReducedLinkParams<double>> links;
  std::vector<cga::CgaLink<double>> cga_links;
  std::vector<RobotJointParams<double>> joints;
  std::vector<RobotBaseParams<double>> base;
  std::vector<Vec3d> gravity;
  std::vector<double> runaway, y_init, U(static_cast<std::size_t>(I) * n);
  for (int i = 0; i < I; ++i) {
    const RobotJointSpace& r = *models[i].robot;
    for (int k = 0; k < n; ++k) {
      links.push_back(reduced_link_params<double>(r.model, k));
      cga_links.push_back(cga::cga_link(links.back()));
      joints.push_back(r.joints[k]);
      U[static_cast<std::size_t>(k) * I + i] = r.tau[k];  // structure of arrays
    }
    base.push_back({r.model.base.mass, r.model.base.com, r.model.base.inertia_com});
    gravity.push_back(r.model.gravity);
    runaway.push_back(models[i].solver.runaway_kinetic_energy);
    if (floating) y_init.insert(y_init.end(), r.base_q0.begin(), r.base_q0.end());
    y_init.insert(y_init.end(), r.q0.begin(), r.q0.end());
    if (floating) y_init.insert(y_init.end(), r.base_v0.begin(), r.base_v0.end());
    y_init.insert(y_init.end(), r.qd0.begin(), r.qd0.end());
  }
  std::vector<double> Y(static_cast<std::size_t>(I) * N, std::nan(""));
  std::vector<std::int8_t> status(I, 7), reason(I, 7);
  std::vector<std::int64_t> status_step(I, -1), offset(I, -1);
  batch::ReducedBatchView<double> b;
  b.n_instances = I;
  b.n = n;
  b.floating = floating;
  b.use_cga = m0.robot->solver == RobotSolver::Cga;
  b.integrator = static_cast<int>(m0.solver.integrator);
  b.dt = m0.solver.dt;
  b.n_slots = I;
  b.links = links.data();
  b.cga_links = cga_links.data();
  b.joints = joints.data();
  b.base = base.data();
  b.gravity = gravity.data();
  b.runaway_kinetic_energy = runaway.data();
  b.y_init = y_init.data();
  b.Y = batch::structure_of_arrays(Y.data(), I);
  b.U = batch::structure_of_arrays(static_cast<const double*>(U.data()), I);
  b.status = status.data();
  b.status_step = status_step.data();
  b.reason = reason.data();
  b.offset = offset.data();
  test::CpuGridExec<double> exec;
  exec.launch("reset", I, [&](int tid) { batch::reduced_reset_thread(tid, b, nullptr, I, 0); });
  auto ws = std::make_unique<batch::ReducedStepWorkspace<double, Cap>>();
  for (int call = 0; call < 10; ++call)
    exec.launch("advance", I, [&](int tid) { batch::reduced_advance_thread(tid, b, 100 * call, 100, *ws); });
  for (int i = 0; i < I; ++i) {
    EXPECT_EQ(status[i], 0);
    EXPECT_EQ(reason[i], 0);
    EXPECT_EQ(offset[i], 0);
  }
  std::vector<double> rows(Y.size());
  for (int i = 0; i < I; ++i)
    for (int e = 0; e < N; ++e) rows[static_cast<std::size_t>(i) * N + e] = Y[static_cast<std::size_t>(e) * I + i];
  return rows;
}

void expect_grid_equals_backend(const std::vector<Model>& models) {
  const int n = models.front().robot->n();
  ASSERT_LE(n, 16);
  const std::vector<double> grid = batch::reduced_capacity(n) == 8 ? grid_run<8>(models) : grid_run<16>(models);
  ReducedBackend backend(std::make_shared<const std::vector<Model>>(models), static_cast<int>(models.size()), 1);
  backend.advance(1000);
  std::vector<double> Y(grid.size());
  backend.get_state(nullptr, backend.n_instances(), Y.data(), nullptr, nullptr, nullptr, nullptr);
  double scale = 0, err = 0;
  for (std::size_t e = 0; e < Y.size(); ++e) {
    scale = std::max(scale, std::abs(Y[e]));
    err = std::max(err, std::abs(Y[e] - grid[e]));
  }
  EXPECT_LE(err, 1e-12 * std::max(1.0, scale));
  const int N = backend.state_size();
  double differ = 0;
  for (int e = 0; e < N; ++e) differ = std::max(differ, std::abs(Y[e] - Y[N + e]));
  EXPECT_GT(differ, 1e-3) << "the instances differ";
  for (double y : Y) ASSERT_TRUE(std::isfinite(y));
}

TEST(ReducedStepGrid, PandaAndUr5GridEqualsBackend) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    expect_grid_equals_backend(two_instances(dir + "/panda_description/urdf/panda.urdf", solver, false));
    expect_grid_equals_backend(two_instances(dir + "/ur_description/urdf/ur5_robot.urdf", solver, false));
  }
}

TEST(ReducedStepGrid, FloatingBaseGridEqualsBackend) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    expect_grid_equals_backend(two_instances(dir + "/solo_description/robots/solo12.urdf", solver, true));
  }
}

// Every capacity runs the same arithmetic: 1000 steps of Panda at capacities 16, 32 and 64
// gives bitwise the same state.
TEST(ReducedStepGrid, CapacityDoesNotChangeTheResult) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const std::vector<Model> models = two_instances(dir + "/panda_description/urdf/panda.urdf", "aba", false);
  const std::vector<double> a = grid_run<16>(models), b = grid_run<32>(models), c = grid_run<64>(models);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

}  // namespace
}  // namespace simphant

namespace simphant {
namespace {

// Status bookkeeping of the step (as every backend keeps it, docs/solver.md "Instance
// status"), on decoupled3.urdf with slider a pushed by 4 N (qd = 2 t, K = 4 t^2 [J]):
// instance 1 has the runaway bound K_max = 1.01 J, passed by the step that ends at
// t = 0.503 s: diverged (runaway) at its step 502, frozen at t = 0.502 s (qd = 1.004); instance 2
// gets a NaN input: diverged (non_finite) at step 0, frozen at its initial state; reset
// at batch step 300 with a finite input, it runs again on its own clock; instance 0 runs on.
TEST(ReducedStepGrid, StatusFreezesDivergedInstances) {
  json doc;
  doc["name"] = "decoupled3";
  doc["robot"] = {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/decoupled3.urdf"},
                  {"tau", {4.0, 0.0, 0.0}}};
  doc["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  ReducedBackend b(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 3, 2);
  Model bounded = m;
  bounded.solver.runaway_kinetic_energy = 1.01;
  const int one = 1, two = 2;
  b.set_models(&one, 1, &bounded);
  const double nan_input[3] = {std::nan(""), 0, 0};
  b.set_inputs(&two, 1, nan_input);
  b.advance(300);
  std::vector<std::int8_t> status(3), reason(3);
  std::vector<std::int64_t> steps(3), status_steps(3);
  std::vector<double> y(3 * 6);
  b.get_state(nullptr, 3, y.data(), steps.data(), status.data(), status_steps.data(), reason.data());
  EXPECT_EQ(status[2], 2);
  EXPECT_EQ(reason[2], kReasonNonFinite);
  EXPECT_EQ(status_steps[2], 0);
  EXPECT_EQ(y[2 * 6 + 3], 0.0) << "frozen at the initial state";
  b.reset(&two, 1);
  const double input[3] = {4.0, 0, 0};
  b.set_inputs(&two, 1, input);
  b.advance(700);
  b.get_state(nullptr, 3, y.data(), steps.data(), status.data(), status_steps.data(), reason.data());
  EXPECT_EQ(status[0], 0);
  EXPECT_NEAR(y[3], 2.0, 1e-12);
  EXPECT_EQ(status[1], 2);
  EXPECT_EQ(reason[1], kReasonRunaway);
  EXPECT_EQ(status_steps[1], 502);
  EXPECT_NEAR(y[6 + 3], 1.004, 1e-12) << "frozen at the last state within the bound";
  EXPECT_EQ(status[2], 0);
  EXPECT_EQ(steps[2], 700);
  EXPECT_NEAR(y[2 * 6 + 3], 1.4, 1e-12);
  std::vector<double> status_time(3);
  b.read_status(status.data(), status_time.data(), reason.data());
  EXPECT_DOUBLE_EQ(status_time[1], 0.502);
  std::vector<std::int64_t> accepted(3);
  b.read_step_statistics(accepted.data(), nullptr, nullptr, nullptr);
  EXPECT_EQ(accepted, (std::vector<std::int64_t>{1000, 502, 700}));
  // The same through Backend::get_state, as the GPU backends read them.
  std::vector<std::int64_t> via_get_state(3, -1), rejected(3, -1);
  std::vector<double> min_step(3), max_step(3);
  fixed_step_statistics(b, 1e-3, via_get_state.data(), rejected.data(), min_step.data(), max_step.data());
  EXPECT_EQ(via_get_state, accepted);
  EXPECT_EQ(rejected, (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(min_step, (std::vector<double>{1e-3, 1e-3, 1e-3}));
  EXPECT_EQ(max_step, min_step);
}

}  // namespace
}  // namespace simphant
