// The `cuda` and `cuda-fused` backends on a GPU against the CPU reference: every test runs
// on both. Each one is compared with the CPU path
// that factorises the same way (cuda: dense, cuda-fused: topology-ordered sparse). Every
// test calls GTEST_SKIP() without a CUDA device (or in a build without CUDA), so CI runs
// none of them; scripts/gpu_check.sh runs them on the GPU machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "example_models.hpp"
#include "mimic_hand.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

#define SKIP_WITHOUT_GPU()                                                                   \
  if (!cuda_backend_built() || cuda_device_count() == 0) {                                   \
    GTEST_SKIP() << "no CUDA device (or a build without CUDA): the cuda backend is not run"; \
  }

// The instances the CPU emulation of the fp32 path was measured on (tests/test_kernel_grid.cpp).
constexpr int kInstances = 3;

std::unique_ptr<Simulator> make(const std::vector<Model>& models, const std::string& backend,
                                const std::string& precision = "fp64", bool graph = true) {
  SimulatorOptions o;
  o.backend = backend;
  o.precision = precision;
  o.use_cuda_graph = graph;
  return Simulator::create(models, o, static_cast<int>(models.size()));
}

// The CPU reference for a GPU path: the same factorisation (cuda: dense, cuda-fused:
// sparse).
std::unique_ptr<Simulator> make_cpu(const std::vector<Model>& models, const std::string& gpu_backend) {
  SimulatorOptions o;
  o.backend = "cpu";
  o.schur = gpu_backend == "cuda-fused" ? "sparse" : "dense";
  return Simulator::create(models, o, static_cast<int>(models.size()));
}

const std::vector<std::string> kGpuBackends = {"cuda", "cuda-fused"};

std::string param_name(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '-' ? '_' : c;
  return out;
}

std::vector<double> states(const Simulator& sim) {
  std::vector<double> y(static_cast<std::size_t>(sim.n_instances()) * sim.model().n_bodies() * 13);
  sim.read_states(y.data());
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

// (example, GPU backend)
class CudaBackendExamples : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  static std::string name() { return std::get<0>(GetParam()); }
  static std::string backend() { return std::get<1>(GetParam()); }
};

// fp64: after 1000 steps the states agree with the CPU reference to 1e-9 relative (the
// issue's bound), the statuses are equal, and so is the energy. Bricard: 1e-6. Its C is
// singular up to eps = 1e-10, so any change of rounding grows to ~5e-8 over 1000 steps:
// the CPU's own dense and sparse factorisations differ by 4.4e-8
// (tests/test_sparse_schur.cpp), the H200 by 3.3e-8 .. 5.4e-8 (docs/gpu-check.md).
TEST_P(CudaBackendExamples, Fp64MatchesCpuAfter1000Steps) {
  SKIP_WITHOUT_GPU();
  const std::vector<Model> models = test::example_models(name(), kInstances);
  auto cpu = make_cpu(models, backend()), gpu = make(models, backend());
  cpu->advance(1000);
  gpu->advance(1000);
  const std::vector<double> a = states(*gpu), b = states(*cpu);
  const int per = cpu->model().n_bodies() * 13;
  std::vector<std::int8_t> sa(kInstances), sb(kInstances);
  std::vector<double> ta(kInstances), tb(kInstances), ea(kInstances), eb(kInstances);
  gpu->read_status(sa.data(), ta.data(), nullptr);
  cpu->read_status(sb.data(), tb.data(), nullptr);
  gpu->read_energy(ea.data());
  cpu->read_energy(eb.data());
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(sa[i], sb[i]);
    EXPECT_EQ(sa[i], 0);
    const double bound = name() == "bricard" ? 1e-6 : 1e-9;
    EXPECT_LE(relative_state_error(a, b, i, per), bound) << name() << " instance " << i;
    EXPECT_NEAR(ea[i], eb[i], bound * std::max(1.0, std::fabs(eb[i])));
  }
}

