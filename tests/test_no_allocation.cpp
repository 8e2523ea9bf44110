// "No allocation inside the step loop": every heap
// allocation of the process is counted by interposing malloc (glibc's __libc_malloc
// does the work), and advancing a warmed-up batch must make none.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>
#include <string>

#include "simphant/core/thread_pool.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void note() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  note();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  note();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  note();
  return __libc_realloc(p, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  note();
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  note();
  return __libc_memalign(alignment, size);
}
}

namespace simphant {
namespace {

long allocations_while(const std::function<void()>& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

TEST(NoAllocation, CountingSeesAnAllocation) {
  // The interposer works: a vector of 1000 doubles is one allocation.
  const long n = allocations_while([] {
    std::vector<double> v(1000);
    v[0] = 1;
  });
  EXPECT_GE(n, 1);
}

TEST(NoAllocation, ThreadPoolRegionAllocatesNothing) {
  // A region's body is called through a pointer, never copied into a std::function: a
  // closure larger than any small-buffer optimisation costs no allocation either.
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> hits(64);
    const double a = 1, b = 2, c = 3, d = 4, e = 5;  // a closure of 7 references
    const auto body = [&](int begin, int end, int) {
      for (int i = begin; i < end; ++i) hits[static_cast<std::size_t>(i)] += static_cast<int>(a + b + c + d + e) - 14;
    };
    pool.parallel_for(64, 1, body);  // warm-up: the workers are running
    EXPECT_EQ(allocations_while([&] {
                for (int r = 0; r < 100; ++r) pool.parallel_for(64, 3, body);
              }),
              0)
        << "threads " << threads;
    for (const std::atomic<int>& h : hits) EXPECT_EQ(h.load(), 101);
  }
}

TEST(NoAllocation, AdvanceAllocatesNothing) {
  for (const char* name : {"four_bar", "bricard", "slider_crank", "cylindrical_collar"}) {
    const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
    const SweepSamples samples = sample_sweep(scene.sweep, 5);
    // With each projection onto the constraint manifold too (dynamics/projection.hpp).
    for (Projection projection : {Projection::None, Projection::Velocity, Projection::PositionVelocity}) {
      std::vector<Model> models = build_instance_models(scene, samples);
      for (Model& m : models) m.solver.projection = projection;
      for (const char* backend : {"cpu", "cpu-simd"})
        for (int threads : {1, 2}) {
          auto sim = Simulator::create(models, SimulatorOptions{backend, threads}, 5);
          sim->advance(2);  // warm-up: the thread pool starts on its first parallel region
          EXPECT_EQ(allocations_while([&] { sim->advance(50); }), 0)
              << name << ", " << backend << ", threads " << threads << ", projection " << projection_name(projection);
          // The reductions over time sample in the step loop without allocating either.
          sim->set_reductions(parse_reduction_quantities({"all"}, 0, "test"));
          EXPECT_EQ(allocations_while([&] { sim->advance(20); }), 0)
              << name << ", " << backend << ", reductions, threads " << threads << ", projection "
              << projection_name(projection);
        }
    }
  }
}

// The first-order fixed-step integrators (dynamics/euler.hpp) step without allocating,
// with the reductions and the position-velocity projection too.
TEST(NoAllocation, EulerAdvanceAllocatesNothing) {
  const Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json");
  const SweepSamples samples = sample_sweep(scene.sweep, 5);
  for (Integrator integrator : {Integrator::Euler, Integrator::SymplecticEuler}) {
    std::vector<Model> models = build_instance_models(scene, samples);
    for (Model& m : models) {
      m.solver.integrator = integrator;
      m.solver.projection = Projection::PositionVelocity;
    }
    for (const char* backend : {"cpu", "cpu-simd"}) {
      auto sim = Simulator::create(models, SimulatorOptions{backend, 2}, 5);
      sim->set_reductions(parse_reduction_quantities({"all"}, 0, "test"));
      sim->advance(2);
      EXPECT_EQ(allocations_while([&] { sim->advance(50); }), 0) << integrator_name(integrator) << ", " << backend;
    }
  }
}

// The per-instance calls of an RL loop (get_state, set_state, reset of some instances,
// set_inputs of listed instances) allocate nothing, and neither do the steps after them,
// on the cpu backend and on the reduced one.
TEST(NoAllocation, PerInstanceCallsAndTheStepsAfterThemAllocateNothing) {
  const std::string dir = std::string(SIMPHANT_SOURCE_DIR) + "/examples/";
  const Scene crank = load_scene(dir + "slider_crank.json");
  nlohmann::json arm_doc = load_scene(dir + "arm7.json").doc;
  arm_doc["solver"]["type"] = "aba";
  const Scene arm = parse_scene(arm_doc.dump(), dir + "arm7.json");
  for (const Scene* scene : {&crank, &arm}) {
    const int n = 5;
    std::vector<Model> models = scene->sweep.parameters.empty() ? std::vector<Model>{scene->model}
                                                                : build_instance_models(*scene, sample_sweep(scene->sweep, n));
    for (int threads : {1, 2}) {
      auto sim = Simulator::create(models, SimulatorOptions{"cpu", threads}, n);
      sim->advance(2);
      const int w = sim->state_size(), n_in = sim->model().n_inputs;
      std::vector<double> y(static_cast<std::size_t>(n) * w), u(static_cast<std::size_t>(n) * n_in, 0.1);
      std::vector<std::int64_t> steps(n), status_steps(n);
      std::vector<std::int8_t> status(n);
      std::vector<std::uint64_t> episodes(n);
      const int ids[] = {3, 1};
      const long calls = allocations_while([&] {
        sim->get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
        sim->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
        sim->reset(ids, 2);
        sim->set_inputs(ids, 2, u.data());
        sim->get_state(ids, 2, y.data(), nullptr, nullptr, nullptr, nullptr);
        sim->set_state(ids, 2, y.data(), nullptr, nullptr, nullptr, nullptr);
      });
      EXPECT_EQ(calls, 0) << scene->model.name << ", threads " << threads;
      EXPECT_EQ(allocations_while([&] { sim->advance(50); }), 0) << scene->model.name << ", threads " << threads;
      const ArrayView v = sim->state_view();
      EXPECT_EQ(allocations_while([&] {
                  static_cast<double*>(v.data)[0] += 0.0;
                  sim->advance(10);
                }),
                0);
    }
  }
}

}  // namespace
}  // namespace simphant
