// Forward sensitivities of the state through a Simulator made from a scene
// (Simulator::enable_sensitivities, sim/sensitivity_engine.hpp, docs/sensitivities.md),
// checked against central differences of the same backend's runs: each parameter set
// to v +- h on every instance with Simulator::set_parameters (which re-assembles the
// instance, as the seeds' differences do), both runs advanced by the same steps, the
// difference of their states (read_states) and reactions (read_reactions) divided by 2 h,
// against read_state_sensitivities and read_reaction_sensitivities.
//
// Parameters: on the slider-crank (examples/slider_crank.json, 3 instances of its sweep)
// the crank's mass (shared), the piston's mass (swept per instance), the crank pin's x
// (frame.origin[0] of a joint given in the world frame at assembly: both bodies' joint
// frames move with it, the crank's length and angle), the motor's input (an actuator's
// default input) and the gas load's force (swept); on the four-bar the rocker pivot's x
// on the ground (swept; it moves the assembled initial configuration) and the drive
// torque (swept); on the crank press its throw and conrod length; on the driven
// slider-crank its driver law's speed and initial angle. With every reduction
// over time enabled, their derivatives (read_reduction_sensitivities: max, min, mean,
// rms) against central differences of the runs' read_reductions, per quantity.
//
// Tolerance: the differences use h = 1e-5 |v|, their runs assembled to 1e-13 as the seeds
// are. Their truncation error h^2 |y'''| / 6 and rounding error eps |y| / h are each about
// 1e-9 of the derivatives' size here; the tangents follow the engine's own trajectory (the
// fused path's step), where the backend (cpu) steps with its own rounding. The bound is
// 1e-6 of the largest difference per parameter (the measured values are printed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/formulas/joint_loads.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/math/dual.hpp"
#include "simphant/job/scene_simulator.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/frame_sensitivities.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/sensitivity_engine.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

nlohmann::json example(const std::string& name) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
  return nlohmann::json::parse(in);
}

std::unique_ptr<Simulator> make(const nlohmann::json& doc, int n, const std::string& backend = "cpu") {
  SimulatorOptions o;
  o.backend = backend;
  o.threads = 2;
  return make_simulator(parse_scene(doc.dump()), n, o);
}

/// The scene with every reduction over time of its model enabled (power included).
std::unique_ptr<Simulator> make_reducing(const nlohmann::json& doc, int n) {
  std::unique_ptr<Simulator> sim = make(doc, n);
  sim->set_reductions(parse_reduction_quantities({"all"}, sim->model().n_drivers(), "test"));
  return sim;
}

/// read_reductions: (n, C, kReductionStats).
std::vector<double> reductions_of(const Simulator& sim) {
  std::vector<double> r(static_cast<std::size_t>(sim.n_instances()) * sim.reduction_layout().channels *
                        kReductionStats);
  sim.read_reductions(r.data());
  return r;
}

