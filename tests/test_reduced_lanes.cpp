// The joint-space step in SIMD lanes (simd/reduced_lanes.hpp: reduced_advance_thread with
// T = Lanes<double, 8> over groups of 8 instances) against the scalar reference (the
// same function with T = double, one instance at a time), through ReducedBackend's two
// modes:
//  - equal to round-off on Panda (with its mimic finger), UR5 and xArm7 (aba and cga) and
//    the floating Solo-12, 11 instances (a full group and a padded one) that differ in
//    state, inputs, a link mass, servo gains, damping, friction, joint limits, effort and
//    velocity limits;
//  - bitwise independent of where an instance sits in its group, and of the thread count;
//  - statuses (non-finite, runaway) and freezing as the scalar form;
//  - a group whose instances differ in an integer field (actuator mode) runs them one at
//    a time and still equals the scalar form;
//  - contact (simd/reduced_lane_contact.hpp: the pairs one lane at a time): Solo-12 set
//    down on its four feet and its body's box, 11 instances differing in drop height,
//    tilt, stiffness, friction and restitution, equal to round-off, and `auto` picks the
//    lanes for it;
//  - the lane sin / cos against std::sin / std::cos.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "robot_data.hpp"
#include "solo12_scene.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/simd/reduced_lane_math.hpp"

