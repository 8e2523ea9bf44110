// The refined regularised Schur solve and its pivot recovery (docs/solver.md, "The refined
// regularised solve"; simphant/dynamics/refined_solve.hpp), against independent
// references:
//  * a planar four-bar built from four spatial revolutes (3 redundant rows) whose bodies
//    have an out-of-plane inertia down to 1e-9 kg m^2: its accelerations and multipliers
//    against the Jacobi-scaled KKT system solved by an SVD pseudo-inverse (the
//    minimum-norm solution is the consistent one), and its motion against its
//    non-redundant twin (the same loop closed by a spherical and a cylindrical joint,
//    17 independent rows);
//  * the same loop without regularisation (eps = 0), which only the pivot recovery keeps
//    running, on the CPU path and through the per-thread functions of the cuda and
//    cuda-fused paths (CPU grid emulation);
//  * the heavy top's energy error, which must fall as RK4's dt^4 down to round-off at the
//    default eps and at eps = 1e-6 (no regularisation bias).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "cpu_grid_exec.hpp"
#include "host_batch.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

using nlohmann::json;

// Grashof crank-rocker in the x-y plane, joint axes z, gravity -y: ground pivots O = 0
// and D = (0.5, 0), crank 0.1 m (at 90 deg), coupler 0.45 m, rocker 0.3 m; the loop
// closes at C (circle intersection, 15 digits). Every body has the inertia of a slender
// rod about its own x axis, I_xx = i_out (an out-of-plane axis: rotations about it tilt
// the body out of the plane), and I_yy = I_zz = m L^2 / 12. redundant: the four
// revolutes (20 rows, rank 17); else the twin: coupler-rocker spherical, rocker-ground
// cylindrical along z (17 rows, the same motion: the rocker's out-of-plane translation is
// fixed through the spherical joint by the planar coupler, its out-of-plane rotations by
// the cylinder). eps < 0: the default tikhonov_epsilon.
Model four_bar(double i_out, bool redundant, double eps = -1, int refinement_steps = -1) {
  const double Cx = 0.409718623938894, Cy = 0.286093119694468;
  auto body = [&](const char* name, double m, double L, double x, double y) {
    return json{{"name", name},
                {"mass", m},
                {"inertia", {i_out, m * L * L / 12, m * L * L / 12}},
                {"position", {x, y, 0.0}},
                {"angular_velocity", std::string(name) == "crank" ? json{0.0, 0.0, 3.0} : json{0.0, 0.0, 0.0}}};
  };
  auto joint = [](const char* name, const char* type, const char* bi, const char* bj, double x, double y) {
    return json{{"name", name},
                {"type", type},
                {"body_i", bi},
                {"body_j", bj},
                {"frame", {{"origin", {x, y, 0.0}}, {"z", {0.0, 0.0, 1.0}}, {"x", {1.0, 0.0, 0.0}}}}};
  };
  json doc;
  doc["gravity"] = {0.0, -9.81, 0.0};
  doc["bodies"] = {body("crank", 0.15, 0.1, 0.0, 0.05), body("coupler", 0.675, 0.45, (0.0 + Cx) / 2, (0.1 + Cy) / 2),
                   body("rocker", 0.45, 0.3, (0.5 + Cx) / 2, Cy / 2)};
  doc["joints"] = {joint("crank_pivot", "revolute", "ground", "crank", 0, 0),
                   joint("crank_coupler", "revolute", "crank", "coupler", 0, 0.1),
                   joint("coupler_rocker", redundant ? "revolute" : "spherical", "coupler", "rocker", Cx, Cy),
                   joint("rocker_pivot", redundant ? "revolute" : "cylindrical", "ground", "rocker", 0.5, 0)};
  doc["solver"] = {{"dt", 1e-3}, {"t_end", 1.0}};
  if (eps >= 0) doc["solver"]["tikhonov_epsilon"] = eps;
  if (refinement_steps >= 0) doc["solver"]["refinement_steps"] = refinement_steps;
  return parse_scene(doc.dump()).model;
}

