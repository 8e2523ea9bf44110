// Instance status reasons (docs/solver.md "Instance status"), the runaway bound, the
// step-size stability check at load (docs/solver.md "Step-size stability") and the
// flipped-joint check of assembly: closed forms, the CPU reference against the batched
// per-thread functions over the whole grid, and the job's refusals, warnings and files.
#include <unistd.h>

#include <cmath>
#include <complex>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "cpu_grid_exec.hpp"
#include "host_batch.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/dynamics/runaway_bound.hpp"
#include "simphant/dynamics/stability.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/check_scene.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/simulator.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace simphant;

namespace {

const fs::path& temp_dir() {
  static const fs::path dir = simphant::test::make_process_temp_dir("instance_status");
  return dir;
}

std::string num(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// A 1 kg box on a prismatic track along x with a damper (c) to the ground along the
/// track, moving at 1 m/s, no gravity: one real mode lambda = -c / m. Extra solver keys
/// are appended to the solver section.
std::string damper_scene(double c, const std::string& solver_extra = "", double t_end = 0.1) {
  return R"({
    "name": "damper",
    "gravity": [0, 0, 0],
    "bodies": [{"name": "box", "mass": 1.0, "inertia": [0.01, 0.01, 0.01], "position": [1, 0, 0],
                "velocity": [1, 0, 0]}],
    "joints": [{"name": "track", "type": "prismatic", "body_i": "ground", "body_j": "box",
                "frame": {"origin": [1, 0, 0], "z": [1, 0, 0], "x": [0, 1, 0]}}],
    "forces": [{"name": "dashpot", "type": "spring_damper", "body_i": "ground", "point_i": [0, 0, 0],
                "body_j": "box", "point_j": [0, 0, 0], "stiffness": 0, "damping": )" +
         num(c) + R"(, "rest_length": 1}],
    "solver": {"dt": 0.001, "t_end": )" + num(t_end) + solver_extra + R"(}
  })";
}

/// A uniform 2 kg rod of length 1 m along x, pinned to the ground at x = 0 about z, no
/// gravity: I_pivot = m L^2 / 3 = 2/3 kg m^2. A spring at its tip along y (tangential:
/// effective inverse mass L^2 / I_pivot = 1.5 1/kg), a radial one along x (held by the
/// pin: no mode) and a rotational spring-damper on the pin (1 / I_pivot = 1.5).
std::string pinned_rod_scene() {
  return R"({
    "name": "pinned rod",
    "gravity": [0, 0, 0],
    "bodies": [{"name": "rod", "mass": 2.0, "inertia": [0.001, 0.16666666666666666, 0.16666666666666666],
                "position": [0.5, 0, 0]}],
    "joints": [{"name": "pin", "type": "revolute", "body_i": "ground", "body_j": "rod",
                "frame": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}}],
    "forces": [
      {"name": "tangential", "type": "spring_damper", "body_i": "ground", "point_i": [1, 1, 0],
       "body_j": "rod", "point_j": [0.5, 0, 0], "stiffness": 400, "damping": 0, "rest_length": 1},
      {"name": "radial", "type": "spring_damper", "body_i": "ground", "point_i": [2, 0, 0],
       "body_j": "rod", "point_j": [0.5, 0, 0], "stiffness": 1e9, "damping": 0, "rest_length": 1},
      {"name": "torsion", "type": "rotational_spring_damper", "joint": "pin", "stiffness": 6, "damping": 0.3}
    ],
    "solver": {"dt": 0.001, "t_end": 0.01}
  })";
}

/// A body welded (fixed joint, local frames) to the ground, started rotated by `deg`
/// about `axis` from the weld's orientation.
std::string weld_scene(double deg, const std::string& type = "fixed", const char* axis = "z") {
  const double h = 0.5 * deg * M_PI / 180.0;
  const std::string q = std::string(axis) == "z" ? "[" + num(std::cos(h)) + ", 0, 0, " + num(std::sin(h)) + "]"
                                                 : "[" + num(std::cos(h)) + ", " + num(std::sin(h)) + ", 0, 0]";
  return R"({
    "name": "weld",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "plate", "mass": 1.0, "inertia": [0.01, 0.02, 0.03], "position": [0, 0, 0],
                "orientation": )" +
         q + R"(}],
    "joints": [{"name": "weld", "type": ")" + type + R"(", "body_i": "ground", "body_j": "plate",
                "frame_i": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
                "frame_j": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.01}
  })";
}

