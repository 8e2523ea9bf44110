// The DAE evaluator: the Tikhonov-regularised Schur complement path against a dense
// (n+m) KKT solve, applied spring forces against -dV/dq, joint reactions of a hanging
// pendulum against statics, and bit-identical batches for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <Eigen/Dense>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

const std::vector<JointType> kAllTypes = {JointType::Revolute,    JointType::Spherical, JointType::Prismatic,
                                          JointType::Cylindrical, JointType::Planar,    JointType::Fixed};

Eigen::MatrixXd dense_mass(const Model& m) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(m.nv(), m.nv());
  for (int k = 0; k < m.n_bodies(); ++k) {
    M.block<3, 3>(6 * k, 6 * k) = m.bodies[k].mass * Eigen::Matrix3d::Identity();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) M(6 * k + 3 + r, 6 * k + 3 + c) = m.bodies[k].inertia_B.m[r][c];
  }
  return M;
}

// Reference: [M Phi_q^T; Phi_q 0] [qddot; lambda] = [Q; gamma*], dense LU (Eigen): the
// refined solve converges to the unregularised solution whatever the relative eps
// (docs/solver.md, "The refined regularised solve"); one refinement step already reaches
// round-off on these chains (cond(C) < 1e2, error eps cond per step).
TEST(SchurComplement, EqualsDenseKktSolve) {
  std::mt19937_64 g(42);
  for (int trial = 0; trial < 20; ++trial) {
    Model m = test::random_chain(g, kAllTypes);
    m.forces.push_back(ForceElement{});
    m.forces.back().type = ForceType::PointForce;
    m.forces.back().body = 2;
    m.forces.back().point_B = test::random_vec(g);
    m.forces.back().vec = test::random_vec(g, 10.0);
    m.solver.tikhonov_epsilon = trial % 2 ? 1e-10 : 0.0;
    std::vector<double> Y(m.ny()), Yd(m.ny());
    initial_state(m, Y.data());  // random, inconsistent state: Baumgarte terms are active
    Data d(m);
    ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Yd.data()));
    // Applied forces at the same state for the reference.
    Data ref(m);
    set_kinematics(m, ref, Y.data());
    compute_forces(m, ref, 0.0, nullptr);
    evaluate_constraints(m, ref, 0.0);
    assemble_jacobian(m, ref);
    const int n = m.nv(), k = m.n_rows;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + k, n + k);
    K.topLeftCorner(n, n) = dense_mass(m);
    K.topRightCorner(n, k) = ref.Phi_q.transpose();
    K.bottomLeftCorner(k, n) = ref.Phi_q;
    Eigen::VectorXd b(n + k);
    b << ref.Q, ref.gamma_star;
    const Eigen::VectorXd x = K.fullPivLu().solve(b);
    // Both solves are backward stable; with cond(K) ~ 1e3..1e5 for these random
    // chains the forward error is ~ cond * 1e-16 << 1e-9 relative.
    const double scale = x.cwiseAbs().maxCoeff();
    EXPECT_LT((x.head(n) - d.qddot).cwiseAbs().maxCoeff(), 1e-9 * scale) << "trial " << trial;
    EXPECT_LT((x.tail(k) - d.lambda).cwiseAbs().maxCoeff(), 1e-9 * scale) << "trial " << trial;
  }
}

