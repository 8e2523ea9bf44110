// Initial conditions in joint terms (docs/scene-format.md, "Joints"; dynamics/assembly.hpp):
// assembly holds a joint's given angle / slide to assembly_tolerance and its rate to
// round-off and places the rest consistently (slider-crank: the closed-form piston
// velocity; four-bar: Freudenstein's equation), conflicting or unreachable requests fail
// naming the joint, and the values are sweepable.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/coordinate_targets.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

json example(const std::string& name) {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name + ".json");
  json doc = json::parse(in);
  doc.erase("sweep");
  return doc;
}

/// The scene's first instance assembled.
struct Assembled {
  Model model;
  Data d;
  std::vector<double> Y;
  AssemblyResult res;
  explicit Assembled(const json& doc) : Assembled(compile_model(doc)) {}
  explicit Assembled(Model m) : model(std::move(m)), d(model), Y(model.ny()) {
    initial_state(model, Y.data());
    res = assemble(model, d, Y.data());
    set_kinematics(model, d, Y.data());
  }
  /// The joint's coordinate row at the assembled state.
  CoordinateRow<double> coordinate(const std::string& joint, JointCoordinate c) const {
    return target_row(model, d, {model.joint_index(joint), c, 0.0});
  }
};

// Slider-crank (r = 50 mm, l = 200 mm, crank at 60 deg above the cylinder axis). Given
// the crank's body angular velocity 10 rad/s about the bearing, the projection onto
// Phi_q qdot = 0 (minimum norm over all bodies) lowers the crank's rate (measured value
// printed); given as the main bearing's initial rate, the rate is 10 to round-off and the
// piston's velocity is the closed form of the mechanism: with the crank pin B turning
// about the main bearing (the world origin) at omega = (0, rate, 0) and the wrist pin at
// (x, 0, 0) on the cylinder axis, the loop closure (x - B_x)^2 + B_z^2 = l^2
// differentiated gives
//   x' = B_x' - B_z B_z' / (x - B_x),   B' = omega x B,
// evaluated at the assembled pin positions.
TEST(InitialCoordinates, SliderCrankRateIsHeldExactly) {
  json plain = example("slider_crank");
  plain["bodies"][0]["angular_velocity"] = {0.0, 10.0, 0.0};
  const Assembled before(plain);
  ASSERT_TRUE(before.res.ok) << before.res.message;
  const double rate_before = before.coordinate("main_bearing", JointCoordinate::Angle).rate;
  std::printf("crank rate after projecting a given body velocity: %.6f rad/s\n", rate_before);
  EXPECT_GT(std::fabs(rate_before - 10.0), 0.1);

  json given = example("slider_crank");
  given["joints"][0]["initial"] = {{"rate", 10.0}};
  const Assembled after(given);
  ASSERT_TRUE(after.res.ok) << after.res.message;
  const double rate = after.coordinate("main_bearing", JointCoordinate::Angle).rate;
  std::printf("crank rate with initial.rate = 10: %.17g (error %.3g)\n", rate, rate - 10.0);
  EXPECT_NEAR(rate, 10.0, 1e-13);
  EXPECT_LE(after.res.velocity_residual, 1e-12);
  // The pins at the assembled positions (anchors of crank_pin on the crank and of
  // wrist_pin on the piston).
  const BodyKin<double>& crank = after.d.kin[0];
  const BodyKin<double>& piston = after.d.kin[2];
  const Vec3d pin = crank.r + mul(crank.A, after.model.joints[1].frame.u_i);
  const Vec3d wrist = piston.r + mul(piston.A, after.model.joints[2].frame.u_j);
  EXPECT_NEAR(std::atan2(pin.z, pin.x), M_PI / 3, 1e-9);
  // B' = omega x B with omega = (0, rate, 0) about the main bearing at the origin.
  const Vec3d Bd = cross(Vec3d{0.0, 10.0, 0.0}, pin);
  const double xdot = Bd.x - pin.z * Bd.z / (wrist.x - pin.x);
  const Vec3d v_piston = state_v(after.Y.data(), 3, 2);
  std::printf("piston velocity %.15g m/s, closed form %.15g m/s\n", v_piston.x, xdot);
  EXPECT_NEAR(v_piston.x, xdot, 1e-12);
  EXPECT_NEAR(v_piston.z, 0.0, 1e-12);
  // The cylinder's slide rate is the piston's velocity along the cylinder axis.
  EXPECT_NEAR(after.coordinate("cylinder", JointCoordinate::Slide).rate, xdot, 1e-12);
}

