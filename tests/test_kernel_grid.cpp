// The batched kernels' per-thread functions, run on the CPU over their whole grids in the
// sequence the CUDA backend launches them (kernels/batch_step.hpp), against the CPU
// reference (dynamics/evaluate.hpp, sim/cpu_backend.hpp): every example, three differing
// instances (sampled from each example's sweep), every buffer pre-filled with NaN. Each
// test runs both GPU paths: `cuda` (per-joint kernels, batched dense Cholesky, against
// the CPU reference's dense factorisation) and `cuda-fused` (kernels/fused_stage.hpp, one
// thread per instance, against the CPU reference's topology-ordered sparse
// factorisation, the same block algorithm).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "mimic_hand.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "redundant_rows.hpp"
#include "inputs.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {
namespace {

constexpr int kInstances = 3;

// |a - b| <= tol * max(1, |b|) for each pair.
::testing::AssertionResult near_rel(double a, double b, double tol, const std::string& what) {
  if (std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << a << " vs reference " << b;
}

// The batch's positions and velocities against the CPU backend's states (n, N, 13), to
// 1e-12 relative.
template <class HB>
void expect_states_near(const HB& hb, const std::vector<double>& states, int n, int N) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < N; ++k) {
      const double* s = states.data() + (static_cast<std::size_t>(i) * N + k) * 13;
      for (int c = 0; c < 7; ++c) EXPECT_TRUE(near_rel(hb.at(hb.Y, 7 * k + c, n, i), s[c], 1e-12, "q"));
      for (int c = 0; c < 6; ++c) EXPECT_TRUE(near_rel(hb.at(hb.Y, 7 * N + 6 * k + c, n, i), s[7 + c], 1e-12, "qdot"));
    }
}

using test::has_redundant_rows;
using test::kRedundantLambdaTol;

// (example name, fused path)
class KernelGrid : public ::testing::TestWithParam<std::tuple<std::string, bool>> {
 protected:
  static std::string name() { return std::get<0>(GetParam()); }
  static bool fused() { return std::get<1>(GetParam()); }
  /// The CPU reference's factorisation matching the path.
  static SchurFactorization reference_schur() { return fused() ? SchurFactorization::Sparse : SchurFactorization::Dense; }
};

