// Contact on URDF robots (docs/robots.md, "Contact"; docs/contact.md, "Contact in the
// DAE"): robot.collision puts shapes on links, in the URDF link frame, links merged by
// fixed joints included; the runs here are in maximal coordinates (solver type "dae"),
// those in joint coordinates in test_robot_contact_joint_space.cpp.
//  - placement: the shapes' world poses at the initial state equal the URDF's forward
//    kinematics written out by hand (base pose, joint origin, joint rotation, the fixed
//    joint's transform, the shape's origin), to rounding;
//  - robot.urdf_collision: the URDF's own sphere, box and cylinder <collision> elements
//    at the same poses, a mesh as the box bounding its vertices (scaled, at its origin),
//    touching the ground only; ANYmal B's 41; Solo-12's meshes as boxes;
//  - errors name their JSON pointer: unknown and world-fixed links, contact without
//    shapes, a URDF shape of size 0, a URDF without <collision>, a mesh file missing,
//    unreadable or under an unknown package://, a missing "default" material (an MJCF
//    robot's geoms: test_mjcf_contact.cpp);
//  - Solo-12 (example-robot-data) with a sphere on each foot, its joints held by position
//    servos, set down on the ground: after 0.5 s the four feet carry its weight (sum of
//    K delta = M g, linear law), it moves no faster than the regularised friction's creep,
//    and the run equals the one at dt / 2 to 1e-6: the load-time check's friction
//    warning (the whole weight on one foot) is on the safe side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "robot_data.hpp"
#include "robot_joint_test_data.hpp"
#include "solo12_scene.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/contact_stability.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/reduced/spatial.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/urdf/urdf_mesh.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
using robot_test::error_path;
using robot_test::TempDir;

// A floating torso with one leg: hip (revolute about y, origin 5 cm below the torso
// frame), the leg's CoM 15 cm down, a foot fixed 30 cm down, 2 cm forward, rolled 0.3 rad.
const char* kLeg = R"(<robot name="leg">
  <link name="torso"><inertial><origin xyz="0.01 0 0.02"/><mass value="2"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial></link>
  <joint name="hip" type="revolute"><parent link="torso"/><child link="leg"/>
    <origin xyz="0 0 -0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="10"/></joint>
  <link name="leg"><inertial><origin xyz="0 0 -0.15"/><mass value="0.5"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0005"/></inertial></link>
  <joint name="ankle" type="fixed"><parent link="leg"/><child link="foot"/><origin xyz="0.02 0 -0.3" rpy="0.3 0 0"/></joint>
  <link name="foot"><inertial><mass value="0.1"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial></link>
</robot>)";

json leg_doc(const std::string& urdf, double hip) {
  return {{"name", "leg"},
          {"robot",
           {{"urdf", urdf},
            {"floating_base", true},
            {"q0", {hip}},
            {"base", {{"position", {0.1, -0.2, 0.6}}, {"orientation", {std::cos(0.2), 0, 0, std::sin(0.2)}}}},
            {"collision",
             {{"foot", {{"type", "sphere"}, {"radius", 0.03}, {"origin", {{"position", {0.01, 0.005, 0}}}}}},
              {"torso", {{"type", "box"}, {"size", {0.2, 0.1, 0.05}}, {"origin", {{"position", {0, 0, 0.03}}}}}}}}}},
          {"contact", {{"ground", json::object()}, {"materials", {{"default", {{"stiffness", 1e5}, {"exponent", 1}, {"restitution", 0.5}}}}}}},
          {"solver", {{"type", "dae"}, {"dt", 1e-4}, {"t_end", 0.1}}}};
}

Mat3d rot_z(double a) { return {{{std::cos(a), -std::sin(a), 0}, {std::sin(a), std::cos(a), 0}, {0, 0, 1}}}; }
Mat3d rot_y(double a) { return {{{std::cos(a), 0, std::sin(a)}, {0, 1, 0}, {-std::sin(a), 0, std::cos(a)}}}; }
Mat3d rot_x(double a) { return {{{1, 0, 0}, {0, std::cos(a), -std::sin(a)}, {0, std::sin(a), std::cos(a)}}}; }
using spatial_detail::m3_mul;

