// Robot joint forces in the DAE on the Panda (docs/robots.md "The DAE solver: joint
// forces, mimic, floating base"), against joint-space references:
//  - evaluate()'s joint accelerations == ABA with the same joint forces (servos, damping,
//    friction, limits active);
//  - 1 s trajectories with servos, damping, friction and limits against a joint-space RK4
//    of ABA, and with the fingers' mimic row against a dense KKT;
//  - the floating Panda (body 0 free): accelerations == aba_floating, and the dae and aba
//    backends over 0.5 s.
// Skips when example-robot-data is not installed (tests/robot_data.hpp).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "dae_joint_accelerations.hpp"
#include "dae_robot_support.hpp"
#include "robot_data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/robot_stability.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

using test::DaeRun;
using test::dae_robot;
using test::Params;
using test::Vec;

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

/// Max over 20 random states (beyond the limits, so the limit springs act) of the DAE's
/// joint accelerations against the joint-space reference's, relative; with `mimic` the
/// second finger follows the first (a mimic row against the dense KKT reference).
double panda_acceleration_error(const std::string& dir, bool mimic) {
  ReducedModel rm = load_panda(dir);
  const int f1 = rm.nq() - 2, f2 = rm.nq() - 1;
  for (ReducedLink& l : rm.links) l.mimic = -1;  // ABA: independent joints
  if (mimic) rm.links[f2].mimic = f1;
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
    if (mimic) {  // on the relation q_f2 = q_f1
      q[f2] = q[f1];
      qd[f2] = qd[f1];
    }
    Model m = dae_robot(rm, q, qd, P, u, 1e-3);
    m.solver.tikhonov_epsilon = 0;
    Data d(m);
    Vec Y(m.ny()), Ydot(m.ny());
    initial_state(m, Y.data());
    if (!evaluate(m, d, 0.0, Y.data(), u.data(), Ydot.data())) {
      ADD_FAILURE() << "evaluate failed, trial " << trial;
      return 1.0;
    }
    const Vec a_dae = test::dae_joint_accelerations(m, d);
    const Vec a_ref = JointSpace(rm, P, u).qdd(q, qd);
    double err = 0, scale = 1;
    for (std::size_t k = 0; k < a_ref.size(); ++k) {
      err = std::max(err, std::abs(a_dae[k] - a_ref[k]));
      scale = std::max(scale, std::abs(a_ref[k]));
    }
    worst = std::max(worst, err / scale);
  }
  return worst;
}

TEST(DaeRobotLaws, PandaJointAccelerationsEqualAbaWithJointForces) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const double worst = panda_acceleration_error(dir, false), worst_mimic = panda_acceleration_error(dir, true);
  std::printf("  panda: |qdd_dae - qdd_aba| %.2e relative (servos, damping, friction, limits active); with the "
              "finger mimic row against the KKT reference %.2e\n",
              worst, worst_mimic);
  EXPECT_LT(worst, 1e-10);
  EXPECT_LT(worst_mimic, 1e-10);
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

