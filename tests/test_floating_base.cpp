// Floating-base forward dynamics (aba_floating in reduced/aba.hpp, cga::cga_aba_floating in
// reduced/cga/cga_dynamics.hpp) and the floating forward kinematics
// (reduced/forward_kinematics.hpp) on seeded random trees hanging from a free base:
//  - the spatial and CGA forms agree; a lone free body (n = 0) obeys Euler's equations;
//  - an independent solver: the fixed-base ABA of the same tree with the base attached to
//    W by six massless joints (three prismatic along W's axes, three revolute about B's
//    axes at q = 0), whose accelerations give the base's in closed form;
//  - physics: without gravity the total momentum is conserved for any joint torques, with
//    gravity it changes at the rate (m g, m c x g), and the power balance
//    d(T + V)/dt = tau . qd holds (finite differences along the computed derivative);
//  - gravity only shifts the base's linear acceleration by g; p_B does not enter and a
//    quaternion off unit length is normalised; a very heavy base approaches the
//    fixed-base ABA at the rate 1 / M_B;
//  - the floating kinematics' velocities are the time derivatives of its poses;
//  - the base's 6x6 Cholesky solve (spd6.hpp) against Eigen's LLT.
// The Pinocchio cross-check (a JointModelFreeFlyer root on example-robot-data robots) is
// tests/pinocchio_floating_check.py.
//
// Tolerances (fp64): like tests/test_spatial_dynamics.cpp, the recursions are O(n) sums of
// O(1) products, so agreement of two exact algorithms is a few hundred eps times the data
// scale times cond(M) (<= 1e4 here): 1e-10 relative against the six-joint fixed-base ABA
// (another recursion order), 1e-12 relative spatial vs CGA (measured worst: see each
// test). Central differences with h = 1e-5: truncation O(h^2) and rounding O(eps / h),
// both near 1e-10 relative, hence 1e-8.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/spd6.hpp"

