// The joint parameters a robot scene derives (scene/robot_joint_params.hpp; docs/robots.md,
// "Actuators, limits, damping and friction"): the effective inertia against the two-link
// closed form and a floating body's (6 + n) mass matrix, its sampled lower bound against
// the closed-form minimum, the limit gains and the friction_velocity floor against their
// formulas, and the joint modes of the step-size check. Small URDFs written by the test;
// no robot package needed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "robot_joint_test_data.hpp"
#include "simphant/dynamics/robot_stability.hpp"
#include "simphant/dynamics/stability.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

using namespace robot_test;

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

TEST(RobotJointParams, FloatingEffectiveInertiaIsThatOfTheFreeSystem) {
  // The flyer (torso 5 kg + arm 1 kg on a y-axis shoulder) with the base free: the
  // (6 + 1) mass matrix from the two bodies' velocity Jacobians, M = sum J^T diag(m, m, m,
  // I_W) J with nu = (v_B, omega_B, qd) at the base pose identity, against the floating
  // ABA's 1 / (M^-1)_qq. An independent construction (kinetic energy, no recursion).
  ReducedModel rm = parse_urdf(kFloating, "flyer.urdf");
  ASSERT_TRUE(rm.floating);
  const double q = 0.4;
  const std::vector<double> I = joint_effective_inertia(rm, {q});
  const Eigen::Vector3d c_B(0, 0, 0.1), p_j(0.2, 0, 0), axis(0, 1, 0);
  const Eigen::Matrix3d R = Eigen::AngleAxisd(q, axis).toRotationMatrix();
  const Eigen::Vector3d c_arm = p_j + R * Eigen::Vector3d(0, 0, -0.2);
  const auto skew = [](const Eigen::Vector3d& a) {
    Eigen::Matrix3d S;
    S << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
    return S;
  };
  // Rows: CoM velocity (3), angular velocity (3); columns: v_B, omega_B, qd.
  Eigen::Matrix<double, 6, 7> J0 = Eigen::Matrix<double, 6, 7>::Zero(), J1 = J0;
  J0.block<3, 3>(0, 0) = Eigen::Matrix3d::Identity();
  J0.block<3, 3>(0, 3) = -skew(c_B);
  J0.block<3, 3>(3, 3) = Eigen::Matrix3d::Identity();
  J1.block<3, 3>(0, 0) = Eigen::Matrix3d::Identity();
  J1.block<3, 3>(0, 3) = -skew(c_arm);
  J1.block<3, 1>(0, 6) = axis.cross(c_arm - p_j);
  J1.block<3, 3>(3, 3) = Eigen::Matrix3d::Identity();
  J1.block<3, 1>(3, 6) = axis;
  Eigen::Matrix<double, 6, 6> D0 = Eigen::Matrix<double, 6, 6>::Zero(), D1 = D0;
  D0.block<3, 3>(0, 0) = 5.0 * Eigen::Matrix3d::Identity();
  D0.block<3, 3>(3, 3) = Eigen::Vector3d(0.1, 0.12, 0.08).asDiagonal();
  D1.block<3, 3>(0, 0) = Eigen::Matrix3d::Identity();
  D1.block<3, 3>(3, 3) = R * Eigen::Vector3d(0.01, 0.01, 0.002).asDiagonal() * R.transpose();
  const Eigen::Matrix<double, 7, 7> M = J0.transpose() * D0 * J0 + J1.transpose() * D1 * J1;
  const double expected = 1.0 / M.inverse()(6, 6);
  EXPECT_NEAR(I[0], expected, 1e-13 * expected);
  // Held fixed, the joint feels the arm's inertia about the axis, more than when free.
  make_fixed_base(rm);
  const std::vector<double> fixed = joint_effective_inertia(rm, {q});
  EXPECT_NEAR(fixed[0], M(6, 6), 1e-13 * M(6, 6));
  EXPECT_LT(I[0], fixed[0]);
}