// fp32: every instance stays ok, and the states stay within the bound docs/cuda-backend.md
// gives (the CPU emulation of the fp32 path measured 3.8e-5, Bricard 3.2e-3).
TEST_P(CudaBackendExamples, Fp32WithinDocumentedBound) {
  SKIP_WITHOUT_GPU();
  const std::string name = CudaBackendExamples::name();
  const std::vector<Model> models = test::example_models(name, kInstances);
  auto cpu = make_cpu(models, backend()), gpu = make(models, backend(), "fp32");
  cpu->advance(1000);
  gpu->advance(1000);
  const std::vector<double> a = states(*gpu), b = states(*cpu);
  const int per = cpu->model().n_bodies() * 13;
  std::vector<std::int8_t> s(kInstances);
  std::vector<double> t(kInstances);
  gpu->read_status(s.data(), t.data(), nullptr);
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(s[i], 0) << name << " instance " << i << " diverged at t = " << t[i];
    EXPECT_LE(relative_state_error(a, b, i, per), name == "bricard" ? 1e-2 : 1e-4) << name << " instance " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaBackendExamples,
                         ::testing::Combine(::testing::ValuesIn(test::example_names()), ::testing::ValuesIn(kGpuBackends)),
                         [](const ::testing::TestParamInfo<CudaBackendExamples::ParamType>& p) {
                           return std::get<0>(p.param) + "_" + param_name(std::get<1>(p.param));
                         });

// Each test below runs on one GPU backend.
class CudaBackend : public ::testing::TestWithParam<std::string> {};

// A robot with mimic rows (tests/mimic_hand.hpp: four-sided elements, two sides at the
// palm, 24-column row blocks; per-instance q0 and so per-instance mimic parameters):
// fp64 after 1000 steps equals the CPU reference to 1e-9 relative (the per-thread
// functions equal it on the CPU grid to 1e-12, KernelGridMimic), every instance ok, and
// the rows (mimic rows included) held as well as on the CPU.
TEST_P(CudaBackend, MimicRowsMatchCpuAfter1000Steps) {
  SKIP_WITHOUT_GPU();
  const std::vector<Model> models = test::mimic_hand_models(kInstances);
  auto cpu = make_cpu(models, GetParam()), gpu = make(models, GetParam());
  cpu->advance(1000);
  gpu->advance(1000);
  const std::vector<double> a = states(*gpu), b = states(*cpu);
  const int per = cpu->model().n_bodies() * 13;
  std::vector<std::int8_t> s(kInstances);
  std::vector<double> t(kInstances), violation(kInstances), violation_cpu(kInstances);
  gpu->read_status(s.data(), t.data(), nullptr);
  gpu->read_constraint_violation(violation.data());
  cpu->read_constraint_violation(violation_cpu.data());
  for (int i = 0; i < kInstances; ++i) {
    EXPECT_EQ(s[i], 0) << "instance " << i << " stopped at t = " << t[i];
    EXPECT_LE(relative_state_error(a, b, i, per), 1e-9) << "instance " << i;
    EXPECT_LE(violation[i], 2 * violation_cpu[i] + 1e-12) << "instance " << i;
  }
}

// The replayed CUDA graph computes exactly what plain launches compute.
TEST_P(CudaBackend, GraphReplayEqualsPlainLaunches) {
  SKIP_WITHOUT_GPU();
  const std::vector<Model> models = test::example_models("four_bar", 64);
  auto graph = make(models, GetParam(), "fp64", true), plain = make(models, GetParam(), "fp64", false);
  if (graph->backend_details().find("replayed as a CUDA graph") == std::string::npos)
    GTEST_SKIP() << "the step could not be captured as a graph here: " << graph->backend_details();
  EXPECT_NE(plain->backend_details().find("plain"), std::string::npos) << plain->backend_details();
  graph->advance(250);
  plain->advance(250);
  const std::vector<double> a = states(*graph), b = states(*plain);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0);
}

