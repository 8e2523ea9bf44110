// Per-instance state on the host backends (docs/state.md): get_state / set_state round
// trips that continue bit-identically, reset to the assembled state, instance clocks,
// set_models (domain randomisation) against a fresh Simulator, set_inputs of listed
// instances, zero-copy views, and the errors for bad instance lists. Every test runs on
// the cpu backend (two threads) and on the reduced backend (aba and cga).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

constexpr std::int8_t kOk = 0, kAssemblyFailed = 1, kDiverged = 2;

/// A batch under test: its scene, the models of its instances and how to build it.
struct Case {
  std::string name;
  Scene scene;
  int n;
  std::vector<Model> models;
  std::unique_ptr<Simulator> make(const std::vector<Model>& m) const {
    return Simulator::create(m, SimulatorOptions{"cpu", 2}, n);
  }
  std::unique_ptr<Simulator> make() const { return make(models); }
  /// Instance k's model with a heavier body (a parameter the sweep does not vary): the
  /// conrod, or a 1.5 kg payload on the arm's last link.
  Model changed(int k) const {
    nlohmann::json doc = scene.doc;
    if (doc.contains("robot"))
      doc["robot"]["payload"] = {{"link", "panda_link7"}, {"mass", 1.5}, {"com", {0.0, 0.0, 0.1}}};
    else
      doc["bodies"][1]["mass"] = 1.5 * doc["bodies"][1]["mass"].get<double>();
    std::vector<double> values(scene.sweep.parameters.size());
    const SweepSamples s = sample_sweep(scene.sweep, n);
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = s.values[p][static_cast<std::size_t>(k)];
    Scene edited = parse_scene(doc.dump(), std::string(SIMPHANT_SOURCE_DIR) + "/examples/x.json");
    return build_instance_model(edited, values, k, 0);
  }
};

Case slider_crank_case() {
  Case c;
  c.name = "cpu_slider_crank";
  c.scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank.json");
  c.n = 6;
  c.models = build_instance_models(c.scene, sample_sweep(c.scene.sweep, c.n));
  return c;
}

/// arm7 in joint coordinates (solver aba or cga) with a sweep over qd0[0] and gravity.
Case arm_case(const char* solver) {
  const std::string file = std::string(SIMPHANT_SOURCE_DIR) + "/examples/arm7.json";
  nlohmann::json doc = load_scene(file).doc;
  doc["solver"]["type"] = solver;
  doc["sweep"] = {{"mode", "random"},
                  {"instances", 5},
                  {"seed", 11},
                  {"parameters",
                   {{{"path", "robot.qd0[0]"}, {"dist", "normal"}, {"mean", 0.3}, {"std", 0.2}},
                    {{"path", "robot.gravity[2]"}, {"dist", "uniform"}, {"low", -10.0}, {"high", -9.6}}}}};
  Case c;
  c.name = std::string("reduced_") + solver;
  c.scene = parse_scene(doc.dump(), file);
  c.n = 5;
  c.models = build_instance_models(c.scene, sample_sweep(c.scene.sweep, c.n));
  return c;
}

struct State {
  std::vector<double> y;
  std::vector<std::int64_t> steps, status_steps;
  std::vector<std::int8_t> status;
};

State get(const Simulator& sim, const std::vector<int>& ids = {}) {
  const int count = ids.empty() ? sim.n_instances() : static_cast<int>(ids.size());
  State s;
  s.y.assign(static_cast<std::size_t>(count) * sim.state_size(), std::nan(""));
  s.steps.assign(static_cast<std::size_t>(count), -7);
  s.status_steps.assign(static_cast<std::size_t>(count), -7);
  s.status.assign(static_cast<std::size_t>(count), -7);
  sim.get_state(ids.empty() ? nullptr : ids.data(), count, s.y.data(), s.steps.data(), s.status.data(),
                s.status_steps.data(), nullptr);
  return s;
}

