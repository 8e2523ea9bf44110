// bench_reduced_lanes: instance-steps per second of the joint-space robot step on one
// core, scalar (backend `cpu`: one instance at a time) beside SIMD lanes (`cpu-simd`:
// groups of 8, simd/reduced_lanes.hpp), for arm7 (examples/arm7.urdf), Panda, UR5 and
// xArm7 (example-robot-data), aba and cga, RK4 at dt = 1 ms.
//
//   ./build/bench/bench_reduced_lanes [instances=64] [repeats=5]
//
// Method: ReducedBackend with one thread, `instances` instances with differing states
// (the scene's q0 plus a per-instance offset of up to 0.1 rad, qd0 = 0.3 rad/s), torque
// inputs 0, joint limits, damping and friction off (the plain dynamics); one
// warm-up advance, then `repeats` timed advances of about 0.2 s each; the median is
// reported as ns per instance-step, instance-steps/s, and ns per dynamics evaluation
// (RK4 makes 4 per step: joint forces + ABA + the stage update), the figure to set beside
// Pinocchio's aba per call (bench/pinocchio_aba_bench.cpp). A measurement, not a test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"
#include "simphant/simd/reduced_lanes.hpp"
#include "simphant/simd/dispatch.hpp"
#include "simphant/urdf/robot_data.hpp"

namespace {

using simphant::Model;
using simphant::ReducedBackend;

Model robot_model(const std::string& urdf, const char* solver) {
  nlohmann::json doc;
  doc["name"] = "bench";
  doc["robot"] = {{"urdf", urdf}};
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 1.0}};
  return simphant::parse_scene(doc.dump()).model;
}

/// Median ns per instance-step of `instances` instances on one thread.
double ns_per_instance_step(const Model& m, int instances, int repeats, bool lanes) {
  std::vector<Model> models(static_cast<std::size_t>(instances), m);
  for (int i = 0; i < instances; ++i) {
    auto r = std::make_shared<simphant::RobotJointSpace>(*m.robot);
    for (int k = 0; k < r->n(); ++k) {
      simphant::RobotJointParams<double>& p = r->joints[static_cast<std::size_t>(k)];
      // The plain dynamics, as the MuJoCo side-by-side times it (bench/mujoco_compare.py
      // disables limits, dampers and friction loss): xArm7's URDF damping of 10 N m s/rad
      // on its 1e-4 kg m^2 wrist is beyond RK4's stable step at 1 ms.
      p.limited = 0;
      p.damping = 0;
      p.friction = 0;
      if (p.mimic >= 0) continue;
      r->q0[k] += 0.1 * std::sin(1.3 * i + k);
      r->qd0[k] = 0.3;
    }
    models[static_cast<std::size_t>(i)].robot = r;
  }
  ReducedBackend b(std::make_shared<const std::vector<Model>>(models), instances, 1, lanes);
  b.advance(20);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  b.advance(20);
  const double probe = std::chrono::duration<double>(Clock::now() - t0).count() / 20;
  const int steps = std::max(1, static_cast<int>(std::min(1e7, 0.2 / std::max(probe, 1e-9))));
  if (std::getenv("BENCH_DEBUG")) std::fprintf(stderr, "probe %g s, %d steps, n %d\n", probe, steps, m.robot->n());
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    const auto a = Clock::now();
    b.advance(steps);
    ns.push_back(1e9 * std::chrono::duration<double>(Clock::now() - a).count() / (double(steps) * instances));
  }
  std::vector<std::int8_t> status(static_cast<std::size_t>(instances));
  b.get_state(nullptr, instances, nullptr, nullptr, status.data(), nullptr, nullptr);
  const long diverged = std::count_if(status.begin(), status.end(), [](std::int8_t s) { return s != 0; });
  if (diverged) std::fprintf(stderr, "%ld of %d instances diverged: the timing is not meaningful\n", diverged, instances);
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int instances = argc > 1 ? std::atoi(argv[1]) : 64;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<std::pair<std::string, std::string>> robots = {
      {"arm7", std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.urdf"}};
  if (!simphant::example_robot_data_dir().empty()) {
    robots.push_back({"panda", "example-robot-data:panda_description/urdf/panda.urdf"});
    robots.push_back({"ur5", "example-robot-data:ur_description/urdf/ur5_robot.urdf"});
    robots.push_back({"xarm7", "example-robot-data:xarm_description/urdf/xarm7.urdf"});
  }
  std::printf("lane target %s, %d instances, one thread, RK4 dt = 1 ms, median of %d\n",
              simphant::simd::simd_target(), instances, repeats);
  std::printf("%-6s %-4s %12s %12s %12s %12s %8s %14s\n", "robot", "alg", "scalar ns", "lanes ns", "scalar st/s",
              "lanes st/s", "speedup", "lanes ns/eval");
  for (const auto& [name, urdf] : robots)
    for (const char* solver : {"aba", "cga"}) {
      const Model m = robot_model(urdf, solver);
      const double s = ns_per_instance_step(m, instances, repeats, false);
      const double l = ns_per_instance_step(m, instances, repeats, true);
      std::printf("%-6s %-4s %12.1f %12.1f %12.3g %12.3g %8.2f %14.1f\n", name.c_str(), solver, s, l, 1e9 / s, 1e9 / l,
                  s / l, l / 4);
    }
  return 0;
}
