// GPU vs CPU throughput on one scene (issue 3, item 8): instance-steps per second of the
// cpu backend (all threads) and of the cuda backend in fp64 and fp32, at each batch size,
// measured in the same run; ratios against the cpu figure of the same size. Without a
// CUDA device the cuda rows say so. Writes one JSON object to --json (and a table to
// stdout). A measurement, not a test.
//
//   ./build/bench/bench_gpu_throughput examples/four_bar.json --sizes 1,1024,65536 --json out.json
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/simulator.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Measurement {
  double instance_steps_per_s = 0;
  long long steps = 0;
  double seconds = 0;
  std::string error;
};

// Warms up, then doubles the step count until one timed batch takes min_seconds.
Measurement measure(const simphant::Scene& scene, int n, const std::string& backend, const std::string& precision,
                    double min_seconds) {
  Measurement m;
  try {
    simphant::SimulatorOptions o;
    o.backend = backend;
    o.precision = precision;
    auto sim = simphant::Simulator::create(simphant::build_instance_models(scene, simphant::sample_sweep(scene.sweep, n)),
                                           o, n);
    sim->advance(2);
    sim->synchronize();
    for (long long k = 4;; k *= 2) {
      const auto t0 = Clock::now();
      sim->advance(static_cast<int>(k));
      sim->synchronize();
      const double s = std::chrono::duration<double>(Clock::now() - t0).count();
      if (s >= min_seconds || k >= (1LL << 24)) {
        m.steps = k;
        m.seconds = s;
        m.instance_steps_per_s = static_cast<double>(k) * n / s;
        break;
      }
    }
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GPU vs CPU instance-steps per second"};
  std::string scene_file, json_file;
  std::vector<int> sizes = {1, 1024, 65536};
  double min_seconds = 0.5;
  app.add_option("scene", scene_file)->required();
  app.add_option("--sizes", sizes)->delimiter(',');
  app.add_option("--min-seconds", min_seconds);
  app.add_option("--json", json_file);
  CLI11_PARSE(app, argc, argv);
  const simphant::Scene scene = simphant::load_scene(scene_file);
  const bool gpu = simphant::cuda_device_count() > 0;
  nlohmann::json out = {{"scene", scene_file}, {"dt", scene.model.solver.dt}, {"cuda_devices", simphant::cuda_device_count()},
                        {"rows", nlohmann::json::array()}};
  std::printf("%10s %-10s %16s %10s\n", "instances", "path", "inst-steps/s", "vs cpu");
  for (int n : sizes) {
    const Measurement cpu = measure(scene, n, "cpu", "fp64", min_seconds);
    struct Path { const char* name; const char* backend; const char* precision; };
    for (const Path& p : {Path{"cpu", "cpu", "fp64"}, Path{"cuda-fp64", "cuda", "fp64"}, Path{"cuda-fp32", "cuda", "fp32"}}) {
      const bool is_cpu = std::string(p.backend) == "cpu";
      Measurement m = is_cpu ? cpu : Measurement{};
      if (!is_cpu) {
        if (gpu)
          m = measure(scene, n, p.backend, p.precision, min_seconds);
        else
          m.error = "no CUDA device";
      }
      const double ratio = m.error.empty() && cpu.error.empty() ? m.instance_steps_per_s / cpu.instance_steps_per_s : 0;
      if (m.error.empty())
        std::printf("%10d %-10s %16.4g %9.2fx\n", n, p.name, m.instance_steps_per_s, ratio);
      else
        std::printf("%10d %-10s %16s  (%s)\n", n, p.name, "-", m.error.c_str());
      out["rows"].push_back({{"instances", n}, {"path", p.name}, {"instance_steps_per_s", m.instance_steps_per_s},
                             {"steps", m.steps}, {"seconds", m.seconds}, {"ratio_vs_cpu", ratio}, {"error", m.error}});
    }
  }
  if (!json_file.empty()) std::ofstream(json_file) << out.dump(2) << "\n";
  return 0;
}