// Symmetric inverse square root of an SPD matrix.
Eigen::MatrixXd inv_sqrt(const Eigen::MatrixXd& A) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).operatorInverseSqrt();
}

// The reference at d.kin: [M Phi_q^T; Phi_q 0] [qddot; lambda] = [Q; gamma*] in the
// coordinates x = M^1/2 qddot, y = D^1/2 lambda (D = diag(Phi_q M^-1 Phi_q^T)), where
// the KKT matrix [I A^T; A 0], A = D^-1/2 Phi_q M^-1/2, has unit-norm constraint rows,
// solved by an SVD pseudo-inverse (singular values below 1e-10 of the largest dropped:
// the redundant rows give exact zeros up to round-off). qddot is unique; the minimum
// ||y|| is the minimum lambda^T D lambda, the solution the refined solve converges to
// (refined_solve.hpp: E = eps D).
struct KktReference {
  Eigen::VectorXd qddot, lambda;
};
KktReference kkt_reference(const Model& m, const double* Y) {
  Data ref(m, SchurFactorization::Dense);
  set_kinematics(m, ref, Y);
  compute_forces(m, ref, 0.0, nullptr);
  evaluate_constraints(m, ref, 0.0);
  assemble_jacobian(m, ref);
  const int n = m.nv(), k = m.n_rows;
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < m.n_bodies(); ++b) {
    M.block<3, 3>(6 * b, 6 * b) = m.bodies[b].mass * Eigen::Matrix3d::Identity();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) M(6 * b + 3 + r, 6 * b + 3 + c) = m.bodies[b].inertia_B.m[r][c];
  }
  const Eigen::MatrixXd Mis = inv_sqrt(M);
  const Eigen::VectorXd Dd = (ref.Phi_q * M.inverse() * ref.Phi_q.transpose()).diagonal();
  const Eigen::VectorXd Dis = Dd.cwiseSqrt().cwiseInverse();
  const Eigen::MatrixXd A = Dis.asDiagonal() * ref.Phi_q * Mis;
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + k, n + k);
  K.topLeftCorner(n, n) = Eigen::MatrixXd::Identity(n, n);
  K.topRightCorner(n, k) = A.transpose();
  K.bottomLeftCorner(k, n) = A;
  Eigen::VectorXd b(n + k);
  b << Mis * ref.Q, Dis.asDiagonal() * ref.gamma_star;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(K, Eigen::ComputeFullU | Eigen::ComputeFullV);
  svd.setThreshold(1e-10);
  const Eigen::VectorXd x = svd.solve(b);
  return {Mis * x.head(n), Dis.asDiagonal() * x.tail(k)};
}

double max_rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// An assembled state of the four-bar (assembly.hpp; Newton to 1e-10 and the velocity
// projection).
std::vector<double> assembled_state(const Model& m) {
  Data d(m, SchurFactorization::Dense);
  std::vector<double> Y(m.ny());
  initial_state(m, Y.data());
  EXPECT_TRUE(assemble(m, d, Y.data()).ok);
  return Y;
}