// A translational spring without damping, at rest: the generalised force equals -dV/dq
// for every coordinate, rotations perturbed about the body axes (the velocity columns).
TEST(Forces, SpringForceIsMinusGradientOfPotential) {
  std::mt19937_64 g(11);
  for (int trial = 0; trial < 10; ++trial) {
    Model m = test::random_chain(g, {JointType::Revolute, JointType::Cylindrical});
    m.gravity = {0, 0, 0};
    ForceElement s;
    s.type = ForceType::SpringDamper;
    s.body_i = trial % 2 ? kGround : 0;
    s.body_j = 1;
    s.point_i = test::random_vec(g);
    s.point_j = test::random_vec(g);
    s.stiffness = 30;
    s.rest = 0.2;
    m.forces.push_back(s);
    std::vector<double> Y(m.ny());
    initial_state(m, Y.data());
    for (int i = 7 * m.n_bodies(); i < m.ny(); ++i) Y[i] = 0;  // at rest: no gyroscopic term
    Data d(m);
    set_kinematics(m, d, Y.data());
    compute_forces(m, d, 0.0, nullptr);
    const double h = 1e-6;
    for (int k = 0; k < m.n_bodies(); ++k)
      for (int c = 0; c < 6; ++c) {
        auto V_at = [&](double e) {
          std::vector<double> Yp = Y;
          if (c < 3) {
            Yp[7 * k + c] += e;
          } else {
            Vec3d th = zero3<double>();
            th[c - 3] = e;
            const Quatd p = qmul(Quatd{Y[7 * k + 3], Y[7 * k + 4], Y[7 * k + 5], Y[7 * k + 6]}, quat_from_rotvec(th));
            Yp[7 * k + 3] = p.w; Yp[7 * k + 4] = p.x; Yp[7 * k + 5] = p.y; Yp[7 * k + 6] = p.z;
          }
          Data dp(m);
          set_kinematics(m, dp, Yp.data());
          return spring_potential(m, dp);
        };
        const double grad = (V_at(h) - V_at(-h)) / (2 * h);
        // V ~ 10 J: rounding ~ 1e-15 * 10 / 1e-6 = 1e-8; truncation ~ h^2 * 100 = 1e-10.
        EXPECT_NEAR(d.Q[6 * k + c], -grad, 1e-6) << "body " << k << " coord " << c;
      }
  }
}

// A rotational spring on a revolute joint: rotating body_j about the joint axis by phi
// changes V at the rate -tau, tau the spring torque about the axis on body_j.
TEST(Forces, RotationalSpringTorqueIsMinusGradientOfPotential) {
  std::mt19937_64 g(12);
  for (int trial = 0; trial < 10; ++trial) {
    Model m = test::consistent_chain(g, {JointType::Revolute, JointType::Revolute});
    m.gravity = {0, 0, 0};
    ForceElement rs;
    rs.type = ForceType::RotationalSpringDamper;
    rs.joint = 1;
    rs.stiffness = 7;
    rs.rest = 0.3;
    m.forces.push_back(rs);
    std::vector<double> Y0(m.ny());
    initial_state(m, Y0.data());
    for (int i = 7 * m.n_bodies(); i < m.ny(); ++i) Y0[i] = 0;
    const Joint& jt = m.joints[1];
    const Vec3d axis_W = mul(rotation(m.bodies[0].p0), jt.frame.v_i);
    // Body 1 rotated about the world joint axis by phi from its initial pose.
    auto rotated = [&](double phi) {
      std::vector<double> Yp = Y0;
      const Quatd p = qmul(quat_from_rotvec(phi * axis_W), Quatd{Y0[10], Y0[11], Y0[12], Y0[13]});
      Yp[10] = p.w; Yp[11] = p.x; Yp[12] = p.y; Yp[13] = p.z;
      return Yp;
    };
    auto V_at = [&](double phi) {
      const std::vector<double> Yp = rotated(phi);
      Data dp(m);
      set_kinematics(m, dp, Yp.data());
      return spring_potential(m, dp);
    };
    const std::vector<double> Y = rotated(1.1);
    Data d(m);
    set_kinematics(m, d, Y.data());
    EXPECT_NEAR(coordinate_angle_value(jt.frame, d.kin[0], d.kin[1]), 1.1, 1e-12);
    compute_forces(m, d, 0.0, nullptr);
    const Vec3d T_B{d.Q[9], d.Q[10], d.Q[11]};
    const double tau = dot(axis_W, mul(d.kin[1].A, T_B));
    EXPECT_NEAR(tau, -7 * (1.1 - 0.3), 1e-12);
    const double h = 1e-6;
    // V ~ 1 J: rounding ~ 1e-16 / 1e-6 = 1e-10.
    EXPECT_NEAR(tau, -(V_at(1.1 + h) - V_at(1.1 - h)) / (2 * h), 1e-7);
  }
}

