// The CPU side of the device backends' per-instance state: the per-thread functions of
// kernels/instance_state.hpp run over their whole grids (threads past the end
// included) on host arrays pre-filled with NaN, and batch::set_instance_params, which
// writes a new model's parameters into a packed batch (host/cuda_backend_state.cuh).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "instance_state.hpp"
#include "simphant/batch/batch_pack.hpp"

namespace simphant {
namespace {

/// Runs f(tid) over the grid a launch of n_threads threads covers (whole blocks).
template <class F>
void run_grid(int n_threads, F f) {
  test::CpuGridExec<double>().launch("test", n_threads, f);
}

constexpr int kN = 5, kWidth = 4;

/// soa[e * n + i] = 100 i + e.
std::vector<double> numbered() {
  std::vector<double> a(kN * kWidth);
  for (int i = 0; i < kN; ++i)
    for (int e = 0; e < kWidth; ++e) a[static_cast<std::size_t>(e) * kN + i] = 100.0 * i + e;
  return a;
}

TEST(InstanceStateKernels, GatherRowsOfListedInstances) {
  const std::vector<double> soa = numbered();
  const int ids[] = {3, 0};
  std::vector<double> rows(2 * kWidth, std::nan(""));
  run_grid(2, [&](int tid) { batch::gather_rows_thread(tid, kN, kWidth, 2, ids, soa.data(), rows.data()); });
  for (int e = 0; e < kWidth; ++e) {
    EXPECT_EQ(rows[static_cast<std::size_t>(e)], 300.0 + e);
    EXPECT_EQ(rows[static_cast<std::size_t>(kWidth + e)], 0.0 + e);
  }
  std::vector<double> all(kN * kWidth, std::nan(""));
  run_grid(kN, [&](int tid) { batch::gather_rows_thread(tid, kN, kWidth, kN, nullptr, soa.data(), all.data()); });
  for (int i = 0; i < kN; ++i)
    for (int e = 0; e < kWidth; ++e) EXPECT_EQ(all[static_cast<std::size_t>(i) * kWidth + e], 100.0 * i + e);
}

TEST(InstanceStateKernels, ScatterRowsConvertsAndLeavesTheOthers) {
  std::vector<float> soa(kN * kWidth, std::numeric_limits<float>::quiet_NaN());
  const int ids[] = {4, 1};
  // Doubles that are floats exactly round-trip; 0.1 rounds to the nearest float.
  const std::vector<double> rows = {0.5, -2.0, 1e-3, 0.1, 7.0, 8.0, 9.0, 10.0};
  run_grid(2, [&](int tid) { batch::scatter_rows_thread(tid, kN, kWidth, 2, ids, rows.data(), soa.data()); });
  for (int e = 0; e < kWidth; ++e) {
    EXPECT_EQ(soa[static_cast<std::size_t>(e) * kN + 4], static_cast<float>(rows[static_cast<std::size_t>(e)]));
    EXPECT_EQ(soa[static_cast<std::size_t>(e) * kN + 1], static_cast<float>(rows[static_cast<std::size_t>(kWidth + e)]));
    for (int i : {0, 2, 3}) EXPECT_TRUE(std::isnan(soa[static_cast<std::size_t>(e) * kN + i]));
  }
  // Gather back (float -> double) gives the float values exactly.
  std::vector<float> back(2 * kWidth);
  run_grid(2, [&](int tid) { batch::gather_rows_thread(tid, kN, kWidth, 2, ids, soa.data(), back.data()); });
  for (std::size_t e = 0; e < back.size(); ++e) EXPECT_EQ(back[e], static_cast<float>(rows[e]));
}

TEST(InstanceStateKernels, CopyColumnsResetsListedInstances) {
  const std::vector<double> Y0 = numbered();
  std::vector<double> Y(kN * kWidth, -1.0);
  const int ids[] = {2};
  run_grid(1, [&](int tid) { batch::copy_columns_thread(tid, kN, kWidth, 1, ids, Y0.data(), Y.data()); });
  for (int i = 0; i < kN; ++i)
    for (int e = 0; e < kWidth; ++e)
      EXPECT_EQ(Y[static_cast<std::size_t>(e) * kN + i], i == 2 ? 200.0 + e : -1.0) << i << ", " << e;
}

TEST(InstanceStateKernels, StatusGatherScatterAndReset) {
  std::vector<std::int8_t> status = {0, 2, 0, 1, 0};
  std::vector<std::int8_t> reason = {0, 3, 0, 5, 0};  // runaway, assembly failure
  std::vector<std::int64_t> status_step = {0, 40, 0, 0, 0};
  const int ids[] = {1, 3};
  std::vector<std::int8_t> st(2, -1), re(2, -1);
  std::vector<std::int64_t> ss(2, -1);
  run_grid(2, [&](int tid) {
    batch::gather_status_thread(tid, 2, ids, status.data(), status_step.data(), reason.data(), st.data(), ss.data(),
                                re.data());
  });
  EXPECT_EQ(st, (std::vector<std::int8_t>{2, 1}));
  EXPECT_EQ(ss, (std::vector<std::int64_t>{40, 0}));
  EXPECT_EQ(re, (std::vector<std::int8_t>{3, 5}));
  // Absolute steps, then deltas, then status alone. Without reasons, instance 1 (now ok)
  // gets none and instance 3 (now diverged) none: its assembly_failure does not fit.
  const std::int8_t new_status[] = {0, 2};
  const std::int64_t steps[] = {7, 9};
  run_grid(2, [&](int tid) {
    batch::scatter_status_thread(tid, 2, ids, new_status, steps, nullptr, 0, status.data(), status_step.data(),
                                 reason.data());
  });
  EXPECT_EQ(status, (std::vector<std::int8_t>{0, 0, 0, 2, 0}));
  EXPECT_EQ(status_step, (std::vector<std::int64_t>{0, 7, 0, 9, 0}));
  EXPECT_EQ(reason, (std::vector<std::int8_t>{0, 0, 0, 0, 0}));
  run_grid(2, [&](int tid) {
    batch::scatter_status_thread(tid, 2, ids, nullptr, steps, nullptr, 1, status.data(), status_step.data(),
                                 reason.data());
  });
  EXPECT_EQ(status_step, (std::vector<std::int64_t>{0, 14, 0, 18, 0}));
  // Statuses with their reasons.
  const std::int8_t diverged[] = {2, 2};
  const std::int8_t why[] = {1, 4};  // non_finite, factorisation_failure
  run_grid(2, [&](int tid) {
    batch::scatter_status_thread(tid, 2, ids, diverged, nullptr, why, 0, status.data(), status_step.data(),
                                 reason.data());
  });
  EXPECT_EQ(status, (std::vector<std::int8_t>{0, 2, 0, 2, 0}));
  EXPECT_EQ(reason, (std::vector<std::int8_t>{0, 1, 0, 4, 0}));
  // A diverged status without reasons keeps the reason that fits it.
  run_grid(2, [&](int tid) {
    batch::scatter_status_thread(tid, 2, ids, diverged, nullptr, nullptr, 0, status.data(), status_step.data(),
                                 reason.data());
  });
  EXPECT_EQ(reason, (std::vector<std::int8_t>{0, 1, 0, 4, 0}));
  // Reset: the assembly status and reason, and the batch step now.
  const std::vector<std::int8_t> status0 = {0, 0, 0, 1, 0};
  const std::vector<std::int8_t> reason0 = {0, 0, 0, 5, 0};
  run_grid(2, [&](int tid) {
    batch::reset_status_thread(tid, 2, ids, status0.data(), reason0.data(), 55, status.data(), status_step.data(),
                               reason.data());
  });
  EXPECT_EQ(status, (std::vector<std::int8_t>{0, 0, 0, 1, 0}));
  EXPECT_EQ(reason, (std::vector<std::int8_t>{0, 0, 0, 5, 0}));
  EXPECT_EQ(status_step, (std::vector<std::int64_t>{0, 55, 0, 55, 0}));
}

template <class T>
void check_set_instance_params() {
  const std::vector<Model> models = test::example_models("slider_crank", 4);
  batch::PackedModel<T> packed = batch::pack_models<T>(models, 4);
  const int varied0 = packed.n_varied();
  ASSERT_GT(varied0, 0);
  // Instance 2 gets instance 0's swept values and a new gravity (shared so far).
  Model m = models[0];
  m.gravity.z = -3.5;
  const std::vector<double> p = batch::flatten_params(m);
  const int added = batch::set_instance_params(packed, 2, p);
  EXPECT_EQ(added, 1);
  EXPECT_EQ(packed.n_varied(), varied0 + 1);
  const batch::ModelView<T> mv = packed.host_view();
  for (int i = 0; i < 4; ++i) {
    const std::vector<double> expect = batch::flatten_params(i == 2 ? m : models[static_cast<std::size_t>(i)]);
    for (int q = 0; q < packed.n_params; ++q) {
      const T want = static_cast<T>(expect[static_cast<std::size_t>(q)]);
      const T got = mv.param(q, i);
      EXPECT_EQ(std::memcmp(&want, &got, sizeof(T)), 0) << "instance " << i << ", parameter " << q;
    }
  }
  // The same values again add nothing.
  EXPECT_EQ(batch::set_instance_params(packed, 2, p), 0);
  EXPECT_THROW(batch::set_instance_params(packed, 4, p), std::invalid_argument);
  EXPECT_THROW(batch::set_instance_params(packed, 0, std::vector<double>(3)), std::invalid_argument);
}

TEST(InstanceStateKernels, SetInstanceParamsFp64) { check_set_instance_params<double>(); }
TEST(InstanceStateKernels, SetInstanceParamsFp32) { check_set_instance_params<float>(); }

TEST(InstanceStateKernels, SetInstanceParamsOnASharedModel) {
  // One model for every instance: nothing stored per instance until a value differs.
  const std::vector<Model> one = {test::example_models("pendulum", 1).front()};
  batch::PackedModel<double> packed = batch::pack_models<double>(one, 3);
  EXPECT_EQ(packed.n_varied(), 0);
  Model m = one.front();
  m.bodies[0].mass *= 2;
  EXPECT_EQ(batch::set_instance_params(packed, 1, batch::flatten_params(m)), 1);
  const batch::ModelView<double> mv = packed.host_view();
  EXPECT_EQ(mv.mass(0, 0), one.front().bodies[0].mass);
  EXPECT_EQ(mv.mass(0, 1), m.bodies[0].mass);
  EXPECT_EQ(mv.mass(0, 2), one.front().bodies[0].mass);
}

// The device path's get_state / set_state, emulated over the kernels of the step: a
// float batch's columns gathered, widened to double (get_state), narrowed back and
// scattered into another batch (set_state) continue bit-identically (both paths).
class InstanceStateOnTheStepKernels : public ::testing::TestWithParam<bool> {};

TEST_P(InstanceStateOnTheStepKernels, RoundTripThroughDoubleContinuesBitIdentically) {
  const int n = 3;
  const std::vector<Model> models = test::example_models("four_bar", n);
  const AssembledBatch assembled = assemble_batch(models, n, 1);
  test::HostBatch<float> a(models, n, assembled, GetParam()), b(models, n, assembled, GetParam());
  test::CpuGridExec<float> x;
  for (int s = 0; s < 20; ++s) a.rk4_step(x);
  for (int s = 0; s < 7; ++s) b.rk4_step(x);
  const int ny = 13 * a.N;
  std::vector<float> rows(static_cast<std::size_t>(n) * ny);
  x.launch("gather", n, [&](int tid) { batch::gather_rows_thread(tid, n, ny, n, nullptr, a.Y.data(), rows.data()); });
  const std::vector<double> y(rows.begin(), rows.end());  // get_state's y
  x.launch("scatter", n, [&](int tid) { batch::scatter_rows_thread(tid, n, ny, n, nullptr, y.data(), b.Y.data()); });
  EXPECT_EQ(std::memcmp(a.Y.data(), b.Y.data(), a.Y.size() * sizeof(float)), 0);
  for (int s = 0; s < 30; ++s) {
    a.rk4_step(x);
    b.rk4_step(x);
  }
  EXPECT_EQ(std::memcmp(a.Y.data(), b.Y.data(), a.Y.size() * sizeof(float)), 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(a.status[static_cast<std::size_t>(i)], 0);
}

// The device path's set_models, emulated: instance 1's parameters written by
// set_instance_params (a shared parameter becoming per instance) and its assembled
// state scattered into its column run as a batch packed with that model from the start.
TEST_P(InstanceStateOnTheStepKernels, NewModelEqualsABatchPackedWithIt) {
  const int n = 3;
  const std::vector<Model> models = test::example_models("slider_crank", n);
  std::vector<Model> changed = models;
  changed[1].gravity.z = -7.0;
  changed[1].bodies[1].mass *= 1.5;
  const AssembledBatch assembled = assemble_batch(models, n, 1);
  const AssembledBatch assembled_changed = assemble_batch(changed, n, 1);
  test::HostBatch<double> a(models, n, assembled, GetParam()), ref(changed, n, assembled_changed, GetParam());
  EXPECT_EQ(batch::set_instance_params(a.packed, 1, batch::flatten_params(changed[1])), 2);
  a.mv = a.packed.host_view();  // param_varied grew: the view points at the new arrays
  const int ny = 13 * a.N, one[] = {1};
  const std::vector<double> y1(assembled_changed.Y.begin() + ny, assembled_changed.Y.begin() + 2 * ny);
  test::CpuGridExec<double> x;
  x.launch("scatter", 1, [&](int tid) { batch::scatter_rows_thread(tid, n, ny, 1, one, y1.data(), a.Y.data()); });
  for (int s = 0; s < 40; ++s) {
    a.rk4_step(x);
    ref.rk4_step(x);
  }
  EXPECT_EQ(std::memcmp(a.Y.data(), ref.Y.data(), a.Y.size() * sizeof(double)), 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(a.status[static_cast<std::size_t>(i)], 0);
}

INSTANTIATE_TEST_SUITE_P(Paths, InstanceStateOnTheStepKernels, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return std::string(p.param ? "fused" : "cuda"); });

}  // namespace
}  // namespace simphant