/// The reductions' derivatives (n, C, 4, S) of instance i, parameter s, against the
/// Richardson extrapolation of the central differences with steps h and 2 h of the
/// statistics (run[0..3]: at v + h, v - h, v + 2h, v - 2h; (n, C, kReductionStats) each):
/// (4 D(h) - D(2h)) / 3, whose truncation error is O(h^4). A magnitude near 0 (the min of
/// |f| where a force passes close to zero) is curved enough for D(h)'s O(h^2) error to
/// reach 1e-5 of the derivative. Per quantity, the worst |tangent - difference| over its
/// channels and max, min, mean, rms, relative to the largest |difference| among them.
/// A max whose step differs between the runs (two samples within the change of each
/// other: the discrete peak is not differentiable there) is skipped and counted, and so
/// is a NaN derivative where the statistic has none (checked on the nominal run's
/// statistics `nominal`: a NaN value, or a sample exactly 0 in the channel).
/// constraint_violation is left out: the violation is rounding. Only the statistics
/// below n_stats (max, min, mean, rms in that order) are compared.
void compare_reductions(const ReductionLayout& L, const int* widths, const std::vector<double>& tangent,
                        const std::vector<double>& nominal, const std::vector<double>* run, double h, int i, int s,
                        int S, int n_stats, const std::string& what) {
  for (int q = 0; q < kReductionQuantities; ++q) {
    if (!L.enabled(static_cast<ReductionQuantity>(q)) || q == static_cast<int>(ReductionQuantity::ConstraintViolation))
      continue;
    double worst = 0, scale = 0;
    int skipped = 0;
    for (int c = L.offset[q]; c < L.offset[q] + widths[q]; ++c)
      for (int st = 0; st < n_stats; ++st) {
        const std::size_t row = (static_cast<std::size_t>(i) * L.channels + c) * kReductionStats;
        if (st == 0 && !(run[0][row + 4] == run[1][row + 4] && run[0][row + 4] == run[2][row + 4] &&
                         run[0][row + 4] == run[3][row + 4])) {
          ++skipped;
          continue;
        }
        const std::size_t k = row + st;
        const double d1 = (run[0][k] - run[1][k]) / (2 * h), d2 = (run[2][k] - run[3][k]) / (4 * h);
        const double diff = (4 * d1 - d2) / 3;
        const double t = tangent[((static_cast<std::size_t>(i) * L.channels + c) * kReductionTangentStats + st) * S + s];
        // NaN only where the statistic has no derivative: a NaN value (a joint without a
        // coordinate), or a channel with a sample exactly 0 (its min 0: a magnitude that
        // leaves 0 there, such as a rounding-level torque, or an rms of samples all 0).
        if (std::isnan(t)) {
          EXPECT_TRUE(std::isnan(nominal[k]) || nominal[row + 1] == 0.0)
              << what << ", channel " << c << ", statistic " << st << ": " << nominal[k];
          ++skipped;
          continue;
        }
        scale = std::max(scale, std::abs(diff));
        worst = std::max(worst, std::abs(t - diff));
      }
    if (scale == 0) continue;
    std::printf("[ sensitivity ]   %s, reductions of %s: max |d| %.3e, error %.2e (%.1e), %d left out (a peak moved a "
                "step, or no derivative)\n",
                what.c_str(), reduction_quantity_name(static_cast<ReductionQuantity>(q)), scale, worst, worst / scale,
                skipped);
    EXPECT_LT(worst, 1e-6 * scale) << what << ", " << reduction_quantity_name(static_cast<ReductionQuantity>(q));
  }
}

/// read_states after `steps` steps (advanced in chunks of `chunk`).
std::vector<double> states_after(Simulator& sim, int steps, int chunk) {
  for (int s = 0; s < steps; s += chunk) sim.advance(std::min(chunk, steps - s));
  std::vector<double> y(static_cast<std::size_t>(sim.n_instances()) * sim.model().n_bodies() * 13);
  sim.read_states(y.data());
  return y;
}

std::vector<double> reactions_of(const Simulator& sim) {
  std::vector<double> r(static_cast<std::size_t>(sim.n_instances()) * sim.model().n_joints() * 6);
  sim.read_reactions(r.data());
  return r;
}

/// A frame's quantities beside the state and reactions: joint loads (n, J, 6), bearing
/// loads (n, J, 4) (Simulator::joint_load_frames), driver loads (n, D), energy (n).
struct FrameLoads {
  std::vector<double> joint_loads, bearing_loads, driver_loads, energy;
};

FrameLoads frame_loads_of(const Simulator& sim, const std::vector<double>& states, const std::vector<double>& reactions) {
  const std::size_t n = static_cast<std::size_t>(sim.n_instances()), J = sim.model().n_joints(),
                    D = sim.model().n_drivers();
  FrameLoads f{std::vector<double>(n * J * 6), std::vector<double>(n * J * 4), std::vector<double>(n * D),
               std::vector<double>(n)};
  if (D > 0) sim.read_driver_loads(f.driver_loads.data());
  sim.joint_load_frames(states.data(), reactions.data(), D > 0 ? f.driver_loads.data() : nullptr,
                        f.joint_loads.data(), f.bearing_loads.data());
  sim.read_energy(f.energy.data());
  return f;
}

/// max over instance i's entries of |tangent - difference| and of |difference|, entries
/// e of `per` numbers each, tangent k * S + s.
std::pair<double, double> compare(const std::vector<double>& tangent, const std::vector<double>& plus,
                                  const std::vector<double>& minus, double h, int i, int per, int s, int S) {
  double worst = 0, scale = 0;
  for (int e = 0; e < per; ++e) {
    const std::size_t k = static_cast<std::size_t>(i) * per + e;
    const double diff = (plus[k] - minus[k]) / (2 * h);
    scale = std::max(scale, std::abs(diff));
    const double t = tangent[k * S + s];
    // A NaN tangent or difference is a failure, not skipped.
    worst = std::isnan(t) || std::isnan(diff) ? INFINITY : std::max(worst, std::abs(t - diff));
  }
  return {worst, scale};
}

/// A parameter and its value in each instance (the scene's, or the sweep's sample).
struct Case {
  std::string path;
  std::vector<double> value;  ///< per instance
};

/// The central-difference step for a value v: 1e-5 of it (1e-5 for 0).
double fd_step(double v) { return v != 0 ? 1e-5 * std::abs(v) : 1e-5; }

