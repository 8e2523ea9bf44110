// Per-instance state on the GPU backends (docs/state.md; host/cuda_backend_state.cuh):
// the cpu backend's tests (tests/test_instance_state.cpp) on `cuda` and `cuda-fused`, in
// fp64 and fp32 — round trips that continue bit-identically, reset, instance clocks,
// set_models against a batch created with the model, set_inputs of listed instances,
// device views — and a state carried from the cpu backend to the GPU. Every test calls
// GTEST_SKIP() without a CUDA device (or in a build without CUDA); scripts/gpu_check.sh
// runs them on the GPU machine. The kernels' CPU side: tests/test_instance_state_kernels.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#ifdef SIMPHANT_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include "example_models.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

#define SKIP_WITHOUT_GPU()                                                                   \
  if (!cuda_backend_built() || cuda_device_count() == 0) {                                   \
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the cuda backend is not run"; \
  }

constexpr int kN = 6;

// (backend, precision)
class CudaInstanceState : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  static std::unique_ptr<Simulator> make(const std::vector<Model>& models, bool graph = true) {
    SimulatorOptions o;
    o.backend = std::get<0>(GetParam());
    o.precision = std::get<1>(GetParam());
    o.use_cuda_graph = graph;
    return Simulator::create(models, o, static_cast<int>(models.size()));
  }
  static std::vector<Model> models() { return test::example_models("slider_crank", kN); }
};

struct State {
  std::vector<double> y;
  std::vector<std::int64_t> steps, status_steps;
  std::vector<std::int8_t> status;
};

State get(const Simulator& sim, const std::vector<int>& ids = {}) {
  const int count = ids.empty() ? sim.n_instances() : static_cast<int>(ids.size());
  State s;
  s.y.assign(static_cast<std::size_t>(count) * sim.state_size(), std::nan(""));
  s.steps.assign(static_cast<std::size_t>(count), -7);
  s.status_steps.assign(static_cast<std::size_t>(count), -7);
  s.status.assign(static_cast<std::size_t>(count), -7);
  sim.get_state(ids.empty() ? nullptr : ids.data(), count, s.y.data(), s.steps.data(), s.status.data(),
                s.status_steps.data(), nullptr);
  return s;
}

void set(Simulator& sim, const State& s) {
  sim.set_state(nullptr, sim.n_instances(), s.y.data(), s.steps.data(), s.status.data(), s.status_steps.data(), nullptr);
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_same_state(const State& a, const State& b) {
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_steps, b.status_steps);
}

std::vector<double> row(const State& s, int k, int width) {
  return {s.y.begin() + static_cast<std::ptrdiff_t>(k) * width, s.y.begin() + static_cast<std::ptrdiff_t>(k + 1) * width};
}

TEST_P(CudaInstanceState, RoundTripContinuesBitIdentically) {
  SKIP_WITHOUT_GPU();
  auto a = make(models());
  a->advance(37);
  const State saved = get(*a);
  if (std::get<1>(GetParam()) == "fp32") {  // the stored floats, exactly
    for (double v : saved.y) ASSERT_EQ(v, static_cast<double>(static_cast<float>(v)));
  }
  a->advance(50);
  const State continued = get(*a);
  auto b = make(models());
  b->advance(11);
  const int some[] = {3, 0};
  b->reset(some, 2);
  b->advance(5);
  set(*b, saved);
  expect_same_state(get(*b), saved);
  b->advance(50);
  expect_same_state(get(*b), continued);
}

TEST_P(CudaInstanceState, ResetRestoresTheAssembledStateOfListedInstances) {
  SKIP_WITHOUT_GPU();
  auto sim = make(models());
  auto ref = make(models());
  const State initial = get(*sim);
  sim->advance(20);
  ref->advance(50);
  const int ids[] = {3, 1};
  sim->reset(ids, 2);
  const State after = get(*sim);
  const int w = sim->state_size();
  EXPECT_TRUE(same_bits(row(after, 1, w), row(initial, 1, w)));
  EXPECT_TRUE(same_bits(row(after, 3, w), row(initial, 3, w)));
  sim->advance(30);
  auto ref30 = make(models());
  ref30->advance(30);
  const State s = get(*sim), r = get(*ref), r30 = get(*ref30);
  for (int i = 0; i < kN; ++i) {
    const bool reset = i == 1 || i == 3;
    EXPECT_EQ(s.steps[static_cast<std::size_t>(i)], reset ? 30 : 50);
    EXPECT_TRUE(same_bits(row(s, i, w), row(reset ? r30 : r, i, w))) << "instance " << i;
  }
  sim->reset(nullptr, kN);
  expect_same_state(get(*sim), initial);
}