void set(Simulator& sim, const State& s, const std::vector<int>& ids = {}) {
  const int count = ids.empty() ? sim.n_instances() : static_cast<int>(ids.size());
  sim.set_state(ids.empty() ? nullptr : ids.data(), count, s.y.data(), s.steps.data(), s.status.data(),
                s.status_steps.data(), nullptr);
}

/// What f throws as std::invalid_argument, or "(no invalid_argument)".
std::string invalid_argument_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no invalid_argument)";
}

std::vector<double> records(const Simulator& sim) {
  std::vector<double> r(static_cast<std::size_t>(sim.n_instances()) * sim.model().n_bodies() * 13);
  sim.read_states(r.data());
  return r;
}

/// Bit-for-bit equality of two double arrays (NaN equal to itself).
bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_same_state(const State& a, const State& b) {
  EXPECT_TRUE(same_bits(a.y, b.y));
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.status_steps, b.status_steps);
}

std::vector<double> row(const State& s, int k, int width) {
  return {s.y.begin() + static_cast<std::ptrdiff_t>(k) * width, s.y.begin() + static_cast<std::ptrdiff_t>(k + 1) * width};
}

/// "cpu", "reduced_aba" or "reduced_cga".
Case make_case(const std::string& name) {
  if (name == "cpu") return slider_crank_case();
  return arm_case(name == "reduced_aba" ? "aba" : "cga");
}

class InstanceState : public ::testing::TestWithParam<std::string> {
 protected:
  static Case case_() { return make_case(GetParam()); }
};

TEST_P(InstanceState, StateSizeAndLayout) {
  const Case c = case_();
  auto sim = c.make();
  const Model& m = sim->model();
  EXPECT_EQ(sim->state_size(), m.robot && m.robot->solver != RobotSolver::Dae ? 2 * m.robot->n() : 13 * m.n_bodies());
  const State s = get(*sim);
  if (!m.robot || m.robot->solver == RobotSolver::Dae) {
    // y = [q, qdot]; read_states gives the same numbers per body.
    const std::vector<double> r = records(*sim);
    const int N = m.n_bodies();
    for (int i = 0; i < sim->n_instances(); ++i)
      for (int k = 0; k < N; ++k)
        for (int e = 0; e < 13; ++e) {
          const double from_y = s.y[static_cast<std::size_t>(i) * 13 * N + (e < 7 ? 7 * k + e : 7 * N + 6 * k + e - 7)];
          EXPECT_EQ(r[(static_cast<std::size_t>(i) * N + k) * 13 + e], from_y);
        }
  } else {
    std::vector<double> q(static_cast<std::size_t>(sim->n_instances()) * m.robot->n()), qd(q.size()), tau(q.size());
    sim->read_joint_state(q.data(), qd.data(), tau.data());
    const int n = m.robot->n();
    for (int i = 0; i < sim->n_instances(); ++i)
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(s.y[static_cast<std::size_t>(i) * 2 * n + j], q[static_cast<std::size_t>(i) * n + j]);
        EXPECT_EQ(s.y[static_cast<std::size_t>(i) * 2 * n + n + j], qd[static_cast<std::size_t>(i) * n + j]);
      }
  }
}

TEST_P(InstanceState, RoundTripContinuesBitIdentically) {
  const Case c = case_();
  auto a = c.make();
  a->advance(37);
  const State saved = get(*a);
  a->advance(50);
  const State continued = get(*a);
  const std::vector<double> continued_records = records(*a);
  EXPECT_EQ(continued.steps[0], 87);
  // A second batch that did something else, then got the saved state.
  auto b = c.make();
  b->advance(11);
  const int some[] = {3, 0};
  b->reset(some, 2);
  b->advance(5);
  set(*b, saved);
  expect_same_state(get(*b), saved);
  b->advance(50);
  expect_same_state(get(*b), continued);
  EXPECT_TRUE(same_bits(records(*b), continued_records));
  // The same batch, rewound to the saved state.
  set(*a, saved);
  a->advance(50);
  expect_same_state(get(*a), continued);
}