// One evaluation of every instance (enqueue_solve + enqueue_accelerations) equals the CPU
// reference's evaluate(): Phi, Phi_q blocks, gamma*, Q, C (the cuda path's dense C),
// lambda and Ydot. The same joint and force functions run on the same numbers, so Phi,
// Phi_q, gamma* and Q agree to the last bit; C sums the same products in another order,
// so C, lambda and Ydot agree to a few ulps of their scale (tolerance 1e-12 relative to
// max(1, |value|)). Where rows are redundant (Bricard) lambda is unique only up to C's
// null space, along which each refinement step moves it by the round-off of the
// residual over E (about 1e-16 / eps = 1e-6 relative; docs/solver.md, "The refined
// regularised solve"), and the paths form that residual in different orders: lambda is
// compared to kRedundantLambdaTol there (measured 3.4e-8 relative), and Ydot, which
// depends on Phi_q^T lambda alone, to 1e-10 (measured 2.3e-12: C's numerical null vector
// is not exactly in Phi_q^T's null space at a state 1e-10 off the constraint manifold).
TEST_P(KernelGrid, OneEvaluationEqualsCpuReference) {
  const std::vector<Model> models = test::example_models(name(), kInstances);
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, fused());
  test::CpuGridExec<double> x;
  hb.solve(x, hb.b.Y);
  batch::enqueue_accelerations(x, hb.mv, hb.b, hb.b.Y, hb.b.k[0]);
  const int n = kInstances, N = hb.N, m = hb.m;
  bool instances_differ = false;
  for (int i = 0; i < n; ++i) {
    const Model& model = models[i];
    Data d(model, reference_schur());
    const double* Yi = asm_batch.Y.data() + static_cast<std::size_t>(i) * model.ny();
    set_kinematics(model, d, Yi);
    compute_forces(model, d, 0.0, nullptr);
    const Eigen::VectorXd Q_ref = d.Q;
    std::vector<double> ydot(model.ny());
    ASSERT_TRUE(evaluate(model, d, 0.0, Yi, nullptr, ydot.data()));
    const double lambda_tol = has_redundant_rows(model, Yi) ? kRedundantLambdaTol : 1e-12;
    for (int R = 0; R < m; ++R) {
      EXPECT_EQ(hb.at(hb.phi, R, n, i), d.phi[R]) << "Phi row " << R << " instance " << i;
      EXPECT_EQ(hb.at(hb.gamma_star, R, n, i), d.gamma_star[R]) << "gamma* row " << R;
      for (int c = 0; !fused() && c < m; ++c)
        EXPECT_TRUE(near_rel(x.last_C[static_cast<std::size_t>(i) * m * m + static_cast<std::size_t>(c) * m + R], d.C(R, c),
                             1e-12, "C(" + std::to_string(R) + "," + std::to_string(c) + ")"));
      EXPECT_TRUE(near_rel(hb.lambda(i, R), d.lambda[R], lambda_tol, "lambda"));
    }
    for (int j = 0; j < model.n_joints(); ++j)
      for (int r = 0; r < d.rows[j].m; ++r)
        for (int c = 0; c < 12; ++c)
          EXPECT_EQ(hb.at(hb.jac, hb.packed.jac_cols() * (model.joints[j].row_offset + r) + c, n, i), d.rows[j].jac[r][c]);
    for (int e = 0; e < 6 * N; ++e) EXPECT_EQ(hb.at(hb.Q, e, n, i), Q_ref[e]) << "Q entry " << e;
    for (int e = 0; e < 13 * N; ++e)
      EXPECT_TRUE(near_rel(hb.at(hb.k[0], e, n, i), ydot[e], lambda_tol == 1e-12 ? 1e-12 : 1e-10, "Ydot"));
    EXPECT_EQ(hb.info[i], m > 0 || fused() ? 0 : -7);
    if (i > 0)
      for (int e = 0; e < 13 * N; ++e)
        instances_differ = instances_differ || hb.at(hb.k[0], e, n, i) != hb.at(hb.k[0], e, n, 0);
  }
  EXPECT_TRUE(instances_differ) << "the sampled instances should differ";
}

// 300 RK4 steps through enqueue_step (stages, commit, step count) and the end-of-advance
// check equal the CPU backend's 300 steps to 1e-12 relative (the GPU test's bound is
// 1e-9 after 1000 steps), with the same statuses; then the recorded frame (reactions,
// violation, energy) equals the CPU backend's reads at that state.
TEST_P(KernelGrid, StepsAndFrameEqualCpuBackend) {
  const std::vector<Model> models = test::example_models(name(), kInstances);
  const int steps = 300;
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, fused());
  test::CpuGridExec<double> x;
  for (int s = 0; s < steps; ++s) hb.rk4_step(x);
  batch::enqueue_end_check(x, hb.mv, hb.b);
  EXPECT_EQ(hb.step[0], steps);
  auto shared = std::make_shared<const std::vector<Model>>(models);
  CpuBackend cpu(shared, kInstances, 1, reference_schur());
  cpu.advance(steps);
  const int n = kInstances, N = hb.N, J = hb.J;
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13), reactions(static_cast<std::size_t>(n) * J * 6),
      violation(n), energy(n), kinetic(n), status_time(n);
  std::vector<std::int8_t> status(n), reason(n);
  cpu.read_states(states.data());
  cpu.read_status(status.data(), status_time.data(), reason.data());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(hb.status[i], status[i]);
    EXPECT_EQ(hb.status_reason[i], reason[i]);
    EXPECT_EQ(status[i], 0) << name() << " instance " << i << " should stay ok";
  }
  expect_states_near(hb, states, n, N);
  // The frame at this state.
  hb.frame_at_state(x);
  cpu.read_reactions(reactions.data());
  cpu.read_constraint_violation(violation.data());
  cpu.read_energy(energy.data(), kinetic.data());
  const int D = cpu.n_drivers();
  std::vector<double> driver_loads(static_cast<std::size_t>(n) * D);
  cpu.read_driver_loads(driver_loads.data());
  const batch::FrameLayout fl(n, N, J, D);
  double v_scale = 0;
  for (double v : violation) v_scale = std::max(v_scale, v);
  for (int i = 0; i < n; ++i) {
    // Reactions carry lambda's null-space freedom where rows are redundant (as in
    // OneEvaluationEqualsCpuReference; measured 5e-7 relative on Bricard).
    const double reaction_tol = has_redundant_rows(models[i], asm_batch.Y.data() + static_cast<std::size_t>(i) * models[i].ny())
                                    ? kRedundantLambdaTol
                                    : 1e-9;
    for (int e = 0; e < 6 * J; ++e)
      EXPECT_TRUE(near_rel(hb.frame[fl.reactions + static_cast<std::size_t>(e) * n + i],
                           reactions[static_cast<std::size_t>(i) * 6 * J + e], reaction_tol, "reaction"));
    for (int e = 0; e < D; ++e)  // a driver's row is independent of the joints' rows: its lambda is unique
      EXPECT_TRUE(near_rel(hb.frame[fl.driver_loads + static_cast<std::size_t>(e) * n + i],
                           driver_loads[static_cast<std::size_t>(i) * D + e], reaction_tol, "driver load"));
    // Violations are ~1e-10 and differ by rounding in the states (1e-12 relative of q).
    EXPECT_NEAR(hb.frame[fl.violation + i], violation[i], 1e-12);
    EXPECT_TRUE(near_rel(hb.frame[fl.energy + i], energy[i], 1e-11, "energy"));
    EXPECT_TRUE(near_rel(hb.frame[fl.kinetic + i], kinetic[i], 1e-11, "kinetic energy"));
  }
}

