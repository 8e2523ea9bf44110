// The `cpu-simd` backend (CpuBackend with simd = true, sim/cpu_simd_engine.hpp) against
// the `cpu` reference with the same topology-ordered sparse factorisation:
//  - every example scene it runs, after 300 steps in three advances: states, reactions,
//    energies, violations and statuses equal to round-off;
//  - bit for bit across thread counts (1, 2, 3) and batch sizes that are not a multiple
//    of the lane width (an instance's trajectory does not depend on its neighbours);
//  - reductions over time, set_state / reset / set_models / set_inputs between advances,
//    a checkpoint-style resume (bitwise equal to the uninterrupted run), diverging
//    instances frozen with the reference's status, step and reason;
//  - the scenes it does not run (dopri5, bdf, joint-space robots) refused by name, and
//    Simulator's backend choice.
//
// Tolerances: both paths evaluate the same formulas in fp64, but cpu-simd assembles the
// Schur complement block by block into its factor (kernels/fused_solve.hpp) where the
// reference goes through Data (dynamics/evaluate.cpp), so each step differs by a few ulps
// and 300 steps stay within 1e-12 relative (max(1, |x|)) of the reference: the bound the
// per-thread sequences are held to on the same examples (tests/test_kernel_grid.cpp,
// docs/solver.md). Measured here: at most 2.3e-14 (arm7), Bricard 9.3e-14, the others
// 0 to 3.2e-15; rk4 / euler / symplectic_euler with each projection on the four-bar at
// most 3.7e-15. Bricard's redundant rows make lambda depend on the regularisation's
// round-off (tests/redundant_rows.hpp): its reactions to kRedundantLambdaTol.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "example_models.hpp"
#include "mimic_hand.hpp"
#include "redundant_rows.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

using Models = std::shared_ptr<const std::vector<Model>>;

::testing::AssertionResult near_rel(double a, double b, double tol, const std::string& what) {
  if (std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << a << " vs reference " << b;
}

/// Every examples/*.json scene by stem, sorted.
std::vector<std::string> example_scenes() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SIMPHANT_SOURCE_DIR) + "/examples"))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Models example(const std::string& name, int n) {
  return std::make_shared<const std::vector<Model>>(test::example_models(name, n));
}

/// What the tests compare of a backend: its state rows and per-instance bookkeeping.
struct Snapshot {
  std::vector<double> y;
  std::vector<std::int64_t> steps, status_steps;
  std::vector<std::int8_t> status, reasons;
};

Snapshot snapshot(const Backend& b) {
  const int n = b.n_instances();
  Snapshot s;
  s.y.resize(static_cast<std::size_t>(n) * b.state_size());
  s.steps.resize(n);
  s.status_steps.resize(n);
  s.status.resize(n);
  s.reasons.resize(n);
  b.get_state(nullptr, n, s.y.data(), s.steps.data(), s.status.data(), s.status_steps.data(), s.reasons.data());
  return s;
}

void expect_bitwise(const Snapshot& a, const Snapshot& b, const std::string& what) {
  ASSERT_EQ(a.y.size(), b.y.size()) << what;
  EXPECT_EQ(std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(double)), 0) << what << ": states differ";
  EXPECT_EQ(a.steps, b.steps) << what;
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.status_steps, b.status_steps) << what;
  EXPECT_EQ(a.reasons, b.reasons) << what;
}

/// cpu-simd vs cpu: statuses and clocks exactly, states and violations to state_tol,
/// energies to 1e-11 relative.
void expect_near_cpu(const CpuBackend& simd, const CpuBackend& cpu, double state_tol, const std::string& what) {
  const int n = cpu.n_instances(), ny = cpu.state_size();
  const Snapshot a = snapshot(simd), b = snapshot(cpu);
  EXPECT_EQ(a.status, b.status) << what;
  EXPECT_EQ(a.reasons, b.reasons) << what;
  EXPECT_EQ(a.status_steps, b.status_steps) << what;
  EXPECT_EQ(a.steps, b.steps) << what;
  for (std::size_t e = 0; e < a.y.size(); ++e)
    ASSERT_TRUE(near_rel(a.y[e], b.y[e], state_tol, what + " instance " + std::to_string(e / ny) + " y[" +
                                                        std::to_string(e % ny) + "]"));
  std::vector<double> ea(n), eb(n), ka(n), kb(n), va(n), vb(n);
  simd.read_energy(ea.data(), ka.data());
  cpu.read_energy(eb.data(), kb.data());
  simd.read_constraint_violation(va.data());
  cpu.read_constraint_violation(vb.data());
  for (int i = 0; i < n; ++i) {
    // Energies [J] of order 1..100: 1e-11 relative (one more digit of the state's
    // rounding through the kinetic and potential sums, as tests/test_kernel_grid.cpp).
    EXPECT_TRUE(near_rel(ea[i], eb[i], 1e-11, what + " energy"));
    EXPECT_TRUE(near_rel(ka[i], kb[i], 1e-11, what + " kinetic energy"));
    // Violations are ~1e-10 and differ by the states' rounding.
    EXPECT_NEAR(va[i], vb[i], state_tol) << what << " violation of instance " << i;
  }
}

