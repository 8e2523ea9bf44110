// The scene keys of contact (docs/scene-format.md, "Contact"): bodies[k].collision and the
// contact section compile into one ForceType::Contact element per pair of shapes, with
// the right bodies, shapes (MuJoCo-style half sizes, poses in B), ground plane, filters,
// exclusions and combined pair parameters; every bad input is a SceneError naming its
// JSON pointer; a sweep over a shape or material value changes each instance's pair.
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "simphant/contact/contact_law.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

/// Three bodies: a ball (sphere), a block (box turned about z, and a rubber capsule) and an
/// arm (cylinder) hinged to the block, so that the unsupported cylinder-box pair
/// is excluded by the joint.
json base_scene() {
  return json::parse(R"({
    "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "ball", "mass": 2.0, "inertia": [0.002, 0.002, 0.002], "position": [0, 0, 0.5],
       "collision": {"type": "sphere", "radius": 0.05}},
      {"name": "block", "mass": 3.0, "inertia": [0.1, 0.1, 0.1], "position": [1, 0, 0.5],
       "collision": [
         {"type": "box", "size": [0.2, 0.4, 0.6],
          "origin": {"position": [0.1, 0.2, 0.3], "orientation": [0.9238795325112867, 0, 0, 0.3826834323650898]}},
         {"type": "capsule", "radius": 0.03, "length": 0.2, "material": "rubber"}]},
      {"name": "arm", "mass": 1.0, "inertia": [0.01, 0.01, 0.01], "position": [2, 0, 0.5],
       "collision": {"type": "cylinder", "radius": 0.02, "length": 0.3, "origin": {"position": [0, 0, -0.1]}}}
    ],
    "joints": [
      {"name": "hinge", "type": "revolute", "body_i": "block", "body_j": "arm",
       "frame": {"origin": [1.5, 0, 0.5], "z": [0, 1, 0]}}
    ],
    "forces": [
      {"name": "push", "type": "point_force", "body": "ball", "force": [1, 0, 0]}
    ],
    "contact": {
      "ground": {},
      "materials": {
        "default": {"stiffness": 1e6, "restitution": 0.8, "friction": 0.5},
        "rubber": {"stiffness": 4e5, "restitution": 0.5, "friction": 0.8, "slip_speed": 2e-3,
                   "rolling_friction": 1e-3, "rolling_speed": 0.01}
      }
    },
    "solver": {"dt": 1e-4, "t_end": 0.01}
  })");
}

/// The Contact elements of a model, in order.
std::vector<const ForceElement*> contacts(const Model& m) {
  std::vector<const ForceElement*> out;
  for (const ForceElement& f : m.forces)
    if (f.type == ForceType::Contact) out.push_back(&f);
  return out;
}

std::vector<std::string> contact_names(const Model& m) {
  std::vector<std::string> out;
  for (const ForceElement* f : contacts(m)) out.push_back(f->name);
  return out;
}

const ForceElement& contact_named(const Model& m, const std::string& name) {
  for (const ForceElement* f : contacts(m))
    if (f->name == name) return *f;
  ADD_FAILURE() << "no contact pair \"" << name << "\"";
  static const ForceElement none{};
  return none;
}

/// Expects compile_model(doc) to throw SceneError at `path` with `fragment` in what().
void expect_error(const json& doc, const std::string& path, const std::string& fragment) {
  try {
    compile_model(doc);
    ADD_FAILURE() << "no SceneError; expected one at " << path;
  } catch (const SceneError& e) {
    EXPECT_EQ(e.path(), path) << e.what();
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what << " lacks \"" << fragment << "\"";
  }
}

Vec3d axis_z(const Quatd& q) { return mul(rotation(q), Vec3d{0, 0, 1}); }

