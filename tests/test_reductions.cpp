// Per-instance reductions over time (formulas/reductions.hpp; docs/solver.md,
// "Reductions over time") on the cpu backend: against a host reduction of the frames
// recorded at every step (the step-start states plus the end state), across a
// checkpoint-style stop and resume, after reset, and the quantity names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "example_models.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/formulas/joint_loads.hpp"
#include "simphant/sim/joint_load_frames.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

std::vector<ReductionQuantity> all_quantities() { return parse_reduction_quantities({"all"}, 0, "test"); }

std::unique_ptr<Simulator> make_cpu(const std::string& example, int n) {
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 2;
  return Simulator::create(test::example_models(example, n), o);
}

// The power of instance i's loads, drives and dampers at its state (13 N) and time t, by
// the CPU reference (dynamics/forces.hpp), the actuators at their defaults.
double reference_power(const Model& model, const double* state, double t) {
  const int B = model.n_bodies();
  std::vector<double> Y(13 * static_cast<size_t>(B)), ydot(Y.size());
  for (int k = 0; k < B; ++k) {  // (B, 13) rows -> the state layout (positions, then velocities)
    for (int c = 0; c < 7; ++c) Y[7 * k + c] = state[13 * k + c];
    for (int c = 0; c < 6; ++c) Y[7 * B + 6 * k + c] = state[13 * k + 7 + c];
  }
  Data d(model);
  if (!evaluate(model, d, t, Y.data(), nullptr, ydot.data())) return NAN;
  return nonconservative_power(model, d, t, nullptr);
}

// The frame of every channel (n, C) at the simulator's current state, in the layout of
// the reductions, from the recorded quantities (read_states, read_reactions, ...).
std::vector<double> channel_frame(const Simulator& sim, const ReductionLayout& L, const std::vector<Model>& models) {
  const Model& m = sim.model();
  const int n = sim.n_instances(), J = m.n_joints(), B = m.n_bodies();
  std::vector<double> states(static_cast<size_t>(n) * B * 13), R(static_cast<size_t>(n) * J * 6), loads(n * J * 6),
      bearing(n * J * 4), viol(n), energy(n);
  sim.read_states(states.data());
  sim.read_reactions(R.data());
  sim.read_constraint_violation(viol.data());
  sim.read_energy(energy.data());
  sim.joint_load_frames(states.data(), R.data(), nullptr, loads.data(), bearing.data());
  std::vector<double> out(static_cast<size_t>(n) * L.channels);
  for (int i = 0; i < n; ++i) {
    double* o = out.data() + static_cast<size_t>(i) * L.channels;
    for (int j = 0; j < J; ++j) {
      const double* r = &R[(static_cast<size_t>(i) * J + j) * 6];
      for (int c = 0; c < 6; ++c) o[L.offset[0] + 8 * j + c] = r[c];
      o[L.offset[0] + 8 * j + 6] = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
      o[L.offset[0] + 8 * j + 7] = std::sqrt(r[3] * r[3] + r[4] * r[4] + r[5] * r[5]);
      for (int c = 0; c < 6; ++c) o[L.offset[1] + 6 * j + c] = loads[(static_cast<size_t>(i) * J + j) * 6 + c];
      for (int c = 0; c < 4; ++c) o[L.offset[2] + 4 * j + c] = bearing[(static_cast<size_t>(i) * J + j) * 4 + c];
      const Joint& jt = m.joints[j];
      auto kin = [&](int k) {
        if (k < 0) return ground_kin<double>();
        const double* b = &states[(static_cast<size_t>(i) * B + k) * 13];
        return make_body_kin(Vec3d{b[0], b[1], b[2]}, normalized(Quatd{b[3], b[4], b[5], b[6]}),
                             Vec3d{b[7], b[8], b[9]}, Vec3d{b[10], b[11], b[12]});
      };
      o[L.offset[6] + j] = joint_coordinate(jt.type, jt.frame, kin(jt.body_i), kin(jt.body_j));
    }
    o[L.offset[4]] = viol[i];
    o[L.offset[5]] = energy[i];
    o[L.offset[7]] = reference_power(models[static_cast<size_t>(i)], &states[static_cast<size_t>(i) * B * 13], sim.time());
  }
  return out;
}

