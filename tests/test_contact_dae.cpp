// Contact in the maximal-coordinate DAE (docs/contact.md, "Contact in the DAE"), against
// closed forms, each run through the scene compiler and the CPU reference's rk4_step:
//  - a sphere hitting the ground without gravity: the ratio of rebound to impact speed
//    equals the requested restitution (Tsuji) for e = 0.3 .. 0.95, within the law's RK4
//    error at dt = t_c / 200 (docs/contact.md, "The default: Tsuji");
//  - two elastic steel spheres (Hertz, from the materials' E and nu): contact duration
//    2.87 (m*^2 / (R* E*^2 v))^(1/5) and peak force K delta_max^(3/2) within 1 %;
//  - a box on a slope: below tan(theta) = mu, once settled, it creeps at most
//    friction_creep_speed (the regularised law's bound) over 9.5 s; above, it slides at
//    a = g (sin - mu cos);
//  - a sphere rolling down a slope without slipping: a = (5/7) g sin(theta) on the
//    compliant contact's rolling radius;
//  - e = 1 without friction: the energy (kinetic + gravity + the contacts' elastic
//    potential) is kept to a bound that falls with dt; Newton's cradle with small gaps
//    hands the first ball's velocity to the last;
//  - the contacts' power is the rate of the energy (central difference);
//  - the batched per-thread sequences (cuda, cuda-fused on the CPU grid) equal the CPU
//    reference with contacts active and swept contact parameters, and so do the
//    per-thread energy and power.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grid_reference.hpp"
#include "scene_run.hpp"
#include "simphant/contact/contact_law.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
constexpr double kPi = 3.14159265358979323846;

json sphere_body(const std::string& name, double m, double R, const std::vector<double>& r,
                 const std::vector<double>& v = {0, 0, 0}) {
  const double J = 0.4 * m * R * R;
  return {{"name", name},          {"mass", m},     {"inertia", {J, J, J}},
          {"position", r},         {"velocity", v}, {"collision", {{"type", "sphere"}, {"radius", R}}}};
}

using test::SceneRun;

// Hertz point contact with K [N/m^1.5], effective mass m, approach speed v: the largest
// penetration and the contact duration t_c = 2.943 delta_max / v (docs/contact.md, "Choosing K").
double hertz_delta_max(double K, double m, double v) { return std::pow(5 * m * v * v / (4 * K), 0.4); }
double hertz_duration(double K, double m, double v) { return 2.943 * hertz_delta_max(K, m, v) / v; }

TEST(ContactDae, SphereOnGroundReboundsWithTheRequestedRestitution) {
  const double m = 1, R = 0.05, K = 1e6, v0 = 2;
  const double t_c = hertz_duration(K, m, v0), dt = t_c / 200;
  for (const double e : {0.3, 0.5, 0.7, 0.9, 0.95}) {
    const json doc = {{"name", "drop"},
                      {"bodies", {sphere_body("ball", m, R, {0, 0, R + 0.002}, {0, 0, -v0})}},
                      {"contact", {{"ground", json::object()},
                                   {"materials", {{"default", {{"stiffness", K}, {"restitution", e}}}}}}},
                      {"solver", {{"dt", dt}, {"t_end", 1.0}}}};
    SceneRun run(doc);
    while (run.t < 0.002 / v0 + 2 * t_c) run.step();
    ASSERT_GT(run.r(0)[2], R) << "e " << e << ": still in contact";
    // RK4's error in Tsuji's e falls like dt^(5/4): measured 2e-4 at t_c / 200.
    EXPECT_NEAR(run.v(0)[2] / v0, e, 1e-3) << "e " << e;
    EXPECT_NEAR(run.v(0)[0], 0.0, 1e-12);
  }
}

