// Forward sensitivities of robots in joint coordinates (sim/robot_sensitivity_engine.hpp,
// docs/sensitivities.md): the packed parameters their seeds difference
// (batch::robot_flat_params, for_each_slot_number), the engine's memory in the guard, the
// joint laws' crossings (Simulator::sensitivity_crossed) and the branch of a quaternion's
// seeds (sim/quaternion_sign.hpp). The derivatives themselves are checked against central
// differences of whole runs in tests/python/test_sensitivities.py (Panda with aba and
// cga, its servos, Solo-12's floating base).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/batch/robot_pack.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/scene_simulator.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/quaternion_sign.hpp"
#include "simphant/sim/robot_sensitivity_engine.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

nlohmann::json panda(const std::string& file, const std::string& solver) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + file + ".json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc.erase("sweep");
  doc["solver"]["type"] = solver;
  return doc;
}

TEST(RobotSensitivities, ThePackedParametersAreEveryNumberOfTheSlot) {
  nlohmann::json doc = panda("panda_sweep", "aba");
  const Model m = parse_scene(doc.dump()).model;
  const std::vector<double> p = batch::robot_flat_params(m);
  const int n = m.robot->n();
  // 29 numbers per link, 15 per joint, the base's 13 and gravity's 3.
  ASSERT_EQ(p.size(), static_cast<std::size_t>(44 * n + 16));
  // A payload mass changes link 7's mass, CoM and inertia, and the gains the compiler
  // derives from the effective inertias (each joint's limit stiffness and damping and the
  // friction's smoothing rate, docs/robots.md); gravity its last entry.
  doc["robot"]["payload"]["mass"] = 2.0;
  doc["robot"]["gravity"][2] = -9.0;
  const std::vector<double> q = batch::robot_flat_params(parse_scene(doc.dump()).model);
  const std::size_t link7 = 6 * 44, mass = link7 + 9 + 3 + 3;  // after R, p and the axis
  EXPECT_EQ(q[mass] - p[mass], 1.0);
  int masses = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (p[k] == q[k]) continue;
    const std::size_t field = k % 44;
    const bool derived_gain = field == 29 + 6 || field == 29 + 9 || field == 29 + 10;
    EXPECT_TRUE((k >= mass && k < mass + 13) || derived_gain || k == p.size() - 1) << k;
    masses += field == 15 && k < 44 * static_cast<std::size_t>(n) ? 1 : 0;
  }
  EXPECT_EQ(masses, 1);
  EXPECT_EQ(q.back(), -9.0);
}

TEST(RobotSensitivities, TheMemoryGuardCountsTheJointSpaceEngine) {
  nlohmann::json doc = panda("panda_sweep", "aba");
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  const MemoryEstimate plain = estimate_simulator_memory(parse_scene(doc.dump()), 1000, o);
  doc["sensitivities"]["parameters"] = {"robot.payload.mass", "robot.qd0[0]", "robot.qd0[1]", "robot.gravity[2]",
                                        "robot.q0[0]"};
  const MemoryEstimate with = estimate_simulator_memory(parse_scene(doc.dump()), 1000, o);
  EXPECT_EQ(plain.sensitivities, 0.0);
  // The joint-space engine's own figure (not the DAE engine's): per instance one pass of 8
  // tangents (SensitivityEngine::pass_width(5)), with the state (2 x 9) and the link rows
  // (29 numbers each) in Dual<double, 8> (72 bytes), and one worker's step workspace.
  const Model m = parse_scene(doc.dump()).model;
  static_assert(SensitivityEngine::pass_width(5) == 8);
  using Engine8 = RobotSensitivityEngine<8>;
  EXPECT_EQ(with.sensitivities, 1000.0 * Engine8::instance_bytes(m, 5) + Engine8::worker_bytes());
  EXPECT_GT(Engine8::instance_bytes(m, 5), 72 * (18 + 29 * 9));
  // One parameter: one pass in Dual<double, 1> (16 bytes).
  doc["sensitivities"]["parameters"] = {"robot.payload.mass"};
  const MemoryEstimate one = estimate_simulator_memory(parse_scene(doc.dump()), 1000, o);
  EXPECT_EQ(one.sensitivities,
            1000.0 * RobotSensitivityEngine<1>::instance_bytes(m, 1) + RobotSensitivityEngine<1>::worker_bytes());
  EXPECT_GT(RobotSensitivityEngine<1>::instance_bytes(m, 1), 16 * (18 + 29 * 9));
  EXPECT_LT(RobotSensitivityEngine<1>::instance_bytes(m, 1), Engine8::instance_bytes(m, 1) / 2);
  EXPECT_EQ(with.total(), plain.total() + with.sensitivities);
}

TEST(RobotSensitivities, AVelocityCutCrossedMarksTheInstanceOnBothPaths) {
  for (const char* solver : {"aba", "dae"}) {
    SCOPED_TRACE(solver);
    nlohmann::json doc = panda("panda_servo", solver);
    doc["sensitivities"]["parameters"] = {"robot.payload.mass"};
    SimulatorOptions o;
    o.backend = "cpu";
    o.threads = 2;
    std::unique_ptr<Simulator> sim = make_simulator(parse_scene(doc.dump()), 2, o);
    const std::size_t size = 2 * static_cast<std::size_t>(sim->model().n_bodies()) * 13;
    std::vector<double> d(size);
    EXPECT_EQ(sim->sensitivity_crossed(), std::vector<std::uint8_t>(2, 0));
    sim->advance(2);
    sim->read_state_sensitivities(d.data());
    for (double x : d) ASSERT_TRUE(std::isfinite(x));
    // Joint 1's servo reaches its 2.175 rad/s limit within 10 ms and the cut acts.
    sim->advance(18);
    EXPECT_EQ(sim->sensitivity_crossed(), std::vector<std::uint8_t>(2, 1));
    sim->read_state_sensitivities(d.data());
    for (double x : d) ASSERT_TRUE(std::isnan(x));
    // Without the URDF's limits (no cut, no limits) nothing is crossed.
    doc["robot"]["urdf_dynamics"] = {{"limits", false}};
    std::unique_ptr<Simulator> free = make_simulator(parse_scene(doc.dump()), 2, o);
    free->advance(20);
    EXPECT_EQ(free->sensitivity_crossed(), std::vector<std::uint8_t>(2, 0));
  }
}

TEST(RobotSensitivities, AQuaternionsSignIsThatOfItsDotWithTheReference) {
  const double q[4] = {1e-12, 1, 0, 0}, minus[4] = {-1e-12, -1, 0, 0}, tie[4] = {0.5, 0.5, 0.5, -0.5},
               tie_other[4] = {-0.5, -0.5, -0.5, 0.5};
  EXPECT_EQ(quaternion_sign(q, q), 1.0);
  EXPECT_EQ(quaternion_sign(minus, q), -1.0);
  EXPECT_EQ(quaternion_sign(tie_other, tie), -1.0);  // no component to tell them apart
  Model dae = parse_scene(panda("panda_sweep", "dae").dump()).model;
  EXPECT_EQ(state_quaternion_offsets(dae).size(), static_cast<std::size_t>(dae.n_bodies()));
  EXPECT_EQ(state_quaternion_offsets(dae)[2], 7 * 2 + 3);
  EXPECT_TRUE(state_quaternion_offsets(parse_scene(panda("panda_sweep", "aba").dump()).model).empty());
}

}  // namespace
}  // namespace simphant
