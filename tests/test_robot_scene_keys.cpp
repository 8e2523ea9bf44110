// The robot scene keys of the joint forces and the base (docs/robots.md, "Scene format",
// "Servos", "Floating base"): servos and their input slots, the floating base's initial
// state, urdf_dynamics, friction_velocity, their errors (each names its JSON pointer),
// sweeps over them, a massless intermediate link per solver, and the step-size check on
// robot scenes (derived gains pass it, a stiff servo is refused naming its gain). Small
// URDFs written by the test; no robot package needed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "robot_joint_test_data.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using namespace robot_test;
using nlohmann::json;

TEST(RobotSceneKeys, MasslessIntermediateLinkNeedsAbaOrCgaAndAnInertiaAlongEachJoint) {
  // base -j1 (z)-> m (no mass) -j2 (axis)-> c (mass): a 2-axis joint.
  const auto urdf = [](const char* axis2) {
    return std::string(R"(<robot name="gimbal"><link name="base"/><link name="m"/>
      <link name="c"><inertial><origin xyz="0 0 0.1"/><mass value="1"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.004"/></inertial></link>
      <joint name="j1" type="continuous"><parent link="base"/><child link="m"/><axis xyz="0 0 1"/></joint>
      <joint name="j2" type="continuous"><parent link="m"/><child link="c"/><axis xyz=")") +
           axis2 + R"("/></joint></robot>)";
  };
  TempDir t;
  const std::string file = (t.dir / "gimbal.urdf").string();
  std::ofstream(file) << urdf("1 0 0");
  json d = planar_doc(file);
  d["robot"]["q0"] = {0.0, 0.2};
  {
    const Scene s = parse_scene(d.dump());
    EXPECT_GT(s.model.robot->effective_inertia[0], 0.0);
    EXPECT_GT(s.model.robot->effective_inertia[1], 0.0);
  }
  d["solver"]["type"] = "dae";
  std::string what;
  EXPECT_EQ(error_path(d, &what), "/robot/urdf");
  EXPECT_NE(what.find("solver dae needs mass on every moving link; use solver aba or cga"), std::string::npos) << what;
  // j2 about the same axis as j1 through the same point: j1 then moves no mass of its own.
  // (Another file: the scene compile caches a URDF by its path.)
  const std::string coaxial = (t.dir / "coaxial.urdf").string();
  std::ofstream(coaxial) << urdf("0 0 1");
  d["robot"]["urdf"] = coaxial;
  d["solver"]["type"] = "aba";
  EXPECT_EQ(error_path(d, &what), "/robot/urdf");
  EXPECT_NE(what.find("singular: joint 'j2'"), std::string::npos) << what;
}

TEST(RobotSceneKeys, SceneServosSetModeGainsAndTheInputSlot) {
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
  const std::vector<double> I = joint_inertia_lower_bound(r.model, r.q0);
  EXPECT_EQ(r.effective_inertia, I);
  EXPECT_NEAR(r.joints[0].limit_stiffness, I[0] * 500.0 * 500.0, 1e-9 * I[0] * 2.5e5);
  EXPECT_TRUE(r.base_q0.empty());
  EXPECT_TRUE(r.base_v0.empty());
}

