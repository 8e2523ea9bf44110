// Robot joint forces in the DAE (dynamics/joint_law.hpp; docs/robots.md "The DAE solver:
// joint forces, mimic, floating base"):
//  - one-link chains against closed forms: viscous damping (exponential), position servo
//    (damped oscillator), velocity servo (first-order lag), effort clamp (constant
//    acceleration), velocity cut, Coulomb friction (the smoothed law's sliding rate), a
//    position limit (static deflection tau / k), a prismatic servo;
//  - a mimic pair against the shared-coordinate closed form (effective inertia
//    I_l + r^2 I_f) and the coupling's predicted static error;
//  - body_forces_thread over the CPU grid == compute_forces (servo, limits, mimic, a
//    per-instance gain);
//  - Panda: evaluate()'s joint accelerations == ABA with the same joint forces, and 1 s
//    trajectories with servos, damping, friction and limits (and the fingers' mimic)
//    against a joint-space RK4 (ABA, or a dense KKT for the mimic).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "../kernels/body_forces.hpp"
#include "dae_joint_accelerations.hpp"
#include "robot_data.hpp"
#include "simphant/batch/batch_pack.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/dynamics/state.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/robot_joint_laws.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/sim/joint_coordinates.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

using Vec = std::vector<double>;
using Params = std::vector<RobotJointParams<double>>;

/// A link hanging from the base by a joint at p (W) about / along z, CoM 0.5 m along x of
/// its frame, mass m, inertia diag(0.01, 0.02, 0.03) about the CoM.
ReducedLink test_link(const char* name, Vec3d p, ReducedJointType type, double m = 1.0) {
  ReducedLink l;
  l.name = name;
  l.joint_name = std::string(name) + "_joint";
  l.type = type;
  l.R_parent_joint = identity3<double>();
  l.p_parent_joint = p;
  l.axis = {0, 0, 1};
  l.mass = m;
  l.com = {0.5, 0, 0};
  l.inertia_com = Mat3d{};
  l.inertia_com.m[0][0] = 0.01;
  l.inertia_com.m[1][1] = 0.02;
  l.inertia_com.m[2][2] = 0.03;
  return l;
}
/// Inertia of test_link about its joint axis: 0.03 + m 0.5^2 [kg m^2].
double axis_inertia(double m = 1.0) { return 0.03 + m * 0.25; }

/// The maximal model of rm as the scene compile makes it (scene/robot_compile.cpp: one
/// actuator per joint, input k) with joint laws from P (attach_robot_joint_laws).
Model dae_robot(const ReducedModel& rm, const Vec& q0, const Vec& qd0, const Params& P, const Vec& u, double dt) {
  Model m = maximal_model_from_urdf(rm, q0, qd0);
  for (int k = 0; k < rm.nq(); ++k) {
    ForceElement f;
    f.type = ForceType::Actuator;
    f.joint = k;
    f.kind = rm.links[k].type == ReducedJointType::Revolute ? ActuatorKind::Torque : ActuatorKind::Force;
    f.value = u[k];
    f.input_index = k;
    m.forces.push_back(f);
  }
  m.n_inputs = rm.nq();
  m.solver.dt = dt;
  auto rj = std::make_shared<RobotJointSpace>();
  rj->model = rm;
  rj->q0 = q0;
  rj->qd0 = qd0;
  rj->tau = u;
  rj->joints = P;
  rj->solver = RobotSolver::Dae;
  m.robot = rj;
  attach_robot_joint_laws(m);
  return m;
}

