// The example mechanisms of examples/*.json end to end (load, sweep, assemble, run),
// Bricard's overconstrained linkage (rank-deficient Phi_q), assembly of a perturbed and
// of an impossible four-bar, and the heavy top's conserved vertical angular momentum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/urdf/robot_data.hpp"
#include "simphant/sim/bdf_support.hpp"
#include "simphant/sim/simulator.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string example(const std::string& name) { return std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name; }

// Every examples/*.json; a robot scene that names example-robot-data is left out (with a
// note) when that Python package is not installed, as the robot tests skip then; so is a
// scene with integrator bdf in a build without SUNDIALS (sim/bdf_support.hpp).
std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(std::string(SIMPHANT_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("example-robot-data:") != std::string::npos && example_robot_data_dir().empty()) {
      std::printf("note: %s skipped: example-robot-data is not installed\n", e.path().c_str());
      continue;
    }
    if (text.find("\"integrator\": \"bdf\"") != std::string::npos && !bdf_available()) {
      std::printf("note: %s skipped: built without SUNDIALS (integrator bdf)\n", e.path().c_str());
      continue;
    }
    files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The sanitizer build (SIMPHANT_SANITIZED_TESTS, tests/CMakeLists.txt) runs up to 8
// instances of each sampled example: the same code paths as all of them, where the 1000
// of crank_press alone took minutes (the whole test 207 s under ASan + UBSan, 6 s in
// Release; 70 s with 32 instances); other builds run every instance of the scene's sweep.
#ifdef SIMPHANT_SANITIZED_TESTS
constexpr int kInstanceCap = 8;
constexpr int kStepCap = 2000;  // the same code paths (slider_crank_clearance: 16000 steps of 1.5 us)
#else
constexpr int kInstanceCap = 1 << 30;
constexpr int kStepCap = 1 << 30;
#endif

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// Every example loads, samples its own sweep, assembles every instance and runs a short
// horizon (0.25 s, or its t_end if shorter; at most kStepCap steps) with every instance
// ok and max |Phi| < 1e-6.
TEST(Mechanisms, EveryExampleRunsWithAllInstancesOk) {
  const std::vector<std::string> files = example_files();
  ASSERT_GE(files.size(), 9u);
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    Scene scene = load_scene(file);
    const SweepMode mode = scene.sweep.mode;  // a count of its own only in these modes
    if (mode == SweepMode::Random || mode == SweepMode::LatinHypercube || mode == SweepMode::Sobol)
      scene.sweep.instances = std::min(scene.sweep.instances, kInstanceCap);
    const SweepSamples samples = sample_sweep(scene.sweep);
    const int n = samples.n_instances;
    auto sim = Simulator::create(build_instance_models(scene, samples), {"cpu", 1}, n);
    ASSERT_EQ(sim->n_instances(), n);
    for (int k = 0; k < n; ++k) {
      EXPECT_TRUE(sim->assembly()[k].ok) << "instance " << k << " residual " << sim->assembly()[k].position_residual;
    }
    const int steps = std::min(
        kStepCap, static_cast<int>(std::lround(std::min(0.25, scene.model.solver.t_end) / scene.model.solver.dt)));
    sim->advance(steps);
    EXPECT_EQ(sim->steps_taken(), steps);
    std::vector<std::int8_t> status(n);
    std::vector<double> status_time(n), viol(n), energy(n);
    std::vector<double> states(static_cast<std::size_t>(n) * sim->model().n_bodies() * 13);
    sim->read_status(status.data(), status_time.data());
    sim->read_constraint_violation(viol.data());
    sim->read_energy(energy.data());
    sim->read_states(states.data());
    double worst = 0;
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(status[k], static_cast<std::int8_t>(InstanceStatus::Ok)) << "instance " << k;
      EXPECT_LT(viol[k], 1e-6) << "instance " << k;
      worst = std::max(worst, viol[k]);
    }
    EXPECT_TRUE(all_finite(states));
    EXPECT_TRUE(all_finite(energy));
    std::printf("%-24s %3d instances, %d steps, worst max|Phi| %.3e\n", fs::path(file).filename().c_str(), n, steps,
                worst);
  }
}