TEST(ContactDae, HertzSpheresMatchTheClosedForm) {
  const double E = 2.1e11, nu = 0.3, R = 0.05, m = 0.5, v = 1.0;
  const double E_star = 1 / (2 * (1 - nu * nu) / E), R_star = R / 2, m_star = m / 2;
  const double K = 4.0 / 3.0 * E_star * std::sqrt(R_star);
  const double t_c = 2.87 * std::pow(m_star * m_star / (R_star * E_star * E_star * v), 0.2);
  const double F_max = K * std::pow(hertz_delta_max(K, m_star, v), 1.5);
  const double dt = t_c / 200, gap0 = 1e-6;
  const json doc = {
      {"name", "hertz"},
      {"bodies", {sphere_body("a", m, R, {-R - gap0 / 2, 0, 0}, {v / 2, 0, 0}),
                  sphere_body("b", m, R, {R + gap0 / 2, 0, 0}, {-v / 2, 0, 0})}},
      {"contact",
       {{"materials", {{"default", {{"youngs_modulus", E}, {"poisson_ratio", nu}, {"restitution", 1.0}}}}}}},
      {"solver", {{"dt", dt}, {"t_end", 1.0}}}};
  SceneRun run(doc);
  double t_in = -1, t_out = -1, prev_gap = gap0, F_peak = 0;
  while (t_out < 0 && run.t < 10 * t_c) {
    run.step();
    const double gap = run.r(1)[0] - run.r(0)[0] - 2 * R;
    // Crossing times by linear interpolation between steps.
    if (t_in < 0 && gap < 0) t_in = run.t - dt * gap / (gap - prev_gap);
    if (t_in >= 0 && gap >= 0 && prev_gap < 0) t_out = run.t - dt * gap / (gap - prev_gap);
    if (gap < 0) F_peak = std::max(F_peak, K * std::pow(-gap, 1.5));
    prev_gap = gap;
  }
  ASSERT_GT(t_out, 0);
  EXPECT_NEAR((t_out - t_in) / t_c, 1.0, 0.01);
  EXPECT_NEAR(F_peak / F_max, 1.0, 0.01);
  // Elastic: the spheres leave with their velocities exchanged.
  EXPECT_NEAR(run.v(0)[0], -v / 2, 1e-3 * v);
  EXPECT_NEAR(run.v(1)[0], v / 2, 1e-3 * v);
}

/// A 0.1 m cube of mass 1 resting on a ground plane tilted by theta about y (the slope
/// falls towards +x): its downhill displacement and velocity along the slope after `T`.
struct SlopeResult {
  double x_settled, x_T, v_half, v_T;  ///< x_settled: the displacement at t_settle
};
SlopeResult block_on_slope(double theta, double mu, double v_eps, double T, double t_settle = 0) {
  const double g = 9.81, a = 0.1, m = 1, J = m * a * a / 6;
  const Vec3d n = {std::sin(theta), 0, std::cos(theta)};  // the slope's normal
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  const json doc = {
      {"name", "block on a slope"},
      {"gravity", {0, 0, -g}},
      {"bodies",
       {{{"name", "block"},
         {"mass", m},
         {"inertia", {J, J, J}},
         {"position", {n.x * a / 2, 0, n.z * a / 2}},
         {"orientation", {c, 0, s, 0}},
         {"collision", {{"type", "box"}, {"size", {a, a, a}}}}}}},
      {"contact",
       {{"ground", {{"normal", {n.x, n.y, n.z}}}},
        {"materials",
         {{"default", {{"stiffness", 1e5}, {"restitution", 0.3}, {"friction", mu}, {"slip_speed", v_eps}}}}}}},
      {"solver", {{"dt", 2e-4}, {"t_end", T}}}};
  SceneRun run(doc);
  const Vec3d down = {std::cos(theta), 0, -std::sin(theta)};  // downhill along the slope
  const Vec3d r0 = run.r(0);
  SlopeResult out{};
  const long steps = std::lround(T / run.model.solver.dt), settle = std::lround(t_settle / run.model.solver.dt);
  for (long step = 1; step <= steps; ++step) {
    run.step();
    if (2 * step == steps) out.v_half = dot(run.v(0), down);
    if (step == settle) out.x_settled = dot(run.r(0) - r0, down);
  }
  out.x_T = dot(run.r(0) - r0, down);
  out.v_T = dot(run.v(0), down);
  return out;
}