// Four-bar (ground d = 0.5, crank a = 0.1, coupler b = 0.45, rocker c = 0.3 m; crank at
// 90 deg). Given the crank pivot's initial angle -0.3 rad (crank angle th2 = 90 deg +
// 0.3 rad from the ground line towards +z), assembly places the coupler and rocker so
// that the rocker angle th4 solves Freudenstein's equation
//   K1 cos th4 - K2 cos th2 + K3 = cos(th2 - th4),
//   K1 = d/a, K2 = d/c, K3 = (a^2 - b^2 + c^2 + d^2) / (2 a c),
// on the branch of the initial configuration (the closed-form half-angle solution), to
// 1e-9 rad: the example's frames are written to 12 digits, so its link lengths differ
// from the nominal a, b, c, d by about 1e-12 m (measured residual 2.7e-11 rad).
TEST(InitialCoordinates, FourBarInputAnglePlacesTheCouplerByFreudenstein) {
  json doc = example("four_bar");
  doc["joints"][0]["initial"] = {{"angle", -0.3}, {"rate", 2.0}};
  const Assembled run(doc);
  ASSERT_TRUE(run.res.ok) << run.res.message;
  const CoordinateRow<double> crank = run.coordinate("crank_pivot", JointCoordinate::Angle);
  EXPECT_NEAR(crank.value, -0.3, doc["solver"].value("assembly_tolerance", 1e-10));
  EXPECT_NEAR(crank.rate, 2.0, 1e-13);
  const double a = 0.1, b = 0.45, c = 0.3, dd = 0.5;
  const double th2 = M_PI / 2 + 0.3;
  // Crank pin B = 2 r_crank (CoM mid-way), rocker pin C = D + 2 (r_rocker - D).
  const Vec3d rc = state_r(run.Y.data(), 0), rr = state_r(run.Y.data(), 2);
  EXPECT_NEAR(std::atan2(2 * rc.z, 2 * rc.x), th2, 1e-9);
  const Vec3d D{dd, 0, 0};
  const Vec3d C = D + 2.0 * (rr - D);
  const double th4 = std::atan2(C.z, C.x - dd);
  const double K1 = dd / a, K2 = dd / c, K3 = (a * a - b * b + c * c + dd * dd) / (2 * a * c);
  const double A = std::cos(th2) - K1 - K2 * std::cos(th2) + K3, B = -2 * std::sin(th2);
  const double Cq = K1 - (K2 + 1) * std::cos(th2) + K3;
  const double disc = std::sqrt(B * B - 4 * A * Cq);
  double best = 1e9;
  for (double sgn : {-1.0, 1.0}) {
    const double cand = 2 * std::atan((-B + sgn * disc) / (2 * A));
    best = std::min(best, std::fabs(std::remainder(cand - th4, 2 * M_PI)));
  }
  std::printf("four-bar: rocker angle %.12f rad, Freudenstein residual %.3g rad\n", th4, best);
  EXPECT_LE(best, 1e-9);
  // The coupler closes the loop: |C - B| = b.
  const Vec3d Bpin = 2.0 * rc;
  EXPECT_NEAR(norm(C - Bpin), b, 1e-9);
}

// More coordinates than the mobility (a four-bar has one): the rocker pivot's angle is
// determined by the crank's, so giving both fails naming the rocker pivot, even with the
// value the crank's angle implies; so do two given rates. A rocker angle the mechanism
// cannot reach fails naming it too.
TEST(InitialCoordinates, ConflictingOrUnreachableRequestsFailNamingTheJoint) {
  json both = example("four_bar");
  both["joints"][0]["initial"] = {{"angle", 0.0}};
  both["joints"][3]["initial"] = {{"angle", 0.0}};
  const Assembled a(both);
  EXPECT_FALSE(a.res.ok);
  EXPECT_NE(a.res.message.find("joint 'rocker_pivot' initial angle"), std::string::npos) << a.res.message;
  EXPECT_NE(a.res.message.find("mobility"), std::string::npos) << a.res.message;

  json rates = example("four_bar");
  rates["joints"][0]["initial"] = {{"rate", 1.0}};
  rates["joints"][2]["initial"] = {{"rate", 1.0}};
  const Assembled b(rates);
  EXPECT_FALSE(b.res.ok);
  EXPECT_NE(b.res.message.find("joint 'coupler_rocker' initial rate"), std::string::npos) << b.res.message;

  json far = example("four_bar");
  far["joints"][3]["initial"] = {{"angle", 2.5}};
  const Assembled c(far);
  EXPECT_FALSE(c.res.ok);
  EXPECT_NE(c.res.message.find("joint 'rocker_pivot' initial angle = 2.5 cannot be reached"), std::string::npos)
      << c.res.message;
}