/// A model's state, stepped with rk4_step; q, qd read as the joint law reads them.
struct DaeRun {
  Model model;
  Data d;
  Vec Y, u;
  double t = 0;
  DaeRun(Model m, Vec inputs) : model(std::move(m)), d(model), Y(model.ny()), u(std::move(inputs)) {
    initial_state(model, Y.data());
  }
  bool run(double dt, int steps) {
    const double t0 = t;
    for (int k = 0; k < steps; ++k) {
      if (!rk4_step(model, d, t, Y.data(), u.data(), dt)) return false;
      t = t0 + (k + 1) * dt;
    }
    return true;
  }
  /// Joint k's coordinate about its law's q_ref, and its rate.
  void joint(int k, double& q, double& qd) const {
    const Joint& jt = model.joints[k];
    const int N = model.n_bodies();
    Vec3d v;
    joint_coordinate_state(jt.type == JointType::Revolute, jt.frame, state_body_kin(Y.data(), N, jt.body_i),
                           state_body_kin(Y.data(), N, jt.body_j), model.forces[k].joint_law.q_ref, q, qd, v);
  }
};

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
  // Shared coordinate: (I_l + r^2 I_f) q_l'' = tau, q_f = r q_l + offset. The DAE's
  // coupling spring carries the follower's torque I_f r q_l'' = -k e: once the transient
  // (critically damped at omega = 500 rad/s) has decayed, e = -I_f r q_l'' / k, with
  // k = omega^2 / w, w = 1 / I_f + r^2 / I_l (M diagonal here), and the leader moves
  // exactly as in the shared coordinate.
  const double r = -0.5, off = 0.1, tau = 0.4, dt = 1e-3, T = 1.0;
  const ReducedModel rm = mimic_pair(r, off);
  DaeRun run(dae_robot(rm, {0.2, r * 0.2 + off}, {0.0, 0.0}, mimic_params(rm), {tau, 0.0}, dt), {tau, 0.0});
  const double Il = axis_inertia(1.0), If = axis_inertia(0.5);
  const double a = tau / (Il + r * r * If);
  const double w = 1 / If + r * r / Il, omega = kMimicCouplingOmegaDt / dt, k = omega * omega / w;
  EXPECT_NEAR(run.model.forces[1].joint_law.coupling_stiffness, k, 1e-9 * k);
  double worst_e = 0, ql, qdl, qf, qdf;
  for (int s = 0; s < 100; ++s) {
    ASSERT_TRUE(run.run(dt, 10));
    run.joint(0, ql, qdl);
    run.joint(1, qf, qdf);
    worst_e = std::max(worst_e, std::abs(qf - r * ql - off));
  }
  const double e_static = -If * r * a / k;
  const double e_end = qf - r * ql - off;
  std::printf("  mimic pair: q_l - q_exact %.2e rad, coupling error at 1 s %.3e (predicted %.3e), max %.3e rad\n",
              ql - (0.2 + 0.5 * a * T * T), e_end, e_static, worst_e);
  // The leader lags the shared-coordinate motion by the coupling's compliance only.
  EXPECT_NEAR(ql, 0.2 + 0.5 * a * T * T, 1e-5);
  EXPECT_NEAR(e_end, e_static, 1e-3 * std::abs(e_static));
  EXPECT_LT(worst_e, 2 * std::abs(e_static));
}

// body_forces_thread over the whole CPU grid equals compute_forces bit for bit for
// robot joint laws (servo, limits, damping, friction, mimic) with a per-instance servo
// gain and per-instance states.
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

// ---- Panda against joint-space references -------------------------------------------

