// Robot joint forces in the DAE (formulas/joint_law.hpp; docs/robots.md "The DAE solver:
// joint forces, mimic, floating base") on small chains:
//  - one-link chains against closed forms: viscous damping (exponential), position servo
//    (damped oscillator), velocity servo (first-order lag), effort clamp (constant
//    acceleration), velocity cut, Coulomb friction (the smoothed law's sliding rate), a
//    position limit (static deflection tau / k), a prismatic servo;
//  - a mimic pair (a constraint row) against the shared-coordinate closed form
//    (effective inertia I_l + r^2 I_f);
//  - body_forces_thread over the CPU grid == compute_forces (servo, limits, mimic, a
//    per-instance gain).
// The Panda and floating-base comparisons are in test_dae_robot_laws.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../kernels/body_forces.hpp"
#include "dae_robot_support.hpp"
#include "simphant/batch/batch_pack.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"

namespace simphant {
namespace {

using test::DaeRun;
using test::dae_robot;
using test::Params;
using test::Vec;

/// A link hanging from the base by a joint at p (W) about / along z, CoM 0.5 m along x of
/// its frame, mass m, inertia diag(0.01, 0.02, 0.03) about the CoM.
ReducedLink test_link(const char* name, Vec3d p, ReducedJointType type, double m = 1.0) {
  return test::test_link(name, -1, p, {0, 0, 1}, type, m, {0.5, 0, 0});
}
/// Inertia of test_link about its joint axis: 0.03 + m 0.5^2 [kg m^2].
double axis_inertia(double m = 1.0) { return 0.03 + m * 0.25; }


ReducedModel one_link(ReducedJointType type = ReducedJointType::Revolute) {
  ReducedModel rm;
  rm.name = "one";
  rm.gravity = {0, 0, -9.81};  // along the axis: no torque about it
  rm.links.push_back(test_link("a", {0, 0, 0}, type));
  return rm;
}

/// Runs the one-link model with P for T seconds (dt 1e-3) from q0, qd0 with input u;
/// returns the final q, qd.
void run_one(const RobotJointParams<double>& P, double q0, double qd0, double u, double T, double& q, double& qd,
             ReducedJointType type = ReducedJointType::Revolute) {
  const double dt = 1e-3;
  DaeRun r(dae_robot(one_link(type), {q0}, {qd0}, {P}, {u}, dt), {u});
  ASSERT_TRUE(r.run(dt, static_cast<int>(std::lround(T / dt))));
  r.joint(0, q, qd);
}

// The RK4 truncation error of these 1 s runs at dt = 1e-3 on modes up to ~30 rad/s is
// ~(h w)^4 w t / 120 ~ 1e-10; the tolerances below are 1e-8 (measured values printed).
constexpr double kClosedFormTol = 1e-8;

TEST(DaeJointLaws, ViscousDampingIsExponential) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.damping = 0.5;
  const double I = axis_inertia(), qd0 = 2.0, T = 1.0;
  double q, qd;
  run_one(P, 0.1, qd0, 0.0, T, q, qd);
  const double e = std::exp(-P.damping * T / I);
  const double q_ref = 0.1 + qd0 * I / P.damping * (1 - e), qd_ref = qd0 * e;
  std::printf("  damping: |q - q_exact| %.2e, |qd - qd_exact| %.2e\n", std::abs(q - q_ref), std::abs(qd - qd_ref));
  EXPECT_NEAR(q, q_ref, kClosedFormTol);
  EXPECT_NEAR(qd, qd_ref, kClosedFormTol);
}

TEST(DaeJointLaws, PositionServoIsDampedOscillator) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.mode = static_cast<int>(ActuatorMode::Position);
  P.kp = 40;
  P.kd = 1.5;
  const double I = axis_inertia(), target = 0.7, T = 1.0;
  double q, qd;
  run_one(P, 0.0, 0.0, target, T, q, qd);
  // x = q - target: I x'' + kd x' + kp x = 0, x(0) = -target, x'(0) = 0.
  const double zeta_w = P.kd / (2 * I), wd = std::sqrt(P.kp / I - zeta_w * zeta_w), x0 = -target;
  const double x = std::exp(-zeta_w * T) * (x0 * std::cos(wd * T) + zeta_w * x0 / wd * std::sin(wd * T));
  const double xd = std::exp(-zeta_w * T) * (-(zeta_w * zeta_w + wd * wd) * x0 / wd * std::sin(wd * T));
  std::printf("  position servo: |q - q_exact| %.2e, |qd - qd_exact| %.2e\n", std::abs(q - target - x),
              std::abs(qd - xd));
  EXPECT_NEAR(q, target + x, kClosedFormTol);
  EXPECT_NEAR(qd, xd, kClosedFormTol);
}