JobOptions job(const std::string& text, const std::string& out_name) {
  JobOptions o;
  o.scene = (temp_dir() / (out_name + ".json")).string();
  o.scene_text = text;
  o.threads = 1;
  o.backend = "cpu";
  o.out = (temp_dir() / (out_name + ".h5")).string();
  return o;
}

std::vector<std::int8_t> read_int8(const std::string& file, const char* name) {
  const h5::Handle f = h5::open_file_readonly(file);
  const h5::Handle d(H5Dopen2(f.id(), name, H5P_DEFAULT), H5Dclose);
  std::vector<std::int8_t> out(h5::dataset_dims(f.id(), name).at(0));
  H5Dread(d.id(), H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  return out;
}

std::string error_of(const JobOptions& o, std::string* path = nullptr) {
  try {
    run_job(o);
  } catch (const SceneError& e) {
    if (path) *path = e.path();
    return e.what();
  }
  return "";
}

}  // namespace

// RK4's stability function R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24 has |R| = 1 on the
// negative real axis where x^3 - 4 x^2 + 12 x - 24 = 0 (R(-x) = 1) and on the imaginary
// axis where |R(iy)|^2 = 1 - y^6/72 + y^8/576 = 1, y^2 = 8.
TEST(Stability, Rk4RadiusMatchesTheClosedForms) {
  const double x = rk4_stability_radius({-1.0, 0.0});
  EXPECT_NEAR(x * x * x - 4 * x * x + 12 * x - 24, 0.0, 1e-9);
  EXPECT_NEAR(x, 2.785293563, 1e-9);
  EXPECT_NEAR(rk4_stability_radius({0.0, 1.0}), 2.0 * std::sqrt(2.0), 1e-9);
  EXPECT_NEAR(rk4_stability_radius({-250.0, 0.0}), x, 1e-9);  // scale-free: h |lambda|
  EXPECT_TRUE(std::isinf(rk4_stability_radius({1.0, 0.0})));  // grows in the exact dynamics too
}

// Baumgarte: s^2 + 2 alpha s + beta^2; spring-damper: s^2 + c w s + k w.
TEST(Stability, ModeEigenvaluesAreTheRootsOfTheCharacteristicPolynomial) {
  const StabilityMode b = baumgarte_mode(2700.0, 10.0);
  EXPECT_NEAR(b.lambda.real(), -2700.0 - std::sqrt(2700.0 * 2700.0 - 100.0), 1e-9);
  EXPECT_EQ(b.field, StabilityField::BaumgarteAlpha);
  const StabilityMode u = baumgarte_mode(1.0, 10.0);  // underdamped: |lambda| = beta
  EXPECT_NEAR(std::abs(u.lambda), 10.0, 1e-12);
  EXPECT_EQ(u.field, StabilityField::BaumgarteBeta);
  const StabilityMode s = spring_mode(0, 400.0, 0.0, 2.0);
  EXPECT_NEAR(s.lambda.imag(), std::sqrt(800.0), 1e-12);
  EXPECT_NEAR(s.dt_max, 2.0 * std::sqrt(2.0) / std::sqrt(800.0), 1e-9);
  EXPECT_EQ(s.field, StabilityField::Stiffness);
  const StabilityMode d = spring_mode(3, 0.0, 3000.0, 1.0);
  EXPECT_NEAR(d.lambda.real(), -3000.0, 1e-9);
  EXPECT_EQ(d.field, StabilityField::Damping);
  EXPECT_EQ(d.force, 3);
}