// A diverging instance (1: a violation bound it cannot meet; 3: NaN gravity, so NaN
// accelerations) is flagged and frozen; every other instance's output is bit-identical
// to a batch without them.
TEST_P(CudaBackend, DivergingInstancesLeaveOthersBitIdentical) {
  SKIP_WITHOUT_GPU();
  std::vector<Model> clean = test::example_models("double_pendulum", 4), bad = clean;
  bad[1].solver.violation_bound = 1e-300;
  bad[3].gravity = {std::nan(""), 0, 0};
  auto a = make(clean, GetParam()), b = make(bad, GetParam());
  a->advance(300);
  b->advance(300);
  std::vector<std::int8_t> s(4);
  std::vector<double> t(4);
  b->read_status(s.data(), t.data());
  EXPECT_EQ(s[1], 2);
  EXPECT_EQ(s[3], 2);
  EXPECT_EQ(t[3], 0.0);
  EXPECT_EQ(s[0], 0);
  EXPECT_EQ(s[2], 0);
  const std::vector<double> ya = states(*a), yb = states(*b);
  const int per = clean[0].n_bodies() * 13;
  for (int i : {0, 2})
    EXPECT_EQ(std::memcmp(ya.data() + i * per, yb.data() + i * per, per * sizeof(double)), 0) << "instance " << i;
  for (double v : std::vector<double>(yb.begin() + 3 * per, yb.begin() + 4 * per)) EXPECT_TRUE(std::isfinite(v));
}

// Per-instance inputs set from a host array between steps reach the device: the same
// inputs on cpu and cuda give the same states.
TEST_P(CudaBackend, HostInputsBetweenStepsMatchCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<Model> models = test::example_models("slider_crank", kInstances);
  auto cpu = make_cpu(models, GetParam()), gpu = make(models, GetParam());
  const int n_in = models[0].n_inputs;
  ASSERT_GT(n_in, 0);
  std::vector<double> u(static_cast<std::size_t>(kInstances) * n_in);
  for (int block = 0; block < 5; ++block) {
    for (std::size_t e = 0; e < u.size(); ++e) u[e] = 0.3 * std::sin(0.7 * static_cast<double>(e + block));
    cpu->set_inputs(u.data());
    gpu->set_inputs(u.data());
    cpu->advance(100);
    gpu->advance(100);
  }
  const std::vector<double> a = states(*gpu), b = states(*cpu);
  for (int i = 0; i < kInstances; ++i) EXPECT_LE(relative_state_error(a, b, i, cpu->model().n_bodies() * 13), 1e-9);
}

// Asking for more instances than the device holds fails with a clear BackendError that
// says how many fit, before anything is allocated.
TEST_P(CudaBackend, TooManyInstancesSaysHowManyFit) {
  SKIP_WITHOUT_GPU();
  std::vector<Model> one = test::example_models("bricard", 1);
  // Bricard's Schur matrices are 30 x 30: 7.2 KB per instance in fp64; 2^31 - 1 instances
  // need far more than any device has.
  try {
    SimulatorOptions o;
    o.backend = GetParam();
    Simulator::create(one, o, 2147483647);
    FAIL() << "expected BackendError";
  } catch (const BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("instances fit"), std::string::npos) << e.what();
  }
}