TEST(DaeJointLaws, VelocityServoIsFirstOrderLag) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.mode = static_cast<int>(ActuatorMode::Velocity);
  P.kd = 0.6;
  const double I = axis_inertia(), target = 1.2, T = 1.0;
  double q, qd;
  run_one(P, 0.0, -0.5, target, T, q, qd);
  const double tau = I / P.kd, c = -0.5 - target;
  const double qd_ref = target + c * std::exp(-T / tau), q_ref = target * T + c * tau * (1 - std::exp(-T / tau));
  std::printf("  velocity servo: |q - q_exact| %.2e, |qd - qd_exact| %.2e\n", std::abs(q - q_ref), std::abs(qd - qd_ref));
  EXPECT_NEAR(q, q_ref, kClosedFormTol);
  EXPECT_NEAR(qd, qd_ref, kClosedFormTol);
}

TEST(DaeJointLaws, EffortClampGivesConstantAcceleration) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.mode = static_cast<int>(ActuatorMode::Position);
  P.kp = 1000;
  P.effort = 0.2;  // kp (target - q) >> effort over the whole run
  const double I = axis_inertia(), T = 0.5;
  double q, qd;
  run_one(P, 0.0, 0.0, 3.0, T, q, qd);
  const double a = P.effort / I;
  std::printf("  effort clamp: |q - a t^2 / 2| %.2e\n", std::abs(q - 0.5 * a * T * T));
  EXPECT_NEAR(q, 0.5 * a * T * T, kClosedFormTol);
  EXPECT_NEAR(qd, a * T, kClosedFormTol);
}

TEST(DaeJointLaws, VelocityCutHoldsTheLimit) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.velocity = 0.5;
  const double I = axis_inertia(), u = 1.0, dt = 1e-3;
  DaeRun r(dae_robot(one_link(), {0.0}, {0.0}, {P}, {u}, dt), {u});
  double q, qd, worst = 0;
  for (int k = 0; k < 100; ++k) {
    ASSERT_TRUE(r.run(dt, 10));
    r.joint(0, q, qd);
    worst = std::max(worst, qd);
  }
  // Reached at t = 0.5 I / u = 0.14 s; within a step the RK4 stages can overshoot by at
  // most dt u / I.
  std::printf("  velocity cut: max qd %.6f (limit %.1f)\n", worst, P.velocity);
  EXPECT_GE(worst, P.velocity);
  EXPECT_LE(worst, P.velocity + dt * u / I);
  EXPECT_GE(qd, P.velocity - dt * u / I);
}

TEST(DaeJointLaws, CoulombFrictionSlidesAtTheSmoothedRate) {
  // Torque u below the friction F: the smoothed law F tanh(qd / v_f) balances u at
  // qd = v_f atanh(u / F) (a slow creep instead of a stop; docs/robots.md).
  RobotJointParams<double> P = plain_joint_params<double>();
  P.friction = 1.0;
  P.friction_velocity = 0.05;
  const double u = 0.5;
  double q, qd;
  run_one(P, 0.0, 0.3, u, 1.0, q, qd);
  const double qd_ss = P.friction_velocity * std::atanh(u / P.friction);
  std::printf("  Coulomb friction: qd %.10f, v_f atanh(u/F) %.10f\n", qd, qd_ss);
  EXPECT_NEAR(qd, qd_ss, 1e-9);
}