// Bricard's orthogonal linkage: 6 revolute joints in one loop, 5 moving bodies: 30 rows,
// rank 29 (one redundant row), so mobility 1 although Gruebler-Kutzbach counts 0. It
// must move under gravity (the gravity load is not orthogonal to the free motion) with
// bounded violation.
TEST(Mechanisms, BricardIsMobileAndIntegrates) {
  const Model model = load_scene(example("bricard.json")).model;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  const AssemblyResult a = assemble(model, d, Y.data());
  ASSERT_TRUE(a.ok) << a.position_residual;
  const ConstraintAnalysis ca = analyse_constraints(model, d, Y.data());
  EXPECT_EQ(ca.rows, 30);
  EXPECT_EQ(ca.rank, 29);
  EXPECT_EQ(ca.dof, 1);
  EXPECT_EQ(ca.redundant_rows.size(), 1u);

  const double dt = model.solver.dt, t_end = 1.5;
  const std::vector<double> Y0 = Y;
  set_kinematics(model, d, Y.data());
  const double E0 = total_energy(model, d);
  double worst = 0;
  const int n = static_cast<int>(std::lround(t_end / dt));
  for (int s = 0; s < n; ++s) {
    ASSERT_TRUE(rk4_step(model, d, s * dt, Y.data(), nullptr, dt)) << "step " << s;
    set_kinematics(model, d, Y.data());
    evaluate_constraints(model, d, 0.0);
    worst = std::max(worst, max_violation(d));
  }
  ASSERT_TRUE(all_finite(Y));
  set_kinematics(model, d, Y.data());
  const double dE = total_energy(model, d) - E0;
  double moved = 0;  // largest CoM displacement [m]
  for (int k = 0; k < model.n_bodies(); ++k) moved = std::max(moved, norm(state_r(Y.data(), k) - state_r(Y0.data(), k)));
  const ConstraintAnalysis ca_end = analyse_constraints(model, d, Y.data());
  std::printf("bricard: rows %d rank %d dof %d; after %.1f s max|Phi| %.3e, largest CoM displacement %.3f m, "
              "rank at the end %d, energy change %.3e J of %.4f J\n",
              ca.rows, ca.rank, ca.dof, t_end, worst, moved, ca_end.rank, dE, E0);
  EXPECT_LT(worst, 1e-6);
  EXPECT_GT(moved, 0.05);          // it really moves under gravity
  EXPECT_EQ(ca_end.dof, 1);        // and stays on the mobile (Bricard) branch
  // The system is conservative, but with the redundant row the Tikhonov-regularised
  // Schur matrix has an eigenvalue ~eps, and the energy error behaves like dt^4 / eps
  // (measured over 3 s, eps 1e-10: dt 1e-3 -> -0.37 J, 5e-4 -> -0.024 J, 2.5e-4 ->
  // -0.0015 J; at dt 1e-3: eps 1e-11 -> -3.2 J, 1e-8 -> -0.0038 J). At the example's
  // dt = 5e-4 the loss over 1.5 s is ~0.01 J; bound 0.05 J (0.2 % of E0).
  EXPECT_LT(std::abs(dE), 0.05);
}

json four_bar_doc() {
  json doc = load_scene(example("four_bar.json")).doc;
  doc.erase("sweep");
  return doc;
}

// A four-bar whose bodies are displaced by a few mm from the closed configuration is
// closed again by assembly to within the tolerance.
TEST(Mechanisms, AssemblyClosesPerturbedFourBar) {
  const Model model = parse_scene(four_bar_doc().dump()).model;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  const double offsets[3][3] = {{0.003, 0.001, -0.002}, {-0.004, 0.002, 0.003}, {0.002, -0.003, -0.004}};
  for (int k = 0; k < model.n_bodies(); ++k)
    for (int c = 0; c < 3; ++c) Y[7 * k + c] += offsets[k][c];
  set_kinematics(model, d, Y.data());
  evaluate_constraints(model, d, 0.0);
  const double before = max_violation(d);
  const AssemblyResult a = assemble(model, d, Y.data());
  set_kinematics(model, d, Y.data());
  evaluate_constraints(model, d, 0.0);
  std::printf("perturbed four-bar: max|Phi| %.3e before, %.3e after (%d iterations)\n", before, max_violation(d),
              a.iterations);
  EXPECT_GT(before, 1e-3);
  EXPECT_TRUE(a.ok);
  EXPECT_LT(a.position_residual, 1e-10);
  EXPECT_LT(max_violation(d), 1e-10);
}