// ---------------------------------------------------------------------------------------

constexpr int kInstances = 9;  // one group of lanes and one padded group
constexpr int kSteps = 300;

TEST(CpuSimdBackend, EveryExampleItRunsEqualsCpu) {
  int ran = 0;
  for (const std::string& name : example_scenes()) {
    SCOPED_TRACE(name);
    const Models models = example(name, kInstances);
    const std::string why = cpu_simd_unsupported(models->front());
    if (!why.empty()) {
      // Refused with the reason (sim/backend_rules.hpp's words for an integrator; the
      // scene field for a robot's solver), not run.
      try {
        CpuBackend b(models, kInstances, 1, SchurFactorization::Auto, true);
        ADD_FAILURE() << "cpu-simd accepted a scene it does not run";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      }
      continue;
    }
    ++ran;
    CpuBackend simd(models, kInstances, 2, SchurFactorization::Auto, true);
    CpuBackend cpu(models, kInstances, 2, SchurFactorization::Sparse);
    EXPECT_STREQ(simd.name(), "cpu-simd");
    for (int a = 0; a < 3; ++a) {
      simd.advance(kSteps / 3);
      cpu.advance(kSteps / 3);
    }
    std::vector<double> y0(static_cast<std::size_t>(kInstances) * cpu.state_size());
    cpu.get_state(nullptr, kInstances, y0.data(), nullptr, nullptr, nullptr, nullptr);
    const bool redundant = test::has_redundant_rows(models->front(), y0.data());
    expect_near_cpu(simd, cpu, 1e-12, name);
    const Snapshot s = snapshot(cpu);
    for (int i = 0; i < kInstances; ++i) EXPECT_EQ(s.status[i], 0) << name << " instance " << i << " should stay ok";
    // Reactions: the same reads at states 1e-12 apart; lambda's conditioning (the
    // Tikhonov-regularised solve) makes them 1e-9 relative (redundant rows:
    // kRedundantLambdaTol, tests/redundant_rows.hpp).
    const int J = models->front().n_joints();
    std::vector<double> ra(static_cast<std::size_t>(kInstances) * 6 * J), rb(ra.size());
    simd.read_reactions(ra.data());
    cpu.read_reactions(rb.data());
    double scale = 0;
    for (double r : rb) scale = std::max(scale, std::fabs(r));
    for (std::size_t e = 0; e < ra.size(); ++e)
      EXPECT_LE(std::fabs(ra[e] - rb[e]), (redundant ? test::kRedundantLambdaTol : 1e-9) * std::max(1.0, scale))
          << "reaction entry " << e;
  }
  EXPECT_GE(ran, 10);
}

// The first-order integrators and the projections onto the constraint manifold
// (solver.projection, kernels/projection.hpp) equal the reference too (the examples above
// run rk4 with their own projection).
TEST(CpuSimdBackend, IntegratorsAndProjectionsEqualCpu) {
  for (const char* name : {"four_bar"})
    for (Integrator integrator : {Integrator::Rk4, Integrator::Euler, Integrator::SymplecticEuler})
      for (Projection projection : {Projection::None, Projection::Velocity, Projection::PositionVelocity}) {
        std::vector<Model> m = test::example_models(name, kInstances);
        for (Model& x : m) {
          x.solver.integrator = integrator;
          x.solver.projection = projection;
        }
        const Models models = std::make_shared<const std::vector<Model>>(std::move(m));
        CpuBackend simd(models, kInstances, 2, SchurFactorization::Auto, true);
        CpuBackend cpu(models, kInstances, 1, SchurFactorization::Sparse);
        simd.advance(50);
        cpu.advance(50);
        simd.advance(50);
        cpu.advance(50);
        expect_near_cpu(simd, cpu, 1e-12,
                        std::string(name) + " " + integrator_name(integrator) + " " + projection_name(projection));
      }
}

