// Joint armature (ReducedLink::armature: a rotor inertia a_k >= 0 on the joint coordinate,
// MuJoCo's dof_armature; docs/robots.md "Armature") in the joint-space algorithms, on
// seeded random trees of 10-20 links (revolute and prismatic joints, oblique axes) with
// random armatures, fixed and floating base:
//  - CRBA's M gains exactly a_k on its diagonal and nothing elsewhere; ABA's qdd solves
//    M qdd = tau - RNEA(q, qd, 0) with that M; RNEA(ABA(tau)) = tau; RNEA's qdd term is M qdd;
//  - the CGA forms (cga_rnea, cga_aba, cga_aba_floating, on plain and precomputed links)
//    equal the spatial ones;
//  - floating base: the ABA's accelerations under two joint-force vectors differ by
//    M^-1 (0, tau_1 - tau_2) with M the kinetic-energy mass matrix of robot_mass_matrix;
//  - the kinetic energy is 1/2 nu^T M nu, fixed and floating;
//  - a mimic pair's accelerations equal the reduced Lagrangian's with that M;
//  - armature 0 adds exact zeros: bitwise the results of links built without the field;
//  - fp32 links carry it; the SIMD lanes (cpu-simd) equal the scalar backend, and the GPU
//    per-thread step run over its grid on the CPU (with the GPU's packed slots) equals
//    the CPU backend, with armatures that differ per instance;
//  - the scene key robot.armature (override, sweep, errors), solver dae's refusal, the
//    effective inertia I_k + a_k and the step-size check that uses it, and the closed
//    form qdd = tau / (I + a) of one joint through the backends.
//
// Tolerances (fp64): the recursions' rounding is a few hundred eps of the data scale,
// times cond(M) for a solve (tests/test_spatial_dynamics.cpp); the armatures (0.01-1) keep
// cond(M) at or below the rigid trees'. The measured worst cases over these trees
// (x86-64, GCC, -O3 library) are noted at each bound; 1e-12 leaves two orders of margin
// and still fails when an armature term is dropped (that changes the results by > 1e-3).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "reduced_step.hpp"
#include "robot_joint_test_data.hpp"
#include "simphant/batch/robot_pack.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/rnea.hpp"
#include "simphant/reduced/robot_dynamics.hpp"
#include "simphant/reduced/robot_kinematics.hpp"
#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/sim/robot_queries.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"

namespace simphant {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using Links = std::vector<ReducedLinkParams<double>>;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Rng = std::mt19937_64;

Mat3d random_rotation(Rng& g) {
  std::normal_distribution<double> nd(0.0, 1.0);
  return rotation(normalized(Quatd{nd(g), nd(g), nd(g), nd(g)}));
}

Vec3d random_vec(Rng& g, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return {u(g), u(g), u(g)};
}

/// SPD inertia with principal moments in [2 lo, 2 hi] that satisfy the triangle inequality.
Mat3d random_inertia(Rng& g, double lo, double hi) {
  std::uniform_real_distribution<double> mom(lo, hi);
  const double d0 = mom(g), d1 = mom(g), d2 = mom(g), dmax = std::max({d0, d1, d2});
  const Mat3d R = random_rotation(g);
  Mat3d I{};
  const double d[3] = {d0 + dmax, d1 + dmax, d2 + dmax};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int c = 0; c < 3; ++c) I.m[i][j] += R.m[i][c] * d[c] * R.m[j][c];
  return I;
}

/// A random tree of n links "l<k>" on joints "j<k>": parent uniform in [-1, k-1], about
/// one joint in three prismatic (joint n / 2 always), oblique unit axes, masses 0.5-3 kg,
/// CoM within 0.3 m; armature 0.01-1 [kg m^2 | kg] on three joints in four (every fourth
/// has none) when `armature`, else 0. Floating: a free base of 2-5 kg.
ReducedModel random_model(Rng& g, int n, bool floating, bool armature = true) {
  std::uniform_real_distribution<double> u01(0.0, 1.0), mass(0.5, 3.0), arm(0.01, 1.0);
  ReducedModel rm;
  rm.name = "tree";
  rm.base_link = "base";
  rm.gravity = {0.3, -0.2, -9.81};
  rm.floating = floating;
  for (int k = 0; k < n; ++k) {
    ReducedLink l;
    l.name = "l" + std::to_string(k);
    l.joint_name = "j" + std::to_string(k);
    l.parent = std::uniform_int_distribution<int>(-1, k - 1)(g);
    l.type = (u01(g) < 1.0 / 3.0 || k == n / 2) ? ReducedJointType::Prismatic : ReducedJointType::Revolute;
    l.R_parent_joint = random_rotation(g);
    l.p_parent_joint = random_vec(g, 0.5);
    const Vec3d a = random_vec(g, 1.0);
    l.axis = (1.0 / norm(a)) * a;
    l.mass = mass(g);
    l.com = random_vec(g, 0.3);
    l.inertia_com = random_inertia(g, 0.01, 0.1);
    l.continuous = true;
    const double a_k = arm(g);
    l.armature = armature && k % 4 != 3 ? a_k : 0.0;
    rm.links.push_back(l);
  }
  if (floating) {
    rm.base.link = "base";
    rm.base.mass = 2.0 + 3.0 * u01(g);
    rm.base.com = random_vec(g, 0.2);
    rm.base.inertia_com = random_inertia(g, 0.05, 0.5);
  }
  return rm;
}

Links params_of(const ReducedModel& rm) {
  Links L;
  for (int k = 0; k < rm.nq(); ++k) L.push_back(reduced_link_params<double>(rm, k));
  return L;
}

std::vector<cga::CgaLink<double>> cga_of(const Links& L) {
  std::vector<cga::CgaLink<double>> C;
  for (const auto& l : L) C.push_back(cga::cga_link(l));
  return C;
}