/// The joint-space forward dynamics with the joint laws: tau_k = joint_applied_force(P_k,
/// u_k, q_k, qd_k); without mimic ABA, with mimic the dense KKT system
/// [M G^T; G 0] [qdd; -lambda] = [tau - bias; 0], G's row per mimic joint f: e_f - r e_l
/// (the shared coordinate's constraint; G constant, so G qdd = 0).
struct JointSpace {
  ReducedModel rm;
  Params P;
  Vec u;
  std::vector<ReducedLinkParams<double>> links;
  explicit JointSpace(ReducedModel m, Params p, Vec in) : rm(std::move(m)), P(std::move(p)), u(std::move(in)) {
    for (int k = 0; k < rm.nq(); ++k) links.push_back(reduced_link_params<double>(rm, k));
  }
  Vec qdd(const Vec& q, const Vec& qd) const {
    const int n = rm.nq();
    Vec tau(n), out(n);
    int n_mimic = 0;
    for (int k = 0; k < n; ++k) {
      tau[k] = joint_applied_force(P[k], u[k], q[k], qd[k]);
      n_mimic += P[k].mimic >= 0;
    }
    if (n_mimic == 0) {
      static AbaWorkspace<double> ws;
      aba(n, links.data(), rm.gravity, q.data(), qd.data(), tau.data(), out.data(), ws);
      return out;
    }
    static CrbaWorkspace<double> ws;
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(n, n);
    Eigen::VectorXd bias(n);
    crba(n, links.data(), rm.gravity, q.data(), qd.data(), M.data(), bias.data(), ws);
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + n_mimic, n + n_mimic);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + n_mimic);
    K.topLeftCorner(n, n) = M;
    for (int k = 0; k < n; ++k) rhs[k] = tau[k] - bias[k];
    int row = n;
    for (int k = 0; k < n; ++k) {
      if (P[k].mimic < 0) continue;
      K(row, k) = K(k, row) = 1;
      K(row, P[k].mimic) = K(P[k].mimic, row) = -P[k].mimic_multiplier;
      ++row;
    }
    const Eigen::VectorXd x = K.fullPivLu().solve(rhs);
    for (int k = 0; k < n; ++k) out[k] = x[k];
    return out;
  }
  /// RK4 on [q, qd].
  void step(Vec& q, Vec& qd, double h) const {
    const int n = rm.nq();
    auto add = [n](const Vec& a, const Vec& b, double s) {
      Vec c(n);
      for (int k = 0; k < n; ++k) c[k] = a[k] + s * b[k];
      return c;
    };
    const Vec k1q = qd, k1v = qdd(q, qd);
    const Vec q2 = add(q, k1q, h / 2), v2 = add(qd, k1v, h / 2);
    const Vec k2q = v2, k2v = qdd(q2, v2);
    const Vec q3 = add(q, k2q, h / 2), v3 = add(qd, k2v, h / 2);
    const Vec k3q = v3, k3v = qdd(q3, v3);
    const Vec q4 = add(q, k3q, h), v4 = add(qd, k3v, h);
    const Vec k4q = v4, k4v = qdd(q4, v4);
    for (int k = 0; k < n; ++k) {
      q[k] += h / 6 * (k1q[k] + 2 * k2q[k] + 2 * k3q[k] + k4q[k]);
      qd[k] += h / 6 * (k1v[k] + 2 * k2v[k] + 2 * k3v[k] + k4v[k]);
    }
  }
};

/// Panda joint laws for the tests: position servos on the arm (kp 100 N m/rad, kd 10;
/// effort and velocity limits from the URDF), the URDF damping plus 0.5 N m s/rad, Coulomb
/// friction 0.2 N m smoothed over 0.1 rad/s, limits as the URDF's with k = 200 N m/rad,
/// c = 10 N m s/rad; the fingers torque-driven with damping 0.3 and their 0.04 m limits.
Params panda_params(const ReducedModel& rm) {
  Params P;
  for (const ReducedLink& l : rm.links) {
    RobotJointParams<double> p = plain_joint_params<double>();
    p.limited = l.continuous ? 0 : 1;
    p.lower = l.lower;
    p.upper = l.upper;
    p.damping = l.damping;
    if (l.type == ReducedJointType::Revolute) {
      p.mode = static_cast<int>(ActuatorMode::Position);
      p.kp = 100;
      p.kd = 10;
      p.effort = l.effort;
      p.velocity = l.velocity;
      p.damping += 0.5;
      p.friction = 0.2;
      p.friction_velocity = 0.1;
      p.limit_stiffness = 200;
      p.limit_damping = 10;
    } else {
      p.damping = 0.3;
      p.limit_stiffness = 2000;
      p.limit_damping = 20;
    }
    p.mimic = l.mimic;
    p.mimic_multiplier = l.mimic_multiplier;
    p.mimic_offset = l.mimic_offset;
    P.push_back(p);
  }
  return P;
}

ReducedModel load_panda(const std::string& dir) {
  return load_urdf(dir + "/panda_description/urdf/panda.urdf");
}