/// reduction_stats: the statistics of the reductions over time compared
/// (compare_reductions' n_stats).
void check(const std::string& scene, const std::vector<Case>& cases, int n, int steps, int chunk,
           int reduction_stats = kReductionTangentStats) {
  nlohmann::json doc = example(scene);
  // The differences' runs re-assemble each instance: at the default tolerance (1e-10)
  // their difference over 2 h would carry up to 1e-10 / h of the assembly's stopping
  // point; the seeds assemble to kSeedAssemblyTolerance (sim/sensitivity_seeds.hpp).
  doc["solver"]["assembly_tolerance"] = 1e-13;
  nlohmann::json with = doc;
  for (const Case& c : cases) with["sensitivities"]["parameters"].push_back(c.path);
  std::unique_ptr<Simulator> sim = make_reducing(with, n);
  ASSERT_EQ(sim->n_sensitivities(), static_cast<int>(cases.size()));
  const ReductionLayout L = sim->reduction_layout();
  int widths[kReductionQuantities];
  for (int q = 0; q < kReductionQuantities; ++q)
    widths[q] = reduction_components(q, sim->model().n_joints(), sim->model().n_drivers(), 0);
  const std::vector<double> y = states_after(*sim, steps, chunk);
  const int B = sim->model().n_bodies(), S = static_cast<int>(cases.size());
  const int J = sim->model().n_joints();
  const int D = sim->model().n_drivers();
  std::vector<double> dy(static_cast<std::size_t>(n) * B * 13 * S), dR(static_cast<std::size_t>(n) * J * 6 * S);
  sim->read_state_sensitivities(dy.data());
  sim->read_reaction_sensitivities(dR.data());
  // The frame's other quantities from one dual frame.
  FrameLoads dF{std::vector<double>(static_cast<std::size_t>(n) * J * 6 * S),
                std::vector<double>(static_cast<std::size_t>(n) * J * 4 * S),
                std::vector<double>(static_cast<std::size_t>(n) * D * S), std::vector<double>(static_cast<std::size_t>(n) * S)};
  FrameSensitivities fs;
  fs.joint_loads = dF.joint_loads.data();
  fs.bearing_loads = dF.bearing_loads.data();
  fs.driver_loads = D > 0 ? dF.driver_loads.data() : nullptr;
  fs.energy = dF.energy.data();
  sim->read_frame_sensitivities(fs);
  std::vector<double> dred(static_cast<std::size_t>(n) * L.channels * kReductionTangentStats * S);
  sim->read_reduction_sensitivities(dred.data());
  const std::vector<double> nominal = reductions_of(*sim);
  // Every tangent solve reached the refinement tolerance (read_refinement).
  for (const RefinementRecord& r : sim->sensitivity_refinement()) EXPECT_EQ(r.unconverged, 0) << scene;
  // The values follow the backend: the same as a run without sensitivities, bit for bit.
  EXPECT_EQ(y, states_after(*make(doc, n), steps, chunk));
  for (int s = 0; s < S; ++s) {
    const Case& c = cases[static_cast<std::size_t>(s)];
    // v + h, v - h, and for the reductions' extrapolation v + 2h, v - 2h.
    std::vector<double> yy[2], RR[2], red[4];
    FrameLoads FF[2];
    for (int side = 0; side < 4; ++side) {
      std::unique_ptr<Simulator> fd = make_reducing(doc, n);
      std::vector<double> v(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        const double h = fd_step(c.value[i]) * (side < 2 ? 1 : 2);
        v[i] = c.value[i] + (side % 2 == 0 ? h : -h);
      }
      fd->set_parameters(nullptr, n, &c.path, 1, v.data());
      const std::vector<double> y_side = states_after(*fd, steps, chunk);
      if (side < 2) {
        yy[side] = y_side;
        RR[side] = reactions_of(*fd);
        FF[side] = frame_loads_of(*fd, y_side, RR[side]);
      }
      red[side] = reductions_of(*fd);
    }
    for (int i = 0; i < n; ++i) {
      const double h = fd_step(c.value[i]);
      const auto [worst, scale] = compare(dy, yy[0], yy[1], h, i, B * 13, s, S);
      const auto [worst_r, scale_r] = compare(dR, RR[0], RR[1], h, i, J * 6, s, S);
      std::printf("[ sensitivity ] %s, %s, instance %d: state max |d| %.3e, error %.2e (%.1e); reactions max |d| "
                  "%.3e, error %.2e (%.1e)\n",
                  scene.c_str(), c.path.c_str(), i, scale, worst, worst / scale, scale_r, worst_r, worst_r / scale_r);
      EXPECT_GT(scale, 0.0) << c.path;
      EXPECT_LT(worst, 1e-6 * scale) << c.path << ", instance " << i;
      EXPECT_GT(scale_r, 0.0) << c.path;
      EXPECT_LT(worst_r, 1e-6 * scale_r) << c.path << ", instance " << i << " (reactions)";
      // The joint and bearing loads, driver loads and energy of the frame: a bearing load's
      // magnitude (radial force, bending moment) near 0 is as curved as the reductions'
      // min of |f| above, so these compare at 1e-6 of their largest entry per quantity.
      const std::pair<const char*, std::pair<const std::vector<double>*, int>> loads[] = {
          {"joint_loads", {&dF.joint_loads, J * 6}}, {"bearing_loads", {&dF.bearing_loads, J * 4}},
          {"driver_loads", {&dF.driver_loads, D}}, {"energy", {&dF.energy, 1}}};
      for (const auto& [name, tangent] : loads) {
        if (tangent.second == 0) continue;
        const std::vector<double>& plus = name == std::string("joint_loads")     ? FF[0].joint_loads
                                          : name == std::string("bearing_loads") ? FF[0].bearing_loads
                                          : name == std::string("driver_loads")  ? FF[0].driver_loads
                                                                                 : FF[0].energy;
        const std::vector<double>& minus = name == std::string("joint_loads")     ? FF[1].joint_loads
                                           : name == std::string("bearing_loads") ? FF[1].bearing_loads
                                           : name == std::string("driver_loads")  ? FF[1].driver_loads
                                                                                  : FF[1].energy;
        const auto [worst_l, scale_l] = compare(*tangent.first, plus, minus, h, i, tangent.second, s, S);
        std::printf("[ sensitivity ]   %s, %s, instance %d, frame %s: max |d| %.3e, error %.2e (%.1e)\n",
                    scene.c_str(), c.path.c_str(), i, name, scale_l, worst_l, worst_l / scale_l);
        EXPECT_GT(scale_l, 0.0) << c.path << ", " << name;
        EXPECT_LT(worst_l, 1e-6 * scale_l) << c.path << ", instance " << i << ", " << name;
      }
      compare_reductions(L, widths, dred, nominal, red, h, i, s, S, reduction_stats,
                         scene + ", " + c.path + ", instance " + std::to_string(i));
    }
  }
}

