// The maximal-coordinate DAE solver against an independent solver: a planar double
// pendulum of two compound links written in its two joint angles (Lagrange's equations,
// solved and integrated by the same fixed-step RK4 here in the test). The two
// formulations share nothing but the physics.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

// Link k: mass m, CoM at distance c from its proximal hinge, inertia I about the CoM
// (hinge axis y); link 1's distal hinge at l1. Angles from the downward vertical, the
// CoM of link 1 at c1 (sin th1, -cos th1) in the x-z plane.
struct Links {
  double m1 = 1.0, c1 = 0.5, l1 = 1.0, I1 = 1.0 / 12.0;
  double m2 = 0.7, c2 = 0.4, I2 = 0.05;
  double g = 9.81;
};

using State4 = std::array<double, 4>;  // th1, th2, th1dot, th2dot

State4 lagrange_rhs(const Links& p, const State4& x) {
  const double d = x[0] - x[1], s = std::sin(d), c = std::cos(d);
  const double M11 = p.I1 + p.m1 * p.c1 * p.c1 + p.m2 * p.l1 * p.l1;
  const double M12 = p.m2 * p.l1 * p.c2 * c;
  const double M22 = p.I2 + p.m2 * p.c2 * p.c2;
  const double f1 = -p.m2 * p.l1 * p.c2 * s * x[3] * x[3] - (p.m1 * p.c1 + p.m2 * p.l1) * p.g * std::sin(x[0]);
  const double f2 = p.m2 * p.l1 * p.c2 * s * x[2] * x[2] - p.m2 * p.c2 * p.g * std::sin(x[1]);
  const double det = M11 * M22 - M12 * M12;
  return {x[2], x[3], (M22 * f1 - M12 * f2) / det, (M11 * f2 - M12 * f1) / det};
}

State4 rk4(const Links& p, const State4& x, double h) {
  auto add = [](const State4& a, const State4& b, double s) {
    return State4{a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2], a[3] + s * b[3]};
  };
  const State4 k1 = lagrange_rhs(p, x), k2 = lagrange_rhs(p, add(x, k1, h / 2)), k3 = lagrange_rhs(p, add(x, k2, h / 2)),
               k4 = lagrange_rhs(p, add(x, k3, h));
  State4 y;
  for (int i = 0; i < 4; ++i) y[i] = x[i] + h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  return y;
}

// The same pendulum as a scene: rods along their body z axes, turned about y by -th
// so that body -z points from the hinge to the CoM.
nlohmann::json scene_of(const Links& p, double th1, double th2, double eps) {
  using nlohmann::json;
  auto quat_y = [](double a) { return json::array({std::cos(a / 2), 0.0, std::sin(a / 2), 0.0}); };
  const double h2x = p.l1 * std::sin(th1), h2z = -p.l1 * std::cos(th1);
  json j;
  j["gravity"] = {0.0, 0.0, -p.g};
  j["bodies"] = json::array(
      {{{"name", "upper"}, {"mass", p.m1}, {"inertia", {p.I1, p.I1, 1e-4}},
        {"position", {p.c1 * std::sin(th1), 0.0, -p.c1 * std::cos(th1)}}, {"orientation", quat_y(-th1)}},
       {{"name", "lower"}, {"mass", p.m2}, {"inertia", {p.I2, p.I2, 1e-4}},
        {"position", {h2x + p.c2 * std::sin(th2), 0.0, h2z - p.c2 * std::cos(th2)}}, {"orientation", quat_y(-th2)}}});
  j["joints"] = json::array(
      {{{"name", "shoulder"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "upper"},
        {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}},
       {{"name", "elbow"}, {"type", "revolute"}, {"body_i", "upper"}, {"body_j", "lower"},
        {"frame", {{"origin", {h2x, 0.0, h2z}}, {"z", {0.0, 1.0, 0.0}}}}}});
  j["solver"] = {{"dt", 1e-4}, {"t_end", 1.0}, {"tikhonov_epsilon", eps}};
  return j;
}

TEST(ReducedCoordinates, DoublePendulumMatchesLagrangeEquations) {
  const Links p;
  const double th1 = 0.8, th2 = -0.3, dt = 1e-4;
  const Scene scene = parse_scene(scene_of(p, th1, th2, 1e-10).dump());
  auto sim = Simulator::create({scene.model}, SimulatorOptions{"cpu", 1}, 1);
  State4 x{th1, th2, 0.0, 0.0};
  std::vector<double> y(2 * 13);
  double worst = 0;
  for (int frame = 1; frame <= 10; ++frame) {  // compare every 0.1 s up to 1 s
    sim->advance(1000);
    for (int s = 0; s < 1000; ++s) x = rk4(p, x, dt);
    sim->read_states(y.data());
    const double a1 = std::atan2(y[0], -y[2]);
    const double hx = p.l1 * std::sin(a1), hz = -p.l1 * std::cos(a1);
    const double a2 = std::atan2(y[13] - hx, -(y[15] - hz));
    worst = std::max({worst, std::abs(a1 - x[0]), std::abs(a2 - x[1])});
    // omega_B y of each link is -thdot (a rotation about +y moves the CoM towards -x).
    EXPECT_NEAR(y[11], -x[2], 1e-6) << "t = " << 0.1 * frame;
    EXPECT_NEAR(y[24], -x[3], 1e-6) << "t = " << 0.1 * frame;
  }
  // Both integrate with RK4 at dt = 1e-4 (error ~ (omega dt)^4 ~ 1e-14 per unit time);
  // what remains is the DAE's constraint give: Baumgarte-damped drift and the Tikhonov
  // compliance eps * lambda ~ 1e-10 * 10 N = 1e-9 m, i.e. ~1e-9 rad. Bound: 1e-7 rad.
  EXPECT_LT(worst, 1e-7);
  std::printf("double pendulum, DAE vs Lagrange over 1 s: max angle difference %.3e rad\n", worst);
  // The pendulum really swings: the upper link has moved through a large angle.
  EXPECT_GT(std::abs(x[0] - th1) + std::abs(x[1] - th2), 0.5);
}

}  // namespace
}  // namespace simphant
