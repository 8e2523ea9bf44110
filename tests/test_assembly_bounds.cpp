// Newton assembly is bounded (docs/reliability.md, "Stopping"): it stops on a stall long
// before a large iteration cap, honours the cap, and stops at once when a stop is
// requested (core/stop_flag.hpp), also in the middle of a large batch and from a signal
// handler; compiling instance models stops the same way.
#include <time.h>

#include <csignal>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/assemble_batch.hpp"

namespace simphant {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// CPU time of this process, all threads [s].
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Clears the process-wide stop request around each test.
class StopFlagTest : public ::testing::Test {
 protected:
  void SetUp() override { clear_stop_request(); }
  void TearDown() override { clear_stop_request(); }
};

/// A bar held by two spherical joints whose ground anchors are 3 m apart while the bar's
/// anchors are 1 m apart: Phi = 0 has no solution.
Model impossible(int max_iterations) {
  json d = json::parse(R"({
    "bodies": [{"name": "bar", "mass": 1.0, "inertia": [0.01, 0.1, 0.1], "position": [0, 0, 0]}],
    "joints": [
      {"name": "a", "type": "spherical", "body_i": "ground", "body_j": "bar",
       "frame_i": {"origin": [0, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
       "frame_j": {"origin": [-0.5, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}},
      {"name": "b", "type": "spherical", "body_i": "ground", "body_j": "bar",
       "frame_i": {"origin": [3, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
       "frame_j": {"origin": [0.5, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]}}],
    "solver": {"dt": 0.001, "t_end": 0.01}
  })");
  d["solver"]["assembly_max_iterations"] = max_iterations;
  return parse_scene(d.dump()).model;
}

/// A chain of n bodies on spherical joints along x (consistent as written).
Model chain(int n) {
  json d = {{"solver", {{"dt", 0.001}, {"t_end", 0.01}}}, {"bodies", json::array()}, {"joints", json::array()}};
  for (int k = 0; k < n; ++k) {
    const std::string b = "b" + std::to_string(k);
    d["bodies"].push_back({{"name", b}, {"mass", 1.0}, {"inertia", {0.01, 0.1, 0.1}}, {"position", {k + 0.5, 0, 0}}});
    d["joints"].push_back({{"name", "j" + std::to_string(k)},
                           {"type", "spherical"},
                           {"body_i", k == 0 ? "ground" : "b" + std::to_string(k - 1)},
                           {"body_j", b},
                           {"frame", {{"origin", {k, 0, 0}}, {"z", {0, 0, 1}}}}});
  }
  return parse_scene(d.dump()).model;
}

/// `base` with its bodies' initial positions moved off the constraints (instance i).
Model perturbed(const Model& base, int i) {
  Model m = base;
  for (std::size_t k = 0; k < m.bodies.size(); ++k) {
    m.bodies[k].r0_W.y += 0.05 * std::sin(0.7 * i + 1.3 * static_cast<double>(k));
    m.bodies[k].r0_W.z += 0.05 * std::cos(0.3 * i + 0.9 * static_cast<double>(k));
  }
  return m;
}

AssemblyResult assemble_once(const Model& m) {
  Data d(m);
  std::vector<double> Y(static_cast<std::size_t>(m.ny()));
  initial_state(m, Y.data());
  return assemble(m, d, Y.data());
}

TEST_F(StopFlagTest, AStalledNewtonStopsLongBeforeTheCap) {
  const AssemblyResult r = assemble_once(impossible(1000));
  EXPECT_FALSE(r.ok);
  EXPECT_GE(r.iterations, kAssemblyStallWindow);
  EXPECT_LE(r.iterations, 3 * kAssemblyStallWindow) << "residual " << r.position_residual;
  EXPECT_GT(r.position_residual, 0.1);  // about 1 m of misfit stays
}

TEST_F(StopFlagTest, TheIterationCapIsHonoured) {
  Model m = perturbed(chain(8), 1);
  m.solver.assembly_max_iterations = 1;
  const AssemblyResult one = assemble_once(m);
  EXPECT_FALSE(one.ok);
  EXPECT_EQ(one.iterations, 1);
  m.solver.assembly_max_iterations = 50;
  const AssemblyResult full = assemble_once(m);
  EXPECT_TRUE(full.ok);
  EXPECT_GT(full.iterations, 1);
  EXPECT_LT(full.iterations, kAssemblyStallWindow);  // Newton: quadratic, no stall
}

TEST_F(StopFlagTest, EveryExampleStillAssembles) {
  for (const char* name : {"bricard", "four_bar", "slider_crank", "double_pendulum", "cylindrical_collar",
                           "fixed_weld", "planar_puck", "pendulum", "spinning_top"}) {
    const Scene s = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
    const std::vector<Model> models = build_instance_models(s, sample_sweep(s.sweep));
    for (std::size_t i = 0; i < models.size(); ++i) {
      const AssemblyResult r = assemble_once(models[i]);
      EXPECT_TRUE(r.ok) << name << " instance " << i << ": max |Phi| " << r.position_residual << " after "
                        << r.iterations;
    }
  }
}

TEST_F(StopFlagTest, ARequestStopsAssemblyBeforeItsFirstIteration) {
  request_stop();
  EXPECT_TRUE(stop_requested());
  const AssemblyResult r = assemble_once(perturbed(chain(4), 0));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.iterations, 0);
  clear_stop_request();
  EXPECT_FALSE(stop_requested());
  EXPECT_TRUE(assemble_once(perturbed(chain(4), 0)).ok);
  request_stop();
  EXPECT_THROW(throw_if_stop_requested("set-up"), Interrupted);
  try {
    throw_if_stop_requested("assembly");
  } catch (const Interrupted& e) {
    EXPECT_STREQ(e.what(), "assembly: interrupted (stop requested)");
  }
}

TEST_F(StopFlagTest, ARequestFromAnotherThreadStopsALargeBatchWithinASecond) {
  const Model base = chain(16);
  const int n = 12000;  // several seconds of assembly on two threads
  std::vector<Model> models;
  models.reserve(n);
  for (int i = 0; i < n; ++i) models.push_back(perturbed(base, i));
  std::atomic<bool> done{false};
  Clock::time_point requested_at{};
  // The request comes once the batch has done the work of about 20 instances, measured
  // as the process's CPU time (the workers' own; a wall-clock wait would land before the
  // first instance on a loaded machine and after the last on a fast one) against one
  // instance assembled here first (a sanitizer build is many times slower than Release):
  // some instances are assembled by then, and most are not (the batch is 12000).
  const double one0 = process_cpu_seconds();
  ASSERT_TRUE(assemble_once(perturbed(base, n)).ok);
  const double per_instance = process_cpu_seconds() - one0;
  const double cpu0 = process_cpu_seconds();
  std::thread stopper([&] {
    while (!done && process_cpu_seconds() - cpu0 < 20 * per_instance)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    requested_at = Clock::now();
    if (!done) request_stop();
  });
  const Clock::time_point t0 = Clock::now();
  const AssembledBatch batch = assemble_batch(models, n, 2);
  const Clock::time_point t1 = Clock::now();
  done = true;
  stopper.join();
  ASSERT_TRUE(stop_requested()) << "the batch finished in " << seconds(t0, t1) << " s, before the request";
  EXPECT_LT(seconds(requested_at, t1), 1.0) << "returned " << seconds(requested_at, t1) << " s after the request";
  int finished = 0, untouched = 0;
  for (const AssemblyResult& r : batch.results) {
    finished += r.ok;
    untouched += !r.ok && r.iterations == 0;
  }
  EXPECT_GT(finished, 0);
  EXPECT_GT(untouched, n / 2) << "instances after the request must not be assembled";
  // Each worker may be inside one instance when the request comes: it stops that one
  // after its current iteration (ok = false, iterations > 0).
  EXPECT_GE(finished + untouched, n - 2) << "an instance is assembled, left at iteration 0 or was in progress";
  // The caller tells an interrupted batch from failed instances by the flag.
  EXPECT_THROW(throw_if_stop_requested("assembly"), Interrupted);
}

TEST_F(StopFlagTest, CompilingInstanceModelsStopsOnARequest) {
  const Scene s = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json");
  const SweepSamples samples = sample_sweep(s.sweep);
  ASSERT_FALSE(samples.paths.empty());
  request_stop();
  try {
    build_instance_models(s, samples);
    ADD_FAILURE() << "no Interrupted";
  } catch (const Interrupted& e) {
    EXPECT_NE(std::string(e.what()).find("compiling instance models: interrupted"), std::string::npos);
  }
}

// Found by the sanitizer build: Data's Eigen LLT had no ComputationInfo until its first
// factorisation, and moving a Data (a growing std::vector of per-thread workspaces) read
// the unset enum. Its state is now defined from construction, on both Schur paths.
TEST(DataWorkspace, TheDenseFactorIsInAValidStateFromConstruction) {
  for (SchurFactorization schur : {SchurFactorization::Dense, SchurFactorization::Sparse}) {
    const Model m = chain(12);
    // Data is neither copied nor moved (per-worker workspaces are made in place); its
    // factor's state must still be defined from construction on.
    const auto d = std::make_unique<Data>(m, schur);
    EXPECT_EQ(d->llt.info(), Eigen::Success);
    EXPECT_EQ(d->llt.matrixLLT().rows(), schur == SchurFactorization::Dense ? m.n_rows : 0);
  }
}

extern "C" void stop_on_signal(int) { request_stop(); }

TEST_F(StopFlagTest, ASignalHandlerMayRequestTheStop) {
  struct sigaction sa {}, old {};
  sa.sa_handler = stop_on_signal;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &sa, &old), 0);
  std::raise(SIGUSR1);
  sigaction(SIGUSR1, &old, nullptr);
  EXPECT_TRUE(stop_requested());
}

}  // namespace
}  // namespace simphant