ReducedModel without_armature(ReducedModel rm) {
  for (ReducedLink& l : rm.links) l.armature = 0;
  return rm;
}

VectorXd random_vector(Rng& g, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  VectorXd x(n);
  for (int i = 0; i < n; ++i) x[i] = u(g);
  return x;
}

/// max |a - b| / max(1e-300, max |b|)
double rel(const VectorXd& a, const VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

/// The tree sizes 10..20 of the seeds.
int tree_size(int seed) { return 10 + (seed * 7) % 11; }
constexpr int kSeeds = 12;

struct Fixed {
  std::unique_ptr<RneaWorkspace<double>> rws = std::make_unique<RneaWorkspace<double>>();
  std::unique_ptr<CrbaWorkspace<double>> cws = std::make_unique<CrbaWorkspace<double>>();
  std::unique_ptr<AbaWorkspace<double>> aws = std::make_unique<AbaWorkspace<double>>();
  std::unique_ptr<cga::CgaWorkspace<double>> gws = std::make_unique<cga::CgaWorkspace<double>>();

  VectorXd aba(const Links& L, Vec3d g, const VectorXd& q, const VectorXd& qd, const VectorXd& tau) {
    VectorXd qdd(L.size());
    simphant::aba(int(L.size()), L.data(), g, q.data(), qd.data(), tau.data(), qdd.data(), *aws);
    return qdd;
  }
  VectorXd rnea(const Links& L, Vec3d g, const VectorXd& q, const VectorXd& qd, const double* qdd) {
    VectorXd tau(L.size());
    simphant::rnea(int(L.size()), L.data(), g, q.data(), qd.data(), qdd, tau.data(), *rws);
    return tau;
  }
  /// M (row-major copy) and the bias RNEA(q, qd, 0).
  RowMat crba(const Links& L, Vec3d g, const VectorXd& q, const VectorXd& qd, VectorXd& bias) {
    const int n = int(L.size());
    RowMat M(n, n);
    bias.resize(n);
    simphant::crba(n, L.data(), g, q.data(), qd.data(), M.data(), bias.data(), *cws);
    return M;
  }
  template <class Link>
  VectorXd cga_aba(const std::vector<Link>& L, Vec3d g, const VectorXd& q, const VectorXd& qd, const VectorXd& tau) {
    VectorXd qdd(L.size());
    cga::cga_aba(int(L.size()), L.data(), g, q.data(), qd.data(), tau.data(), qdd.data(), *gws);
    return qdd;
  }
  template <class Link>
  VectorXd cga_rnea(const std::vector<Link>& L, Vec3d g, const VectorXd& q, const VectorXd& qd, const double* qdd) {
    VectorXd tau(L.size());
    cga::cga_rnea(int(L.size()), L.data(), g, q.data(), qd.data(), qdd, tau.data(), *gws);
    return tau;
  }
};

// CRBA: M(a) = M(0) + diag(a) bit for bit (the armature is added once to the diagonal
// entry); ABA solves M qdd = tau - bias (measured <= 5.8e-15 relative; bound 1e-12); the
// armature changes qdd (by more than 1e-3 relative: the check can fail).
TEST(RobotArmature, FixedAbaSolvesTheCrbaSystem) {
  Fixed f;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Rng g(100 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, false);
    const Links L = params_of(rm), L0 = params_of(without_armature(rm));
    const VectorXd q = random_vector(g, n, 1.5), qd = random_vector(g, n, 1.0), tau = random_vector(g, n, 5.0);
    VectorXd bias, bias0;
    const RowMat M = f.crba(L, rm.gravity, q, qd, bias), M0 = f.crba(L0, rm.gravity, q, qd, bias0);
    EXPECT_EQ(bias, bias0) << "the bias has no armature term";
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        EXPECT_EQ(M(i, j), i == j ? M0(i, j) + rm.links[i].armature : M0(i, j))
            << "seed " << seed << " " << i << "," << j;
    const VectorXd qdd = f.aba(L, rm.gravity, q, qd, tau);
    const VectorXd ref = MatrixXd(M).llt().solve(tau - bias);
    EXPECT_LE(rel(qdd, ref), 1e-12) << "seed " << seed;
    EXPECT_GT(rel(f.aba(L0, rm.gravity, q, qd, tau), ref), 1e-3) << "the armature matters";
  }
}

// RNEA(q, qd, ABA(q, qd, tau)) = tau (measured <= 3.5e-14 relative; bound 1e-12), and
// RNEA's acceleration part RNEA(q, qd, qdd) - RNEA(q, qd, 0) = M qdd with CRBA's M
// (measured 1.9e-15); the CGA RNEA, on plain and precomputed links, equals the spatial
// one (measured 2.7e-15).
TEST(RobotArmature, RneaInvertsAba) {
  Fixed f;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Rng g(200 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, false);
    const Links L = params_of(rm);
    const auto C = cga_of(L);
    const VectorXd q = random_vector(g, n, 1.5), qd = random_vector(g, n, 1.0), tau = random_vector(g, n, 5.0);
    const VectorXd qdd = f.aba(L, rm.gravity, q, qd, tau);
    EXPECT_LE(rel(f.rnea(L, rm.gravity, q, qd, qdd.data()), tau), 1e-12) << "seed " << seed;
    const VectorXd a = random_vector(g, n, 2.0);
    VectorXd bias;
    const RowMat M = f.crba(L, rm.gravity, q, qd, bias);
    const VectorXd Ma = M * a;
    EXPECT_LE(rel(f.rnea(L, rm.gravity, q, qd, a.data()) - f.rnea(L, rm.gravity, q, qd, nullptr), Ma), 1e-12);
    const VectorXd t_spatial = f.rnea(L, rm.gravity, q, qd, a.data());
    EXPECT_LE(rel(f.cga_rnea(L, rm.gravity, q, qd, a.data()), t_spatial), 1e-12) << "seed " << seed;
    EXPECT_LE(rel(f.cga_rnea(C, rm.gravity, q, qd, a.data()), t_spatial), 1e-12) << "seed " << seed;
  }
}