namespace simphant {
namespace {

using Links = std::vector<ReducedLinkParams<double>>;
using Rng = std::mt19937_64;

const Vec3d kGravity{0.0, 0.0, -9.81};

Mat3d random_rotation(Rng& g) {
  std::normal_distribution<double> nd(0.0, 1.0);
  return rotation(normalized(Quatd{nd(g), nd(g), nd(g), nd(g)}));
}

Vec3d random_vec(Rng& g, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return {u(g), u(g), u(g)};
}

/// R Ic R^T: an inertia given in a frame rotated by R, in the outer frame's axes.
Mat3d world_inertia(const Mat3d& R, const Mat3d& Ic) {
  Mat3d Rt;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Rt.m[i][j] = R.m[j][i];
  return spatial_detail::m3_mul(spatial_detail::m3_mul(R, Ic), Rt);
}

/// SPD inertia about the CoM with principal moments that satisfy the triangle inequality.
Mat3d random_inertia(Rng& g, double lo, double hi) {
  std::uniform_real_distribution<double> mom(lo, hi);
  const double d0 = mom(g), d1 = mom(g), d2 = mom(g), dmax = std::max({d0, d1, d2});
  Mat3d D{};
  D.m[0][0] = d0 + dmax;
  D.m[1][1] = d1 + dmax;
  D.m[2][2] = d2 + dmax;
  return world_inertia(random_rotation(g), D);
}

/// A random tree of n links hanging from the base: parent uniform in [-1, k-1] (so
/// several root links), oblique unit axes, about one joint in three prismatic, masses
/// 0.5-3 kg, offsets <= 0.5 m (as tests/test_spatial_dynamics.cpp).
Links random_tree(Rng& g, int n) {
  std::uniform_real_distribution<double> u01(0.0, 1.0), mass(0.5, 3.0);
  Links links(n);
  for (int k = 0; k < n; ++k) {
    ReducedLinkParams<double>& l = links[k];
    l.parent = std::uniform_int_distribution<int>(-1, k - 1)(g);
    l.type = u01(g) < 1.0 / 3.0 ? 1 : 0;
    l.R_parent_joint = random_rotation(g);
    l.p_parent_joint = random_vec(g, 0.5);
    const Vec3d a = random_vec(g, 1.0);
    l.axis = (1.0 / norm(a)) * a;
    l.mass = mass(g);
    l.com = random_vec(g, 0.3);
    l.inertia_com = random_inertia(g, 0.01, 0.1);
  }
  return links;
}

RobotBaseParams<double> random_base(Rng& g, double mass = 0.0) {
  std::uniform_real_distribution<double> m(2.0, 10.0);
  return {mass > 0 ? mass : m(g), random_vec(g, 0.2), random_inertia(g, 0.05, 0.5)};
}

/// One floating-base state and joint forces.
struct State {
  Vec3d p_B, v_B, omega_B;
  Quatd quat_B;
  std::vector<double> q, qd, tau;
};

State random_state(Rng& g, int n) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::normal_distribution<double> nd(0.0, 1.0);
  State s;
  s.p_B = random_vec(g, 2.0);
  s.quat_B = normalized(Quatd{nd(g), nd(g), nd(g), nd(g)});
  s.v_B = random_vec(g, 1.0);
  s.omega_B = random_vec(g, 1.0);
  for (int k = 0; k < n; ++k) {
    s.q.push_back(M_PI * u(g));
    s.qd.push_back(2.0 * u(g));
    s.tau.push_back(5.0 * u(g));
  }
  return s;
}

/// The outputs of a floating-base forward dynamics call.
struct Accel {
  Vec3d vdot_B, omegadot_B;
  std::vector<double> qdd;
};

double max_abs(const Accel& a) {
  double m = std::max({std::fabs(a.vdot_B.x), std::fabs(a.vdot_B.y), std::fabs(a.vdot_B.z),
                       std::fabs(a.omegadot_B.x), std::fabs(a.omegadot_B.y), std::fabs(a.omegadot_B.z)});
  for (double x : a.qdd) m = std::max(m, std::fabs(x));
  return m;
}

/// max |a - b| over every output.
double max_diff(const Accel& a, const Accel& b) {
  const Vec3d dv = a.vdot_B - b.vdot_B, dw = a.omegadot_B - b.omegadot_B;
  double m = std::max({std::fabs(dv.x), std::fabs(dv.y), std::fabs(dv.z), std::fabs(dw.x), std::fabs(dw.y),
                       std::fabs(dw.z)});
  for (std::size_t k = 0; k < a.qdd.size(); ++k) m = std::max(m, std::fabs(a.qdd[k] - b.qdd[k]));
  return m;
}

struct Solvers {
  std::unique_ptr<AbaWorkspace<double>> aws = std::make_unique<AbaWorkspace<double>>();
  std::unique_ptr<cga::CgaWorkspace<double>> cws = std::make_unique<cga::CgaWorkspace<double>>();

