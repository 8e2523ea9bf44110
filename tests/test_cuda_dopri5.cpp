// The adaptive Dormand-Prince 5(4) path of the `cuda` and `cuda-fused` backends on a GPU
// against the CPU backend's dopri5 path (the same factorisation: cuda dense, cuda-fused
// sparse). Every test calls GTEST_SKIP() without a CUDA device (or in a build without
// CUDA); tests/test_dopri5_grid.cpp runs the same per-thread functions on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "example_models.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/cpu_backend.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant {
namespace {

#define SKIP_WITHOUT_GPU()                                                                   \
  if (!cuda_backend_built() || cuda_device_count() == 0) {                                   \
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the cuda backend is not run"; \
  }

constexpr int kInstances = 5;

// rtol = atol = tol (tests/test_dopri5_grid.cpp says why atol is not far below).
std::shared_ptr<const std::vector<Model>> dopri5_models(const std::string& name, double tol, Projection projection) {
  std::vector<Model> models = test::example_models(name, kInstances);
  for (Model& m : models) {
    m.solver.integrator = Integrator::Dopri5;
    m.solver.rtol = tol;
    m.solver.atol = tol;
    m.solver.projection = projection;
  }
  return std::make_shared<const std::vector<Model>>(std::move(models));
}

std::unique_ptr<Backend> make_gpu(const std::shared_ptr<const std::vector<Model>>& models, const std::string& backend) {
  return make_cuda_backend(models, kInstances, assemble_batch(*models, kInstances, 1), "fp64", true,
                           backend == "cuda-fused");
}

std::vector<double> states(const Backend& b) {
  std::vector<double> y(static_cast<std::size_t>(b.n_instances()) * b.state_size());
  b.read_states(y.data());
  return y;
}

// Largest |a - b| over instance i's state, relative to its largest |b|.
double relative_state_error(const std::vector<double>& a, const std::vector<double>& b, int i, int per) {
  double err = 0, scale = 0;
  for (int e = 0; e < per; ++e) {
    err = std::max(err, std::fabs(a[static_cast<std::size_t>(i) * per + e] - b[static_cast<std::size_t>(i) * per + e]));
    scale = std::max(scale, std::fabs(b[static_cast<std::size_t>(i) * per + e]));
  }
  return err / scale;
}

// (example, projection, GPU backend)
class CudaDopri5 : public ::testing::TestWithParam<std::tuple<std::string, Projection, std::string>> {};

// 200 grid steps in four advances: the states at the grid time agree with the CPU's to
// 1e-9 relative (the device's FMA contraction and cuSOLVER change the rounding of each
// evaluation by ulps; the step sizes follow it continuously), the statuses are equal,
// and so are the accepted and rejected counts, and the smallest and largest steps to
// 1e-6 (the CPU grid measured 3.7e-9 for the batched evaluation's ulps, which the error
// estimate magnifies; the device's rounding differs more).
TEST_P(CudaDopri5, MatchesCpuBackend) {
  SKIP_WITHOUT_GPU();
  const auto [name, projection, backend] = GetParam();
  const auto models = dopri5_models(name, 1e-6, projection);
  CpuBackend cpu(models, kInstances, 1, backend == "cuda-fused" ? SchurFactorization::Sparse : SchurFactorization::Dense);
  auto gpu = make_gpu(models, backend);
  for (int part = 0; part < 4; ++part) {
    cpu.advance(50);
    gpu->advance(50);
  }
  const std::vector<double> a = states(*gpu), b = states(cpu);
  const int per = cpu.state_size();
  std::vector<std::int8_t> sa(kInstances), sb(kInstances);
  std::vector<double> ta(kInstances), tb(kInstances);
  gpu->read_status(sa.data(), ta.data(), nullptr);
  cpu.read_status(sb.data(), tb.data(), nullptr);
  std::vector<std::int64_t> acc_a(kInstances), acc_b(kInstances), rej_a(kInstances), rej_b(kInstances);
  std::vector<double> min_a(kInstances), min_b(kInstances), max_a(kInstances), max_b(kInstances);
  gpu->read_step_statistics(acc_a.data(), rej_a.data(), min_a.data(), max_a.data());
  cpu.read_step_statistics(acc_b.data(), rej_b.data(), min_b.data(), max_b.data());
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(sa[i], sb[i]);
    EXPECT_EQ(sa[i], 0) << name << " instance " << i;
    EXPECT_LE(relative_state_error(a, b, i, per), 1e-9) << name << " instance " << i;
    EXPECT_EQ(acc_a[i], acc_b[i]) << "accepted steps, instance " << i;
    EXPECT_EQ(rej_a[i], rej_b[i]) << "rejected steps, instance " << i;
    EXPECT_NEAR(min_a[i], min_b[i], 1e-6 * min_b[i]);
    EXPECT_NEAR(max_a[i], max_b[i], 1e-6 * max_b[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, CudaDopri5,
    ::testing::Combine(::testing::Values("pendulum", "four_bar", "spinning_top", "slider_crank_driven"),
                       ::testing::Values(Projection::None, Projection::PositionVelocity),
                       ::testing::Values("cuda", "cuda-fused")),
    [](const ::testing::TestParamInfo<CudaDopri5::ParamType>& p) {
      std::string backend = std::get<2>(p.param);
      std::replace(backend.begin(), backend.end(), '-', '_');
      return std::get<0>(p.param) + (std::get<1>(p.param) == Projection::None ? "" : "_projected") + "_" + backend;
    });

class CudaDopri5Backend : public ::testing::TestWithParam<std::string> {};

// A checkpoint (get_state + get_integrator_state) restored after running on continues
// bit-identically to the run that never stopped. The integrator state rows have the
// CPU's layout, so the CPU backend continues from the device's checkpoint: to 1e-6
// relative, since the CPU checks Y against its own interpolation of the row bit for bit
// and, where the device rounded it otherwise, restarts from Y (as after set_state),
// which moves the states by about the tolerance (1e-8).
TEST_P(CudaDopri5Backend, CheckpointContinuesBitIdentically) {
  SKIP_WITHOUT_GPU();
  const auto models = dopri5_models("double_pendulum", 1e-8, Projection::None);
  auto gpu = make_gpu(models, GetParam());
  gpu->advance(30);
  const int per = gpu->state_size(), size = gpu->integrator_state_size();
  ASSERT_GT(size, 0);
  std::vector<double> y(static_cast<std::size_t>(kInstances) * per), rows(static_cast<std::size_t>(kInstances) * size);
  std::vector<std::int64_t> steps(kInstances);
  gpu->get_state(nullptr, kInstances, y.data(), steps.data(), nullptr, nullptr, nullptr);
  gpu->get_integrator_state(rows.data());
  gpu->advance(30);
  const std::vector<double> straight = states(*gpu);
  gpu->set_state(nullptr, kInstances, y.data(), steps.data(), nullptr, nullptr, nullptr);
  gpu->set_integrator_state(rows.data());
  gpu->advance(30);
  const std::vector<double> resumed = states(*gpu);
  EXPECT_EQ(std::memcmp(straight.data(), resumed.data(), straight.size() * sizeof(double)), 0);

  CpuBackend cpu(models, kInstances, 1, GetParam() == "cuda-fused" ? SchurFactorization::Sparse : SchurFactorization::Dense);
  ASSERT_EQ(cpu.integrator_state_size(), size);
  cpu.set_state(nullptr, kInstances, y.data(), steps.data(), nullptr, nullptr, nullptr);
  cpu.set_integrator_state(rows.data());
  cpu.advance(30);
  const std::vector<double> on_cpu = states(cpu);
  for (int i = 0; i < kInstances; ++i) EXPECT_LE(relative_state_error(on_cpu, straight, i, per), 1e-6) << "instance " << i;
}

// A minimum step the controller cannot respect (solver.min_step = dt / 20, which
// instance 2, under 10^6 g, would need to go below) stops that instance with
// step_size_underflow on the device as on the CPU, at the same time; the others run on.
TEST_P(CudaDopri5Backend, StepSizeUnderflowFreezesTheInstance) {
  SKIP_WITHOUT_GPU();
  std::vector<Model> models = test::example_models("double_pendulum", kInstances);
  for (Model& m : models) {
    m.solver.integrator = Integrator::Dopri5;
    m.solver.rtol = 1e-8;
    m.solver.atol = 1e-8;
    m.solver.min_step = m.solver.dt / 20;
  }
  models[2].gravity = {0.0, 0.0, -9.81e6};
  const auto shared = std::make_shared<const std::vector<Model>>(std::move(models));
  auto gpu = make_gpu(shared, GetParam());
  CpuBackend cpu(shared, kInstances, 1);
  gpu->advance(20);
  cpu.advance(20);
  std::vector<std::int8_t> sa(kInstances), sb(kInstances), ra(kInstances), rb(kInstances);
  std::vector<double> ta(kInstances), tb(kInstances);
  gpu->read_status(sa.data(), ta.data(), ra.data());
  cpu.read_status(sb.data(), tb.data(), rb.data());
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(sa[i], sb[i]) << "instance " << i;
    EXPECT_EQ(ra[i], rb[i]) << "instance " << i;
    EXPECT_EQ(ta[i], tb[i]) << "instance " << i;
  }
  EXPECT_EQ(ra[2], kReasonStepSizeUnderflow);
  EXPECT_EQ(sa[0], 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, CudaDopri5Backend, ::testing::Values("cuda", "cuda-fused"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.param == "cuda" ? std::string("cuda") : std::string("cuda_fused");
                         });

}  // namespace
}  // namespace simphant
