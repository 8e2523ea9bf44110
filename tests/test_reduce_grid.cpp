// The device's reductions over time (kernels/reduce.hpp, sampled in enqueue_step's
// first stage and fused_stage_thread's stage 0; enqueue_reduce_read) run over the whole
// grid on the CPU (tests/cpu_grid_exec.hpp) against the CPU reference's samples
// (dynamics/reduce_sample.hpp) of the same start states, on the cuda and cuda-fused paths;
// ball_on_block and slider_crank_clearance with their contact pairs' channels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu_grid_exec.hpp"
#include "example_models.hpp"
#include "host_batch.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/reduce_sample.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {
namespace {

struct GridCase {
  const char* example;
  bool fused;
};

class ReduceGrid : public ::testing::TestWithParam<GridCase> {};

// Instance i's state from the batch's structure of arrays.
std::vector<double> instance_state(const test::HostBatch<double>& hb, int i) {
  std::vector<double> Y(13 * static_cast<std::size_t>(hb.N));
  for (int e = 0; e < 13 * hb.N; ++e) Y[e] = hb.at(hb.Y, e, hb.n, i);
  return Y;
}

// The CPU reference's sample of instance i's current batch state at step `step` (time
// step * dt, the actuators at their defaults), added to acc (a row).
void reference_sample(const Model& model, const std::vector<double>& Y, const ReductionLayout& L, double* acc, double step) {
  Data d(model);
  std::vector<double> ydot(model.ny());
  const double t = step * model.solver.dt;
  ASSERT_TRUE(evaluate(model, d, t, Y.data(), nullptr, ydot.data()));
  sample_reductions(model, d, t, nullptr, L, acc, step);
}

// Over 25 steps the device accumulators equal the reference's: the same formulas on the
// same states, with lambda from the batched solve, which agrees with the CPU solve to a
// few ulps of its scale (test_kernel_grid.cpp) -- tolerance 1e-10 relative to each
// channel's largest sample. The step of each max is equal wherever the largest sample
// leads the next by more than that tolerance. The count is exact. Then the read
// (enqueue_reduce_read) adds the current state's sample without changing the
// accumulators.
TEST_P(ReduceGrid, AccumulatorsEqualCpuReference) {
  const int n = 3, steps = 25;
  const std::vector<Model> models = test::example_models(GetParam().example, n);
  const AssembledBatch assembled = assemble_batch(models, n, 1);
  test::HostBatch<double> hb(models, n, assembled, GetParam().fused);
  test::CpuGridExec<double> x;
  const ReductionLayout L =
      reduction_layout_of(parse_reduction_quantities({"all"}, 0, "test", models.front().contact_pair_count()), models.front());
  hb.enable_reductions(x, L);
  const int w = L.size(), C = L.channels;
  std::vector<double> ref(static_cast<std::size_t>(n) * w), samples(static_cast<std::size_t>(n) * C * (steps + 1));
  for (int i = 0; i < n; ++i) reduction_clear(L, {ref.data() + static_cast<std::size_t>(i) * w, 1});
  auto sample_all = [&](int s, std::vector<double>& acc) {
    for (int i = 0; i < n; ++i) {
      const std::vector<double> Y = instance_state(hb, i);
      const Model& model = models[std::min<std::size_t>(i, models.size() - 1)];  // one shared, or one each
      reference_sample(model, Y, L, acc.data() + static_cast<std::size_t>(i) * w, s);
      std::vector<double> one(w);
      reduction_clear(L, {one.data(), 1});
      reference_sample(model, Y, L, one.data(), s);
      for (int c = 0; c < C; ++c) samples[(static_cast<std::size_t>(i) * C + c) * (steps + 1) + s] = one[1 + kReductionSlots * c];
    }
  };
  for (int s = 0; s < steps; ++s) {
    sample_all(s, ref);
    hb.rk4_step(x);
  }
  auto compare = [&](const std::vector<double>& dev, const std::vector<double>& want, int count, const char* what) {
    int compared = 0, times = 0;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(hb.status[i], 0);
      EXPECT_EQ(dev[i], static_cast<double>(count)) << what;
      for (int c = 0; c < C; ++c) {
        const double* v = &samples[(static_cast<std::size_t>(i) * C + c) * (steps + 1)];
        std::vector<double> sorted(v, v + count);
        if (std::isnan(sorted[0])) continue;  // joint coordinates of other joint types: NaN on both
        std::sort(sorted.begin(), sorted.end());
        ++compared;
        const double scale = std::max({1e-3, std::fabs(sorted.front()), std::fabs(sorted.back())}), tol = 1e-10 * scale;
        for (int k = 0; k < 4; ++k) {
          const double want_k = want[static_cast<std::size_t>(i) * w + 1 + kReductionSlots * c + k];
          const double dev_k = dev[static_cast<std::size_t>(1 + kReductionSlots * c + k) * n + i];
          const double t = k < 2 ? tol : (k == 2 ? count * tol : count * 2 * scale * tol);
          EXPECT_NEAR(dev_k, want_k, t) << what << " instance " << i << " channel " << c << " slot " << k;
        }
        if (count < 2 || sorted[count - 1] - sorted[count - 2] > 2 * tol) {
          ++times;
          EXPECT_EQ(dev[static_cast<std::size_t>(1 + kReductionSlots * c + 4) * n + i],
                    want[static_cast<std::size_t>(i) * w + 1 + kReductionSlots * c + 4])
              << what << " instance " << i << " channel " << c;
        }
      }
    }
    // Most channels are compared (all but the NaN joint coordinates); many are constant
    // or tie within the tolerance (components that stay zero), the others' steps are.
    EXPECT_GT(compared, n * C / 2) << what;
    EXPECT_GT(times, 0) << what;
    // The power's first and last five samples, and the work from them.
    for (int i = 0; i < n; ++i) {
      std::vector<double> row(static_cast<std::size_t>(w));
      for (int e = 0; e < w; ++e) row[e] = dev[static_cast<std::size_t>(e) * n + i];
      const ReductionAcc a{row.data(), 1}, b{const_cast<double*>(want.data()) + static_cast<std::size_t>(i) * w, 1};
      for (int k = 0; k < kWorkSlots; ++k)
        EXPECT_NEAR(a(L.work_slot() + k), b(L.work_slot() + k), 1e-10 * std::max(1.0, std::fabs(b(L.work_slot() + k))))
            << what << " instance " << i << " work slot " << k;
      const double W = reduction_work(L, b, hb.mv.dt);
      EXPECT_NEAR(reduction_work(L, a, hb.mv.dt), W, 1e-10 * std::max(1e-3, std::fabs(W))) << what << " instance " << i;
    }
  };
  compare(hb.red_acc, ref, steps, "step loop");
  // The read: the stored accumulators plus the current (end) state's sample.
  const std::vector<double> stored = hb.red_acc;
  // What the solves record, before the read's solve: the read leaves it as it was.
  const std::vector<double> records[] = {hb.pivot_min, hb.pivot_min_time, hb.refine_worst, hb.refine_worst_time,
                                         hb.step_pivot};
  const std::vector<int> counts[] = {hb.refine_unconverged, hb.recoveries, hb.fail};
  std::vector<double> read(stored.size(), std::nan(""));
  batch::enqueue_reduce_read(x, hb.mv, hb.b, read.data(), hb.fused ? &hb.P : nullptr);
  EXPECT_EQ(0, std::memcmp(stored.data(), hb.red_acc.data(), stored.size() * sizeof(double)));
  const std::vector<double> records_after[] = {hb.pivot_min, hb.pivot_min_time, hb.refine_worst, hb.refine_worst_time,
                                               hb.step_pivot};
  for (int r = 0; r < 5; ++r)
    EXPECT_EQ(0, std::memcmp(records[r].data(), records_after[r].data(), records[r].size() * sizeof(double))) << r;
  EXPECT_EQ(counts[0], hb.refine_unconverged);
  EXPECT_EQ(counts[1], hb.recoveries);
  EXPECT_EQ(counts[2], hb.fail);
  sample_all(steps, ref);
  compare(read, ref, steps + 1, "read");
}

// panda_servo: the Panda's servo joint laws in the DAE, so that the kernels' power of a
// robot joint law is checked against the CPU reference (halving it fails every channel).
INSTANTIATE_TEST_SUITE_P(Paths, ReduceGrid,
                         ::testing::Values(GridCase{"double_pendulum", false}, GridCase{"double_pendulum", true},
                                           GridCase{"cylindrical_collar", false}, GridCase{"cylindrical_collar", true},
                                           GridCase{"slider_crank_driven", false},
                                           GridCase{"slider_crank_driven", true}, GridCase{"panda_servo", false},
                                           GridCase{"panda_servo", true}, GridCase{"ball_on_block", false},
                                           GridCase{"ball_on_block", true}, GridCase{"slider_crank_clearance", false},
                                           GridCase{"slider_crank_clearance", true}),
                         [](const ::testing::TestParamInfo<GridCase>& p) {
                           return std::string(p.param.example) + (p.param.fused ? "_fused" : "_cuda");
                         });

}  // namespace
}  // namespace simphant
