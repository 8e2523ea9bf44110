// Cost of forward sensitivities (docs/sensitivities.md, "Cost") side by side in one run:
// for each scene (examples/slider_crank.json, four_bar.json, and panda_sweep.json on the
// DAE path and in joint coordinates with aba) and each backend that runs it here (`cpu`,
// `cpu-simd`, and the GPU path, `cuda-fused` for the DAE and `cuda` for aba, where a
// device is visible), the wall time of an advance of a warm batch without sensitivities
// and with S = 1, 4, 8, 16 sensitivities: the backend's step plus the dual step of
// sim/sensitivity_engine.hpp's engine for the model, which runs on the CPU beside any
// backend, one pass of W = 1, 4, 8 or 16 tangents, the smallest that holds S
// (SensitivityEngine::pass_width). A robot's URDF limits are off (a trajectory that
// crosses a damped limit or a velocity cut is no longer stepped by the engine, and such a
// row says so instead of a time). The S parameters are the first S of a fixed list of
// per-instance scene values (body masses and inertias, gravity, forces). One worker
// thread, the fastest of --repeat runs, per step per instance [us]; the ratio to the same
// backend's plain step; and the bytes per dual number of each pass width.
//
//   nice -n 10 bench_sensitivities [--instances 64] [--steps 200] [--repeat 3]
//
// Prints a Markdown table (docs/sensitivities.md keeps the measured one). A measurement,
// not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/core/host_info.hpp"
#include "simphant/job/scene_simulator.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/sensitivity_engine.hpp"
#include "simphant/sim/simulator.hpp"

namespace {

using simphant::Simulator;

nlohmann::json example(const std::string& name) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name);
  return nlohmann::json::parse(in);
}

/// Per-instance scene values of `doc` to differentiate by, at most 16.
std::vector<std::string> parameter_paths(const nlohmann::json& doc) {
  std::vector<std::string> paths;
  if (doc.contains("robot")) {
    paths.push_back("robot.payload.mass");
    for (int k = 0; k < 3; ++k) paths.push_back("robot.payload.com[" + std::to_string(k) + "]");
    for (int k = 0; k < 7; ++k) paths.push_back("robot.qd0[" + std::to_string(k) + "]");
    for (int k = 0; k < 3; ++k) paths.push_back("robot.gravity[" + std::to_string(k) + "]");
    for (int k = 0; k < 2; ++k) paths.push_back("robot.q0[" + std::to_string(k) + "]");
  } else {
    for (const nlohmann::json& b : doc["bodies"]) {
      const std::string name = b["name"].get<std::string>();
      paths.push_back("bodies." + name + ".mass");
      for (int k = 0; k < 3; ++k) paths.push_back("bodies." + name + ".inertia[" + std::to_string(k) + "]");
    }
    for (int k = 0; k < 3; ++k) paths.push_back("gravity[" + std::to_string(k) + "]");
    paths.push_back("solver.baumgarte_alpha");
  }
  paths.resize(std::min<std::size_t>(paths.size(), 16));
  return paths;
}

/// The fastest of `repeat` advances of `steps` steps, per step per instance [us].
double step_us(Simulator& sim, int steps, int repeat) {
  sim.advance(5);  // warm
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    sim.advance(steps);
    sim.synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
  }
  return 1e6 * best / steps / sim.n_instances();
}

}  // namespace

int main(int argc, char** argv) {
  int instances = 64, steps = 200, repeat = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--instances")) instances = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--steps")) steps = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--repeat")) repeat = std::atoi(argv[a + 1]);
  }
  std::printf("%d instances, %d steps per advance, fastest of %d, 1 thread; %s\n\n", instances, steps, repeat,
              simphant::cpu_model_name().c_str());
  const std::string no_gpu = simphant::cuda_unavailable_reason();
  std::printf("| scene | backend | plain [us] | S = 1 | S = 4 | S = 8 | S = 16 |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  const std::pair<const char*, const char*> scenes[] = {
      {"slider_crank.json", ""}, {"four_bar.json", ""}, {"panda_sweep.json", "dae"}, {"panda_sweep.json", "aba"}};
  for (const auto& [name, solver] : scenes) {
    nlohmann::json doc = example(name);
    if (doc.contains("robot")) {
      doc["solver"]["type"] = solver;
      // The URDF's damped limits and velocity cuts off: a trajectory that crosses one has
      // NaN derivatives and is no longer stepped by the engine (docs/sensitivities.md,
      // "Non-smooth laws"), which would time nothing.
      doc["robot"]["urdf_dynamics"]["limits"] = false;
    }
    doc.erase("sweep");
    const std::vector<std::string> all = parameter_paths(doc);
    std::vector<std::string> backends = {"cpu", "cpu-simd"};
    if (no_gpu.empty()) backends.push_back(std::string(solver) == "aba" ? "cuda" : "cuda-fused");
    for (const std::string& backend : backends) {
      simphant::SimulatorOptions o;
      o.threads = 1;
      o.backend = backend;
      const double plain = step_us(*simphant::make_simulator(simphant::parse_scene(doc.dump()), instances, o), steps,
                                   repeat);
      std::printf("| %s%s%s%s | %s | %.2f |", name, *solver ? " (" : "", solver, *solver ? ")" : "", backend.c_str(),
                  plain);
      for (int S : {1, 4, 8, 16}) {
        if (S > static_cast<int>(all.size())) {
          std::printf(" - |");
          continue;
        }
        nlohmann::json with = doc;
        with["sensitivities"]["parameters"] = std::vector<std::string>(all.begin(), all.begin() + S);
        const std::unique_ptr<Simulator> sim =
            simphant::make_simulator(simphant::parse_scene(with.dump()), instances, o);
        const double t = step_us(*sim, steps, repeat);
        const std::vector<std::uint8_t> crossed = sim->sensitivity_crossed();
        const long n_crossed = std::count(crossed.begin(), crossed.end(), std::uint8_t{1});
        if (n_crossed > 0)
          std::printf(" not timed: %ld instances crossed a joint law |", n_crossed);
        else
          std::printf(" %.2f (x%.1f) |", t, t / plain);
      }
      std::printf("\n");
    }
  }
  if (!no_gpu.empty()) std::printf("\nThe GPU paths are not measured here: %s.\n", no_gpu.c_str());
  std::printf("\nEach S runs one pass of Dual<double, S> (%zu, %zu, %zu and %zu bytes per number for S = 1, 4, 8, "
              "16): the cuda-fused batch's arrays, or a robot's model slot and state, per instance.\n",
              sizeof(simphant::Dual<double, 1>), sizeof(simphant::Dual<double, 4>), sizeof(simphant::Dual<double, 8>),
              sizeof(simphant::Dual<double, 16>));
  return 0;
}
