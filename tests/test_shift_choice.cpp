// The relative shift of a run (dynamics/shift_choice.hpp; docs/solver.md, "The shift of a
// run"): the arm7 URDF with a dummy link of mass 1e-3 kg and inertia 1e-12 kg m^2
// between two revolutes at the shoulder, run in maximal coordinates, against the same
// arm in joint coordinates (aba): with the scene's eps = 1e-10 the refinement contracts
// by 0.99 per correction and the run is lost; with the shift chosen at load it follows
// aba. The point-mass pendulum gets a lower shift too; no shipped example does.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "simphant/dynamics/shift_choice.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace simphant {
namespace {

std::string source(const std::string& rel) { return std::string(SIMPHANT_SOURCE_DIR) + "/" + rel; }

/// arm7.urdf with panda_joint1's child replaced by a dummy link (mass 1e-3 kg, inertia
/// 1e-12 kg m^2 about its origin) carrying a second revolute about x to panda_link1:
/// an eight-joint arm whose shoulder is a universal joint. The scene runs it from the
/// arm7 example's pose, without position limits, at dt 1e-4 for 0.5 s.
json dummy_link_arm(const std::string& solver) {
  static const fs::path dir = test::make_process_temp_dir("shift_choice");
  const fs::path urdf = dir / "arm_dummy.urdf";
  if (!fs::exists(urdf)) {
    std::ifstream in(source("examples/arm7.urdf"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string u = ss.str();
    const std::string from = "<parent link=\"panda_link0\"/>\n    <child link=\"panda_link1\"/>";
    const std::size_t at = u.find(from);
    EXPECT_NE(at, std::string::npos);
    u.replace(at, from.size(), "<parent link=\"panda_link0\"/>\n    <child link=\"dummy\"/>");
    const std::string dummy = R"(  <link name="dummy">
    <inertial>
      <origin rpy="0 0 0" xyz="0 0 0"/>
      <mass value="1e-3"/>
      <inertia ixx="1e-12" ixy="0" ixz="0" iyy="1e-12" iyz="0" izz="1e-12"/>
    </inertial>
  </link>
  <joint name="dummy_joint" type="revolute">
    <origin rpy="0 0 0" xyz="0 0 0"/>
    <parent link="dummy"/>
    <child link="panda_link1"/>
    <axis xyz="1 0 0"/>
    <limit effort="87.0" lower="-2.8973" upper="2.8973" velocity="2.175"/>
  </joint>
</robot>)";
    u.replace(u.find("</robot>"), 8, dummy);
    std::ofstream(urdf) << u;
  }
  return {{"name", "arm7 with a dummy link"},
          {"robot",
           {{"urdf", urdf.string()},
            {"q0", {0.0, 0.2, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398}},
            {"qd0", std::vector<double>(8, 0.3)},
            {"gravity", {0.0, 0.0, -9.81}},
            {"urdf_dynamics", {{"limits", false}}}}},
          {"solver", {{"type", solver}, {"dt", 1e-4}, {"t_end", 0.5}}}};
}

// The contraction the scene's shift leaves, and the one chosen (measured below).
TEST(ShiftChoice, DummyLinkGetsALowerShift) {
  const Model m = parse_scene(dummy_link_arm("dae").dump()).model;
  const ShiftChoice c = choose_shift(m);
  std::printf("  dummy-link arm: q = %.3g at eps %.0e; chosen eps %.0e, q = %.3g\n", c.contraction_given,
              m.solver.tikhonov_epsilon, c.epsilon, c.contraction);
  EXPECT_GT(c.contraction_given, 0.9);
  EXPECT_LT(c.epsilon, 1e-12);
  EXPECT_GE(c.epsilon, kMinShiftEpsilon);
  EXPECT_LE(c.contraction, 5 * kShiftContraction);
}

// The run in maximal coordinates against aba over 0.5 s at dt 1e-4: max |q_dae - q_aba|
// 4.3e-8 rad (measured; arm7 without the dummy link: 2.2e-10; the rest is the round-off
// of a Schur matrix whose scaled condition is about 1e10, max |Phi| 2e-7 m). Without the
// choice (eps 1e-10 kept; the mutation check, kShiftRounds = 1) the same run ends
// diverged (status 2), 2.9 rad away from aba.
TEST(ShiftChoice, DummyLinkArmFollowsAba) {
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  auto dae = Simulator::create({parse_scene(dummy_link_arm("dae").dump()).model}, o);
  auto red = Simulator::create({parse_scene(dummy_link_arm("aba").dump()).model}, o);
  EXPECT_LT(dae->model().solver.tikhonov_epsilon, 1e-12);
  const int n = dae->n_joint_coordinates();
  ASSERT_EQ(n, 8);
  ASSERT_EQ(red->n_joint_coordinates(), n);
  std::vector<double> q1(n), qd1(n), t1(n), q2(n), qd2(n), t2(n);
  double dq = 0;
  for (int c = 0; c < 10; ++c) {
    dae->advance(500);
    red->advance(500);
    dae->read_joint_state(q1.data(), qd1.data(), t1.data());
    red->read_joint_state(q2.data(), qd2.data(), t2.data());
    for (int k = 0; k < n; ++k) dq = std::max(dq, std::abs(std::remainder(q1[k] - q2[k], 2 * M_PI)));
  }
  std::printf("  dummy-link arm, dae vs aba over 0.5 s at dt 1e-4: max |dq| %.2e rad\n", dq);
  EXPECT_LT(dq, 1e-7);
  std::int8_t st = -1;
  double st_t = 0;
  dae->read_status(&st, &st_t);
  EXPECT_EQ(st, 0);
  RefinementRecord rec;
  dae->read_refinement(&rec);
  EXPECT_EQ(rec.unconverged, 0);
}

// The point-mass pendulum (a 1 m rod, bob inertia 1e-9 kg m^2): q = 0.09 at 1e-10
// (measured), eps 1e-12 chosen. Every shipped example keeps the scene's shift: their q
// is below kShiftContraction at 1e-10 (robot examples in joint coordinates are not
// analysed).
TEST(ShiftChoice, OnlyLightBodiesChangeTheShift) {
  const json pendulum = json::parse(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [1e-9, 1e-9, 1e-9], "position": [1, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 1.0}
  })");
  const ShiftChoice p = choose_shift(parse_scene(pendulum.dump()).model);
  EXPECT_GT(p.contraction_given, kShiftContraction);
  EXPECT_DOUBLE_EQ(p.epsilon, 1e-12);
  EXPECT_LE(p.contraction, kShiftContraction);
  for (const fs::directory_entry& e : fs::directory_iterator(source("examples"))) {
    if (e.path().extension() != ".json") continue;
    std::vector<Model> models = {load_scene(e.path().string()).model};
    const double eps = models.front().solver.tikhonov_epsilon;
    set_run_shift(models);  // redundant rows kept: the contraction is measured in the range of Phi_q
    EXPECT_EQ(models.front().solver.tikhonov_epsilon, eps) << e.path().filename();
  }
}

}  // namespace
}  // namespace simphant