// The reported reactions close every body's Newton-Euler balance: with the wrench
// (F, T_P) each joint applies to its body_j at the anchor P, and the opposite wrench on
// its body_i, m a = m g + sum F and J omegadot + omega x J omega = sum of torques about
// the CoM, for all six joint types at consistent states (chains with either end on
// ground).
TEST(Reactions, CloseNewtonEulerBalanceOfEveryBody) {
  std::mt19937_64 g(77);
  for (int trial = 0; trial < 10; ++trial) {
    Model m = test::consistent_chain(g, kAllTypes);
    std::vector<double> Y(m.ny()), Yd(m.ny());
    initial_state(m, Y.data());
    Data d(m);
    assemble(m, d, Y.data());
    ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Yd.data()));
    std::vector<double> R(6 * m.n_joints());
    joint_reactions(m, d, R.data());
    const int N = m.n_bodies();
    std::vector<Vec3d> F(N, zero3<double>()), T(N, zero3<double>());  // W, torque about CoM
    for (int k = 0; k < N; ++k) F[k] = m.bodies[k].mass * m.gravity;
    for (int j = 0; j < m.n_joints(); ++j) {
      const Joint& jt = m.joints[j];
      const Vec3d f{R[6 * j], R[6 * j + 1], R[6 * j + 2]}, t{R[6 * j + 3], R[6 * j + 4], R[6 * j + 5]};
      const BodyKin<double> Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
      const Vec3d P = Bj.r + mul(Bj.A, jt.frame.u_j);
      if (jt.body_j >= 0) {
        F[jt.body_j] += f;
        T[jt.body_j] += t + cross(P - d.kin[jt.body_j].r, f);
      }
      if (jt.body_i >= 0) {
        F[jt.body_i] -= f;
        T[jt.body_i] -= t + cross(P - d.kin[jt.body_i].r, f);
      }
    }
    for (int k = 0; k < N; ++k) {
      const Body& b = m.bodies[k];
      const Vec3d a{Yd[7 * N + 6 * k], Yd[7 * N + 6 * k + 1], Yd[7 * N + 6 * k + 2]};
      const Vec3d wd{Yd[7 * N + 6 * k + 3], Yd[7 * N + 6 * k + 4], Yd[7 * N + 6 * k + 5]};
      const Vec3d& w = d.kin[k].omega_B;
      const Vec3d euler = mul(b.inertia_B, wd) + cross(w, mul(b.inertia_B, w));
      const Vec3d T_B = mul_t(d.kin[k].A, T[k]);
      // Forces ~ 10..100 N from products of O(1) terms: agreement to 1e-9 is rounding
      // plus the Tikhonov term's eps * lambda.
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(b.mass * a[c], F[k][c], 1e-9) << "trial " << trial << " body " << k << " force " << c;
        EXPECT_NEAR(euler[c], T_B[c], 1e-9) << "trial " << trial << " body " << k << " torque " << c;
      }
    }
  }
}