// A four-bar whose coupler is too short to close the loop (crank 0.1 + coupler 0.05 +
// rocker 0.3 < ground 0.5 m): assembly must report failure, and the Simulator must flag
// the instance AssemblyFailed. The coupler-rocker joint is given as local frames on
// each body (the coupler's body x axis runs along the bar; its pin sits at +0.225 m).
TEST(Mechanisms, AssemblyReportsImpossibleFourBar) {
  json doc = four_bar_doc();
  for (json& j : doc["joints"]) {
    if (j["name"] != "coupler_rocker") continue;
    j.erase("frame");
    j["frame_i"] = {{"origin", {-0.225 + 0.05, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}, {"x", {1.0, 0.0, 0.0}}};
    j["frame_j"] = {{"origin", {0.15, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}, {"x", {1.0, 0.0, 0.0}}};
  }
  const Model model = parse_scene(doc.dump()).model;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  const AssemblyResult a = assemble(model, d, Y.data());
  std::printf("impossible four-bar: ok %d, residual %.3e after %d iterations\n", a.ok, a.position_residual,
              a.iterations);
  EXPECT_FALSE(a.ok);
  EXPECT_GT(a.position_residual, 1e-3);  // the loop stays open by ~5 cm

  auto sim = Simulator::create({model}, {"cpu", 1}, 2);
  std::int8_t status[2];
  double status_time[2];
  sim->read_status(status, status_time);
  EXPECT_EQ(status[0], static_cast<std::int8_t>(InstanceStatus::AssemblyFailed));
  EXPECT_EQ(status[1], static_cast<std::int8_t>(InstanceStatus::AssemblyFailed));
  EXPECT_FALSE(sim->assembly()[0].ok);
}

// Heavy top on a spherical joint: gravity's torque about the pivot is horizontal and the
// joint force passes through the pivot, so the angular momentum about the vertical axis
// through the pivot, L_z = e_z . (r x m v + A J omega_B), is conserved (and the energy).
// The symmetry axis precesses about the vertical.
TEST(Mechanisms, HeavyTopConservesVerticalAngularMomentumAndPrecesses) {
  const Model model = load_scene(example("spinning_top.json")).model;
  ASSERT_EQ(model.n_bodies(), 1);
  const double m = model.bodies[0].mass;
  const Mat3d J = model.bodies[0].inertia_B;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  auto Lz = [&]() {
    const Vec3d r = state_r(Y.data(), 0), v = state_v(Y.data(), 1, 0);
    const Vec3d L = cross(r, m * v) + mul(rotation(normalized(state_p(Y.data(), 0))), mul(J, state_omega(Y.data(), 1, 0)));
    return L.z;
  };
  auto azimuth = [&]() {
    const Vec3d r = state_r(Y.data(), 0);
    return std::atan2(r.y, r.x);
  };
  set_kinematics(model, d, Y.data());
  const double E0 = total_energy(model, d);
  const double L0 = Lz();
  double max_dL = 0, max_dE = 0, worst = 0, turned = 0, az_prev = azimuth();
  const double dt = model.solver.dt, t_end = 2.0;
  const int n = static_cast<int>(std::lround(t_end / dt));
  for (int s = 0; s < n; ++s) {
    ASSERT_TRUE(rk4_step(model, d, s * dt, Y.data(), nullptr, dt));
    max_dL = std::max(max_dL, std::abs(Lz() - L0));
    set_kinematics(model, d, Y.data());
    evaluate_constraints(model, d, 0.0);
    worst = std::max(worst, max_violation(d));
    max_dE = std::max(max_dE, std::abs(total_energy(model, d) - E0));
    const double az = azimuth();
    turned += test::angle_step(az_prev, az);
    az_prev = az;
  }
  std::printf("heavy top: L_z %.9f, max |dL_z| %.3e (relative %.3e), max |dE| %.3e J of %.6f, max|Phi| %.3e, "
              "precession %.3f rad in %.1f s\n",
              L0, max_dL, max_dL / std::abs(L0), max_dE, E0, worst, turned, t_end);
  // RK4 at |omega| dt = 125 * 5e-4 = 0.0625: local error ~ (omega dt)^5 / 120 ~ 8e-9
  // relative per step in the fastest (spin) coordinates; L_z depends on them only through
  // A J omega, whose spin part is constant for the symmetric top. Bound 1e-7 relative.
  EXPECT_LT(max_dL, 1e-7 * std::abs(L0));
  EXPECT_LT(max_dE, 1e-7 * std::abs(E0));  // E0 ~ 7.2 J, almost all spin energy
  EXPECT_LT(worst, 1e-6);
  // Gyroscopic precession rate ~ m g l / (J3 omega3) = 1.74 rad/s: about 3.5 rad in 2 s.
  EXPECT_GT(std::abs(turned), 1.5);
}

}  // namespace
}  // namespace simphant
