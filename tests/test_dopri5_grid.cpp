// The adaptive Dormand-Prince 5(4) path of the batched kernels (kernels/dopri5_batch.hpp),
// run on the CPU over its whole grids in the sequence the CUDA backend launches it, with
// the host loop it runs (rounds until every live instance has passed the grid time, the
// unfinished-instance counter read back after each batch of rounds), against the CPU
// backend's dopri5 path (sim/cpu_dopri5.cpp): examples with three differing instances
// sampled from their sweeps, so that each instance takes its own step sizes, on both
// GPU paths (`cuda`: per-joint kernels and the batched dense Cholesky, against the CPU
// reference's dense factorisation; `cuda-fused`: one thread per instance and stage,
// against its topology-ordered sparse factorisation). Every buffer is pre-filled with NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "dopri5_batch.hpp"
#include "dopri5_state.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "redundant_rows.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {
namespace {

constexpr int kInstances = 3;

// Step sizes and reduction samples, CPU grid vs CPU backend, relative: measured 3.7e-9
// (largest step) and 4.3e-9 (accumulators) over the examples below.
constexpr double kStepTol = 1e-7;

// The examples' models with dopri5 at rtol = atol = tol, each instance its own; tol
// below 1e-7 also takes a grid 10 times coarser, so that the steps are shorter than the
// grid interval and the instances need their own numbers of rounds to reach each grid
// time (at 1e-6 the steps span several grid times: the dense output serves several).
std::vector<Model> dopri5_models(const std::string& name, double tol, Projection projection) {
  std::vector<Model> models = test::example_models(name, kInstances);
  for (Model& m : models) {
    m.solver.integrator = Integrator::Dopri5;
    if (tol < 1e-7) m.solver.dt *= 10;
    m.solver.rtol = tol;
    m.solver.atol = tol;
    m.solver.projection = projection;
  }
  return models;
}

// n_steps grid steps of the batch on the CPU grid executor, through the sequence and
// host loop of CudaBackend::advance_dopri5 (enqueue_dopri5_advance); rounds_inout: the
// rounds of the last grid step.
void advance_grid(test::CpuGridExec<double>& x, test::HostBatch<double>& hb, int n_steps, int* rounds_inout) {
  const auto read_count = [&](const auto& enqueue) {
    hb.ad_unfinished[0] = 0;
    enqueue();
    return hb.ad_unfinished[0];
  };
  batch::enqueue_dopri5_advance(x, hb.mv, hb.b, hb.fused ? &hb.P : nullptr, n_steps, rounds_inout, read_count);
}

// |a - b| <= tol * max(1, |b|).
::testing::AssertionResult near_rel(double a, double b, double tol, const std::string& what) {
  if (std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << a << " vs reference " << b;
}

// (example, projection, fused path, tolerance)
class Dopri5Grid : public ::testing::TestWithParam<std::tuple<std::string, Projection, bool, double>> {
 protected:
  static std::string name() { return std::get<0>(GetParam()); }
  static Projection projection() { return std::get<1>(GetParam()); }
  static bool fused() { return std::get<2>(GetParam()); }
  static double tol() { return std::get<3>(GetParam()); }
};

// 40 grid steps in two advances (20 + 20, so the second starts from the kept internal
// state) equal the CPU backend's dopri5 path: the states at the grid times to 1e-12
// relative, the same statuses and the same accepted and rejected step counts per
// instance -- whose step sizes differ, so each instance ran its own steps -- and the
// reductions over time. The batched evaluation agrees with the CPU's to a few ulps (its
// Schur matrix is summed in another order; tests/test_kernel_grid.cpp), and the error
// estimate, a small difference of the stage slopes, magnifies that: the step sizes
// agree to kStepTol, and so do the samples of the reductions, which are taken at the
// steps' ends. The states at the grid times hardly move with the step sizes.
// rtol = atol = 1e-6: with atol far below the state's round-off noise (components that
// stay ~0 are then measured against atol alone) the steps would follow that noise
// (measured at rtol 1e-7, atol 1e-10: steps 1e-5 apart).
TEST_P(Dopri5Grid, EqualsCpuBackend) {
  const std::vector<Model> models = dopri5_models(name(), tol(), projection());
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, fused());
  hb.enable_dopri5();
  test::CpuGridExec<double> x;
  auto shared = std::make_shared<const std::vector<Model>>(models);
  CpuBackend cpu(shared, kInstances, 1, fused() ? SchurFactorization::Sparse : SchurFactorization::Dense);
  // Every reduction over time, sampled at each accepted step's new start.
  const std::vector<ReductionQuantity> quantities =
      parse_reduction_quantities({"all"}, hb.packed.n_drivers, "output.reductions");
  const ReductionLayout L = reduction_layout_of(quantities, models.front());
  hb.enable_reductions(x, L);
  cpu.set_reductions(quantities);
  const int n = kInstances, N = hb.N, w = L.size();
  std::vector<double> acc(static_cast<std::size_t>(n) * w);
  int rounds = 0, max_rounds = 0;
  std::vector<double> states(static_cast<std::size_t>(n) * N * 13), status_time(n);
  std::vector<std::int8_t> status(n), reason(n);
  std::vector<std::int64_t> accepted(n), rejected(n);
  std::vector<double> h_min(n), h_max(n);
  for (int part = 0; part < 2; ++part) {
    advance_grid(x, hb, 20, &rounds);
    max_rounds = std::max(max_rounds, rounds);
    cpu.advance(20);
    EXPECT_EQ(hb.step[0], 20 * (part + 1));
    cpu.read_states(states.data());
    cpu.read_status(status.data(), status_time.data(), reason.data());
    cpu.read_step_statistics(accepted.data(), rejected.data(), h_min.data(), h_max.data());
    cpu.get_reduction_state(acc.data());
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(hb.status[i], status[i]) << "instance " << i;
      EXPECT_EQ(hb.status_reason[i], reason[i]) << "instance " << i;
      EXPECT_EQ(status[i], 0) << name() << " instance " << i << " should stay ok";
      EXPECT_EQ(hb.ad_counts[i], accepted[i]) << "accepted steps, instance " << i;
      EXPECT_EQ(hb.ad_counts[n + i], rejected[i]) << "rejected steps, instance " << i;
      EXPECT_TRUE(near_rel(hb.b.ad.h_min[i], h_min[i], kStepTol, "smallest step"));
      EXPECT_TRUE(near_rel(hb.b.ad.h_max[i], h_max[i], kStepTol, "largest step"));
      // The accumulators: the sample count exactly; max, min, sum and sum of squares to
      // kStepTol, or kRedundantLambdaTol where Phi_q has redundant rows (the reactions;
      // measured 2.9e-7); the time of each max is not compared (near-ties).
      const double acc_tol =
          test::has_redundant_rows(models[i], asm_batch.Y.data() + static_cast<std::size_t>(i) * 13 * N)
              ? test::kRedundantLambdaTol
              : kStepTol;
      for (int e = 0; e < w; ++e) {
        const double dev = hb.red_acc[static_cast<std::size_t>(e) * n + i], ref = acc[static_cast<std::size_t>(i) * w + e];
        if (std::isnan(ref) && std::isnan(dev)) continue;
        if (e == 0) {
          EXPECT_EQ(dev, ref) << "sample count, instance " << i;
        } else if ((e - 1) % kReductionSlots != 4) {
          EXPECT_TRUE(near_rel(dev, ref, acc_tol, "accumulator " + std::to_string(e) + ", instance " + std::to_string(i)));
        }
      }
      for (int k = 0; k < N; ++k) {
        for (int c = 0; c < 7; ++c)
          EXPECT_TRUE(near_rel(hb.at(hb.Y, 7 * k + c, n, i), states[(static_cast<std::size_t>(i) * N + k) * 13 + c], 1e-12,
                               "q, instance " + std::to_string(i)));
        for (int c = 0; c < 6; ++c)
          EXPECT_TRUE(near_rel(hb.at(hb.Y, 7 * N + 6 * k + c, n, i),
                               states[(static_cast<std::size_t>(i) * N + k) * 13 + 7 + c], 1e-12,
                               "qdot, instance " + std::to_string(i)));
      }
    }
  }
  // The instances took their own steps: their largest steps differ.
  bool differ = false;
  for (int i = 1; i < n; ++i) differ = differ || hb.b.ad.h_max[i] != hb.b.ad.h_max[0];
  EXPECT_TRUE(differ) << "the sampled instances should take different step sizes";
  EXPECT_GT(hb.ad_counts[0], 0);
  if (tol() < 1e-7) {
    EXPECT_GT(max_rounds, 1) << "the steps should be shorter than the grid interval";
  }
}