TEST(ContactDae, BlockOnASlopeHoldsBelowTheFrictionAngleAndSlidesAbove) {
  const double g = 9.81, mu = 0.5, v_eps = 1e-3, T = 2;
  {
    // At rest: once the corner loads have settled (0.5 s; while they settle the downhill
    // corners slip faster, docs/contact.md "Modelling notes"), the creep over the next
    // 9.5 s stays below the point-mass bound u* T.
    const double theta = std::atan(0.3), T_rest = 10;
    const SlopeResult r = block_on_slope(theta, mu, v_eps, T_rest, 0.5);
    const double u_star = friction_creep_speed<double>(mu, std::tan(theta), v_eps);
    EXPECT_GE(r.x_T - r.x_settled, 0.0);
    EXPECT_LE(r.x_T - r.x_settled, u_star * (T_rest - 0.5)) << "creep speed bound " << u_star << " m/s";
  }
  {
    const double theta = std::atan(0.7);
    const SlopeResult r = block_on_slope(theta, mu, v_eps, T);
    const double a = g * (std::sin(theta) - mu * std::cos(theta));
    // Over [T/2, T] the speed is >= 1.5 m/s: the regularisation's deficit
    // mu g cos v_eps^2 / (2 u^2) is below 2e-6 g.
    EXPECT_NEAR((r.v_T - r.v_half) / (T / 2), a, 1e-4 * g);
  }
}

TEST(ContactDae, SphereRollsDownASlopeWithoutSlipping) {
  const double g = 9.81, theta = 20 * kPi / 180, m = 1, R = 0.05, T = 1;
  const Vec3d n = {std::sin(theta), 0, std::cos(theta)};
  const json doc = {
      {"name", "rolling sphere"},
      {"gravity", {0, 0, -g}},
      {"bodies", {sphere_body("ball", m, R, {n.x * R, 0, n.z * R})}},
      {"contact",
       {{"ground", {{"normal", {n.x, n.y, n.z}}}},
        {"materials", {{"default", {{"stiffness", 1e6}, {"restitution", 0.3}, {"friction", 0.5}}}}}}},
      {"solver", {{"dt", 1e-4}, {"t_end", T}}}};
  // dt below RK4's limit for the friction's slope at rest: 2.78 v_eps / (mu g cos theta)
  // times the contact point's effective mass over m, 2/7 for a rolling sphere (1.7e-4 s;
  // at 2e-4 s the slip oscillates about its steady value).
  SceneRun run(doc);
  const Vec3d down = {std::cos(theta), 0, -std::sin(theta)};
  double v_half = 0;
  const long steps = std::lround(T / run.model.solver.dt);
  for (long s = 1; s <= steps; ++s) {
    run.step();
    if (2 * s == steps) v_half = dot(run.v(0), down);
  }
  const double a = (dot(run.v(0), down) - v_half) / (T / 2);
  // The forces act midway between the surfaces, R_c = R - delta0 / 2 from the centre
  // (docs/contact.md, "Modelling notes"): a = g sin / (1 + J / (m R_c^2)), which is the
  // rigid (5/7) g sin less (2/7) delta0 / R relative.
  const double K = 1e6, delta0 = std::pow(m * g * std::cos(theta) / K, 2.0 / 3.0), R_c = R - delta0 / 2;
  const double J = 0.4 * m * R * R;
  EXPECT_NEAR(a / (g * std::sin(theta) / (1 + J / (m * R_c * R_c))), 1.0, 1e-6);
  EXPECT_NEAR(a / (5.0 / 7.0 * g * std::sin(theta)), 1.0, 2.0 / 7.0 * delta0 / R * 1.01);
  const Vec3d w_W = mul(rotation(Quatd{run.Y[3], run.Y[4], run.Y[5], run.Y[6]}), run.omega_B(0));
  const Vec3d slip = run.v(0) + cross(w_W, -R_c * n);
  // The regularised law's steady slip v_eps r / sqrt(1 - r^2), r the friction needed over
  // mu F_n: (k / (1 + k)) tan / mu, k = J / (m R_c^2) (2/7 tan / mu for a rigid ball).
  const double k = J / (m * R_c * R_c), r = k / (1 + k) * std::tan(theta) / 0.5, v_eps = 1e-3;
  EXPECT_NEAR(norm(slip), v_eps * r / std::sqrt(1 - r * r), 1e-6);
}