// The fp32 path (float per-thread functions, kFp32RelativeEpsilon floor) over 1000 steps
// against the fp64 CPU backend: every instance stays ok, and the state error relative to
// the instance's largest state entry stays within the bound docs/cuda-backend.md gives
// (1e-4; Bricard, whose redundant row the floor regularises, 1e-3). Measured with the
// refined solve: 3.3e-6 (four-bar) and below, Bricard 4.5e-5.
TEST_P(KernelGrid, Fp32StaysWithinDocumentedBound) {
  const std::string name = KernelGrid::name();
  const std::vector<Model> models = test::example_models(name, kInstances);
  const int steps = 1000, n = kInstances;
  test::HostBatch<float> hb(models, n, assemble_batch(models, n, 1), fused());
  test::CpuGridExec<float> x;
  for (int s = 0; s < steps; ++s) hb.rk4_step(x);
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1);
  cpu.advance(steps);
  const int N = hb.N;
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13);
  cpu.read_states(states.data());
  const double bound = name == "bricard" ? 1e-3 : 1e-4;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(hb.status[i], 0) << name << " instance " << i << " diverged in fp32 at step " << hb.status_step[i];
    double err = 0, scale = 0;
    for (int k = 0; k < N; ++k)
      for (int c = 0; c < 13; ++c) {
        const int e = c < 7 ? 7 * k + c : 7 * N + 6 * k + (c - 7);
        const double ref = states[(static_cast<std::size_t>(i) * N + k) * 13 + c];
        err = std::max(err, std::fabs(static_cast<double>(hb.at(hb.Y, e, n, i)) - ref));
        scale = std::max(scale, std::fabs(ref));
      }
    EXPECT_LE(err / scale, bound) << name << " instance " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, KernelGrid,
                         ::testing::Combine(::testing::ValuesIn(test::example_names()), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<KernelGrid::ParamType>& p) {
                           return std::get<0>(p.param) + (std::get<1>(p.param) ? "_fused" : "_cuda");
                         });

// A diverging instance is flagged and frozen at its last good state and leaves every
// other instance bit-identical to a run without it.
class KernelGridStatus : public ::testing::TestWithParam<bool> {};

