// An MJCF robot's geoms as contact shapes (docs/mjcf.md, "Contact"; robot.urdf_collision):
//  - placement: the world poses of the geoms (box with euler, capsule by fromto, a sphere
//    on a body welded to its parent) at the initial state equal the kinematics written
//    out by hand, to rounding; robot.collision places shapes in an MJCF body's frame;
//  - the file's filters: contype / conaffinity as MuJoCo pairs them, visual geoms
//    (contype = conaffinity = 0) left out, MuJoCo's parent filter across a body with two
//    joints, <contact><exclude> per body (not per welded group) and with the world (the
//    ground); a body welded to the world before the free body stays on the world;
//  - a free box dropped on the ground comes to rest on its corners, which carry its weight,
//    the same in joint (aba) and maximal (dae) coordinates;
//  - warnings and errors name the element and attribute.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robot_joint_test_data.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/reduced/spatial.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/contact/contact_wrench.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
using robot_test::error_path;
using robot_test::TempDir;
using spatial_detail::m3_mul;

// A floating torso with a leg on a hinge about y 5 cm below it; the leg's foot is a body
// without joints (welded) 30 cm down and 2 cm forward, rolled 0.3 rad; an arm hangs from
// the torso on two hinges (a massless link between them) and a hand on one more.
const char* kLeg = R"(<mujoco model="leg"><compiler angle="radian"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="torso" pos="0.3 0.2 1" euler="0 0 1"><freejoint/>
      <inertial pos="0.01 0 0.02" mass="2" diaginertia="0.02 0.03 0.04"/>
      <geom name="chest" type="box" size="0.1 0.05 0.025" pos="0 0 0.03" euler="0 0 0.5"/>
      <body name="leg" pos="0 0 -0.05">
        <joint name="hip" axis="0 1 0"/>
        <inertial pos="0 0 -0.15" mass="0.5" diaginertia="0.004 0.004 0.0005"/>
        <geom name="shin" type="capsule" fromto="0 0 0 0.02 0 -0.3" size="0.02" contype="1" conaffinity="2"/>
        <geom name="look" type="sphere" size="0.05" contype="0" conaffinity="0"/>
        <body name="foot" pos="0.02 0 -0.3" euler="0.3 0 0">
          <inertial pos="0 0 0" mass="0.1" diaginertia="1e-5 1e-5 1e-5"/>
          <geom name="sole" type="sphere" size="0.03" pos="0.01 0.005 0"/>
        </body>
      </body>
      <body name="arm" pos="0.1 0 0">
        <joint name="shoulder_x" axis="1 0 0"/><joint name="shoulder_y" axis="0 1 0"/>
        <inertial pos="0.1 0 0" mass="0.3" diaginertia="0.001 0.002 0.002"/>
        <geom name="upper" type="sphere" size="0.02" pos="0.1 0 0"/>
        <body name="hand" pos="0.2 0 0">
          <joint name="wrist" axis="0 0 1"/>
          <inertial pos="0.03 0 0" mass="0.1" diaginertia="1e-4 1e-4 1e-4"/>
          <geom name="palm" type="capsule" size="0.02 0.01" pos="0.03 0 0" contype="4" conaffinity="1"/>
        </body>
      </body>
    </body>
  </worldbody>
  EXCLUDE
</mujoco>)";

std::string leg_file(const TempDir& t, const std::string& name, const std::string& exclude = "") {
  std::string xml = kLeg;
  xml.replace(xml.find("EXCLUDE"), 7, exclude);
  const std::string file = (t.dir / name).string();
  std::ofstream(file) << xml;
  return file;
}

json contact_section() {
  return {{"ground", json::object()},
          {"materials", {{"default", {{"stiffness", 1e5}, {"exponent", 1}, {"restitution", 0.5}}}}}};
}

json leg_doc(const std::string& file, const std::string& solver) {
  return {{"name", "leg"},
          {"robot",
           {{"mjcf", file},
            {"urdf_collision", true},
            {"q0", {0.4, 0.0, 0.0, 0.0}},
            {"base", {{"position", {0.1, -0.2, 0.6}}, {"orientation", {std::cos(0.2), 0, 0, std::sin(0.2)}}}}}},
          {"contact", contact_section()},
          {"solver", {{"type", solver}, {"dt", 1e-4}, {"t_end", 0.01}}}};
}

std::vector<std::string> contact_names(const Model& model) {
  std::vector<std::string> names;
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact) names.push_back(f.name);
  return names;
}

const ForceElement& contact_named(const Model& model, const std::string& name) {
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact && f.name == name) return f;
  throw std::runtime_error("no contact pair " + name);
}

