// solver.projection auto (dynamics/auto_projection.hpp; docs/solver.md, "Singular
// configurations"): what it resolves to per model, and per instance per step on every
// backend: a batch of parallelogram chains of which some swing through the flat
// configuration and the others stay below it, run through the batched paths over their
// whole grids on the CPU (kernels/batch_step.hpp, `cuda` and `cuda-fused`), through
// cpu-simd and through the CPU reference. Instances that never come near the flat
// configuration step exactly as without projection, whatever their neighbours do.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "parallelogram_chain.hpp"
#include "simphant/dynamics/auto_projection.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

/// n chains of 2 cells as a run makes them (redundant rows removed, auto resolved from the
/// first): even instances swing through flat (theta_max 0.3 rad), odd ones stay 0.4 rad
/// below it.
std::vector<Model> chain_batch(int n, const char* projection) {
  std::vector<Model> models;
  for (int i = 0; i < n; ++i) {
    test::ParallelogramChain ch;
    ch.cells = 2;
    ch.theta_max = i % 2 == 0 ? 0.3 : -0.4;
    models.push_back(parse_scene(ch.scene(1e-3, 1.0, projection).dump()).model);
  }
  set_removed_rows(models);
  set_auto_projection(models);
  return models;
}

// What auto resolves to: a tree (the pendulum, the double pendulum), an adaptive
// integrator and a model without rows get none; a closed loop keeps auto with
// min(1e-3, the power of ten at or above 1e-2 rho_0): the chain (rho_0 = 0.05) 1e-3,
// Bricard (rho_0 = 1.8e-5, its rows near-dependent everywhere) 1e-6, the four-bar
// (1.8e-3) 1e-4.
TEST(AutoProjection, ResolvesPerModel) {
  const auto resolved = [](std::vector<Model> m) {
    for (Model& x : m) x.solver.projection = Projection::Auto;
    set_auto_projection(m);
    return m.front().solver;
  };
  for (const char* tree : {"pendulum", "double_pendulum", "spinning_top"}) {
    const SolverSettings s = resolved(test::example_models(tree, 1));
    EXPECT_EQ(s.projection, Projection::None) << tree;
    EXPECT_EQ(s.auto_projection_pivot, 0.0) << tree;
  }
  std::vector<Model> adaptive = test::example_models("four_bar", 1);
  adaptive.front().solver.integrator = Integrator::Dopri5;
  EXPECT_EQ(resolved(adaptive).projection, Projection::None);
  const SolverSettings chain = chain_batch(1, "auto").front().solver;
  EXPECT_EQ(chain.projection, Projection::Auto);
  EXPECT_DOUBLE_EQ(chain.auto_projection_pivot, 1e-3);
  for (const auto& [loop, pivot] : {std::pair<const char*, double>{"bricard", 1e-6}, {"four_bar", 1e-4}}) {
    const SolverSettings s = resolved(test::example_models(loop, 1));
    EXPECT_EQ(s.projection, Projection::Auto) << loop;
    EXPECT_DOUBLE_EQ(s.auto_projection_pivot, pivot) << loop;
  }
  EXPECT_DOUBLE_EQ(auto_projection_pivot(0.05), 1e-3);
  EXPECT_DOUBLE_EQ(auto_projection_pivot(0.011), 1e-3);
  EXPECT_DOUBLE_EQ(auto_projection_pivot(0.0099), 1e-4);
  EXPECT_DOUBLE_EQ(auto_projection_pivot(0.0), 0.0);
  std::vector<Model> given = test::example_models("four_bar", 1);
  given.front().solver.projection = Projection::PositionVelocity;
  set_auto_projection(given);
  EXPECT_EQ(given.front().solver.projection, Projection::PositionVelocity);
}

// The `cuda` path's bookkeeping for auto (kernels/projection.hpp): what a projection's
// solves record (the refined solve's record, the rank watch, the step's pivot, the
// recoveries, fail) is saved before them and given back after them to an instance that
// does not project in this step (its saved step pivot at or above the auto pivot), and
// kept for one that does.
TEST(AutoProjection, SaveAndRestoreGiveBackWhatTheSolvesRecordedOfInstancesThatDoNotProject) {
  const int n = 2;
  const std::vector<Model> models = chain_batch(n, "auto");
  const AssembledBatch asm_batch = assemble_batch(models, n, 1);
  test::HostBatch<double> hb(models, n, asm_batch, false);
  const double pivot = models.front().solver.auto_projection_pivot;
  const auto fill = [&](double v) {
    for (int i = 0; i < n; ++i) {
      hb.pivot_min[i] = v;
      hb.pivot_min_time[i] = v + 1;
      hb.refine_worst[i] = v + 2;
      hb.refine_worst_time[i] = v + 3;
      hb.refine_unconverged[i] = static_cast<int>(v) + 4;
      hb.recoveries[i] = static_cast<int>(v) + 5;
      hb.fail[i] = static_cast<int>(v) + 6;
    }
  };
  fill(10);
  hb.step_pivot = {2 * pivot, 0.5 * pivot};  // instance 0 does not project, instance 1 does
  for (int i = 0; i < n; ++i) batch::projection_save_thread(i, hb.mv, hb.b);
  fill(20);
  hb.step_pivot = {0.1 * pivot, 0.1 * pivot};  // what the solves lowered
  for (int i = 0; i < n; ++i) batch::projection_restore_thread(i, hb.mv, hb.b);
  const double expect[2] = {10, 20};
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(hb.step_pivot[i], i == 0 ? 2 * pivot : 0.1 * pivot) << i;
    EXPECT_EQ(hb.pivot_min[i], expect[i]) << i;
    EXPECT_EQ(hb.pivot_min_time[i], expect[i] + 1) << i;
    EXPECT_EQ(hb.refine_worst[i], expect[i] + 2) << i;
    EXPECT_EQ(hb.refine_worst_time[i], expect[i] + 3) << i;
    EXPECT_EQ(hb.refine_unconverged[i], static_cast<int>(expect[i]) + 4) << i;
    EXPECT_EQ(hb.recoveries[i], static_cast<int>(expect[i]) + 5) << i;
    EXPECT_EQ(hb.fail[i], static_cast<int>(expect[i]) + 6) << i;
  }
}