struct FloatingState {
  Vec3d p_B, v_B, omega_B;
  Quatd quat_B;
  VectorXd q, qd;
};

FloatingState random_floating_state(Rng& g, int n) {
  std::normal_distribution<double> nd(0.0, 1.0);
  FloatingState s;
  s.p_B = random_vec(g, 2.0);
  s.quat_B = normalized(Quatd{nd(g), nd(g), nd(g), nd(g)});
  s.v_B = random_vec(g, 1.0);
  s.omega_B = random_vec(g, 1.0);
  s.q = random_vector(g, n, 1.5);
  s.qd = random_vector(g, n, 1.0);
  return s;
}

RobotBaseParams<double> base_of(const ReducedModel& rm) { return {rm.base.mass, rm.base.com, rm.base.inertia_com}; }

/// (vdot_B, omegadot_B, qdd) of aba_floating, or of cga_aba_floating on plain (cga 1) or
/// precomputed (cga 2) links.
VectorXd floating_accel(const ReducedModel& rm, const FloatingState& s, const VectorXd& tau, int cga = 0) {
  const int n = rm.nq();
  const Links L = params_of(rm);
  VectorXd a(n + 6);
  Vec3d vdot, omegadot;
  if (cga == 0) {
    auto ws = std::make_unique<AbaWorkspace<double>>();
    aba_floating(n, L.data(), base_of(rm), rm.gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(), s.qd.data(),
                 tau.data(), vdot, omegadot, a.data() + 6, *ws);
  } else {
    auto ws = std::make_unique<cga::CgaWorkspace<double>>();
    const auto C = cga_of(L);
    if (cga == 1)
      cga::cga_aba_floating(n, L.data(), base_of(rm), rm.gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(),
                            s.qd.data(), tau.data(), vdot, omegadot, a.data() + 6, *ws);
    else
      cga::cga_aba_floating(n, C.data(), base_of(rm), rm.gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(),
                            s.qd.data(), tau.data(), vdot, omegadot, a.data() + 6, *ws);
  }
  a.head<6>() << vdot.x, vdot.y, vdot.z, omegadot.x, omegadot.y, omegadot.z;
  return a;
}

/// A Model holding rm as its robot (what the queries and the backends read).
Model robot_model(const ReducedModel& rm, RobotSolver solver = RobotSolver::Aba) {
  auto r = std::make_shared<RobotJointSpace>();
  r->model = rm;
  const int n = rm.nq();
  r->q0.assign(static_cast<std::size_t>(n), 0.0);
  r->qd0.assign(static_cast<std::size_t>(n), 0.0);
  r->tau.assign(static_cast<std::size_t>(n), 0.0);
  r->joints.assign(static_cast<std::size_t>(n), plain_joint_params<double>());
  if (rm.floating) {
    r->base_q0 = {0, 0, 0, 1, 0, 0, 0};
    r->base_v0 = {0, 0, 0, 0, 0, 0};
  }
  r->solver = solver;
  Model m;
  m.name = rm.name;
  m.solver.dt = 1e-3;
  m.robot = r;
  return m;
}

/// robot_mass_matrix at the positions of s (floating: [p_B, quat_B, q]; fixed: q).
MatrixXd mass_matrix(const ReducedModel& rm, const FloatingState& s) {
  const int n = rm.nq(), nv = n + (rm.floating ? 6 : 0);
  std::vector<double> q;
  if (rm.floating) q = {s.p_B.x, s.p_B.y, s.p_B.z, s.quat_B.w, s.quat_B.x, s.quat_B.y, s.quat_B.z};
  for (int k = 0; k < n; ++k) q.push_back(s.q[k]);
  RowMat M(nv, nv);
  robot_mass_matrix(robot_model(rm), 1, q.data(), M.data());
  return M;
}

// Floating base: the ABA's accelerations under joint forces tau_1 and tau_2 at one state
// differ by M^-1 (0, tau_1 - tau_2), M the kinetic-energy mass matrix of robot_mass_matrix
// (Jacobians, sim/robot_queries.cpp: independent of the recursion), which gains exactly a on
// the joints' diagonal (bitwise against the same without armature); measured <= 8.8e-15
// relative, bound 1e-12. CGA (plain and precomputed links) equals the spatial form
// (measured <= 7.2e-15; bound 1e-12).
TEST(RobotArmature, FloatingAbaMatchesTheMassMatrix) {
  for (int seed = 0; seed < kSeeds; ++seed) {
    Rng g(300 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, true);
    const FloatingState s = random_floating_state(g, n);
    const VectorXd t1 = random_vector(g, n, 5.0), t2 = random_vector(g, n, 5.0);
    const MatrixXd M = mass_matrix(rm, s), M0 = mass_matrix(without_armature(rm), s);
    for (int i = 0; i < n + 6; ++i)
      for (int j = 0; j < n + 6; ++j)
        EXPECT_EQ(M(i, j), i == j && i >= 6 ? M0(i, j) + rm.links[i - 6].armature : M0(i, j));
    const VectorXd a1 = floating_accel(rm, s, t1), a2 = floating_accel(rm, s, t2);
    VectorXd dQ = VectorXd::Zero(n + 6);
    dQ.tail(n) = t1 - t2;
    const VectorXd ref = M.llt().solve(dQ);
    EXPECT_LE(rel(a1 - a2, ref), 1e-12) << "seed " << seed;
    const ReducedModel rm0 = without_armature(rm);
    EXPECT_GT(rel(floating_accel(rm0, s, t1) - floating_accel(rm0, s, t2), ref), 1e-3) << "the armature matters";
    EXPECT_LE(rel(floating_accel(rm, s, t1, 1), a1), 1e-12) << "seed " << seed;
    EXPECT_LE(rel(floating_accel(rm, s, t1, 2), a1), 1e-12) << "seed " << seed;
  }
}