/// The contact elements of a model, in model order.
std::vector<const ForceElement*> contact_pairs(const Model& model) {
  std::vector<const ForceElement*> pairs;
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact) pairs.push_back(&f);
  return pairs;
}

/// The leg robot's frames in W by hand at hip angle `hip` (leg_doc's base pose): the
/// torso B, the leg L (hip 5 cm below B, turning about y) and the foot F (fixed 30 cm
/// down and 2 cm forward on the leg, rolled 0.3 rad about x).
struct LegFrames {
  Mat3d R_B, R_leg, R_foot;
  Vec3d p_B, p_leg, p_foot;
  explicit LegFrames(double hip) {
    R_B = rot_z(0.4);
    p_B = {0.1, -0.2, 0.6};
    R_leg = m3_mul(R_B, rot_y(hip));
    p_leg = p_B + mul(R_B, Vec3d{0, 0, -0.05});
    R_foot = m3_mul(R_leg, rot_x(0.3));
    p_foot = p_leg + mul(R_leg, Vec3d{0.02, 0, -0.3});
  }
};

/// World pose of shape_j of contact element f at state Y.
ShapePose<double> shape_j_W(const Model& model, const ForceElement& f, const double* Y) {
  return shape_pose_W(f.shape_j, state_r(Y, f.body_j), state_p(Y, f.body_j));
}

TEST(RobotContact, ShapesSitWhereTheUrdfKinematicsPutsThem) {
  TempDir t;
  const std::string file = (t.dir / "leg.urdf").string();
  std::ofstream(file) << kLeg;
  const double hip = 0.4;
  const Scene s = parse_scene(leg_doc(file, hip).dump());
  const Model& model = s.model;
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  // Ground pairs first, in body order: the torso's box (body 0), then the foot's sphere on
  // the leg (body 1, with the foot merged in); then the box against the sphere.
  const std::vector<const ForceElement*> pairs = contact_pairs(model);
  ASSERT_EQ(pairs.size(), 2u) << "torso and leg share the hip joint: no pair between them";
  EXPECT_EQ(pairs[0]->name, "contact ground torso[0]");
  EXPECT_EQ(pairs[1]->name, "contact ground foot[0]");
  // By hand: the sphere 1 cm / 5 mm into the foot frame, the box 3 cm above the torso's.
  const LegFrames f(hip);
  const Mat3d& R_B = f.R_B;
  const Mat3d& R_foot = f.R_foot;
  const Vec3d sphere = f.p_foot + mul(f.R_foot, Vec3d{0.01, 0.005, 0});
  const Vec3d box = f.p_B + mul(f.R_B, Vec3d{0, 0, 0.03});
  const ShapePose<double> foot_W = shape_j_W(model, *pairs[1], Y.data());
  const ShapePose<double> box_W = shape_j_W(model, *pairs[0], Y.data());
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(foot_W.pos_W[c], sphere[c], 1e-14) << c;
    EXPECT_NEAR(box_W.pos_W[c], box[c], 1e-14) << c;
    for (int r = 0; r < 3; ++r) {
      EXPECT_NEAR(foot_W.rot_W.m[r][c], R_foot.m[r][c], 1e-14) << r << c;
      EXPECT_NEAR(box_W.rot_W.m[r][c], R_B.m[r][c], 1e-14) << r << c;
    }
  }
  EXPECT_EQ(pairs[1]->shape_j.kind, ShapeKind::Sphere);
  EXPECT_EQ(pairs[1]->shape_j.size[0], 0.03);
}