void expect_vec_near(const Vec3d& a, const Vec3d& b, double tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

TEST(ContactScene, PairsInOrderWithBodiesAndNames) {
  const Model m = compile_model(base_scene());
  // the scene's own force first, the contact pairs appended after it
  ASSERT_EQ(m.forces.size(), 8u);
  EXPECT_EQ(m.forces[0].name, "push");
  const std::vector<std::string> expected = {
      "contact ground ball[0]",  "contact ground block[0]",  "contact ground block[1]", "contact ground arm[0]",
      "contact ball[0] block[0]", "contact ball[0] block[1]", "contact ball[0] arm[0]"};
  EXPECT_EQ(contact_names(m), expected);  // block-arm: joined by "hinge"
  const std::vector<const ForceElement*> c = contacts(m);
  const int bi[] = {kGround, kGround, kGround, kGround, 0, 0, 0};
  const int bj[] = {0, 1, 1, 2, 1, 1, 2};
  for (std::size_t k = 0; k < c.size(); ++k) {
    EXPECT_EQ(c[k]->body_i, bi[k]) << c[k]->name;
    EXPECT_EQ(c[k]->body_j, bj[k]) << c[k]->name;
  }
  EXPECT_EQ(m.n_inputs, 0);
}

TEST(ContactScene, BodyPairsBeforeShapeOrder) {
  json d = base_scene();
  d["joints"] = json::array();
  d["contact"].erase("ground");
  for (json& b : d["bodies"]) b["collision"] = {{"type", "sphere"}, {"radius", 0.01}};
  d["bodies"][0]["collision"] = json::array({d["bodies"][1]["collision"], d["bodies"][1]["collision"]});
  const std::vector<std::string> expected = {"contact ball[0] block[0]", "contact ball[1] block[0]",
                                             "contact ball[0] arm[0]",   "contact ball[1] arm[0]",
                                             "contact block[0] arm[0]"};
  EXPECT_EQ(contact_names(compile_model(d)), expected);
}

TEST(ContactScene, ShapesHaveHalfSizesAndPosesInTheBodyFrame) {
  const Model m = compile_model(base_scene());
  const ForceElement& ball_box = contact_named(m, "contact ball[0] block[0]");
  EXPECT_EQ(ball_box.shape_i.kind, ShapeKind::Sphere);
  EXPECT_EQ(ball_box.shape_i.size[0], 0.05);
  expect_vec_near(ball_box.shape_i.pos_B, Vec3d{0, 0, 0}, 0);
  EXPECT_EQ(ball_box.shape_i.quat_B.w, 1.0);
  const Shape<double>& box = ball_box.shape_j;
  EXPECT_EQ(box.kind, ShapeKind::Box);
  EXPECT_EQ(box.size[0], 0.1);
  EXPECT_EQ(box.size[1], 0.2);
  EXPECT_EQ(box.size[2], 0.3);
  expect_vec_near(box.pos_B, Vec3d{0.1, 0.2, 0.3}, 0);
  const double s = std::sqrt(0.5);  // 45 degrees about z: x_S -> (s, s, 0) in B
  expect_vec_near(mul(rotation(box.quat_B), Vec3d{1, 0, 0}), Vec3d{s, s, 0}, 1e-15);
  const Shape<double>& capsule = contact_named(m, "contact ball[0] block[1]").shape_j;
  EXPECT_EQ(capsule.kind, ShapeKind::Capsule);
  EXPECT_EQ(capsule.size[0], 0.03);
  EXPECT_EQ(capsule.size[1], 0.1);
  const Shape<double>& cylinder = contact_named(m, "contact ground arm[0]").shape_j;
  EXPECT_EQ(cylinder.kind, ShapeKind::Cylinder);
  EXPECT_EQ(cylinder.size[0], 0.02);
  EXPECT_EQ(cylinder.size[1], 0.15);
  expect_vec_near(cylinder.pos_B, Vec3d{0, 0, -0.1}, 0);
  const ForceElement& ground_ball = contact_named(m, "contact ground ball[0]");
  EXPECT_EQ(ground_ball.shape_i.kind, ShapeKind::Plane);
  expect_vec_near(ground_ball.shape_i.pos_B, Vec3d{0, 0, 0}, 0);
  expect_vec_near(axis_z(ground_ball.shape_i.quat_B), Vec3d{0, 0, 1}, 0);
}

TEST(ContactScene, GroundPlaneTurnsZToItsNormal) {
  const std::vector<Vec3d> normals = {{0, 0, 1},    {0, 0, 5},  {1, 0, 0},     {0, 1, 1},     {-0.3, 0.2, 0.9},
                                      {0, 0, -1},   {0, 0, -3}, {1e-9, 0, -1}, {0.3, -0.2, -0.9},
                                      {-1, 1e-12, 0}, {0, -1, 0}};
  for (const Vec3d& n : normals) {
    json d = base_scene();
    d["contact"]["ground"] = {{"normal", {n.x, n.y, n.z}}, {"point", {0.5, -1, 2}}};
    const Model m = compile_model(d);
    const Shape<double>& plane = contact_named(m, "contact ground ball[0]").shape_i;
    EXPECT_EQ(plane.kind, ShapeKind::Plane);
    const Quatd& q = plane.quat_B;
    EXPECT_NEAR(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z, 1.0, 1e-15);
    expect_vec_near(axis_z(q), (1.0 / norm(n)) * n, 1e-15);
    expect_vec_near(plane.pos_B, Vec3d{0.5, -1, 2}, 0);
  }
  json d = base_scene();
  d["contact"]["ground"] = {{"normal", {0, 0, -1}}};  // exactly -z: a half turn about x
  const Quatd q = contact_named(compile_model(d), "contact ground ball[0]").shape_i.quat_B;
  EXPECT_NEAR(std::fabs(q.x), 1.0, 1e-15);
  EXPECT_NEAR(q.w, 0.0, 1e-15);
}

TEST(ContactScene, WithoutGroundNoGroundPairs) {
  json d = base_scene();
  d["contact"].erase("ground");
  const std::vector<std::string> expected = {"contact ball[0] block[0]", "contact ball[0] block[1]",
                                             "contact ball[0] arm[0]"};
  EXPECT_EQ(contact_names(compile_model(d)), expected);
}

TEST(ContactScene, ContypeConaffinityFilter) {
  json d = base_scene();
  // ball: type 2, affinity 2; the block's box: type 1, affinity 4; ground: type 4, affinity 1
  d["bodies"][0]["collision"]["contype"] = 2;
  d["bodies"][0]["collision"]["conaffinity"] = 2;
  d["bodies"][1]["collision"][0]["conaffinity"] = 4;
  d["contact"]["ground"]["contype"] = 4;
  const Model m = compile_model(d);
  // ground-ball: 4 & 2 = 0 and 2 & 1 = 0: none; ground-box: 4 & 4 (ground's type meets the
  // box's affinity); ground-capsule, ground-arm: 1 & 1 (their type meets the ground's
  // affinity); ball-box: 2 & 4 = 0, 1 & 2 = 0: none; ball-capsule and ball-arm: 2 & 1 = 0,
  // 1 & 2 = 0: none
  const std::vector<std::string> expected = {"contact ground block[0]", "contact ground block[1]",
                                             "contact ground arm[0]"};
  EXPECT_EQ(contact_names(m), expected);
  d["bodies"][0]["collision"]["conaffinity"] = 3;  // the block's types (1) now meet the ball
  const std::vector<std::string> more = {"contact ground block[0]", "contact ground block[1]", "contact ground arm[0]",
                                         "contact ball[0] block[0]", "contact ball[0] block[1]",
                                         "contact ball[0] arm[0]"};
  EXPECT_EQ(contact_names(compile_model(d)), more);
  d["bodies"][0]["collision"]["contype"] = 0;
  d["bodies"][0]["collision"]["conaffinity"] = 0;  // the ball touches nothing
  EXPECT_EQ(contact_names(compile_model(d)), expected);
}

TEST(ContactScene, JointsAndTheExcludeListRemovePairs) {
  json d = base_scene();
  d["joints"].push_back(json::parse(R"({"name": "pin", "type": "spherical", "body_i": "ground", "body_j": "ball",
                                        "frame": {"origin": [0, 0, 0.5], "z": [0, 0, 1]}})"));
  d["contact"]["exclude"] = json::parse(R"([["ball", "arm"], ["block", "ground"]])");
  const std::vector<std::string> expected = {"contact ground arm[0]", "contact ball[0] block[0]",
                                             "contact ball[0] block[1]"};
  EXPECT_EQ(contact_names(compile_model(d)), expected);
}

TEST(ContactScene, PairParametersFromTwoStiffnessMaterials) {
  const Model m = compile_model(base_scene());
  // ball (default) against the block's capsule (rubber)
  const ForceElement& f = contact_named(m, "contact ball[0] block[1]");
  const ContactPairParams<double>& p = f.contact;
  const double K = 2 * 1e6 * 4e5 / (1e6 + 4e5);
  EXPECT_NEAR(p.normal.stiffness, K, 1e-9 * K);
  EXPECT_EQ(p.normal.law, static_cast<int>(NormalLaw::Tsuji));
  EXPECT_EQ(p.normal.exponent, 1.5);
  const double m_eff = 2.0 * 3.0 / (2.0 + 3.0);
  const double zeta = tsuji_damping_ratio(0.5, 1.5);  // min(0.8, 0.5)
  const double D = 2 * zeta * std::sqrt(1.5 * m_eff * K);
  EXPECT_NEAR(p.normal.damping, D, 1e-12 * D);
  const NormalLawParams<double> ref =
      normal_law_params(NormalLaw::Tsuji, p.normal.stiffness, 1.5, 0.5, m_eff, 0.0, 0.0);
  EXPECT_NEAR(p.normal.damping, ref.damping, 1e-14 * ref.damping);
  EXPECT_EQ(p.normal.v_floor, 0.0);
  EXPECT_NEAR(p.friction.mu, std::sqrt(0.5 * 0.8), 1e-15);
  EXPECT_EQ(p.friction.v_eps, 2e-3);
  EXPECT_EQ(p.friction.mu_roll, 0.0);  // sqrt(0 * 1e-3)
  EXPECT_EQ(p.friction.w_eps, 0.01);
  EXPECT_EQ(p.margin, 0.0);

  // equal materials give the material's K; against the ground m* is the body's mass
  const ForceElement& g = contact_named(m, "contact ground ball[0]");
  EXPECT_NEAR(g.contact.normal.stiffness, 1e6, 1e-9);
  const double D_ground = 2 * tsuji_damping_ratio(0.8, 1.5) * std::sqrt(1.5 * 2.0 * 1e6);
  EXPECT_NEAR(g.contact.normal.damping, D_ground, 1e-12 * D_ground);
  EXPECT_NEAR(g.contact.friction.mu, 0.5, 1e-15);
  EXPECT_EQ(g.contact.friction.v_eps, 1e-3);
  EXPECT_EQ(g.contact.friction.w_eps, 1e-3);

  // the rubber capsule against the rubber ground: rolling friction sqrt(1e-3 * 1e-3)
  json d = base_scene();
  d["contact"]["ground"]["material"] = "rubber";
  d["contact"]["margin"] = 0.002;
  const Model m2 = compile_model(d);
  const ForceElement& gc = contact_named(m2, "contact ground block[1]");
  EXPECT_NEAR(gc.contact.friction.mu_roll, 1e-3, 1e-18);
  EXPECT_NEAR(gc.contact.normal.stiffness, 4e5, 1e-9);
  for (const ForceElement* c : contacts(m2)) EXPECT_EQ(c->contact.margin, 0.002) << c->name;
}

TEST(ContactScene, HertzStiffnessFromTwoModuli) {
  json d = base_scene();
  d["bodies"].erase(2);  // the arm's cylinder has no Hertz radius
  d["joints"] = json::array();
  d["bodies"][1]["collision"].erase(0);  // nor box against the ground plane
  d["contact"]["materials"] = json::parse(R"({
      "default": {"youngs_modulus": 2e11, "poisson_ratio": 0.3, "restitution": 0.9},
      "rubber": {"youngs_modulus": 7e10, "poisson_ratio": 0.33, "restitution": 0.7, "exponent": 1.5}})");
  const Model m = compile_model(d);
  const double E_ss = 1.0 / (2 * (1 - 0.09) / 2e11);
  const double E_sa = 1.0 / ((1 - 0.09) / 2e11 + (1 - 0.33 * 0.33) / 7e10);
  // sphere r = 0.05 on the plane: R* = 0.05
  const ForceElement& g = contact_named(m, "contact ground ball[0]");
  const double K_g = 4.0 / 3.0 * E_ss * std::sqrt(0.05);
  EXPECT_NEAR(g.contact.normal.stiffness, K_g, 1e-12 * K_g);
  // sphere r = 0.05 (steel) against capsule r = 0.03 (the second material)
  const ForceElement& sc = contact_named(m, "contact ball[0] block[0]");
  const double K_sc = 4.0 / 3.0 * E_sa * std::sqrt(1.0 / (1 / 0.05 + 1 / 0.03));
  EXPECT_NEAR(sc.contact.normal.stiffness, K_sc, 1e-12 * K_sc);
  const double D = 2 * tsuji_damping_ratio(0.7, 1.5) * std::sqrt(1.5 * 1.2 * K_sc);
  EXPECT_NEAR(sc.contact.normal.damping, D, 1e-12 * D);
  // a sphere against a box face: R* = the sphere's radius (the box kept off the plane)
  d["contact"]["exclude"] = json::parse(R"([["ground", "block"]])");
  d["bodies"][1]["collision"] = json::parse(R"({"type": "box", "size": [0.2, 0.2, 0.2]})");
  const ForceElement sb = contact_named(compile_model(d), "contact ball[0] block[0]");
  const double E_s = 1.0 / (2 * (1 - 0.09) / 2e11);
  EXPECT_NEAR(sb.contact.normal.stiffness, 4.0 / 3.0 * E_s * std::sqrt(0.05), 1e-12 * K_g);
}