// A robot with mimic rows (four-sided constraint elements, kernels/joint_rows.hpp; two
// mimic rows sharing the palm at two sides each, tests/mimic_hand.hpp) with each
// projection: cpu-simd equals the reference (its mimic rows evaluated per lane, the rest
// in the lanes) to the examples' 1e-12.
TEST(CpuSimdBackend, MimicRowsEqualCpu) {
  for (Projection projection : {Projection::None, Projection::Velocity, Projection::PositionVelocity}) {
    std::vector<Model> m = test::mimic_hand_models(kInstances);
    ASSERT_EQ(m[0].n_mimics(), 2);
    for (Model& x : m) x.solver.projection = projection;
    const Models models = std::make_shared<const std::vector<Model>>(std::move(m));
    ASSERT_EQ(cpu_simd_unsupported(models->front()), "");
    CpuBackend simd(models, kInstances, 2, SchurFactorization::Auto, true);
    CpuBackend cpu(models, kInstances, 1, SchurFactorization::Sparse);
    for (int a = 0; a < 2; ++a) {
      simd.advance(kSteps / 2);
      cpu.advance(kSteps / 2);
    }
    expect_near_cpu(simd, cpu, 1e-12, std::string("mimic hand ") + projection_name(projection));
    const Snapshot s = snapshot(cpu);
    for (int i = 0; i < kInstances; ++i) EXPECT_EQ(s.status[i], 0) << "instance " << i << " should stay ok";
  }
}

// Instance i's trajectory does not depend on the thread count nor on the batch it is in
// (lane l of a group computes only instance g W + l): bit for bit.
TEST(CpuSimdBackend, BitwiseAcrossThreadsAndBatchSizes) {
  const std::vector<Model> all = test::example_models("double_pendulum", 17);
  std::vector<Snapshot> by_size;
  for (int n : {1, 7, 9, 17}) {
    const Models models = std::make_shared<const std::vector<Model>>(all.begin(), all.begin() + n);
    Snapshot one;
    for (int threads : {1, 2, 3}) {
      CpuBackend b(models, n, threads, SchurFactorization::Auto, true);
      b.advance(60);
      b.advance(40);
      if (threads == 1)
        one = snapshot(b);
      else
        expect_bitwise(snapshot(b), one, "n " + std::to_string(n) + ", " + std::to_string(threads) + " threads");
    }
    by_size.push_back(one);
  }
  const int ny = all.front().ny();
  for (std::size_t k = 0; k + 1 < by_size.size(); ++k) {
    const Snapshot& small = by_size[k];
    const Snapshot& big = by_size.back();
    EXPECT_EQ(std::memcmp(small.y.data(), big.y.data(), small.y.size() * sizeof(double)), 0)
        << "batch of " << small.status.size() << " vs 17";
    EXPECT_EQ(small.y.size() % static_cast<std::size_t>(ny), 0u);
  }
}