TEST_P(CudaInstanceState, StatusTimeIsOnTheInstanceClock) {
  SKIP_WITHOUT_GPU();
  auto sim = make(models());
  sim->advance(40);
  const int one[] = {1};
  sim->reset(one, 1);
  sim->advance(3);
  State s = get(*sim, {1});
  s.y[0] = std::nan("");
  sim->set_state(one, 1, s.y.data(), nullptr, nullptr, nullptr, nullptr);
  sim->advance(5);
  std::vector<std::int8_t> status(kN);
  std::vector<double> status_time(kN);
  sim->read_status(status.data(), status_time.data());
  EXPECT_EQ(status[1], 2);
  EXPECT_EQ(status_time[1], 3 * sim->dt());
  EXPECT_EQ(status[0], 0);
  EXPECT_EQ(status_time[0], 0.0);
  const State after = get(*sim, {1});
  EXPECT_EQ(after.status_steps[0], 3);
  EXPECT_EQ(after.steps[0], 8);
  const std::int64_t steps[] = {100};
  sim->set_state(one, 1, nullptr, steps, nullptr, nullptr, nullptr);
  EXPECT_EQ(get(*sim, {1}).status_steps[0], 3);
  sim->reset(one, 1);
  sim->read_status(status.data(), status_time.data());
  EXPECT_EQ(status[1], 0);
  EXPECT_EQ(status_time[1], 0.0);
}

// A model whose conrod mass (shared by the batch so far) differs: the parameter becomes
// per instance and the step's graph is captured again; graph and plain launches alike.
TEST_P(CudaInstanceState, SetModelsEqualsABatchCreatedWithTheModel) {
  SKIP_WITHOUT_GPU();
  std::vector<Model> changed = models();
  changed[2].bodies[1].mass *= 1.5;
  for (bool graph : {true, false}) {
    auto fresh = make(changed, graph);
    fresh->advance(40);
    const State f = get(*fresh);
    auto original = make(models(), graph);
    original->advance(50);
    const State o = get(*original);
    auto sim = make(models(), graph);
    sim->advance(10);
    const int two[] = {2};
    sim->set_models(two, 1, &changed[2]);
    sim->advance(40);
    const State s = get(*sim);
    const int w = sim->state_size();
    EXPECT_TRUE(same_bits(row(s, 2, w), row(f, 2, w))) << "graph " << graph;
    for (int i : {0, 1, 3, 4, 5}) EXPECT_TRUE(same_bits(row(s, i, w), row(o, i, w))) << "instance " << i;
    EXPECT_EQ(sim->backend_details(), original->backend_details());  // the graph captured again, as at creation
  }
}

TEST_P(CudaInstanceState, SetInputsOfListedInstances) {
  SKIP_WITHOUT_GPU();
  const std::vector<Model> m = models();
  auto a = make(m), b = make(m);
  const int n_in = m[0].n_inputs;
  ASSERT_GT(n_in, 0);
  std::vector<double> u(static_cast<std::size_t>(kN) * n_in);
  for (int i = 0; i < kN; ++i)
    for (const ForceElement& f : m[static_cast<std::size_t>(i)].forces)
      if (f.type == ForceType::Actuator) u[static_cast<std::size_t>(i) * n_in + f.input_index] = f.value;
  std::vector<double> rows(2 * static_cast<std::size_t>(n_in));
  for (int k = 0; k < n_in; ++k) {
    rows[static_cast<std::size_t>(k)] = 0.25;
    rows[static_cast<std::size_t>(n_in + k)] = -0.5;
    u[4 * static_cast<std::size_t>(n_in) + k] = 0.25;
    u[static_cast<std::size_t>(k)] = -0.5;
  }
  const int ids[] = {4, 0};
  a->set_inputs(ids, 2, rows.data());
  b->set_inputs(u.data());
  a->advance(30);
  b->advance(30);
  expect_same_state(get(*a), get(*b));
}