TEST(ContactScene, HuntCrossleyAndOtherExponents) {
  json d = base_scene();
  d["contact"]["law"] = "hunt_crossley";
  d["contact"]["reference_speed"] = 2.0;
  const ForceElement f = contact_named(compile_model(d), "contact ball[0] block[1]");
  EXPECT_EQ(f.contact.normal.law, static_cast<int>(NormalLaw::HuntCrossley));
  const double c = hc_damping_for_restitution(0.5) / 2.0;
  EXPECT_NEAR(f.contact.normal.damping, c, 1e-14 * c);

  json lin = base_scene();
  lin["contact"]["materials"]["default"]["exponent"] = 1;
  lin["contact"]["materials"]["rubber"]["exponent"] = 1;
  lin["contact"]["materials"]["rubber"]["restitution"] = 1;  // elastic: no damping
  const Model m = compile_model(lin);
  const ForceElement& g = contact_named(m, "contact ground ball[0]");
  EXPECT_EQ(g.contact.normal.exponent, 1.0);
  const NormalLawParams<double> ref = normal_law_params(NormalLaw::Tsuji, 1e6, 1.0, 0.8, 2.0, 0.0, 0.0);
  EXPECT_NEAR(g.contact.normal.damping, ref.damping, 1e-12 * ref.damping);
  // the linear Tsuji law's restitution in closed form, exp(-zeta (pi - 2 asin zeta) / sqrt(1 - zeta^2))
  const double zeta = g.contact.normal.damping / (2 * std::sqrt(1.0 * 2.0 * 1e6));
  EXPECT_NEAR(std::exp(-zeta * (M_PI - 2 * std::asin(zeta)) / std::sqrt(1 - zeta * zeta)), 0.8, 1e-9);
}