// The effective inverse masses of the constrained system against the pinned rod's closed
// forms: L^2 / I_pivot for the tangential tip spring, 1 / I_pivot about the pin, none
// for the radial spring the pin holds.
TEST(Stability, EffectiveInverseMassOfThePinnedRod) {
  const Scene scene = parse_scene(pinned_rod_scene());
  const Model& model = scene.model;
  Data d(model, SchurFactorization::Dense);
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  const std::vector<StabilityMode> modes = stability_modes(model, d, Y.data());
  const double I_pivot = 2.0 / 3.0;
  bool tangential = false, torsion = false;
  for (const StabilityMode& m : modes) {
    EXPECT_NE(m.force, 1) << "the radial spring has no mode: the pin holds its line";
    if (m.force == 0) {
      tangential = true;
      EXPECT_NEAR(m.inverse_mass, 1.0 / I_pivot, 1e-9);
      EXPECT_NEAR(m.lambda.imag(), std::sqrt(400.0 / I_pivot), 1e-6);
    }
    if (m.force == 2) {
      torsion = true;
      EXPECT_NEAR(m.inverse_mass, 1.0 / I_pivot, 1e-9);
      const std::complex<double> root =
          (-0.3 / I_pivot - std::sqrt(std::complex<double>(0.09 / (I_pivot * I_pivot) - 4.0 * 6.0 / I_pivot))) / 2.0;
      EXPECT_NEAR(std::abs(m.lambda), std::abs(root), 1e-9);
    }
  }
  EXPECT_TRUE(tangential);
  EXPECT_TRUE(torsion);
  for (std::size_t k = 1; k < modes.size(); ++k) EXPECT_LE(modes[k - 1].dt_max, modes[k].dt_max);  // fastest first
}