TEST(RobotContact, ErrorsNameTheField) {
  TempDir t;
  const std::string file = (t.dir / "leg_errors.urdf").string();
  std::ofstream(file) << kLeg;
  std::string what;
  json d = leg_doc(file, 0.1);
  d["robot"]["collision"]["shin"] = {{"type", "sphere"}, {"radius", 0.01}};
  EXPECT_EQ(error_path(d, &what), "/robot/collision/shin");
  EXPECT_NE(what.find("unknown link \"shin\""), std::string::npos) << what;
  EXPECT_NE(what.find("torso, leg"), std::string::npos) << what;
  d = leg_doc(file, 0.1);
  d["robot"]["collision"]["foot"]["radius"] = -1;
  EXPECT_EQ(error_path(d, &what), "/robot/collision/foot/radius");
  d = leg_doc(file, 0.1);
  d["solver"]["type"] = "aba";  // joint coordinates take the same pairs (test_robot_contact_joint_space.cpp)
  EXPECT_EQ(contact_pairs(parse_scene(d.dump()).model).size(), 2u);
  d = leg_doc(file, 0.1);
  d["robot"].erase("collision");
  EXPECT_EQ(error_path(d, &what), "/contact");
  EXPECT_NE(what.find("give robot.collision"), std::string::npos) << what;
  d = leg_doc(file, 0.1);
  d["robot"]["floating_base"] = false;  // the torso is the fixed base: welded to W
  d["robot"].erase("base");
  EXPECT_EQ(error_path(d, &what), "/robot/collision/torso");
  EXPECT_NE(what.find("fixed to the world"), std::string::npos) << what;
}

// The same robot with its shapes in the URDF: a box on the torso (rotated), a cylinder on
// the leg and a sphere on the foot (merged into the leg by the fixed ankle), plus a mesh on
// the leg, scaled and turned (leg.stl beside the URDF: write_leg_stl).
const char* kLegWithCollisions = R"(<robot name="leg">
  <link name="torso"><inertial><origin xyz="0.01 0 0.02"/><mass value="2"/>
    <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.04"/></inertial>
    <collision><origin xyz="0 0 0.03" rpy="0 0 0.5"/><geometry><box size="0.2 0.1 0.05"/></geometry></collision></link>
  <joint name="hip" type="revolute"><parent link="torso"/><child link="leg"/>
    <origin xyz="0 0 -0.05"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="10"/></joint>
  <link name="leg"><inertial><origin xyz="0 0 -0.15"/><mass value="0.5"/>
    <inertia ixx="0.004" ixy="0" ixz="0" iyy="0.004" iyz="0" izz="0.0005"/></inertial>
    <collision><origin xyz="0 0 -0.15"/><geometry><cylinder radius="0.02" length="0.3"/></geometry></collision>
    <collision><origin xyz="0.01 0 -0.1" rpy="0 0.2 0"/><geometry><mesh filename="leg.stl" scale="1 2 -1"/></geometry></collision></link>
  <joint name="ankle" type="fixed"><parent link="leg"/><child link="foot"/><origin xyz="0.02 0 -0.3" rpy="0.3 0 0"/></joint>
  <link name="foot"><inertial><mass value="0.1"/>
    <inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><origin xyz="0.01 0.005 0"/><geometry><sphere radius="0.03"/></geometry></collision></link>
</robot>)";

/// A tetrahedron as an ASCII STL file: vertices (0.02, -0.01, 0), (0.06, -0.01, 0),
/// (0.02, 0.03, 0), (0.02, -0.01, -0.2) [m], so its bounding box runs from
/// (0.02, -0.01, -0.2) to (0.06, 0.03, 0).
void write_leg_stl(const std::filesystem::path& file) {
  const double v[4][3] = {{0.02, -0.01, 0}, {0.06, -0.01, 0}, {0.02, 0.03, 0}, {0.02, -0.01, -0.2}};
  const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  std::ofstream o(file);
  o << "solid leg\n";
  for (const auto& f : faces) {
    o << " facet normal 0 0 0\n  outer loop\n";
    for (int k : f) o << "   vertex " << v[k][0] << " " << v[k][1] << " " << v[k][2] << "\n";
    o << "  endloop\n endfacet\n";
  }
  o << "endsolid leg\n";
}

