// Tabulated spring and damper characteristics (docs/scene-format.md, "Tabulated
// characteristics"; formulas/force_math.hpp): the spline force and its exact piecewise-
// cubic potential, a table of a straight line against the scalar spring, energy
// conservation of a hardening spring, the stability analysis' slope, the per-thread
// functions of the batched kernels over a CPU grid against the CPU reference, and the
// bad-input errors.
#include <gtest/gtest.h>

#include <algorithm>
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
#include "simphant/dynamics/stability.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "low_level_instance.hpp"
#include "body_forces.hpp"
#include "frame.hpp"

namespace simphant {
namespace {

using nlohmann::json;

using test::Instance;

/// A 2 kg block on a prismatic joint along world x, tied to the ground by a spring along
/// x (rest length 0.5 m), started 0.2 m stretched; a second body swings on a revolute
/// joint with a rotational spring-damper. No gravity.
json oscillators(const json& spring, const json& rotational) {
  json s = json::parse(R"({
    "name": "tables",
    "gravity": [0, 0, 0],
    "bodies": [
      {"name": "block", "mass": 2.0, "inertia": [0.01, 0.01, 0.01], "position": [0.7, 0, 0]},
      {"name": "arm", "mass": 1.0, "inertia": [0.03, 0.03, 0.05], "position": [0, 1, 0],
       "angular_velocity": [0, 0, 3.0]}
    ],
    "joints": [
      {"name": "slide", "type": "prismatic", "body_i": "ground", "body_j": "block",
       "frame": {"origin": [0.7, 0, 0], "z": [1, 0, 0]}},
      {"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "arm",
       "frame": {"origin": [0, 1, 0], "z": [0, 0, 1]}}
    ],
    "solver": {"dt": 0.001, "t_end": 1.0}
  })");
  json a = {{"name", "spring"}, {"type", "spring_damper"}, {"body_i", "ground"}, {"body_j", "block"},
            {"point_i", {0.0, 0.0, 0.0}}, {"rest_length", 0.5}};
  json b = {{"name", "torsion"}, {"type", "rotational_spring_damper"}, {"joint", "hinge"}, {"rest_angle", 0.1}};
  a.update(spring);
  b.update(rotational);
  s["forces"] = {a, b};
  return s;
}

/// A straight line force = slope * x sampled at knots exactly representable in binary.
json line_table(const char* x_key, double slope) {
  std::vector<double> x = {-2.0, -0.5, 0.0, 0.25, 1.0, 4.0}, y;
  for (double v : x) y.push_back(slope * v);
  return {{x_key, x}, {"force", y}};
}

// A table of a straight line is the linear element: the natural spline through collinear
// knots has m2 = 0 exactly (the continuity right-hand sides vanish), so force and energy
// agree with k q, c q to the rounding of A y_k + B y_k+1 (a few ulps); over 2000 RK4
// steps (deflections and rates inside the knots' range [-2, 4]) the states agree to 1e-12
// of their scale.
TEST(SpringTables, StraightLineTableEqualsScalarSpring) {
  Instance scalar(oscillators({{"stiffness", 100.0}, {"damping", 0.5}}, {{"stiffness", 4.0}, {"damping", 0.25}}));
  Instance table(oscillators({{"stiffness_table", line_table("deflection", 100.0)},
                              {"damping_table", line_table("rate", 0.5)}},
                             {{"stiffness_table", line_table("deflection", 4.0)},
                              {"damping_table", line_table("rate", 0.25)}}));
  ASSERT_EQ(table.model.forces[0].stiffness_table.n(), 6);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(table.model.forces[0].stiffness_table.p[12 + k], 0.0);
  EXPECT_NEAR(table.energy(), scalar.energy(), 1e-14 * scalar.energy());
  double max_diff = 0, scale = 0;
  for (int s = 0; s < 2000; ++s) {
    scalar.step(1e-3);
    table.step(1e-3);
    for (int c = 0; c < scalar.model.ny(); ++c) {
      max_diff = std::max(max_diff, std::fabs(table.Y[c] - scalar.Y[c]));
      scale = std::max(scale, std::fabs(scalar.Y[c]));
    }
  }
  std::printf("straight-line table vs scalar: max |dY| = %.3g (scale %.3g)\n", max_diff, scale);
  EXPECT_LE(max_diff, 1e-12 * scale);
  EXPECT_NEAR(table.energy(), scalar.energy(), 1e-12 * scalar.energy());
}

/// Hardening characteristic force = k x + k3 x^3 at 9 knots on [-0.2, 0.2] m.
json hardening_table(double k, double k3, const char* x_key = "deflection") {
  std::vector<double> x, y;
  for (int j = -4; j <= 4; ++j) {
    const double v = 0.05 * j;
    x.push_back(v);
    y.push_back(k * v + k3 * v * v * v);
  }
  return {{x_key, x}, {"force", y}};
}

// The derivative of the potential (exact piecewise-cubic integral) is the force, inside
// the table, across knots and on the linear continuation on both sides: central
// differences with h = 1e-6 (truncation h^2 |F''| / 6 ~ 1e-9, rounding 1e-16 V / h ~
// 1e-10) agree to 1e-7 relative to max(1, |F|).
TEST(SpringTables, PotentialDerivativeIsTheForce) {
  const Model m = compile_model(oscillators({{"stiffness_table", hardening_table(100.0, 5e4)}}, {{"stiffness", 1.0}}));
  const CharacteristicTable& t = m.forces[0].stiffness_table;
  const PointerParams<double> tab{t.p.data()};
  const double h = 1e-6;
  double worst = 0;
  for (double q = -0.5; q <= 0.5; q += 0.0137) {
    const double V_plus = characteristic_potential(tab, t.n(), 0.0, q + h);
    const double V_minus = characteristic_potential(tab, t.n(), 0.0, q - h);
    const double F = characteristic_force(tab, t.n(), 0.0, q);
    const double err = std::fabs((V_plus - V_minus) / (2 * h) - F) / std::max(1.0, std::fabs(F));
    worst = std::max(worst, err);
  }
  std::printf("max |dV/dq - F| / max(1, |F|) = %.3g\n", worst);
  EXPECT_LE(worst, 1e-7);
  // The potential is zero at rest and the spline passes through the knots.
  EXPECT_EQ(characteristic_potential(tab, t.n(), 0.0, 0.0), 0.0);
  for (int k = 0; k < t.n(); ++k) EXPECT_NEAR(characteristic_force(tab, t.n(), 0.0, t.p[k]), t.p[t.n() + k], 1e-12);
  // Linear continuation outside: the slope beyond the last knot is constant.
  double s1 = 0, s2 = 0;
  characteristic_force(tab, t.n(), 0.0, 0.3, &s1);
  characteristic_force(tab, t.n(), 0.0, 0.9, &s2);
  EXPECT_EQ(s1, s2);
}

// A cubic-hardening spring without damping conserves the total energy (kinetic plus the
// spline's potential) to RK4's truncation error: the drift over 2 s falls at least by
// 2^3 when dt halves (fourth order: 2^4; measured 42, printed), and at dt = 5e-4 s it is
// within 5e-8 of the energy (measured 1.3e-8; the stiffest slope, 6100 N/m on 2 kg, gives
// omega dt = 0.028, and RK4's energy error per period is of order (omega dt)^4 = 6e-7). The block's deflection reaches 0.3 m, beyond the table's last knot (0.2 m), so
// the linear continuation and its potential are exercised too.
TEST(SpringTables, HardeningSpringConservesEnergy) {
  auto drift = [](double dt) {
    json s = oscillators({{"stiffness_table", hardening_table(100.0, 5e4)}}, {{"stiffness", 4.0}});
    s["bodies"][0]["position"] = {0.8, 0.0, 0.0};
    s["joints"][0]["frame"]["origin"] = {0.8, 0.0, 0.0};
    Instance run(s);
    const double E0 = run.energy();
    double worst = 0, reach = 0;
    const int steps = static_cast<int>(std::lround(2.0 / dt));
    for (int k = 0; k < steps; ++k) {
      run.step(dt);
      worst = std::max(worst, std::fabs(run.energy() - E0));
      reach = std::max(reach, std::fabs(state_r(run.Y.data(), 0).x - 0.5));
    }
    EXPECT_GE(reach, 0.29);
    return worst / E0;
  };
  const double e1 = drift(1e-3), e2 = drift(5e-4);
  std::printf("hardening spring energy drift: dt 1e-3 %.3g, dt 5e-4 %.3g, ratio %.1f\n", e1, e2, e1 / e2);
  EXPECT_LE(e2, 5e-8);
  EXPECT_GE(e1 / e2, 8.0);  // fourth order (16) within the error's oscillation
}

// The stability analysis uses the table's largest slope: the hardening table's slope
// peaks at its ends (k + 3 k3 x^2 = 100 + 6000 at 0.2 m, the spline's end slope).
TEST(SpringTables, StabilityUsesLargestSlope) {
  const Model m = compile_model(oscillators({{"stiffness_table", hardening_table(100.0, 5e4)}}, {{"stiffness", 1.0}}));
  const ForceElement& f = m.forces[0];
  double end_slope = 0;
  characteristic_force(PointerParams<double>{f.stiffness_table.p.data()}, f.stiffness_table.n(), 0.0, 0.2, &end_slope);
  EXPECT_EQ(mode_stiffness(f), std::fabs(end_slope));
  EXPECT_GT(mode_stiffness(f), 5000.0);
  EXPECT_EQ(mode_damping(f), 0.0);
  // A slope that peaks inside an interval (where s'' changes sign) is found there.
  CharacteristicTable bump;
  const double xs[4] = {0.0, 1.0, 2.0, 3.0}, ys[4] = {0.0, 0.0, 1.0, 1.0};
  bump.p.assign(12, 0.0);
  for (int k = 0; k < 4; ++k) {
    bump.p[k] = xs[k];
    bump.p[4 + k] = ys[k];
  }
  natural_spline_m2(bump.p.data(), bump.p.data() + 4, 4, bump.p.data() + 8);
  double brute = 0, s = 0;
  for (double q = -1; q <= 4; q += 1e-5) {
    characteristic_force(PointerParams<double>{bump.p.data()}, 4, 0.0, q, &s);
    brute = std::max(brute, std::fabs(s));
  }
  EXPECT_NEAR(largest_slope(bump), brute, 1e-9);
  EXPECT_GE(largest_slope(bump), brute);
}

/// Runs body_forces_thread and energy_thread over the whole CPU grid for the packed
/// models at each instance's assembled state, against compute_forces / total_energy.
void expect_grid_equals_reference(const std::vector<Model>& models) {
  const int n = static_cast<int>(models.size());
  const batch::PackedModel<double> packed = batch::pack_models<double>(models, n);
  const batch::ModelView<double> mv = packed.host_view();
  const int N = models[0].n_bodies(), ny = models[0].ny();
  std::vector<double> Y_soa(static_cast<std::size_t>(ny) * n), Q(static_cast<std::size_t>(6 * N) * n, NAN);
  std::vector<double> E(n, NAN), K(n, NAN), inputs(std::max(1, models[0].n_inputs) * n, 0.0);
  std::vector<std::vector<double>> Ys;
  for (int i = 0; i < n; ++i) {
    std::vector<double> Y(ny);
    initial_state(models[i], Y.data());
    Y[6 * N + 0] += 0.3 * (i + 1);  // give the block a velocity: the damping table acts
    for (int c = 0; c < ny; ++c) Y_soa[static_cast<std::size_t>(c) * n + i] = Y[c];
    Ys.push_back(Y);
  }
  const std::vector<double> times(n, 0.25);
  for (int tid = 0; tid < 64 * ((n * N + 63) / 64); ++tid)
    batch::body_forces_thread(tid, mv, times.data(), Y_soa.data(), inputs.data(), Q.data());
  for (int tid = 0; tid < 64; ++tid) batch::energy_thread(tid, mv, Y_soa.data(), E.data(), K.data());
  for (int i = 0; i < n; ++i) {
    Data d(models[i]);
    set_kinematics(models[i], d, Ys[i].data());
    compute_forces(models[i], d, 0.25, nullptr);
    for (int r = 0; r < 6 * N; ++r) EXPECT_EQ(Q[static_cast<std::size_t>(r) * n + i], d.Q[r]) << "instance " << i << " row " << r;
    EXPECT_EQ(E[i], total_energy(models[i], d)) << "instance " << i;
  }
}

// The per-thread functions read the tables from the per-instance parameters: three
// instances whose stiffness table differs in force[2] (a swept value: a per-instance
// row of the packed parameters, the spline's m2 with it) give the CPU reference's Q and
// energy bit for bit.
TEST(SpringTables, PerThreadFunctionsOverCpuGridEqualReference) {
  json s = oscillators({{"stiffness_table", hardening_table(100.0, 5e4)}, {"damping_table", hardening_table(2.0, 10.0, "rate")}},
                       {{"stiffness_table", hardening_table(4.0, 1.0)}, {"damping", 0.1}});
  s["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "forces.spring.stiffness_table.force[2]"}, {"dist", "list"}, {"values", {-120.0, -60.0, -30.0}}}}}};
  const Scene scene = parse_scene(s.dump());
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep));
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[1].forces[0].stiffness_table.p[9 + 2], -60.0);
  EXPECT_NE(models[1].forces[0].stiffness_table.p[18 + 2], models[2].forces[0].stiffness_table.p[18 + 2]);
  EXPECT_EQ(batch::count_varied_params(models), 8);  // y_2 and the 7 inner m2 (the ends are 0)
  expect_grid_equals_reference(models);
}