Mat3d rot_z(double a) { return {{{std::cos(a), -std::sin(a), 0}, {std::sin(a), std::cos(a), 0}, {0, 0, 1}}}; }
Mat3d rot_y(double a) { return {{{std::cos(a), 0, std::sin(a)}, {0, 1, 0}, {-std::sin(a), 0, std::cos(a)}}}; }
Mat3d rot_x(double a) { return {{{1, 0, 0}, {0, std::cos(a), -std::sin(a)}, {0, std::sin(a), std::cos(a)}}}; }

TEST(MjcfContact, GeomsSitWhereTheBodyKinematicsPutsThem) {
  TempDir t;
  const std::string file = leg_file(t, "leg_place.xml");
  const Scene s = parse_scene(leg_doc(file, "aba").dump());
  const Model& model = s.model;
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  // By hand: the base turned 0.4 about z at (0.1, -0.2, 0.6) (robot.base, not the XML's
  // pose), the leg at hip 0.4 about y, the foot welded 30 cm down, rolled 0.3.
  const Mat3d R_B = rot_z(0.4);
  const Vec3d p_B{0.1, -0.2, 0.6};
  const Mat3d R_leg = m3_mul(R_B, rot_y(0.4));
  const Vec3d p_leg = p_B + mul(R_B, Vec3d{0, 0, -0.05});
  const Mat3d R_foot = m3_mul(R_leg, rot_x(0.3));
  const Vec3d p_foot = p_leg + mul(R_leg, Vec3d{0.02, 0, -0.3});
  // The capsule by fromto: centre halfway, its z along (from - to), half-length |from - to| / 2.
  const Vec3d d{-0.02, 0, 0.3};
  const double half = std::sqrt(0.02 * 0.02 + 0.3 * 0.3) / 2;
  struct Expected {
    const char* pair;
    ShapeKind kind;
    double size[3];
    Vec3d pos;
    Mat3d rot;
    bool z_only;  // a capsule: only its axis is fixed by fromto
  };
  const Expected expected[] = {
      {"contact ground torso[geom chest]", ShapeKind::Box, {0.1, 0.05, 0.025}, p_B + mul(R_B, Vec3d{0, 0, 0.03}),
       m3_mul(R_B, rot_z(0.5)), false},
      {"contact ground leg[geom shin]", ShapeKind::Capsule, {0.02, half, 0}, p_leg + mul(R_leg, Vec3d{0.01, 0, -0.15}),
       R_leg, true},
      {"contact ground foot[geom sole]", ShapeKind::Sphere, {0.03, 0, 0}, p_foot + mul(R_foot, Vec3d{0.01, 0.005, 0}),
       R_foot, false},
  };
  for (const Expected& e : expected) {
    const ForceElement& f = contact_named(model, e.pair);
    EXPECT_EQ(f.body_i, kGround) << e.pair;
    EXPECT_EQ(f.shape_j.kind, e.kind) << e.pair;
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(f.shape_j.size[k], e.size[k], 1e-15) << e.pair << " " << k;
    const ShapePose<double> W = shape_pose_W(f.shape_j, state_r(Y.data(), f.body_j), state_p(Y.data(), f.body_j));
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(W.pos_W[c], e.pos[c], 1e-14) << e.pair << " " << c;
    if (e.z_only) {
      const Vec3d axis = (1.0 / norm(d)) * mul(R_leg, d);
      for (int r = 0; r < 3; ++r) EXPECT_NEAR(W.rot_W.m[r][2], axis[r], 1e-14) << e.pair << " " << r;
    } else {
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(W.rot_W.m[r][c], e.rot.m[r][c], 1e-14) << e.pair << r << c;
    }
  }
  // robot.collision names MJCF bodies and places its shapes in the body's frame: a sphere
  // 1 cm along the foot's x.
  json doc = leg_doc(file, "aba");
  doc["robot"]["collision"] = {{"foot", {{"type", "sphere"}, {"radius", 0.01}, {"origin", {{"position", {0.01, 0, 0}}}}}}};
  const Scene with = parse_scene(doc.dump());
  const ForceElement& extra = contact_named(with.model, "contact ground foot[0]");
  std::vector<double> Y2(with.model.ny());
  initial_state(with.model, Y2.data());
  const ShapePose<double> W = shape_pose_W(extra.shape_j, state_r(Y2.data(), extra.body_j), state_p(Y2.data(), extra.body_j));
  const Vec3d at = p_foot + mul(R_foot, Vec3d{0.01, 0, 0});
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(W.pos_W[c], at[c], 1e-14) << c;
}