  Accel spatial(const Links& L, const RobotBaseParams<double>& base, const State& s, Vec3d gravity = kGravity) {
    Accel a;
    a.qdd.assign(L.size(), NAN);
    aba_floating(int(L.size()), L.data(), base, gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(), s.qd.data(),
                 s.tau.data(), a.vdot_B, a.omegadot_B, a.qdd.data(), *aws);
    return a;
  }
  Accel cga(const Links& L, const RobotBaseParams<double>& base, const State& s, Vec3d gravity = kGravity) {
    Accel a;
    a.qdd.assign(L.size(), NAN);
    cga::cga_aba_floating(int(L.size()), L.data(), base, gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(),
                          s.qd.data(), s.tau.data(), a.vdot_B, a.omegadot_B, a.qdd.data(), *cws);
    return a;
  }
  Accel cga_links(const Links& L, const RobotBaseParams<double>& base, const State& s, Vec3d gravity = kGravity) {
    std::vector<cga::CgaLink<double>> C;
    for (const auto& l : L) C.push_back(cga::cga_link(l));
    Accel a;
    a.qdd.assign(L.size(), NAN);
    cga::cga_aba_floating(int(L.size()), C.data(), base, gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(),
                          s.qd.data(), s.tau.data(), a.vdot_B, a.omegadot_B, a.qdd.data(), *cws);
    return a;
  }
};

TEST(FloatingBase, Spd6SolveMatchesEigen) {
  // spd6_solve against Eigen's LLT on random SPD matrices Q diag(d) Q^T with condition
  // numbers up to 1e8 and mixed scales (an inertia's [kg m^2], [kg m], [kg] blocks): the
  // residual |A x - b| is backward-stable, <= 1e-14 |A| |x|, and x agrees with Eigen's to
  // cond * 1e-14.
  Rng g(30);
  std::uniform_real_distribution<double> u(-1.0, 1.0), expo(0.0, 8.0);
  for (int t = 0; t < 50; ++t) {
    Eigen::Matrix<double, 6, 6> X;
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) X(i, j) = u(g);
    const Eigen::Matrix<double, 6, 6> Q = Eigen::HouseholderQR<Eigen::Matrix<double, 6, 6>>(X).householderQ();
    Eigen::Matrix<double, 6, 1> d, b;
    const double cond = std::pow(10.0, expo(g));
    for (int i = 0; i < 6; ++i) d(i) = std::pow(cond, i / 5.0);
    Eigen::Matrix<double, 6, 6> A = Q * d.asDiagonal() * Q.transpose();
    const Eigen::Matrix<double, 6, 1> scale = (Eigen::Matrix<double, 6, 1>() << 0.1, 0.1, 0.1, 10, 10, 10).finished();
    A = scale.asDiagonal() * A * scale.asDiagonal();
    for (int i = 0; i < 6; ++i) b(i) = u(g);
    double Ar[6][6], x[6];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j) Ar[i][j] = A(i, j);
    spd6_solve(Ar, b.data(), x);
    const Eigen::Matrix<double, 6, 1> xs = Eigen::Map<Eigen::Matrix<double, 6, 1>>(x);
    const Eigen::Matrix<double, 6, 1> xe = A.llt().solve(b);
    EXPECT_LT((A * xs - b).norm(), 1e-14 * A.norm() * xs.norm()) << "trial " << t;
    EXPECT_LT((xs - xe).norm(), 1e-14 * cond * 1e2 * xe.norm()) << "trial " << t;
  }
  // x may alias b.
  double A[6][6] = {}, b[6] = {1, 2, 3, 4, 5, 6};
  for (int i = 0; i < 6; ++i) A[i][i] = 4.0;  // L = 2 1: every step exact
  spd6_solve(A, b, b);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b[i], 0.25 * (i + 1));
}

TEST(FloatingBase, SpatialAndCgaAgree) {
  Rng g(31);
  Solvers S;
  double worst = 0;
  for (int n : {1, 2, 7, 20, 64}) {
    for (int t = 0; t < 10; ++t) {
      const Links L = random_tree(g, n);
      const RobotBaseParams<double> base = random_base(g);
      const State s = random_state(g, n);
      const Accel a = S.spatial(L, base, s), b = S.cga(L, base, s), c = S.cga_links(L, base, s);
      const double e = max_diff(a, b) / std::max(1.0, max_abs(a));
      worst = std::max(worst, e);
      EXPECT_LT(e, 1e-12) << "n " << n << " trial " << t;
      EXPECT_EQ(max_diff(b, c), 0.0) << "CgaLink and ReducedLinkParams overloads, n " << n;
    }
  }
  std::printf("spatial vs CGA floating ABA: worst %.2e relative\n", worst);
}