// Fixed base: CGA ABA (plain and precomputed links) equals the spatial ABA (measured
// <= 7.2e-15 relative; bound 1e-12).
TEST(RobotArmature, FixedCgaEqualsSpatialAba) {
  Fixed f;
  for (int seed = 0; seed < kSeeds; ++seed) {
    Rng g(400 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, false);
    const Links L = params_of(rm);
    const VectorXd q = random_vector(g, n, 1.5), qd = random_vector(g, n, 1.0), tau = random_vector(g, n, 5.0);
    const VectorXd qdd = f.aba(L, rm.gravity, q, qd, tau);
    EXPECT_LE(rel(f.cga_aba(L, rm.gravity, q, qd, tau), qdd), 1e-12) << "seed " << seed;
    EXPECT_LE(rel(f.cga_aba(cga_of(L), rm.gravity, q, qd, tau), qdd), 1e-12) << "seed " << seed;
  }
}

/// The joint-space state y of s (robot_view.hpp's layout).
std::vector<double> state_of(const ReducedModel& rm, const FloatingState& s) {
  std::vector<double> y;
  const int n = rm.nq();
  if (rm.floating) y = {s.p_B.x, s.p_B.y, s.p_B.z, s.quat_B.w, s.quat_B.x, s.quat_B.y, s.quat_B.z};
  for (int k = 0; k < n; ++k) y.push_back(s.q[k]);
  if (rm.floating)
    for (double v : {s.v_B.x, s.v_B.y, s.v_B.z, s.omega_B.x, s.omega_B.y, s.omega_B.z}) y.push_back(v);
  for (int k = 0; k < n; ++k) y.push_back(s.qd[k]);
  return y;
}

// robot_kinetic_energy (what read_energy and the runaway bound use) = 1/2 nu^T M nu with
// robot_mass_matrix's M (CRBA fixed, Jacobians floating), armature included on both sides
// (measured <= 2.6e-15 relative; bound 1e-12), and exceeds the rigid bodies' energy by
// exactly sum 1/2 a_k qd_k^2.
TEST(RobotArmature, KineticEnergyIsHalfNuMNu) {
  for (const bool floating : {false, true})
    for (int seed = 0; seed < kSeeds; ++seed) {
      Rng g(500 + seed);
      const int n = tree_size(seed);
      const ReducedModel rm = random_model(g, n, floating);
      const FloatingState s = random_floating_state(g, n);
      const std::vector<double> y = state_of(rm, s);
      const int nv = n + (floating ? 6 : 0);
      const VectorXd nu = Eigen::Map<const VectorXd>(y.data() + y.size() - nv, nv);
      const auto energy = [&](const ReducedModel& m) {
        const Links L = params_of(m);
        const std::vector<RobotJointParams<double>> joints(n, plain_joint_params<double>());
        const RobotView<double> r{n, floating ? 1 : 0, 0, L.data(), nullptr, joints.data(), base_of(m), m.gravity};
        auto kin = std::make_unique<RobotLinkKinematics<double, kMaxReducedLinks>>();
        return robot_kinetic_energy(r, y.data(), *kin);
      };
      const double K = energy(rm), ref = 0.5 * nu.dot(mass_matrix(rm, s) * nu);
      EXPECT_NEAR(K, ref, 1e-12 * ref) << "seed " << seed << " floating " << floating;
      double armature_part = 0;
      for (int k = 0; k < n; ++k) armature_part += 0.5 * rm.links[k].armature * s.qd[k] * s.qd[k];
      EXPECT_NEAR(K - energy(without_armature(rm)), armature_part, 1e-12 * ref);
      EXPECT_GT(armature_part, 1e-3 * ref);
    }
}

// A mimic pair (joint f follows joint l, r = 1.5) with armature on both: robot_derivative's
// coupled accelerations (the unit responses reuse the ABA's D, armature included) equal the
// reduced Lagrangian (G^T M G) zdd = G^T (tau - h) with CRBA's M and RNEA's h (measured
// <= 2.5e-15 relative; bound 1e-12), aba and cga.
TEST(RobotArmature, MimicAccelerationsEqualTheReducedLagrangian) {
  for (int seed = 0; seed < 6; ++seed) {
    Rng g(600 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, false);
    const Links L = params_of(rm);
    const auto C = cga_of(L);
    const int lead = 2, fol = (n - 1) % 4 == 3 ? n - 2 : n - 1;  // both with armature
    ASSERT_GT(rm.links[fol].armature, 0.0);
    std::vector<RobotJointParams<double>> joints(n, plain_joint_params<double>());
    joints[fol].mimic = lead;
    joints[fol].mimic_multiplier = 1.5;
    joints[fol].mimic_offset = 0.1;
    VectorXd q = random_vector(g, n, 1.5), qd = random_vector(g, n, 1.0);
    const VectorXd u = random_vector(g, n, 5.0);
    q[fol] = 1.5 * q[lead] + 0.1;
    qd[fol] = 1.5 * qd[lead];
    std::vector<double> y(2 * n);
    for (int k = 0; k < n; ++k) y[k] = q[k], y[n + k] = qd[k];
    Fixed f;
    VectorXd h;
    const MatrixXd M = f.crba(L, rm.gravity, q, qd, h);
    MatrixXd G = MatrixXd::Zero(n, n - 1);
    for (int k = 0, c = 0; k < n; ++k)
      if (k != fol) G(k, c++) = 1;
    G(fol, lead < fol ? lead : lead - 1) = 1.5;
    const VectorXd zdd = (G.transpose() * M * G).ldlt().solve(G.transpose() * (u - h));
    const VectorXd qdd_ref = G * zdd;
    for (int use_cga : {0, 1}) {
      const RobotView<double> r{n, 0, use_cga, L.data(), C.data(), joints.data(), {}, rm.gravity};
      auto ws = std::make_unique<RobotWorkspace<double>>();
      std::vector<double> ydot(2 * n);
      robot_derivative(r, y.data(), u.data(), ydot.data(), *ws);
      const VectorXd qdd = Eigen::Map<const VectorXd>(ydot.data() + n, n);
      EXPECT_LE(rel(qdd, qdd_ref), 1e-12) << "seed " << seed << " cga " << use_cga;
    }
  }
}