// A minimum step the controller cannot respect (solver.min_step = dt / 20, which
// instance 1, under 10^6 g, would need to go below) stops that instance with
// step_size_underflow at the grid step where it happened, as on the CPU; the others run
// on and equal the CPU's.
TEST(Dopri5GridStatus, StepSizeUnderflowFreezesTheInstance) {
  for (const bool fused : {false, true}) {
    std::vector<Model> models = test::example_models("double_pendulum", kInstances);
    for (Model& m : models) {
      m.solver.integrator = Integrator::Dopri5;
      m.solver.rtol = 1e-8;
      m.solver.atol = 1e-8;
    }
    for (Model& m : models) m.solver.min_step = m.solver.dt / 20;  // solver settings are the batch's
    models[1].gravity = {0.0, 0.0, -9.81e6};
    const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
    test::HostBatch<double> hb(models, kInstances, asm_batch, fused);
    hb.enable_dopri5();
    test::CpuGridExec<double> x;
    CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), kInstances, 1,
                   fused ? SchurFactorization::Sparse : SchurFactorization::Dense);
    int rounds = 0;
    cpu.advance(3);
    advance_grid(x, hb, 3, &rounds);
    std::vector<double> status_time(kInstances), states(static_cast<std::size_t>(kInstances) * hb.N * 13);
    std::vector<std::int8_t> status(kInstances), reason(kInstances);
    cpu.read_status(status.data(), status_time.data(), reason.data());
    cpu.read_states(states.data());
    EXPECT_EQ(reason[1], kReasonStepSizeUnderflow);
    for (int i = 0; i < kInstances; ++i) {
      EXPECT_EQ(hb.status[i], status[i]) << "instance " << i;
      EXPECT_EQ(hb.status_reason[i], reason[i]) << "instance " << i;
      EXPECT_EQ(static_cast<double>(hb.status_step[i]) * models[i].solver.dt, status_time[i]) << "instance " << i;
      for (int e = 0; e < 7; ++e)  // positions of body 0 (the frozen instance keeps its initial state)
        EXPECT_TRUE(near_rel(hb.at(hb.Y, e, kInstances, i), states[static_cast<std::size_t>(i) * hb.N * 13 + e], 1e-12,
                             "q, instance " + std::to_string(i)));
    }
    EXPECT_EQ(status[0], 0);
    EXPECT_EQ(status[2], 0);
  }
}

