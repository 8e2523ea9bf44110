// The joint parameters a robot scene derives (scene/robot_joint_params.hpp; docs/robots.md,
// "Actuators, limits, damping and friction", "Servos", "Floating base"): the effective
// inertia against the two-link closed form, the limit gains and the friction_velocity
// floor against their formulas and the step-size stability check, the new robot keys,
// their errors (each names its JSON pointer) and sweeps over them. Small URDFs written by
// the test; no robot package needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "simphant/dynamics/stability.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A planar two-link arm about z: link a (m1, CoM l1c on x, Izz1) on joint j1 at the
// origin, link b (m2, CoM l2c on x, Izz2) on joint j2 at L1 on a's x axis; j1 limited,
// j2 with damping and friction; j3 a continuous joint of a small wrist link c.
constexpr double m1 = 2.0, l1c = 0.25, Izz1 = 0.03, L1 = 0.5, m2 = 1.2, l2c = 0.2, Izz2 = 0.02;
const char* kPlanar = R"(<robot name="planar">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0.25 0 0"/><mass value="2.0"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.03"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.2 0 0"/><mass value="1.2"/>
    <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1.5" effort="40" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0" effort="0" velocity="0"/><dynamics damping="0.4" friction="1.5"/></joint>
</robot>)";

/// The mass matrix entries of the planar arm at q2 (any q1): the textbook closed form.
void planar_mass_matrix(double q2, double& a, double& b, double& c) {
  a = Izz1 + m1 * l1c * l1c + Izz2 + m2 * (L1 * L1 + l2c * l2c + 2 * L1 * l2c * std::cos(q2));
  b = Izz2 + m2 * (l2c * l2c + L1 * l2c * std::cos(q2));
  c = Izz2 + m2 * l2c * l2c;
}

// A free-floating body with one arm link (a URDF floating root joint).
const char* kFloating = R"(<robot name="flyer">
  <link name="world"/>
  <link name="torso"><inertial><origin xyz="0 0 0.1"/><mass value="5"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.12" iyz="0" izz="0.08"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 -0.2"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial></link>
  <joint name="root" type="floating"><parent link="world"/><child link="torso"/></joint>
  <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm"/><origin xyz="0.2 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
</robot>)";

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("simphant_joint_params_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "planar.urdf") << kPlanar;
    std::ofstream(dir / "flyer.urdf") << kFloating;
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string planar() const { return (dir / "planar.urdf").string(); }
  std::string flyer() const { return (dir / "flyer.urdf").string(); }
};

json planar_doc(const std::string& urdf, const char* solver = "aba") {
  json doc;
  doc["name"] = "planar";
  doc["robot"] = {{"urdf", urdf}, {"q0", {0.3, 0.7}}};
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 0.01}};
  return doc;
}

/// The SceneError path of compiling `doc`, "" when it compiles; the message in *what.
std::string error_path(const json& doc, std::string* what = nullptr) {
  try {
    parse_scene(doc.dump());
  } catch (const SceneError& e) {
    if (what) *what = e.what();
    return e.path();
  }
  return "";
}

TEST(RobotJointParams, EffectiveInertiaIsTheTwoLinkClosedForm) {
  const ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  ASSERT_EQ(rm.nq(), 2);
  for (double q2 : {0.0, 0.7, 2.5}) {
    const std::vector<double> I = joint_effective_inertia(rm, {0.3, q2});
    double a, b, c;
    planar_mass_matrix(q2, a, b, c);
    // 1 / (M^-1)_00 = a - b^2 / c, 1 / (M^-1)_11 = c - b^2 / a (Schur complements).
    EXPECT_NEAR(I[0], a - b * b / c, 1e-13 * a) << q2;
    EXPECT_NEAR(I[1], c - b * b / a, 1e-13 * a) << q2;
  }
}

TEST(RobotJointParams, SingularMassMatrixNamesTheJoint) {
  ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  rm.links[1].mass = 0;
  rm.links[1].inertia_com = Mat3d{};
  try {
    joint_effective_inertia(rm, {0.0, 0.0});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joint 'j2'"), std::string::npos) << e.what();
  }
}