// The damper of c dt / m = 3 and the Baumgarte gain 2.7 / dt are refused as bad input,
// naming the field and the largest stable dt; c dt / m = 2 is warned of. Stable is not
// accurate: at c dt / m = 2 and 1 RK4 keeps the decay to 0.333 and 0.375 per step
// against e^-2 and e^-1, and the energy balance (docs/solver.md, "Energy balance") flags
// both (measured 0.49 and 0.064 of the work); at c dt / m = 0.1 it closes to 1.6e-6.
TEST(Stability, RunRefusesUnstableStepsAndWarnsNearTheLimit) {
  const double x = rk4_stability_radius({-1.0, 0.0});
  std::string path;
  std::string msg = error_of(job(damper_scene(3000.0), "damper_refused"), &path);
  EXPECT_EQ(path, "/forces/0/damping");
  char want[64];
  std::snprintf(want, sizeof want, "use dt <= %.4g s", x / 3000.0);
  EXPECT_NE(msg.find(want), std::string::npos) << msg;
  EXPECT_NE(msg.find("allow_unstable"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(temp_dir() / "damper_refused.h5"));

  const double alpha = 2.7 / 0.001, beta = 10.0;
  msg = error_of(job(damper_scene(0.0, ", \"baumgarte_alpha\": 2700"), "baumgarte_refused"), &path);
  EXPECT_EQ(path, "/solver/baumgarte_alpha");
  std::snprintf(want, sizeof want, "use dt <= %.4g s", x / (alpha + std::sqrt(alpha * alpha - beta * beta)));
  EXPECT_NE(msg.find(want), std::string::npos) << msg;

  const JobResult warned = run_job(job(damper_scene(2000.0), "damper_warned"));
  EXPECT_EQ(warned.exit_code, 0);
  ASSERT_EQ(warned.summary["warnings"].size(), 2u);
  EXPECT_EQ(warned.summary["warnings"][0].get<std::string>().rfind("/forces/0/damping: ", 0), 0u);
  EXPECT_NE(warned.summary["warnings"][1].get<std::string>().find("energy balance"), std::string::npos);
  EXPECT_EQ(warned.summary["instances_ok"], 1);
  const JobResult stable = run_job(job(damper_scene(1000.0), "damper_stable"));
  ASSERT_EQ(stable.summary["warnings"].size(), 1u);  // no step-size warning; the balance's
  EXPECT_EQ(stable.summary["warnings"][0].get<std::string>().rfind("instance 0: the energy balance", 0), 0u);
  const JobResult calm = run_job(job(damper_scene(100.0), "damper_calm"));
  EXPECT_TRUE(calm.summary["warnings"].empty());
  EXPECT_LT(calm.summary["energy_balance_rel"].get<double>(), 4e-6);

  // `check` reports the same estimate and refusal.
  const json c = check_scene(parse_scene(damper_scene(3000.0)));
  const json& st = c["step_stability"];
  EXPECT_TRUE(st["refused"].get<bool>());
  EXPECT_EQ(st["error"].get<std::string>().rfind("/forces/0/damping: ", 0), 0u);
  ASSERT_FALSE(st["modes"].empty());
  EXPECT_EQ(st["modes"][0]["field"], "/forces/0/damping");
  EXPECT_EQ(st["modes"][0]["verdict"], "unstable");
  EXPECT_NEAR(st["modes"][0]["lambda_dt"].get<double>(), 3.0, 1e-12);
  EXPECT_FALSE(check_scene(parse_scene(damper_scene(3000.0, ", \"allow_unstable\": true")))["step_stability"]["refused"]);
}

// With allow_unstable the damper of c dt / m = 3 runs: |R(-3)| = 1.375 per step makes
// the speed grow geometrically while Phi stays 0; the runaway bound stops the instance
// within a few steps (E_0 = 0.5 J: K passes s (sqrt(E_0 + E_floor))^2 < 100 J after at
// most log(200) / log(1.375^2) < 9 steps), reason runaway, in the summary and the file.
TEST(InstanceStatus, RunawayDamperIsReportedWithItsReason) {
  const JobResult r = run_job(job(damper_scene(3000.0, ", \"allow_unstable\": true"), "runaway"));
  EXPECT_EQ(r.exit_code, 3);  // no instance ok
  EXPECT_EQ(r.summary["instances_diverged"], 1);
  ASSERT_EQ(r.summary["failed_instances"].size(), 1u);
  const json& f = r.summary["failed_instances"][0];
  EXPECT_EQ(f["instance"], 0);
  EXPECT_EQ(f["reason"], "runaway");
  EXPECT_GT(f["time_s"].get<double>(), 0.0);
  EXPECT_LE(f["time_s"].get<double>(), 0.009);
  EXPECT_EQ(r.summary["warnings"].size(), 1u);  // the allowed unstable step is still warned of
  EXPECT_EQ(read_int8(r.out_file, "status_reason"), (std::vector<std::int8_t>{kReasonRunaway}));
  EXPECT_EQ(read_int8(r.out_file, "status"), (std::vector<std::int8_t>{2}));
}

// A given bound (solver.runaway_kinetic_energy): a 1 kg body thrown at 1 m/s under
// gravity has K(t) = (1 + g^2 t^2) / 2, exact under RK4 (a polynomial of degree 2), so
// it passes K_max = 1 J at t* = 1 / g; the step that ends past t* is the one flagged.
// The CPU backend and the batched per-thread functions agree on status, reason and step.
TEST(InstanceStatus, GivenRunawayBoundStopsAtTheClosedFormTime) {
  const std::string text = R"({
    "name": "throw", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "ball", "mass": 1.0, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, 0],
                "velocity": [1, 0, 0]}],
    "solver": {"dt": 0.001, "t_end": 0.2, "runaway_kinetic_energy": 1.0}
  })";
  const Scene scene = parse_scene(text);
  const std::vector<Model> models(1, scene.model);
  const int n = 2;
  SimulatorOptions so;
  so.backend = "cpu";
  so.threads = 1;
  auto sim = Simulator::create(models, so, n);
  sim->advance(200);
  std::vector<std::int8_t> status(n), reason(n);
  std::vector<double> status_time(n);
  sim->read_status(status.data(), status_time.data(), reason.data());
  const double t_star = 1.0 / 9.81;
  const long s_flagged = static_cast<long>(std::ceil(t_star / 0.001)) - 1;  // (s + 1) dt > t*
  EXPECT_EQ(status[0], 2);
  EXPECT_EQ(reason[0], kReasonRunaway);
  EXPECT_NEAR(status_time[0], s_flagged * 0.001, 1e-12);

  const AssembledBatch assembled = assemble_batch(models, n, 1);
  test::HostBatch<double> hb(models, n, assembled);
  test::CpuGridExec<double> x;
  for (int s = 0; s < 200; ++s) hb.rk4_step(x);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(hb.status[i], status[i]);
    EXPECT_EQ(hb.status_reason[i], reason[i]);
    EXPECT_EQ(hb.status_step[i], s_flagged);
  }
}