TEST(DaeJointLaws, PandaJointAccelerationsEqualAbaWithJointForces) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  ReducedModel rm = load_panda(dir);
  for (ReducedLink& l : rm.links) l.mimic = -1;  // ABA: independent joints
  const Params P = panda_params(rm);
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> U(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Vec q, qd, u;
    for (const ReducedLink& l : rm.links) {
      // Beyond the limits by up to 0.3 rad / 0.01 m, so the limit springs act.
      const double span = l.upper - l.lower, pad = l.type == ReducedJointType::Revolute ? 0.3 : 0.01;
      q.push_back(l.lower - pad + (span + 2 * pad) * 0.5 * (1 + U(g)));
      qd.push_back(3 * U(g));
      u.push_back(l.type == ReducedJointType::Revolute ? 2 * U(g) : 5 * U(g));
    }
    Model m = dae_robot(rm, q, qd, P, u, 1e-3);
    m.solver.tikhonov_epsilon = 0;
    Data d(m);
    Vec Y(m.ny()), Ydot(m.ny());
    initial_state(m, Y.data());
    ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), u.data(), Ydot.data()));
    const Vec a_dae = test::dae_joint_accelerations(m, d);
    const Vec a_ref = JointSpace(rm, P, u).qdd(q, qd);
    double err = 0, scale = 1;
    for (std::size_t k = 0; k < a_ref.size(); ++k) {
      err = std::max(err, std::abs(a_dae[k] - a_ref[k]));
      scale = std::max(scale, std::abs(a_ref[k]));
    }
    worst = std::max(worst, err / scale);
  }
  std::printf("  panda: |qdd_dae - qdd_aba| %.2e relative (servos, damping, friction, limits active)\n", worst);
  EXPECT_LT(worst, 1e-10);
}

/// max over joints of |q_dae - q_ref| and |qd_dae - qd_ref| over T seconds at dt.
void panda_trajectories(const ReducedModel& rm, const Params& P, const Vec& q0, const Vec& u, double dt, double T,
                        double& dq, double& dqd, double* mimic_error = nullptr) {
  const int n = rm.nq();
  DaeRun dae(dae_robot(rm, q0, Vec(n, 0.0), P, u, dt), u);
  const JointSpace ref(rm, P, u);
  Vec q = q0, qd(n, 0.0);
  dq = dqd = 0;
  if (mimic_error) *mimic_error = 0;
  const int chunks = 20, per = static_cast<int>(std::lround(T / dt)) / chunks;
  for (int c = 0; c < chunks; ++c) {
    ASSERT_TRUE(dae.run(dt, per));
    for (int s = 0; s < per; ++s) ref.step(q, qd, dt);
    Vec qa(n), qda(n);
    for (int k = 0; k < n; ++k) {
      dae.joint(k, qa[k], qda[k]);
      dq = std::max(dq, std::abs(qa[k] - q[k]));
      dqd = std::max(dqd, std::abs(qda[k] - qd[k]));
    }
    if (mimic_error)
      for (int k = 0; k < n; ++k)
        if (P[k].mimic >= 0)
          *mimic_error = std::max(*mimic_error, std::abs(qa[k] - P[k].mimic_multiplier * qa[P[k].mimic] - P[k].mimic_offset));
  }
}

TEST(DaeJointLaws, PandaTrajectoriesWithServosLimitsAndDampingMatchJointSpace) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  ReducedModel rm = load_panda(dir);
  for (ReducedLink& l : rm.links) l.mimic = -1;
  const Params P = panda_params(rm);
  // Start near the limits of joints 4 and 6 with targets past them; fingers pushed out.
  const Vec q0 = {0.0, -0.785, 0.3, -2.9, 0.0, 1.571, 0.785, 0.02, 0.02};
  const Vec u = {0.5, -0.3, 0.4, -3.3, 0.2, 1.2, 0.0, 5.0, -5.0};
  double dq, dqd;
  panda_trajectories(rm, P, q0, u, 5e-4, 1.0, dq, dqd);
  std::printf("  panda servos/limits/damping, DAE vs joint-space RK4 over 1 s (dt 5e-4): max |dq| %.2e, |dqd| %.2e\n",
              dq, dqd);
  EXPECT_LT(dq, 1e-6);
  EXPECT_LT(dqd, 1e-5);
}

