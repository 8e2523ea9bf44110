// The CPU backend's dopri5 integration as a backend (sim/cpu_dopri5.cpp; docs/solver.md,
// "Dormand-Prince 5(4)"): the step-size floor flags the instance (reason
// step_size_underflow) without holding up the others; results do not depend on how
// advance() is sliced or on the thread count; the integrator state round-trips
// bit-identically and set_state / reset / a written state restart the integration;
// changed inputs take effect at the grid time; step statistics and the reductions'
// samples follow the accepted steps; atol = 0 works on a planar motion's zero entries;
// bad settings are refused naming the field (exit code 2 from the CLI).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "dopri5_support.hpp"
#include "process_support.hpp"
#include "temp_dir.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/sim/host_memory.hpp"

namespace simphant {
namespace {

using nlohmann::json;
using test::Dopri5Settings;
using test::dopri5_backend;
using test::dopri5_model;
using test::state_of;
using test::Exit;
using test::make_process_temp_dir;
using test::read_text;
using test::start_simphant;
using test::wait_child;

/// A compound pendulum (hinge about W's y) with a motor torque input at the hinge.
json pendulum(double dt = 1e-2, double angle = 1.2) {
  return {{"gravity", {0.0, 0.0, -9.81}},
          {"bodies",
           {{{"name", "bob"}, {"mass", 1.0}, {"inertia", {0.01, 0.01, 0.01}},
             {"position", {std::sin(angle), 0.0, -std::cos(angle)}}}}},
          {"joints",
           {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
          {"forces", {{{"name", "motor"}, {"type", "actuator"}, {"joint", "hinge"}, {"kind", "torque"}}}},
          {"solver", {{"dt", dt}, {"t_end", 1.0}, {"tikhonov_epsilon", 1e-10}}}};
}

Dopri5Settings tol(double rtol) {
  Dopri5Settings s;
  s.rtol = rtol;
  s.atol = 1e-3 * rtol;
  return s;
}

/// Three instances of the pendulum started at different angles.
std::vector<Model> three_pendulums(const Dopri5Settings& s) {
  return {dopri5_model(pendulum(1e-2, 0.4), s), dopri5_model(pendulum(1e-2, 1.2), s),
          dopri5_model(pendulum(1e-2, 2.5), s)};
}

std::vector<double> all_states(const Backend& b) {
  std::vector<double> y(static_cast<std::size_t>(b.n_instances()) * b.state_size());
  b.get_state(nullptr, b.n_instances(), y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

struct Stats {
  std::vector<std::int64_t> accepted, rejected;
  std::vector<double> min_step, max_step;
};
Stats stats_of(const Backend& b) {
  const std::size_t n = static_cast<std::size_t>(b.n_instances());
  Stats s{std::vector<std::int64_t>(n), std::vector<std::int64_t>(n), std::vector<double>(n), std::vector<double>(n)};
  b.read_step_statistics(s.accepted.data(), s.rejected.data(), s.min_step.data(), s.max_step.data());
  return s;
}

TEST(Dopri5Backend, MinimumStepAboveWhatRtolNeedsFlagsOnlyThatInstance) {
  // Instance 0 asks for rtol 1e-13 with min_step = dt = 10 ms: the steps it needs are
  // ~0.1 ms, so the controller asks for less than min_step and the instance stops with
  // step_size_underflow at its grid time 0 (its state stays there); instance 1 (rtol
  // 1e-6, no minimum) runs on.
  Dopri5Settings strict = tol(1e-13);
  strict.min_step = 1e-2;
  auto b = dopri5_backend({dopri5_model(pendulum(), strict), dopri5_model(pendulum(), tol(1e-6))}, 2);
  const std::vector<double> y0 = state_of(*b, 0);
  b->advance(20);
  std::int8_t status[2], reason[2];
  double status_time[2];
  b->read_status(status, status_time, reason);
  EXPECT_EQ(status[0], static_cast<std::int8_t>(InstanceStatus::Diverged));
  EXPECT_EQ(reason[0], kReasonStepSizeUnderflow);
  EXPECT_EQ(std::string(status_reason_name(reason[0])), "step_size_underflow");
  EXPECT_EQ(status_time[0], 0.0);
  EXPECT_EQ(state_of(*b, 0), y0);
  EXPECT_EQ(status[1], 0);
  EXPECT_EQ(reason[1], kReasonNone);
  EXPECT_NE(state_of(*b, 1), y0);
  const Stats s = stats_of(*b);
  EXPECT_EQ(s.accepted[0], 0);
  EXPECT_GT(s.accepted[1], 0);
}

TEST(Dopri5Backend, SlicingAndThreadsDoNotChangeTheResult) {
  // Steps are never clipped to the grid, so advance(40) and advance(7) + advance(33)
  // take the same steps; each instance's arithmetic is its own (any thread count).
  auto whole = dopri5_backend(three_pendulums(tol(1e-7)), 3, 1);
  auto sliced = dopri5_backend(three_pendulums(tol(1e-7)), 3, 2);
  whole->advance(40);
  sliced->advance(7);
  sliced->advance(33);
  EXPECT_EQ(all_states(*whole), all_states(*sliced));
  const Stats a = stats_of(*whole), b = stats_of(*sliced);
  EXPECT_EQ(a.accepted, b.accepted);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.min_step, b.min_step);
  EXPECT_EQ(a.max_step, b.max_step);
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(a.accepted[i], 0);
    EXPECT_LE(a.min_step[i], a.max_step[i]);
    EXPECT_GT(a.min_step[i], 0.0);
  }
}

TEST(Dopri5Backend, IntegratorStateRoundTripsBitIdentically) {
  auto a = dopri5_backend(three_pendulums(tol(1e-7)), 3);
  a->advance(25);
  const int n = 3, S = a->state_size(), W = a->integrator_state_size();
  ASSERT_GT(W, 13 * 7);  // the state, k1 and five dense-output rows at least
  std::vector<double> y(static_cast<std::size_t>(n) * S), integ(static_cast<std::size_t>(n) * W);
  std::vector<std::int64_t> steps(n), status_steps(n);
  std::vector<std::int8_t> status(n), reasons(n);
  a->get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), reasons.data());
  a->get_integrator_state(integ.data());

  auto b = dopri5_backend(three_pendulums(tol(1e-7)), 3);
  b->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), reasons.data());
  b->set_integrator_state(integ.data());
  auto c = dopri5_backend(three_pendulums(tol(1e-7)), 3);  // the state alone: a restart
  c->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), reasons.data());
  EXPECT_EQ(stats_of(*b).accepted, stats_of(*a).accepted);
  EXPECT_EQ(stats_of(*c).accepted, std::vector<std::int64_t>(3, 0));  // set_state cleared them

  a->advance(25);
  b->advance(25);
  c->advance(25);
  EXPECT_EQ(all_states(*a), all_states(*b));
  EXPECT_EQ(stats_of(*a).accepted, stats_of(*b).accepted);
  EXPECT_EQ(stats_of(*a).rejected, stats_of(*b).rejected);
  std::vector<double> ia(integ.size()), ib(integ.size());
  a->get_integrator_state(ia.data());
  b->get_integrator_state(ib.data());
  EXPECT_EQ(ia, ib);
  // The restarted run takes other steps (first-step estimate at t = 0.25 s): the same
  // trajectory to the tolerance, not the same bits.
  const std::vector<double> ya = all_states(*a), yc = all_states(*c);
  EXPECT_NE(ya, yc);
  for (std::size_t e = 0; e < ya.size(); ++e) EXPECT_NEAR(ya[e], yc[e], 1e-5) << e;
}