TEST(DaeJointLaws, PositionLimitDeflectsByTorqueOverStiffness) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.limited = 1;
  P.lower = -0.3;
  P.upper = 0.3;
  P.limit_stiffness = 200;
  P.limit_damping = 2 * std::sqrt(P.limit_stiffness * axis_inertia());  // critical
  const double u = 1.0;
  double q, qd;
  run_one(P, 0.0, 0.0, u, 3.0, q, qd);
  std::printf("  limit: q - (upper + u / k) %.2e\n", q - (P.upper + u / P.limit_stiffness));
  EXPECT_NEAR(q, P.upper + u / P.limit_stiffness, 1e-9);
  EXPECT_NEAR(qd, 0.0, 1e-9);
  // Away from the limit it does not act: free acceleration -u / I inside the range
  // (q reaches -0.16 rad at 0.3 s).
  run_one(P, 0.0, 0.0, -u, 0.3, q, qd);
  EXPECT_NEAR(qd, -u / axis_inertia() * 0.3, kClosedFormTol);
}

TEST(DaeJointLaws, PrismaticServoIsDampedOscillator) {
  RobotJointParams<double> P = plain_joint_params<double>();
  P.mode = static_cast<int>(ActuatorMode::Position);
  P.kp = 30;
  P.kd = 2;
  const double m = 1.0, target = 0.2, T = 1.0;  // the slider's mass moves along z
  double q, qd;
  run_one(P, 0.0, 0.0, target, T, q, qd, ReducedJointType::Prismatic);
  // Gravity along the slide: m x'' + kd x' + kp x = -m g, x = q - target.
  const double x_eq = -9.81 * m / P.kp;
  const double zeta_w = P.kd / (2 * m), wd = std::sqrt(P.kp / m - zeta_w * zeta_w), x0 = -target - x_eq;
  const double x = x_eq + std::exp(-zeta_w * T) * (x0 * std::cos(wd * T) + zeta_w * x0 / wd * std::sin(wd * T));
  std::printf("  prismatic servo: |q - q_exact| %.2e\n", std::abs(q - target - x));
  EXPECT_NEAR(q, target + x, kClosedFormTol);
}

/// Two links on the base about parallel z axes 2 m apart; link 1 mimics link 0.
ReducedModel mimic_pair(double r, double offset) {
  ReducedModel rm;
  rm.name = "pair";
  rm.gravity = {0, 0, -9.81};
  rm.links.push_back(test_link("lead", {0, 0, 0}, ReducedJointType::Revolute, 1.0));
  rm.links.push_back(test_link("follow", {2, 0, 0}, ReducedJointType::Revolute, 0.5));
  rm.links[1].mimic = 0;
  rm.links[1].mimic_multiplier = r;
  rm.links[1].mimic_offset = offset;
  return rm;
}

Params mimic_params(const ReducedModel& rm) {
  Params P(rm.links.size(), plain_joint_params<double>());
  for (std::size_t k = 0; k < P.size(); ++k) {
    P[k].mimic = rm.links[k].mimic;
    P[k].mimic_multiplier = rm.links[k].mimic_multiplier;
    P[k].mimic_offset = rm.links[k].mimic_offset;
  }
  return P;
}

TEST(DaeJointLaws, MimicPairMovesWithTheSharedInertia) {
  // Shared coordinate: (I_l + r^2 I_f) q_l'' = tau, q_f = r q_l + offset, exactly: the
  // mimic is a constraint row of the DAE (docs/solver.md, "Mimic rows"), so the leader
  // moves with the shared inertia and the pair never parts. The motion is quadratic in t,
  // which RK4 integrates exactly; what is left is round-off.
  const double r = -0.5, off = 0.1, tau = 0.4, dt = 1e-3, T = 1.0;
  const ReducedModel rm = mimic_pair(r, off);
  DaeRun run(dae_robot(rm, {0.2, r * 0.2 + off}, {0.0, 0.0}, mimic_params(rm), {tau, 0.0}, dt), {tau, 0.0});
  ASSERT_EQ(run.model.n_mimics(), 1);
  EXPECT_EQ(run.model.mimics[0].joint, 1);
  EXPECT_EQ(run.model.mimics[0].leader, 0);
  const double Il = axis_inertia(1.0), If = axis_inertia(0.5);
  const double a = tau / (Il + r * r * If);
  double worst_e = 0, ql, qdl, qf, qdf;
  for (int s = 0; s < 100; ++s) {
    ASSERT_TRUE(run.run(dt, 10));
    run.joint(0, ql, qdl);
    run.joint(1, qf, qdf);
    worst_e = std::max(worst_e, std::abs(qf - r * ql - off));
  }
  std::printf("  mimic pair: q_l - q_exact %.2e rad, qd_l - qd_exact %.2e rad/s, max |q_f - r q_l - o| %.3e rad\n",
              ql - (0.2 + 0.5 * a * T * T), qdl - a * T, worst_e);
  // Round-off only: 1000 steps of about 10 ulp each on O(1) values, 1e-12, kept with a
  // margin of 10 (the coupling spring this row replaced was off by 1e-5 rad here).
  EXPECT_NEAR(ql, 0.2 + 0.5 * a * T * T, 1e-11);
  EXPECT_NEAR(qdl, a * T, 1e-11);
  EXPECT_LT(worst_e, 1e-13);
}