TEST(CpuSimdBackend, ReductionsEqualCpu) {
  const Models models = example("slider_crank_driven", kInstances);
  const Model& m0 = models->front();
  const std::vector<ReductionQuantity> q = parse_reduction_quantities(
      {"reactions", "driver_loads", "constraint_violation", "energy"}, m0.n_drivers(), "output.reductions");
  CpuBackend simd(models, kInstances, 2, SchurFactorization::Auto, true);
  CpuBackend cpu(models, kInstances, 1, SchurFactorization::Sparse);
  simd.set_reductions(q);
  cpu.set_reductions(q);
  // A reset instance restarts its clock (offset): the maxima's times are its own.
  simd.advance(50);
  cpu.advance(50);
  const int reset_id = 4;
  simd.reset(&reset_id, 1);
  cpu.reset(&reset_id, 1);
  simd.advance(70);
  cpu.advance(70);
  const ReductionLayout L = cpu.reduction_layout();
  ASSERT_TRUE(L.any());
  std::vector<double> ra(static_cast<std::size_t>(kInstances) * L.channels * kReductionStats), rb(ra.size());
  simd.read_reductions(ra.data());
  cpu.read_reductions(rb.data());
  for (int i = 0; i < kInstances; ++i)
    for (int c = 0; c < L.channels; ++c) {
      const double* a = ra.data() + (static_cast<std::size_t>(i) * L.channels + c) * kReductionStats;
      const double* b = rb.data() + (static_cast<std::size_t>(i) * L.channels + c) * kReductionStats;
      for (int k = 0; k < 4; ++k)  // max, min, mean, rms: of loads up to ~1e3 N, from states 1e-12 apart
        EXPECT_TRUE(near_rel(a[k], b[k], 1e-9, "instance " + std::to_string(i) + " channel " + std::to_string(c)));
      // The time of the maximum, unless two samples tie to round-off.
      if (std::fabs(a[4] - b[4]) > 0.5 * m0.solver.dt) {
        EXPECT_NEAR(a[0], b[0], 1e-9 * std::max(1.0, std::fabs(b[0])));
      }
    }
  // The accumulators round-trip (a checkpoint's reduction state).
  std::vector<double> acc(static_cast<std::size_t>(kInstances) * L.size()), back(acc.size());
  simd.get_reduction_state(acc.data());
  simd.set_reduction_state(acc.data());
  simd.get_reduction_state(back.data());
  EXPECT_EQ(acc, back);
}

// set_state (state, clock, status), reset, set_models and set_inputs between advances act
// on cpu-simd as on cpu.
TEST(CpuSimdBackend, InstanceStateCallsBetweenAdvances) {
  const Models models = example("slider_crank", kInstances);
  const std::vector<Model> other = test::example_models("slider_crank", 2 * kInstances);
  CpuBackend simd(models, kInstances, 3, SchurFactorization::Auto, true);
  CpuBackend cpu(models, kInstances, 1, SchurFactorization::Sparse);
  auto both = [&](auto&& f) {
    f(static_cast<Backend&>(simd));
    f(static_cast<Backend&>(cpu));
  };
  both([](Backend& b) { b.advance(40); });
  // Instance 2 takes instance 5's state and a clock of 7 steps; instance 8 is marked diverged by hand.
  const Snapshot s = snapshot(cpu);
  const int ny = cpu.state_size();
  const int id2 = 2, id8 = 8;
  const std::int64_t steps7 = 7;
  const std::int8_t diverged = 2, runaway = 3;
  const std::int64_t at = 11;
  both([&](Backend& b) {
    b.set_state(&id2, 1, s.y.data() + 5 * ny, &steps7, nullptr, nullptr, nullptr);
    b.set_state(&id8, 1, nullptr, nullptr, &diverged, &at, &runaway);
  });
  both([](Backend& b) { b.advance(30); });
  // Instances 0 and 6 reset; 1 and 3 get new models (from a larger sample); inputs changed on 4.
  const int resets[] = {0, 6};
  const int ids[] = {1, 3};
  const Model fresh[] = {other[12], other[15]};
  both([&](Backend& b) {
    b.reset(resets, 2);
    b.set_models(ids, 2, fresh);
  });
  const int n_in = models->front().n_inputs;
  ASSERT_GT(n_in, 0) << "slider_crank has an actuator input";
  std::vector<double> u(static_cast<std::size_t>(n_in), 0.0);
  for (int k = 0; k < n_in; ++k) u[k] = 0.5 + 0.25 * k;
  const int id4 = 4;
  both([&](Backend& b) {
    b.set_inputs(&id4, 1, u.data());
    b.advance(50);
  });
  expect_near_cpu(simd, cpu, 1e-12, "after set_state / reset / set_models / set_inputs");
  const Snapshot a = snapshot(simd);
  EXPECT_EQ(a.status[8], 2);
  EXPECT_EQ(a.reasons[8], 3);
  EXPECT_EQ(a.status_steps[8], 11);
  EXPECT_EQ(a.steps[2], 7 + 30 + 50);
  EXPECT_EQ(a.steps[0], 50);
}