// With every quantity enabled, the reductions equal max, min, mean, rms and the time of
// the first max over the frames at every step (record_every 1) and the end state. The
// frames are evaluated exactly as the step's first stage evaluates (the same evaluate()
// on the same state), so max, min and the time of the max agree bit for bit and mean
// and rms to the rounding of a sum of 51 terms; the power's mean is its time average by
// Gregory's rule over the same frames (formulas/reductions.hpp).
TEST(Reductions, EqualHostReductionOfEveryStepFrames) {
  for (const char* example : {"four_bar", "slider_crank"}) {
    const std::vector<Model> models = test::example_models(example, 3);
    auto sim = make_cpu(example, 3);
    sim->set_reductions(all_quantities());
    const ReductionLayout L = sim->reduction_layout();
    const int n = sim->n_instances(), C = L.channels, steps = 50;
    ASSERT_GT(C, 0);
    std::vector<double> mx(n * C, -INFINITY), mn(n * C, INFINITY), sum(n * C, 0.0), sq(n * C, 0.0), tmax(n * C, NAN);
    std::vector<std::vector<double>> power(static_cast<size_t>(n));
    for (int s = 0; s <= steps; ++s) {
      if (s > 0) sim->advance(1);
      const std::vector<double> f = channel_frame(*sim, L, models);
      for (int i = 0; i < n; ++i) power[static_cast<size_t>(i)].push_back(f[static_cast<size_t>(i) * C + L.offset[7]]);
      for (int k = 0; k < n * C; ++k) {
        if (f[k] > mx[k] || (std::isnan(f[k]) && !std::isnan(mx[k]))) {
          mx[k] = f[k];
          tmax[k] = sim->time();
        }
        if (f[k] < mn[k] || std::isnan(f[k])) mn[k] = f[k];
        sum[k] += f[k];
        sq[k] += f[k] * f[k];
      }
    }
    std::vector<double> red(static_cast<size_t>(n) * C * kReductionStats);
    sim->read_reductions(red.data());
    int compared = 0;
    for (int k = 0; k < n * C; ++k) {
      const double* r = &red[static_cast<size_t>(k) * kReductionStats];
      double mean = sum[k] / (steps + 1);
      const double rms = std::sqrt(sq[k] / (steps + 1));
      if (k % C == L.offset[7]) {  // Gregory's rule over the 51 power samples, over 50 dt
        const std::vector<double>& f = power[static_cast<size_t>(k / C)];
        const double dt = sim->model().solver.dt;
        // The end corrections through fourth differences, forward at the start and
        // backward at the end.
        const auto diff = [&](int order, int from, int dir) {
          const double binomial[5][5] = {{1}, {1, 1}, {1, 2, 1}, {1, 3, 3, 1}, {1, 4, 6, 4, 1}};
          double v = 0;
          for (int j = 0; j <= order; ++j)
            v += ((order - j) % 2 ? -1.0 : 1.0) * binomial[order][j] * f[static_cast<size_t>(from + dir * j)];
          return v;
        };
        const double c[5] = {0, 1.0 / 12, 1.0 / 24, 19.0 / 720, 3.0 / 160};
        double W = dt * (sum[k] - 0.5 * (f.front() + f.back()));
        for (int o = 1; o <= 4; ++o) {
          // Delta^o f_0 = diff(o, 0, 1); nabla^o f_N = (-1)^o diff(o, N, -1).
          const double forward = diff(o, 0, 1), nabla = (o % 2 ? -1.0 : 1.0) * diff(o, 50, -1);
          W -= dt * c[o] * (o % 2 ? nabla - forward : nabla + forward);
        }
        mean = W / (steps * dt);
      }
      if (std::isnan(mx[k])) {  // joint coordinates of other joint types
        EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[2])) << example << " channel " << k % C;
        continue;
      }
      EXPECT_EQ(r[0], mx[k]) << example << " channel " << k % C;
      EXPECT_EQ(r[1], mn[k]) << example << " channel " << k % C;
      EXPECT_NEAR(r[2], mean, 1e-13 * (std::fabs(mx[k]) + std::fabs(mn[k]) + 1e-300)) << example << " channel " << k % C;
      EXPECT_NEAR(r[3], rms, 1e-13 * (std::fabs(mx[k]) + std::fabs(mn[k]) + 1e-300)) << example << " channel " << k % C;
      EXPECT_EQ(r[4], tmax[k]) << example << " channel " << k % C;
      ++compared;
    }
    EXPECT_GT(compared, n * C / 2);
  }
}