// The fused path reports itself as such, and its details name the factorisation.
// With solver.projection = position_velocity the GPU paths equal the CPU backend after
// 1000 steps to the same bound as without (the CPU grid emulation: 1e-12 after 200 steps,
// tests/test_projection.cpp), on the four-bar (redundant rows) and the double pendulum.
TEST(CudaProjection, PositionVelocityMatchesCpuAfter1000Steps) {
  SKIP_WITHOUT_GPU();
  for (const char* name : {"four_bar", "double_pendulum"}) {
    std::vector<Model> models = test::example_models(name, kInstances);
    for (Model& m : models) m.solver.projection = Projection::PositionVelocity;
    for (const std::string& backend : kGpuBackends) {
      auto cpu = make_cpu(models, backend), gpu = make(models, backend);
      cpu->advance(1000);
      gpu->advance(1000);
      const std::vector<double> a = states(*gpu), b = states(*cpu);
      std::vector<std::int8_t> sa(kInstances);
      std::vector<double> ta(kInstances);
      gpu->read_status(sa.data(), ta.data());
      for (int i = 0; i < kInstances; ++i) {
        EXPECT_EQ(sa[i], 0) << name << " " << backend;
        EXPECT_LE(relative_state_error(a, b, i, cpu->model().n_bodies() * 13), 1e-9) << name << " " << backend;
      }
    }
  }
}

// Explicit and symplectic Euler on the GPU paths equal the CPU backend after 1000 steps
// to the bound of RK4's Fp64MatchesCpuAfter1000Steps (the CPU grid emulation: 1e-12 after
// 300 steps, tests/test_euler_grid.cpp), with equal statuses; the step statistics are the
// fixed-step ones. bdf is refused on them.
TEST(CudaIntegrators, EulerAndSymplecticEulerMatchCpuAfter1000Steps) {
  SKIP_WITHOUT_GPU();
  for (Integrator integrator : {Integrator::Euler, Integrator::SymplecticEuler}) {
    for (const char* name : {"four_bar", "double_pendulum", "spinning_top"}) {
      std::vector<Model> models = test::example_models(name, kInstances);
      for (Model& m : models) m.solver.integrator = integrator;
      for (const std::string& backend : kGpuBackends) {
        auto cpu = make_cpu(models, backend), gpu = make(models, backend);
        cpu->advance(1000);
        gpu->advance(1000);
        const std::vector<double> a = states(*gpu), b = states(*cpu);
        std::vector<std::int8_t> sa(kInstances), sb(kInstances);
        std::vector<double> ta(kInstances), tb(kInstances);
        gpu->read_status(sa.data(), ta.data());
        cpu->read_status(sb.data(), tb.data());
        for (int i = 0; i < kInstances; ++i) {
          EXPECT_EQ(sa[i], sb[i]) << name << " " << backend << " " << integrator_name(integrator);
          EXPECT_LE(relative_state_error(a, b, i, cpu->model().n_bodies() * 13), 1e-9)
              << name << " " << backend << " " << integrator_name(integrator);
        }
        std::vector<std::int64_t> accepted(kInstances);
        std::vector<double> lo(kInstances);
        gpu->read_step_statistics(accepted.data(), nullptr, lo.data(), nullptr);
        for (int i = 0; i < kInstances; ++i) {
          if (sa[i] == 0) {
            EXPECT_EQ(accepted[i], 1000);
          }
          EXPECT_EQ(lo[i], models[0].solver.dt);
        }
      }
    }
  }
  std::vector<Model> models = test::example_models("four_bar", 2);
  for (Model& m : models) m.solver.integrator = Integrator::Bdf;
  for (const std::string& backend : kGpuBackends) EXPECT_THROW(make(models, backend), std::invalid_argument) << backend;
}

TEST(CudaFused, DetailsNameThePath) {
  SKIP_WITHOUT_GPU();
  auto sim = make(test::example_models("four_bar", 2), "cuda-fused");
  EXPECT_STREQ(sim->backend_name(), "cuda-fused");
  EXPECT_NE(sim->backend_details().find("topology-ordered block Cholesky"), std::string::npos) << sim->backend_details();
}

INSTANTIATE_TEST_SUITE_P(Backends, CudaBackend, ::testing::ValuesIn(kGpuBackends),
                         [](const ::testing::TestParamInfo<std::string>& p) { return param_name(p.param); });

}  // namespace
}  // namespace simphant
