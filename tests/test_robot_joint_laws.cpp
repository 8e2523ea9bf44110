// The joint forces and mimic joints of the joint-space solvers (reduced/robot_dynamics.hpp,
// docs/robots.md) against hand-derived closed forms, run through the CPU ReducedBackend.
// tests/data/urdf/decoupled3.urdf has three joints that all hang from the fixed base and do
// not couple: slider a along x (m_a = 2 kg), slider b along y (m_b = 0.5 kg) and revolute c
// about the vertical through its CoM (I_c = 0.1 kg m^2); gravity along -z does no work on
// them. So each joint obeys m qdd = f(u, q, qd) on its own, and the laws of joint_forces.hpp
// give linear or separable ODEs with closed-form solutions.
//
// Tolerances: RK4's global error on a mode with rate lambda over time T is about
// T lambda^5 dt^4 / 120 of the amplitude (the first neglected Taylor term, h^5 lambda^5 / 120,
// per step); each bound below is that estimate times a margin of 10-100, stated per test,
// and round-off (1000 steps of a few ulp, ~1e-13 relative) where the method is exact.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/robot_dynamics.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "robot_data.hpp"

namespace simphant {
namespace {

using nlohmann::json;

constexpr double kMa = 2.0, kMb = 0.5, kIc = 0.1;  // decoupled3.urdf

/// decoupled3.urdf as a joint-space model: every joint plain (torque input, no limits,
/// damping, friction or mimic: set per test), zero initial state.
Model decoupled(const char* integrator = "rk4", double dt = 1e-3, const char* solver = "aba") {
  json doc;
  doc["name"] = "decoupled3";
  doc["robot"] = {{"urdf", std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/decoupled3.urdf"}};
  doc["solver"] = {{"type", solver}, {"dt", dt}, {"t_end", 1.0}, {"integrator", integrator}};
  Model m = parse_scene(doc.dump()).model;
  m.robot->joints.assign(3, plain_joint_params<double>());
  m.robot->tau.assign(3, 0.0);
  return m;
}

std::unique_ptr<ReducedBackend> backend(const Model& m, int instances = 1) {
  return std::make_unique<ReducedBackend>(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}),
                                          instances, 1);
}

struct JointState {
  std::vector<double> q, qd, tau;
};
JointState joint_state(const Backend& b) {
  const std::size_t size = static_cast<std::size_t>(b.n_instances() * b.n_joint_coordinates());
  JointState s{std::vector<double>(size), std::vector<double>(size), std::vector<double>(size)};
  b.read_joint_state(s.q.data(), s.qd.data(), s.tau.data());
  return s;
}

// Viscous damping: m qdd = -c qd, so qd = qd0 e^{-lambda t}, q = q0 + qd0 (1 - e^{-lambda t}) / lambda,
// lambda = c / m. RK4 error estimate T lambda^5 dt^4 / 120 <= 1e-12 here (lambda <= 5): bound 1e-11.
TEST(RobotJointLaws, ViscousDampingIsTheExactExponential) {
  Model m = decoupled();
  const double c[3] = {3.0, 0.4, 0.5};  // lambda = 1.5, 0.8, 5 /s
  for (int k = 0; k < 3; ++k) m.robot->joints[k].damping = c[k];
  m.robot->q0 = {0.1, -0.2, 0.3};
  m.robot->qd0 = {0.8, -1.1, 2.0};
  const double mass[3] = {kMa, kMb, kIc};
  auto b = backend(m);
  b->advance(1000);
  const JointState s = joint_state(*b);
  for (int k = 0; k < 3; ++k) {
    const double lambda = c[k] / mass[k], e = std::exp(-lambda * 1.0);
    EXPECT_NEAR(s.qd[k], m.robot->qd0[k] * e, 1e-11) << k;
    EXPECT_NEAR(s.q[k], m.robot->q0[k] + m.robot->qd0[k] * (1 - e) / lambda, 1e-11) << k;
    EXPECT_EQ(s.tau[k], 0.0) << "tau reports the actuator, not the damping";
  }
}

// The three integrators' own discrete maps of x' = v, v' = -lambda v (z = lambda dt):
//   euler             v+ = (1 - z) v,  x+ = x + dt v
//   symplectic_euler  v+ = (1 - z) v,  x+ = x + dt v+
//   rk4               v+ = R(-z) v, R(w) = 1 + w + w^2/2 + w^3/6 + w^4/24,
//                     x+ = x + dt (1 - z/2 + z^2/6 - z^3/24) v
// (RK4's stage rates of x are v, (1 - z/2) v, (1 - z/2 + z^2/4) v, (1 - z + z^2/2 - z^3/4) v).
// Exact up to round-off: bound 1e-12 after 1000 steps.
TEST(RobotJointLaws, EachIntegratorFollowsItsDiscreteMap) {
  const double dt = 2e-3, c = 3.0, lambda = c / kMa, z = lambda * dt;
  for (const char* integrator : {"rk4", "euler", "symplectic_euler"}) {
    Model m = decoupled(integrator, dt);
    m.robot->joints[0].damping = c;
    m.robot->qd0 = {1.3, 0, 0};
    auto b = backend(m);
    ASSERT_EQ(b->integrator(), integrator == std::string("rk4")     ? Integrator::Rk4
                               : integrator == std::string("euler") ? Integrator::Euler
                                                                    : Integrator::SymplecticEuler);
    b->advance(1000);
    const JointState s = joint_state(*b);
    double x = 0, v = 1.3;
    for (int step = 0; step < 1000; ++step) {
      if (integrator == std::string("rk4")) {
        x += dt * (1 - z / 2 + z * z / 6 - z * z * z / 24) * v;
        v *= 1 - z + z * z / 2 - z * z * z / 6 + z * z * z * z / 24;
      } else if (integrator == std::string("euler")) {
        x += dt * v;
        v *= 1 - z;
      } else {
        v *= 1 - z;
        x += dt * v;
      }
    }
    EXPECT_NEAR(s.qd[0], v, 1e-12) << integrator;
    EXPECT_NEAR(s.q[0], x, 1e-12) << integrator;
  }
}

// Smoothed Coulomb friction: m qdd = -F tanh(qd / v_f) separates:
// sinh(qd / v_f) = sinh(qd0 / v_f) e^{-F t / (m v_f)}. The slider stops after about
// m qd0 / F = 1 s. Near the stop the rate is F / (m v_f) = 20 /s: RK4 estimate
// 2 * 20^5 (1e-3)^4 / 120 * v_f = 3e-9: bound 1e-8. Under a constant force f < F the
// slider creeps at qd = v_f atanh(f / F) (the smoothing's price, docs/robots.md).
TEST(RobotJointLaws, CoulombFrictionStopsAsTheSmoothedLawSays) {
  const double F = 2.0, vf = 0.05, v0 = 1.0;
  Model m = decoupled();
  m.robot->joints[0].friction = F;
  m.robot->joints[0].friction_velocity = vf;
  m.robot->qd0 = {v0, 0, 0};
  auto b = backend(m);
  for (int part = 1; part <= 3; ++part) {
    b->advance(500);
    const double t = 0.5 * part;
    const double exact = vf * std::asinh(std::sinh(v0 / vf) * std::exp(-F * t / (kMa * vf)));
    EXPECT_NEAR(joint_state(*b).qd[0], exact, 1e-8) << "t = " << t;
  }
  // Creep under f = F / 2 from rest: the approach rate is F (1 - tanh^2) / (m v_f) = 15 /s,
  // so after 3 s the transient is e^-45 of the creep rate.
  Model creep = decoupled();
  creep.robot->joints[0].friction = F;
  creep.robot->joints[0].friction_velocity = vf;
  creep.robot->tau = {F / 2, 0, 0};
  auto c = backend(creep);
  c->advance(3000);
  EXPECT_NEAR(joint_state(*c).qd[0], vf * std::atanh(0.5), 1e-10);
}

// Position limit as a one-sided spring-damper: pushed by f into the upper limit from rest
// at q = upper, the overshoot x = q - upper obeys m x'' + d x' + k x = f (critical damping
// d = 2 sqrt(k m)): x = f/k (1 - (1 + w t) e^{-w t}), w = sqrt(k / m) = 31.6 /s; the static
// deflection is f / k. RK4 estimate 31.6^5 (1e-3)^4 / 120 x_ss = 1.3e-12: bound 1e-11.
TEST(RobotJointLaws, LimitDeflectsByForceOverStiffness) {
  const double k = 2000, d = 2 * std::sqrt(k * kMa), f = 10, upper = 0.1, w = std::sqrt(k / kMa);
  Model m = decoupled();
  RobotJointParams<double>& p = m.robot->joints[0];
  p.limited = 1;
  p.lower = -1;
  p.upper = upper;
  p.limit_stiffness = k;
  p.limit_damping = d;
  m.robot->q0 = {upper, 0, 0};
  m.robot->tau = {f, 0, 0};
  auto b = backend(m);
  for (int part = 1; part <= 4; ++part) {
    b->advance(50);
    const double t = 0.05 * part;
    EXPECT_NEAR(joint_state(*b).q[0] - upper, f / k * (1 - (1 + w * t) * std::exp(-w * t)), 1e-11) << t;
  }
  b->advance(800);
  EXPECT_NEAR(joint_state(*b).q[0], upper + f / k, 1e-11);  // t = 1 s: e^{-31.6} left
}

// The limit pushes, never pulls: beyond the upper limit but moving back fast enough that
// k (upper - q) - d qd > 0, the limit force is zero (not a pull toward the limit); below the
// lower limit at rest it is k (lower - q).
TEST(RobotJointLaws, LimitNeverPulls) {
  Model m = decoupled();
  RobotJointParams<double>& p = m.robot->joints[0];
  p.limited = 1;
  p.lower = -0.1;
  p.upper = 0.1;
  p.limit_stiffness = 2000;
  p.limit_damping = 100;
  std::vector<RobotJointParams<double>> joints = m.robot->joints;
  std::vector<ReducedLinkParams<double>> links;
  for (int k = 0; k < 3; ++k) links.push_back(reduced_link_params<double>(m.robot->model, k));
  const RobotView<double> r{3, 0, 0, links.data(), nullptr, joints.data(), {}, m.robot->model.gravity};
  RobotWorkspace<double> ws;
  const double u[3] = {0, 0, 0};
  double ydot[6];
  const double away[6] = {0.11, 0, 0, -5.0, 0, 0};  // push = 2000 (-0.01) + 500 > 0: would pull
  robot_derivative(r, away, u, ydot, ws);
  EXPECT_EQ(ydot[3], 0.0);
  const double into[6] = {0.11, 0, 0, 0.1, 0, 0};  // push = -20 - 10 < 0
  robot_derivative(r, into, u, ydot, ws);
  EXPECT_NEAR(ydot[3], (2000 * -0.01 - 100 * 0.1) / kMa, 1e-13);
  const double below[6] = {-0.12, 0, 0, 0, 0, 0};
  robot_derivative(r, below, u, ydot, ws);
  EXPECT_NEAR(ydot[3], 2000 * 0.02 / kMa, 1e-13);
}

// Position servo on the revolute joint: I qdd = kp (u - q) - kd qd, a damped oscillator
// w0 = sqrt(kp / I) = 22.4 /s, zeta = kd / (2 sqrt(kp I)) = 0.2; from rest at q0:
// q = u + (q0 - u) e^{-zeta w0 t} (cos wd t + zeta w0 / wd sin wd t), wd = w0 sqrt(1 - zeta^2).
// RK4 estimate 22.4^5 (5e-4)^4 / 120 |q0 - u| = 2.9e-9: bound 3e-8.
// Velocity servo on slider b: m qdd = kd (u - qd), a first-order lag
// qd = u + (qd0 - u) e^{-kd t / m} (rate 8 /s; estimate 2e-13: bound 1e-11).
TEST(RobotJointLaws, ServosFollowTheOscillatorAndTheLag) {
  const double kp = 50, kd_c = 0.2 * 2 * std::sqrt(kp * kIc), target = 0.7, q0 = -0.3;
  const double kd_b = 4.0, v_target = 1.5, v0 = -0.5;
  Model m = decoupled("rk4", 5e-4);
  RobotJointParams<double>& c = m.robot->joints[2];
  c.mode = static_cast<int>(ActuatorMode::Position);
  c.kp = kp;
  c.kd = kd_c;
  RobotJointParams<double>& bj = m.robot->joints[1];
  bj.mode = static_cast<int>(ActuatorMode::Velocity);
  bj.kd = kd_b;
  m.robot->q0 = {0, 0, q0};
  m.robot->qd0 = {0, v0, 0};
  m.robot->tau = {0, v_target, target};
  auto b = backend(m);
  const double w0 = std::sqrt(kp / kIc), zeta = kd_c / (2 * std::sqrt(kp * kIc)), wd = w0 * std::sqrt(1 - zeta * zeta);
  for (int part = 1; part <= 4; ++part) {
    b->advance(500);
    const double t = 0.25 * part;
    const JointState s = joint_state(*b);
    const double qc = target + (q0 - target) * std::exp(-zeta * w0 * t) *
                                   (std::cos(wd * t) + zeta * w0 / wd * std::sin(wd * t));
    EXPECT_NEAR(s.q[2], qc, 3e-8) << t;
    EXPECT_NEAR(s.qd[1], v_target + (v0 - v_target) * std::exp(-kd_b * t / kMb), 1e-11) << t;
    // tau = the servo's force at the state read.
    EXPECT_NEAR(s.tau[2], kp * (target - s.q[2]) - kd_c * s.qd[2], 1e-12) << t;
    EXPECT_NEAR(s.tau[1], kd_b * (v_target - s.qd[1]), 1e-12) << t;
  }
}

// Effort clamp: a stiff position servo (kp (u - q) = 1e4 N at the start) clamped to
// effort = 5 N accelerates the slider uniformly, q = 5 t^2 / (2 m), which RK4 integrates
// exactly (round-off bound 1e-13), and tau reads the clamped 5 N.
TEST(RobotJointLaws, EffortClampGivesUniformAcceleration) {
  Model m = decoupled();
  RobotJointParams<double>& p = m.robot->joints[0];
  p.mode = static_cast<int>(ActuatorMode::Position);
  p.kp = 1e4;
  p.effort = 5;
  m.robot->tau = {1.0, 0, 0};
  auto b = backend(m);
  b->advance(500);
  const JointState s = joint_state(*b);
  EXPECT_NEAR(s.q[0], 5 * 0.25 / (2 * kMa), 1e-13);
  EXPECT_NEAR(s.qd[0], 5 * 0.5 / kMa, 1e-13);
  EXPECT_EQ(s.tau[0], 5.0);
}

// Velocity cut: a constant force u = 4 N drives the slider at qd = 2 t until qd reaches the
// limit 1 m/s (t = 0.5 s); from there the actuator gives nothing while qd >= the limit, so
// qd stays within one step's gain (dt u / m = 2e-3) above the limit and tau reads 0.
TEST(RobotJointLaws, VelocityCutHoldsTheRateAtTheLimit) {
  Model m = decoupled();
  m.robot->joints[0].velocity = 1.0;
  m.robot->tau = {4.0, 0, 0};
  auto b = backend(m);
  b->advance(300);
  JointState s = joint_state(*b);
  EXPECT_NEAR(s.qd[0], 0.6, 1e-13);
  EXPECT_EQ(s.tau[0], 4.0);
  b->advance(700);
  s = joint_state(*b);
  EXPECT_GE(s.qd[0], 1.0);
  EXPECT_LE(s.qd[0], 1.0 + 1e-3 * 4.0 / kMa);
  EXPECT_EQ(s.tau[0], 0.0);
}

// Mimic, slider b follows slider a: q_b = r q_a + o (r = 2, o = 0.01). As one shared
// coordinate the pair has the effective mass m_a + r^2 m_b = 4 kg and the generalised force
// tau_a + r tau_b, so qdd_a = (3 + 2 * 1) / 4 = 1.25 m/s^2, integrated exactly by RK4. The
// follower is set from the leader after every step (q0 of b, inconsistent on purpose, too).
TEST(RobotJointLaws, MimicSharesTheCoordinateWithEffectiveMass) {
  const double r = 2.0, o = 0.01;
  for (const char* solver : {"aba", "cga"}) {
    Model m = decoupled("rk4", 1e-3, solver);
    RobotJointParams<double>& p = m.robot->joints[1];
    p.mimic = 0;
    p.mimic_multiplier = r;
    p.mimic_offset = o;
    m.robot->q0 = {0.2, 0.0, 0};
    m.robot->qd0 = {0.1, 0.0, 0};
    m.robot->tau = {3.0, 1.0, 0};
    auto b = backend(m);
    JointState s = joint_state(*b);
    EXPECT_EQ(s.q[1], r * 0.2 + o);
    EXPECT_EQ(s.qd[1], r * 0.1);
    b->advance(1000);
    s = joint_state(*b);
    const double a = (3.0 + r * 1.0) / (kMa + r * r * kMb);
    EXPECT_NEAR(s.q[0], 0.2 + 0.1 + 0.5 * a, 1e-13) << solver;
    EXPECT_NEAR(s.qd[0], 0.1 + a, 1e-13) << solver;
    EXPECT_EQ(s.q[1], r * s.q[0] + o) << solver;
    EXPECT_EQ(s.qd[1], r * s.qd[0]) << solver;
  }
}

// Without the per-step reset of the follower, the coupling's constraint forces alone keep
// the pair together: 1000 RK4 steps of robot_derivative on Panda's fingers (joint 8
// follows joint 7, r = 1) with the arm swinging under gravity, starting consistent, end
// with |q8 - q7| at round-off (bound 1e-14 m on fingers ~0.03 m; measured ~1e-17).
TEST(RobotJointLaws, MimicFollowerStaysExactUnderTheDynamicsAlone) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  json doc;
  doc["name"] = "panda";
  doc["robot"] = {{"urdf", dir + "/panda_description/urdf/panda.urdf"}};
  doc["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  const int n = m.robot->n();
  ASSERT_EQ(n, 9);
  std::vector<RobotJointParams<double>> joints(n, plain_joint_params<double>());
  joints[8].mimic = 7;
  std::vector<ReducedLinkParams<double>> links;
  std::vector<cga::CgaLink<double>> cga_links;
  for (int k = 0; k < n; ++k) {
    links.push_back(reduced_link_params<double>(m.robot->model, k));
    cga_links.push_back(cga::cga_link(links.back()));
  }
  for (int use_cga : {0, 1}) {
    const RobotView<double> r{n, 0, use_cga, links.data(), cga_links.data(), joints.data(), {}, m.robot->model.gravity};
    RobotWorkspace<double> ws;
    std::vector<double> y = {0, -0.785, 0, -2.356, 0, 1.571, 0.785, 0.02, 0.02, 0.5, 0.3, -0.2, 0.4, 0.1, -0.6, 0.8, 0.05, 0.05};
    const std::vector<double> u = {0, 0, 0, 0, 0, 0, 0, 1.0, -0.5};  // fingers pushed apart unevenly
    std::vector<double> k1(18), k2(18), k3(18), k4(18), ys(18);
    const double h = 1e-3;
    for (int step = 0; step < 1000; ++step) {
      robot_derivative(r, y.data(), u.data(), k1.data(), ws);
      for (int e = 0; e < 18; ++e) ys[e] = y[e] + h / 2 * k1[e];
      robot_derivative(r, ys.data(), u.data(), k2.data(), ws);
      for (int e = 0; e < 18; ++e) ys[e] = y[e] + h / 2 * k2[e];
      robot_derivative(r, ys.data(), u.data(), k3.data(), ws);
      for (int e = 0; e < 18; ++e) ys[e] = y[e] + h * k3[e];
      robot_derivative(r, ys.data(), u.data(), k4.data(), ws);
      for (int e = 0; e < 18; ++e) y[e] += h / 6 * (k1[e] + 2 * k2[e] + 2 * k3[e] + k4[e]);
    }
    EXPECT_NEAR(y[8], y[7], 1e-14) << "cga " << use_cga;
    EXPECT_NEAR(y[17], y[16], 1e-13) << "cga " << use_cga;
    EXPECT_GT(std::abs(y[7] - 0.02), 1e-3) << "the fingers moved";
  }
}

// The coupled accelerations equal the reduced Lagrangian's, an independent solver: with
// q = G z + o (G: n x (n - m), the followers' rows r e_leader), the shared coordinates obey
// (G^T M G) zdd = G^T (tau - h), M from CRBA and h from RNEA (crba.hpp, rnea.hpp), then
// qdd = G zdd. Panda, fingers coupled (joint 8 follows 7, r = 1), random consistent states
// with joint forces, damping and a servo on the fingers; bound 1e-10 relative (ABA vs
// CRBA/RNEA on Panda agree to ~2e-13, docs/robots.md).
TEST(RobotJointLaws, MimicAccelerationsEqualTheReducedLagrangian) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  json doc;
  doc["name"] = "panda";
  doc["robot"] = {{"urdf", dir + "/panda_description/urdf/panda.urdf"}};
  doc["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 1.0}};
  const Model m = parse_scene(doc.dump()).model;
  const int n = m.robot->n();
  std::vector<RobotJointParams<double>> joints(n, plain_joint_params<double>());
  joints[8].mimic = 7;
  joints[8].damping = 3.0;
  joints[7].mode = static_cast<int>(ActuatorMode::Position);
  joints[7].kp = 200;
  joints[7].kd = 5;
  std::vector<ReducedLinkParams<double>> links;
  std::vector<cga::CgaLink<double>> cga_links;
  for (int k = 0; k < n; ++k) {
    links.push_back(reduced_link_params<double>(m.robot->model, k));
    cga_links.push_back(cga::cga_link(links.back()));
  }
  std::srand(3);
  const auto rnd = [] { return 2.0 * std::rand() / RAND_MAX - 1.0; };
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> y(2 * n), u(n);
    for (int k = 0; k < n; ++k) {
      y[k] = k < 7 ? 2 * rnd() : 0.02 + 0.01 * rnd();
      y[n + k] = rnd();
      u[k] = 3 * rnd();
    }
    u[7] = 0.03;  // the servo's target
    y[8] = y[7];
    y[n + 8] = y[n + 7];
    // The reduced Lagrangian.
    std::vector<double> tau(n), h(n), Mrow(n * n);
    for (int k = 0; k < n; ++k) tau[k] = joint_applied_force(joints[k], u[k], y[k], y[n + k]);
    auto cws = std::make_unique<CrbaWorkspace<double>>();
    crba(n, links.data(), m.robot->model.gravity, y.data(), y.data() + n, Mrow.data(), h.data(), *cws);
    Eigen::MatrixXd M = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(Mrow.data(), n, n);
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(n, n - 1);
    for (int k = 0; k < n - 1; ++k) G(k, k) = 1;
    G(8, 7) = 1;
    Eigen::VectorXd f = Eigen::Map<Eigen::VectorXd>(tau.data(), n) - Eigen::Map<Eigen::VectorXd>(h.data(), n);
    const Eigen::VectorXd zdd = (G.transpose() * M * G).ldlt().solve(G.transpose() * f);
    const Eigen::VectorXd qdd_ref = G * zdd;
    for (int use_cga : {0, 1}) {
      const RobotView<double> r{n, 0, use_cga, links.data(), cga_links.data(), joints.data(), {}, m.robot->model.gravity};
      RobotWorkspace<double> ws;
      std::vector<double> ydot(2 * n);
      robot_derivative(r, y.data(), u.data(), ydot.data(), ws);
      const double scale = std::max(1.0, qdd_ref.cwiseAbs().maxCoeff());
      for (int k = 0; k < n; ++k) {
        EXPECT_NEAR(ydot[n + k], qdd_ref(k), 1e-10 * scale) << "trial " << trial << " joint " << k << " cga " << use_cga;
        EXPECT_EQ(ydot[k], k == 8 ? y[n + 7] : y[n + k]);
      }
      EXPECT_EQ(ydot[n + 8], ydot[n + 7]);
    }
  }
}

}  // namespace
}  // namespace simphant