/// The tree with the base attached to W by six joints: links 0-2 prismatic along W's x, y,
/// z (massless), 3-4 revolute about B's x, y (massless), 5 revolute about B's z carrying the
/// base body; the joint frame of link 3 is R_B, so at q = 0 for 3-5 the base's pose is
/// (R_B, p_B) with p_B = (q0, q1, q2).
Links six_joint_tree(const Links& L, const RobotBaseParams<double>& base, const Mat3d& R_B) {
  Links A;
  const Mat3d I = identity3<double>();
  const Vec3d e[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int k = 0; k < 6; ++k) {
    ReducedLinkParams<double> l{};
    l.parent = k - 1;
    l.type = k < 3 ? 1 : 0;
    l.R_parent_joint = k == 3 ? R_B : I;
    l.p_parent_joint = zero3<double>();
    l.axis = e[k % 3];
    l.mass = 0.0;
    l.com = zero3<double>();
    l.inertia_com = Mat3d{};
    A.push_back(l);
  }
  A[5].mass = base.mass;
  A[5].com = base.com;
  A[5].inertia_com = base.inertia_com;
  for (ReducedLinkParams<double> l : L) {
    l.parent = l.parent < 0 ? 5 : l.parent + 6;
    A.push_back(l);
  }
  return A;
}

TEST(FloatingBase, FreeRigidBodyClosedForm) {
  // n = 0: the base alone. Its CoM falls with g and Euler's equations hold about the CoM,
  // I_c omegadot_B = -omega_B x I_c omega_B (B coordinates); B's origin sits at -c from
  // the CoM, so vdot_B = g - alpha_W x (R_B c) - omega_W x (omega_W x (R_B c)).
  Rng g(39);
  Solvers S;
  const Links none;
  for (int t = 0; t < 10; ++t) {
    const RobotBaseParams<double> base = random_base(g);
    const State s = random_state(g, 0);
    const Mat3d R_B = rotation(s.quat_B);
    const Vec3d w = s.omega_B, rhs = -cross(w, mul(base.inertia_com, w));
    // I_c omegadot = rhs by Cramer's rule (a 3x3 independent of spd6.hpp).
    const Mat3d& I = base.inertia_com;
    const Vec3d c0{I.m[0][0], I.m[1][0], I.m[2][0]}, c1{I.m[0][1], I.m[1][1], I.m[2][1]},
        c2{I.m[0][2], I.m[1][2], I.m[2][2]};
    const double det = dot(c0, cross(c1, c2));
    const Vec3d wdot{dot(rhs, cross(c1, c2)) / det, dot(c0, cross(rhs, c2)) / det, dot(c0, cross(c1, rhs)) / det};
    const Vec3d wW = mul(R_B, w), aW = mul(R_B, wdot), rc = mul(R_B, base.com);
    Accel ref;
    ref.omegadot_B = wdot;
    ref.vdot_B = kGravity - cross(aW, rc) - cross(wW, cross(wW, rc));
    for (const Accel& a : {S.spatial(none, base, s), S.cga(none, base, s)})
      EXPECT_LT(max_diff(a, ref), 1e-13 * std::max(1.0, max_abs(ref))) << "trial " << t;
  }
}

TEST(FloatingBase, EqualsFixedAbaWithSixMasslessJoints) {
  // Base velocity in the six coordinates at q3 = q4 = q5 = 0 (the three revolute frames
  // coincide, so their rates are omega_B's B components): qd0..2 = v_B (W),
  // qd3..5 = omega_B. Differentiating the angular velocity of the revolute chain gives
  //   omegadot_B = (qdd3, qdd4, qdd5) + (qd4 qd5, -qd3 qd5, qd3 qd4)
  // (sum of qd_i e_i x qd_j e_j over i < j, B coordinates), and vdot_B = (qdd0, qdd1, qdd2).
  Rng g(32);
  Solvers S;
  std::unique_ptr<AbaWorkspace<double>> fws = std::make_unique<AbaWorkspace<double>>();
  double worst = 0;
  for (int n : {1, 3, 7, 20, 58}) {
    for (int t = 0; t < 10; ++t) {
      const Links L = random_tree(g, n);
      const RobotBaseParams<double> base = random_base(g);
      const State s = random_state(g, n);
      const Mat3d R_B = rotation(s.quat_B);
      const Links A = six_joint_tree(L, base, R_B);
      std::vector<double> q{s.p_B.x, s.p_B.y, s.p_B.z, 0, 0, 0}, qd{s.v_B.x,     s.v_B.y,     s.v_B.z,
                                                                    s.omega_B.x, s.omega_B.y, s.omega_B.z};
      std::vector<double> tau(6, 0.0), qdd(n + 6, NAN);
      q.insert(q.end(), s.q.begin(), s.q.end());
      qd.insert(qd.end(), s.qd.begin(), s.qd.end());
      tau.insert(tau.end(), s.tau.begin(), s.tau.end());
      aba(n + 6, A.data(), kGravity, q.data(), qd.data(), tau.data(), qdd.data(), *fws);
      Accel ref;
      ref.vdot_B = {qdd[0], qdd[1], qdd[2]};
      ref.omegadot_B = Vec3d{qdd[3], qdd[4], qdd[5]} + Vec3d{qd[4] * qd[5], -qd[3] * qd[5], qd[3] * qd[4]};
      ref.qdd.assign(qdd.begin() + 6, qdd.end());
      for (const Accel& a : {S.spatial(L, base, s), S.cga(L, base, s)}) {
        const double e = max_diff(a, ref) / std::max(1.0, max_abs(ref));
        worst = std::max(worst, e);
        EXPECT_LT(e, 1e-10) << "n " << n << " trial " << t;
      }
    }
  }
  std::printf("floating ABA vs fixed ABA with six massless joints: worst %.2e relative\n", worst);
}