// Energy drift of an elastic ball bouncing on the ground under gravity over 3 bounces,
// relative to the energy, at dt.
double bouncing_energy_drift(double dt) {
  const double m = 1, R = 0.05;
  const json doc = {{"name", "elastic bounce"},
                    {"gravity", {0, 0, -9.81}},
                    {"bodies", {sphere_body("ball", m, R, {0, 0, R + 0.2})}},
                    {"contact", {{"ground", json::object()},
                                 {"materials", {{"default", {{"stiffness", 1e6}, {"restitution", 1.0}}}}}}},
                    {"solver", {{"dt", dt}, {"t_end", 1.0}}}};
  SceneRun run(doc);
  const double E0 = run.energy();
  double worst = 0;
  while (run.t < 1.0) {
    run.step();
    worst = std::max(worst, std::fabs(run.energy() - E0));
  }
  return worst / std::fabs(E0);
}

TEST(ContactDae, ElasticBouncesKeepTheEnergyToABoundFallingWithDt) {
  const double v = std::sqrt(2 * 9.81 * 0.2), t_c = hertz_duration(1e6, 1, v);
  const double t_star = hertz_delta_max(1e6, 1, v) / v;  // the contact's time scale
  const double coarse = bouncing_energy_drift(t_c / 50), fine = bouncing_energy_drift(t_c / 100);
  // The force's delta^(3/2) onset limits RK4 to about (dt / t*)^(5/2) per impact
  // (docs/contact.md, Validation (e)); three impacts.
  EXPECT_LT(coarse, 5 * std::pow(t_c / 50 / t_star, 2.5)) << coarse;
  EXPECT_LT(fine, 5 * std::pow(t_c / 100 / t_star, 2.5)) << fine;
  EXPECT_GT(coarse / fine, 2.0) << "coarse " << coarse << " fine " << fine;
}

TEST(ContactDae, NewtonsCradleHandsTheVelocityToTheLastBall) {
  const double m = 0.1, R = 0.02, v0 = 0.5, gap = 1e-3, K = 1e7;
  json bodies = json::array();
  for (int k = 0; k < 4; ++k)
    bodies.push_back(sphere_body("ball" + std::to_string(k), m, R, {k * (2 * R + gap), 0, 0},
                                 {k == 0 ? v0 : 0.0, 0, 0}));
  const double t_c = hertz_duration(K, m / 2, v0);
  const json doc = {{"name", "cradle"},
                    {"bodies", bodies},
                    {"contact", {{"materials", {{"default", {{"stiffness", K}, {"restitution", 1.0}}}}}}},
                    {"solver", {{"dt", t_c / 100}, {"t_end", 1.0}}}};
  SceneRun run(doc);
  while (run.t < 4 * gap / v0 + 6 * t_c) run.step();
  double p = 0;
  for (int k = 0; k < 4; ++k) p += m * run.v(k)[0];
  EXPECT_NEAR(p, m * v0, 1e-12);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(run.v(k)[0], 0.0, 1e-3 * v0) << "ball " << k;
  EXPECT_NEAR(run.v(3)[0], v0, 1e-3 * v0);
}