TEST(RobotJointParams, LimitGainsAndFrictionFloorFollowFromTheEffectiveInertia) {
  const ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  const double dt = 2e-3;
  const std::vector<double> I = joint_effective_inertia(rm, {0.3, 0.7});
  const std::vector<RobotJointParams<double>> p = derive_joint_params(rm, I, {}, {}, kDefaultFrictionVelocity, dt);
  ASSERT_EQ(p.size(), 2u);
  const double omega = 0.5 / dt;
  // j1: limited, critically damped spring-damper with omega dt = 0.5.
  EXPECT_EQ(p[0].limited, 1);
  EXPECT_EQ(p[0].lower, -1.0);
  EXPECT_EQ(p[0].upper, 1.5);
  EXPECT_NEAR(p[0].limit_stiffness, I[0] * omega * omega, 1e-12 * I[0] * omega * omega);
  EXPECT_NEAR(p[0].limit_damping, 2 * I[0] * omega, 1e-12 * I[0] * omega);
  EXPECT_NEAR(p[0].limit_damping * p[0].limit_damping, 4 * I[0] * p[0].limit_stiffness,
              1e-12 * 4 * I[0] * p[0].limit_stiffness);  // critical: c^2 = 4 I k
  EXPECT_EQ(p[0].effort, 40.0);
  EXPECT_EQ(p[0].velocity, 3.0);
  EXPECT_EQ(p[0].friction, 0.0);
  EXPECT_EQ(p[0].friction_velocity, kDefaultFrictionVelocity);
  // j2: lower = upper = 0 is "no limits"; effort / velocity 0: no clamp, no cut.
  EXPECT_EQ(p[1].limited, 0);
  EXPECT_EQ(p[1].effort, 0.0);
  EXPECT_EQ(p[1].velocity, 0.0);
  EXPECT_EQ(p[1].damping, 0.4);
  EXPECT_EQ(p[1].friction, 1.5);
  // Floor: friction dt / (0.5 I) = 1.5 * 2e-3 / (0.5 I_2) > 0.01 for I_2 < 0.6.
  const double floor = 1.5 * dt / (kFrictionSlopeDt * I[1]);
  ASSERT_GT(floor, kDefaultFrictionVelocity);
  EXPECT_NEAR(p[1].friction_velocity, floor, 1e-15 * floor);
  EXPECT_NEAR(p[1].friction / p[1].friction_velocity * dt / I[1], kFrictionSlopeDt, 1e-14);
  // Above the floor the scene's value stays.
  const auto q = derive_joint_params(rm, I, {}, {}, 10 * floor, dt);
  EXPECT_EQ(q[1].friction_velocity, 10 * floor);
  // The mode of the limit alone: s^2 + (c / I) s + k / I = (s + omega)^2, |lambda| dt = 0.5,
  // inside RK4's real-axis limit 2.785 by the factor 5.6.
  StabilityMode m = spring_mode(0, p[0].limit_stiffness, p[0].limit_damping, 1.0 / I[0]);
  EXPECT_NEAR(std::abs(m.lambda) * dt, 0.5, 1e-6);  // a double root: sqrt(discriminant) ~ sqrt(eps)
  EXPECT_NEAR(dt / integrator_stable_step(Integrator::Rk4, m), 0.5 / 2.785293, 1e-3);
}

TEST(RobotJointParams, UrdfDynamicsSwitchesEachSourceOff) {
  ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  rm.links[1].mimic = 0;
  rm.links[1].mimic_multiplier = -0.5;
  rm.links[1].mimic_offset = 0.1;
  const std::vector<double> I = joint_effective_inertia(rm, {0.0, 0.0});
  const auto on = derive_joint_params(rm, I, {}, {}, 0.01, 1e-3);
  EXPECT_EQ(on[1].mimic, 0);
  EXPECT_EQ(on[1].mimic_multiplier, -0.5);
  EXPECT_EQ(on[1].mimic_offset, 0.1);
  UrdfDynamicsUse off;
  off.limits = off.damping = off.friction = off.mimic = false;
  const auto p = derive_joint_params(rm, I, off, {}, 0.01, 1e-3);
  for (const RobotJointParams<double>& j : p) {
    EXPECT_EQ(j.limited, 0);
    EXPECT_EQ(j.effort, 0.0);
    EXPECT_EQ(j.velocity, 0.0);
    EXPECT_EQ(j.damping, 0.0);
    EXPECT_EQ(j.friction, 0.0);
    EXPECT_EQ(j.friction_velocity, 0.01);
    EXPECT_EQ(j.mimic, -1);
    EXPECT_EQ(j.mimic_multiplier, 1.0);
  }
}