// Reading twice gives the same numbers (the end-state sample is not stored), and a run
// stopped after 17 steps and continued in a new simulator from get_state /
// get_reduction_state equals an uninterrupted run of 40 steps bit for bit.
TEST(Reductions, ResumeEqualsUninterruptedRun) {
  auto a = make_cpu("four_bar", 4);
  a->set_reductions(all_quantities());
  const int C = a->reduction_layout().channels, n = a->n_instances();
  a->advance(17);
  std::vector<double> first(static_cast<size_t>(n) * C * kReductionStats), again(first.size());
  a->read_reductions(first.data());
  a->read_reductions(again.data());
  EXPECT_EQ(0, std::memcmp(first.data(), again.data(), first.size() * sizeof(double)));
  std::vector<double> y(static_cast<size_t>(n) * a->state_size()), acc(static_cast<size_t>(n) * a->reduction_layout().size());
  std::vector<std::int64_t> steps(n), status_steps(n);
  std::vector<std::int8_t> status(n);
  std::vector<std::uint64_t> episodes(n);
  a->get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  a->get_reduction_state(acc.data());
  a->advance(23);
  std::vector<double> whole(first.size()), resumed(first.size());
  a->read_reductions(whole.data());

  auto b = make_cpu("four_bar", 4);
  b->set_reductions(all_quantities());
  b->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  b->set_reduction_state(acc.data());
  b->advance(23);
  b->read_reductions(resumed.data());
  EXPECT_EQ(0, std::memcmp(whole.data(), resumed.data(), whole.size() * sizeof(double)));
  EXPECT_NE(0, std::memcmp(whole.data(), first.data(), whole.size() * sizeof(double)));
}

// reset() clears the listed instances' accumulators: right after it an instance's
// reductions are those of its initial state alone (max = min = mean, time 0).
TEST(Reductions, ResetClearsTheInstance) {
  auto sim = make_cpu("pendulum", 2);
  sim->set_reductions(parse_reduction_quantities({"energy", "joint_coordinates"}, 0, "test"));
  const ReductionLayout L = sim->reduction_layout();
  ASSERT_EQ(L.channels, 1 + sim->model().n_joints());
  sim->advance(30);
  const int id = 1;
  sim->reset(&id, 1);
  std::vector<double> red(2 * L.channels * kReductionStats);
  sim->read_reductions(red.data());
  const double* r = &red[(1 * L.channels + L.offset[5]) * kReductionStats];
  EXPECT_EQ(r[0], r[1]);
  EXPECT_EQ(r[0], r[2]);
  EXPECT_EQ(r[4], 0.0);
  // Instance 0 kept its 31 samples of a swinging joint: its angle's min and max differ.
  const double* r0 = &red[(0 * L.channels + L.offset[6]) * kReductionStats];
  EXPECT_LT(r0[1], r0[0]);
}