TEST_P(CudaInstanceState, DeviceViewsAliasTheBatch) {
  SKIP_WITHOUT_GPU();
#ifdef SIMPHANT_WITH_CUDA
  auto sim = make(models());
  sim->advance(15);
  const ArrayView v = sim->state_view();
  const bool fp32 = std::get<1>(GetParam()) == "fp32";
  ASSERT_NE(v.data, nullptr);
  EXPECT_TRUE(v.device);
  EXPECT_EQ(v.dtype_bits, fp32 ? 32 : 64);
  EXPECT_EQ(v.ndim, 2);
  EXPECT_EQ(v.shape[0], kN);
  EXPECT_EQ(v.shape[1], sim->state_size());
  EXPECT_EQ(v.strides[0], 1);
  EXPECT_EQ(v.strides[1], kN);
  sim->synchronize();
  const std::size_t count = static_cast<std::size_t>(kN) * sim->state_size(), bytes = v.dtype_bits / 8;
  std::vector<unsigned char> raw(count * bytes);
  ASSERT_EQ(cudaMemcpy(raw.data(), v.data, raw.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  auto at = [&](const std::vector<unsigned char>& r, std::size_t e) {
    if (fp32) {
      float f;
      std::memcpy(&f, r.data() + e * 4, 4);
      return static_cast<double>(f);
    }
    double d;
    std::memcpy(&d, r.data() + e * 8, 8);
    return d;
  };
  const State s = get(*sim);
  for (int i = 0; i < kN; ++i)
    for (int e = 0; e < sim->state_size(); ++e)
      ASSERT_EQ(at(raw, static_cast<std::size_t>(i * v.strides[0] + e * v.strides[1])),
                s.y[static_cast<std::size_t>(i) * sim->state_size() + e]);
  // A write through the view (here a copy into it) is what get_state then reads.
  const double half = 0.5;
  const float half_f = 0.5f;
  ASSERT_EQ(cudaMemcpy(static_cast<unsigned char*>(v.data) + (2 + 0 * kN) * bytes, fp32 ? static_cast<const void*>(&half_f)
                                                                                        : static_cast<const void*>(&half),
                       bytes, cudaMemcpyHostToDevice),
            cudaSuccess);
  sim->synchronize();
  EXPECT_EQ(get(*sim, {2}).y[0], 0.5);
  const ArrayView u = sim->inputs_view();
  ASSERT_NE(u.data, nullptr);
  EXPECT_EQ(u.shape[0], kN);
  EXPECT_EQ(u.shape[1], sim->model().n_inputs);
  EXPECT_EQ(u.strides[1], kN);
#endif
}

// A state carried from the cpu backend continues on the GPU as on the CPU: fp64 only,
// the CPU reference's precision (instantiated below for fp64 alone).
class CudaCpuContinuation : public CudaInstanceState {};

TEST_P(CudaCpuContinuation, CpuStateContinuesOnTheGpu) {
  SKIP_WITHOUT_GPU();
  SimulatorOptions o;
  o.backend = "cpu";
  o.schur = std::get<0>(GetParam()) == "cuda-fused" ? "sparse" : "dense";
  auto cpu = Simulator::create(models(), o, kN);
  cpu->advance(20);
  auto gpu = make(models());
  set(*gpu, get(*cpu));
  cpu->advance(300);
  gpu->advance(300);
  const State a = get(*gpu), b = get(*cpu);
  const int w = cpu->state_size();
  for (int i = 0; i < kN; ++i) {
    double err = 0, scale = 0;
    for (int e = 0; e < w; ++e) {
      const std::size_t k = static_cast<std::size_t>(i) * w + e;
      err = std::max(err, std::fabs(a.y[k] - b.y[k]));
      scale = std::max(scale, std::fabs(b.y[k]));
    }
    EXPECT_LE(err / scale, 1e-9) << "instance " << i;
  }
  EXPECT_EQ(a.steps, b.steps);
}

/// Test names: the backend and the precision, e.g. cuda_fused_fp32.
std::string param_name(const ::testing::TestParamInfo<CudaInstanceState::ParamType>& p) {
  std::string b = std::get<0>(p.param);
  std::replace(b.begin(), b.end(), '-', '_');
  return b + "_" + std::get<1>(p.param);
}

INSTANTIATE_TEST_SUITE_P(Gpu, CudaInstanceState,
                         ::testing::Combine(::testing::Values("cuda", "cuda-fused"), ::testing::Values("fp64", "fp32")),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Gpu, CudaCpuContinuation,
                         ::testing::Combine(::testing::Values("cuda", "cuda-fused"), ::testing::Values("fp64")),
                         param_name);

}  // namespace
}  // namespace simphant