// A pendulum hanging at rest below a revolute joint: the joint holds its weight, so the
// reaction on body_j is +m g upwards with zero torque about the anchor.
TEST(Reactions, HangingPendulumCarriesItsWeight) {
  Model m;
  m.gravity = {0, 0, -9.81};
  m.bodies.push_back(test::principal_body("bob", 2.5, {0.1, 0.1, 0.02}, {0, 0, -0.7}));
  Joint j;
  j.type = JointType::Revolute;
  j.body_i = kGround;
  j.body_j = 0;
  j.frame = test::frame_from_world(m, kGround, 0, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, -1});
  m.joints.push_back(j);
  m.n_rows = 5;
  std::vector<double> Y(m.ny()), Yd(m.ny());
  initial_state(m, Y.data());
  Data d(m);
  ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Yd.data()));
  double R[6];
  joint_reactions(m, d, R);
  // The refined solve leaves no Tikhonov sag: the plain regularised solve would give
  // lambda = -g / ((1 + eps)/m) (relative eps), a reaction m g / (1 + eps) and an
  // acceleration -g eps / (1 + eps) (1e-9 m/s^2); one refinement step takes the error to
  // eps^2. To rounding: the acceleration is (Q - lambda) / m with Q, lambda ~ m g =
  // 24.5 N, so its rounding error is a few ulps of g (ulp(9.81) = 1.8e-15): tolerance 1e-14.
  const double mg = 2.5 * 9.81;
  EXPECT_NEAR(R[0], 0.0, 1e-12);
  EXPECT_NEAR(R[1], 0.0, 1e-12);
  EXPECT_NEAR(R[2], mg, 1e-12);
  for (int c = 3; c < 6; ++c) EXPECT_NEAR(R[c], 0.0, 1e-12);
  for (int i = 7; i < 13; ++i) EXPECT_NEAR(Yd[i], 0.0, 1e-14) << "acceleration " << i;
}

// Per-instance actuator inputs set through the API: a horizontal pendulum held by its
// motor torque u = m g l does not accelerate; with u = 0 it falls at alpha = m g l / I_O.
TEST(Simulator, ActuatorInputsSetPerInstance) {
  const char* text = R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "arm", "mass": 2.0, "inertia": [0.001, 0.04, 0.04], "position": [0.25, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "arm",
                "frame": {"origin": [0, 0, 0], "z": [0, -1, 0], "x": [1, 0, 0]}}],
    "forces": [{"name": "motor", "type": "actuator", "joint": "hinge", "kind": "torque"}],
    "solver": {"dt": 0.0001, "t_end": 1.0}
  })";
  const Scene scene = parse_scene(text);
  auto sim = Simulator::create({scene.model}, SimulatorOptions{"cpu", 2}, 2);
  // Axis -y: a positive torque lifts the arm (+x end) against gravity. m g l = 4.905 N m.
  const double hold = 2.0 * 9.81 * 0.25;
  const double u[2] = {hold, 0.0};
  sim->set_inputs(u);
  sim->advance(100);  // 10 ms
  std::vector<double> y(2 * 13);
  sim->read_states(y.data());
  // Instance 0 stays put: the torque balances gravity to the Tikhonov sag (~eps m g).
  EXPECT_NEAR(y[2], 0.0, 1e-9);
  EXPECT_NEAR(y[12], 0.0, 1e-8);
  // Instance 1 falls: omega_y(t) = alpha t, alpha = m g l / I_O with I_O = 0.04 + m l^2;
  // over 10 ms the angle stays below 0.006 rad, so cos(theta) = 1 to 2e-5.
  const double alpha = hold / (0.04 + 2.0 * 0.25 * 0.25);
  EXPECT_NEAR(y[13 + 11], alpha * 0.01, 2e-5 * alpha * 0.01);  // falls about +y
}

// The state a batch ends on is checked against violation_bound too: a spherical
// pendulum starting exactly on Phi = 0 passes the step's start check, and the rounding
// of one step (~1e-17 m) already exceeds a bound of 1e-300.
TEST(Batch, ViolationAtTheEndOfAdvanceIsFlagged) {
  Model m;
  m.gravity = {0, 0, -9.81};
  Body b = test::principal_body("bob", 1.0, {0.01, 0.01, 0.01}, {0.6, 0, -0.8});
  b.omega0_B = {0, 0.3, 0};
  b.v0_W = {-0.24, 0, -0.18};  // omega x (r - 0): consistent with the joint
  m.bodies.push_back(b);
  Joint j;
  j.type = JointType::Spherical;
  j.body_i = kGround;
  j.body_j = 0;
  j.frame = test::frame_from_world(m, kGround, 0, {0, 0, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0});
  m.joints.push_back(j);
  m.n_rows = 3;
  m.solver.dt = 1e-3;
  m.solver.violation_bound = 1e-300;
  auto sim = Simulator::create({m}, SimulatorOptions{"cpu", 1}, 1);
  double v0 = -1;
  sim->read_constraint_violation(&v0);
  ASSERT_EQ(v0, 0.0);  // exactly on the manifold at the start
  sim->advance(1);
  std::int8_t st = 0;
  double st_t = -1;
  sim->read_status(&st, &st_t);
  EXPECT_EQ(st, static_cast<std::int8_t>(InstanceStatus::Diverged));
  EXPECT_EQ(st_t, 1e-3);
}

