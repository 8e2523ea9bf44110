// Radial clearance in a revolute joint (docs/contact.md, "Joint clearance"): the joint
// keeps its planar rows (axes parallel, the journal in the bearing's plane) and the
// journal touches the bearing's bore through the contact law (contact/collide.hpp,
// collide_bearing_journal), as in Flores, Ambrosio, Claro and Lankarani, Kinematics and
// Dynamics of Multibody Systems with Imperfect Joints (Springer, 2008).
//  - geometry: distance, normal, depth and point of a journal in a tilted bore against
//    the construction by hand, both orders; a bore or journal touches nothing else;
//  - a pendulum hung on a clearance pin, released centred, falls through the clearance,
//    bounces and comes to rest on the bore's bottom: the pin's offset equals c + m g / K
//    (linear law) to the step's accuracy;
//  - a slider-crank driven at 5000 rpm with a clearance at the wrist pin (steel, Hertz
//    stiffness of the conformal contact, e = 0.9): the piston's motion converges to the
//    ideal joint's as the clearance goes to zero, and its acceleration carries the
//    impact peaks of the literature, higher than the ideal joint's;
//  - errors name the field: a clearance on a non-revolute joint, with an initial angle,
//    without a contact section, a non-positive size, an unknown material or key, and a
//    driver or an actuator on a clearance joint (the error names the clearance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scene_run.hpp"
#include "simphant/contact/collide.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
using test::SceneRun;

Mat3d rotation_of(const Quatd& q) { return rotation(q); }

TEST(JointClearance, BearingJournalGeometry) {
  const double Rb = 0.0105, Rj = 0.01, c = Rb - Rj;
  const Shape<double> bore{ShapeKind::Bearing, {Rb, 0, 0}, {0, 0, 0}, {1, 0, 0, 0}};
  const Shape<double> pin{ShapeKind::Journal, {Rj, 0, 0}, {0, 0, 0}, {1, 0, 0, 0}};
  // The bore's axis along a tilted direction; the journal off-centre in its plane by e,
  // and 2 mm along the axis (which does not count).
  const Quatd q = normalized(Quatd{0.9, 0.3, -0.2, 0.1});
  const Mat3d R = rotation_of(q);
  const Vec3d x = rot_axis(R, 0), y = rot_axis(R, 1), z = rot_axis(R, 2);
  const ShapePose<double> a_W{{0.1, -0.2, 0.3}, R};
  for (const double e : {3e-4, 7e-4}) {
    const Vec3d u = (1 / std::sqrt(2.0)) * (x + y);  // the eccentricity's direction
    const ShapePose<double> b_W{a_W.pos_W + e * u + 0.002 * z, R};
    ContactSet<double> s;
    ASSERT_EQ(collide(bore, a_W, pin, b_W, 0.0, s), CollideStatus::Ok);
    EXPECT_NEAR(s.distance, c - e, 1e-15);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.normal_W[k], -u[k], 1e-12);
    if (e < c) {
      EXPECT_EQ(s.count, 0);
    } else {
      ASSERT_EQ(s.count, 1);
      EXPECT_NEAR(s.contact[0].depth, e - c, 1e-15);
      // Midway between the wall (in the journal's plane) and the journal's surface.
      const Vec3d wall = a_W.pos_W + 0.002 * z + Rb * u, surface = b_W.pos_W + Rj * u;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.contact[0].point_W[k], 0.5 * (wall[k] + surface[k]), 1e-15);
    }
    // The other order flips the normal.
    ContactSet<double> f;
    ASSERT_EQ(collide(pin, b_W, bore, a_W, 0.0, f), CollideStatus::Ok);
    EXPECT_EQ(f.count, s.count);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(f.normal_W[k], u[k], 1e-12);
  }
  for (ShapeKind k : {ShapeKind::Plane, ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box, ShapeKind::Cylinder}) {
    EXPECT_FALSE(collide_supported(ShapeKind::Bearing, k));
    EXPECT_FALSE(collide_supported(k, ShapeKind::Journal));
  }
  EXPECT_FALSE(collide_supported(ShapeKind::Bearing, ShapeKind::Bearing));
  EXPECT_FALSE(collide_supported(ShapeKind::Journal, ShapeKind::Journal));
}

/// A 1 kg rod hung 0.2 m below a pin on the ground (axis y) with a radial clearance c.
json pendulum(double c, double K) {
  return {{"name", "pendulum on a clearance pin"},
          {"gravity", {0, 0, -9.81}},
          {"bodies", {{{"name", "rod"}, {"mass", 1.0}, {"inertia", {0.02, 0.02, 0.001}}, {"position", {0, 0, -0.2}}}}},
          {"joints",
           {{{"name", "pin"},
             {"type", "revolute"},
             {"body_i", "ground"},
             {"body_j", "rod"},
             {"frame", {{"origin", {0, 0, 0}}, {"z", {0, 1, 0}}, {"x", {1, 0, 0}}}},
             {"clearance", {{"radial", c}, {"journal_radius", 0.01}}}}}},
          {"contact", {{"materials", {{"default", {{"stiffness", K}, {"exponent", 1}, {"restitution", 0.5}}}}}}},
          {"solver", {{"dt", 2e-5}, {"t_end", 0.5}}}};
}