// A batch that shares one model gets per-instance parameters when set_models gives an
// instance different ones (a shared parameter becomes per instance).
TEST(CpuSimdBackend, SetModelsOnASharedModelBatch) {
  const std::vector<Model> sample = test::example_models("four_bar", 4);
  const Models shared = std::make_shared<const std::vector<Model>>(1, sample[0]);
  CpuBackend simd(shared, kInstances, 2, SchurFactorization::Auto, true);
  CpuBackend cpu(shared, kInstances, 1, SchurFactorization::Sparse);
  simd.advance(30);
  cpu.advance(30);
  const int ids[] = {3, 8};
  const Model fresh[] = {sample[2], sample[3]};
  simd.set_models(ids, 2, fresh);
  cpu.set_models(ids, 2, fresh);
  simd.advance(100);
  cpu.advance(100);
  expect_near_cpu(simd, cpu, 1e-12, "after set_models on a shared batch");
  // The new parameters are used: instance 3 no longer moves as instance 0.
  const Snapshot a = snapshot(simd);
  const int ny = simd.state_size();
  EXPECT_FALSE(std::equal(a.y.begin(), a.y.begin() + ny, a.y.begin() + 3 * ny));
  EXPECT_TRUE(std::equal(a.y.begin(), a.y.begin() + ny, a.y.begin() + 5 * ny)) << "instances 0 and 5 share a model";
}

// A checkpoint holds each instance's state, clock, status and the reductions'
// accumulators; a fresh backend set to them continues bit for bit as the uninterrupted one.
TEST(CpuSimdBackend, ResumeEqualsUninterruptedRun) {
  const Models models = example("four_bar", kInstances);
  const std::vector<ReductionQuantity> q =
      parse_reduction_quantities({"reactions", "energy"}, models->front().n_drivers(), "output.reductions");
  CpuBackend whole(models, kInstances, 2, SchurFactorization::Auto, true);
  CpuBackend first(models, kInstances, 1, SchurFactorization::Auto, true);
  whole.set_reductions(q);
  first.set_reductions(q);
  whole.advance(120);
  whole.advance(80);
  first.advance(120);
  const Snapshot cp = snapshot(first);
  std::vector<double> acc(static_cast<std::size_t>(kInstances) * first.reduction_layout().size());
  first.get_reduction_state(acc.data());
  CpuBackend resumed(models, kInstances, 3, SchurFactorization::Auto, true);
  resumed.set_reductions(q);
  resumed.set_state(nullptr, kInstances, cp.y.data(), cp.steps.data(), cp.status.data(), cp.status_steps.data(),
                    cp.reasons.data());
  resumed.set_reduction_state(acc.data());
  resumed.advance(80);
  expect_bitwise(snapshot(resumed), snapshot(whole), "resumed vs uninterrupted");
  std::vector<double> ra(static_cast<std::size_t>(kInstances) * resumed.reduction_layout().channels * kReductionStats),
      rb(ra.size());
  resumed.read_reductions(ra.data());
  whole.read_reductions(rb.data());
  EXPECT_EQ(ra, rb);
}

