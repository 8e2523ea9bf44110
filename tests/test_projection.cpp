// The projection onto the constraint manifold (docs/solver.md, Projection onto the
// constraint manifold): one stage's correction against a dense reference with an SVD
// pseudo-inverse, dq = -M^-1 Phi_q^T (Phi_q M^-1 Phi_q^T)^+ r, on every example; and the
// batched per-thread functions (kernels/projection.hpp), run on the CPU over their whole
// grids through enqueue_step on both GPU paths, against the CPU backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <Eigen/SVD>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "parallelogram_chain.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

/// The example models plus the two-cell parallelogram chain (redundant rows, a
/// configuration near the flat one where Phi_q loses rank).
std::vector<Model> projection_models(const std::string& name, int n) {
  if (name != "parallelogram_chain") return test::example_models(name, n);
  test::ParallelogramChain ch;
  ch.cells = 2;
  return {parse_scene(ch.scene(1e-3, 1.0, "none").dump()).model};
}

std::vector<std::string> projection_model_names() {
  std::vector<std::string> names = test::example_names();
  names.push_back("parallelogram_chain");
  return names;
}

/// The dense reference: dq = -M^-1 Phi_q^T C^+ r, C = Phi_q M^-1 Phi_q^T, with an SVD
/// pseudo-inverse (singular values below 1e-9 of the largest dropped: the redundant
/// rows' exact zeros, at 1e-16 relative, and nothing else). kappa: the condition number
/// of the step's regularised C + eps I, sigma_max(C) / eps where C is singular (redundant
/// rows), else sigma_max / sigma_min; bias: eps / (smallest non-zero sigma), the relative
/// change the Tikhonov term makes to the solution.
Eigen::VectorXd dense_correction(const Model& model, const Eigen::MatrixXd& Phi_q, const Eigen::VectorXd& r,
                                 double& kappa, double& bias) {
  const int N = model.n_bodies();
  Eigen::MatrixXd Minv = Eigen::MatrixXd::Zero(6 * N, 6 * N);
  for (int k = 0; k < N; ++k) {
    const Body& b = model.bodies[k];
    Minv.block<3, 3>(6 * k, 6 * k).diagonal().setConstant(1.0 / b.mass);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Minv(6 * k + 3 + i, 6 * k + 3 + j) = b.inertia_inv_B.m[i][j];
  }
  const Eigen::MatrixXd C = Phi_q * Minv * Phi_q.transpose();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(C, Eigen::ComputeThinU | Eigen::ComputeThinV);
  svd.setThreshold(1e-9);
  const Eigen::VectorXd& sv = svd.singularValues();
  const double eps = model.solver.tikhonov_epsilon;
  kappa = sv[0] / (svd.rank() < C.rows() ? eps : sv[sv.size() - 1]);
  bias = eps / sv[svd.rank() - 1];
  return -Minv * Phi_q.transpose() * svd.solve(r);
}

class ProjectionStage : public ::testing::TestWithParam<std::string> {};

// From an assembled state of each model, positions moved off the manifold by a random
// body displacement (1e-8 m and rad, the order a step leaves without projection) and
// velocities by 1e-3: each stage's correction (d.qddot after projection_stage) equals
// the dense reference's at the same state to 100 kappa u + 2 bias of its size: the
// accuracy of a Cholesky solve of C + eps I (Higham, Accuracy and Stability of Numerical
// Algorithms, section 10.1; kappa = 1e0 .. 1e11 here, the large values on the models
// with redundant rows, whose C is singular but for eps; measured error / (kappa u |dq|)
// up to 3 there) plus the Tikhonov term's own change of the solution (bias up to 3e-11,
// the spinning top); the velocity stage reduces max |Phi_q qdot| by the same factor;
// two Newton stages leave max |Phi| at rounding level.
TEST_P(ProjectionStage, CorrectionEqualsDenseSvdReference) {
  const std::vector<Model> models = projection_models(GetParam(), 1);
  const Model& model = models.front();
  const int N = model.n_bodies();
  constexpr double u = 1.1e-16;  // unit roundoff of double
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  std::mt19937_64 g(7);
  for (int k = 0; k < N; ++k) {
    const Vec3d dr = test::random_vec(g, 1e-8), dth = test::random_vec(g, 1e-8);
    const double dq[6] = {dr.x, dr.y, dr.z, dth.x, dth.y, dth.z};
    Vec3d r = state_r(Y.data(), k);
    Quatd p = state_p(Y.data(), k);
    apply_position_correction(r, p, dq);
    Y[7 * k] = r.x; Y[7 * k + 1] = r.y; Y[7 * k + 2] = r.z;
    Y[7 * k + 3] = p.w; Y[7 * k + 4] = p.x; Y[7 * k + 5] = p.y; Y[7 * k + 6] = p.z;
    for (int c = 0; c < 6; ++c) Y[7 * N + 6 * k + c] += test::random_vec(g, 1e-3).x;
  }
  for (int stage : {kProjectPosition, kProjectVelocity}) {
    set_kinematics(model, d, Y.data());
    evaluate_constraints(model, d, 0.0);
    assemble_jacobian(model, d);
    const Eigen::Map<const Eigen::VectorXd> qdot(Y.data() + 7 * N, 6 * N);
    const Eigen::VectorXd r = stage == kProjectPosition ? Eigen::VectorXd(d.phi) : Eigen::VectorXd(d.Phi_q * qdot);
    double kappa = 0, bias = 0;
    const Eigen::VectorXd ref = dense_correction(model, d.Phi_q, r, kappa, bias);
    const Eigen::MatrixXd Phi_q = d.Phi_q;
    ASSERT_TRUE(projection_stage(model, d, 0.0, Y.data(), stage));
    const double tol = 100 * kappa * u + 2 * bias;
    EXPECT_LE((d.qddot - ref).norm(), tol * ref.norm())
        << GetParam() << " stage " << stage << " kappa " << kappa << " ratio "
        << (d.qddot - ref).norm() / (kappa * u * ref.norm());
    if (stage == kProjectVelocity) {
      const Eigen::Map<const Eigen::VectorXd> projected(Y.data() + 7 * N, 6 * N);
      EXPECT_LE((Phi_q * projected).cwiseAbs().maxCoeff(), tol * r.cwiseAbs().maxCoeff()) << GetParam();
    }
  }
  // Positions: the first stage above was one Newton step; a second reaches rounding level.
  ASSERT_TRUE(projection_stage(model, d, 0.0, Y.data(), kProjectPosition));
  set_kinematics(model, d, Y.data());
  evaluate_constraints(model, d, 0.0);
  EXPECT_LE(max_violation(d), 1e-14) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Models, ProjectionStage, ::testing::ValuesIn(projection_model_names()));