// The derived bound does not flag motion the loads explain: free fall for 3 s (K grows as
// (G t)^2 / 2, the bound as s (sqrt(E_0 + E_floor) + G t / sqrt 2)^2), and it catches the
// runaway damper on the batched path as on the CPU reference (same reason, same step).
TEST(InstanceStatus, DerivedBoundAgreesBetweenCpuAndGrid) {
  const std::string fall = R"({
    "name": "fall", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "ball", "mass": 3.0, "inertia": [0.01, 0.02, 0.03], "position": [0, 0, 0],
                "angular_velocity": [0, 0, 5]}],
    "solver": {"dt": 0.001, "t_end": 3}
  })";
  for (const std::string& text : {fall, damper_scene(3000.0, ", \"allow_unstable\": true")}) {
    const std::vector<Model> models(1, parse_scene(text).model);
    const int n = 3, steps = 3000;
    SimulatorOptions so;
    so.backend = "cpu";
    so.threads = 1;
    auto sim = Simulator::create(models, so, n);
    sim->advance(steps);
    std::vector<std::int8_t> status(n), reason(n);
    std::vector<std::int64_t> status_steps(n);
    sim->get_state(nullptr, n, nullptr, nullptr, status.data(), status_steps.data(), nullptr, reason.data());
    const bool runaway = models[0].name == "damper";
    EXPECT_EQ(status[0], runaway ? 2 : 0) << models[0].name;
    EXPECT_EQ(reason[0], runaway ? kReasonRunaway : kReasonNone) << models[0].name;

    const AssembledBatch assembled = assemble_batch(models, n, 1);
    test::HostBatch<double> hb(models, n, assembled);
    test::CpuGridExec<double> x;
    for (int s = 0; s < steps; ++s) hb.rk4_step(x);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(hb.status[i], status[i]);
      EXPECT_EQ(hb.status_reason[i], reason[i]);
      EXPECT_EQ(hb.status_step[i], status_steps[i]);
    }
  }
}

// The reason is part of the per-instance state: get_state reads it, set_state writes it
// with the status (and refuses one that does not fit), reset restores the assembly's.
TEST(InstanceStatus, StateApiKeepsTheReason) {
  const std::vector<Model> models(1, parse_scene(damper_scene(3000.0, ", \"allow_unstable\": true")).model);
  SimulatorOptions so;
  so.backend = "cpu";
  so.threads = 1;
  auto sim = Simulator::create(models, so, 2);
  sim->advance(20);
  std::int8_t status[2], reason[2];
  sim->get_state(nullptr, 2, nullptr, nullptr, status, nullptr, nullptr, reason);
  EXPECT_EQ(reason[1], kReasonRunaway);
  const int one[] = {1};
  const std::int8_t ok[] = {0}, none[] = {kReasonNone}, diverged[] = {2}, violation[] = {kReasonConstraintViolation};
  sim->set_state(one, 1, nullptr, nullptr, diverged, nullptr, nullptr, violation);
  sim->get_state(one, 1, nullptr, nullptr, status, nullptr, nullptr, reason);
  EXPECT_EQ(reason[0], kReasonConstraintViolation);
  const std::int8_t assembly[] = {kReasonAssemblyFailure};
  EXPECT_THROW(sim->set_state(one, 1, nullptr, nullptr, diverged, nullptr, nullptr, assembly), std::invalid_argument);
  EXPECT_THROW(sim->set_state(one, 1, nullptr, nullptr, nullptr, nullptr, nullptr, none), std::invalid_argument);
  sim->get_state(one, 1, nullptr, nullptr, status, nullptr, nullptr, reason);
  EXPECT_EQ(reason[0], kReasonConstraintViolation);  // nothing changed by the refused calls
  sim->set_state(one, 1, nullptr, nullptr, ok, nullptr, nullptr, nullptr);  // Ok without a reason: none
  sim->get_state(one, 1, nullptr, nullptr, status, nullptr, nullptr, reason);
  EXPECT_EQ(status[0], 0);
  EXPECT_EQ(reason[0], kReasonNone);
  sim->reset(nullptr, 2);
  sim->get_state(nullptr, 2, nullptr, nullptr, status, nullptr, nullptr, reason);
  EXPECT_EQ(reason[0], kReasonNone);
  EXPECT_EQ(reason[1], kReasonNone);
}