TEST(RobotSceneKeys, BadRobotKeysNameTheJsonPointer) {
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

TEST(RobotSceneKeys, FloatingBaseStateFromTheScene) {
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
  {
    // Swept base state: each instance's own, in its model and in the DAE body 0.
    json ds = d;
    ds["sweep"] = {{"mode", "grid"},
                   {"parameters",
                    {{{"path", "robot.base.position[2]"}, {"dist", "list"}, {"values", {-1.0, 4.0}}},
                     {{"path", "robot.base.angular_velocity[2]"}, {"dist", "list"}, {"values", {0.0, -2.0}}}}}};
    const Scene s = parse_scene(ds.dump());
    const SweepSamples samples = sample_sweep(s.sweep);
    const std::vector<Model> models = build_instance_models(s, samples);
    ASSERT_EQ(models.size(), 4u);
    for (std::size_t i = 0; i < models.size(); ++i) {
      EXPECT_EQ(models[i].robot->base_q0[2], samples.values[0][i]);
      EXPECT_EQ(models[i].robot->base_v0[5], samples.values[1][i]);
      // Body 0 (the torso, CoM 0.1 above B's origin on B's z = W's z here) and its spin
      // about its own z (B's z: the CoM frame has B's axes).
      EXPECT_NEAR(models[i].bodies[0].r0_W.z, samples.values[0][i] + 0.1, 1e-15);
      EXPECT_NEAR(models[i].bodies[0].omega0_B.z, samples.values[1][i], 1e-15);
    }
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

TEST(RobotSceneKeys, ServoGainsTargetsAndFrictionVelocityAreSweepable) {
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
    // Each instance's inertia bound includes its own q0.
    double a, b, c;
    planar_mass_matrix(q2, a, b, c);
    EXPECT_LE(r.effective_inertia[0], (a - b * b / c) * (1 + 1e-13));  // rounding
    EXPECT_LE(r.effective_inertia[1], (c - b * b / a) * (1 + 1e-13));
    // j2: friction floor 1.5 dt / (0.5 I_2) (0.05 - 0.15 at these q0) lies between the swept values.
    const double floor = 1.5 * dt / (kFrictionSlopeDt * r.effective_inertia[1]);
    EXPECT_DOUBLE_EQ(r.joints[1].friction_velocity, std::max(fv, floor));
    const double omega = 0.5 / dt;
    EXPECT_NEAR(r.joints[0].limit_stiffness, r.effective_inertia[0] * omega * omega,
                1e-12 * r.effective_inertia[0] * omega * omega);
  }
}

/// The mode of the step-size check whose name starts with `name_start` (null if none).
json mode_of(const StabilityCheck& c, const std::string& name_start) {
  for (const json& m : c.estimate.at("modes"))
    if (m.at("name").get<std::string>().rfind(name_start, 0) == 0) return m;
  return json();
}

TEST(RobotSceneKeys, DerivedGainsPassTheStepSizeCheck) {
  TempDir t;
  for (const char* solver : {"aba", "dae"}) {
    const json d = planar_doc(t.planar(), solver);
    const Scene s = parse_scene(d.dump());
    const StabilityCheck c = check_step_stability({s.model}, d);
    EXPECT_TRUE(c.refused_field.empty()) << c.refused_reason;
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
    const RobotJointSpace& r = *s.model.robot;
    // j1: the limit alone, the double root -omega: |lambda| dt = 0.5 (to sqrt(eps) of the
    // double root's rounding), dt / dt_max = 0.5 / 2.785.
    const json j1 = mode_of(c, "joint 'j1'");
    ASSERT_FALSE(j1.is_null()) << c.estimate.dump();
    EXPECT_EQ(j1.at("name"), "joint 'j1' (limit spring-damper)");
    EXPECT_EQ(j1.at("field"), "/robot/urdf_dynamics/limits");
    EXPECT_NEAR(j1.at("lambda_dt").get<double>(), 0.5, 1e-6);
    EXPECT_NEAR(j1.at("ratio").get<double>(), 0.5 / 2.785293, 1e-3);
    EXPECT_EQ(j1.at("verdict"), "ok");
    // j2: damping + the friction slope at its floor: real, |lambda| dt = 0.5 + 0.4 dt / I_2.
    const json j2 = mode_of(c, "joint 'j2'");
    ASSERT_FALSE(j2.is_null());
    EXPECT_EQ(j2.at("name"), "joint 'j2' (damping + friction slope)");
    EXPECT_EQ(j2.at("field"), "/robot/friction_velocity");
    EXPECT_NEAR(j2.at("lambda_dt").get<double>(), 0.5 + 0.4 * 1e-3 / r.effective_inertia[1], 1e-12);
    EXPECT_EQ(j2.at("verdict"), "ok");
  }
}

TEST(RobotSceneKeys, StiffServoIsRefusedNamingItsGain) {
  TempDir t;
  json d = planar_doc(t.planar());
  d["robot"]["urdf_dynamics"] = {{"friction", false}, {"damping", false}};
  const double I2 = parse_scene(d.dump()).model.robot->effective_inertia[1];
  // kp = I (3 / dt)^2: an undamped mode with omega dt = 3, beyond RK4's 2 sqrt(2).
  d["robot"]["servos"] = {{"j2", {{"mode", "position"}, {"kp", I2 * 9e6}}}};
  {
    const Scene s = parse_scene(d.dump());
    const StabilityCheck c = check_step_stability({s.model}, d);
    EXPECT_EQ(c.refused_field, "/robot/servos/j2/kp") << c.estimate.dump();
    EXPECT_NE(c.refused_reason.find("joint 'j2' (servo)"), std::string::npos) << c.refused_reason;
    EXPECT_NEAR(mode_of(c, "joint 'j2'").at("lambda_dt").get<double>(), 3.0, 1e-9);
  }
  // A velocity servo with kd dt / I = 3 (real root, beyond 2.785): named at kd.
  d["robot"]["servos"] = {{"j2", {{"mode", "velocity"}, {"kd", I2 * 3e3}}}};
  {
    const Scene s = parse_scene(d.dump());
    const StabilityCheck c = check_step_stability({s.model}, d);
    EXPECT_EQ(c.refused_field, "/robot/servos/j2/kd") << c.estimate.dump();
  }
  // Swept: the stiff instance is the one reported.
  d["robot"]["servos"] = {{"j2", {{"mode", "position"}, {"kp", 1.0}}}};
  d["sweep"] = {{"mode", "grid"},
                {"parameters", {{{"path", "robot.servos.j2.kp"}, {"dist", "list"}, {"values", {1.0, I2 * 9e6, 2.0}}}}}};
  const Scene s = parse_scene(d.dump());
  const std::vector<Model> models = build_instance_models(s, sample_sweep(s.sweep));
  const StabilityCheck c = check_step_stability(models, d);
  EXPECT_EQ(c.refused_field, "/robot/servos/j2/kp");
  EXPECT_EQ(mode_of(c, "joint 'j2'").at("instance"), 1);
}

}  // namespace
}  // namespace simphant