namespace simphant {
namespace {

using nlohmann::json;

/// I instances of the robot of `urdf` that differ in state, inputs, a link mass, servo
/// gains, damping, friction, limits and actuator bounds (every joint keeps its actuator
/// mode, so groups run in lanes, unless vary_mode: then joint 0 alternates between a
/// position servo and a torque input).
std::vector<Model> instances(const std::string& urdf, const char* solver, bool floating, int I,
                             bool vary_mode = false) {
  json doc;
  doc["name"] = "robot";
  doc["robot"] = {{"urdf", urdf}};
  if (floating) doc["robot"]["floating_base"] = true;
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  const int n = m.robot->n();
  std::vector<Model> out(static_cast<std::size_t>(I), m);
  const double scale = floating ? 0.01 : 0.4;  // Solo's lower legs: ~2e-4 kg m^2 (see test_reduced_step_grid.cpp)
  for (int i = 0; i < I; ++i) {
    auto r = std::make_shared<RobotJointSpace>(*out[static_cast<std::size_t>(i)].robot);
    for (int k = 0; k < n; ++k) {
      RobotJointParams<double>& p = r->joints[static_cast<std::size_t>(k)];
      if (p.mimic >= 0) continue;  // a follower's state comes from its leader
      r->q0[k] = 0.3 * std::sin(1.7 * k + i);
      r->qd0[k] = 0.5 * std::cos(0.9 * k + 2 * i);
      r->tau[k] = scale * std::sin(2.3 * k - i);
      p.damping = 0.02 * (i % 3);
      p.stiffness = scale * 0.5 * (i % 3);  // a joint spring about a point near q0
      p.spring_q = r->q0[k] + 0.01 * (i % 2);
      p.friction = scale * 0.05 * (i % 2);
      p.friction_velocity = 0.1;
      p.limited = 1;  // limits near q0: the one-sided spring-damper engages
      p.lower = r->q0[k] - 0.02 - 0.01 * (i % 4);
      p.upper = r->q0[k] + 0.03 + 0.01 * (i % 5);
      p.limit_stiffness = floating ? 2.0 : 20.0;  // stable under RK4 at 1 ms on the lightest links (xArm7 wrist)
      p.limit_damping = floating ? 0.05 : 0.1;
      p.effort = scale * (0.5 + 0.1 * (i % 3));
      p.velocity = 0.8 + 0.1 * (i % 2);
    }
    r->model.links[2].mass += 0.05 * i;
    RobotJointParams<double>& p0 = r->joints[0];
    p0.mode = static_cast<int>(vary_mode && i % 2 ? ActuatorMode::Torque : ActuatorMode::Position);
    p0.kp = (floating ? 0.4 : 40) * (1 + 0.1 * i);
    p0.kd = (floating ? 0.02 : 2) * (1 + 0.05 * i);
    r->tau[0] = 0.2 + 0.01 * i;
    if (floating) {
      r->base_q0[2] += 0.01 * i;
      r->base_v0[0] = 0.02 * i;
      r->base_v0[5] = -0.04 * i;
    }
    out[static_cast<std::size_t>(i)].robot = r;
  }
  return out;
}

struct Outcome {
  std::vector<double> y;
  std::vector<std::int8_t> status, reason;
  std::vector<std::int64_t> status_steps;
};

Outcome run(const std::vector<Model>& models, bool lanes, int threads, int steps) {
  const int I = static_cast<int>(models.size());
  ReducedBackend b(std::make_shared<const std::vector<Model>>(models), I, threads, lanes);
  EXPECT_EQ(b.lanes(), lanes);
  b.advance(steps / 2);
  b.advance(steps - steps / 2);
  Outcome r;
  r.y.resize(static_cast<std::size_t>(I) * b.state_size());
  r.status.resize(I);
  r.reason.resize(I);
  r.status_steps.resize(I);
  b.get_state(nullptr, I, r.y.data(), nullptr, r.status.data(), r.status_steps.data(), r.reason.data());
  return r;
}

/// max |a - b| / max(1, max |a|)
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 1, err = 0;
  for (std::size_t e = 0; e < a.size(); ++e) {
    scale = std::max(scale, std::abs(a[e]));
    err = std::max(err, std::abs(a[e] - b[e]));
  }
  return err / scale;
}

// Round-off bound: the lane code differs from the scalar one only in rounding (FMA
// contraction, the polynomial sin / cos: about 1e-16 per operation), which 300 RK4
// steps of these robots carry to 3.5e-16 .. 2.1e-15 relative (measured on the AVX-512
// target, 2026-12-02). 1e-12 leaves room for other targets and robots and still fails
// for any wrong term (a missing joint force or a wrong lane changes the state by more
// than 1e-6).
constexpr double kRoundOff = 1e-12;

void expect_lanes_equal_scalar(const std::vector<Model>& models, int steps = 300) {
  const Outcome scalar = run(models, false, 1, steps), lanes = run(models, true, 1, steps);
  const int N = static_cast<int>(lanes.y.size() / models.size());
  std::size_t worst = 0;
  for (std::size_t e = 0; e < lanes.y.size(); ++e)
    if (std::abs(scalar.y[e] - lanes.y[e]) > std::abs(scalar.y[worst] - lanes.y[worst])) worst = e;
  EXPECT_LE(relative_difference(scalar.y, lanes.y), kRoundOff)
      << "instance " << worst / N << " element " << worst % N << ": " << scalar.y[worst] << " vs " << lanes.y[worst];
  EXPECT_EQ(scalar.status, lanes.status);
  for (double v : lanes.y) ASSERT_TRUE(std::isfinite(v));
  double differ = 0;
  for (int e = 0; e < N; ++e) differ = std::max(differ, std::abs(lanes.y[e] - lanes.y[N + e]));
  EXPECT_GT(differ, 1e-3) << "the instances differ";
}

TEST(ReducedLanes, ArmsEqualScalarToRoundOff) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* urdf : {"/panda_description/urdf/panda.urdf", "/ur_description/urdf/ur5_robot.urdf",
                           "/xarm_description/urdf/xarm7.urdf"})
    for (const char* solver : {"aba", "cga"}) {
      SCOPED_TRACE(std::string(urdf) + " " + solver);
      expect_lanes_equal_scalar(instances(dir + urdf, solver, false, 11));
    }
}

TEST(ReducedLanes, FloatingSoloEqualsScalarToRoundOff) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    expect_lanes_equal_scalar(instances(dir + "/solo_description/robots/solo12.urdf", solver, true, 11));
  }
}