TEST_P(InstanceState, SubsetRoundTripLeavesTheOthers) {
  const Case c = case_();
  auto a = c.make();
  a->advance(20);
  const std::vector<int> ids = {4, 1};
  const State saved = get(*a, ids);
  const State all = get(*a);
  const int w = a->state_size();
  for (std::size_t k = 0; k < ids.size(); ++k) EXPECT_TRUE(same_bits(row(saved, static_cast<int>(k), w), row(all, ids[k], w)));
  a->advance(30);
  const State later = get(*a);
  set(*a, saved, ids);
  const State mixed = get(*a);
  for (int i = 0; i < c.n; ++i) {
    const bool listed = i == 1 || i == 4;
    EXPECT_TRUE(same_bits(row(mixed, i, w), row(listed ? all : later, i, w))) << "instance " << i;
    EXPECT_EQ(mixed.steps[static_cast<std::size_t>(i)], listed ? 20 : 50);
  }
  EXPECT_EQ(a->steps_taken(), 50);  // the batch clock is not the instances'
}

TEST_P(InstanceState, ResetRestoresTheAssembledStateAndStatus) {
  const Case c = case_();
  auto sim = c.make();
  const State initial = get(*sim);
  for (std::int8_t st : initial.status) EXPECT_EQ(st, kOk);
  for (std::int64_t s : initial.steps) EXPECT_EQ(s, 0);
  sim->advance(25);
  // Instance 2 diverged at its step 9 (as set), instance 3 frozen as assembly-failed.
  const int two[] = {2, 3};
  const std::int8_t bad[] = {kDiverged, kAssemblyFailed};
  const std::int64_t at[] = {9, 0};
  sim->set_state(two, 2, nullptr, nullptr, bad, at, nullptr);
  std::vector<std::int8_t> status(static_cast<std::size_t>(c.n));
  std::vector<double> status_time(static_cast<std::size_t>(c.n));
  sim->read_status(status.data(), status_time.data());
  EXPECT_EQ(status[2], kDiverged);
  EXPECT_EQ(status_time[2], 9 * sim->dt());
  const State frozen = get(*sim, {2, 3});
  sim->advance(10);
  const State later = get(*sim, {2, 3});  // frozen instances do not move; their clocks run
  EXPECT_TRUE(same_bits(later.y, frozen.y));
  EXPECT_EQ(later.status, frozen.status);
  EXPECT_EQ(later.status_steps, frozen.status_steps);
  EXPECT_EQ(later.steps, (std::vector<std::int64_t>{35, 35}));
  sim->reset(nullptr, c.n);
  expect_same_state(get(*sim), initial);
  sim->read_status(status.data(), status_time.data());
  for (int i = 0; i < c.n; ++i) {
    EXPECT_EQ(status[static_cast<std::size_t>(i)], kOk);
    EXPECT_EQ(status_time[static_cast<std::size_t>(i)], 0.0);
  }
  EXPECT_EQ(sim->steps_taken(), 35);
  EXPECT_EQ(sim->time(), 35 * sim->dt());
}

TEST_P(InstanceState, ResetOfASubsetLeavesTheOthersAndStartsTheirClocks) {
  const Case c = case_();
  auto sim = c.make();
  auto ref = c.make();
  const State initial = get(*sim);
  sim->advance(20);
  ref->advance(50);
  const int ids[] = {3, 1};
  sim->reset(ids, 2);
  const State after = get(*sim);
  const int w = sim->state_size();
  EXPECT_TRUE(same_bits(row(after, 1, w), row(initial, 1, w)));
  EXPECT_TRUE(same_bits(row(after, 3, w), row(initial, 3, w)));
  sim->advance(30);
  const State s = get(*sim);
  const State r = get(*ref);
  auto ref30 = c.make();
  ref30->advance(30);
  const State r30 = get(*ref30);
  for (int i = 0; i < c.n; ++i) {
    const bool reset = i == 1 || i == 3;
    EXPECT_EQ(s.steps[static_cast<std::size_t>(i)], reset ? 30 : 50) << i;
    // A reset instance runs as a fresh one; the others never noticed.
    EXPECT_TRUE(same_bits(row(s, i, w), row(reset ? r30 : r, i, w))) << "instance " << i;
  }
}