TEST(RobotJointParams, SceneServosSetModeGainsAndTheInputSlot) {
  TempDir t;
  json d = planar_doc(t.planar());
  d["robot"]["servos"] = {{"j1", {{"mode", "position"}, {"kp", 80}, {"kd", 6}}},
                          {"j2", {{"mode", "velocity"}, {"kd", 2.5}, {"target", -0.4}}}};
  const Scene s = parse_scene(d.dump());
  const RobotJointSpace& r = *s.model.robot;
  ASSERT_EQ(r.joints.size(), 2u);
  EXPECT_EQ(r.joints[0].mode, static_cast<int>(ActuatorMode::Position));
  EXPECT_EQ(r.joints[0].kp, 80.0);
  EXPECT_EQ(r.joints[0].kd, 6.0);
  EXPECT_EQ(r.joints[1].mode, static_cast<int>(ActuatorMode::Velocity));
  EXPECT_EQ(r.joints[1].kp, 0.0);
  EXPECT_EQ(r.joints[1].kd, 2.5);
  // The position servo holds q0 by default; the velocity servo starts at its target.
  EXPECT_EQ(r.tau[0], 0.3);
  EXPECT_EQ(r.tau[1], -0.4);
  EXPECT_EQ(s.model.forces[0].value, 0.3);
  EXPECT_EQ(s.model.forces[1].value, -0.4);
  // The derived limit gains use solver.dt and the effective inertia at q0.
  const std::vector<double> I = joint_effective_inertia(r.model, r.q0);
  EXPECT_EQ(r.effective_inertia, I);
  EXPECT_NEAR(r.joints[0].limit_stiffness, I[0] * 500.0 * 500.0, 1e-9 * I[0] * 2.5e5);
  EXPECT_TRUE(r.base_q0.empty());
  EXPECT_TRUE(r.base_v0.empty());
}

TEST(RobotJointParams, BadRobotKeysNameTheJsonPointer) {
  TempDir t;
  struct Case {
    const char* expect_path;
    const char* expect_text;
    json patch;  // merged into doc["robot"]
  };
  const std::vector<Case> cases = {
      {"/robot/servos/jx", "unknown joint 'jx' (moving joints: j1, j2)", {{"servos", {{"jx", {{"mode", "position"}, {"kp", 1}}}}}}},
      {"/robot/servos", "must be an object", {{"servos", json::array()}}},
      {"/robot/servos/j1/mode", "must be \"position\" or \"velocity\"", {{"servos", {{"j1", {{"mode", "torque"}}}}}}},
      {"/robot/servos/j1/mode", "required", {{"servos", {{"j1", {{"kp", 1}}}}}}},
      {"/robot/servos/j1/kp", "required", {{"servos", {{"j1", {{"mode", "position"}}}}}}},
      {"/robot/servos/j1/kp", "must be >= 0", {{"servos", {{"j1", {{"mode", "position"}, {"kp", -1}}}}}}},
      {"/robot/servos/j1/kd", "must be >= 0", {{"servos", {{"j1", {{"mode", "position"}, {"kp", 1}, {"kd", -2}}}}}}},
      {"/robot/servos/j1/kp", "a velocity servo has no kp", {{"servos", {{"j1", {{"mode", "velocity"}, {"kp", 1}, {"kd", 1}}}}}}},
      {"/robot/servos/j1/kd", "required", {{"servos", {{"j1", {{"mode", "velocity"}}}}}}},
      {"/robot/servos/j1/gain", "unknown key", {{"servos", {{"j1", {{"mode", "velocity"}, {"kd", 1}, {"gain", 1}}}}}}},
      {"/robot/tau/1", "its tau entry must be 0", {{"tau", {0.0, 2.0}}, {"servos", {{"j2", {{"mode", "velocity"}, {"kd", 1}}}}}}},
      {"/robot/urdf_dynamics/limits", "must be a boolean", {{"urdf_dynamics", {{"limits", 1}}}}},
      {"/robot/urdf_dynamics/contacts", "unknown key", {{"urdf_dynamics", {{"contacts", true}}}}},
      {"/robot/friction_velocity", "must be > 0", {{"friction_velocity", 0}}},
      {"/robot/floating_base", "must be a boolean", {{"floating_base", "yes"}}},
      {"/robot/base", "only a floating base", {{"base", {{"position", {0, 0, 1}}}}}},
      // The planar arm's root link has no mass: it cannot be a free base.
      {"/robot/floating_base", "base", {{"floating_base", true}}},
  };
  for (const Case& c : cases) {
    json d = planar_doc(t.planar());
    d["robot"].update(c.patch);
    std::string what;
    EXPECT_EQ(error_path(d, &what), c.expect_path) << c.patch.dump() << ": " << what;
    EXPECT_NE(what.find(c.expect_text), std::string::npos) << c.patch.dump() << ": " << what;
  }
  // Base keys of a floating robot.
  const std::vector<Case> base_cases = {
      {"/robot/base/orientation", "nonzero quaternion", {{"base", {{"orientation", {0, 0, 0, 0}}}}}},
      {"/robot/base/orientation", "4 numbers", {{"base", {{"orientation", {1, 0, 0}}}}}},
      {"/robot/base/position", "3 numbers", {{"base", {{"position", {1, 0}}}}}},
      {"/robot/base/spin", "unknown key", {{"base", {{"spin", {1, 0, 0}}}}}},
  };
  for (const Case& c : base_cases) {
    json d = planar_doc(t.flyer());
    d["robot"]["q0"] = {0.1};
    d["robot"].update(c.patch);
    std::string what;
    EXPECT_EQ(error_path(d, &what), c.expect_path) << c.patch.dump() << ": " << what;
    EXPECT_NE(what.find(c.expect_text), std::string::npos) << c.patch.dump() << ": " << what;
  }
}

