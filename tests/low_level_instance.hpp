// One instance of a scene stepped with the low-level CPU API (dynamics/rk4.hpp): the
// compiled model, its Data, the state Y and the instance time t.
#pragma once

#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::test {

/// One instance stepped with the low-level API from t = 0. The constructor compiles the
/// scene document (no sweep) and assembles its initial state (expects success).
struct Instance {
  Model model;
  Data d;
  std::vector<double> Y;
  double t = 0;  ///< the instance time [s]
  explicit Instance(const nlohmann::json& scene) : model(compile_model(scene)), d(model), Y(model.ny()) {
    initial_state(model, Y.data());
    const AssemblyResult a = assemble(model, d, Y.data());
    EXPECT_TRUE(a.ok) << a.message << " (assembly residual " << a.position_residual << ")";
  }
  /// One RK4 step of dt [s]; t += dt.
  void step(double dt) {
    ASSERT_TRUE(rk4_step(model, d, t, Y.data(), nullptr, dt));
    t += dt;
  }
  /// `steps` RK4 steps of dt [s]; the time after step k is t0 + k dt (no summed rounding).
  void run(double dt, int steps) {
    const double t0 = t;
    for (int k = 0; k < steps; ++k) {
      ASSERT_TRUE(rk4_step(model, d, t, Y.data(), nullptr, dt));
      t = t0 + (k + 1) * dt;
    }
  }
  /// Total mechanical energy [J] of the current state (dynamics/evaluate.hpp).
  double energy() {
    set_kinematics(model, d, Y.data());
    return total_energy(model, d);
  }
};

}  // namespace simphant::test