TEST_P(KernelGridStatus, DivergingInstanceIsFrozenAndIsolated) {
  const std::vector<Model> models = test::example_models("four_bar", kInstances);
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> a(models, kInstances, asm_batch, GetParam()), b(models, kInstances, asm_batch, GetParam());
  const int n = kInstances, ny = 13 * a.N;
  // Instance 1 of batch b starts with a 1e3 rad/s spin of its first body: the constraint
  // violation passes the bound within a few steps.
  b.Y[static_cast<std::size_t>(7 * b.N + 3) * n + 1] += 1e3;
  std::vector<double> y1_before;
  test::CpuGridExec<double> x;
  for (int s = 0; s < 200; ++s) {
    a.rk4_step(x);
    b.rk4_step(x);
    if (b.status[1] == 0) {
      y1_before.clear();
      for (int e = 0; e < ny; ++e) y1_before.push_back(b.at(b.Y, e, n, 1));
    }
  }
  EXPECT_EQ(b.status[1], batch::kStatusDiverged);
  EXPECT_GT(b.status_step[1], 0);
  EXPECT_LT(b.status_step[1], 200);
  for (int e = 0; e < ny; ++e) EXPECT_EQ(b.at(b.Y, e, n, 1), y1_before[e]) << "frozen at the last good state";
  for (int i : {0, 2}) {
    EXPECT_EQ(b.status[i], 0);
    for (int e = 0; e < ny; ++e) {
      const double u = a.at(a.Y, e, n, i), v = b.at(b.Y, e, n, i);
      EXPECT_EQ(std::memcmp(&u, &v, sizeof u), 0) << "instance " << i << " entry " << e;
    }
  }
}

// A NaN state is caught by the commit (not finite) at the step it appears.
TEST_P(KernelGridStatus, NonFiniteStateIsFlaggedAtItsStep) {
  const std::vector<Model> models = test::example_models("pendulum", 2);
  test::HostBatch<double> hb(models, 2, assemble_batch(models, 2, 1), GetParam());
  test::CpuGridExec<double> x;
  for (int s = 0; s < 5; ++s) hb.rk4_step(x);
  hb.Y[static_cast<std::size_t>(7 * hb.N) * 2 + 0] = std::nan("");
  hb.rk4_step(x);
  EXPECT_EQ(hb.status[0], batch::kStatusDiverged);
  EXPECT_EQ(hb.status_step[0], 5);
  EXPECT_EQ(hb.status[1], 0);
}

// Per-instance actuator inputs (the inputs kernel's layout) reach the forces: instance i's
// evaluation with input u_i equals the CPU reference's with the same input.
TEST_P(KernelGridStatus, PerInstanceInputsEqualCpuReference) {
  const std::vector<Model> models = test::example_models("slider_crank", kInstances);
  ASSERT_GT(models[0].n_inputs, 0);
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, GetParam());
  const int n = kInstances, n_in = models[0].n_inputs;
  std::vector<double> rows(static_cast<std::size_t>(n) * n_in);
  for (std::size_t e = 0; e < rows.size(); ++e) rows[e] = 0.7 * static_cast<double>(e) - 1.1;
  test::CpuGridExec<double> x;
  double* inputs = hb.inputs.data();
  x.launch("inputs", n * n_in, [&](int tid) { batch::inputs_thread(tid, n, n_in, rows.data(), inputs); });
  hb.solve(x, hb.b.Y);
  batch::enqueue_accelerations(x, hb.mv, hb.b, hb.b.Y, hb.b.k[0]);
  for (int i = 0; i < n; ++i) {
    Data d(models[i], GetParam() ? SchurFactorization::Sparse : SchurFactorization::Dense);
    std::vector<double> ydot(models[i].ny());
    ASSERT_TRUE(evaluate(models[i], d, 0.0, asm_batch.Y.data() + static_cast<std::size_t>(i) * models[i].ny(),
                         rows.data() + static_cast<std::size_t>(i) * n_in, ydot.data()));
    for (int e = 0; e < models[i].ny(); ++e) EXPECT_TRUE(near_rel(hb.at(hb.k[0], e, n, i), ydot[e], 1e-12, "Ydot"));
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, KernelGridStatus, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return std::string(p.param ? "fused" : "cuda"); });