std::vector<double> swept(const std::string& scene, const std::string& path, int n) {
  // The sweep's values per instance, through the Simulator's own sample (make_simulator).
  const Scene sc = parse_scene(example(scene).dump());
  const SweepSamples samples = sample_sweep(sc.sweep, n);
  for (std::size_t p = 0; p < samples.paths.size(); ++p)
    if (samples.paths[p] == path) return samples.values[p];
  ADD_FAILURE() << path << " is not swept";
  return {};
}

TEST(Sensitivities, SliderCrankMatchesCentralDifferences) {
  const int n = 3;
  check("slider_crank",
        {{"bodies.crank.mass", std::vector<double>(n, example("slider_crank")["bodies"][0]["mass"].get<double>())},
         {"bodies.piston.mass", swept("slider_crank", "bodies.piston.mass", n)},
         {"joints.crank_pin.frame.origin[0]",
          std::vector<double>(n, example("slider_crank")["joints"][1]["frame"]["origin"][0].get<double>())},
         {"forces.motor.value", swept("slider_crank", "forces.motor.value", n)},
         {"forces.gas_load.force[0]", swept("slider_crank", "forces.gas_load.force[0]", n)}},
        n, 400, 40);
}

TEST(Sensitivities, FourBarMatchesCentralDifferences) {
  const int n = 2;
  check("four_bar",
        {{"joints.rocker_pivot.frame_i.origin[0]", swept("four_bar", "joints.rocker_pivot.frame_i.origin[0]", n)},
         {"forces.drive.torque[1]", swept("four_bar", "forces.drive.torque[1]", n)}},
        n, 300, 7);
}

// The crank press's peak loads (the max of every reduced quantity: the bearing loads,
// reactions, joint loads, driver torque, energy, power) with respect to the crank's
// throw and the conrod's length, the design's toleranced values: 400 steps take the ram
// through its forming stroke (the peak main-bearing load falls at t = 0.25 s). Only the
// max is compared: the forming load's stiffness table is piecewise linear, so the sums
// behind mean and rms, and a min where the force leaves zero, change slope wherever a
// sample's deflection lies within the differences' 2 h of a table point (measured:
// D(h) and D(2h) of a mean part by 1e-3 there); a peak's sample lies inside one piece.
TEST(Sensitivities, CrankPressPeakLoadsMatchCentralDifferences) {
  const int n = 2;
  check("crank_press",
        {{"joints.crank_pin.frame_i.origin[0]", swept("crank_press", "joints.crank_pin.frame_i.origin[0]", n)},
         {"joints.wrist_pin.frame_i.origin[0]", swept("crank_press", "joints.wrist_pin.frame_i.origin[0]", n)}},
        n, 400, 50, 1);
}

