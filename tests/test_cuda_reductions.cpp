// The reductions over time on the GPU backends (host/cuda_backend_reductions.cuh,
// kernels/reduce.hpp) against the CPU backend, and their checkpoint round trip. Every
// test calls GTEST_SKIP() without a CUDA device (or in a build without CUDA); the
// per-thread functions are checked without one in test_reduce_grid.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "example_models.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

bool have_gpu() { return cuda_backend_built() && cuda_device_count() > 0; }

std::unique_ptr<Simulator> make(const std::vector<Model>& models, const std::string& backend) {
  SimulatorOptions o;
  o.backend = backend;
  o.schur = backend == "cuda-fused" ? "sparse" : "dense";  // the cpu reference's factorisation
  auto sim = Simulator::create(models, o, static_cast<int>(models.size()));
  sim->set_reductions(parse_reduction_quantities({"all"}, 0, "test", models.front().contact_pair_count()));
  return sim;
}

std::vector<double> reductions(const Simulator& sim) {
  std::vector<double> r(static_cast<std::size_t>(sim.n_instances()) * sim.reduction_layout().channels * kReductionStats);
  sim.read_reductions(r.data());
  return r;
}

class CudaReductions : public ::testing::TestWithParam<std::string> {};

// 300 steps of the double pendulum: max, min, mean and rms agree with the CPU backend's
// to 1e-9 of each channel's scale (the states agree to 1e-9 after 1000 steps,
// test_cuda_backend.cpp), and the time of the max where the max is clear of the
// second-largest sample by that much (checked on the cpu side by a frame read per step).
// ball_on_block adds the contact pairs' channels (a model without constraint rows).
TEST_P(CudaReductions, EqualCpuBackend) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
  for (const char* example : {"double_pendulum", "ball_on_block"}) {
    SCOPED_TRACE(example);
    const std::vector<Model> models = test::example_models(example, 3);
    auto gpu = make(models, GetParam());
    auto cpu = make(models, "cpu");
    gpu->advance(300);
    cpu->advance(300);
    const std::vector<double> g = reductions(*gpu), c = reductions(*cpu);
    ASSERT_EQ(g.size(), c.size());
    const std::size_t channels = g.size() / kReductionStats;
    for (std::size_t k = 0; k < channels; ++k) {
      const double* a = &g[k * kReductionStats];
      const double* b = &c[k * kReductionStats];
      if (std::isnan(b[0])) {
        EXPECT_TRUE(std::isnan(a[0])) << k;
        continue;
      }
      const double scale = std::max({1e-3, std::fabs(b[0]), std::fabs(b[1])});
      for (int s = 0; s < 4; ++s) EXPECT_NEAR(a[s], b[s], 1e-9 * scale) << "channel " << k << " stat " << s;
      EXPECT_GE(a[4], 0.0);
      EXPECT_LE(a[4], gpu->time());
    }
  }
}

// A resumed GPU batch (get_state / get_reduction_state into a new one) reads the same
// reductions as one that never stopped, bit for bit; reset() clears an instance.
TEST_P(CudaReductions, ResumeAndReset) {
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
  const std::vector<Model> models = test::example_models("double_pendulum", 3);
  const int n = 3;
  auto a = make(models, GetParam());
  a->advance(40);
  std::vector<double> y(static_cast<std::size_t>(n) * a->state_size()), acc(static_cast<std::size_t>(n) * a->reduction_layout().size());
  std::vector<std::int64_t> steps(n), status_steps(n);
  std::vector<std::int8_t> status(n);
  std::vector<std::uint64_t> episodes(n);
  a->get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  a->get_reduction_state(acc.data());
  a->advance(60);
  auto b = make(models, GetParam());
  b->advance(7);  // another batch clock: the instance clocks come from set_state
  b->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  b->set_reduction_state(acc.data());
  b->advance(60);
  const std::vector<double> ra = reductions(*a), rb = reductions(*b);
  EXPECT_EQ(0, std::memcmp(ra.data(), rb.data(), ra.size() * sizeof(double)));
  const int id = 2;
  a->reset(&id, 1);
  const std::vector<double> r = reductions(*a);
  const int C = a->reduction_layout().channels, e = a->reduction_layout().offset[static_cast<int>(ReductionQuantity::Energy)];
  const double* energy = &r[(static_cast<std::size_t>(id) * C + e) * kReductionStats];
  EXPECT_EQ(energy[0], energy[1]);  // one sample: the initial state's
  EXPECT_EQ(energy[4], 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, CudaReductions, ::testing::Values("cuda", "cuda-fused"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param == "cuda" ? std::string("cuda") : std::string("cuda_fused");
                         });

}  // namespace
}  // namespace simphant
