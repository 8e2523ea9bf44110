// make_simulator (job/scene_simulator.hpp) and the sweep's episodes (sample_episode,
// docs/scene-format.md "Episodes"): the same instances as `simphant run`, reproducible
// resampling keyed by (seed, instance, episode, parameter), checkpoints that restore the
// episode's parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "simphant/scene/scene.hpp"
#include "simphant/job/scene_simulator.hpp"

namespace simphant {
namespace {

Scene slider_crank() { return load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank.json"); }

std::vector<double> states(const Simulator& sim) {
  std::vector<double> y(static_cast<std::size_t>(sim.n_instances()) * sim.state_size());
  sim.get_state(nullptr, sim.n_instances(), y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

std::vector<double> instance_state(const Simulator& sim, int i) {
  std::vector<double> y(static_cast<std::size_t>(sim.state_size()));
  sim.get_state(&i, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST(SceneSimulator, SameInstancesAsTheCli) {
  const Scene scene = slider_crank();
  auto a = make_simulator(scene, 8, SimulatorOptions{"cpu", 2});
  auto b = Simulator::create(build_instance_models(scene, sample_sweep(scene.sweep, 8)), SimulatorOptions{"cpu", 2}, 8);
  EXPECT_EQ(a->n_instances(), 8);
  a->advance(30);
  b->advance(30);
  EXPECT_TRUE(same_bits(states(*a), states(*b)));
  EXPECT_EQ(make_simulator(scene, 0, SimulatorOptions{"cpu", 1})->n_instances(), scene.sweep.instances);
}

TEST(SceneSimulator, EpisodeDrawsAreReproducibleAndIndependent) {
  const SweepSpec sweep = slider_crank().sweep;
  const std::vector<double> a = sample_episode(sweep, 3, 1);
  EXPECT_EQ(a, sample_episode(sweep, 3, 1));
  EXPECT_NE(a, sample_episode(sweep, 4, 1));
  EXPECT_NE(a, sample_episode(sweep, 3, 2));
  SweepSpec reseeded = sweep;
  reseeded.seed += 1;
  EXPECT_NE(a, sample_episode(reseeded, 3, 1));
  ASSERT_EQ(a.size(), sweep.parameters.size());
  // Each value within its distribution, the parameters drawn apart (not one u for all).
  std::set<double> distinct_u;
  for (std::size_t p = 0; p < a.size(); ++p) {
    const SweepParameter& sp = sweep.parameters[p];
    ASSERT_EQ(sp.dist, Distribution::Uniform);
    EXPECT_GE(a[p], sp.low);
    EXPECT_LE(a[p], sp.high);
    distinct_u.insert((a[p] - sp.low) / (sp.high - sp.low));
  }
  EXPECT_EQ(distinct_u.size(), a.size());
}

TEST(SceneSimulator, EpisodeDrawsFollowTheirDistributions) {
  SweepSpec s;
  s.seed = 5;
  SweepParameter u;
  u.dist = Distribution::Uniform;
  u.low = -1;
  u.high = 3;
  SweepParameter g;
  g.dist = Distribution::Normal;
  g.mean = 2;
  g.std = 0.5;
  g.truncated = true;
  g.trunc_low = 1.5;
  g.trunc_high = 4;
  SweepParameter l;
  l.dist = Distribution::List;
  l.values = {7, 8, 9};
  s.parameters = {u, g, l};
  const int n = 20000;
  double sum_u = 0, sum_g = 0;
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    const std::vector<double> v = sample_episode(s, i % 100, 1 + static_cast<std::uint64_t>(i / 100));
    ASSERT_GE(v[0], -1.0);
    ASSERT_LT(v[0], 3.0);
    ASSERT_GE(v[1], 1.5);
    ASSERT_LE(v[1], 4.0);
    sum_u += v[0];
    sum_g += v[1];
    ++counts[static_cast<int>(v[2]) - 7];
  }
  // Means: uniform 1 (sd 4/sqrt(12) / sqrt(n) = 0.008); the normal truncated to
  // [mean - sd, mean + 4 sd]: mean + sd (phi(-1) - phi(4)) / (Phi(4) - Phi(-1)) = 2.1438
  // (sd of the mean 0.397 / sqrt(n) = 0.0028). About 5 standard errors each.
  EXPECT_NEAR(sum_u / n, 1.0, 0.04);
  EXPECT_NEAR(sum_g / n, 2.0 + 0.5 * 0.28745, 0.015);
  for (int c : counts) EXPECT_NEAR(c, n / 3.0, 5 * std::sqrt(n * (1.0 / 3) * (2.0 / 3)));
}

TEST(SceneSimulator, ResampleDrawsTheEpisodesModel) {
  const Scene scene = slider_crank();
  auto sim = make_simulator(scene, 6, SimulatorOptions{"cpu", 2});
  sim->advance(10);
  const int ids[] = {4, 1};
  sim->reset(ids, 2, true);
  std::vector<std::uint64_t> episodes(6);
  sim->get_state(nullptr, 6, nullptr, nullptr, nullptr, nullptr, episodes.data());
  EXPECT_EQ(episodes, (std::vector<std::uint64_t>{0, 1, 0, 0, 1, 0}));
  sim->reset(ids, 1, true);
  sim->get_state(nullptr, 6, nullptr, nullptr, nullptr, nullptr, episodes.data());
  EXPECT_EQ(episodes[4], 2u);
  sim->advance(20);
  // The same as a batch built with those models.
  std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep, 6));
  models[4] = build_instance_model(scene, sample_episode(scene.sweep, 4, 2), 4, 2);
  models[1] = build_instance_model(scene, sample_episode(scene.sweep, 1, 1), 1, 1);
  auto ref = Simulator::create(models, SimulatorOptions{"cpu", 1}, 6);
  ref->advance(20);
  EXPECT_TRUE(same_bits(instance_state(*sim, 4), instance_state(*ref, 4)));
  EXPECT_TRUE(same_bits(instance_state(*sim, 1), instance_state(*ref, 1)));
  // And different from the sweep's own sample (episode 0).
  auto base = make_simulator(scene, 6, SimulatorOptions{"cpu", 1});
  base->advance(20);
  EXPECT_FALSE(same_bits(instance_state(*sim, 1), instance_state(*base, 1)));
}

TEST(SceneSimulator, ResampleDoesNotDependOnTheBatchSize) {
  const Scene scene = slider_crank();  // lhs: episode 0 depends on the batch size, episodes >= 1 do not
  auto small = make_simulator(scene, 3, SimulatorOptions{"cpu", 1});
  auto large = make_simulator(scene, 10, SimulatorOptions{"cpu", 2});
  const int one[] = {2};
  small->reset(one, 1, true);
  large->advance(7);
  large->reset(one, 1, true);
  small->advance(25);
  large->advance(25);
  EXPECT_TRUE(same_bits(instance_state(*small, 2), instance_state(*large, 2)));
}

TEST(SceneSimulator, CheckpointRestoresTheEpisodesParameters) {
  const Scene scene = slider_crank();
  auto a = make_simulator(scene, 5, SimulatorOptions{"cpu", 2});
  const int ids[] = {0, 3};
  a->reset(ids, 2, true);
  a->advance(15);
  const int n = 5, w = a->state_size();
  std::vector<double> y(static_cast<std::size_t>(n) * w);
  std::vector<std::int64_t> steps(n), status_steps(n);
  std::vector<std::int8_t> status(n);
  std::vector<std::uint64_t> episodes(n);
  a->get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  a->advance(30);
  // A fresh batch (episode 0 everywhere) takes the checkpoint, episodes included.
  auto b = make_simulator(scene, 5, SimulatorOptions{"cpu", 1});
  b->set_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data());
  b->advance(30);
  EXPECT_TRUE(same_bits(states(*a), states(*b)));
  std::vector<std::uint64_t> eb(n);
  b->get_state(nullptr, n, nullptr, nullptr, nullptr, nullptr, eb.data());
  EXPECT_EQ(eb, episodes);
  // Going back to episode 0 restores the sweep's sample: instance 0 runs as in a fresh batch.
  const std::uint64_t zero = 0;
  const int first = 0;
  std::vector<double> y0 = instance_state(*make_simulator(scene, 5, SimulatorOptions{"cpu", 1}), 0);
  const std::int64_t s0 = 0;
  b->set_state(&first, 1, y0.data(), &s0, nullptr, nullptr, &zero);
  b->advance(12);
  auto fresh = make_simulator(scene, 5, SimulatorOptions{"cpu", 1});
  fresh->advance(12);
  EXPECT_TRUE(same_bits(instance_state(*b, 0), instance_state(*fresh, 0)));
}

TEST(SceneSimulator, SceneWithoutSweepResamplesItsModel) {
  Scene scene = load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/pendulum.json");
  scene.sweep.parameters.clear();
  auto sim = make_simulator(scene, 2, SimulatorOptions{"cpu", 1});
  auto ref = make_simulator(scene, 2, SimulatorOptions{"cpu", 1});
  sim->advance(10);
  sim->reset(nullptr, 2, true);
  sim->advance(10);
  ref->advance(10);
  EXPECT_TRUE(same_bits(states(*sim), states(*ref)));
  std::vector<std::uint64_t> episodes(2);
  sim->get_state(nullptr, 2, nullptr, nullptr, nullptr, nullptr, episodes.data());
  EXPECT_EQ(episodes, (std::vector<std::uint64_t>{1, 1}));
}

TEST(SceneSimulator, AnInvalidDrawNamesInstanceEpisodeAndPath) {
  // A normal mass that can go negative: some episode draws an invalid model.
  Scene scene = slider_crank();
  scene.sweep.parameters[1].dist = Distribution::Normal;
  scene.sweep.parameters[1].mean = 0.05;
  scene.sweep.parameters[1].std = 0.1;
  scene.sweep.parameters[1].truncated = false;
  int instance = -1;
  std::uint64_t episode = 0;
  for (std::uint64_t e = 1; e < 100 && instance < 0; ++e)
    for (int i = 0; i < 4 && instance < 0; ++i)
      if (sample_episode(scene.sweep, i, e)[1] <= 0) {
        instance = i;
        episode = e;
      }
  ASSERT_GE(instance, 0);
  try {
    build_instance_model(scene, sample_episode(scene.sweep, instance, episode), instance, episode);
    FAIL() << "no error";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("instance " + std::to_string(instance) + ", episode " + std::to_string(episode)), std::string::npos)
        << what;
    EXPECT_NE(what.find("bodies.piston.mass"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace simphant