class KernelGridMimic : public ::testing::TestWithParam<bool> {
 protected:
  static bool fused() { return GetParam(); }
  static SchurFactorization reference_schur() { return fused() ? SchurFactorization::Sparse : SchurFactorization::Dense; }
};

// The packed topology: four sides, the mimic elements' bodies, their parameters per
// instance, and the coupling list of a mimic row in the documented order.
TEST(KernelGridMimicPack, FourSidesAndMimicParameters) {
  const std::vector<Model> models = test::mimic_hand_models(kInstances);
  const Model& m0 = models[0];
  ASSERT_EQ(m0.n_mimics(), 2);
  ASSERT_EQ(m0.element_sides(), 4);
  const batch::PackedModel<double> p = batch::pack_models<double>(models, kInstances);
  const batch::ModelView<double> mv = p.host_view();
  EXPECT_EQ(mv.sides, 4);
  EXPECT_EQ(mv.jac_cols(), 24);
  EXPECT_EQ(mv.n_mimics, 2);
  EXPECT_EQ(mv.n_constraints(), m0.n_constraints());
  for (int a = 0; a < m0.n_constraints(); ++a) {
    const ConstraintElement e = m0.constraint(a);
    for (int s = 0; s < 4; ++s) EXPECT_EQ(mv.body_of(a, s), e.side_body(s)) << "element " << a << " side " << s;
    EXPECT_EQ(mv.rows_of(a), e.rows);
    EXPECT_EQ(mv.joint_type[a], a < m0.first_mimic() ? static_cast<int>(m0.joints[a].type) : batch::kMimicElement);
  }
  for (int k = 0; k < 2; ++k) {
    const Mimic& mi = m0.mimics[k];
    EXPECT_EQ(mv.mimic[4 * k], mi.joint);
    EXPECT_EQ(mv.mimic[4 * k + 1], mi.leader);
    for (int i = 0; i < kInstances; ++i) {
      const Mimic& mk = models[i].mimics[k];
      const int q = mv.mimic_param + batch::kMimicParams * k;
      EXPECT_EQ(mv.param(q, i), mk.multiplier);
      EXPECT_EQ(mv.param(q + 1, i), mk.offset);
      EXPECT_EQ(mv.param(q + 2, i), mk.q_ref);
      EXPECT_EQ(mv.param(q + 3, i), mk.leader_q_ref);
    }
  }
  EXPECT_NE(mv.param(mv.mimic_param + 2, 0), mv.param(mv.mimic_param + 2, 1)) << "q_ref swept with q0";
  EXPECT_EQ(mv.mimic_param + batch::kMimicParams * 2, mv.n_params);
  // Mimic row a = first_mimic(): sides 0 and 2 at the palm (body 0), 1 at f2, 3 at f1.
  const int a = m0.first_mimic();
  ASSERT_EQ(mv.body_of(a, 0), 0);
  ASSERT_EQ(mv.body_of(a, 2), 0);
  std::vector<std::array<int, 3>> expect;
  for (int k : {0, 1, 2}) {  // bodies of a ascending: palm (sides 0, 2), f1 (side 3), f2 (side 1)
    for (int q = mv.body_joint_start[k]; q < mv.body_joint_start[k + 1]; ++q)
      for (int sa = 0; sa < 4; ++sa)
        if (mv.body_of(a, sa) == k) expect.push_back({mv.body_joint[2 * q], sa, mv.body_joint[2 * q + 1]});
  }
  ASSERT_EQ(mv.coupling_start[a + 1] - mv.coupling_start[a], static_cast<int>(expect.size()));
  for (std::size_t e = 0; e < expect.size(); ++e)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(mv.coupling[3 * (mv.coupling_start[a] + e) + c], expect[e][c]) << e;
}