TEST(ContactScene, RestitutionRange) {
  for (double e : {1.0, 0.01, 1e-4, 1e-6}) {
    json d = base_scene();
    d["contact"]["materials"]["default"]["restitution"] = e;
    const ForceElement g = contact_named(compile_model(d), "contact ground ball[0]");
    const NormalLawParams<double>& p = g.contact.normal;
    if (e == 1.0) {
      EXPECT_EQ(p.damping, 0.0);
      continue;
    }
    EXPECT_NEAR(normal_law_restitution(p, 2.0, 1.0), e, 1e-6 * e) << e;
  }
  json d = base_scene();  // the largest exponent, with the linear and the Hertz one in between
  for (double n : {10.0, 2.5}) {
    d["contact"]["materials"]["default"]["exponent"] = n;
    d["contact"]["materials"]["rubber"]["exponent"] = n;
    const NormalLawParams<double> p = contact_named(compile_model(d), "contact ground ball[0]").contact.normal;
    EXPECT_EQ(p.exponent, n);
    EXPECT_NEAR(normal_law_restitution(p, 2.0, 1.0), 0.8, 1e-9) << n;
  }
}

TEST(ContactScene, ErrorsNameTheirPath) {
  const auto with = [](const char* pointer, const json& value) {
    json d = base_scene();
    d[json::json_pointer(pointer)] = value;
    return d;
  };
  const auto without = [](const char* pointer) {
    json d = base_scene();
    const json::json_pointer p(pointer);
    d[p.parent_pointer()].erase(p.back());
    return d;
  };
  // shapes
  expect_error(with("/bodies/0/collision/radius", 0), "/bodies/0/collision/radius", "must be > 0 (got 0)");
  expect_error(with("/bodies/1/collision/1/length", -1), "/bodies/1/collision/1/length", "must be > 0");
  expect_error(with("/bodies/1/collision/0/size/2", 0), "/bodies/1/collision/0/size/2", "must be > 0");
  expect_error(with("/bodies/1/collision/0/size", json::array({1, 2})), "/bodies/1/collision/0/size",
               "array of 3 numbers");
  expect_error(without("/bodies/0/collision/radius"), "/bodies/0/collision/radius", "required key is missing");
  expect_error(with("/bodies/0/collision/type", "mesh"), "/bodies/0/collision/type", "a mesh cannot be a collision");
  expect_error(with("/bodies/0/collision/type", "plane"), "/bodies/0/collision/type", "contact.ground");
  expect_error(with("/bodies/0/collision/type", "cone"), "/bodies/0/collision/type",
               "one of sphere, box, capsule, cylinder");
  expect_error(with("/bodies/0/collision/size", json::array({1, 1, 1})), "/bodies/0/collision/size",
               "unknown key \"size\" (allowed: type, radius, origin, material, contype, conaffinity)");
  expect_error(with("/bodies/0/collision/origin", json::parse(R"({"position": [0, 0, 0], "x": 1})")),
               "/bodies/0/collision/origin/x", "unknown key");
  expect_error(with("/bodies/0/collision/origin/orientation", json::array({0, 0, 0, 0})),
               "/bodies/0/collision/origin/orientation", "");
  expect_error(with("/bodies/0/collision", json::array()), "/bodies/0/collision", "at least one shape");
  expect_error(with("/bodies/0/collision", 3), "/bodies/0/collision", "must be a shape object or an array");
  json many = base_scene();
  many["bodies"][0]["collision"] = json::array();
  for (int k = 0; k < 65; ++k) many["bodies"][0]["collision"].push_back({{"type", "sphere"}, {"radius", 0.01}});
  expect_error(many, "/bodies/0/collision", "65 shapes, over the limit of 64");
  expect_error(with("/bodies/0/collision/material", "steel"), "/bodies/0/collision/material",
               "unknown material \"steel\" (defined in /contact/materials: default, rubber)");
  json no_default = base_scene();
  no_default["contact"]["materials"].erase("default");
  expect_error(no_default, "/bodies/0/collision/material", "unknown material \"default\" (the default");
  expect_error(with("/bodies/0/collision/contype", -1), "/bodies/0/collision/contype", "non-negative integer");
  expect_error(with("/bodies/0/collision/conaffinity", 1.5), "/bodies/0/collision/conaffinity", "integer");
  expect_error(with("/bodies/0/collision/conaffinity", 2147483648.0), "/bodies/0/collision/conaffinity",
               "out of range");
  // the sections' presence
  expect_error(without("/contact"), "/contact", "required key is missing (/bodies/0/collision gives collision shapes");
  json bare = base_scene();
  for (json& b : bare["bodies"]) b.erase("collision");
  expect_error(bare, "/contact", "no body has collision shapes");
  // the contact section
  expect_error(with("/contact/bogus", 1), "/contact/bogus", "unknown key");
  expect_error(with("/contact/law", "flores"), "/contact/law", "impact-speed state that the solvers do not carry");
  expect_error(with("/contact/law", "lankarani_nikravesh"), "/contact/law", "use \"tsuji\"");
  expect_error(with("/contact/law", "exact_impact"), "/contact/law", "impact-speed state");
  expect_error(with("/contact/law", "hertz"), "/contact/law", "must be \"tsuji\" or \"hunt_crossley\"");
  expect_error(with("/contact/law", "hunt_crossley"), "/contact/reference_speed", "required key is missing");
  json hc = with("/contact/law", "hunt_crossley");
  hc["contact"]["reference_speed"] = 0;
  expect_error(hc, "/contact/reference_speed", "must be > 0 (got 0)");
  expect_error(with("/contact/reference_speed", 1.0), "/contact/reference_speed", "only with law \"hunt_crossley\"");
  expect_error(with("/contact/margin", -0.1), "/contact/margin", "must be >= 0");
  expect_error(with("/contact/ground/normal", json::array({0, 0, 0})), "/contact/ground/normal", "must not be zero");
  expect_error(with("/contact/ground/point", json::array({0, 0})), "/contact/ground/point", "array of 3 numbers");
  expect_error(with("/contact/ground/material", "ice"), "/contact/ground/material", "unknown material \"ice\"");
  expect_error(with("/contact/ground/size", 1), "/contact/ground/size", "unknown key");
  expect_error(without("/contact/materials"), "/contact/materials", "required key is missing");
  expect_error(with("/contact/materials", json::object()), "/contact/materials", "at least one material");
  expect_error(with("/contact/materials/a.b", json::parse(R"({"stiffness": 1, "restitution": 1})")),
               "/contact/materials/a.b", "must not contain '.'");
  // materials
  const std::string st = "/contact/materials/rubber";
  expect_error(with("/contact/materials/rubber/restitution", 1.2), st + "/restitution", "must be in (0, 1] (got 1.2)");
  expect_error(with("/contact/materials/rubber/restitution", 0), st + "/restitution", "must be in (0, 1] (got 0)");
  expect_error(without("/contact/materials/rubber/restitution"), st + "/restitution", "required key is missing");
  expect_error(with("/contact/materials/rubber/stiffness", 0), st + "/stiffness", "must be > 0");
  expect_error(without("/contact/materials/rubber/stiffness"), st + "/stiffness",
               "required key is missing (or give youngs_modulus and poisson_ratio");
  expect_error(with("/contact/materials/rubber/youngs_modulus", 1e9), st + "/youngs_modulus",
               "either stiffness or youngs_modulus");
  expect_error(with("/contact/materials/rubber/poisson_ratio", 0.3), st + "/poisson_ratio", "only with youngs_modulus");
  json modulus = without("/contact/materials/rubber/stiffness");
  modulus["contact"]["materials"]["rubber"]["youngs_modulus"] = 1e9;
  expect_error(modulus, st + "/poisson_ratio", "required key is missing");
  modulus["contact"]["materials"]["rubber"]["poisson_ratio"] = 0.5;
  expect_error(modulus, st + "/poisson_ratio", "must be in [0, 0.5) (got 0.5)");
  modulus["contact"]["materials"]["rubber"]["poisson_ratio"] = 0.3;
  modulus["contact"]["materials"]["rubber"]["youngs_modulus"] = -1;
  expect_error(modulus, st + "/youngs_modulus", "must be > 0");
  modulus["contact"]["materials"]["rubber"]["youngs_modulus"] = 1e9;
  modulus["contact"]["materials"]["rubber"]["exponent"] = 1;
  expect_error(modulus, st + "/exponent", "must be 1.5 with youngs_modulus");
  expect_error(with("/contact/materials/rubber/exponent", 0.5), st + "/exponent", "must be >= 1 (got 0.5)");
  expect_error(with("/contact/materials/rubber/exponent", 12), st + "/exponent", "must be <= 10 (got 12)");
  expect_error(with("/contact/materials/rubber/restitution", 1e-7), st + "/restitution", "must be >= 1e-6 (got 1e-07)");
  expect_error(with("/contact/materials/rubber/friction", -1), st + "/friction", "must be >= 0");
  expect_error(with("/contact/materials/rubber/slip_speed", 0), st + "/slip_speed", "must be > 0");
  expect_error(with("/contact/materials/rubber/rolling_friction", -1), st + "/rolling_friction", "must be >= 0");
  expect_error(with("/contact/materials/rubber/rolling_speed", 0), st + "/rolling_speed", "must be > 0");
  expect_error(with("/contact/materials/rubber/colour", 1), st + "/colour", "unknown key");
  expect_error(with("/contact/materials/rubber", 1), st, "must be an object");
  // exclude
  expect_error(with("/contact/exclude", json::parse(R"([["ball", "moon"]])")), "/contact/exclude/0/1",
               "unknown body \"moon\"");
  expect_error(with("/contact/exclude", json::parse(R"([["ball", "ball"]])")), "/contact/exclude/0/1",
               "must differ");
  expect_error(with("/contact/exclude", json::parse(R"([["ball"]])")), "/contact/exclude/0", "array of 2 body names");
  expect_error(with("/contact/exclude", json::parse(R"([["ball", 3]])")), "/contact/exclude/0/1", "must be a string");
  expect_error(with("/contact/exclude", "ball"), "/contact/exclude", "must be an array");
}

