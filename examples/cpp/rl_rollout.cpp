// A reinforcement-learning style rollout through the C++ API (src/simphant/sim/
// simulator.hpp): 64 slider-crank instances stepped in lockstep; before every step each
// instance's motor torque is set from its own observation by a per-instance policy
// (here a proportional speed controller with a per-instance target). Prints the mean
// crank speed reached and how many instances are still ok.
//
//   ./build/examples/cpp/rl_rollout examples/slider_crank.json
#include <cmath>
#include <cstdio>
#include <vector>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

// Signed speed of body 0 about the world axis `axis_W`: axis . (A(p) omega_B), from one
// instance's recorded state (per body r, p, v, omega_B).
double crank_speed(const double* state, const simphant::Vec3d& axis_W) {
  const simphant::Quatd p{state[3], state[4], state[5], state[6]};
  const simphant::Vec3d omega_B{state[10], state[11], state[12]};
  return simphant::dot(axis_W, simphant::mul(simphant::rotation(p), omega_B));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENE.json (a scene with one actuator)\n", argv[0]);
    return 2;
  }
  try {
    const simphant::Scene scene = simphant::load_scene(argv[1]);
    const int n = 64;
    const simphant::SweepSamples samples = simphant::sample_sweep(scene.sweep, n);
    auto sim = simphant::Simulator::create(simphant::build_instance_models(scene, samples), {"cpu", 0}, n);
    const simphant::Model& model = sim->model();
    if (model.n_inputs != 1) {
      std::fprintf(stderr, "error: %s has %d actuators, this example drives exactly one\n", argv[1], model.n_inputs);
      return 2;
    }
    const int B = model.n_bodies();
    // The actuated joint's axis v_i in the world: its body_i must be the ground.
    const simphant::Joint* motor_joint = nullptr;
    for (const simphant::ForceElement& f : model.forces)
      if (f.type == simphant::ForceType::Actuator) motor_joint = &model.joints[f.joint];
    if (motor_joint->body_i != simphant::kGround || motor_joint->body_j != 0) {
      std::fprintf(stderr, "error: this example expects the actuator between the ground and body 0\n");
      return 2;
    }
    const simphant::Vec3d axis_W = motor_joint->frame.v_i;
    std::vector<double> obs(static_cast<size_t>(n) * B * 13), action(n);
    const int steps = static_cast<int>(std::lround(0.5 / model.solver.dt));  // 0.5 s
    for (int s = 0; s < steps; ++s) {
      sim->read_states(obs.data());  // (n, B, 13): r, p, v, omega_B per body
      for (int i = 0; i < n; ++i) {
        const double target = 5.0 + 0.1 * i;                             // rad/s, per instance
        action[i] = 0.05 * (target - crank_speed(&obs[static_cast<size_t>(i) * B * 13], axis_W));  // N m
      }
      sim->set_inputs(action.data());  // (n, n_inputs)
      sim->advance(1);
    }
    std::vector<std::int8_t> status(n);
    std::vector<double> status_time(n);
    sim->read_status(status.data(), status_time.data());
    sim->read_states(obs.data());
    int ok = 0;
    double mean_speed = 0;
    for (int i = 0; i < n; ++i) {
      ok += status[i] == 0;
      mean_speed += crank_speed(&obs[static_cast<size_t>(i) * B * 13], axis_W) / n;
    }
    std::printf("%d instances x %d steps: %d ok, mean crank speed %.3f rad/s at t = %.3f s\n", n, steps, ok,
                mean_speed, sim->time());
    return ok == n ? 0 : 3;
  } catch (const simphant::SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