TEST_P(InstanceState, StatusTimeIsOnTheInstanceClock) {
  const Case c = case_();
  auto sim = c.make();
  sim->advance(40);
  const int one[] = {1};
  sim->reset(one, 1);
  sim->advance(3);
  // A state the next step cannot take: NaN (every backend) freezes instance 1 at its step 3.
  State s = get(*sim, {1});
  EXPECT_EQ(s.steps[0], 3);
  s.y[0] = std::nan("");
  sim->set_state(one, 1, s.y.data(), nullptr, nullptr, nullptr, nullptr);
  sim->advance(5);
  std::vector<std::int8_t> status(static_cast<std::size_t>(c.n));
  std::vector<double> status_time(static_cast<std::size_t>(c.n));
  sim->read_status(status.data(), status_time.data());
  EXPECT_EQ(status[1], kDiverged);
  EXPECT_EQ(status_time[1], 3 * sim->dt());
  const State after = get(*sim, {1});
  EXPECT_EQ(after.status_steps[0], 3);
  EXPECT_EQ(after.steps[0], 8);
  for (int i : {0, 2}) EXPECT_EQ(status[static_cast<std::size_t>(i)], kOk);
  // Setting its steps keeps the step at which it diverged.
  const std::int64_t steps[] = {100};
  sim->set_state(one, 1, nullptr, steps, nullptr, nullptr, nullptr);
  const State moved = get(*sim, {1});
  EXPECT_EQ(moved.steps[0], 100);
  EXPECT_EQ(moved.status_steps[0], 3);
}

TEST_P(InstanceState, SetModelsEqualsAFreshSimulatorWithThatModel) {
  const Case c = case_();
  const Model heavier = c.changed(2);
  std::vector<Model> models = c.models;
  models[2] = heavier;
  auto fresh = c.make(models);
  fresh->advance(40);
  const State f = get(*fresh);
  auto original = c.make();
  original->advance(50);
  const State o = get(*original);
  // Set at step 10: instance 2 restarts with its new model; the others run on.
  auto sim = c.make();
  sim->advance(10);
  const int two[] = {2};
  sim->set_models(two, 1, &heavier);
  sim->advance(40);
  const State s = get(*sim);
  const int w = sim->state_size();
  EXPECT_TRUE(same_bits(row(s, 2, w), row(f, 2, w)));
  EXPECT_FALSE(same_bits(row(s, 2, w), row(f, 1, w)));
  auto orig40 = c.make();
  orig40->advance(40);
  EXPECT_FALSE(same_bits(row(s, 2, w), row(get(*orig40), 2, w))) << "the new model changes the trajectory";
  for (int i : {0, 1, 3, 4}) EXPECT_TRUE(same_bits(row(s, i, w), row(o, i, w))) << "instance " << i;
  EXPECT_EQ(s.steps[2], 40);
  // Reset returns to the new model's initial state.
  sim->reset(two, 1);
  auto fresh0 = c.make(models);
  EXPECT_TRUE(same_bits(row(get(*sim), 2, w), row(get(*fresh0), 2, w)));
  // A whole batch of new models at step 0 is the fresh Simulator.
  auto all = c.make();
  all->set_models(nullptr, c.n, models.data());
  all->advance(40);
  expect_same_state(get(*all), f);
}

TEST_P(InstanceState, SetModelsRefusesAnotherTopology) {
  const Case c = case_();
  auto sim = c.make();
  const Model other = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/four_bar.json").model;
  const State before = get(*sim);
  const int ids[] = {0, 1};
  const Model two[] = {c.models[0], other};
  try {
    sim->set_models(ids, 2, two);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("models[1] (instance 1)"), std::string::npos) << e.what();
  }
  expect_same_state(get(*sim), before);  // nothing changed
}