// A driven mechanism (examples/slider_crank_driven.json: the crank turned by a
// constant-speed driver, a rheonomic row of Phi): its driver law's speed (swept) and
// initial angle (0 in the scene), which fix the assembled initial configuration and
// velocities through the driver's row and Phi_t. The mechanism has no freedom left, so
// its starting tangents are the implicit function theorem's (project_seeds): the seeds'
// central differences alone, with a step of 1e-9 rad about an angle of 0, carried the
// velocities' rounding (eps |qdot| / h) and were off by 5e-7 of the derivatives. Only the
// reductions' max is compared: at initial 0 a bearing load's magnitude is sampled at
// 1e-35 N at t = 0 (a kink of |f|, with no derivative), which enters its min and mean.
TEST(Sensitivities, DriverLawParametersMatchCentralDifferences) {
  const int n = 2;
  check("slider_crank_driven",
        {{"drivers.crank_drive.law.speed", swept("slider_crank_driven", "drivers.crank_drive.law.speed", n)},
         {"drivers.crank_drive.law.initial", std::vector<double>(n, 0.0)}},
        n, 300, 50, 1);
}

// A robot in joint coordinates (arm7: the Panda's links, falling from its ready pose with
// joint rates, solver aba and cga): the derivatives of its reductions over time (the
// energy: max, min, mean, rms) with respect to a payload mass, an initial joint rate and
// gravity, against the same Richardson-extrapolated central differences as above. The
// arm's energy is conserved up to the integrator's error, so its mean and extremes move
// with the parameters through the starting energy; the tangents are the backend's samples'.
TEST(Sensitivities, RobotReductionsMatchCentralDifferences) {
  for (const char* solver : {"aba", "cga"}) {
    nlohmann::json doc = example("arm7");
    doc["robot"]["urdf"] = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.urdf";
    doc["robot"]["payload"] = {{"link", "panda_link7"}, {"mass", 1.0}, {"com", {0.0, 0.0, 0.1}}};
    doc["solver"]["type"] = solver;
    doc["robot"]["urdf_dynamics"] = {{"limits", false}};  // the limits' dampers are not smooth
    const std::vector<Case> cases = {
        {"robot.payload.mass", {1.0, 1.0}}, {"robot.qd0[1]", {0.3, 0.3}}, {"robot.gravity[2]", {-9.81, -9.81}}};
    const int n = 2, steps = 300, S = static_cast<int>(cases.size());
    nlohmann::json with = doc;
    for (const Case& c : cases) with["sensitivities"]["parameters"].push_back(c.path);
    // A joint-space robot's reductions: the energy (and contacts, which it has none of).
    const auto make_energy = [&](const nlohmann::json& d) {
      std::unique_ptr<Simulator> m = make(d, n);
      m->set_reductions(parse_reduction_quantities({"energy"}, m->model().n_drivers(), "test"));
      return m;
    };
    std::unique_ptr<Simulator> sim = make_energy(with);
    const ReductionLayout L = sim->reduction_layout();
    ASSERT_TRUE(L.enabled(ReductionQuantity::Energy));
    int widths[kReductionQuantities];
    for (int q = 0; q < kReductionQuantities; ++q)
      widths[q] = reduction_components(q, sim->model().n_joints(), sim->model().n_drivers(), 0);
    states_after(*sim, steps, 70);  // the reductions' read adds the current state's sample
    std::vector<double> dred(static_cast<std::size_t>(n) * L.channels * kReductionTangentStats * S);
    sim->read_reduction_sensitivities(dred.data());
    const std::vector<double> nominal = reductions_of(*sim);
    for (int s = 0; s < S; ++s) {
      const Case& c = cases[static_cast<std::size_t>(s)];
      std::vector<double> red[4];
      for (int side = 0; side < 4; ++side) {
        std::unique_ptr<Simulator> fd = make_energy(doc);
        std::vector<double> v(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
          v[i] = c.value[i] + (side % 2 == 0 ? 1 : -1) * fd_step(c.value[i]) * (side < 2 ? 1 : 2);
        fd->set_parameters(nullptr, n, &c.path, 1, v.data());
        states_after(*fd, steps, steps);
        red[side] = reductions_of(*fd);
      }
      for (int i = 0; i < n; ++i) {
        // Each instance's tangents are finite and some are not 0.
        for (int ch = 0; ch < L.channels; ++ch)
          for (int st = 0; st < kReductionTangentStats; ++st)
            EXPECT_TRUE(std::isfinite(dred[((static_cast<std::size_t>(i) * L.channels + ch) * kReductionTangentStats + st) * S + s]));
        compare_reductions(L, widths, dred, nominal, red, fd_step(c.value[i]), i, s, S, kReductionTangentStats,
                           std::string("arm7 ") + solver + ", " + c.path + ", instance " + std::to_string(i));
      }
    }
  }
}

// A value at the bound of its range (a spring stiffness of 0: the scene refuses a
// negative one) gets a one-sided seed; its tangents follow the one-sided difference of
// two runs (error O(h): h = 1e-5 here, so the bound is 1e-4 of the largest difference).
TEST(Sensitivities, AValueAtItsBoundIsDifferencedOneSided) {
  nlohmann::json doc = example("slider_crank");
  doc.erase("sweep");
  doc["solver"]["assembly_tolerance"] = 1e-13;
  const std::string path = "forces.bearing_friction.stiffness";
  ASSERT_EQ(doc["forces"][1]["stiffness"].get<double>(), 0.0);
  nlohmann::json with = doc;
  with["sensitivities"]["parameters"] = {path};
  std::unique_ptr<Simulator> sim = make(with, 1);
  sim->advance(400);
  std::vector<double> dy(3 * 13);
  sim->read_state_sensitivities(dy.data());
  const double h = 1e-5;
  std::unique_ptr<Simulator> base = make(doc, 1), plus = make(doc, 1);
  plus->set_parameters(nullptr, 1, &path, 1, &h);
  const std::vector<double> y0 = states_after(*base, 400, 400), y1 = states_after(*plus, 400, 400);
  double worst = 0, scale = 0;
  for (std::size_t e = 0; e < y0.size(); ++e) {
    const double diff = (y1[e] - y0[e]) / h;
    scale = std::max(scale, std::abs(diff));
    worst = std::max(worst, std::abs(dy[e] - diff));
  }
  std::printf("[ sensitivity ] one-sided %s: max |d state| %.3e, error %.2e (%.1e)\n", path.c_str(), scale, worst,
              worst / scale);
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(worst, 1e-4 * scale);
}

// An output magnitude exactly at 0 (formulas/joint_loads.hpp, output_magnitude): tangent
// 0 where its components stay 0, NaN where they move (|h| |x'|: no derivative); away
// from 0 the magnitude's own derivative; a plain number unchanged.
TEST(Sensitivities, AMagnitudeAtZeroHasADerivativeOnlyWhereItStaysZero) {
  using D2 = Dual<double, 2>;
  D2 a(0.0), b(0.0);
  b.d[1] = 3.0;  // tangent 0: both stay 0; tangent 1: b moves
  using std::sqrt;
  const D2 m = output_magnitude(sqrt(a * a + b * b), a, b);
  EXPECT_EQ(m.v, 0.0);
  EXPECT_EQ(m.d[0], 0.0);
  EXPECT_TRUE(std::isnan(m.d[1]));
  D2 c = D2::variable(3.0, 0), e = D2::variable(4.0, 1);
  const D2 r = output_magnitude(sqrt(c * c + e * e), c, e);
  EXPECT_DOUBLE_EQ(r.v, 5.0);
  EXPECT_DOUBLE_EQ(r.d[0], 0.6);
  EXPECT_DOUBLE_EQ(r.d[1], 0.8);
  EXPECT_EQ(output_magnitude(0.25, 0.0, 0.0), 0.25);
}

// reduction_stats_tangent on two samples of one channel: the max's and min's tangents
// those of their samples, the mean's and rms's from the sums; NaN for a NaN statistic
// and for an rms of zeros.
TEST(Sensitivities, TheReductionsTangentsFollowTheirSamples) {
  const bool enabled[kReductionQuantities] = {false, false, false, false, false, true};  // energy: one channel
  const ReductionLayout L = make_reduction_layout(enabled, 0, 0, 0, true);
  using D1 = Dual<double, 1>;
  std::vector<double> acc(static_cast<std::size_t>(L.size())), tangent(static_cast<std::size_t>(L.tangent_size()));
  const ReductionAcc a{acc.data(), 1, tangent.data()};
  reduction_clear(L, a);
  reduction_clear_tangent(L, a, 1);
  D1 x1(2.0), x2(-1.0);
  x1.d[0] = 0.5;
  x2.d[0] = 4.0;
  reduction_add_instance<D1>(L, a, D1(0.0), x1, D1(0.0), 0.0);
  reduction_add_instance<D1>(L, a, D1(0.0), x2, D1(0.0), 1.0);
  double d4[kReductionTangentStats];
  reduction_stats_tangent(L, a, L.offset[5], 1e-3, 0, 1, d4);
  EXPECT_EQ(d4[0], 0.5);  // the max is x1's
  EXPECT_EQ(d4[1], 4.0);  // the min is x2's
  EXPECT_DOUBLE_EQ(d4[2], (0.5 + 4.0) / 2);
  // rms = sqrt((4 + 1) / 2): d rms = (2 * 2 * 0.5 + 2 * -1 * 4) / (2 * 2 * rms)
  EXPECT_DOUBLE_EQ(d4[3], (2.0 - 8.0) / (4.0 * std::sqrt(2.5)));
  reduction_clear(L, a);
  reduction_clear_tangent(L, a, 1);
  reduction_add_instance<D1>(L, a, D1(0.0), D1(0.0), D1(0.0), 0.0);
  reduction_stats_tangent(L, a, L.offset[5], 1e-3, 0, 1, d4);
  EXPECT_EQ(d4[0], 0.0);
  EXPECT_TRUE(std::isnan(d4[3]));  // an rms of zeros
  reduction_add_instance<D1>(L, a, D1(0.0), D1(NAN), D1(0.0), 1.0);
  reduction_stats_tangent(L, a, L.offset[5], 1e-3, 0, 1, d4);
  for (double d : d4) EXPECT_TRUE(std::isnan(d));  // a NaN sample: NaN statistics
}

TEST(Sensitivities, EnablingThemOnATouchedBatchIsRefused) {
  const nlohmann::json doc = example("slider_crank");
  SimulatorOptions o;
  o.backend = "cpu";
  const Scene scene = parse_scene(doc.dump());
  std::unique_ptr<Simulator> sim = make_simulator(scene, 2, o);
  const double u[2] = {0.1, 0.2};
  sim->set_inputs(u);
  const std::vector<std::vector<double>> values = {{0.3, 0.3}};
  try {
    sim->enable_sensitivities({"bodies.crank.mass"}, values);
    ADD_FAILURE() << "enabled after set_inputs";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("as created"), std::string::npos) << e.what();
  }
  std::unique_ptr<Simulator> fresh = make_simulator(scene, 2, o);
  fresh->enable_sensitivities({"bodies.crank.mass"}, values);
  EXPECT_THROW(fresh->state_view(), std::logic_error);
  EXPECT_THROW(fresh->inputs_view(), std::logic_error);
}