TEST(ContactScene, PairsWhoseMaterialsDoNotCombine) {
  // unequal exponents
  json d = base_scene();
  d["contact"]["materials"]["rubber"]["exponent"] = 1;
  expect_error(d, "/contact/materials/rubber/exponent", "differs from material \"default\"");
  // stiffness against youngs_modulus: the ground (default) and the capsule (rubber) touch
  d = base_scene();
  d["contact"]["materials"]["rubber"] =
      json::parse(R"({"youngs_modulus": 1e9, "poisson_ratio": 0.4, "restitution": 0.5})");
  expect_error(d, "/contact/materials/rubber", "material \"default\" gives stiffness");
  // Hertz on a box against the ground plane (both flat), on a cylinder, on two boxes
  d = base_scene();
  d["contact"]["materials"]["default"] =
      json::parse(R"({"youngs_modulus": 2e11, "poisson_ratio": 0.3, "restitution": 0.9})");
  d["contact"]["materials"]["rubber"] = d["contact"]["materials"]["default"];
  expect_error(d, "/bodies/1/collision/0", "Hertz stiffness (youngs_modulus) needs a sphere or capsule");
  d["contact"]["exclude"] = json::parse(R"([["ground", "block"]])");
  expect_error(d, "/bodies/2/collision", "not a cylinder against the ground plane /contact/ground");
  d["contact"]["exclude"] =
      json::parse(R"([["ground", "block"], ["ground", "arm"], ["ball", "arm"], ["ground", "ball"]])");
  d["bodies"][0]["collision"] = json::parse(R"({"type": "box", "size": [0.1, 0.1, 0.1]})");
  expect_error(d, "/bodies/1/collision/0", "not a box against the box /bodies/0/collision");
}