TEST_P(InstanceState, SetInputsOfListedInstances) {
  const Case c = case_();
  auto a = c.make();
  auto b = c.make();
  const int n_in = a->model().n_inputs;
  ASSERT_GT(n_in, 0);
  // b: every row set, a: only rows 4 and 0 (the others keep their defaults, as b's copy).
  std::vector<double> u(static_cast<std::size_t>(c.n) * n_in);
  for (int i = 0; i < c.n; ++i)
    for (const ForceElement& f : c.models[static_cast<std::size_t>(i)].forces)
      if (f.type == ForceType::Actuator) u[static_cast<std::size_t>(i) * n_in + f.input_index] = f.value;
  std::vector<double> rows(2 * static_cast<std::size_t>(n_in));
  for (int a_ = 0; a_ < n_in; ++a_) {
    rows[static_cast<std::size_t>(a_)] = 0.25 + 0.01 * a_;
    rows[static_cast<std::size_t>(n_in + a_)] = -0.5 + 0.02 * a_;
    u[4 * static_cast<std::size_t>(n_in) + a_] = rows[static_cast<std::size_t>(a_)];
    u[static_cast<std::size_t>(a_)] = rows[static_cast<std::size_t>(n_in + a_)];
  }
  const int ids[] = {4, 0};
  a->set_inputs(ids, 2, rows.data());
  b->set_inputs(u.data());
  a->advance(30);
  b->advance(30);
  expect_same_state(get(*a), get(*b));
  auto untouched = c.make();
  untouched->advance(30);
  EXPECT_FALSE(same_bits(row(get(*a), 4, a->state_size()), row(get(*untouched), 4, a->state_size())));
}

TEST_P(InstanceState, ViewsAliasTheBackendsArrays) {
  const Case c = case_();
  auto a = c.make();
  auto b = c.make();
  a->advance(15);
  b->advance(15);
  const ArrayView v = a->state_view();
  ASSERT_NE(v.data, nullptr);
  EXPECT_EQ(v.dtype_bits, 64);
  EXPECT_FALSE(v.device);
  EXPECT_EQ(v.ndim, 2);
  EXPECT_EQ(v.shape[0], c.n);
  EXPECT_EQ(v.shape[1], a->state_size());
  const State s = get(*a);
  auto* y = static_cast<double*>(v.data);
  for (int i = 0; i < c.n; ++i)
    for (int e = 0; e < a->state_size(); ++e)
      ASSERT_EQ(y[i * v.strides[0] + e * v.strides[1]], s.y[static_cast<std::size_t>(i) * a->state_size() + e]);
  // Writing through the view is set_state of y.
  State changed = s;
  for (int e = 0; e < a->state_size(); ++e) changed.y[3 * static_cast<std::size_t>(a->state_size()) + e] *= 1.0 + 1e-6;
  for (int e = 0; e < a->state_size(); ++e) y[3 * v.strides[0] + e * v.strides[1]] = changed.y[3 * static_cast<std::size_t>(a->state_size()) + e];
  b->set_state(nullptr, c.n, changed.y.data(), nullptr, nullptr, nullptr, nullptr);
  // Inputs through the view, and through set_inputs.
  const ArrayView u = a->inputs_view();
  ASSERT_NE(u.data, nullptr);
  EXPECT_EQ(u.shape[0], c.n);
  EXPECT_EQ(u.shape[1], a->model().n_inputs);
  static_cast<double*>(u.data)[2 * u.strides[0]] = 0.125;
  std::vector<double> u_row(static_cast<std::size_t>(a->model().n_inputs));
  for (int k = 0; k < a->model().n_inputs; ++k) u_row[static_cast<std::size_t>(k)] = static_cast<double*>(u.data)[2 * u.strides[0] + k * u.strides[1]];
  const int two[] = {2};
  b->set_inputs(two, 1, u_row.data());
  a->advance(20);
  b->advance(20);
  expect_same_state(get(*a), get(*b));
  EXPECT_EQ(a->state_view().data, v.data);  // the arrays never move
}