// Armature 0 adds exact zeros: links whose armature is 0 give bit for bit the results of
// the same links built without the field (value-initialised, as every caller built them
// before it existed), for ABA, CRBA, RNEA, CGA and the floating ABA; and the ReducedModel
// default is 0.
TEST(RobotArmature, ZeroArmatureAddsExactZeros) {
  EXPECT_EQ(ReducedLink{}.armature, 0.0);
  Fixed f;
  for (const bool floating : {false, true})
    for (int seed = 0; seed < 4; ++seed) {
      Rng g(700 + seed);
      const int n = tree_size(seed);
      const ReducedModel rm = without_armature(random_model(g, n, floating));
      const Links L = params_of(rm);
      Links B(n);  // built field by field, armature value-initialised
      for (int k = 0; k < n; ++k) {
        ReducedLinkParams<double> b{};
        b.parent = L[k].parent;
        b.type = L[k].type;
        b.R_parent_joint = L[k].R_parent_joint;
        b.p_parent_joint = L[k].p_parent_joint;
        b.axis = L[k].axis;
        b.mass = L[k].mass;
        b.com = L[k].com;
        b.inertia_com = L[k].inertia_com;
        B[k] = b;
      }
      const FloatingState s = random_floating_state(g, n);
      const VectorXd tau = random_vector(g, n, 5.0), a = random_vector(g, n, 2.0);
      if (floating) {
        auto ws = std::make_unique<AbaWorkspace<double>>();
        VectorXd x(n), z(n);
        Vec3d v1, w1, v2, w2;
        aba_floating(n, L.data(), base_of(rm), rm.gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(), s.qd.data(),
                     tau.data(), v1, w1, x.data(), *ws);
        aba_floating(n, B.data(), base_of(rm), rm.gravity, s.p_B, s.quat_B, s.v_B, s.omega_B, s.q.data(), s.qd.data(),
                     tau.data(), v2, w2, z.data(), *ws);
        EXPECT_EQ(x, z);
        EXPECT_EQ(v1.x, v2.x);
        EXPECT_EQ(w1.z, w2.z);
        continue;
      }
      EXPECT_EQ(f.aba(L, rm.gravity, s.q, s.qd, tau), f.aba(B, rm.gravity, s.q, s.qd, tau));
      EXPECT_EQ(f.rnea(L, rm.gravity, s.q, s.qd, a.data()), f.rnea(B, rm.gravity, s.q, s.qd, a.data()));
      EXPECT_EQ(f.cga_aba(L, rm.gravity, s.q, s.qd, tau), f.cga_aba(B, rm.gravity, s.q, s.qd, tau));
      EXPECT_EQ(f.cga_rnea(cga_of(L), rm.gravity, s.q, s.qd, a.data()),
                f.cga_rnea(cga_of(B), rm.gravity, s.q, s.qd, a.data()));
      VectorXd b1, b2;
      EXPECT_EQ(f.crba(L, rm.gravity, s.q, s.qd, b1), f.crba(B, rm.gravity, s.q, s.qd, b2));
    }
}

// fp32 (the GPU's fp32 backend): reduced_link_params<float> carries the armature, and
// aba<float> follows aba<double> (measured <= 1.7e-6 relative; bound 1e-4) on trees where
// dropping the armature changes qdd by more than 1e-2.
TEST(RobotArmature, Fp32LinksCarryTheArmature) {
  Fixed f;
  for (int seed = 0; seed < 4; ++seed) {
    Rng g(800 + seed);
    const int n = tree_size(seed);
    const ReducedModel rm = random_model(g, n, false);
    std::vector<ReducedLinkParams<float>> Lf;
    for (int k = 0; k < n; ++k) {
      Lf.push_back(reduced_link_params<float>(rm, k));
      EXPECT_EQ(Lf.back().armature, static_cast<float>(rm.links[k].armature));
    }
    const VectorXd q = random_vector(g, n, 1.5), qd = random_vector(g, n, 1.0), tau = random_vector(g, n, 5.0);
    const VectorXd qdd = f.aba(params_of(rm), rm.gravity, q, qd, tau);
    const Eigen::VectorXf qf = q.cast<float>(), qdf = qd.cast<float>(), tf = tau.cast<float>();
    Eigen::VectorXf out(n);
    auto ws = std::make_unique<AbaWorkspace<float>>();
    aba(n, Lf.data(), cast3<float>(rm.gravity), qf.data(), qdf.data(), tf.data(), out.data(), *ws);
    EXPECT_LE(rel(out.cast<double>(), qdd), 1e-4) << "seed " << seed;
    EXPECT_GT(rel(f.aba(params_of(without_armature(rm)), rm.gravity, q, qd, tau), qdd), 1e-2);
  }
}

// ---- the batched paths -------------------------------------------------------------