/// Total momentum about the W origin, W coordinates: (angular [N m s], linear [N s]), from
/// the floating forward kinematics (independent of the ABA).
struct Momentum {
  Vec3d L, P;
};
struct Kin {
  std::vector<Mat3d> R;
  std::vector<Vec3d> o, c, vc, w, vo;
  explicit Kin(int n) : R(n), o(n), c(n), vc(n), w(n), vo(n) {}
};
Kin kinematics(const Links& Ls, const State& s) {
  const int n = int(Ls.size());
  Kin K(n);
  forward_kinematics_velocity_floating(n, Ls.data(), s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(), s.qd.data(),
                                       K.R.data(), K.o.data(), K.c.data(), K.vc.data(), K.w.data(), K.vo.data());
  return K;
}
Momentum momentum(const Links& Ls, const RobotBaseParams<double>& base, const State& s) {
  const Kin K = kinematics(Ls, s);
  const Mat3d R_B = rotation(normalized(s.quat_B));
  const Vec3d wB = mul(R_B, s.omega_B), rB = mul(R_B, base.com);
  const Vec3d cB = s.p_B + rB, vB = s.v_B + cross(wB, rB);
  Momentum h{cross(cB, base.mass * vB) + mul(world_inertia(R_B, base.inertia_com), wB), base.mass * vB};
  for (std::size_t k = 0; k < Ls.size(); ++k) {
    const Vec3d w = mul(K.R[k], K.w[k]);
    h.P += Ls[k].mass * K.vc[k];
    h.L += cross(K.c[k], Ls[k].mass * K.vc[k]) + mul(world_inertia(K.R[k], Ls[k].inertia_com), w);
  }
  return h;
}
/// Kinetic plus gravity potential energy [J].
double energy(const Links& Ls, const RobotBaseParams<double>& base, const State& s, Vec3d gravity) {
  const Kin K = kinematics(Ls, s);
  const Mat3d R_B = rotation(normalized(s.quat_B));
  const Vec3d rB = mul(R_B, base.com), vB = s.v_B + cross(mul(R_B, s.omega_B), rB);
  double E = 0.5 * base.mass * dot(vB, vB) + 0.5 * dot(s.omega_B, mul(base.inertia_com, s.omega_B)) -
             base.mass * dot(gravity, s.p_B + rB);
  for (std::size_t k = 0; k < Ls.size(); ++k)
    E += 0.5 * Ls[k].mass * dot(K.vc[k], K.vc[k]) + 0.5 * dot(K.w[k], mul(Ls[k].inertia_com, K.w[k])) -
         Ls[k].mass * dot(gravity, K.c[k]);
  return E;
}