// A pendulum driven at constant speed about its hinge: the driver's torque reaches the
// hinge's axial moment (a revolute passes none itself), on body_i (ground) with the
// opposite sign: axial_moment = -driver load in every frame, and the reductions of
// driver_loads equal a host reduction of read_driver_loads at every step.
TEST(Reductions, DriverLoadIsTheDrivenJointsAxialMoment) {
  const Scene scene = parse_scene(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "mass": 1.0, "inertia": [0.001, 0.02, 0.02], "position": [0.5, 0, 0]}],
    "joints": [{"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "bob",
                "frame": {"origin": [0, 0, 0], "z": [0, 1, 0], "x": [1, 0, 0]}}],
    "drivers": [{"name": "motor", "joint": "hinge", "coordinate": "angle",
                 "law": {"type": "constant_speed", "initial": 0, "speed": 3}}],
    "solver": {"dt": 0.001, "t_end": 0.1}
  })");
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  auto sim = Simulator::create({scene.model}, o, 2);
  ASSERT_EQ(sim->n_drivers(), 1);
  sim->set_reductions(parse_reduction_quantities({"driver_loads", "bearing_loads"}, 1, "test"));
  const ReductionLayout L = sim->reduction_layout();
  const int n = 2, steps = 40;
  double mx = -INFINITY, sum = 0, tmax = 0;
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) sim->advance(1);
    std::vector<double> states(n * 13), R(n * 6), drv(n), loads(n * 6), bearing(n * 4);
    sim->read_states(states.data());
    sim->read_reactions(R.data());
    sim->read_driver_loads(drv.data());
    sim->joint_load_frames(states.data(), R.data(), drv.data(), loads.data(), bearing.data());
    EXPECT_NEAR(bearing[2], -drv[0], 1e-9 * (1 + std::fabs(drv[0]))) << "step " << s;
    EXPECT_GT(std::fabs(drv[0]), 0.1);  // the motor holds the bob against gravity
    if (drv[0] > mx) {
      mx = drv[0];
      tmax = sim->time();
    }
    sum += drv[0];
  }
  std::vector<double> red(static_cast<std::size_t>(n) * L.channels * kReductionStats);
  sim->read_reductions(red.data());
  const double* r = &red[static_cast<std::size_t>(L.offset[3]) * kReductionStats];
  EXPECT_EQ(r[0], mx);
  EXPECT_EQ(r[4], tmax);
  EXPECT_NEAR(r[2], sum / (steps + 1), 1e-13 * std::fabs(mx));
  // The bearing's axial moment: the reductions' max is minus the driver's min.
  const double* am = &red[static_cast<std::size_t>(L.offset[2] + 2) * kReductionStats];
  EXPECT_NEAR(am[0], -r[1], 1e-9 * (1 + std::fabs(r[1])));
}

TEST(Reductions, QuantityNames) {
  EXPECT_EQ(parse_reduction_quantities({"all"}, 0, "x").size(), 7u);
  EXPECT_EQ(parse_reduction_quantities({"all"}, 2, "x").size(), 8u);
  EXPECT_TRUE(parse_reduction_quantities({"none"}, 0, "x").empty());
  EXPECT_EQ(parse_reduction_quantities({"energy", "reactions"}, 0, "x")[1], ReductionQuantity::Reactions);
  try {
    parse_reduction_quantities({"energy", "torque"}, 0, "output.reductions");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("output.reductions: unknown reduction quantity 'torque'"), std::string::npos);
  }
  EXPECT_THROW(parse_reduction_quantities({"energy", "energy"}, 0, "x"), std::invalid_argument);
  // ReductionQuantity follows the output section's list of names, in order.
  ASSERT_EQ(reduction_names().size(), static_cast<size_t>(kReductionQuantities));
  for (int q = 0; q < kReductionQuantities; ++q)
    EXPECT_EQ(parse_reduction_quantities({reduction_names()[q]}, 1, "x")[0], static_cast<ReductionQuantity>(q));
}

}  // namespace
}  // namespace simphant