TEST(RobotContact, MeshBoundsAreInTheFilesOwnAxes) {
  // The tetrahedron of write_leg_stl as STL and as a Collada file marked Z_UP: the same
  // bounds (Assimp would turn a Z_UP file by -90 degrees about x; the URDF means the
  // file's own axes, as RViz draws them).
  TempDir t;
  write_leg_stl(t.dir / "leg.stl");
  std::ofstream(t.dir / "leg.dae") << R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="12">0.02 -0.01 0 0.06 -0.01 0 0.02 0.03 0 0.02 -0.01 -0.2</float_array>
      <technique_common><accessor source="#pa" count="4" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles count="4"><input semantic="VERTEX" source="#v" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s"><node id="n"><instance_geometry url="#g"/></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>)";
  const MeshBounds stl = mesh_bounds((t.dir / "leg.stl").string()), dae = mesh_bounds((t.dir / "leg.dae").string());
  const Vec3d lower{0.02, -0.01, -0.2}, upper{0.06, 0.03, 0};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(stl.lower[k], lower[k], 1e-8) << k;
    EXPECT_NEAR(stl.upper[k], upper[k], 1e-8) << k;
    EXPECT_NEAR(dae.lower[k], lower[k], 1e-8) << k;
    EXPECT_NEAR(dae.upper[k], upper[k], 1e-8) << k;
  }
  EXPECT_THROW(mesh_bounds((t.dir / "none.stl").string()), std::runtime_error);
}

TEST(RobotContact, UrdfCollisionPrimitivesSitWhereTheUrdfPutsThem) {
  TempDir t;
  const std::string file = (t.dir / "leg_collisions.urdf").string();
  std::ofstream(file) << kLegWithCollisions;
  write_leg_stl(t.dir / "leg.stl");
  const double hip = 0.4;
  json doc = leg_doc(file, hip);
  doc["robot"].erase("collision");
  doc["robot"]["urdf_collision"] = true;
  const Scene s = parse_scene(doc.dump());
  const Model& model = s.model;
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  const std::vector<const ForceElement*> pairs = contact_pairs(model);
  // conaffinity 0: each touches the ground only. Body order: the torso's box, then the
  // leg's cylinder, the box bounding the leg's mesh and the foot's sphere.
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0]->name, "contact ground torso[urdf 0]");
  EXPECT_EQ(pairs[1]->name, "contact ground leg[urdf 0]");
  EXPECT_EQ(pairs[2]->name, "contact ground leg[urdf 1]");
  EXPECT_EQ(pairs[3]->name, "contact ground foot[urdf 0]");
  EXPECT_EQ(pairs[0]->shape_j.kind, ShapeKind::Box);
  EXPECT_EQ(pairs[1]->shape_j.kind, ShapeKind::Cylinder);
  EXPECT_EQ(pairs[2]->shape_j.kind, ShapeKind::Box);
  EXPECT_EQ(pairs[3]->shape_j.kind, ShapeKind::Sphere);
  // The mesh's box: half edges scale |s| (upper - lower) / 2 = (0.02, 0.04, 0.1); its
  // centre s (upper + lower) / 2 = (0.04, 0.02, 0.1) in the mesh's frame.
  const double half[3] = {0.02, 0.04, 0.1};
  // Assimp holds the vertices in single precision: 0.2 m to 1.5e-8 m (its ulp), so 3e-8.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(pairs[2]->shape_j.size[k], half[k], 3e-8) << k;
  for (int k = 0; k < 3; ++k) EXPECT_EQ(pairs[0]->shape_j.size[k], (k == 0 ? 0.1 : k == 1 ? 0.05 : 0.025));
  EXPECT_EQ(pairs[1]->shape_j.size[0], 0.02);
  EXPECT_EQ(pairs[1]->shape_j.size[1], 0.15);
  EXPECT_EQ(pairs[3]->shape_j.size[0], 0.03);
  // By hand; the box turned by 0.5 about the torso's z.
  const LegFrames f(hip);
  const struct {
    Vec3d pos;
    Mat3d rot;
  } expected[4] = {{f.p_B + mul(f.R_B, Vec3d{0, 0, 0.03}), m3_mul(f.R_B, rot_z(0.5))},
                   {f.p_leg + mul(f.R_leg, Vec3d{0, 0, -0.15}), f.R_leg},
                   {f.p_leg + mul(f.R_leg, Vec3d{0.01, 0, -0.1} + mul(rot_y(0.2), Vec3d{0.04, 0.02, 0.1})),
                    m3_mul(f.R_leg, rot_y(0.2))},
                   {f.p_foot + mul(f.R_foot, Vec3d{0.01, 0.005, 0}), f.R_foot}};
  for (int k = 0; k < 4; ++k) {
    const ShapePose<double> W = shape_j_W(model, *pairs[static_cast<std::size_t>(k)], Y.data());
    // The mesh's box from the single-precision vertices: within 3e-8 m.
    const double tol = k == 2 ? 3e-8 : 1e-14;
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(W.pos_W[c], expected[k].pos[c], tol) << k << " " << c;
      for (int r = 0; r < 3; ++r) EXPECT_NEAR(W.rot_W.m[r][c], expected[k].rot.m[r][c], 1e-14) << k << r << c;
    }
  }
  // robot.collision adds to them: a second sphere on the foot.
  doc["robot"]["collision"] = {{"foot", {{"type", "sphere"}, {"radius", 0.01}}}};
  EXPECT_EQ(parse_scene(doc.dump()).model.forces.size(), model.forces.size() + 1);
}