TEST(ContactScene, UnsupportedKindPairNamesBothShapes) {
  json d = base_scene();
  d["joints"] = json::array();  // the arm's cylinder now meets the block's box
  expect_error(d, "/bodies/2/collision", "a cylinder (arm[0]) cannot touch the box (block[0]) /bodies/1/collision/0 (supported pairs:");
  try {
    compile_model(d);
  } catch (const SceneError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("contype / conaffinity or contact.exclude"), std::string::npos) << what;
  }
  d["contact"]["exclude"] = json::parse(R"([["block", "arm"]])");
  EXPECT_EQ(contacts(compile_model(d)).size(), 7u);
  d["contact"].erase("exclude");
  d["bodies"][2]["collision"]["contype"] = 2;  // 2 & 1 = 0 and 1 & 1 against the block: still meets it
  expect_error(d, "/bodies/2/collision", "cannot touch");
  d["bodies"][2]["collision"]["conaffinity"] = 2;  // now neither way with the bodies (types and affinities 1)
  d["contact"]["ground"]["contype"] = 3;           // the ground's type 3 meets the arm's affinity 2
  const Model m = compile_model(d);
  EXPECT_EQ(contacts(m).size(), 6u);
  contact_named(m, "contact ground arm[0]");
}

TEST(ContactScene, TooManyPairs) {
  json d = base_scene();
  d["joints"] = json::array();
  d["forces"] = json::array();
  json b = d["bodies"][0];
  d["bodies"] = json::array();
  for (int k = 0; k < 363; ++k) {  // 363 * 362 / 2 = 65703 > 65536
    b["name"] = "b" + std::to_string(k);
    d["bodies"].push_back(b);
  }
  d["contact"].erase("ground");
  expect_error(d, "/contact", "more than 65536 contact pairs");
  d["bodies"].erase(362);  // 362 * 361 / 2 = 65341
  EXPECT_EQ(contacts(compile_model(d)).size(), 65341u);
}