// (model name, fused path, projection)
class ProjectionGrid : public ::testing::TestWithParam<std::tuple<std::string, bool, Projection>> {};

// 200 steps with the projection through enqueue_step (the candidate projected before the
// commit) equal the CPU backend's 200 steps to 1e-12 relative, as the steps without it do
// (tests/test_kernel_grid.cpp), with the same statuses.
TEST_P(ProjectionGrid, StepsEqualCpuBackend) {
  const auto [name, fused, projection] = GetParam();
  const int n = name == "parallelogram_chain" ? 1 : 3, steps = 200;
  std::vector<Model> models = projection_models(name, n);
  for (Model& m : models) m.solver.projection = projection;
  const AssembledBatch asm_batch = assemble_batch(models, n, 1);
  test::HostBatch<double> hb(models, n, asm_batch, fused);
  test::CpuGridExec<double> x;
  for (int s = 0; s < steps; ++s) hb.rk4_step(x);
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1,
                 fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
  cpu.advance(steps);
  const int N = hb.N;
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13), status_time(n);
  std::vector<std::int8_t> status(n), reason(n);
  cpu.read_states(states.data());
  cpu.read_status(status.data(), status_time.data(), reason.data());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(hb.status[i], status[i]);
    EXPECT_EQ(hb.status_reason[i], reason[i]);
    EXPECT_EQ(status[i], 0) << name << " instance " << i << " should stay ok";
    for (int k = 0; k < N; ++k)
      for (int c = 0; c < 13; ++c) {
        const int e = c < 7 ? 7 * k + c : 7 * N + 6 * k + (c - 7);
        const double a = hb.at(hb.Y, e, n, i), b = states[(static_cast<std::size_t>(i) * N + k) * 13 + c];
        EXPECT_LE(std::fabs(a - b), 1e-12 * std::max(1.0, std::fabs(b))) << name << " instance " << i << " body " << k
                                                                          << " entry " << c;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ProjectionGrid,
                         ::testing::Combine(::testing::ValuesIn(projection_model_names()), ::testing::Bool(),
                                            ::testing::Values(Projection::Velocity, Projection::PositionVelocity)),
                         [](const ::testing::TestParamInfo<ProjectionGrid::ParamType>& p) {
                           return std::get<0>(p.param) + (std::get<1>(p.param) ? "_fused_" : "_cuda_") +
                                  projection_name(std::get<2>(p.param));
                         });

// The fp32 kernels (kFp32RelativeEpsilon floor, batch_pack.hpp) with position_velocity
// on the four-bar and the two-cell chain, 500 steps, both GPU paths: every instance stays
// ok and ends on the manifold to the float resolution of its coordinates (max |Phi| of
// the state evaluated in double at most 1e-6 m, 17 float ulps of a 1 m coordinate;
// measured 1.8e-8 .. 5.2e-8 on the four-bar, 3.8e-8 and 1.6e-7 on the chain).
TEST(ProjectionFp32, StaysOnTheManifold) {
  for (const char* name : {"four_bar", "parallelogram_chain"}) {
    for (bool fused : {false, true}) {
      const int n = name == std::string("four_bar") ? 3 : 1;
      std::vector<Model> models = projection_models(name, n);
      for (Model& m : models) m.solver.projection = Projection::PositionVelocity;
      test::HostBatch<float> hb(models, n, assemble_batch(models, n, 1), fused);
      test::CpuGridExec<float> x;
      for (int s = 0; s < 500; ++s) hb.rk4_step(x);
      Data d(models.front());
      std::vector<double> Y(models.front().ny());
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(hb.status[i], 0) << name << (fused ? " fused" : " cuda") << " instance " << i;
        for (int e = 0; e < models.front().ny(); ++e) Y[e] = hb.at(hb.Y, e, n, i);
        set_kinematics(models[i % models.size()], d, Y.data());
        evaluate_constraints(models[i % models.size()], d, 0.0);
        EXPECT_LE(max_violation(d), 1e-6) << name << (fused ? " fused" : " cuda") << " instance " << i;
      }
    }
  }
}

}  // namespace
}  // namespace simphant