// The slide of a prismatic joint: the slider-crank's cylinder given slide -0.02 m (the
// piston 20 mm towards the crank) and velocity 0.5 m/s; the crank follows.
TEST(InitialCoordinates, PrismaticSlideAndVelocity) {
  json doc = example("slider_crank");
  doc["joints"][3]["initial"] = {{"slide", -0.02}, {"velocity", 0.5}};
  const Assembled run(doc);
  ASSERT_TRUE(run.res.ok) << run.res.message;
  const CoordinateRow<double> s = run.coordinate("cylinder", JointCoordinate::Slide);
  EXPECT_NEAR(s.value, -0.02, 1e-10);
  EXPECT_NEAR(s.rate, 0.5, 1e-13);
  EXPECT_NEAR(state_r(run.Y.data(), 2).x, 0.220256241898 - 0.02, 1e-10);
}

// Every initial value is sweepable: three instances with crank rates 5, 10, 20 rad/s.
TEST(InitialCoordinates, InitialRateIsSweepable) {
  json doc = example("slider_crank");
  doc["joints"][0]["initial"] = {{"rate", 1.0}};
  doc["sweep"] = {{"mode", "grid"},
                  {"parameters", {{{"path", "joints.main_bearing.initial.rate"}, {"dist", "list"}, {"values", {5.0, 10.0, 20.0}}}}}};
  const Scene scene = parse_scene(doc.dump());
  const std::vector<Model> models = build_instance_models(scene, sample_sweep(scene.sweep));
  ASSERT_EQ(models.size(), 3u);
  const double want[3] = {5.0, 10.0, 20.0};
  for (int i = 0; i < 3; ++i) {
    const Assembled run(models[i]);
    ASSERT_TRUE(run.res.ok) << run.res.message;
    EXPECT_NEAR(run.coordinate("main_bearing", JointCoordinate::Angle).rate, want[i], 1e-12 * want[i]);
  }
}

// A driver (Phi = coord - s(t)) is honoured by assembly the same way: its row is in Phi
// at t = 0 and its Phi_t = -s'(0) on the velocity projection's right-hand side, so the
// crank starts at s(0) = 0.2 rad and turns at s'(0) = 10 rad/s; an initial rate on the
// driven joint as well is one value too many: refused at load, naming the joint's
// initial key and the driver.
TEST(InitialCoordinates, DriverValueAndRateAreHeld) {
  json doc = example("slider_crank");
  doc["drivers"] = {{{"name", "motor"}, {"joint", "main_bearing"}, {"coordinate", "angle"},
                     {"law", {{"type", "constant_speed"}, {"initial", 0.2}, {"speed", 10.0}}}}};
  const Assembled run(doc);
  ASSERT_TRUE(run.res.ok) << run.res.message;
  const CoordinateRow<double> c = run.coordinate("main_bearing", JointCoordinate::Angle);
  EXPECT_NEAR(c.value, 0.2, 1e-10);
  EXPECT_NEAR(c.rate, 10.0, 1e-13);
  doc["joints"][0]["initial"] = {{"rate", 10.0}};
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/joints/0/initial/rate") << e.what();
    EXPECT_NE(std::string(e.what()).find("prescribed by driver \"motor\""), std::string::npos) << e.what();
  }
}

TEST(InitialCoordinates, WrongCoordinateForTheJointIsAnError) {
  json doc = example("slider_crank");
  doc["joints"][3]["initial"] = {{"angle", 0.1}};
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/joints/3/initial/angle") << e.what();
    EXPECT_NE(std::string(e.what()).find("revolute or cylindrical"), std::string::npos) << e.what();
  }
  doc["joints"][3]["initial"] = {{"speed", 0.1}};
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/joints/3/initial/speed") << e.what();
  }
  doc["joints"][3]["initial"] = {{"slide", 0.1}};
  doc["joints"][0]["initial"] = {{"velocity", 0.1}};
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError";
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), "/joints/0/initial/velocity") << e.what();
  }
}

}  // namespace
}  // namespace simphant
