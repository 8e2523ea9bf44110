// Parameters set at run time: build_instance_model's overrides (scene/scene.hpp) and
// Simulator::set_parameters (sim/simulator.hpp) on a scene simulator (make_simulator):
// the same instances, bit for bit, as a scene that holds the values; overrides that win
// over the sweep, survive resets and new episodes; errors that name the path and the
// instance and change nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/job/scene_simulator.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

Scene slider_crank() { return load_scene(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank.json"); }

/// The scene with `value` written at JSON pointer `pointer` of its document.
Scene with_value(const Scene& scene, const std::string& pointer, double value) {
  nlohmann::json doc = scene.doc;
  doc.at(nlohmann::json::json_pointer(pointer)) = value;
  return parse_scene(doc.dump());
}

std::vector<double> instance_state(const Simulator& sim, int i) {
  std::vector<double> y(static_cast<std::size_t>(sim.state_size()));
  sim.get_state(&i, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

std::vector<double> states(const Simulator& sim) {
  std::vector<double> y(static_cast<std::size_t>(sim.n_instances()) * sim.state_size());
  sim.get_state(nullptr, sim.n_instances(), y.data(), nullptr, nullptr, nullptr, nullptr);
  return y;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::vector<double> sample_of(const Scene& scene, int n, int i) {
  const SweepSamples s = sample_sweep(scene.sweep, n);
  std::vector<double> v;
  for (const auto& column : s.values) v.push_back(column[static_cast<std::size_t>(i)]);
  return v;
}

TEST(SetParameters, OverridesAreWrittenOnTopOfTheSweepValues) {
  const Scene scene = slider_crank();
  const std::vector<double> values = sample_of(scene, 8, 3);
  const Model base = build_instance_model(scene, values, 3, 0);
  const Model m = build_instance_model(scene, values, 3, 0, {{"bodies.crank.mass", 0.5}, {"bodies.piston.mass", 0.9}});
  EXPECT_EQ(m.bodies[0].mass, 0.5);
  EXPECT_EQ(m.bodies[2].mass, 0.9);  // a sweep parameter's path: the override wins
  EXPECT_NE(base.bodies[2].mass, 0.9);
  EXPECT_EQ(m.bodies[1].mass, base.bodies[1].mass);
  // Without sweep values (a scene without a sweep) the overrides alone are compiled.
  Scene plain = scene;
  plain.sweep.parameters.clear();
  EXPECT_EQ(build_instance_model(plain, {}, 0, 0, {{"bodies.conrod.mass", 0.3}}).bodies[1].mass, 0.3);
}

TEST(SetParameters, BadPathsAndValuesAreSceneErrorsNamingThePath) {
  const Scene scene = slider_crank();
  const std::vector<double> values = sample_of(scene, 8, 2);
  for (const std::string path : {"bodies.nobody.mass", "bodies..mass", "name", "sweep.seed", "gravity[7]"}) {
    try {
      build_instance_model(scene, values, 2, 0, {{path, 1.0}});
      ADD_FAILURE() << path << " was accepted";
    } catch (const SceneError& e) {
      EXPECT_EQ(e.path(), path);
      EXPECT_NE(std::string(e.what()).find("\"" + path + "\""), std::string::npos) << e.what();
    }
  }
  try {
    build_instance_model(scene, values, 2, 0, {{"bodies.crank.mass", std::numeric_limits<double>::quiet_NaN()}});
    ADD_FAILURE() << "NaN accepted";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "bodies.crank.mass");
    EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
  }
  try {
    build_instance_model(scene, values, 2, 0, {{"bodies.crank.mass", -1.0}});
    ADD_FAILURE() << "a negative mass accepted";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("instance 2"), std::string::npos) << what;
    EXPECT_NE(what.find("set bodies.crank.mass = -1"), std::string::npos) << what;
  }
}

TEST(SetParameters, SameTrajectoriesAsASceneHoldingTheValues) {
  const Scene scene = slider_crank();
  const int n = 6;
  const SimulatorOptions options{"cpu", 1};
  auto sim = make_simulator(scene, n, options);
  auto plain = make_simulator(scene, n, options);
  const int ids[] = {1, 4};
  const std::string paths[] = {"bodies.crank.mass", "joints.crank_pin.frame.origin[0]"};
  const double values[] = {0.35, 0.026, 0.28, 0.0245};  // (2 instances, 2 paths)
  sim->set_parameters(ids, 2, paths, 2, values);
  EXPECT_EQ(sim->parameter_overrides(4).size(), 2u);
  EXPECT_TRUE(sim->parameter_overrides(0).empty());
  sim->advance(200);
  plain->advance(200);
  for (int k = 0; k < 2; ++k) {
    const Scene modified =
        with_value(with_value(scene, "/bodies/0/mass", values[2 * k]), "/joints/1/frame/origin/0", values[2 * k + 1]);
    auto ref = make_simulator(modified, n, options);
    ref->advance(200);
    EXPECT_TRUE(same_bits(instance_state(*sim, ids[k]), instance_state(*ref, ids[k]))) << "instance " << ids[k];
  }
  for (int i : {0, 2, 3, 5}) EXPECT_TRUE(same_bits(instance_state(*sim, i), instance_state(*plain, i))) << i;
  // The overrides hold across a reset: the same 200 steps again.
  const std::vector<double> after = states(*sim);
  sim->reset(ids, 2);
  const int others[] = {0, 2, 3, 5};
  sim->reset(others, 4);
  sim->advance(200);
  EXPECT_TRUE(same_bits(states(*sim), after));
  // A later call for one path replaces that value alone.
  const std::string one[] = {"bodies.crank.mass"};
  const double v = 0.4;
  sim->set_parameters(&ids[1], 1, one, 1, &v);
  ASSERT_EQ(sim->parameter_overrides(4).size(), 2u);
  EXPECT_EQ(sim->parameter_overrides(4)[0].second, 0.4);
  EXPECT_EQ(sim->parameter_overrides(4)[1].second, 0.0245);
}

TEST(SetParameters, NewEpisodesKeepTheOverrides) {
  const Scene scene = slider_crank();
  const SimulatorOptions options{"cpu", 1};
  auto sim = make_simulator(scene, 4, options);
  auto ref = make_simulator(with_value(scene, "/bodies/1/mass", 0.31), 4, options);
  const int id = 2;
  const std::string path = "bodies.conrod.mass";
  const double v = 0.31;
  sim->set_parameters(&id, 1, &path, 1, &v);
  sim->reset(&id, 1, /*resample=*/true);
  ref->reset(&id, 1, /*resample=*/true);
  sim->advance(100);
  ref->advance(100);
  EXPECT_TRUE(same_bits(instance_state(*sim, id), instance_state(*ref, id)));
}

TEST(SetParameters, ErrorsChangeNothing) {
  const Scene scene = slider_crank();
  auto sim = make_simulator(scene, 4, SimulatorOptions{"cpu", 1});
  sim->advance(20);
  const std::vector<double> before = states(*sim);
  const int ids[] = {1, 3};
  const std::string path = "bodies.crank.mass";
  const double bad[] = {0.5, -0.2};
  try {
    sim->set_parameters(ids, 2, &path, 1, bad);
    ADD_FAILURE() << "a negative mass accepted";
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("instance 3"), std::string::npos) << what;
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
  // The run's settings: the step loop's dt, the shift chosen once per run.
  for (const std::string shared : {"solver.dt", "solver.tikhonov_epsilon"}) {
    const double value[] = {0.001, 0.001};
    try {
      sim->set_parameters(ids, 2, &shared, 1, value);
      ADD_FAILURE() << shared << " accepted";
    } catch (const SceneError& e) {
      EXPECT_EQ(e.path(), shared);
      EXPECT_NE(std::string(e.what()).find("shared by all instances"), std::string::npos) << e.what();
    }
  }
  const int out_of_range[] = {4};
  EXPECT_THROW(sim->set_parameters(out_of_range, 1, &path, 1, bad), std::invalid_argument);
  EXPECT_TRUE(same_bits(states(*sim), before));
  EXPECT_TRUE(sim->parameter_overrides(1).empty());
  EXPECT_THROW(sim->parameter_overrides(4), std::out_of_range);
  // A Simulator without a scene has nothing to rebuild from.
  auto bare = Simulator::create({scene.model}, SimulatorOptions{"cpu", 1}, 2);
  const double ok = 0.5;
  EXPECT_THROW(bare->set_parameters(ids, 1, &path, 1, &ok), std::logic_error);
}

}  // namespace
}  // namespace simphant
