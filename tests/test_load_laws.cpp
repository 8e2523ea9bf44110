// Time-varying loads (docs/scene-format.md, "Time-varying loads"): a point force, torque
// or actuator scaled (or offset) by a motion law of the instance time. A free body under
// a harmonic force against the closed-form displacement, a pendulum driven by a
// tabulated torque against a fine-step reference, and the per-thread body-forces
// function over a CPU grid against the CPU reference with a swept law parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/batch/batch_pack.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "low_level_instance.hpp"
#include "body_forces.hpp"

namespace simphant {
namespace {

using nlohmann::json;

using test::Instance;

// A free 2 kg body (no gravity, no joints) under F(t) = F0 sin(w t) along x, F0 = 3 N,
// f = 2 Hz, started at x0 = 0.1 m with v0 = 0.2 m/s:
//   x(t) = x0 + v0 t + (F0 / m) (t / w - sin(w t) / w^2).
// RK4 with the stage times t + c dt is fourth order in dt: at dt = 1e-3 s the error
// after 1.5 s is bounded by about (w dt)^4 F0 / (m w^2) ~ 2e-10 m (measured 1.6e-12 m,
// printed); a force read at the step's start time only would be first order (about
// 1e-5 m).
TEST(LoadLaws, HarmonicForceOnFreeBodyMatchesClosedForm) {
  const double m = 2.0, F0 = 3.0, f = 2.0, x0 = 0.1, v0 = 0.2, dt = 1e-3, T = 1.5;
  const json scene = {
      {"gravity", {0.0, 0.0, 0.0}},
      {"bodies", {{{"name", "block"}, {"mass", m}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {x0, 0.0, 0.0}},
                   {"velocity", {v0, 0.0, 0.0}}}}},
      {"forces", {{{"name", "shaker"}, {"type", "point_force"}, {"body", "block"}, {"force", {F0, 0.0, 0.0}},
                   {"law", {{"type", "harmonic"}, {"offset", 0.0}, {"amplitude", 1.0}, {"frequency", f}, {"phase", 0.0}}}}}},
      {"solver", {{"dt", dt}, {"t_end", T}}}};
  Instance run(scene);
  run.run(dt, static_cast<int>(std::lround(T / dt)));
  const double w = 2 * M_PI * f;
  const double x = x0 + v0 * T + F0 / m * (T / w - std::sin(w * T) / (w * w));
  const double v = v0 + F0 / m * (1 - std::cos(w * T)) / w;
  const double err = std::fabs(state_r(run.Y.data(), 0).x - x);
  std::printf("harmonic force: x %.15g, closed form %.15g, error %.3g m\n", state_r(run.Y.data(), 0).x, x, err);
  EXPECT_LE(err, 1e-9);
  EXPECT_NEAR(state_v(run.Y.data(), 1, 0).x, v, 1e-9);
  EXPECT_EQ(state_r(run.Y.data(), 0).y, 0.0);
}

/// A pendulum (1 kg at 0.5 m, hinge about world y) driven by a torque whose factor is a
/// tabulated law (spline through 5 knots over 1 s, held outside).
json driven_pendulum(double dt) {
  return {{"gravity", {0.0, 0.0, -9.81}},
          {"bodies", {{{"name", "bob"}, {"mass", 1.0}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {0.5, 0.0, 0.0}}}}},
          {"joints",
           {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
          {"forces",
           {{{"name", "motor"}, {"type", "torque"}, {"body", "bob"}, {"torque", {0.0, -2.0, 0.0}},
             {"law", {{"type", "table"}, {"time", {0.0, 0.25, 0.5, 0.75, 1.0}}, {"value", {0.0, 1.0, 0.5, -0.5, 0.2}}}}}}},
          {"solver", {{"dt", dt}, {"t_end", 1.2}, {"baumgarte_alpha", 10.0}, {"baumgarte_beta", 10.0}}}};
}

// The tabulated torque against a fine-step reference: the bob's position at t = 1.2 s
// with dt = 2e-3 s and with dt = 2.5e-4 s agree to 1e-8 m (RK4: the error at 2e-3 s is
// about 8^4 = 4096 times the reference's; measured 8.4e-10 m), and halving dt from 2e-3
// cuts the difference by about 2^4 (at least 2^3; measured 16.1). The torque reaches the bob: it ends
// far from the undriven pendulum.
TEST(LoadLaws, TabulatedTorqueOnPendulumConvergesToFineStep) {
  auto final_r = [](double dt) {
    Instance run(driven_pendulum(dt));
    run.run(dt, static_cast<int>(std::lround(1.2 / dt)));
    return state_r(run.Y.data(), 0);
  };
  const Vec3d ref = final_r(2.5e-4), coarse = final_r(2e-3), mid = final_r(1e-3);
  const double e_coarse = norm(coarse - ref), e_mid = norm(mid - ref);
  std::printf("tabulated torque: |r(2e-3) - r_ref| %.3g m, |r(1e-3) - r_ref| %.3g m, ratio %.1f\n", e_coarse, e_mid,
              e_coarse / e_mid);
  EXPECT_LE(e_coarse, 1e-8);
  EXPECT_GE(e_coarse / e_mid, 8.0);
  json undriven = driven_pendulum(2.5e-4);
  undriven["forces"] = json::array();
  Instance free_run(undriven);
  free_run.run(2.5e-4, static_cast<int>(std::lround(1.2 / 2.5e-4)));
  EXPECT_GT(norm(state_r(free_run.Y.data(), 0) - ref), 1e-2);
}

// body_forces_thread over the whole CPU grid at three instance times, with the law's
// amplitude swept (a per-instance parameter), equals compute_forces of each instance's
// model at its time bit for bit: a harmonic point force, a polynomial torque and an
// actuator whose input is offset by a rise law.
TEST(LoadLaws, PerThreadFunctionOverCpuGridEqualsReference) {
  json s = {
      {"gravity", {0.0, 0.0, -9.81}},
      {"bodies",
       {{{"name", "a"}, {"mass", 1.0}, {"inertia", {0.01, 0.02, 0.025}}, {"position", {0.3, 0.0, 0.0}},
         {"angular_velocity", {0.0, 1.0, 0.0}}},
        {{"name", "b"}, {"mass", 2.0}, {"inertia", {0.02, 0.03, 0.04}}, {"position", {0.6, 0.0, 0.0}}}}},
      {"joints",
       {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "a"},
         {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}},
        {{"name", "slide"}, {"type", "prismatic"}, {"body_i", "a"}, {"body_j", "b"},
         {"frame", {{"origin", {0.6, 0.0, 0.0}}, {"z", {1.0, 0.0, 0.0}}}}}}},
      {"forces",
       {{{"name", "shaker"}, {"type", "point_force"}, {"body", "b"}, {"force", {0.0, 0.0, 4.0}}, {"point", {0.1, 0.0, 0.0}},
         {"law", {{"type", "harmonic"}, {"offset", 0.5}, {"amplitude", 1.0}, {"frequency", 3.0}, {"phase", 0.2}}}},
        {{"name", "twist"}, {"type", "torque"}, {"body", "a"}, {"torque", {0.0, 1.0, 0.0}}, {"frame", "body"},
         {"law", {{"type", "polynomial"}, {"coefficients", {0.1, -0.5, 2.0}}}}},
        {{"name", "push"}, {"type", "actuator"}, {"joint", "slide"}, {"kind", "force"}, {"value", 0.7},
         {"law", {{"type", "rise"}, {"profile", "345"}, {"start", 0.05}, {"duration", 0.3}, {"initial", 0.0}, {"lift", 2.0}}}}}},
      {"solver", {{"dt", 1e-3}, {"t_end", 1.0}}},
      {"sweep", {{"mode", "grid"},
                 {"parameters", {{{"path", "forces.shaker.law.amplitude"}, {"dist", "list"}, {"values", {0.5, 1.0, 2.0}}}}}}}};
  const Scene scene = parse_scene(s.dump());
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep));
  ASSERT_EQ(models.size(), 3u);
  const int n = 3, N = models[0].n_bodies(), ny = models[0].ny();
  const batch::PackedModel<double> packed = batch::pack_models<double>(models, n);
  const batch::ModelView<double> mv = packed.host_view();
  EXPECT_GE(packed.n_varied(), 1);
  const double times[3] = {0.0, 0.137, 0.9};
  std::vector<double> Y_soa(static_cast<std::size_t>(ny) * n), Q(static_cast<std::size_t>(6 * N) * n, NAN);
  std::vector<double> inputs(static_cast<std::size_t>(models[0].n_inputs) * n);
  std::vector<std::vector<double>> Ys;
  for (int i = 0; i < n; ++i) {
    std::vector<double> Y(ny);
    initial_state(models[i], Y.data());
    for (int c = 0; c < ny; ++c) Y_soa[static_cast<std::size_t>(c) * n + i] = Y[c];
    inputs[i] = 0.7 + 0.1 * i;  // per-instance input of the actuator, offset by its law
    Ys.push_back(Y);
  }
  for (int tid = 0; tid < 64; ++tid) batch::body_forces_thread(tid, mv, times, Y_soa.data(), inputs.data(), Q.data());
  for (int i = 0; i < n; ++i) {
    Data d(models[i]);
    set_kinematics(models[i], d, Ys[i].data());
    const double u = inputs[i];
    compute_forces(models[i], d, times[i], &u);
    for (int r = 0; r < 6 * N; ++r) EXPECT_EQ(Q[static_cast<std::size_t>(r) * n + i], d.Q[r]) << "instance " << i << " row " << r;
  }
  // The law is applied: the shaker's force on b at instance 2 is 4 (0.5 + 2 sin(...)).
  Data d(models[2]);
  set_kinematics(models[2], d, Ys[2].data());
  const double u = inputs[2];
  compute_forces(models[2], d, times[2], &u);
  const double s_shaker = 0.5 + 2.0 * std::sin(2 * M_PI * 3.0 * times[2] + 0.2);
  const double g_b = 2.0 * -9.81;
  // The actuator's force on b along x: u + s_rise(0.9) = 0.9 + 2 (after the rise).
  EXPECT_NEAR(d.Q[6 * 1 + 2], g_b + 4.0 * s_shaker, 1e-12);
  EXPECT_NEAR(d.Q[6 * 1 + 0], 0.9 + 2.0, 1e-12);
}

TEST(LoadLaws, BadLawNamesTheField) {
  json s = driven_pendulum(1e-3);
  s["forces"][0]["law"]["time"] = {0.0, 0.5, 0.5, 1.0, 2.0};
  try {
    compile_model(s);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path().rfind("/forces/0/law/time", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace simphant
