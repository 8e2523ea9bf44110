// The closed-loop step of examples/cpp/rl_rollout.cpp, timed: every step reads each
// instance's state, sets its actuator input from it (a proportional speed controller
// with a per-instance target) and advances one step. The C++ side of
// bench/python_step_overhead.py, which runs the same loop in Python beside it.
//
//   rl_step_loop SCENE INSTANCES STEPS THREADS [REPEATS]
// Prints one JSON object: the best of REPEATS (default 3) timed runs of STEPS steps each,
// after a warm-up of STEPS / 10 steps: {"instances", "steps", "threads",
// "seconds_per_step", "instance_steps_per_s", "mean_speed"}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s SCENE INSTANCES STEPS THREADS [REPEATS]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[2]), steps = std::atoi(argv[3]), threads = std::atoi(argv[4]);
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
  try {
    const simphant::Scene scene = simphant::load_scene(argv[1]);
    simphant::SimulatorOptions options;
    options.backend = "cpu";
    options.threads = threads;
    auto sim = simphant::Simulator::create(
        simphant::build_instance_models(scene, simphant::sample_sweep(scene.sweep, n)), options, n);
    const int B = sim->model().n_bodies(), U = sim->model().n_inputs;
    std::vector<double> obs(static_cast<std::size_t>(n) * B * 13), action(static_cast<std::size_t>(n) * U, 0.0);
    // Body 0 turns about its own y axis, the world y axis (the slider-crank's crank).
    auto loop = [&](int k) {
      for (int s = 0; s < k; ++s) {
        sim->read_states(obs.data());
        for (int i = 0; i < n; ++i)
          action[static_cast<std::size_t>(i) * U] = 0.05 * (5.0 + 0.01 * i - obs[static_cast<std::size_t>(i) * B * 13 + 11]);
        sim->set_inputs(action.data());
        sim->advance(1);
      }
    };
    loop(std::max(1, steps / 10));
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      loop(steps);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    sim->read_states(obs.data());
    double mean_speed = 0;
    for (int i = 0; i < n; ++i) mean_speed += obs[static_cast<std::size_t>(i) * B * 13 + 11] / n;
    std::printf("{\"instances\": %d, \"steps\": %d, \"threads\": %d, \"seconds_per_step\": %.9g, "
                "\"instance_steps_per_s\": %.6g, \"mean_speed\": %.6g}\n",
                n, steps, threads, best / steps, n * steps / best, mean_speed);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