TEST(RobotContact, UrdfCollisionErrorsNameTheField) {
  TempDir t;
  const std::string file = (t.dir / "leg_collision_errors.urdf").string();
  std::ofstream(file) << kLegWithCollisions;
  write_leg_stl(t.dir / "leg.stl");
  std::string what;
  json d = leg_doc(file, 0.1);
  d["robot"].erase("collision");
  d["robot"]["urdf_collision"] = true;
  json e = d;
  e["robot"]["urdf_collision"] = 1;
  EXPECT_EQ(error_path(e, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("must be a boolean"), std::string::npos) << what;
  e = d;
  e["contact"]["materials"] = {{"steel", {{"stiffness", 1e5}, {"exponent", 1}, {"restitution", 0.5}}}};
  EXPECT_EQ(error_path(e, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("\"default\""), std::string::npos) << what;
  e = d;
  e.erase("contact");
  EXPECT_EQ(error_path(e, &what), "/contact");
  EXPECT_NE(what.find("/robot/urdf_collision gives collision shapes"), std::string::npos) << what;
  // A zero radius, and a URDF whose only shapes are meshes.
  std::string bad = kLegWithCollisions;
  const std::string radius = "sphere radius=\"0.03\"";
  bad.replace(bad.find(radius), radius.size(), "sphere radius=\"0.0\"");
  const std::string bad_file = (t.dir / "leg_zero.urdf").string();
  std::ofstream(bad_file) << bad;
  e = d;
  e["robot"]["urdf"] = bad_file;
  EXPECT_EQ(error_path(e, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("link 'foot' <collision> 0"), std::string::npos) << what;
  const std::string mesh_file = (t.dir / "leg_mesh_only.urdf").string();
  std::ofstream(mesh_file) << kLeg;  // no <collision> at all
  e = d;
  e["robot"]["urdf"] = mesh_file;
  EXPECT_EQ(error_path(e, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("no collision shape on a moving link (URDF: <collision>"), std::string::npos) << what;
  // A mesh file that is not there, and one that is no mesh (files are read once per
  // process: each case has its own names).
  const auto with_mesh = [&](const std::string& mesh_name) {
    std::string text = kLegWithCollisions;
    text.replace(text.find("\"leg.stl\""), 9, "\"" + mesh_name + "\"");
    const std::string urdf = (t.dir / ("leg_" + mesh_name + ".urdf")).string();
    std::ofstream(urdf) << text;
    json out = d;
    out["robot"]["urdf"] = urdf;
    return out;
  };
  EXPECT_EQ(error_path(with_mesh("missing.stl"), &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("link 'leg' <collision> 1 mesh \"missing.stl\""), std::string::npos) << what;
  EXPECT_NE(what.find("no such file"), std::string::npos) << what;
  std::ofstream(t.dir / "garbage.stl") << "not a mesh\n";
  EXPECT_EQ(error_path(with_mesh("garbage.stl"), &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("not read as a mesh"), std::string::npos) << what;
  // A package:// name found as a folder of that name above the URDF; one that names no file.
  std::filesystem::create_directories(t.dir / "legpkg" / "urdf");
  std::filesystem::create_directories(t.dir / "legpkg" / "meshes");
  write_leg_stl(t.dir / "legpkg" / "meshes" / "leg.stl");
  std::string pkg = kLegWithCollisions;
  pkg.replace(pkg.find("\"leg.stl\""), 9, "\"package://legpkg/meshes/leg.stl\"");
  std::ofstream(t.dir / "legpkg" / "urdf" / "leg.urdf") << pkg;
  e = d;
  e["robot"]["urdf"] = (t.dir / "legpkg" / "urdf" / "leg.urdf").string();
  EXPECT_EQ(contact_pairs(parse_scene(e.dump()).model).size(), 4u);
  const std::string found = "package://legpkg/meshes/leg.stl";
  pkg.replace(pkg.find(found), found.size(), "package://nopkg/meshes/none.stl");
  std::ofstream(t.dir / "legpkg" / "urdf" / "leg_nopkg.urdf") << pkg;
  e["robot"]["urdf"] = (t.dir / "legpkg" / "urdf" / "leg_nopkg.urdf").string();
  EXPECT_EQ(error_path(e, &what), "/robot/urdf_collision");
  EXPECT_NE(what.find("names no file"), std::string::npos) << what;
}

TEST(RobotContact, AnymalTakesItsUrdfShapes) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  // ANYmal B's simple description: boxes, cylinders and four foot spheres.
  const json doc = {{"name", "anymal"},
                    {"robot",
                     {{"urdf", "example-robot-data:anymal_b_simple_description/robots/anymal.urdf"},
                      {"floating_base", true},
                      {"base", {{"position", {0, 0, 0.6}}}},
                      {"urdf_collision", true}}},
                    {"contact",
                     {{"ground", json::object()},
                      {"materials", {{"default", {{"stiffness", 1e5}, {"exponent", 1}, {"restitution", 0.3}}}}}}},
                    {"solver", {{"type", "dae"}, {"dt", 1e-4}, {"t_end", 0.01}}}};
  const Scene s = parse_scene(doc.dump());
  int kinds[kShapeKinds] = {0, 0, 0, 0, 0};
  for (const ForceElement& f : s.model.forces)
    if (f.type == ForceType::Contact) {
      EXPECT_EQ(f.body_i, kGround) << f.name;
      ++kinds[static_cast<int>(f.shape_j.kind)];
    }
  // The URDF's counts: 4 spheres, 13 boxes, 24 cylinders (none on a link fixed to the world).
  EXPECT_EQ(kinds[static_cast<int>(ShapeKind::Sphere)], 4);
  EXPECT_EQ(kinds[static_cast<int>(ShapeKind::Box)], 13);
  EXPECT_EQ(kinds[static_cast<int>(ShapeKind::Cylinder)], 24);
}

/// Solo-12 standing in maximal coordinates (tests/solo12_scene.hpp).
json solo_doc(double base_z, double dt = 2e-4, double v_eps = 0.01) { return test::solo12_doc("dae", base_z, dt, v_eps); }

/// The state after `T` seconds of the scene with the CPU reference's RK4.
std::vector<double> run_for(const Model& model, double T) {
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  assemble(model, d, Y.data());
  double t = 0;
  const int steps = static_cast<int>(std::lround(T / model.solver.dt));
  for (int k = 0; k < steps; ++k) {
    EXPECT_TRUE(rk4_step(model, d, t, Y.data(), nullptr, model.solver.dt)) << "step " << k;
    t += model.solver.dt;
  }
  return Y;
}

TEST(RobotContact, Solo12StandsOnFourFeetThatCarryItsWeight) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const double v_eps = 0.01, T = 0.5;
  // Set the feet 2 mm above the ground: their lowest centre at the base height 0.5.
  double lowest = 1e9;
  {
    const Scene probe = parse_scene(solo_doc(0.5).dump());
    std::vector<double> Y(probe.model.ny());
    initial_state(probe.model, Y.data());
    for (const ForceElement& f : probe.model.forces)
      if (f.type == ForceType::Contact && f.body_i == kGround)
        lowest = std::min(lowest, shape_j_W(probe.model, f, Y.data()).pos_W[2]);
  }
  const double z0 = 0.5 - lowest + 0.016 + 0.002;
  const json doc = solo_doc(z0, 1e-4, v_eps);
  const Scene s = parse_scene(doc.dump());
  const Model& model = s.model;
  int pairs = 0;
  for (const ForceElement& f : model.forces)
    if (f.type == ForceType::Contact) {
      ++pairs;
      EXPECT_EQ(f.body_i, kGround) << f.name << ": feet have conaffinity 0, they touch the ground only";
    }
  EXPECT_EQ(pairs, 4);
  // The step check: no refusal; it warns of the feet's friction only (it puts the whole
  // weight on one foot, and the inverse mass is a bound), which the run at dt / 2 shows
  // to be on the safe side here.
  const StabilityCheck check = check_step_stability({model}, doc);
  EXPECT_EQ(check.refused_field, "") << check.refused_reason;
  EXPECT_EQ(check.warnings.size(), 4u);  // one per foot
  for (const std::string& w : check.warnings)
    EXPECT_EQ(w.rfind("/contact/materials/default/slip_speed: friction of 'contact ground ", 0), 0u) << w;
  const std::vector<double> Y = run_for(model, T);
  const std::vector<double> Y_half = run_for(parse_scene(solo_doc(z0, 5e-5, v_eps).dump()).model, T);
  double M = 0, speed = 0, load = 0;
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k) {
    M += model.bodies[static_cast<std::size_t>(k)].mass;
    speed = std::max(speed, norm(state_v(Y.data(), N, k)));
  }
  for (const ForceElement& f : model.forces) {
    if (f.type != ForceType::Contact) continue;
    const double delta = 0.016 - shape_j_W(model, f, Y.data()).pos_W[2];
    EXPECT_GT(delta, 0) << f.name << ": not touching";
    load += f.contact.normal.stiffness * std::max(delta, 0.0);
  }
  // The regularised friction lets the splayed feet creep (no stiction, docs/contact.md
  // "Friction"): below the creep bound 0.58 v_eps of a tangential load under mu / 2.
  EXPECT_LT(speed, 0.58 * v_eps) << "base height " << state_r(Y.data(), 0)[2];
  // Quasi-static: the damping term is proportional to the creeping rate, so the feet's
  // K delta carry M g (measured error below 1e-4 of the weight).
  EXPECT_NEAR(load / (M * std::abs(model.gravity.z)), 1.0, 1e-3);
  for (int k = 0; k < 7 * N; ++k) EXPECT_NEAR(Y[k], Y_half[k], 1e-6) << "coordinate " << k;
}

TEST(RobotContact, Solo12StandsOnTheBoxesOfItsMeshCollisions) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  // Solo-12's own <collision> elements are 17 STL meshes (base, shoulders, legs, feet):
  // with robot.urdf_collision each becomes the box bounding its vertices. Set down from
  // the standing pose 0.26 m up, servos holding it, after 0.5 s it stands on its four
  // foot boxes, which carry its weight; nothing else touches the ground.
  json doc = solo_doc(0.26, 1e-4);
  doc["robot"].erase("collision");
  doc["robot"]["urdf_collision"] = true;
  const Model model = parse_scene(doc.dump()).model;
  const std::vector<const ForceElement*> pairs = contact_pairs(model);
  ASSERT_EQ(pairs.size(), 17u);
  for (const ForceElement* f : pairs) EXPECT_EQ(f->shape_j.kind, ShapeKind::Box) << f->name;
  const std::vector<double> Y = run_for(model, 0.5);
  const int N = model.n_bodies();
  std::vector<double> rec(static_cast<std::size_t>(13 * N));
  state_to_record(Y.data(), N, rec.data());
  double M = 0;
  for (int k = 0; k < N; ++k) M += model.bodies[static_cast<std::size_t>(k)].mass;
  std::vector<double> out(pairs.size() * kContactRecordComponents);
  contact_frames({model}, 1, rec.data(), out.data());
  double load = 0;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const double fn = out[p * kContactRecordComponents];
    const bool foot = pairs[p]->name.find("_FOOT[") != std::string::npos;
    if (foot) EXPECT_GT(fn, 0) << pairs[p]->name;
    else EXPECT_EQ(fn, 0) << pairs[p]->name << ": only the feet touch the ground";
    load += fn;
  }
  // Measured 24.517 N against M g = 24.525 N (quasi-static after 0.5 s, as the spheres).
  EXPECT_NEAR(load, M * 9.81, 1e-2 * M * 9.81);
}

}  // namespace
}  // namespace simphant