TEST(Dopri5Backend, ResetAndWrittenStatesRestartTheIntegration) {
  auto b = dopri5_backend(three_pendulums(tol(1e-7)), 3);
  b->advance(30);
  const std::vector<double> first = all_states(*b);
  const Stats s1 = stats_of(*b);
  b->reset(nullptr, 3);
  EXPECT_EQ(stats_of(*b).accepted, std::vector<std::int64_t>(3, 0));
  EXPECT_EQ(stats_of(*b).max_step, std::vector<double>(3, 0.0));
  b->advance(30);  // from the assembled state with the first-step estimate again
  EXPECT_EQ(all_states(*b), first);
  EXPECT_EQ(stats_of(*b).accepted, s1.accepted);

  // Writing instance 1's state through state_view is set_state of y: it restarts there
  // (its statistics start again), the others go on untouched.
  auto ref = dopri5_backend(three_pendulums(tol(1e-7)), 3);
  ref->advance(60);
  const ArrayView v = b->state_view();
  auto* Y = static_cast<double*>(v.data);
  const std::vector<double> y1 = state_of(*b, 1);
  Y[1 * v.strides[0] + 7] += 0.01;  // body 0's v_x
  b->advance(30);
  const Stats s2 = stats_of(*b);
  EXPECT_LT(s2.accepted[1], s2.accepted[0]);
  EXPECT_EQ(state_of(*b, 0), state_of(*ref, 0));
  EXPECT_EQ(state_of(*b, 2), state_of(*ref, 2));
  EXPECT_NE(state_of(*b, 1), state_of(*ref, 1));
  (void)y1;
}