// One evaluation equals the CPU reference's (as OneEvaluationEqualsCpuReference): Phi,
// gamma*, every element's Phi_q block (a mimic's leader columns in 12..23, zeros there
// for the joints) and Q bit for bit; C, lambda and Ydot to 1e-12.
TEST_P(KernelGridMimic, OneEvaluationEqualsCpuReference) {
  const std::vector<Model> models = test::mimic_hand_models(kInstances);
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, fused());
  test::CpuGridExec<double> x;
  hb.solve(x, hb.b.Y);
  batch::enqueue_accelerations(x, hb.mv, hb.b, hb.b.Y, hb.b.k[0]);
  const int n = kInstances, N = hb.N, m = hb.m, w = hb.packed.jac_cols();
  ASSERT_EQ(w, 24);
  for (int i = 0; i < n; ++i) {
    const Model& model = models[i];
    Data d(model, reference_schur());
    const double* Yi = asm_batch.Y.data() + static_cast<std::size_t>(i) * model.ny();
    set_kinematics(model, d, Yi);
    compute_forces(model, d, 0.0, nullptr);
    const Eigen::VectorXd Q_ref = d.Q;
    std::vector<double> ydot(model.ny());
    ASSERT_TRUE(evaluate(model, d, 0.0, Yi, nullptr, ydot.data()));
    for (int R = 0; R < m; ++R) {
      EXPECT_EQ(hb.at(hb.phi, R, n, i), d.phi[R]) << "Phi row " << R << " instance " << i;
      EXPECT_EQ(hb.at(hb.gamma_star, R, n, i), d.gamma_star[R]) << "gamma* row " << R;
      for (int c = 0; !fused() && c < m; ++c)
        EXPECT_TRUE(near_rel(x.last_C[static_cast<std::size_t>(i) * m * m + static_cast<std::size_t>(c) * m + R], d.C(R, c),
                             1e-12, "C(" + std::to_string(R) + "," + std::to_string(c) + ")"));
      EXPECT_TRUE(near_rel(hb.lambda(i, R), d.lambda[R], 1e-12, "lambda"));
    }
    for (int a = 0; a < model.n_constraints(); ++a) {
      const int o = model.constraint(a).row_offset;
      for (int r = 0; r < d.rows[a].m; ++r)
        for (int s = 0; s < 4; ++s)
          for (int c = 0; c < 6; ++c) {
            const double ref = s < 2 || a >= model.first_mimic() ? side_row(model, d, a, r, s)[c] : 0.0;
            EXPECT_EQ(hb.at(hb.jac, w * (o + r) + 6 * s + c, n, i), ref) << "element " << a << " side " << s;
          }
    }
    for (int e = 0; e < 6 * N; ++e) EXPECT_EQ(hb.at(hb.Q, e, n, i), Q_ref[e]) << "Q entry " << e;
    for (int e = 0; e < 13 * N; ++e) EXPECT_TRUE(near_rel(hb.at(hb.k[0], e, n, i), ydot[e], 1e-12, "Ydot"));
    EXPECT_EQ(hb.info[i], 0);
  }
}

// 300 RK4 steps equal the CPU backend's to 1e-12 relative, every instance ok, the mimic
// rows held (the violation of the recorded frame as the CPU backend's).
TEST_P(KernelGridMimic, StepsEqualCpuBackend) {
  const std::vector<Model> models = test::mimic_hand_models(kInstances);
  const int steps = 300, n = kInstances;
  const AssembledBatch asm_batch = assemble_batch(models, n, 1);
  test::HostBatch<double> hb(models, n, asm_batch, fused());
  test::CpuGridExec<double> x;
  for (int s = 0; s < steps; ++s) hb.rk4_step(x);
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1, reference_schur());
  cpu.advance(steps);
  const int N = hb.N;
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13), violation(n);
  cpu.read_states(states.data());
  for (int i = 0; i < n; ++i) EXPECT_EQ(hb.status[i], 0) << "instance " << i;
  expect_states_near(hb, states, n, N);
  hb.frame_at_state(x);
  cpu.read_constraint_violation(violation.data());
  const batch::FrameLayout fl(n, N, hb.J, cpu.n_drivers());
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(hb.frame[fl.violation + i], violation[i], 1e-12);
    EXPECT_LT(hb.frame[fl.violation + i], 1e-8);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, KernelGridMimic, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return std::string(p.param ? "fused" : "cuda"); });

}  // namespace
}  // namespace simphant