TEST(RobotJointParams, InertiaBoundIsTheSampledMinimumOverTheWorkspace) {
  // The planar arm's effective inertias depend on q2 alone (j2 has no limits: sampled in
  // [-pi, pi]); the closed forms scanned at 100001 angles give the true minima.
  const ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  double min0 = 1e300, min1 = 1e300;
  for (int i = 0; i <= 100000; ++i) {
    const double q2 = -M_PI + 2 * M_PI * i / 100000.0;
    double a, b, c;
    planar_mass_matrix(q2, a, b, c);
    min0 = std::min(min0, a - b * b / c);
    min1 = std::min(min1, c - b * b / a);
  }
  const std::vector<double> at_q0 = joint_effective_inertia(rm, {0.3, 0.7});
  const std::vector<double> bound = joint_inertia_lower_bound(rm, {0.3, 0.7});
  ASSERT_EQ(bound.size(), 2u);
  // At or below q0's values, and at or above the true minima (no sample is lighter than the
  // lightest configuration; 1e-13: rounding of the two evaluations).
  EXPECT_LE(bound[0], at_q0[0]);
  EXPECT_LE(bound[1], at_q0[1]);
  EXPECT_GE(bound[0], min0 * (1 - 1e-13));
  EXPECT_GE(bound[1], min1 * (1 - 1e-13));
  // Close to them: the minimum is quadratic in the distance to the nearest of the 64
  // samples. Measured 6e-4 and 6.2e-3 above the minima (I(q0) is 1.36 and 1.47 times
  // them); bound 2e-2.
  EXPECT_LT(bound[0] / min0 - 1, 2e-2);
  EXPECT_LT(bound[1] / min1 - 1, 2e-2);
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

TEST(RobotJointParams, SolreflimitLawTakesTheTimeConstantWhereTheStepAllowsIt) {
  ReducedModel rm = parse_urdf(kPlanar, "planar.urdf");
  const std::vector<double> I = joint_effective_inertia(rm, {0.3, 0.7});
  const double dt = 2e-3;
  // MuJoCo's default solreflimit (0.02 s, 1): omega = 50 1/s < 0.5 / dt = 250 1/s.
  rm.links[0].limit_time_constant = 0.02;
  rm.links[0].limit_damping_ratio = 1;
  UrdfDynamicsUse use;
  use.solreflimit = true;  // robot.limit_law "solreflimit"
  auto p = derive_joint_params(rm, I, use, {}, kDefaultFrictionVelocity, dt);
  EXPECT_NEAR(p[0].limit_stiffness, I[0] * 2500, 1e-12 * I[0] * 2500);
  EXPECT_NEAR(p[0].limit_damping, 2 * I[0] * 50, 1e-12 * I[0] * 100);
  // zeta 0.5: omega = 1 / (tc zeta) = 100, c = 2 zeta I omega (underdamped: |lambda| = omega)
  rm.links[0].limit_damping_ratio = 0.5;
  p = derive_joint_params(rm, I, use, {}, kDefaultFrictionVelocity, dt);
  EXPECT_NEAR(p[0].limit_stiffness, I[0] * 1e4, 1e-12 * I[0] * 1e4);
  EXPECT_NEAR(p[0].limit_damping, I[0] * 100, 1e-12 * I[0] * 100);
  StabilityMode m = spring_mode(0, p[0].limit_stiffness, p[0].limit_damping, 1.0 / I[0]);
  EXPECT_NEAR(std::abs(m.lambda), 100, 1e-9);
  // zeta 2 at tc 0.0025: omega = 200, fastest root omega (2 + sqrt 3) = 746 > 250: the
  // step's critical mode instead.
  rm.links[0].limit_time_constant = 0.0025;
  rm.links[0].limit_damping_ratio = 2;
  const LimitMode fallback = limit_mode(rm.links[0], dt, true);
  EXPECT_EQ(fallback.omega, 0.5 / dt);
  EXPECT_EQ(fallback.damping_ratio, 1.0);
  // zeta 2 at tc 0.02: omega 25, fastest root 93 <= 250: kept, overdamped.
  rm.links[0].limit_time_constant = 0.02;
  const LimitMode kept = limit_mode(rm.links[0], dt, true);
  EXPECT_EQ(kept.omega, 25.0);
  EXPECT_EQ(kept.damping_ratio, 2.0);
  // A URDF joint (time constant 0), and robot.limit_law "step" (the default): the step's mode.
  EXPECT_EQ(limit_mode(rm.links[1], dt, true).omega, 0.5 / dt);
  EXPECT_EQ(limit_mode(rm.links[0], dt, false).omega, 0.5 / dt);
  const auto step = derive_joint_params(rm, I, {}, {}, kDefaultFrictionVelocity, dt);
  EXPECT_NEAR(step[0].limit_stiffness, I[0] * 250 * 250, 1e-12 * I[0] * 250 * 250);
}

TEST(RobotJointParams, LimitLawSceneKeyChoosesTheModeAndNamesItsErrors) {
  TempDir t;
  const std::string mjcf = (t.dir / "stop.xml").string();
  std::ofstream(mjcf) << R"(<mujoco model="stop"><option timestep="0.002"/><worldbody><body name="arm">
    <joint name="j" type="hinge" axis="0 1 0" range="-30 30" solreflimit="0.04 1"/>
    <inertial pos="0.5 0 0" mass="1" diaginertia="1e-3 1e-3 1e-3"/></body></worldbody></mujoco>)";
  nlohmann::json m;
  m["name"] = "stop";
  m["robot"] = {{"mjcf", mjcf}};
  m["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 0.01}};
  const auto gains = [&](const nlohmann::json& doc) {
    const Scene s = parse_scene(doc.dump());
    const RobotJointSpace& rj = *s.model.robot;
    return std::pair<double, double>{rj.joints[0].limit_stiffness / rj.effective_inertia[0],
                                     rj.joints[0].limit_damping / rj.effective_inertia[0]};
  };
  const auto step = gains(m);  // default "step": omega = 0.5 / dt = 500
  EXPECT_NEAR(step.first, 500.0 * 500.0, 1e-9 * 500 * 500);
  EXPECT_NEAR(step.second, 1000.0, 1e-9 * 1000);
  m["robot"]["limit_law"] = "solreflimit";  // omega = 1 / 0.04 = 25
  const auto soft = gains(m);
  EXPECT_NEAR(soft.first, 625.0, 1e-9 * 625);
  EXPECT_NEAR(soft.second, 50.0, 1e-9 * 50);
  m["robot"]["limit_law"] = "stiff";
  std::string what;
  EXPECT_EQ(error_path(m, &what), "/robot/limit_law");
  EXPECT_NE(what.find("\"step\""), std::string::npos) << what;
  nlohmann::json u = planar_doc(t.planar());
  u["robot"]["limit_law"] = "solreflimit";
  EXPECT_EQ(error_path(u, &what), "/robot/limit_law");
  EXPECT_NE(what.find("MJCF"), std::string::npos) << what;
  u["robot"]["limit_law"] = "step";
  EXPECT_EQ(error_path(u, &what), "") << what;
  // MuJoCo's direct form is not read: "solreflimit" refuses the joint, "step" runs it.
  const std::string direct = (t.dir / "direct.xml").string();
  std::ofstream(direct) << R"(<mujoco model="stop"><worldbody><body name="arm">
    <joint name="j" type="hinge" axis="0 1 0" range="-30 30" solreflimit="-1000 -10"/>
    <inertial pos="0.5 0 0" mass="1" diaginertia="1e-3 1e-3 1e-3"/></body></worldbody></mujoco>)";
  m["robot"]["mjcf"] = direct;
  m["robot"]["limit_law"] = "solreflimit";
  EXPECT_EQ(error_path(m, &what), "/robot/limit_law");
  EXPECT_NE(what.find("joint 'j'"), std::string::npos) << what;
  m["robot"]["limit_law"] = "step";
  EXPECT_EQ(error_path(m, &what), "") << what;
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
  UrdfDynamicsUse limits_only;  // an MJCF robot's limits off: its actuators' effort bound stays
  limits_only.limits = false;
  const auto bounded = derive_joint_params(rm, I, limits_only, {}, 0.01, 1e-3);
  EXPECT_EQ(bounded[0].limited, 0);
  EXPECT_EQ(bounded[0].effort, on[0].effort);
  EXPECT_GT(bounded[0].effort, 0.0);
  UrdfDynamicsUse off;
  off.limits = off.effort = off.damping = off.friction = off.mimic = false;
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

TEST(RobotJointParams, AJointSpringIsAModeOfItsOwnNamedAfterTheFile) {
  // A spring alone (MJCF stiffness k, no limits or damping): q = k / I_k, p = 0, an
  // undamped mode lambda = i sqrt(k / I_k), named "spring", its key the robot file's.
  RobotJointSpace r;
  r.model = parse_urdf(kPlanar, "planar.urdf");
  r.model.links[1].stiffness = 40.0;
  r.model.links[1].spring_q = 0.1;
  r.q0 = {0.3, 0.7};
  r.effective_inertia = joint_effective_inertia(r.model, r.q0);
  UrdfDynamicsUse use;
  use.damping = false;
  use.limits = false;
  use.friction = false;
  r.joints = derive_joint_params(r.model, r.effective_inertia, use, {}, kDefaultFrictionVelocity, 1e-3);
  EXPECT_EQ(r.joints[1].stiffness, 40.0);
  EXPECT_EQ(r.joints[1].spring_q, 0.1);
  const std::vector<StabilityMode> modes = robot_joint_modes(r);
  ASSERT_EQ(modes.size(), 1u);
  EXPECT_EQ(modes[0].joint, 1);
  EXPECT_EQ(robot_mode_name(modes[0], r), "joint 'j2' (spring)");
  EXPECT_EQ(robot_mode_field(modes[0], r), "/robot/" + r.file_key);
  EXPECT_NEAR(std::abs(modes[0].lambda), std::sqrt(40.0 / r.effective_inertia[1]), 1e-9 * std::sqrt(40.0));
}

TEST(RobotJointParams, LimitWithFrictionAtItsFloorStaysInsideTheWarningRatio) {
  // A joint resting on its stop with Coulomb friction at the floor: p = (2 omega + 0.5 /
  // dt), q = omega^2 = 0.25 / dt^2; roots dt s = (-1.5 +- sqrt(1.25)) / 2, the fastest
  // |lambda| dt = (1.5 + sqrt(1.25)) / 2 = 1.309, dt / dt_max = 1.309 / 2.785 = 0.47 < 0.5.
  RobotJointSpace r;
  r.model = parse_urdf(kPlanar, "planar.urdf");
  r.model.links[0].friction = 3.0;
  r.q0 = {0.3, 0.7};
  r.effective_inertia = joint_effective_inertia(r.model, r.q0);
  UrdfDynamicsUse use;
  use.damping = false;
  const double dt = 1e-3;
  r.joints = derive_joint_params(r.model, r.effective_inertia, use, {}, kDefaultFrictionVelocity, dt);
  const std::vector<StabilityMode> modes = robot_joint_modes(r);
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_EQ(modes[0].joint, 0);
  EXPECT_EQ(robot_mode_name(modes[0], r), "joint 'j1' (limit spring-damper + friction slope)");
  EXPECT_EQ(robot_mode_field(modes[0], r), "/robot/urdf_dynamics/limits");
  EXPECT_NEAR(std::abs(modes[0].lambda) * dt, (1.5 + std::sqrt(1.25)) / 2, 1e-12);
  const double ratio = dt / integrator_stable_step(Integrator::Rk4, modes[0]);
  EXPECT_NEAR(ratio, (1.5 + std::sqrt(1.25)) / 2 / 2.785293, 1e-5);
  EXPECT_LT(ratio, kStabilityWarnRatio);
  // j2 (friction 1.5 at its floor, no damping, no limits): the pure slope, |lambda| dt = 0.5.
  EXPECT_EQ(modes[1].joint, 1);
  EXPECT_NEAR(std::abs(modes[1].lambda) * dt, 0.5, 1e-12);
  EXPECT_EQ(robot_mode_field(modes[1], r), "/robot/friction_velocity");
}

}  // namespace
}  // namespace simphant