TEST(JointClearance, PendulumComesToRestOnTheBottomOfTheBore) {
  const double c = 1e-3, K = 1e7, m = 1.0, g = 9.81;
  SceneRun run(pendulum(c, K));
  ASSERT_EQ(run.model.joints[0].type, JointType::Planar);
  int pairs = 0;
  for (const ForceElement& f : run.model.forces)
    if (f.type == ForceType::Contact) {
      ++pairs;
      EXPECT_EQ(f.name, "clearance pin");
      EXPECT_EQ(f.shape_i.kind, ShapeKind::Bearing);
      EXPECT_EQ(f.shape_j.kind, ShapeKind::Journal);
    }
  EXPECT_EQ(pairs, 1);
  double lowest = 0;
  for (int s = 0; s < 25000; ++s) {  // 0.5 s
    ASSERT_TRUE(run.step());
    lowest = std::min(lowest, run.r(0).z + 0.2);
  }
  // The pin's centre on the rod (0.2 m above the CoM) against the bore's centre (0, 0, 0).
  const Vec3d pin = run.r(0) + mul(rotation(state_p(run.Y.data(), 0)), Vec3d{0, 0, 0.2});
  const double rest = c + m * g / K;  // the journal on the bottom of the bore, K delta = m g
  EXPECT_NEAR(pin.z, -rest, 1e-9) << "at rest on the bottom";
  EXPECT_NEAR(pin.x, 0, 1e-9);
  EXPECT_NEAR(pin.y, 0, 1e-12) << "the planar rows hold the journal in the bearing's plane";
  EXPECT_LT(lowest, -rest - 1e-6) << "it fell through the clearance and bounced";
  EXPECT_LT(norm(run.v(0)), 1e-6);
}

/// examples/slider_crank_driven.json at 5000 rpm without its gas load and sweep, a
/// clearance c at the wrist pin (journal 10 mm, steel, e = 0.9), step dt.
json slider_crank(double c, double dt, double t_end) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/slider_crank_driven.json");
  json d = json::parse(in);
  d.erase("sweep");
  d["drivers"][0]["law"]["speed"] = 5000 * 2 * M_PI / 60;
  json forces = json::array();
  for (const json& f : d["forces"])
    if (f["name"] != "gas_load") forces.push_back(f);
  d["forces"] = forces;
  d["solver"]["dt"] = dt;
  d["solver"]["t_end"] = t_end;
  if (c > 0) {
    for (json& j : d["joints"])
      if (j["name"] == "wrist_pin") j["clearance"] = {{"radial", c}, {"journal_radius", 0.01}, {"material", "steel"}};
    d["contact"] = {{"materials",
                     {{"steel", {{"youngs_modulus", 207e9}, {"poisson_ratio", 0.3}, {"restitution", 0.9}}}}}};
  }
  return d;
}

struct PistonTrace {
  std::vector<double> x, a;  ///< piston position [m] and acceleration [m/s^2] per step
  double free_flight = 0;    ///< fraction of the steps with the journal off the wall
};

PistonTrace piston_trace(double c, double dt, int steps) {
  SceneRun run(slider_crank(c, dt, steps * dt));
  // Every body's state from the ideal mechanism's assembly, as in the literature: the
  // journal starts centred and moving with its bearing (an assembly of the clearance
  // model would leave the piston at rest under a crank pin at 26 m/s).
  SceneRun ideal(slider_crank(0, dt, steps * dt));
  EXPECT_TRUE(assemble(ideal.model, ideal.d, ideal.Y.data()).ok);  // the rates the crank drive sets
  run.Y = ideal.Y;
  const int piston = run.model.body_index("piston");
  PistonTrace t;
  double v_prev = run.v(piston).x;
  int free_steps = 0;
  for (int s = 0; s < steps; ++s) {
    if (!run.step()) break;
    const double v = run.v(piston).x;
    t.x.push_back(run.r(piston).x);
    t.a.push_back((v - v_prev) / dt);
    v_prev = v;
    if (c > 0) {
      // The eccentricity of the piston's journal against the conrod's bore.
      const ForceElement* f = nullptr;
      for (const ForceElement& e : run.model.forces)
        if (e.type == ForceType::Contact) f = &e;
      const ShapePose<double> a = shape_pose_W(f->shape_i, state_r(run.Y.data(), f->body_i), state_p(run.Y.data(), f->body_i));
      const ShapePose<double> b = shape_pose_W(f->shape_j, state_r(run.Y.data(), f->body_j), state_p(run.Y.data(), f->body_j));
      ContactSet<double> cs;
      collide(f->shape_i, a, f->shape_j, b, 0.0, cs);
      if (cs.count == 0) ++free_steps;
    }
  }
  t.free_flight = static_cast<double>(free_steps) / steps;
  return t;
}