/// The state moved by h along the derivative (dp_B, dquat_B, dq, dv_B, domega_B, dqd):
/// y + h ydot to first order; the quaternion by the exact rotation exp(h omega_B / 2).
State advance(const State& s, const Accel& a, double h) {
  State r = s;
  r.p_B = s.p_B + h * s.v_B;
  r.quat_B = qmul(s.quat_B, quat_from_rotvec(h * s.omega_B));
  r.v_B = s.v_B + h * a.vdot_B;
  r.omega_B = s.omega_B + h * a.omegadot_B;
  for (std::size_t k = 0; k < s.q.size(); ++k) {
    r.q[k] = s.q[k] + h * s.qd[k];
    r.qd[k] = s.qd[k] + h * a.qdd[k];
  }
  return r;
}

TEST(FloatingBase, MomentumRateAndPowerBalance) {
  // dh/dt by central differences of h along the computed derivative equals the external
  // wrench of gravity about the W origin, (sum m c x g, sum m g) -- zero without gravity
  // (momentum conservation under any joint torques); d(T + V)/dt = tau . qd.
  Rng g(33);
  Solvers S;
  const double h = 1e-5;
  double worst_h = 0, worst_e = 0;
  for (const Vec3d grav : {zero3<double>(), kGravity}) {
    for (int n : {1, 2, 7, 20}) {
      for (int t = 0; t < 5; ++t) {
        const Links L = random_tree(g, n);
        const RobotBaseParams<double> base = random_base(g);
        const State s = random_state(g, n);
        for (int form = 0; form < 2; ++form) {
          const Accel a = form == 0 ? S.spatial(L, base, s, grav) : S.cga(L, base, s, grav);
          const Momentum hp = momentum(L, base, advance(s, a, h)), hm = momentum(L, base, advance(s, a, -h));
          const Vec3d dL = (1.0 / (2 * h)) * (hp.L - hm.L), dP = (1.0 / (2 * h)) * (hp.P - hm.P);
          const Kin K = kinematics(L, s);
          double m = base.mass;
          Vec3d mc = base.mass * (s.p_B + mul(rotation(s.quat_B), base.com));
          for (int k = 0; k < n; ++k) {
            m += L[k].mass;
            mc += L[k].mass * K.c[k];
          }
          const Vec3d eL = dL - cross(mc, grav), eP = dP - m * grav;
          // Scale: the momentum's own rate of change would be |m a| ~ m max|accel| (1 + |c|).
          const double scale = m * std::max(1.0, max_abs(a)) * (1.0 + norm(mc) / m);
          const double e = std::max({std::fabs(eL.x), std::fabs(eL.y), std::fabs(eL.z), std::fabs(eP.x),
                                     std::fabs(eP.y), std::fabs(eP.z)}) /
                           scale;
          worst_h = std::max(worst_h, e);
          EXPECT_LT(e, 1e-8) << "n " << n << " form " << form << " gravity " << grav.z;
          double power = 0;
          for (int k = 0; k < n; ++k) power += s.tau[k] * s.qd[k];
          const double dE =
              (energy(L, base, advance(s, a, h), grav) - energy(L, base, advance(s, a, -h), grav)) / (2 * h);
          const double ee = std::fabs(dE - power) / (scale * (1.0 + norm(s.v_B) + norm(s.omega_B)));
          worst_e = std::max(worst_e, ee);
          EXPECT_LT(ee, 1e-8) << "n " << n << " form " << form << " gravity " << grav.z;
        }
      }
    }
  }
  std::printf("momentum rate: worst %.2e relative; power balance: worst %.2e relative\n", worst_h, worst_e);
}

TEST(FloatingBase, GravityOnlyShiftsTheBaseAcceleration) {
  // A uniform field accelerates every body alike: qdd and omegadot_B do not depend on it,
  // vdot_B moves by g.
  Rng g(34);
  Solvers S;
  for (int n : {1, 7, 20}) {
    const Links L = random_tree(g, n);
    const RobotBaseParams<double> base = random_base(g);
    const State s = random_state(g, n);
    Accel a = S.spatial(L, base, s, kGravity);
    const Accel b = S.spatial(L, base, s, zero3<double>());
    a.vdot_B -= kGravity;
    EXPECT_LT(max_diff(a, b), 1e-13 * std::max(1.0, max_abs(b))) << "n " << n;
  }
}