TEST(DaeJointLaws, PandaFingerMimicFollowsTheSharedCoordinate) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  ReducedModel rm = load_panda(dir);
  // The URDF's <mimic>: finger_joint2 follows finger_joint1 (set here should the importer
  // not resolve it).
  const int f1 = rm.nq() - 2, f2 = rm.nq() - 1;
  rm.links[f2].mimic = f1;
  rm.links[f2].mimic_multiplier = 1;
  rm.links[f2].mimic_offset = 0;
  const Params P = panda_params(rm);
  // The arm servos swing the hand; the fingers (inside their limits) ride on it and the
  // coupling carries their inertial and gravity loads.
  const Vec q0 = {0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02};
  const Vec u = {0.5, -0.3, 0.4, -2.0, 0.2, 1.2, 0.0, 0.0, 0.0};
  double dq1, dqd1, e1, dq2, dqd2, e2;
  panda_trajectories(rm, P, q0, u, 1e-3, 1.0, dq1, dqd1, &e1);
  panda_trajectories(rm, P, q0, u, 5e-4, 1.0, dq2, dqd2, &e2);
  std::printf("  panda finger mimic (coupling omega dt %.1f), DAE vs KKT joint space over 1 s:\n"
              "    dt 1e-3: max |dq| %.2e, |dqd| %.2e, max |q_f2 - q_f1| %.2e m\n"
              "    dt 5e-4: max |dq| %.2e, |dqd| %.2e, max |q_f2 - q_f1| %.2e m (ratio %.2f)\n",
              kMimicCouplingOmegaDt, dq1, dqd1, e1, dq2, dqd2, e2, e1 / e2);
  // The coupling's compliance is w / omega^2 = w dt^2 / 0.25: the drift falls 4-fold per
  // halved step (measured values printed; bounds about 2x those).
  EXPECT_GT(e1 / e2, 3.0);
  EXPECT_LT(e1 / e2, 5.0);
  EXPECT_LT(e1, 2e-4);  // measured 8.2e-5 m
  EXPECT_LT(dq1, 1e-4);
}

// ---- Floating base ------------------------------------------------------------------

/// Panda on a free base (its panda_link0 the base body) with a position servo, a velocity
/// servo, torques and the URDF's limits, damping and friction; solver `solver`.
nlohmann::json floating_panda(const char* solver, bool mimic, double dt) {
  nlohmann::json doc;
  doc["robot"] = {
      {"urdf", "example-robot-data:panda_description/urdf/panda.urdf"},
      {"floating_base", true},
      {"q0", {0.1, -0.6, 0.2, -2.2, 0.1, 1.4, 0.7, 0.02, 0.02}},
      {"qd0", {0.3, -0.2, 0.1, 0.4, -0.3, 0.2, 0.5, 0.01, 0.01}},
      {"tau", {1.0, 0.0, -0.5, 0.0, 0.2, 0.0, 0.1, 0.5, 0.0}},
      {"base",
       {{"position", {0.1, -0.2, 0.5}},
        {"orientation", {0.9, 0.1, -0.2, 0.3}},
        {"velocity", {0.3, 0.0, -0.1}},
        {"angular_velocity", {0.2, -0.4, 0.5}}}},
      {"servos",
       {{"panda_joint2", {{"mode", "position"}, {"kp", 60.0}, {"kd", 4.0}, {"target", -0.4}}},
        {"panda_joint4", {{"mode", "velocity"}, {"kd", 3.0}, {"target", 0.3}}}}},
      {"urdf_dynamics", {{"mimic", mimic}}}};
  doc["solver"] = {{"type", solver}, {"dt", dt}, {"t_end", 1.0}};
  return doc;
}