TEST(Batch, BitIdenticalForAnyThreadCount) {
  std::mt19937_64 g(5);
  std::vector<Model> models;
  for (int i = 0; i < 7; ++i) {  // 7 differing instances: not a multiple of 2 threads
    std::mt19937_64 gi(100 + i);
    models.push_back(test::consistent_chain(gi, {JointType::Revolute, JointType::Spherical, JointType::Cylindrical}));
    models.back().solver.dt = 1e-3;
  }
  std::vector<std::vector<double>> out;
  for (int threads : {1, 2, 3}) {
    auto sim = Simulator::create(models, SimulatorOptions{"cpu", threads});
    sim->advance(200);
    std::vector<double> y(7 * 3 * 13), r(7 * 3 * 6);
    sim->read_states(y.data());
    sim->read_reactions(r.data());
    y.insert(y.end(), r.begin(), r.end());
    out.push_back(y);
    std::vector<std::int8_t> st(7);
    std::vector<double> st_t(7);
    sim->read_status(st.data(), st_t.data());
    for (int i = 0; i < 7; ++i) EXPECT_EQ(st[i], 0) << "instance " << i;
  }
  ASSERT_EQ(std::memcmp(out[0].data(), out[1].data(), out[0].size() * sizeof(double)), 0);
  ASSERT_EQ(std::memcmp(out[0].data(), out[2].data(), out[0].size() * sizeof(double)), 0);
  EXPECT_NE(out[0][0], out[0][3 * 13]);  // the instances differ
}

TEST(Batch, DivergedInstanceIsFrozenOthersUnaffected) {
  std::mt19937_64 g(8);
  Model base = test::consistent_chain(g, {JointType::Revolute, JointType::Spherical});
  base.solver.dt = 1e-3;
  std::vector<Model> models(4, base);
  models[1].bodies[1].omega0_B = {1e200, 0, 0};  // J omega x omega overflows: non-finite step
  models[3].solver.violation_bound = 1e-300;     // any violation passes the bound
  auto sim = Simulator::create(models, SimulatorOptions{"cpu", 2});
  auto solo = Simulator::create({base}, SimulatorOptions{"cpu", 1});
  std::vector<double> y_start(4 * 2 * 13);
  sim->read_states(y_start.data());
  sim->advance(50);
  solo->advance(50);
  std::vector<std::int8_t> st(4);
  std::vector<double> st_t(4);
  sim->read_status(st.data(), st_t.data());
  EXPECT_EQ(st[0], 0);
  EXPECT_EQ(st[1], static_cast<std::int8_t>(InstanceStatus::Diverged));
  EXPECT_EQ(st[2], 0);
  EXPECT_EQ(st[3], static_cast<std::int8_t>(InstanceStatus::Diverged));
  EXPECT_EQ(st_t[1], 0.0);
  std::vector<double> y(4 * 2 * 13), y0(2 * 13);
  sim->read_states(y.data());
  solo->read_states(y0.data());
  // Healthy instances are bit-identical to the same model run alone...
  EXPECT_EQ(std::memcmp(y.data(), y0.data(), y0.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(y.data() + 2 * 26, y0.data(), y0.size() * sizeof(double)), 0);
  // ... and the diverged ones are frozen at their last good (here: assembled) state.
  EXPECT_EQ(std::memcmp(y.data() + 26, y_start.data() + 26, 26 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(y.data() + 3 * 26, y_start.data() + 3 * 26, 26 * sizeof(double)), 0);
}

}  // namespace
}  // namespace simphant