TEST(FloatingBase, PoseInvarianceAndQuaternionNormalisation) {
  // p_B does not enter (translation invariance); a quaternion off unit length (an RK
  // stage's) is normalised, so scaling it changes nothing beyond rounding.
  Rng g(38);
  Solvers S;
  const int n = 7;
  const Links L = random_tree(g, n);
  const RobotBaseParams<double> base = random_base(g);
  const State s = random_state(g, n);
  const Accel a = S.spatial(L, base, s);
  State t = s;
  t.p_B = Vec3d{1e3, -2e3, 5e2};
  t.quat_B = {1.01 * s.quat_B.w, 1.01 * s.quat_B.x, 1.01 * s.quat_B.y, 1.01 * s.quat_B.z};
  for (const Accel& b : {S.spatial(L, base, t), S.cga(L, base, t)})
    EXPECT_LT(max_diff(a, b), 1e-13 * std::max(1.0, max_abs(a)));
}

TEST(FloatingBase, HeavyBaseApproachesFixedBase) {
  // A base of mass M_B (inertia scaled alike) at rest reacts to the links' forces with
  // accelerations O(m / M_B) besides falling with g, so qdd tends to the fixed-base ABA
  // of a base in free fall (gravity zero in its frame), the difference falling like
  // 1 / M_B, and vdot_B tends to g.
  Rng g(35);
  Solvers S;
  std::unique_ptr<AbaWorkspace<double>> fws = std::make_unique<AbaWorkspace<double>>();
  for (int n : {1, 7, 20}) {
    const Links L = random_tree(g, n);
    State s = random_state(g, n);
    s.v_B = zero3<double>();
    s.omega_B = zero3<double>();
    std::vector<double> ref(n);
    aba(n, L.data(), zero3<double>(), s.q.data(), s.qd.data(), s.tau.data(), ref.data(), *fws);
    const double scale = std::max(1.0, *std::max_element(ref.begin(), ref.end(), [](double x, double y) {
      return std::fabs(x) < std::fabs(y);
    }));
    double prev = 0;
    for (double M : {1e3, 1e5, 1e7}) {
      RobotBaseParams<double> base = random_base(g, M);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) base.inertia_com.m[i][j] *= M;
      const Accel a = S.spatial(L, base, s);
      double e = 0;
      for (int k = 0; k < n; ++k) e = std::max(e, std::fabs(a.qdd[k] - ref[k]));
      e /= scale;
      EXPECT_LT(norm(a.omegadot_B), 1e2 * scale / M) << "n " << n << " M " << M;
      EXPECT_LT(norm(a.vdot_B - kGravity), 1e2 * scale / M) << "n " << n << " M " << M;
      EXPECT_LT(e, 1e2 / M) << "n " << n << " M " << M;  // measured <= 8e-3 at 1e3, 2e-6 at 1e7
      if (prev > 0) {
        EXPECT_GT(prev / e, 30.0) << "rate 1/M_B: the error should fall ~100x per 100x mass, n " << n;
      }
      std::printf("n %d, M_B %.0e: qdd vs fixed base %.2e relative\n", n, M, e);
      prev = e;
    }
  }
}