/// I instances of a random 12-link tree that differ in state, inputs and armature
/// (instance i: armature (1 + 0.15 i) a_k; a_k = 0 on every fourth joint).
std::vector<Model> armature_instances(bool floating, RobotSolver solver, int I, bool armature = true) {
  Rng g(floating ? 901 : 900);
  const int n = 12;
  const ReducedModel rm = random_model(g, n, floating, armature);
  std::vector<Model> out;
  for (int i = 0; i < I; ++i) {
    ReducedModel mi = rm;
    for (ReducedLink& l : mi.links) l.armature *= 1.0 + 0.15 * i;
    Model m = robot_model(mi, solver);
    auto r = std::make_shared<RobotJointSpace>(*m.robot);
    for (int k = 0; k < n; ++k) {
      r->q0[k] = 0.3 * std::sin(1.7 * k + i);
      r->qd0[k] = 0.5 * std::cos(0.9 * k + 2 * i);
      r->tau[k] = 2.0 * std::sin(2.3 * k - i);
      r->joints[k].damping = 0.05 * (i % 3);
    }
    if (floating) {
      r->base_q0[2] = 0.01 * i;
      r->base_v0[0] = 0.02 * i;
      r->base_v0[5] = -0.04 * i;
    }
    m.robot = r;
    out.push_back(m);
  }
  return out;
}

std::vector<double> backend_run(const std::vector<Model>& models, bool lanes, int steps) {
  const int I = static_cast<int>(models.size());
  ReducedBackend b(std::make_shared<const std::vector<Model>>(models), I, 1, lanes);
  EXPECT_EQ(b.lanes(), lanes);
  b.advance(steps);
  std::vector<double> y(static_cast<std::size_t>(I) * b.state_size());
  std::vector<std::int8_t> status(I);
  b.get_state(nullptr, I, y.data(), nullptr, status.data(), nullptr, nullptr);
  for (int i = 0; i < I; ++i) EXPECT_EQ(status[i], 0) << "instance " << i;
  return y;
}

/// max |a - b| / max(1, max |a|)
double rel_state(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 1, err = 0;
  for (std::size_t e = 0; e < a.size(); ++e) {
    scale = std::max(scale, std::abs(a[e]));
    err = std::max(err, std::abs(a[e] - b[e]));
  }
  return err / scale;
}

// The cpu-simd form (8 instances per group of lanes; 11 instances: a full group and a
// padded one) equals the scalar form after 300 RK4 steps with armatures that differ per
// instance (round-off bound 1e-12 of tests/test_reduced_lanes.cpp; measured <= 5.9e-16); the
// armature changes the trajectory by more than 1e-3 (so a lane reading another value fails).
TEST(RobotArmature, LanesEqualScalar) {
  for (const bool floating : {false, true})
    for (const RobotSolver solver : {RobotSolver::Aba, RobotSolver::Cga}) {
      SCOPED_TRACE(std::string(floating ? "floating " : "fixed ") + robot_solver_name(solver));
      const std::vector<Model> models = armature_instances(floating, solver, 11);
      const std::vector<double> scalar = backend_run(models, false, 300), lanes = backend_run(models, true, 300);
      EXPECT_LE(rel_state(scalar, lanes), 1e-12);
      for (double v : lanes) ASSERT_TRUE(std::isfinite(v));
      EXPECT_GT(rel_state(scalar, backend_run(armature_instances(floating, solver, 11, false), false, 300)), 1e-3);
    }
}

/// The GPU backend's route on the CPU: the models packed as its slots (batch::RobotSlots,
/// what host/cuda_reduced_backend.cu uploads), structure-of-arrays state, the per-thread
/// reset and advance over a whole grid (CpuGridExec: threads past the end run too) with the
/// capacity the GPU picks; returns the state row-major after `steps` steps.
template <int Cap>
std::vector<double> grid_run(const std::vector<Model>& models, int steps) {
  const Model& m0 = models.front();
  const int I = static_cast<int>(models.size()), n = m0.robot->n(), floating = m0.robot->model.floating ? 1 : 0;
  batch::RobotSlots<double> slots;
  slots.resize(n, floating, I);
  for (int i = 0; i < I; ++i) slots.write(i, models[i]);
  const int N = slots.ny;
  std::vector<double> Y(static_cast<std::size_t>(I) * N, std::nan("")), U(static_cast<std::size_t>(I) * n);
  for (int i = 0; i < I; ++i)
    for (int k = 0; k < n; ++k) U[static_cast<std::size_t>(k) * I + i] = models[i].robot->tau[k];
  std::vector<std::int8_t> status(I, 7), reason(I, 7);
  std::vector<std::int64_t> status_step(I, -1), offset(I, -1);
  batch::ReducedBatchView<double> b{};
  b.n_instances = I;
  slots.point(b);
  b.floating = floating;
  b.use_cga = m0.robot->solver == RobotSolver::Cga;
  b.integrator = static_cast<int>(m0.solver.integrator);
  b.dt = m0.solver.dt;
  b.Y = batch::structure_of_arrays(Y.data(), I);
  b.U = batch::structure_of_arrays(static_cast<const double*>(U.data()), I);
  b.status = status.data();
  b.status_step = status_step.data();
  b.reason = reason.data();
  b.offset = offset.data();
  test::CpuGridExec<double> exec;
  exec.launch("reset", I, [&](int tid) { batch::reduced_reset_thread(tid, b, nullptr, I, 0); });
  auto ws = std::make_unique<batch::ReducedStepWorkspace<double, Cap>>();
  exec.launch("advance", I, [&](int tid) { batch::reduced_advance_thread(tid, b, 0, steps, *ws); });
  for (int i = 0; i < I; ++i) EXPECT_EQ(status[i], 0);
  std::vector<double> rows(Y.size());
  for (int i = 0; i < I; ++i)
    for (int e = 0; e < N; ++e) rows[static_cast<std::size_t>(i) * N + e] = Y[static_cast<std::size_t>(e) * I + i];
  return rows;
}