TEST_P(InstanceState, BadInstanceListsNameTheArgument) {
  const Case c = case_();
  auto sim = c.make();
  const State before = get(*sim);
  std::vector<double> y(static_cast<std::size_t>(c.n) * sim->state_size());
  const int out_of_range[] = {0, 99};
  const int repeated[] = {1, 2, 1};
  const int negative[] = {-1};
  EXPECT_NE(invalid_argument_message([&] { sim->reset(out_of_range, 2); }).find("reset: ids[1] = 99 is out of range"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->reset(negative, 1); }).find("ids[0] = -1"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->reset(repeated, 3); }).find("ids[2] = 1 repeats"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->reset(nullptr, c.n - 1); }).find("count = " + std::to_string(c.n - 1)), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->reset(repeated, -2); }).find("count = -2"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->get_state(repeated, 3, y.data(), nullptr, nullptr, nullptr, nullptr); }).find("get_state"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->set_state(out_of_range, 2, y.data(), nullptr, nullptr, nullptr, nullptr); }).find("set_state"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->set_inputs(out_of_range, 2, y.data()); }).find("set_inputs"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->set_models(repeated, 3, c.models.data()); }).find("set_models"), std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { sim->reset(out_of_range, 2, true); }).find("reset"), std::string::npos);
  try {  // no resampler installed
    sim->reset(nullptr, c.n, true);
    ADD_FAILURE() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("resampler"), std::string::npos) << e.what();
  }
  expect_same_state(get(*sim), before);
  // An empty list is fine and changes nothing.
  sim->reset(out_of_range, 0);
  expect_same_state(get(*sim), before);
}

// A negative step count (an instance clock before its start) and a NaN or infinite
// actuator input are refused, naming the entry, and change nothing.
TEST_P(InstanceState, NegativeStepCountsAndNonFiniteInputsAreRefused) {
  const Case c = case_();
  auto sim = c.make();
  sim->advance(5);
  const State before = get(*sim);
  State s = before;
  s.steps[2] = -3;
  EXPECT_NE(invalid_argument_message([&] { set(*sim, s); }).find("set_state: steps[2] = -3: a step count cannot be negative"),
            std::string::npos);
  s = before;
  s.status_steps[1] = -1;
  EXPECT_NE(invalid_argument_message([&] { set(*sim, s); }).find("status_steps[1] = -1"), std::string::npos);
  const int n_in = sim->model().n_inputs;
  ASSERT_GT(n_in, 0);
  std::vector<double> u(static_cast<std::size_t>(c.n) * n_in, 0.1);
  u[static_cast<std::size_t>(3) * n_in] = std::nan("");
  EXPECT_NE(invalid_argument_message([&] { sim->set_inputs(u.data()); }).find("set_inputs: u[3, 0] is NaN"), std::string::npos);
  const int ids[] = {1};
  u[0] = -std::numeric_limits<double>::infinity();
  EXPECT_NE(invalid_argument_message([&] { sim->set_inputs(ids, 1, u.data()); }).find("u[0, 0] is infinite"), std::string::npos);
  sim->advance(5);
  auto same = c.make();
  same->advance(10);
  expect_same_state(get(*sim), get(*same));
}

INSTANTIATE_TEST_SUITE_P(Backends, InstanceState, ::testing::Values("cpu", "reduced_aba", "reduced_cga"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(InstanceState, RoundTripOnOneThreadEqualsTwo) {
  // The cpu backend's results do not depend on its threads, also across a set_state.
  const Case c = slider_crank_case();
  auto two = Simulator::create(c.models, SimulatorOptions{"cpu", 2}, c.n);
  auto one = Simulator::create(c.models, SimulatorOptions{"cpu", 1}, c.n);
  two->advance(25);
  set(*one, get(*two));
  one->advance(25);
  two->advance(25);
  expect_same_state(get(*one), get(*two));
}

}  // namespace
}  // namespace simphant