TEST(FloatingBase, KinematicsVelocitiesAreTimeDerivatives) {
  // Central differences of the floating forward kinematics' poses along the motion
  // (base moving with v_B, omega_B; joints with qd) give its velocities.
  Rng g(36);
  const double h = 1e-5;
  for (int n : {1, 7, 20}) {
    const Links L = random_tree(g, n);
    const State s = random_state(g, n);
    Accel zero;
    zero.vdot_B = zero.omegadot_B = zero3<double>();
    zero.qdd.assign(n, 0.0);
    const Kin K = kinematics(L, s), Kp = kinematics(L, advance(s, zero, h)), Km = kinematics(L, advance(s, zero, -h));
    std::vector<Mat3d> Rpose(n);
    std::vector<Vec3d> op(n);
    forward_kinematics_floating(n, L.data(), s.p_B, s.quat_B, s.q.data(), Rpose.data(), op.data());
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_EQ(Rpose[k].m[i][j], K.R[k].m[i][j]);
      EXPECT_EQ(norm(op[k] - K.o[k]), 0.0);
      const Vec3d vo = (1.0 / (2 * h)) * (Kp.o[k] - Km.o[k]), vc = (1.0 / (2 * h)) * (Kp.c[k] - Km.c[k]);
      EXPECT_LT(norm(vo - K.vo[k]), 1e-8 * (1 + norm(K.vo[k])));
      EXPECT_LT(norm(vc - K.vc[k]), 1e-8 * (1 + norm(K.vc[k])));
      // omega (link frame): the skew part of R^T dR/dt.
      Mat3d dR;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) dR.m[i][j] = (Kp.R[k].m[i][j] - Km.R[k].m[i][j]) / (2 * h);
      const Mat3d W = spatial_detail::m3_mul_tn(K.R[k], dR);
      const Vec3d w{0.5 * (W.m[2][1] - W.m[1][2]), 0.5 * (W.m[0][2] - W.m[2][0]), 0.5 * (W.m[1][0] - W.m[0][1])};
      EXPECT_LT(norm(w - K.w[k]), 1e-8 * (1 + norm(K.w[k])));
    }
  }
}

TEST(FloatingBase, FloatAndSmallWorkspace) {
  // fp32 with a 7-link workspace against fp64: rounding eps_f = 6e-8 times the sums'
  // length and cond(M) (<= 1e4 here) -> 2e-3 relative, as tests/test_cga_dynamics.cpp.
  Rng g(37);
  const int n = 7;
  Solvers S;
  const Links L = random_tree(g, n);
  const RobotBaseParams<double> base = random_base(g);
  const State s = random_state(g, n);
  const Accel ref = S.spatial(L, base, s);
  std::vector<ReducedLinkParams<float>> Lf(n);
  std::vector<cga::CgaLink<float>> Cf(n);
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<double>& l = L[k];
    Lf[k] = {l.parent, l.type, cast33<float>(l.R_parent_joint), cast3<float>(l.p_parent_joint), cast3<float>(l.axis),
             float(l.mass), cast3<float>(l.com), cast33<float>(l.inertia_com), float(l.armature)};
    Cf[k] = cga::cga_link(Lf[k]);
  }
  const RobotBaseParams<float> bf{float(base.mass), cast3<float>(base.com), cast33<float>(base.inertia_com)};
  std::vector<float> q(s.q.begin(), s.q.end()), qd(s.qd.begin(), s.qd.end()), tau(s.tau.begin(), s.tau.end());
  const Quat<float> quat{float(s.quat_B.w), float(s.quat_B.x), float(s.quat_B.y), float(s.quat_B.z)};
  static AbaWorkspace<float, 7> aws;
  static cga::CgaWorkspace<float, 7> cws;
  for (int form = 0; form < 2; ++form) {
    Vec3<float> vdot, wdot;
    std::vector<float> qdd(n);
    if (form == 0)
      aba_floating(n, Lf.data(), bf, cast3<float>(kGravity), cast3<float>(s.p_B), quat, cast3<float>(s.v_B),
                   cast3<float>(s.omega_B), q.data(), qd.data(), tau.data(), vdot, wdot, qdd.data(), aws);
    else
      cga::cga_aba_floating(n, Cf.data(), bf, cast3<float>(kGravity), cast3<float>(s.p_B), quat, cast3<float>(s.v_B),
                            cast3<float>(s.omega_B), q.data(), qd.data(), tau.data(), vdot, wdot, qdd.data(), cws);
    Accel a;
    a.vdot_B = {vdot.x, vdot.y, vdot.z};
    a.omegadot_B = {wdot.x, wdot.y, wdot.z};
    a.qdd.assign(qdd.begin(), qdd.end());
    EXPECT_LT(max_diff(a, ref), 2e-3 * std::max(1.0, max_abs(ref))) << "form " << form;
  }
}

}  // namespace
}  // namespace simphant