TEST(ContactScene, SweepChangesEachInstancesPair) {
  json d = base_scene();
  d["sweep"] = json::parse(R"({"mode": "grid", "parameters": [
      {"path": "bodies.ball.collision.radius", "dist": "list", "values": [0.04, 0.06]},
      {"path": "contact.materials.default.restitution", "dist": "list", "values": [0.3, 0.9]}]})");
  const Scene scene = parse_scene(d.dump(), "contact.json");
  const SweepSamples samples = sample_sweep(scene.sweep);
  ASSERT_EQ(samples.n_instances, 4);
  const std::vector<Model> models = build_instance_models(scene, samples);
  ASSERT_EQ(models.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    const double r = samples.values[0][static_cast<std::size_t>(k)];
    const double e = samples.values[1][static_cast<std::size_t>(k)];
    const ForceElement& g = contact_named(models[static_cast<std::size_t>(k)], "contact ground ball[0]");
    EXPECT_EQ(g.shape_j.size[0], r) << "instance " << k;
    const double D = 2 * tsuji_damping_ratio(e, 1.5) * std::sqrt(1.5 * 2.0 * 1e6);
    EXPECT_NEAR(g.contact.normal.damping, D, 1e-12 * D) << "instance " << k;
  }
  EXPECT_NE(samples.values[0][0], samples.values[0][3]);
  EXPECT_NE(samples.values[1][0], samples.values[1][3]);
  // a sampled value the contact section refuses names the instance and the path
  d["sweep"]["parameters"][1]["values"] = json::array({0.5, 1.5});
  const Scene bad = parse_scene(d.dump(), "contact.json");
  try {
    build_instance_models(bad, sample_sweep(bad.sweep));
    ADD_FAILURE() << "no SceneError for restitution 1.5";
  } catch (const SceneError& err) {
    EXPECT_EQ(err.path(), "/contact/materials/default/restitution") << err.what();
    EXPECT_NE(std::string(err.what()).find("must be in (0, 1] (got 1.5)"), std::string::npos) << err.what();
  }
}

/// The first ```json block under "## Contact" of docs/scene-format.md.
std::string docs_contact_example() {
  std::ifstream in(std::string(SIMPHANT_SOURCE_DIR) + "/docs/scene-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::size_t section = doc.find("\n## Contact\n");
  const std::size_t start = doc.find("```json\n", section);
  const std::size_t end = doc.find("```", start + 8);
  if (section == std::string::npos || start == std::string::npos || end == std::string::npos) return "";
  return doc.substr(start + 8, end - start - 8);
}

TEST(ContactScene, DocsExampleCompiles) {
  const std::string text = docs_contact_example();
  ASSERT_FALSE(text.empty()) << "no ```json block under '## Contact' in docs/scene-format.md";
  const Model m = compile_model(json::parse(text));
  const std::vector<std::string> expected = {"contact ground ball[0]", "contact ground block[0]",
                                             "contact ball[0] block[0]"};
  EXPECT_EQ(contact_names(m), expected);
  const double K = 2 * 1e7 * 1e6 / (1e7 + 1e6);  // steel against default
  EXPECT_NEAR(contact_named(m, "contact ball[0] block[0]").contact.normal.stiffness, K, 1e-9 * K);
}

}  // namespace
}  // namespace simphant