// The integrator state of checkpoints (kernels/dopri5_state.hpp): rows taken after 10
// grid steps and written back with Y after 10 more continue bit-identically to the run
// that went on; and the CPU backend, given the same state and rows (its layout), continues
// the same integration: its states after 10 more grid steps equal the batch's to 1e-12.
TEST(Dopri5GridState, CheckpointRowsContinueTheIntegration) {
  std::vector<Model> models = test::example_models("double_pendulum", kInstances);
  for (Model& m : models) {
    m.solver.integrator = Integrator::Dopri5;
    m.solver.rtol = 1e-7;
    m.solver.atol = 1e-7;
  }
  const AssembledBatch asm_batch = assemble_batch(models, kInstances, 1);
  test::HostBatch<double> hb(models, kInstances, asm_batch, true);
  hb.enable_dopri5();
  test::CpuGridExec<double> x;
  int rounds = 0;
  advance_grid(x, hb, 10, &rounds);
  const int n = kInstances, ny = 13 * hb.N, size = batch::dopri5_state_size(ny, hb.packed.n_inputs);
  std::vector<double> rows(static_cast<std::size_t>(n) * size);
  for (int i = 0; i < n; ++i) batch::dopri5_state_get_thread(i, n, ny, hb.packed.n_inputs, hb.b.ad, rows.data());
  const std::vector<double> Y10 = hb.Y;
  advance_grid(x, hb, 10, &rounds);
  const std::vector<double> straight = hb.Y;
  hb.Y = Y10;
  hb.step[0] = 10;
  for (int i = 0; i < n; ++i)
    batch::dopri5_state_set_thread(i, n, ny, hb.packed.n_inputs, static_cast<const double*>(rows.data()),
                                   static_cast<const double*>(hb.Y.data()), hb.b.ad);
  advance_grid(x, hb, 10, &rounds);
  EXPECT_EQ(hb.Y, straight);

  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 1, SchurFactorization::Sparse);
  ASSERT_EQ(cpu.integrator_state_size(), size);
  std::vector<double> y(static_cast<std::size_t>(n) * ny);
  std::vector<std::int64_t> steps(n, 10);
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < ny; ++e) y[static_cast<std::size_t>(i) * ny + e] = Y10[static_cast<std::size_t>(e) * n + i];
  cpu.set_state(nullptr, n, y.data(), steps.data(), nullptr, nullptr, nullptr);
  cpu.set_integrator_state(rows.data());
  cpu.advance(10);
  std::vector<std::int64_t> accepted(n);
  cpu.read_step_statistics(accepted.data(), nullptr, nullptr, nullptr);
  cpu.get_state(nullptr, n, y.data(), nullptr, nullptr, nullptr, nullptr);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(accepted[i], hb.ad_counts[i]) << "the CPU continued the counts (no restart), instance " << i;
    for (int e = 0; e < ny; ++e)
      EXPECT_TRUE(near_rel(y[static_cast<std::size_t>(i) * ny + e], straight[static_cast<std::size_t>(e) * n + i], 1e-12,
                           "state, instance " + std::to_string(i)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, Dopri5Grid,
    ::testing::Combine(::testing::Values("pendulum", "four_bar", "spinning_top", "slider_crank_driven"),
                       ::testing::Values(Projection::None, Projection::PositionVelocity), ::testing::Bool(),
                       ::testing::Values(1e-6, 1e-9)),
    [](const ::testing::TestParamInfo<Dopri5Grid::ParamType>& p) {
      return std::get<0>(p.param) + (std::get<1>(p.param) == Projection::None ? "" : "_projected") +
             (std::get<2>(p.param) ? "_fused" : "_cuda") + (std::get<3>(p.param) < 1e-7 ? "_tight" : "");
    });

}  // namespace
}  // namespace simphant