TEST(Sensitivities, TheMemoryGuardCountsTheEngine) {
  nlohmann::json doc = example("slider_crank");
  SimulatorOptions o;
  o.backend = "cpu";
  const MemoryEstimate plain = estimate_simulator_memory(parse_scene(doc.dump()), 1000, o);
  doc["sensitivities"]["parameters"] = {"bodies.crank.mass", "bodies.conrod.mass", "bodies.piston.mass",
                                        "gravity[2]", "forces.motor.value"};
  const MemoryEstimate with = estimate_simulator_memory(parse_scene(doc.dump()), 1000, o);
  EXPECT_EQ(plain.sensitivities, 0.0);
  // One pass of Dual<double, 8> arrays (SensitivityEngine::pass_width(5)): at least 72
  // bytes x the 6 x 13 N state copies, and the Schur values and rows beside them.
  static_assert(SensitivityEngine::pass_width(5) == 8);
  EXPECT_GT(with.sensitivities, 1000.0 * 72 * 6 * 13 * 3);
  EXPECT_EQ(with.total(), plain.total() + with.sensitivities);
  EXPECT_NE(with.describe().find("sensitivities"), std::string::npos) << with.describe();
}

TEST(Sensitivities, ResetReturnsTheTangentsToTheirSeeds) {
  nlohmann::json doc = example("four_bar");
  doc["sensitivities"]["parameters"] = {"joints.rocker_pivot.frame_i.origin[0]"};
  std::unique_ptr<Simulator> sim = make(doc, 2);
  const std::size_t size = 2 * 3 * 13;
  std::vector<double> seed(size), after(size), again(size);
  sim->read_state_sensitivities(seed.data());
  double largest = 0;
  for (double x : seed) largest = std::max(largest, std::abs(x));
  EXPECT_GT(largest, 0.0);  // the rocker pivot on the ground moves the assembled state
  sim->advance(50);
  sim->read_state_sensitivities(after.data());
  EXPECT_NE(seed, after);
  sim->reset(nullptr, 2);
  sim->read_state_sensitivities(again.data());
  EXPECT_EQ(seed, again);
}