TEST(JointClearance, SliderCrankConvergesToTheIdealJointAndCarriesImpactPeaks) {
  const double dt = 2e-6;
  const int steps = 6000;  // one crank revolution at 5000 rpm: 12 ms
  const PistonTrace ideal = piston_trace(0, dt, steps);
  double peak_ideal = 0;
  for (double a : ideal.a) peak_ideal = std::max(peak_ideal, std::abs(a));
  double previous = 1e9, previous_peak = 1e99;
  for (const double c : {5e-4, 1e-4, 2e-5}) {
    const PistonTrace t = piston_trace(c, dt, steps);
    ASSERT_EQ(t.x.size(), ideal.x.size());
    double dx = 0, peak = 0;
    for (std::size_t k = 0; k < t.x.size(); ++k) {
      dx = std::max(dx, std::abs(t.x[k] - ideal.x[k]));
      peak = std::max(peak, std::abs(t.a[k]));
    }
    std::printf("clearance %.1e m: max |x - x_ideal| %.3e m, peak |a| %.3e m/s^2 (ideal %.3e), free flight %.2f\n", c,
                dx, peak, peak_ideal, t.free_flight);
    // The play: the clearance plus the contact's deflection under the ideal joint's
    // largest load, delta = (m a / K)^(2/3) with the Hertz stiffness of this journal in
    // this bore; the piston's deviation stays within twice it (impacts load the pin more).
    const double E = 207e9 / (2 * (1 - 0.3 * 0.3)), R = 0.01 * (0.01 + c) / c;
    const double K = 4.0 / 3.0 * E * std::sqrt(R), delta = std::cbrt(std::pow(0.4 * peak_ideal / K, 2));
    EXPECT_LT(dx, 2 * (c + delta)) << "the piston stays within the play the clearance allows";
    EXPECT_LT(dx, previous) << "converges as the clearance shrinks";
    // The impacts' peaks exceed the ideal joint's and grow with the clearance (Flores,
    // Nonlinear Dynamics 61 (2010) 633-653); measured 7.8, 3.5 and 2.0 times the ideal's.
    EXPECT_GT(peak, 1.5 * peak_ideal);
    EXPECT_LT(peak, previous_peak);
    previous = dx;
    previous_peak = peak;
  }
  EXPECT_LT(previous_peak, 3 * peak_ideal) << "the smallest clearance's peaks approach the ideal joint's";
}

TEST(JointClearance, ErrorsNameTheField) {
  const auto error_of = test::scene_error;
  json d = pendulum(1e-3, 1e7);
  d["joints"][0]["type"] = "spherical";
  EXPECT_EQ(error_of(d).rfind("/joints/0/clearance: ", 0), 0u) << error_of(d);
  d = pendulum(1e-3, 1e7);
  d["joints"][0]["initial"] = {{"angle", 0.1}};
  EXPECT_EQ(error_of(d).rfind("/joints/0/initial: ", 0), 0u) << error_of(d);
  d = pendulum(1e-3, 1e7);
  d.erase("contact");
  EXPECT_EQ(error_of(d).rfind("/contact: ", 0), 0u) << error_of(d);
  EXPECT_NE(error_of(d).find("/joints/0/clearance"), std::string::npos) << error_of(d);
  d = pendulum(0, 1e7);
  EXPECT_EQ(error_of(d).rfind("/joints/0/clearance/radial: ", 0), 0u) << error_of(d);
  d = pendulum(1e-3, 1e7);
  d["joints"][0]["clearance"]["material"] = "brass";
  EXPECT_EQ(error_of(d).rfind("/joints/0/clearance/material: ", 0), 0u) << error_of(d);
  d = pendulum(1e-3, 1e7);
  d["drivers"] = {{{"name", "spin"}, {"joint", "pin"}, {"coordinate", "angle"},
                   {"law", {{"type", "constant_speed"}, {"speed", 1.0}}}}};
  EXPECT_EQ(error_of(d).rfind("/drivers/0/joint: joint \"pin\" has a clearance (/joints/0/clearance)", 0), 0u)
      << error_of(d);
  d = pendulum(1e-3, 1e7);
  d["forces"] = {{{"name", "motor"}, {"type", "actuator"}, {"joint", "pin"}, {"kind", "torque"}, {"value", 1.0}}};
  EXPECT_EQ(error_of(d).rfind("/forces/0/joint: ", 0), 0u) << error_of(d);
  EXPECT_NE(error_of(d).find("has a clearance"), std::string::npos) << error_of(d);
  d = pendulum(1e-3, 1e7);
  d["joints"][0]["clearance"]["diameter"] = 0.02;
  EXPECT_EQ(error_of(d).rfind("/joints/0/clearance/diameter: ", 0), 0u) << error_of(d);
}

}  // namespace
}  // namespace simphant