// The power of the contacts' damping, friction and rolling resistance is the rate of the
// energy (kinetic + gravity + the contacts' elastic potential): a central difference of E
// along the motion of a spinning ball sliding on the ground after its impact equals
// nonconservative_power (docs/contact.md, "Contact in the DAE").
TEST(ContactDae, PowerIsTheRateOfTheEnergy) {
  const double R = 0.05;
  json ball = sphere_body("ball", 1.0, R, {0, 0, R + 1e-3}, {1.0, 0.3, -0.5});
  ball["angular_velocity"] = {4.0, -7.0, 3.0};
  const json doc = {
      {"name", "sliding ball"},
      {"gravity", {0, 0, -9.81}},
      {"bodies", {ball}},
      {"contact",
       {{"ground", json::object()},
        {"materials",
         {{"default",
           {{"stiffness", 1e6}, {"restitution", 0.5}, {"friction", 0.4}, {"rolling_friction", 2e-3}}}}}}},
      {"solver", {{"dt", 1e-5}, {"t_end", 1.0}}}};
  SceneRun run(doc);
  for (int s = 0; s < 300; ++s) run.step();  // in contact, sliding and spinning
  ASSERT_LT(run.r(0)[2], R);
  const double h = 1e-6;
  const double dt = run.model.solver.dt;
  run.model.solver.dt = h;
  const double E0 = run.energy();
  run.step();
  std::vector<double> Ydot(run.model.ny());
  ASSERT_TRUE(evaluate(run.model, run.d, run.t, run.Y.data(), nullptr, Ydot.data()));
  const double P = nonconservative_power(run.model, run.d, run.t, nullptr);
  run.step();
  const double E2 = run.energy();
  run.model.solver.dt = dt;
  EXPECT_LT(P, 0.0);
  // Central difference: error h^2 |d3E/dt3| / 6 and rounding 1e-16 |E| / h, both far below
  // 1e-6 |P|.
  EXPECT_NEAR((E2 - E0) / (2 * h), P, 1e-6 * std::fabs(P));
}

// The cuda and cuda-fused per-thread sequences on the CPU grid equal the CPU reference
// while a ball bounces next to a block that slides on the ground and is hit by it, with
// the restitution, friction and drop point swept (per-instance contact parameters); the
// per-thread energy and power equal the CPU reference's at the end.
TEST(ContactDae, BatchedPathsEqualTheCpuReference) {
  const double a = 0.1, J = a * a / 6;
  const json doc = {
      {"name", "ball hits a block"},
      {"gravity", {0, 0, -9.81}},
      {"bodies",
       {sphere_body("ball", 0.5, 0.05, {-0.2, 0, 0.08}, {1.5, 0, 0.5}),
        {{"name", "block"},
         {"mass", 1.0},
         {"inertia", {J, J, J}},
         {"position", {0, 0, a / 2 - 1e-4}},
         {"collision", {{"type", "box"}, {"size", {a, a, a}}}}}}},
      {"contact",
       {{"ground", json::object()},
        {"materials", {{"default", {{"stiffness", 1e6}, {"restitution", 0.6}, {"friction", 0.4}}}}}}},
      {"solver", {{"dt", 1e-4}, {"t_end", 1.0}}},
      {"sweep",
       {{"mode", "lhs"},
        {"instances", 3},
        {"seed", 3},
        {"parameters",
         {{{"path", "contact.materials.default.restitution"}, {"dist", "uniform"}, {"low", 0.4}, {"high", 0.8}},
          {{"path", "contact.materials.default.friction"}, {"dist", "uniform"}, {"low", 0.2}, {"high", 0.6}},
          {{"path", "bodies.ball.velocity[0]"}, {"dist", "uniform"}, {"low", 1.3}, {"high", 1.7}}}}}}};
  const Scene scene = parse_scene(doc.dump());
  const int n = 3, steps = 2000;
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep, n));
  ASSERT_EQ(models[0].forces.size(), 3u);  // ground-ball, ground-block, ball-block
  // No constraint rows: the paths are equal bit for bit.
  test::expect_grid_matches_reference(models, n, steps, 0.0, [](const Model&, int i, const Data& d) {
    EXPECT_GT(d.kin[1].r[0], 1e-3) << "instance " << i << ": the ball reached the block, which moved";
  });
}

}  // namespace
}  // namespace simphant