// Solo-12 set down on the ground (tests/solo12_scene.hpp, plus a box on the base so that
// a tipped instance lands on its body), 11 instances: per instance the drop height, the
// tilt, the ground's stiffness, friction and restitution (per-instance pairs: each lane
// evaluates its own), 0.1 s at 0.1 ms (the feet land after 35 to 73 ms). The lanes equal
// the scalar form to round-off (measured 4.5e-14 aba, 6.7e-14 cga, 2026-12-07: the stiff
// contact carries the lanes' other rounding further than the free robots' 2e-15; a wrong
// or missing contact force changes the state by more than 1e-6), every instance carried
// by the ground, and `auto` takes the lanes.
TEST(ReducedLanes, SoloOnTheGroundEqualsScalarToRoundOff) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    std::vector<Model> models;
    for (int i = 0; i < 11; ++i) {
      json d = test::solo12_doc(solver, 0.245 + 0.002 * i, 1e-4, 0.01);
      d["robot"]["base"]["orientation"] = {std::cos(0.01 * i), std::sin(0.01 * i), 0, 0};
      d["robot"]["collision"]["base_link"] = {{"type", "box"}, {"size", {0.448, 0.219, 0.053}}, {"conaffinity", 0}};
      json& law = d["contact"]["materials"]["default"];
      law["stiffness"] = 2e4 * (1 + 0.1 * i);
      law["friction"] = 0.6 + 0.03 * i;
      law["restitution"] = 0.2 + 0.05 * i;
      models.push_back(parse_scene(d.dump()).model);
    }
    const Outcome scalar = run(models, false, 1, 1000), lanes = run(models, true, 1, 1000);
    EXPECT_LE(relative_difference(scalar.y, lanes.y), kRoundOff);
    EXPECT_EQ(scalar.status, lanes.status);
    const int N = static_cast<int>(lanes.y.size() / models.size());
    for (int i = 0; i < 11; ++i) {
      // held by the ground: free fall would take the base 4.9 cm below its start
      EXPECT_GT(lanes.y[static_cast<std::size_t>(i * N + 2)], 0.2) << i;
      EXPECT_EQ(lanes.status[static_cast<std::size_t>(i)], 0) << i;
    }
  }
  EXPECT_TRUE(ReducedBackend::lanes_for("auto", 8));
  EXPECT_FALSE(ReducedBackend::lanes_for("auto", 7));
  EXPECT_FALSE(ReducedBackend::lanes_for("cpu", 1000));
}

// Instances whose joint 0 alternates between a position servo and a torque input: their
// groups cannot share one code path and run one instance at a time, equal to the scalar
// form all the same.
TEST(ReducedLanes, MixedActuatorModesEqualScalar) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  expect_lanes_equal_scalar(instances(dir + "/ur_description/urdf/ur5_robot.urdf", "aba", false, 10, true));
}

// An instance's result does not depend on its lane or on the other lanes: 16 instances
// rotated by 5 places (every instance moves to another lane, and for most to another
// group) give each instance bitwise the same state; so do 1, 2 and 3 threads.
TEST(ReducedLanes, BitwiseAcrossLanePositionsAndThreads) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    const std::vector<Model> models = instances(dir + "/xarm_description/urdf/xarm7.urdf", solver, false, 16);
    const int I = static_cast<int>(models.size());
    std::vector<Model> rotated;
    for (int i = 0; i < I; ++i) rotated.push_back(models[static_cast<std::size_t>((i + 5) % I)]);
    const Outcome a = run(models, true, 1, 100), b = run(rotated, true, 1, 100);
    const int N = static_cast<int>(a.y.size()) / I;
    for (int i = 0; i < I; ++i)
      for (int e = 0; e < N; ++e)
        ASSERT_EQ(a.y[static_cast<std::size_t>(((i + 5) % I) * N + e)], b.y[static_cast<std::size_t>(i * N + e)])
            << "instance " << (i + 5) % I << " element " << e;
    for (int threads : {2, 3}) EXPECT_EQ(run(models, true, threads, 100).y, a.y) << threads << " threads";
  }
}