TEST(RobotJointParams, FloatingBaseStateFromTheScene) {
  TempDir t;
  json d = planar_doc(t.flyer());
  d["robot"]["q0"] = {0.1};
  {
    const Scene s = parse_scene(d.dump());  // default: floating (the URDF's root joint), at rest at the origin
    const RobotJointSpace& r = *s.model.robot;
    EXPECT_TRUE(r.model.floating);
    EXPECT_EQ(r.base_q0, (std::vector<double>{0, 0, 0, 1, 0, 0, 0}));
    EXPECT_EQ(r.base_v0, (std::vector<double>(6, 0.0)));
    EXPECT_EQ(s.model.bodies.size(), 2u);  // body 0 = the base, body 1 = the arm
  }
  d["robot"]["base"] = {{"position", {1, 2, 3}}, {"orientation", {2, 0, 0, 2}},
                        {"velocity", {0.5, 0, 0}}, {"angular_velocity", {0, 0, 1.5}}};
  {
    const Scene s = parse_scene(d.dump());
    const RobotJointSpace& r = *s.model.robot;
    const double h = std::sqrt(0.5);
    ASSERT_EQ(r.base_q0.size(), 7u);
    EXPECT_EQ(r.base_q0[0], 1.0);
    EXPECT_EQ(r.base_q0[2], 3.0);
    EXPECT_NEAR(r.base_q0[3], h, 2.3e-16);  // normalised (to an ulp)
    EXPECT_NEAR(r.base_q0[6], h, 2.3e-16);
    EXPECT_EQ(r.base_v0, (std::vector<double>{0.5, 0, 0, 0, 0, 1.5}));
  }
  // Held fixed: no base state, the base welded to W; a base pose is then an error.
  d["robot"]["floating_base"] = false;
  EXPECT_EQ(error_path(d), "/robot/base");
  d["robot"].erase("base");
  const Scene s = parse_scene(d.dump());
  EXPECT_FALSE(s.model.robot->model.floating);
  EXPECT_TRUE(s.model.robot->base_q0.empty());
  EXPECT_EQ(s.model.bodies.size(), 1u);
}

TEST(RobotJointParams, ServoGainsTargetsAndFrictionVelocityAreSweepable) {
  TempDir t;
  json d = planar_doc(t.planar());
  d["robot"]["servos"] = {{"j1", {{"mode", "position"}, {"kp", 80}, {"kd", 6}, {"target", 0.2}}}};
  d["robot"]["friction_velocity"] = 0.5;
  d["sweep"] = {{"mode", "grid"},
                {"parameters",
                 {{{"path", "robot.servos.j1.kp"}, {"dist", "list"}, {"values", {10.0, 20.0}}},
                  {{"path", "robot.servos.j1.target"}, {"dist", "list"}, {"values", {-0.5, 0.5}}},
                  {{"path", "robot.friction_velocity"}, {"dist", "list"}, {"values", {0.01, 30.0}}},
                  {{"path", "robot.q0[1]"}, {"dist", "list"}, {"values", {0.0, 2.0}}}}}};
  const Scene s = parse_scene(d.dump());
  const SweepSamples samples = sample_sweep(s.sweep);
  const std::vector<Model> models = build_instance_models(s, samples);
  ASSERT_EQ(models.size(), 16u);
  for (std::size_t i = 0; i < models.size(); ++i) {
    const RobotJointSpace& r = *models[i].robot;
    const double kp = samples.values[0][i], target = samples.values[1][i], fv = samples.values[2][i],
                 q2 = samples.values[3][i], dt = 1e-3;
    EXPECT_EQ(r.joints[0].kp, kp);
    EXPECT_EQ(r.tau[0], target);
    EXPECT_EQ(models[i].forces[0].value, target);
    // Each instance's effective inertia at its own q0.
    double a, b, c;
    planar_mass_matrix(q2, a, b, c);
    EXPECT_NEAR(r.effective_inertia[0], a - b * b / c, 1e-13 * a);
    EXPECT_NEAR(r.effective_inertia[1], c - b * b / a, 1e-13 * a);
    // j2: friction floor 1.5 dt / (0.5 I_2) (0.05 - 0.15 at these q0) lies between the swept values.
    const double floor = 1.5 * dt / (kFrictionSlopeDt * r.effective_inertia[1]);
    EXPECT_DOUBLE_EQ(r.joints[1].friction_velocity, std::max(fv, floor));
    const double omega = 0.5 / dt;
    EXPECT_NEAR(r.joints[0].limit_stiffness, r.effective_inertia[0] * omega * omega,
                1e-12 * r.effective_inertia[0] * omega * omega);
  }
}

}  // namespace
}  // namespace simphant