// A weld started 170 deg from its orientation would assemble to exactly 180 deg (the
// rows z_i . x_j, z_i . y_j, x_i . y_j vanish there too): assembly fails and names the
// joint. Started 10 deg away it assembles to the weld's orientation (0 deg).
TEST(Assembly, WeldStartedFarAwayFailsInsteadOfFlipping) {
  for (const double deg : {10.0, 170.0}) {
    const Model model = parse_scene(weld_scene(deg)).model;
    Data d(model, SchurFactorization::Dense);
    std::vector<double> Y(static_cast<std::size_t>(model.ny()));
    initial_state(model, Y.data());
    const AssemblyResult res = assemble(model, d, Y.data());
    const double angle = 2.0 * std::acos(std::min(1.0, std::fabs(Y[3])));  // p = (w, x, y, z) of the plate
    if (deg < 90) {
      EXPECT_TRUE(res.ok) << res.message;
      EXPECT_NEAR(angle, 0.0, 1e-8);
      EXPECT_NEAR(res.orientation_change, deg * M_PI / 180.0, 1e-8);
      EXPECT_TRUE(res.message.empty());
    } else {
      EXPECT_NEAR(angle, M_PI, 1e-6);  // Newton converged to the flipped root...
      EXPECT_FALSE(res.ok);            // ...which is refused
      EXPECT_NE(res.message.find("joint 'weld' (fixed)"), std::string::npos) << res.message;
      EXPECT_NE(res.message.find("flipped"), std::string::npos) << res.message;
    }
  }
  // A revolute joint whose body starts 170 deg about x from it: its axis would flip.
  const Model rev = parse_scene(weld_scene(170.0, "revolute", "x")).model;
  Data d(rev, SchurFactorization::Dense);
  std::vector<double> Y(static_cast<std::size_t>(rev.ny()));
  initial_state(rev, Y.data());
  const AssemblyResult res = assemble(rev, d, Y.data());
  EXPECT_FALSE(res.ok);
  EXPECT_NE(res.message.find("z axis flipped"), std::string::npos) << res.message;
}

// The job reports the flipped weld as an assembly failure with its message, in the
// summary (failed_instances) and the file (/status_reason 5).
TEST(Assembly, FlippedWeldIsAnAssemblyFailureInTheRun) {
  const JobResult r = run_job(job(weld_scene(170.0), "weld_flip"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.summary["instances_assembly_failed"], 1);
  ASSERT_EQ(r.summary["failed_instances"].size(), 1u);
  EXPECT_EQ(r.summary["failed_instances"][0]["reason"], "assembly_failure");
  EXPECT_NE(r.summary["failed_instances"][0]["message"].get<std::string>().find("joint 'weld'"), std::string::npos);
  EXPECT_EQ(read_int8(r.out_file, "status_reason"), (std::vector<std::int8_t>{kReasonAssemblyFailure}));
}

// A pendulum bob given a vertical velocity without the matching angular velocity: the
// projection onto Phi_q qdot = 0 changes it by far more than 1 %, a warning naming the
// instance, the body, the given and the achieved value; given v = omega x r with that omega, nothing is changed.
TEST(Assembly, ChangedGivenVelocityIsWarnedOf) {
  const auto scene = [](const std::string& velocity) {
    return R"({
      "name": "bob", "gravity": [0, 0, -9.81],
      "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0], )" +
           velocity + R"(}],
      "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                  "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
      "solver": {"dt": 0.001, "t_end": 0.01}
    })";
  };
  const JobResult bad = run_job(job(scene(R"("velocity": [0, 0, 1])"), "velocity_changed"));
  ASSERT_EQ(bad.summary["warnings"].size(), 1u);
  const std::string warning = bad.summary["warnings"][0].get<std::string>();
  EXPECT_NE(warning.find("instance 0, body 'bob' velocity [m/s]: given [0, 0, 1], after assembly ["),
            std::string::npos)
      << warning;
  EXPECT_GT(bad.summary["assembly_max_velocity_change_m_s"].get<double>(), 0.5);
  const h5::Handle f = h5::open_file_readonly(bad.out_file);
  const h5::Handle g(H5Gopen2(f.id(), "assembly", H5P_DEFAULT), H5Gclose);
  EXPECT_GT(h5::read_doubles(g.id(), "velocity_change").at(0), 0.5);
  // omega = (0, -2, 0) about the hinge (y): v = omega x r = (0, 0, 1) at r = (0.5, 0, 0).
  const JobResult good =
      run_job(job(scene(R"("velocity": [0, 0, 1], "angular_velocity": [0, -2, 0])"), "velocity_kept"));
  EXPECT_TRUE(good.summary["warnings"].empty()) << good.summary["warnings"].dump();
  EXPECT_LT(good.summary["assembly_max_velocity_change_m_s"].get<double>(), 1e-12);
}