TEST(DaeRobotLaws, PandaTrajectoriesWithServosLimitsAndDampingMatchJointSpace) {
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

TEST(DaeRobotLaws, PandaFingerMimicFollowsTheSharedCoordinate) {
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
  // mimic row (three bodies: the hand and both fingers) carries their inertial and
  // gravity loads exactly.
  const Vec q0 = {0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02, 0.02};
  const Vec u = {0.5, -0.3, 0.4, -2.0, 0.2, 1.2, 0.0, 0.0, 0.0};
  double dq1, dqd1, e1, dq2, dqd2, e2;
  panda_trajectories(rm, P, q0, u, 1e-3, 1.0, dq1, dqd1, &e1);
  panda_trajectories(rm, P, q0, u, 5e-4, 1.0, dq2, dqd2, &e2);
  std::printf("  panda finger mimic row, DAE vs KKT joint space over 1 s:\n"
              "    dt 1e-3: max |dq| %.2e, |dqd| %.2e, max |q_f2 - q_f1| %.2e m\n"
              "    dt 5e-4: max |dq| %.2e, |dqd| %.2e, max |q_f2 - q_f1| %.2e m\n",
              dq1, dqd1, e1, dq2, dqd2, e2);
  // The row is held as the joints' own rows are, to the DAE's integration error under
  // Baumgarte stabilisation (max |Phi| of every row of this run: 7e-6 at dt 1e-3); it
  // falls 4-fold per halved step here, as the trajectories' difference does: the
  // one-sided limit laws of the fingers are not smooth, which takes RK4 down to second
  // order near their switch. Measured 3.1e-6 / 7.7e-7 m (the spring-damper the row
  // replaced: 8.2e-5 / 1.9e-5 m); bounds about 3x.
  EXPECT_LT(e1, 1e-5);
  EXPECT_LT(e2, 2.5e-6);
  EXPECT_LT(dq2, dq1);
  EXPECT_LT(dq1, 4e-5);  // measured 1.3e-5
}

// ---- A mimic whose effective mass varies -------------------------------------------

/// A planar two-link arm (axes along z, gravity along them: no gravity torque), 1 m
/// links of 1 kg with their CoM at mid-length; joint 2 on the tip of link 1 mimics joint
/// 1 with multiplier r: folding the arm changes the coupling's inverse effective inertia
/// c^T M(q)^-1 c, c = e_2 - r e_1.
ReducedModel folding_arm(double r) {
  ReducedModel rm;
  rm.name = "folding_arm";
  rm.gravity = {0, 0, -9.81};
  for (int k = 0; k < 2; ++k) {
    ReducedLink l;
    l.name = k == 0 ? "upper" : "fore";
    l.joint_name = l.name + "_joint";
    l.type = ReducedJointType::Revolute;
    l.parent = k - 1;
    l.continuous = true;
    l.R_parent_joint = identity3<double>();
    l.p_parent_joint = {k == 0 ? 0.0 : 1.0, 0, 0};
    l.axis = {0, 0, 1};
    l.mass = 1;
    l.com = {0.5, 0, 0};
    l.inertia_com = Mat3d{};
    l.inertia_com.m[0][0] = 1e-3;
    l.inertia_com.m[1][1] = l.inertia_com.m[2][2] = 1.0 / 12;
    rm.links.push_back(l);
  }
  rm.links[1].mimic = 0;
  rm.links[1].mimic_multiplier = r;
  return rm;
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
TEST(DaeRobotLaws, FloatingPandaAccelerationsEqualFloatingAba) {
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

/// Max |dq|, |dqd| and |dtau| (/joint_state/tau: the actuator forces after the servo law)
/// between the dae and aba backends on floating_panda over 0.5 s.
void floating_run(bool mimic, double dt, double& dq, double& dqd, double& dtau) {
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  auto dae = Simulator::create({parse_scene(floating_panda("dae", mimic, dt).dump()).model}, o);
  auto red = Simulator::create({parse_scene(floating_panda("aba", mimic, dt).dump()).model}, o);
  const int n = dae->n_joint_coordinates();
  ASSERT_EQ(red->n_joint_coordinates(), n);
  Vec q1(n), qd1(n), t1(n), q2(n), qd2(n), t2(n);
  dq = dqd = dtau = 0;
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
      dtau = std::max(dtau, std::abs(t1[k] - t2[k]));
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
// truncation errors; with the fingers' mimic row the one-sided finger limits add theirs.
TEST(DaeRobotLaws, FloatingPandaDaeMatchesAbaBackend) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  double dq, dqd, dtau, dq_m, dqd_m, dtau_m;
  floating_run(false, 5e-4, dq, dqd, dtau);
  floating_run(true, 5e-4, dq_m, dqd_m, dtau_m);
  std::printf("  floating panda, dae vs aba backends over 0.5 s (dt 5e-4): max |dq| %.2e, |dqd| %.2e, |dtau| %.2e; "
              "with the finger mimic: %.2e, %.2e, %.2e\n",
              dq, dqd, dtau, dq_m, dqd_m, dtau_m);
  EXPECT_LT(dq, 1e-7);    // measured 9.7e-9 rad | m
  EXPECT_LT(dq_m, 5e-6);  // measured 1.2e-6 (the spring-damper the row replaced: 1.3e-4)
  // The servos' tau differ by kp dq + kd dqd (4 x 1.5e-6 at most; measured 1.1e-7).
  EXPECT_LT(dtau, 1e-5);
}

/// Max |dq_1| (q_1 against the joint-space KKT reference) and max mimic error
/// |q_2 - r q_1| of the folding arm over T seconds at dt, leader servoed from 0.6 to
/// 1.6 rad; false when a step failed, t the time reached [s].
bool folding_run(double dt, double T, double& dq, double& e, double& t) {
  const double r = -2;
  const ReducedModel rm = folding_arm(r);
  Params P(2, plain_joint_params<double>());
  P[0].mode = static_cast<int>(ActuatorMode::Position);
  P[0].kp = 20;
  P[0].kd = 10;
  P[1].mimic = 0;
  P[1].mimic_multiplier = r;
  // From 0.6 rad to 1.6 rad: the forearm folds past flat onto the upper arm (q_2 from
  // -1.2 to -3.2 rad; its angle is read within q0 +- pi, so it never wraps).
  const Vec q0 = {0.6, r * 0.6}, u = {1.6, 0.0};
  DaeRun dae(dae_robot(rm, q0, Vec(2, 0.0), P, u, dt), u);
  const JointSpace ref(rm, P, u);
  Vec q = q0, qd(2, 0.0), qa(2), qda(2);
  dq = e = 0;
  const int chunks = 40, per = static_cast<int>(std::lround(T / dt)) / chunks;
  for (int c = 0; c < chunks; ++c) {
    const bool ok = dae.run(dt, per);
    t = dae.t;
    if (!ok) return false;
    for (int s = 0; s < per; ++s) ref.step(q, qd, dt);
    for (int k = 0; k < 2; ++k) dae.joint(k, qa[k], qda[k]);
    dq = std::max(dq, std::abs(qa[0] - q[0]));
    e = std::max(e, std::abs(qa[1] - r * qa[0]));
  }
  return true;
}

// A mimic whose inverse effective inertia c^T M(q)^-1 c grows as the arm folds (3.2 at
// the start, q_2 = -1.2; 13.7 folded flat, q_2 = -pi). The spring that held mimics before
// the constraint row diverged at 0.39 s with gains made at the start pose, at dt 1e-3 and
// 1e-4 alike; the row has no stiffness and no mode of its own, so the DAE follows the
// joint-space KKT reference to the truncation error of RK4 at both steps.
TEST(DaeRobotLaws, MimicOfAFoldingArmIsExact) {
  double dq_prev = 0;
  for (const double dt : {1e-3, 1e-4}) {
    double dq, e, t;
    ASSERT_TRUE(folding_run(dt, 4.0, dq, e, t)) << "dt " << dt << " t " << t;
    std::printf("  folding arm, mimic -2, dt %.0e, over 4 s: max |dq_1| %.2e rad, max |q_2 - r q_1| %.2e rad\n", dt,
                dq, e);
    EXPECT_LT(dq, 1e-10);  // measured 4.1e-12 (dt 1e-3), 1.9e-14 (dt 1e-4)
    EXPECT_LT(e, 1e-12);   // measured 8.9e-16
    if (dq_prev > 0) {
      EXPECT_LT(dq, dq_prev);
    }
    dq_prev = dq;
  }
}

}  // namespace
}  // namespace simphant