// The tangents' refined Schur solves of the steps are recorded per instance
// (SensitivityEngine::read_refinement): none above the tolerance at the scene's settings; with one correction
// (solver.refinement_steps 1) the estimate of every solve is the first correction's size,
// the error of the regularised solve (about tikhonov_epsilon relative), far above the
// tolerance, so every instance records unconverged tangent solves, at a time within the run.
TEST(Sensitivities, TheTangentsRefinedSolvesAreRecorded) {
  for (const int steps : {10, 1}) {
    nlohmann::json doc = example("slider_crank");
    doc["solver"]["refinement_steps"] = steps;
    doc["sensitivities"]["parameters"] = {"bodies.piston.mass", "forces.gas_load.force[0]"};
    std::unique_ptr<Simulator> sim = make(doc, 2);
    sim->advance(20);
    const std::vector<RefinementRecord> rec = sim->sensitivity_refinement();
    ASSERT_EQ(rec.size(), 2u);
    // A read (a dual frame's solve) records nothing.
    std::vector<double> dR(static_cast<std::size_t>(2) * sim->model().n_joints() * 6 * 2);
    sim->read_reaction_sensitivities(dR.data());
    const std::vector<RefinementRecord> after_read = sim->sensitivity_refinement();
    for (std::size_t i = 0; i < rec.size(); ++i) {
      EXPECT_EQ(after_read[i].unconverged, rec[i].unconverged);
      EXPECT_EQ(after_read[i].worst, rec[i].worst);
    }
    for (const RefinementRecord& r : rec) {
      std::printf("[ sensitivity ] refinement_steps %d: %lld unconverged, worst %.2e at %.4f s\n", steps,
                  static_cast<long long>(r.unconverged), r.worst, r.worst_time);
      if (steps == 10) {
        EXPECT_EQ(r.unconverged, 0);
        EXPECT_GT(r.worst, 0.0);  // the solves were checked
        EXPECT_LE(r.worst, refinement_tolerance<double>());
      } else {
        EXPECT_GE(r.unconverged, 2 * 4 * 20);  // two tangents of each of the 4 solves a step
        EXPECT_GT(r.worst, refinement_tolerance<double>());
        EXPECT_GE(r.worst_time, 0.0);
        EXPECT_LE(r.worst_time, sim->time());
      }
    }
  }
  // A simulator without sensitivities has no record.
  EXPECT_TRUE(make(example("slider_crank"), 1)->sensitivity_refinement().empty());
}