TEST(Dopri5Backend, ChangedInputsActFromTheGridTime) {
  // The motor torque switches from 0 to 2 N m at t = 0.3 s (grid step 30). The
  // integration had run past 0.3 s with the old input; it restarts from the grid state,
  // so the result matches a reference that switches exactly there: the same model
  // integrated by fixed small steps landing on the grid (h = 1e-4, rtol irrelevant,
  // order 5: error ~1e-14), to the adaptive run's tolerance. Without the restart the
  // 0.3 s .. t_internal stretch would run with torque 0: an error of ~ 2 N m / I_O
  // * h_internal^2 ~ 1e-4 rad.
  const Dopri5Settings adaptive = tol(1e-9);
  Dopri5Settings fine;
  fine.rtol = 1.0;
  fine.atol = 1e6;
  fine.first_step = fine.min_step = fine.max_step = 1e-4;
  auto a = dopri5_backend({dopri5_model(pendulum(), adaptive)});
  auto r = dopri5_backend({dopri5_model(pendulum(), fine)});
  for (Backend* b : {static_cast<Backend*>(a.get()), static_cast<Backend*>(r.get())}) {
    b->advance(30);
    const double u = 2.0;
    b->set_inputs(&u);
    b->advance(30);
  }
  const std::vector<double> ya = state_of(*a, 0), yr = state_of(*r, 0);
  double e = 0;
  for (std::size_t c = 0; c < ya.size(); ++c) e = std::max(e, std::fabs(ya[c] - yr[c]));
  std::printf("input switch: max |adaptive - fine fixed step| = %.3e\n", e);
  EXPECT_LT(e, 1e-6);  // 1e3 rtol: the adaptive run's global error over 0.6 s (printed)
  const Stats s = stats_of(*a);
  EXPECT_GT(s.accepted[0], 0);
}

TEST(Dopri5Backend, ReductionsSampleEveryAcceptedStepStart) {
  // One sample at the start and one per accepted step (its end is the next step's
  // start): the accumulator's count is accepted + 1.
  auto b = dopri5_backend(three_pendulums(tol(1e-6)), 3);
  b->set_reductions({ReductionQuantity::Energy});
  b->advance(50);
  const int w = b->reduction_layout().size();
  std::vector<double> acc(static_cast<std::size_t>(3 * w));
  b->get_reduction_state(acc.data());
  const Stats s = stats_of(*b);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(acc[static_cast<std::size_t>(i * w)], static_cast<double>(s.accepted[i] + 1)) << i;
}

TEST(Dopri5Backend, MaxStepBoundsTheSteps) {
  Dopri5Settings s = tol(1e-4);
  s.max_step = 2e-3;
  auto b = dopri5_backend(three_pendulums(s), 3);
  b->advance(20);
  const Stats st = stats_of(*b);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(st.max_step[i], 2e-3);
    EXPECT_GE(st.accepted[i], 100);  // 0.2 s at most 2 ms per step
  }
}

TEST(Dopri5Backend, ViolationOnAnAcceptedStepFreezesAtTheLastGridState) {
  // A loose rtol (1e-3) lets the hinge drift by more than a violation bound of 1e-9 m:
  // the first accepted step whose end passes it stops the instance with
  // constraint_violation at the grid step it was integrating from, its state left at
  // that grid time (finite, the bound not passed there: a grid state is checked at the
  // end of advance). The same instance at rtol 1e-10 stays within the bound.
  json loose = pendulum();
  loose["solver"]["violation_bound"] = 1e-9;
  auto b = dopri5_backend({dopri5_model(loose, tol(1e-3)), dopri5_model(loose, tol(1e-10))}, 2);
  std::vector<double> last(static_cast<std::size_t>(b->state_size()));
  std::int8_t status[2] = {0, 0}, reason[2];
  double status_time[2];
  int s = 0;
  for (; s < 100 && status[0] == 0; ++s) {
    last = state_of(*b, 0);
    b->advance(1);
    b->read_status(status, status_time, reason);
  }
  ASSERT_EQ(status[0], static_cast<std::int8_t>(InstanceStatus::Diverged)) << "no violation in 1 s";
  EXPECT_EQ(reason[0], kReasonConstraintViolation);
  EXPECT_NEAR(status_time[0], (s - 1) * 1e-2, 1e-12);
  EXPECT_EQ(state_of(*b, 0), last);
  EXPECT_EQ(status[1], 0);
  std::vector<double> violation(2);
  b->read_constraint_violation(violation.data());
  EXPECT_LE(violation[0], 1e-9);
}