/// Expects compile_model(doc) to throw SceneError at `path` with `fragment` in what().
void expect_error(const json& doc, const std::string& path, const std::string& fragment) {
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(SpringTables, BadTablesNameTheField) {
  const json rot = {{"stiffness", 1.0}};
  expect_error(oscillators({{"stiffness_table", {{"deflection", {0.0, 0.1, 0.1}}, {"force", {0, 1, 2}}}}}, rot),
               "/forces/0/stiffness_table/deflection/2", "strictly increasing");
  expect_error(oscillators({{"stiffness_table", {{"deflection", {0.0}}, {"force", {0}}}}}, rot),
               "/forces/0/stiffness_table/deflection", "at least 2");
  expect_error(oscillators({{"stiffness_table", {{"deflection", {0.0, 1.0}}, {"force", {0}}}}}, rot),
               "/forces/0/stiffness_table/force", "as many values");
  expect_error(oscillators({{"stiffness", 1.0}, {"damping_table", {{"deflection", {0.0, 1.0}}, {"force", {0, 1}}}}}, rot),
               "/forces/0/damping_table/deflection", "unknown key");
  expect_error(oscillators({{"stiffness", 1.0}, {"stiffness_table", hardening_table(1, 1)}}, rot),
               "/forces/0/stiffness", "not both");
  expect_error(oscillators({{"stiffness", 1.0}}, {{"stiffness", 1.0}, {"law", {{"type", "harmonic"}}}}),
               "/forces/1/law", "takes no motion law");
}

}  // namespace
}  // namespace simphant