// The GPU per-thread step over its grid on the CPU, from the packed slots, equals the CPU
// backend (the same arithmetic: bound 1e-12 as tests/test_reduced_step_grid.cpp; measured 0),
// and the slots hold each instance's armature.
TEST(RobotArmature, GpuGridOnTheCpuEqualsBackend) {
  for (const bool floating : {false, true})
    for (const RobotSolver solver : {RobotSolver::Aba, RobotSolver::Cga}) {
      SCOPED_TRACE(std::string(floating ? "floating " : "fixed ") + robot_solver_name(solver));
      const std::vector<Model> models = armature_instances(floating, solver, 3);
      ASSERT_EQ(batch::reduced_capacity(12), 16);
      batch::RobotSlots<float> f32;
      f32.resize(12, floating, 3);
      f32.write(2, models[2]);
      EXPECT_EQ(f32.links[2 * 12].armature, static_cast<float>(models[2].robot->model.links[0].armature));
      EXPECT_EQ(f32.cga_links[2 * 12 + 1].armature, static_cast<float>(models[2].robot->model.links[1].armature));
      EXPECT_GT(f32.links[2 * 12].armature, 0.0f);
      EXPECT_LE(rel_state(backend_run(models, false, 500), grid_run<16>(models, 500)), 1e-12);
    }
}

// ---- scene, DAE, effective inertia and the step-size check --------------------------

using namespace robot_test;
using nlohmann::json;

// robot.armature sets a joint's value over the file's (URDF: none), is sweepable like every
// robot number, and its errors name the JSON pointer.
TEST(RobotArmature, SceneKeyOverridesSweepsAndNamesErrors) {
  TempDir t;
  json d = planar_doc(t.planar());
  d["robot"]["armature"] = {{"j2", 0.05}};
  {
    const Scene s = parse_scene(d.dump());
    EXPECT_EQ(s.model.robot->model.links[0].armature, 0.0);
    EXPECT_EQ(s.model.robot->model.links[1].armature, 0.05);
  }
  d["sweep"] = {{"mode", "grid"},
                {"parameters", {{{"path", "robot.armature.j2"}, {"dist", "list"}, {"values", {0.0, 0.2, 1.5}}}}}};
  {
    const Scene s = parse_scene(d.dump());
    const SweepSamples samples = sample_sweep(s.sweep);
    const std::vector<Model> models = build_instance_models(s, samples);
    ASSERT_EQ(models.size(), 3u);
    for (std::size_t i = 0; i < models.size(); ++i)
      EXPECT_EQ(models[i].robot->model.links[1].armature, samples.values[0][i]);
    // A heavier rotor: a larger effective inertia bound for j2.
    EXPECT_GT(models[2].robot->effective_inertia[1], models[0].robot->effective_inertia[1] + 1.0);
  }
  d.erase("sweep");
  std::string what;
  d["robot"]["armature"] = {{"jx", 0.1}};
  EXPECT_EQ(error_path(d, &what), "/robot/armature/jx");
  EXPECT_NE(what.find("unknown joint 'jx' (moving joints: j1, j2)"), std::string::npos) << what;
  d["robot"]["armature"] = {{"j1", -0.1}};
  EXPECT_EQ(error_path(d, &what), "/robot/armature/j1");
  EXPECT_NE(what.find("must be >= 0"), std::string::npos) << what;
  d["robot"]["armature"] = {{"j1", "big"}};
  EXPECT_EQ(error_path(d, &what), "/robot/armature/j1");
  d["robot"]["armature"] = json::array({0.1, 0.2});
  EXPECT_EQ(error_path(d, &what), "/robot/armature");
}

// Solver dae (maximal coordinates) has no coordinate for a rotor inertia: a robot with
// armature > 0 is refused at compile, naming the joint, the value and the way out, at the
// key that set it; armature 0 compiles; aba and cga accept it.
TEST(RobotArmature, DaeRefusesArmature) {
  TempDir t;
  json d = planar_doc(t.planar(), "dae");
  d["robot"]["armature"] = {{"j1", 0.0}, {"j2", 0.05}};
  std::string what;
  EXPECT_EQ(error_path(d, &what), "/robot/armature/j2");
  EXPECT_NE(what.find("robot joint 'j2': armature 0.05 kg m^2 (a rotor inertia on the joint coordinate) is not "
                      "supported by solver 'dae' (maximal coordinates); use solver 'aba' or 'cga'"),
            std::string::npos)
      << what;
  d["robot"]["armature"] = {{"j2", 0.0}};
  EXPECT_EQ(error_path(d), "");
  for (const char* solver : {"aba", "cga"}) {
    d["solver"]["type"] = solver;
    d["robot"]["armature"] = {{"j2", 0.05}};
    EXPECT_EQ(error_path(d), "") << solver;
  }
  // A value from the robot file (an MJCF <joint armature>): named at the file's key;
  // robot.armature 0 replaces it, and aba / cga run it.
  const std::string mjcf = (t.dir / "rotor.xml").string();
  std::ofstream(mjcf) << R"(<mujoco model="rotor"><worldbody><body name="disc">
    <joint name="spin" type="hinge" axis="0 0 1" armature="0.25"/>
    <inertial pos="0 0 0" mass="0.1" diaginertia="1e-3 1e-3 1e-3"/></body></worldbody></mujoco>)";
  json m;
  m["name"] = "rotor";
  m["robot"] = {{"mjcf", mjcf}};
  m["solver"] = {{"type", "dae"}, {"dt", 1e-3}, {"t_end", 0.01}};
  EXPECT_EQ(error_path(m, &what), "/robot/mjcf");
  EXPECT_NE(what.find("robot joint 'spin': armature 0.25 kg m^2"), std::string::npos) << what;
  m["robot"]["armature"] = {{"spin", 0.0}};
  EXPECT_EQ(error_path(m, &what), "") << what;
  m["robot"].erase("armature");
  m["solver"]["type"] = "aba";
  EXPECT_EQ(parse_scene(m.dump()).model.robot->model.links[0].armature, 0.25);
  // The message names the joint, and kg for a prismatic one.
  ReducedModel rm;
  rm.links.resize(2);
  rm.links[0].joint_name = "hinge";
  rm.links[1].joint_name = "slider";
  rm.links[1].type = ReducedJointType::Prismatic;
  EXPECT_EQ(dae_armature_error(rm), "");
  rm.links[1].armature = 2;
  EXPECT_EQ(dae_armature_error(rm),
            "robot joint 'slider': armature 2 kg (a rotor inertia on the joint coordinate) is not supported by solver "
            "'dae' (maximal coordinates); use solver 'aba' or 'cga'");
}

