#pragma once
// Test helpers: a scene document run step by step with the CPU reference's RK4
// (dynamics/rk4.hpp), its state read per body; the error a scene document compiles to.
// Header-only, for any test.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::test {

struct SceneRun {
  Model model;
  Data d;
  std::vector<double> Y;  ///< 13N, initial_state (not assembled)
  double t = 0;
  explicit SceneRun(const nlohmann::json& doc) : model(compile_model(doc)), d(model), Y(model.ny()) {
    initial_state(model, Y.data());
  }
  /// One step of model.solver.dt; false (and a test failure) where the step fails.
  bool step() {
    const bool ok = rk4_step(model, d, t, Y.data(), nullptr, model.solver.dt);
    EXPECT_TRUE(ok) << "step at t = " << t;
    t += model.solver.dt;
    return ok;
  }
  Vec3d r(int k) const { return {Y[7 * k], Y[7 * k + 1], Y[7 * k + 2]}; }
  Vec3d v(int k) const {
    const std::size_t o = 7 * model.bodies.size() + 6 * k;
    return {Y[o], Y[o + 1], Y[o + 2]};
  }
  Vec3d omega_B(int k) const {
    const std::size_t o = 7 * model.bodies.size() + 6 * k + 3;
    return {Y[o], Y[o + 1], Y[o + 2]};
  }
  /// Kinetic + gravity + spring and contact potential [J] at the current state.
  double energy() {
    std::vector<double> Ydot(model.ny());
    EXPECT_TRUE(evaluate(model, d, t, Y.data(), nullptr, Ydot.data()));
    return total_energy(model, d);
  }
};

/// The message of the SceneError that compiling `doc` throws, or "" when it compiles.
inline std::string scene_error(const nlohmann::json& doc) {
  try {
    compile_model(doc);
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

}  // namespace simphant::test