void expect_same_states(const std::vector<double>& a, const std::vector<double>& b, double tol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  double worst = 0;
  for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]) / std::max(1.0, std::fabs(b[e])));
  EXPECT_LE(worst, tol) << what;
}

std::vector<double> host_batch_states(const test::HostBatch<double>& hb) {
  const int n = hb.n, N = hb.N;
  std::vector<double> out(static_cast<std::size_t>(n) * N * 13);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < N; ++k)
      for (int c = 0; c < 13; ++c) {
        const int e = c < 7 ? 7 * k + c : 7 * N + 6 * k + (c - 7);
        out[(static_cast<std::size_t>(i) * N + k) * 13 + c] = hb.at(hb.Y, e, n, i);
      }
  return out;
}

struct CpuRun {
  std::vector<double> states;
  std::vector<RefinementRecord> rec;
  std::vector<std::int8_t> status;
};

CpuRun cpu_run(const std::vector<Model>& models, int n, int steps, SchurFactorization schur, bool simd = false) {
  CpuBackend cpu(std::make_shared<const std::vector<Model>>(models), n, 2, schur, simd);
  cpu.advance(steps);
  CpuRun r;
  r.states.resize(static_cast<std::size_t>(n) * models.front().n_bodies() * 13);
  r.rec.resize(n);
  r.status.resize(n);
  std::vector<double> t(n);
  std::vector<std::int8_t> reason(n);
  cpu.read_states(r.states.data());
  cpu.read_refinement(r.rec.data());
  cpu.read_status(r.status.data(), t.data(), reason.data());
  return r;
}

// 400 steps (the first flat passage at 0.25 s): the even instances project near it and
// stay on their branch, the odd ones never project. On the CPU reference an odd instance's
// state equals, bit for bit, the same batch run with projection none; an even one's
// differs. The `cuda` path (its projection solves run for every instance, what they record
// given back to the instances that do not project) equals the dense CPU backend, the
// `cuda-fused` path (each thread decides for itself) the sparse one, to 1e-12 relative as
// the paths agree without projection (tests/test_kernel_grid.cpp), with the records of the
// refined solves and the rank watch; cpu-simd (a group of 8 lanes mixing both kinds, and a
// padded one) equals the sparse cpu backend.
TEST(AutoProjection, EachInstanceDecidesForItselfOnEveryBackend) {
  const int n = 3, steps = 400;
  const std::vector<Model> models = chain_batch(n, "auto");
  ASSERT_EQ(models.front().solver.projection, Projection::Auto);
  const CpuRun dense = cpu_run(models, n, steps, SchurFactorization::Dense);
  const CpuRun none = cpu_run(chain_batch(n, "none"), n, steps, SchurFactorization::Dense);
  const std::size_t per = dense.states.size() / n;
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(dense.status[i], 0) << i;
    bool same = true;
    for (std::size_t e = 0; e < per; ++e) same = same && dense.states[i * per + e] == none.states[i * per + e];
    EXPECT_EQ(same, i % 2 == 1) << "instance " << i;
    EXPECT_EQ(dense.rec[i].min_pivot < models.front().solver.auto_projection_pivot, i % 2 == 0) << i;
  }
  for (bool fused : {false, true}) {
    const CpuRun ref = fused ? cpu_run(models, n, steps, SchurFactorization::Sparse) : dense;
    const AssembledBatch asm_batch = assemble_batch(models, n, 1);
    test::HostBatch<double> hb(models, n, asm_batch, fused);
    test::CpuGridExec<double> x;
    for (int s = 0; s < steps; ++s) hb.rk4_step(x);
    const std::string path = fused ? "cuda-fused" : "cuda";
    expect_same_states(host_batch_states(hb), ref.states, 1e-12, path);
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(hb.status[i], ref.status[i]) << path << " " << i;
      EXPECT_EQ(hb.refine_unconverged[i], ref.rec[i].unconverged) << path << " " << i;
      EXPECT_NEAR(hb.pivot_min[i], ref.rec[i].min_pivot, 1e-9 * ref.rec[i].min_pivot + 1e-14) << path << " " << i;
      EXPECT_EQ(hb.pivot_min_time[i], ref.rec[i].min_pivot_time) << path << " " << i;
    }
  }
  const int ns = 11;
  const std::vector<Model> many = chain_batch(ns, "auto");
  const CpuRun simd = cpu_run(many, ns, steps, SchurFactorization::Sparse, true);
  const CpuRun scalar = cpu_run(many, ns, steps, SchurFactorization::Sparse);
  expect_same_states(simd.states, scalar.states, 1e-12, "cpu-simd");
  for (int i = 0; i < ns; ++i) {
    EXPECT_EQ(simd.status[i], scalar.status[i]) << i;
    EXPECT_EQ(simd.rec[i].unconverged, scalar.rec[i].unconverged) << i;
    EXPECT_NEAR(simd.rec[i].min_pivot, scalar.rec[i].min_pivot, 1e-9 * scalar.rec[i].min_pivot + 1e-14) << i;
    EXPECT_EQ(simd.rec[i].min_pivot_time, scalar.rec[i].min_pivot_time) << i;
  }
}

}  // namespace
}  // namespace simphant