// The effective inertia I_k = 1 / (M^-1)_kk is a Schur complement of M_kk, so an armature
// a on joint k alone raises it by exactly a, fixed and floating base (measured <= 1.4e-16
// relative; bound 1e-13).
TEST(RobotArmature, EffectiveInertiaGainsTheArmature) {
  TempDir t;
  for (const bool floating : {false, true}) {
    json d = floating ? planar_doc(t.flyer()) : planar_doc(t.planar());
    if (floating) d["robot"].erase("q0");
    const ReducedModel rm = parse_scene(d.dump()).model.robot->model;
    const int n = rm.nq();
    const std::vector<double> q(static_cast<std::size_t>(n), 0.4);
    const std::vector<double> I0 = joint_effective_inertia(rm, q);
    for (int k = 0; k < n; ++k) {
      ReducedModel with = rm;
      with.links[static_cast<std::size_t>(k)].armature = 0.37;
      const double I = joint_effective_inertia(with, q)[static_cast<std::size_t>(k)];
      EXPECT_NEAR(I, I0[static_cast<std::size_t>(k)] + 0.37, 1e-13 * I) << "joint " << k << " floating " << floating;
    }
  }
}

// One vertical revolute joint (no gravity torque) whose link has a tiny inertia I = 1e-6
// kg m^2 and URDF damping d = 2 N m s/rad: its mode p = d / I_eff. Without armature
// |lambda| dt = 2000 at dt = 1 ms and the step-size check refuses it (rightly); with an
// armature a = 0.01 kg m^2 the joint's inertia is I + a, |lambda| dt = d dt / (I + a) = 0.2,
// and the check passes. The backends then turn it with qdd = (tau - d qd) / (I + a).
TEST(RobotArmature, StepSizeCheckAndDynamicsUseTheArmature) {
  TempDir t;
  const std::string file = (t.dir / "rotor.urdf").string();
  std::ofstream(file) << R"(<robot name="rotor"><link name="base"/>
    <link name="disc"><inertial><mass value="0.001"/>
      <inertia ixx="1e-6" ixy="0" ixz="0" iyy="1e-6" iyz="0" izz="1e-6"/></inertial></link>
    <joint name="spin" type="continuous"><parent link="base"/><child link="disc"/><axis xyz="0 0 1"/>
      <dynamics damping="2"/></joint></robot>)";
  json d;
  d["name"] = "rotor";
  d["robot"] = {{"urdf", file}, {"tau", {0.5}}};
  d["solver"] = {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 0.1}};
  {
    const Scene s = parse_scene(d.dump());
    const StabilityCheck c = check_step_stability({s.model}, d);
    EXPECT_EQ(c.refused_field, "/robot/urdf") << c.estimate.dump();
  }
  const double I = 1e-6, a = 0.01, damping = 2, tau = 0.5;
  d["robot"]["armature"] = {{"spin", a}};
  for (const char* solver : {"aba", "cga"}) {
    d["solver"]["type"] = solver;
    const Scene s = parse_scene(d.dump());
    EXPECT_NEAR(s.model.robot->effective_inertia[0], I + a, 1e-12 * (I + a));
    const StabilityCheck c = check_step_stability({s.model}, d);
    EXPECT_TRUE(c.refused_field.empty()) << c.refused_reason;
    const json& mode = c.estimate.at("modes").at(0);
    EXPECT_NEAR(mode.at("lambda_dt").get<double>(), damping * 1e-3 / (I + a), 1e-9);
    EXPECT_NEAR(mode.at("effective_inverse_mass").get<double>(), 1 / (I + a), 1e-9 / (I + a));
    // qd(t) = (tau / d) (1 - exp(-d t / (I + a))) after 100 RK4 steps of h lambda = -0.2
    // (RK4's error in exp(h lambda) ~ 3e-6 per step, and the mode has decayed by e^-20:
    // measured 6.5e-13 relative; bound 1e-9), scalar and lanes.
    const double T = 0.1, qd_ref = tau / damping * (1 - std::exp(-damping * T / (I + a)));
    for (const bool lanes : {false, true}) {
      const std::vector<Model> models(9, s.model);
      ReducedBackend b(std::make_shared<const std::vector<Model>>(models), 9, 1, lanes);
      b.advance(100);
      std::vector<double> y(static_cast<std::size_t>(9) * b.state_size());
      b.get_state(nullptr, 9, y.data(), nullptr, nullptr, nullptr, nullptr);
      EXPECT_NEAR(y[1], qd_ref, 1e-9 * qd_ref) << solver << " lanes " << lanes;
      EXPECT_EQ(y[1], y[8 * 2 + 1]);
      std::vector<double> energy(9), kinetic(9);
      b.read_energy(energy.data(), kinetic.data());
      EXPECT_NEAR(kinetic[0], 0.5 * (I + a) * y[1] * y[1], 1e-12 * kinetic[0]);
    }
  }
}

}  // namespace
}  // namespace simphant