// The DAE of a floating robot (body 0 the free base) at its initial state: base
// acceleration and joint accelerations equal aba_floating's with the same joint forces
// (joint_applied_force of the compiled RobotJointParams at q0, qd0).
TEST(DaeJointLaws, FloatingPandaAccelerationsEqualFloatingAba) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const Scene scene = parse_scene(floating_panda("dae", false, 1e-3).dump());
  Model m = scene.model;
  ASSERT_TRUE(m.robot && m.robot->model.floating);
  m.solver.tikhonov_epsilon = 0;
  const RobotJointSpace& rj = *m.robot;
  const int n = rj.n();
  ASSERT_EQ(m.n_bodies(), n + 1);
  Data d(m);
  Vec Y(m.ny()), Ydot(m.ny());
  initial_state(m, Y.data());
  ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Ydot.data()));
  // Joint-space reference.
  std::vector<ReducedLinkParams<double>> links;
  for (int k = 0; k < n; ++k) links.push_back(reduced_link_params<double>(rj.model, k));
  Vec tau(n), qdd(n);
  for (int k = 0; k < n; ++k) tau[k] = joint_applied_force(rj.joints[k], rj.tau[k], rj.q0[k], rj.qd0[k]);
  const RobotBaseParams<double> base{rj.model.base.mass, rj.model.base.com, rj.model.base.inertia_com};
  const Vec3d p_B{rj.base_q0[0], rj.base_q0[1], rj.base_q0[2]}, v_B{rj.base_v0[0], rj.base_v0[1], rj.base_v0[2]},
      w_B{rj.base_v0[3], rj.base_v0[4], rj.base_v0[5]};
  const Quatd quat_B{rj.base_q0[3], rj.base_q0[4], rj.base_q0[5], rj.base_q0[6]};
  Vec3d vdot_B, wdot_B;
  auto ws = std::make_unique<AbaWorkspace<double>>();
  aba_floating(n, links.data(), base, rj.model.gravity, p_B, quat_B, v_B, w_B, rj.q0.data(), rj.qd0.data(), tau.data(),
               vdot_B, wdot_B, qdd.data(), *ws);
  // The DAE's base body sits at the base CoM c: a_c = vdot_B + R (wdot x c + w x (w x c)).
  const Mat3d R = rotation(normalized(quat_B));
  const Vec3d c = rj.model.base.com;
  const Vec3d a_ref = vdot_B + mul(R, cross(wdot_B, c) + cross(w_B, cross(w_B, c)));
  const Vec a_dae = test::dae_joint_accelerations(m, d);
  double err = 0, scale = 1;
  for (int k = 0; k < n; ++k) {
    err = std::max(err, std::abs(a_dae[k] - qdd[k]));
    scale = std::max(scale, std::abs(qdd[k]));
  }
  for (int r = 0; r < 3; ++r) {
    err = std::max({err, std::abs(d.qddot[r] - a_ref[r]), std::abs(d.qddot[3 + r] - wdot_B[r])});
    scale = std::max({scale, std::abs(a_ref[r]), std::abs(wdot_B[r])});
  }
  std::printf("  floating panda: DAE vs aba_floating accelerations %.2e relative (base and joints)\n", err / scale);
  EXPECT_LT(err / scale, 1e-10);
}

/// Max |dq|, |dqd| between the dae and aba backends on floating_panda over 0.5 s.
void floating_run(bool mimic, double dt, double& dq, double& dqd) {
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  auto dae = Simulator::create({parse_scene(floating_panda("dae", mimic, dt).dump()).model}, o);
  auto red = Simulator::create({parse_scene(floating_panda("aba", mimic, dt).dump()).model}, o);
  const int n = dae->n_joint_coordinates();
  ASSERT_EQ(red->n_joint_coordinates(), n);
  Vec q1(n), qd1(n), t1(n), q2(n), qd2(n), t2(n);
  dq = dqd = 0;
  const int per = static_cast<int>(std::lround(0.05 / dt));
  for (int c = 0; c < 10; ++c) {
    dae->advance(per);
    red->advance(per);
    dae->read_joint_state(q1.data(), qd1.data(), t1.data());
    red->read_joint_state(q2.data(), qd2.data(), t2.data());
    for (int k = 0; k < n; ++k) {
      const double e = k < 7 ? std::remainder(q1[k] - q2[k], 2 * M_PI) : q1[k] - q2[k];
      dq = std::max(dq, std::abs(e));
      dqd = std::max(dqd, std::abs(qd1[k] - qd2[k]));
    }
  }
  for (Simulator* sim : {dae.get(), red.get()}) {
    std::int8_t st = -1;
    double st_t = 0;
    sim->read_status(&st, &st_t);
    EXPECT_EQ(st, 0) << sim->backend_name();
  }
}

// The dae and aba backends on the floating Panda with servos, torques, limits, damping,
// friction over 0.5 s (RK4, dt 5e-4): the joint states agree to the two formulations'
// truncation errors; with the fingers' mimic the DAE's coupling spring adds its drift.
TEST(DaeJointLaws, FloatingPandaDaeMatchesAbaBackend) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  double dq, dqd, dq_m, dqd_m;
  floating_run(false, 5e-4, dq, dqd);
  floating_run(true, 5e-4, dq_m, dqd_m);
  std::printf("  floating panda, dae vs aba backends over 0.5 s (dt 5e-4): max |dq| %.2e, |dqd| %.2e; with the finger "
              "mimic: %.2e, %.2e\n",
              dq, dqd, dq_m, dqd_m);
  EXPECT_LT(dq, 1e-7);    // measured 9.7e-9 rad | m
  EXPECT_LT(dq_m, 3e-4);  // measured 1.3e-4 m: the fingers (the coupling's compliance)
}


}  // namespace
}  // namespace simphant