// Statuses in lanes as in the scalar form (test_reduced_step_grid.cpp's scene): 10
// instances of decoupled3.urdf pushed by 4 N (qd = 2 t, K = 4 t^2 [J]); instance 1 has the runaway
// bound 1.01 J (diverged, runaway, at its step 502), instance 9 (the padded group) a
// NaN input (diverged, non_finite, at step 0, frozen at its initial state); the rest run on.
TEST(ReducedLanes, StatusesAsScalar) {
  json doc;
  doc["name"] = "decoupled3";
  doc["robot"] = {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/decoupled3.urdf"},
                  {"tau", {4.0, 0.0, 0.0}}};
  doc["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  Model bounded = m;
  bounded.solver.runaway_kinetic_energy = 1.01;
  std::vector<Outcome> runs;
  for (bool lanes : {false, true}) {
    ReducedBackend b(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 10, 2, lanes);
    const int one = 1, nine = 9;
    b.set_models(&one, 1, &bounded);
    const double nan_input[3] = {std::nan(""), 0, 0};
    b.set_inputs(&nine, 1, nan_input);
    b.advance(600);
    Outcome r;
    r.y.resize(10 * 6);
    r.status.resize(10);
    r.reason.resize(10);
    r.status_steps.resize(10);
    b.get_state(nullptr, 10, r.y.data(), nullptr, r.status.data(), r.status_steps.data(), r.reason.data());
    EXPECT_EQ(r.status[1], 2);
    EXPECT_EQ(r.reason[1], kReasonRunaway);
    EXPECT_EQ(r.status_steps[1], 502);
    EXPECT_NEAR(r.y[6 + 3], 1.004, 1e-12) << "frozen at the last state within the bound";
    EXPECT_EQ(r.status[9], 2);
    EXPECT_EQ(r.reason[9], kReasonNonFinite);
    EXPECT_EQ(r.status_steps[9], 0);
    EXPECT_EQ(r.y[9 * 6 + 3], 0.0) << "frozen at the initial state";
    for (int i : {0, 2, 8}) {
      EXPECT_EQ(r.status[i], 0);
      EXPECT_NEAR(r.y[i * 6 + 3], 1.2, 1e-12);
    }
    runs.push_back(r);
  }
  EXPECT_EQ(runs[0].status, runs[1].status);
  EXPECT_EQ(runs[0].reason, runs[1].reason);
  EXPECT_EQ(runs[0].status_steps, runs[1].status_steps);
  EXPECT_LE(relative_difference(runs[0].y, runs[1].y), kRoundOff);
}

// The lane sin / cos (reduced_lane_math.hpp) within 2 ulp of std::sin / std::cos on
// [-40, 40] rad (joint angles of many turns) and exact at 0.
TEST(ReducedLanes, LaneSinCosMatchesLibm) {
  using L = Lanes<double, 8>;
  const double eps = std::numeric_limits<double>::epsilon();
  double worst = 0;
  for (int j = 0; j < 20000; ++j) {
    L x;
    for (int l = 0; l < 8; ++l) x.set(l, -40.0 + 80.0 * (8 * j + l) / (8 * 20000.0) + 1e-3 * l);
    L s, c;
    lane_sincos(x, s, c);
    for (int l = 0; l < 8; ++l) {
      worst = std::max(worst, std::abs(s[l] - std::sin(x[l])));
      worst = std::max(worst, std::abs(c[l] - std::cos(x[l])));
    }
  }
  EXPECT_LE(worst, 2 * eps);
  L s, c;
  lane_sincos(L(0.0), s, c);
  EXPECT_EQ(s[0], 0.0);
  EXPECT_EQ(c[0], 1.0);
}

}  // namespace
}  // namespace simphant