TEST(MjcfContact, PairsFollowTheFilesFilters) {
  TempDir t;
  // MuJoCo's rule: a pair when either shape's contype meets the other's conaffinity. The
  // ground (1, 1) meets every shape: chest (1, 1), shin (1, 2), sole (1, 1; on the foot,
  // welded to the leg), upper (1, 1), palm (4, 1). Between bodies: shapes of the links of
  // one joint never meet (torso-leg, arm-hand); the chest and the arm's sphere neither
  // (MuJoCo's parent filter across the arm's two joints); the chest and the palm
  // (grandparent) do; the leg's shapes meet the arm's and the hand's (their contype 1
  // meets conaffinity 1). The leg's visual sphere is left out.
  const Scene s = parse_scene(leg_doc(leg_file(t, "leg_pairs.xml"), "aba").dump());
  std::vector<std::string> names = contact_names(s.model);
  std::sort(names.begin(), names.end());
  const std::vector<std::string> expected = {
      "contact ground torso[geom chest]",      "contact ground leg[geom shin]",         "contact ground foot[geom sole]",
      "contact ground arm[geom upper]",        "contact ground hand[geom palm]",        "contact torso[geom chest] hand[geom palm]",
      "contact leg[geom shin] arm[geom upper]", "contact leg[geom shin] hand[geom palm]", "contact foot[geom sole] arm[geom upper]",
      "contact foot[geom sole] hand[geom palm]"};
  std::vector<std::string> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(names, sorted);

  // <contact><exclude>: the torso and the hand, and the world and the leg: the ground and
  // the leg's own shapes, per body as in MuJoCo (the welded foot's sole still touches it).
  const Scene x = parse_scene(
      leg_doc(leg_file(t, "leg_exclude.xml",
                       R"(<contact><exclude body1="torso" body2="hand"/><exclude body1="leg" body2="world"/></contact>)"),
              "aba")
          .dump());
  names = contact_names(x.model);
  std::sort(names.begin(), names.end());
  std::vector<std::string> left;
  for (const std::string& n : sorted)
    if (n != "contact torso[geom chest] hand[geom palm]" && n != "contact ground leg[geom shin]") left.push_back(n);
  EXPECT_EQ(names, left);
}

TEST(MjcfContact, WarningsAndErrorsNameTheElement) {
  TempDir t;
  const MjcfModel m = import_mjcf(std::string(R"(<mujoco><worldbody><body name="b"><freejoint/>
      <geom name="egg" type="ellipsoid" size="0.1 0.2 0.3"/>
      <geom name="ghost" type="ellipsoid" size="0.1 0.2 0.3" contype="0" conaffinity="0"/>
      <geom name="ball" type="sphere" size="0.1" friction="0.5"/></body></worldbody>
      <contact><pair geom1="egg" geom2="ball"/></contact></mujoco>)"),
                                  "egg.xml");
  std::string all;
  for (const std::string& w : m.model.warnings) all += w + "\n";
  EXPECT_NE(all.find("geom[egg]"), std::string::npos) << all;
  EXPECT_NE(all.find("not a contact shape"), std::string::npos) << all;
  EXPECT_EQ(all.find("geom[ghost]: <geom type"), std::string::npos) << all;  // visual: no contact warning
  EXPECT_NE(all.find("<geom friction>"), std::string::npos) << all;
  EXPECT_NE(all.find("<contact><pair>"), std::string::npos) << all;
  ASSERT_EQ(m.model.link_collisions.size(), 1u);
  EXPECT_EQ(m.model.link_collisions[0].label, "b[geom ball]");

  auto import_error = [](const std::string& xml) {
    try {
      import_mjcf(xml, "bad.xml");
    } catch (const MjcfError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string what = import_error(R"(<mujoco><worldbody><body name="b"><freejoint/><geom type="sphere" size="0.1"/></body>
      </worldbody><contact><exclude body1="b" body2="nobody"/></contact></mujoco>)");
  EXPECT_NE(what.find("body2"), std::string::npos) << what;
  EXPECT_NE(what.find("nobody"), std::string::npos) << what;

  what = import_error(R"(<mujoco><worldbody><body name="b"><freejoint/>
      <geom type="sphere" size="0.1" shellinertia="true"/></body></worldbody></mujoco>)");
  EXPECT_NE(what.find("shellinertia"), std::string::npos) << what;
  // MuJoCo's contype is an int bit mask: -1 sets every bit.
  const MjcfModel all_bits = import_mjcf(std::string(R"(<mujoco><worldbody><body name="b"><freejoint/>
      <geom type="sphere" size="0.1" contype="-1"/></body></worldbody></mujoco>)"),
                                         "bits.xml");
  ASSERT_EQ(all_bits.model.link_collisions.size(), 1u);
  EXPECT_EQ(all_bits.model.link_collisions[0].contype, 0xFFFFFFFFLL);

  // A file whose geoms are all visual or unsupported: robot.urdf_collision says so.
  const std::string file = (t.dir / "egg_only.xml").string();
  std::ofstream(file) << R"(<mujoco><worldbody><body name="b"><freejoint/>
      <geom type="ellipsoid" size="0.1 0.2 0.3"/></body></worldbody></mujoco>)";
  const json doc = {{"name", "egg"},
                    {"robot", {{"mjcf", file}, {"urdf_collision", true}}},
                    {"contact", contact_section()},
                    {"solver", {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 0.01}}}};
  EXPECT_EQ(error_path(doc, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("MJCF"), std::string::npos) << what;
}

TEST(MjcfContact, ABodyWeldedToTheWorldBeforeTheFreeBodyStaysOnTheWorld) {
  // The wall comes before the free body in the file: its box is the world's (left out with
  // a warning), not the floating base's, and robot.collision cannot name it.
  TempDir t;
  const std::string file = (t.dir / "wall.xml").string();
  std::ofstream(file) << R"(<mujoco><worldbody>
      <body name="wall" pos="1 0 0"><geom type="box" size="0.1 1 1"/></body>
      <body name="ball" pos="0 0 1"><freejoint/><geom name="b" type="sphere" size="0.1"/></body>
    </worldbody></mujoco>)";
  json doc = {{"name", "wall"},
              {"robot", {{"mjcf", file}, {"urdf_collision", true}}},
              {"contact", contact_section()},
              {"solver", {{"type", "aba"}, {"dt", 1e-3}, {"t_end", 0.01}}}};
  const Scene s = parse_scene(doc.dump());
  EXPECT_EQ(contact_names(s.model), std::vector<std::string>{"contact ground ball[geom b]"});
  doc["robot"]["collision"] = {{"wall", {{"type", "sphere"}, {"radius", 0.1}}}};
  std::string what;
  EXPECT_EQ(error_path(doc, &what), "/robot/collision/wall");
  EXPECT_NE(what.find("fixed to the world"), std::string::npos) << what;
}