// Diverging instances are frozen at their last good state with the reference's status,
// status step and reason (a failed step, or the end-of-advance check); the others go on
// unaffected.
TEST(CpuSimdBackend, DivergingInstancesFrozenAsOnCpu) {
  const Models models = example("double_pendulum", kInstances);
  CpuBackend simd(models, kInstances, 2, SchurFactorization::Auto, true);
  CpuBackend cpu(models, kInstances, 1, SchurFactorization::Sparse);
  simd.advance(20);
  cpu.advance(20);
  Snapshot s = snapshot(cpu);
  const int ny = cpu.state_size(), N = models->front().n_bodies();
  // Instance 3: velocities x 1e3 (kinetic energy x 1e6 passes the runaway bound);
  // instance 7: a NaN in a position (non-finite); instance 8: positions off the manifold
  // by 0.1 (constraint violation at the start state).
  for (int e = 7 * N; e < ny; ++e) s.y[3 * static_cast<std::size_t>(ny) + e] *= 1e3;
  s.y[7 * static_cast<std::size_t>(ny) + 1] = std::nan("");
  s.y[8 * static_cast<std::size_t>(ny) + 0] += 0.1;
  const int ids[] = {3, 7, 8};
  for (Backend* b : {static_cast<Backend*>(&simd), static_cast<Backend*>(&cpu)})
    for (int k = 0; k < 3; ++k) b->set_state(&ids[k], 1, s.y.data() + ids[k] * static_cast<std::size_t>(ny), nullptr,
                                             nullptr, nullptr, nullptr);
  // advance(0) runs only the end-of-advance check: instance 8's violation marks it.
  simd.advance(0);
  cpu.advance(0);
  const Snapshot c0 = snapshot(simd);
  EXPECT_EQ(c0.status, snapshot(cpu).status);
  EXPECT_EQ(c0.status[8], 2);
  EXPECT_EQ(c0.reasons[8], 2);
  EXPECT_EQ(c0.status_steps[8], 20);
  EXPECT_EQ(c0.status[3], 0);
  simd.advance(25);
  cpu.advance(25);
  const Snapshot a = snapshot(simd), b = snapshot(cpu);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.reasons, b.reasons);
  EXPECT_EQ(a.status_steps, b.status_steps);
  for (int i : ids) {
    EXPECT_EQ(a.status[i], 2) << "instance " << i;
    for (int e = 0; e < ny; ++e) {
      const double x = a.y[static_cast<std::size_t>(i) * ny + e], r = b.y[static_cast<std::size_t>(i) * ny + e];
      if (std::isnan(r))
        EXPECT_TRUE(std::isnan(x));
      else
        EXPECT_TRUE(near_rel(x, r, 1e-12, "frozen state of instance " + std::to_string(i)));
    }
  }
  EXPECT_EQ(a.reasons[3], 3);  // runaway
  EXPECT_EQ(a.reasons[7], 1);  // non_finite
  EXPECT_EQ(a.reasons[8], 2);  // constraint_violation
  std::vector<std::int8_t> st(kInstances), rs(kInstances);
  std::vector<double> ta(kInstances), tb(kInstances);
  simd.read_status(st.data(), ta.data(), rs.data());
  cpu.read_status(st.data(), tb.data(), rs.data());
  EXPECT_EQ(ta, tb);
  for (int i = 0; i < kInstances; ++i)
    if (i != 3 && i != 7 && i != 8) {
      EXPECT_EQ(a.status[i], 0) << "instance " << i;
    }
}

TEST(CpuSimdBackend, RefusesWhatItDoesNotRun) {
  std::vector<Model> m = test::example_models("pendulum", 1);
  m[0].solver.integrator = Integrator::Dopri5;
  const Models dopri5 = std::make_shared<const std::vector<Model>>(m);
  try {
    CpuBackend b(dopri5, 8, 1, SchurFactorization::Auto, true);
    ADD_FAILURE() << "dopri5 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("integrator dopri5 runs on the cpu backend"), std::string::npos) << e.what();
  }
  SimulatorOptions o;
  o.backend = "cpu-simd";
  EXPECT_THROW(Simulator::create(m, o, 8), std::invalid_argument);
  const Models pendulum = example("pendulum", 1);
  EXPECT_THROW(CpuBackend(pendulum, 8, 1, SchurFactorization::Dense, true), std::invalid_argument);
}

// Simulator: "cpu-simd" by name; "auto" without a CUDA device picks it for a batch of at
// least one group of lanes where it runs the scene, else cpu.
TEST(CpuSimdBackend, SimulatorBackendChoice) {
  const std::vector<Model> m = test::example_models("four_bar", 1);
  SimulatorOptions named;
  named.backend = "cpu-simd";
  named.threads = 1;
  auto sim = Simulator::create(m, named, 3);
  EXPECT_STREQ(sim->backend_name(), "cpu-simd");
  EXPECT_NE(sim->backend_details().find("SIMD lanes"), std::string::npos) << sim->backend_details();
  if (cuda_device_count() > 0) GTEST_SKIP() << "auto picks a CUDA path on this machine";
  SimulatorOptions a;
  a.threads = 1;
  EXPECT_STREQ(Simulator::create(m, a, simd::kLaneWidth)->backend_name(), "cpu-simd");
  EXPECT_STREQ(Simulator::create(m, a, simd::kLaneWidth - 1)->backend_name(), "cpu");
  std::vector<Model> d = m;
  d[0].solver.integrator = Integrator::Dopri5;
  EXPECT_STREQ(Simulator::create(d, a, 16)->backend_name(), "cpu");
}

}  // namespace
}  // namespace simphant