TEST(Dopri5Backend, ZeroAtolOnAPlanarMotion) {
  // The pendulum swings in W's xz plane: y, v_y, omega_x, omega_z and two quaternion
  // components stay 0, where atol = 0 gives a zero error scale (formulas/dopri5.hpp).
  Dopri5Settings s;
  s.rtol = 1e-8;
  s.atol = 0.0;
  auto zero = dopri5_backend({dopri5_model(pendulum(), s)});
  auto small = dopri5_backend({dopri5_model(pendulum(), tol(1e-8))});
  zero->advance(50);
  small->advance(50);
  std::int8_t status = 0;
  double status_time = 0;
  zero->read_status(&status, &status_time, nullptr);
  EXPECT_EQ(status, 0);
  const std::vector<double> a = state_of(*zero, 0), b = state_of(*small, 0);
  for (std::size_t e = 0; e < a.size(); ++e) EXPECT_NEAR(a[e], b[e], 1e-6) << e;
}

TEST(Dopri5Backend, MemoryEstimateCountsTheIntegratorState) {
  // Per instance: the integrator state row (11 + 7 * 13 + 1 input = 103 doubles, as
  // integrator_state_size() says) and the 4 step statistics; per worker: 8 * 13 doubles
  // of stage scratch.
  const Model rk4 = compile_model(pendulum());
  const Model dp = dopri5_model(pendulum(), tol(1e-6));
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 2;
  const HostMemory a = simulator_host_memory(rk4, 10, false, 0, o), b = simulator_host_memory(dp, 10, false, 0, o);
  auto backend = dopri5_backend({dp});
  EXPECT_EQ(backend->integrator_state_size(), 103);
  EXPECT_EQ(b.per_instance - a.per_instance, 8.0 * (103 + 4));
  EXPECT_EQ(b.per_worker - a.per_worker, 8.0 * 8 * 13);
}

/// Expects compile_model(doc) to throw SceneError at `path` whose message holds `fragment`.
void expect_scene_error(const json& doc, const std::string& path, const std::string& fragment) {
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(Dopri5Settings, BadSettingsNameTheField) {
  const auto with = [](const json& solver) {
    json d = pendulum();
    d["solver"]["integrator"] = "dopri5";
    d["solver"].update(solver);
    return d;
  };
  EXPECT_NO_THROW(compile_model(with({{"rtol", 1e-8}, {"atol", 0.0}, {"min_step", 1e-6}, {"max_step", 1e-3},
                                      {"first_step", 1e-4}})));
  expect_scene_error(with({{"rtol", 0.0}}), "/solver/rtol", "> 0");
  expect_scene_error(with({{"rtol", -1e-6}}), "/solver/rtol", "> 0");
  expect_scene_error(with({{"rtol", "tight"}}), "/solver/rtol", "number");
  expect_scene_error(with({{"atol", -1e-9}}), "/solver/atol", ">= 0");
  expect_scene_error(with({{"min_step", 0.02}}), "/solver/min_step", "dt");  // dt = 0.01
  expect_scene_error(with({{"max_step", -1.0}}), "/solver/max_step", ">= 0");
  expect_scene_error(with({{"min_step", 1e-3}, {"max_step", 1e-4}}), "/solver/max_step", "min_step");
  expect_scene_error(with({{"first_step", 1e-2}, {"max_step", 1e-3}}), "/solver/first_step", "max_step");
  expect_scene_error(with({{"error_estimate", true}}), "/solver/error_estimate", "dopri5");
  expect_scene_error(with({{"integrator", "dopri45"}}), "/solver/integrator", "dopri45");
}

TEST(Dopri5Settings, CliRefusesBadSettingsWithExitCode2) {
  const std::filesystem::path dir = make_process_temp_dir("dopri5_cli");
  const std::string scene = std::string(SIMPHANT_SOURCE_DIR) + "/examples/pendulum.json";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--integrator", "dopri5", "--rtol", "0"}, "--rtol"},
      {{"--integrator", "dopri5", "--rtol", "nan"}, "--rtol"},
      {{"--integrator", "dopri5", "--atol", "-1"}, "--atol"},
      {{"--integrator", "dopri5", "--error-estimate"}, "--error-estimate"}};
  int k = 0;
  for (const auto& [flags, name] : cases) {
    std::vector<std::string> args = {"run", scene, "--out", (dir / ("bad" + std::to_string(k) + ".h5")).string()};
    args.insert(args.end(), flags.begin(), flags.end());
    const std::filesystem::path out = dir / ("out" + std::to_string(k)), err = dir / ("err" + std::to_string(k));
    const Exit e = wait_child(start_simphant(args, out, err), 60);
    EXPECT_EQ(e.code, 2) << name;
    EXPECT_NE(read_text(err).find(name), std::string::npos) << read_text(err);
    EXPECT_FALSE(std::filesystem::exists(dir / ("bad" + std::to_string(k) + ".h5")));
    ++k;
  }
}

}  // namespace
}  // namespace simphant