/// The base height and the ground pairs' summed normal force after `T` seconds.
struct Rest {
  double z = 0, normal = 0;
};
Rest drop_box(const std::string& file, const std::string& solver, double T) {
  const json doc = {{"name", "box"},
                    {"robot",
                     {{"mjcf", file},
                      {"urdf_collision", true},
                      {"base", {{"position", {0, 0, 0.06}}, {"orientation", {std::cos(0.05), std::sin(0.05), 0, 0}}}}}},
                    {"contact", contact_section()},
                    {"solver", {{"type", solver}, {"dt", 2e-4}, {"t_end", T}, {"integrator", "rk4"}}}};
  SimulatorOptions options;
  options.backend = "cpu";
  options.threads = 1;
  const std::unique_ptr<Simulator> sim = Simulator::create({parse_scene(doc.dump()).model}, options, 1);
  sim->advance(static_cast<int>(std::lround(T / 2e-4)));
  std::vector<double> rec(static_cast<std::size_t>(13 * sim->model().n_bodies()));
  sim->read_states(rec.data());  // per body r, p, v, omega_B; the free box is body 0
  std::vector<std::int8_t> status(1);
  std::vector<double> when(1);
  sim->read_status(status.data(), when.data());
  EXPECT_EQ(status[0], 0) << solver << " at t = " << when[0];
  Rest r;
  r.z = rec[2];
  std::vector<double> f(static_cast<std::size_t>(kContactSummaryComponents) * contact_names(sim->model()).size());
  sim->contact_frames(rec.data(), f.data());  // per pair: normal, friction, penetration, count
  for (std::size_t k = 0; k < f.size(); k += kContactSummaryComponents) r.normal += f[k];
  return r;
}

TEST(MjcfContact, ADroppedBoxRestsOnItsCornersInBothCoordinates) {
  TempDir t;
  // A 0.2 x 0.1 x 0.05 m box of 1.2 kg (density 1200) dropped tilted from 6 cm: at rest
  // the ground carries M g, its centre 2.5 cm up less the spring's M g / (4 K) per corner.
  const std::string file = (t.dir / "box.xml").string();
  std::ofstream(file) << R"(<mujoco><worldbody><body name="crate"><freejoint/>
      <geom type="box" size="0.1 0.05 0.025" density="1200"/></body></worldbody></mujoco>)";
  const double M = 1200 * 0.2 * 0.1 * 0.05, g = 9.81;
  const Rest aba = drop_box(file, "aba", 1.0), dae = drop_box(file, "dae", 1.0);
  for (const Rest& r : {aba, dae}) {
    EXPECT_NEAR(r.normal, M * g, 1e-3 * M * g);
    EXPECT_NEAR(r.z, 0.025 - M * g / 4e5, 1e-6);
  }
  EXPECT_NEAR(aba.z, dae.z, 1e-9);
}

}  // namespace
}  // namespace simphant