// One evaluation of the redundant loop, out-of-plane inertias 1e-6 and 1e-9 kg m^2 (C's
// diagonal spans 1 .. 1e9), dense and sparse paths, default eps and eps = 0, against the
// scaled KKT pseudo-inverse: qddot to 1e-12 of its scale (measured 6e-15), lambda to
// 1e-9 (measured 1.1e-12: lambda is the reference's minimum lambda^T D lambda up to a
// drift along C's null space of the round-off of the residual over E per step). eps = 0 makes C singular to round-off: the factorisation must
// reject a pivot and recover (counted), the default eps must not need to.
TEST(RefinedSolve, RedundantLoopMatchesScaledKktPseudoInverse) {
  for (double i_out : {1e-6, 1e-9})
    for (double eps : {1e-10, 0.0})
      for (SchurFactorization schur : {SchurFactorization::Dense, SchurFactorization::Sparse}) {
        const Model m = four_bar(i_out, true, eps);
        const std::vector<double> Y = assembled_state(m);
        Data d(m, schur);
        std::vector<double> Yd(m.ny());
        ASSERT_TRUE(evaluate(m, d, 0.0, Y.data(), nullptr, Yd.data())) << "i_out " << i_out << " eps " << eps;
        const KktReference ref = kkt_reference(m, Y.data());
        const double e_qdd = max_rel(d.qddot, ref.qddot), e_lambda = max_rel(d.lambda, ref.lambda);
        std::printf("  i_out %.0e eps %.0e %s: |qddot - ref| %.2e, |lambda - ref| %.2e (relative), recoveries %lld\n",
                    i_out, eps, schur == SchurFactorization::Dense ? "dense " : "sparse", e_qdd, e_lambda,
                    d.factorisation_recoveries);
        EXPECT_LT(e_qdd, 1e-12);
        EXPECT_LT(e_lambda, 1e-9);
        EXPECT_EQ(d.factorisation_recoveries > 0, eps == 0.0);
      }
}

// The redundant loop runs and follows its non-redundant twin: 1000 steps (1 s) from the
// same assembled state, every out-of-plane inertia from 1e-6 down to 1e-9 kg m^2, at the
// default eps and, through the pivot recovery alone, at eps = 0. The two DAEs have the
// same solution; their Baumgarte terms act on different row sets, so they differ by the
// drift off the constraint manifold and by round-off: bound 1e-10 on positions [m] and
// quaternions (measured 3e-13 and below).
TEST(RefinedSolve, RedundantLoopWithLightBodiesFollowsItsTwin) {
  for (double i_out : {1e-6, 1e-7, 1e-8, 1e-9})
    for (double eps : {1e-10, 0.0}) {
      const Model loop = four_bar(i_out, true, eps), twin = four_bar(i_out, false, eps);
      ASSERT_EQ(loop.n_rows, 20);
      ASSERT_EQ(twin.n_rows, 17);
      std::vector<double> Yl = assembled_state(loop), Yt = assembled_state(twin);
      Data dl(loop), dt(twin);
      double worst = 0;
      for (int s = 0; s < 1000; ++s) {
        ASSERT_TRUE(rk4_step(loop, dl, s * loop.solver.dt, Yl.data(), nullptr, loop.solver.dt)) << "i_out " << i_out << " step " << s;
        ASSERT_TRUE(rk4_step(twin, dt, s * twin.solver.dt, Yt.data(), nullptr, twin.solver.dt));
      }
      for (int e = 0; e < 7 * loop.n_bodies(); ++e) worst = std::max(worst, std::fabs(Yl[e] - Yt[e]));
      std::printf("  i_out %.0e eps %.0e: max |q_loop - q_twin| after 1 s %.2e, recoveries %lld\n", i_out, eps, worst,
                  dl.factorisation_recoveries);
      EXPECT_LT(worst, 1e-10) << "i_out " << i_out << " eps " << eps;
      if (eps == 0.0) {
        EXPECT_GT(dl.factorisation_recoveries, 0);
      }
      // The crank turned: the comparison is of a moving mechanism.
      EXPECT_GT(std::fabs(Yl[7 * loop.n_bodies() + 5]), 0.1);
    }
}