// body_forces_thread over the whole CPU grid equals compute_forces bit for bit for
// robot joint laws (servo, limits, damping, friction) on a mimic pair (the mimic is a
// constraint row, no force: each law loads its own joint's bodies only) with a
// per-instance servo gain and per-instance states.
TEST(DaeJointLaws, PerThreadBodyForcesOverCpuGridEqualReference) {
  const ReducedModel rm = mimic_pair(-0.5, 0.1);
  const int n = 3;
  std::vector<Model> models;
  for (int i = 0; i < n; ++i) {
    Params P = mimic_params(rm);
    P[0].mode = static_cast<int>(ActuatorMode::Position);
    P[0].kp = 10 + 5 * i;  // swept
    P[0].kd = 0.3;
    P[0].effort = 2;
    P[0].damping = 0.05;
    P[0].friction = 0.1;
    P[0].friction_velocity = 0.02;
    P[0].limited = 1;
    P[0].lower = -0.1;
    P[0].upper = 0.1;
    P[0].limit_stiffness = 100;
    P[0].limit_damping = 3;
    P[1].damping = 0.02;
    models.push_back(dae_robot(rm, {0.3 - 0.25 * i, -0.3 * i}, {0.5 * i, -1.0 + i}, P, {0.25, 0.1}, 1e-3));
  }
  const int N = models[0].n_bodies(), ny = models[0].ny(), ni = models[0].n_inputs;
  const batch::PackedModel<double> packed = batch::pack_models<double>(models, n);
  const batch::ModelView<double> mv = packed.host_view();
  EXPECT_GE(packed.n_varied(), 1);
  std::vector<double> Y_soa(static_cast<std::size_t>(ny) * n), Q(static_cast<std::size_t>(6 * N) * n, NAN);
  std::vector<double> inputs(static_cast<std::size_t>(ni) * n), times(n, 0.0);
  std::vector<Vec> Ys;
  for (int i = 0; i < n; ++i) {
    Vec Y(ny);
    initial_state(models[i], Y.data());
    for (int c = 0; c < ny; ++c) Y_soa[static_cast<std::size_t>(c) * n + i] = Y[c];
    for (int c = 0; c < ni; ++c) inputs[static_cast<std::size_t>(c) * n + i] = 0.25 * (c + 1) - 0.1 * i;
    Ys.push_back(Y);
  }
  for (int tid = 0; tid < n * N + 5; ++tid)
    batch::body_forces_thread(tid, mv, times.data(), Y_soa.data(), inputs.data(), Q.data());
  for (int i = 0; i < n; ++i) {
    Data d(models[i]);
    set_kinematics(models[i], d, Ys[i].data());
    Vec u(ni);
    for (int c = 0; c < ni; ++c) u[c] = inputs[static_cast<std::size_t>(c) * n + i];
    compute_forces(models[i], d, 0.0, u.data());
    for (int r = 0; r < 6 * N; ++r)
      EXPECT_EQ(Q[static_cast<std::size_t>(r) * n + i], d.Q[r]) << "instance " << i << " row " << r;
  }
}

}  // namespace
}  // namespace simphant