TEST(Sensitivities, RefusalsNameTheFieldAndTheCall) {
  nlohmann::json doc = example("slider_crank");
  doc["sensitivities"]["parameters"] = {"bodies.crank.mass"};
  std::unique_ptr<Simulator> sim = make(doc, 2);
  const std::string path = "bodies.crank.mass";
  const double v[2] = {1, 1};
  EXPECT_THROW(sim->set_parameters(nullptr, 2, &path, 1, v), std::logic_error);
  EXPECT_THROW(sim->reset(nullptr, 2, true), std::logic_error);
  std::vector<double> y(2 * 39);
  sim->get_state(nullptr, 2, y.data(), nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_THROW(sim->set_state(nullptr, 2, y.data(), nullptr, nullptr, nullptr, nullptr, nullptr), std::logic_error);
  const auto message = [](const nlohmann::json& d) {
    try {
      make(d, 2);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json bad = example("slider_crank");
  bad["sensitivities"]["parameters"] = {"solver.dt"};
  EXPECT_NE(message(bad).find("/sensitivities/parameters/0"), std::string::npos) << message(bad);
  bad["sensitivities"]["parameters"] = {"bodies.crank.mass", "bodies[0].mass"};
  EXPECT_NE(message(bad).find("names the same value"), std::string::npos) << message(bad);
  bad["sensitivities"]["parameters"] = {"bodies.nobody.mass"};
  EXPECT_NE(message(bad).find("names nothing"), std::string::npos) << message(bad);
  bad["sensitivities"] = {{"parameters", nlohmann::json::array()}};
  EXPECT_NE(message(bad).find("no parameter"), std::string::npos) << message(bad);
  bad["sensitivities"] = {{"params", {"bodies.crank.mass"}}};
  EXPECT_NE(message(bad).find("/sensitivities"), std::string::npos) << message(bad);
  bad = example("slider_crank");
  bad["solver"]["integrator"] = "dopri5";
  bad["sensitivities"]["parameters"] = {"bodies.crank.mass"};
  EXPECT_NE(message(bad).find("solver.integrator"), std::string::npos) << message(bad);
}

}  // namespace
}  // namespace simphant