// The per-thread functions of the cuda path (potrf, recover_thread, refinement kernels)
// and of the cuda-fused path (fused_solve_thread) on the redundant loop with 1e-9 kg m^2
// out-of-plane inertias, run over the CPU grid: at eps = 0 every instance's
// factorisation is recovered (b.recoveries) and the accelerations equal the CPU
// reference's to 1e-9 relative; at the default eps and at eps = 1e-6 (where an
// unrefined solve would be off by about 1e-6 cond(C)) nothing is recovered and they
// agree as closely.
TEST(RefinedSolve, BatchedPathsRecoverAndRefineLikeTheCpu) {
  const int n = 3;
  for (bool fused : {false, true})
    for (double eps : {1e-10, 1e-6, 0.0}) {
      const std::vector<Model> models = {four_bar(1e-9, true, eps)};
      const AssembledBatch asm_batch = assemble_batch(models, n, 1);
      test::HostBatch<double> hb(models, n, asm_batch, fused);
      test::CpuGridExec<double> x;
      hb.solve(x, hb.b.Y);
      batch::enqueue_accelerations(x, hb.mv, hb.b, hb.b.Y, hb.b.k[0]);
      const Model& m = models.front();
      for (int i = 0; i < n; ++i) {
        Data d(m, fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
        std::vector<double> ydot(m.ny());
        ASSERT_TRUE(evaluate(m, d, 0.0, asm_batch.Y.data() + static_cast<std::size_t>(i) * m.ny(), nullptr, ydot.data()));
        EXPECT_EQ(hb.info[i], 0);
        EXPECT_EQ(hb.fail[i], 0);
        EXPECT_EQ(hb.recoveries[i] > 0, eps == 0.0) << (fused ? "fused" : "cuda");
        double worst = 0, scale = 1;
        for (int e = 7 * m.n_bodies(); e < 13 * m.n_bodies(); ++e) scale = std::max(scale, std::fabs(ydot[e]));
        for (int e = 0; e < 13 * m.n_bodies(); ++e) worst = std::max(worst, std::fabs(hb.at(hb.k[0], e, n, i) - ydot[e]));
        EXPECT_LT(worst, 1e-9 * scale) << (fused ? "fused" : "cuda") << " eps " << eps;
      }
    }
}

// Total energy error of the heavy top (examples/spinning_top.json: 0.5 kg, 1200 rpm; a
// spherical joint to the ground, so C is 3 x 3) after 0.25 s from its assembled state.
double top_energy_error(double eps, int refinement_steps, double dt) {
  Model m = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/spinning_top.json").model;
  m.solver.tikhonov_epsilon = eps;
  m.solver.refinement_steps = refinement_steps;
  Data d(m);
  std::vector<double> Y(m.ny());
  initial_state(m, Y.data());
  EXPECT_TRUE(assemble(m, d, Y.data()).ok);
  set_kinematics(m, d, Y.data());
  const double E0 = total_energy(m, d);
  const int steps = static_cast<int>(std::lround(0.25 / dt));
  for (int s = 0; s < steps; ++s) EXPECT_TRUE(rk4_step(m, d, s * dt, Y.data(), nullptr, dt));
  set_kinematics(m, d, Y.data());
  return std::fabs(total_energy(m, d) - E0) / std::fabs(E0);
}

// RK4's energy error falls 16x per halving of dt; a regularisation bias would put a
// floor under it that no dt removes. At the default eps (1e-10) and at eps = 1e-6, with
// the default refinement, each halving from dt = 2e-3 to 2.5e-4 divides the error by at
// least 12 until it reaches the round-off level (2e-13 relative: a few ulps of the
// 7.2 J energy accumulated over up to 1000 steps). Without refinement eps = 1e-6 leaves
// a floor of about 1e-8 (measured below).
TEST(RefinedSolve, HeavyTopEnergyErrorHasNoRegularisationFloor) {
  for (double eps : {1e-10, 1e-6}) {
    double prev = 0;
    for (double dt : {2e-3, 1e-3, 5e-4, 2.5e-4}) {
      const double e = top_energy_error(eps, kDefaultRefinementSteps, dt);
      std::printf("  eps %.0e dt %.1e: relative energy error %.3e%s\n", eps, dt, e,
                  prev > 0 ? (" (ratio " + std::to_string(prev / e) + ")").c_str() : "");
      if (prev > 0 && e > 2e-13) {
        EXPECT_GT(prev / e, 12.0) << "eps " << eps << " dt " << dt;
      }
      prev = e;
    }
  }
  std::printf("  eps 1e-6 without refinement at dt 2.5e-4: %.3e\n", top_energy_error(1e-6, 0, 2.5e-4));
}

}  // namespace
}  // namespace simphant