// Initial conditions in joint terms in a run: a rocker angle the four-bar cannot reach
// fails that instance's assembly (exit 3 with no instance ok; status assembly_failed,
// reason assembly_failure) with a message naming the joint; the crank's body given an
// angular velocity that the projection changes is warned of naming the main bearing's
// rate, given and achieved.
TEST(Assembly, InitialCoordinatesInARun) {
  const std::string dir = std::string(SIMPHANT_SOURCE_DIR) + "/examples/";
  json far = json::parse(std::ifstream(dir + "four_bar.json"));
  far.erase("sweep");
  far["solver"]["t_end"] = 0.01;
  far["joints"][3]["initial"] = {{"angle", 2.5}};
  const JobResult r = run_job(job(far.dump(), "initial_unreachable"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.summary["instances_assembly_failed"], 1);
  ASSERT_EQ(r.summary["failed_instances"].size(), 1u);
  EXPECT_EQ(r.summary["failed_instances"][0]["reason"], "assembly_failure");
  EXPECT_NE(r.summary["failed_instances"][0]["message"].get<std::string>().find("joint 'rocker_pivot' initial angle"),
            std::string::npos)
      << r.summary["failed_instances"][0].dump();
  EXPECT_EQ(read_int8(r.out_file, "status_reason"), (std::vector<std::int8_t>{kReasonAssemblyFailure}));

  json spun = json::parse(std::ifstream(dir + "slider_crank.json"));
  spun.erase("sweep");
  spun["solver"]["t_end"] = 0.01;
  spun["bodies"][0]["angular_velocity"] = {0.0, 10.0, 0.0};
  const JobResult w = run_job(job(spun.dump(), "initial_rate_warned"));
  EXPECT_EQ(w.exit_code, 0);
  bool named = false;
  for (const json& warning : w.summary["warnings"])
    named = named || warning.get<std::string>().find("instance 0, joint 'main_bearing' rate [rad/s]: given (by the "
                                                     "bodies' velocities) 10, after assembly 9.788") != std::string::npos;
  EXPECT_TRUE(named) << w.summary["warnings"].dump();
  // Given as the joint's initial rate instead, nothing is changed and nothing warned of.
  spun["bodies"][0].erase("angular_velocity");
  spun["joints"][0]["initial"] = {{"rate", 10.0}};
  const JobResult ok = run_job(job(spun.dump(), "initial_rate_kept"));
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_TRUE(ok.summary["warnings"].empty()) << ok.summary["warnings"].dump();
}

// A given runaway bound on the robot arm falling under gravity: the joint-coordinate
// solvers (aba, cga: kinetic energy from the joint rates) and the maximal-coordinate one
// (dae: from the body velocities) flag the same step, an independent check of each
// path's kinetic energy.
TEST(InstanceStatus, GivenBoundFlagsTheSameStepInJointAndMaximalCoordinates) {
  const std::string file = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json";
  json doc = json::parse(std::ifstream(file));
  doc["solver"]["runaway_kinetic_energy"] = 1.0;
  doc["solver"]["t_end"] = 0.2;
  std::vector<double> times;
  for (const char* solver : {"dae", "aba", "cga"}) {
    JobOptions o = job(doc.dump(), std::string("arm7_runaway_") + solver);
    o.scene = file;  // resolves the relative URDF
    o.solver = solver;
    const JobResult r = run_job(o);
    ASSERT_EQ(r.summary["failed_instances"].size(), 1u) << solver;
    EXPECT_EQ(r.summary["failed_instances"][0]["reason"], "runaway") << solver;
    times.push_back(r.summary["failed_instances"][0]["time_s"].get<double>());
  }
  EXPECT_GT(times[0], 0.01);  // the arm starts with less than 1 J
  EXPECT_EQ(times[1], times[0]);
  EXPECT_EQ(times[2], times[0]);
}
