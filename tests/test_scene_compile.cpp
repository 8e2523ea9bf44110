// compile_model on valid scenes: joint frames from world and local forms, the three
// inertia forms, angular velocity conversion, defaults, forces, solver settings
// (docs/scene-format.md).
#include <cmath>

#include <gtest/gtest.h>

#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using nlohmann::json;

constexpr double kTol = 1e-12;

/// A valid scene with every joint and force kind the compiler has to fill.
json base_scene() {
  return json::parse(R"({
    "name": "bench",
    "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "crank", "mass": 1.0, "inertia": [0.01, 0.02, 0.025], "position": [0.1, 0.0, 0.0]},
      {"name": "rocker", "mass": 2.0, "inertia": [0.02, 0.03, 0.04, 0.001, 0.0, 0.002],
       "position": [0.3, 0.1, 0.0], "orientation": [0.5, 0.5, -0.5, 0.5]},
      {"name": "slider", "mass": 0.5, "inertia": [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]],
       "position": [0.0, 0.5, 0.0]}
    ],
    "joints": [
      {"name": "j1", "type": "revolute", "body_i": "ground", "body_j": "crank",
       "frame": {"origin": [0, 0, 0], "z": [0, 0, 2]}},
      {"name": "j2", "type": "cylindrical", "body_i": "crank", "body_j": "rocker",
       "frame": {"origin": [0.2, 0.05, 0.01], "z": [0.3, -0.2, 1.0], "x": [1, 0.5, 0]}},
      {"name": "p1", "type": "prismatic", "body_i": "ground", "body_j": "slider",
       "frame_i": {"origin": [0, 0.5, 0], "z": [0, 1, 0], "x": [1, 1, 0]},
       "frame_j": {"origin": [0, 0, 0], "z": [0, 3, 0], "x": [2, 0, 0]}}
    ],
    "forces": [
      {"name": "push", "type": "point_force", "body": "crank", "force": [1, 2, 3], "point": [0.1, 0, 0]},
      {"name": "twist", "type": "torque", "body": "rocker", "torque": [0, 0, 1], "frame": "body"},
      {"name": "spring", "type": "spring_damper", "body_i": "ground", "point_i": [0, 0, 1],
       "body_j": "rocker", "point_j": [0.01, 0, 0], "stiffness": 10, "damping": 0.5, "rest_length": 0.3},
      {"name": "rsd", "type": "rotational_spring_damper", "joint": "j2", "stiffness": 2},
      {"name": "motor", "type": "actuator", "joint": "j1", "kind": "torque", "value": 0.25},
      {"name": "linear", "type": "actuator", "joint": "p1", "kind": "force"}
    ],
    "solver": {"dt": 0.001, "t_end": 0.5}
  })");
}

Vec3d unit(const Vec3d& a) { return (1.0 / norm(a)) * a; }

void expect_vec_near(const Vec3d& a, const Vec3d& b, double tol) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

TEST(SceneCompile, WorldFrameReproducesWorldOriginAndAxes) {
  const Model m = compile_model(base_scene());
  const Joint& j = m.joints[1];
  const Vec3d origin{0.2, 0.05, 0.01};
  const Vec3d z = unit(Vec3d{0.3, -0.2, 1.0});
  const Vec3d x0{1, 0.5, 0};
  const Vec3d x = unit(x0 - dot(x0, z) * z);
  const Vec3d y = cross(z, x);
  for (int side = 0; side < 2; ++side) {
    const Body& b = m.bodies[side == 0 ? j.body_i : j.body_j];
    const Mat3d A = rotation(b.p0);
    const JointFrame<double>& f = j.frame;
    const Vec3d& u = side == 0 ? f.u_i : f.u_j;
    const Vec3d& v = side == 0 ? f.v_i : f.v_j;
    const Vec3d& a = side == 0 ? f.a_i : f.a_j;
    const Vec3d& bb = side == 0 ? f.b_i : f.b_j;
    expect_vec_near(b.r0_W + mul(A, u), origin, kTol);  // r + A u = world origin
    expect_vec_near(mul(A, v), z, kTol);
    expect_vec_near(mul(A, a), x, kTol);
    expect_vec_near(mul(A, bb), y, kTol);
  }
}

TEST(SceneCompile, GroundSideOfWorldFrameIsWorldValues) {
  const Model m = compile_model(base_scene());
  const JointFrame<double>& f = m.joints[0].frame;
  EXPECT_EQ(m.joints[0].body_i, kGround);
  expect_vec_near(f.u_i, Vec3d{0, 0, 0}, kTol);
  expect_vec_near(f.v_i, Vec3d{0, 0, 1}, kTol);  // z [0, 0, 2] normalised
  expect_vec_near(f.u_j, Vec3d{-0.1, 0, 0}, kTol);
}

TEST(SceneCompile, DefaultXAxisIsUnitAndPerpendicular) {
  json doc = base_scene();
  doc["joints"][1]["frame"].erase("x");
  const Model m1 = compile_model(doc);
  const Model m2 = compile_model(doc);
  const JointFrame<double>& f = m1.joints[1].frame;
  EXPECT_NEAR(norm(f.a_i), 1.0, kTol);
  EXPECT_NEAR(dot(f.a_i, f.v_i), 0.0, kTol);
  expect_vec_near(f.b_i, cross(f.v_i, f.a_i), kTol);
  expect_vec_near(f.a_i, m2.joints[1].frame.a_i, 0.0);  // deterministic
  // j1: z = W z, so the least aligned world axis is W x and a = z x e_x = e_y.
  expect_vec_near(m1.joints[0].frame.a_i, Vec3d{0, 1, 0}, kTol);
}

TEST(SceneCompile, LocalFramesAreOrthonormalised) {
  const Model m = compile_model(base_scene());
  const JointFrame<double>& f = m.joints[2].frame;
  expect_vec_near(f.u_i, Vec3d{0, 0.5, 0}, kTol);
  expect_vec_near(f.v_i, Vec3d{0, 1, 0}, kTol);
  expect_vec_near(f.a_i, Vec3d{1, 0, 0}, kTol);   // [1, 1, 0] minus its z component
  expect_vec_near(f.b_i, Vec3d{0, 0, -1}, kTol);  // y = z x x
  expect_vec_near(f.v_j, Vec3d{0, 1, 0}, kTol);
  expect_vec_near(f.a_j, Vec3d{1, 0, 0}, kTol);
}

TEST(SceneCompile, RowOffsetsAndInputs) {
  const Model m = compile_model(base_scene());
  ASSERT_EQ(m.n_joints(), 3);
  EXPECT_EQ(m.joints[0].row_offset, 0);
  EXPECT_EQ(m.joints[1].row_offset, 5);
  EXPECT_EQ(m.joints[2].row_offset, 9);
  EXPECT_EQ(m.n_rows, 14);
  EXPECT_EQ(m.n_inputs, 2);
  EXPECT_EQ(m.forces[4].input_index, 0);
  EXPECT_EQ(m.forces[5].input_index, 1);
}

TEST(SceneCompile, InertiaThreeFormsAgree) {
  json doc = base_scene();
  doc["bodies"][0]["inertia"] = {0.02, 0.03, 0.04, 0.001, -0.002, 0.003};
  doc["bodies"][1]["inertia"] = {{0.02, 0.001, -0.002}, {0.001, 0.03, 0.003}, {-0.002, 0.003, 0.04}};
  doc["bodies"][2]["inertia"] = {0.02, 0.03, 0.04};
  const Model m = compile_model(doc);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(m.bodies[0].inertia_B.m[r][c], m.bodies[1].inertia_B.m[r][c]);
  }
  EXPECT_EQ(m.bodies[0].inertia_B.m[0][2], -0.002);  // tensor convention, not negated products
  EXPECT_EQ(m.bodies[2].inertia_B.m[1][1], 0.03);
  EXPECT_EQ(m.bodies[2].inertia_B.m[0][1], 0.0);
  // The inverse is the inverse.
  const Mat3d& J = m.bodies[0].inertia_B;
  const Mat3d& Ji = m.bodies[0].inertia_inv_B;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += J.m[r][k] * Ji.m[k][c];
      EXPECT_NEAR(s, r == c ? 1.0 : 0.0, 1e-12);
    }
  }
}

TEST(SceneCompile, WorldAngularVelocityConvertedToBody) {
  json doc = base_scene();
  doc["bodies"][1]["angular_velocity_world"] = {1.0, -2.0, 0.5};
  const Model m = compile_model(doc);
  const Body& b = m.bodies[1];
  expect_vec_near(mul(rotation(b.p0), b.omega0_B), Vec3d{1.0, -2.0, 0.5}, kTol);
  // omega_B = A^T omega_W exactly as the compiler documents it.
  expect_vec_near(b.omega0_B, mul_t(rotation(b.p0), Vec3d{1.0, -2.0, 0.5}), 0.0);
  EXPECT_GT(norm(b.omega0_B - Vec3d{1.0, -2.0, 0.5}), 0.1);  // the rotation is not the identity
}

TEST(SceneCompile, DefaultsAndNames) {
  json doc = base_scene();
  doc.erase("gravity");
  doc.erase("name");
  const Model m = compile_model(doc);
  EXPECT_EQ(m.name, "");
  expect_vec_near(m.gravity, Vec3d{0, 0, 0}, 0.0);
  const Body& b = m.bodies[0];
  EXPECT_EQ(b.p0.w, 1.0);
  expect_vec_near(b.v0_W, Vec3d{0, 0, 0}, 0.0);
  expect_vec_near(b.omega0_B, Vec3d{0, 0, 0}, 0.0);
  const SolverSettings s = m.solver;
  EXPECT_EQ(s.baumgarte_alpha, 10.0);
  EXPECT_EQ(s.baumgarte_beta, 10.0);
  EXPECT_EQ(s.tikhonov_epsilon, 1e-10);
  EXPECT_EQ(s.refinement_steps, 10);
  EXPECT_EQ(s.redundant_rows, RedundantRows::Remove);
  EXPECT_EQ(s.record_every, 1);
  EXPECT_EQ(s.violation_bound, 1e-2);
  EXPECT_EQ(compile_model(base_scene()).name, "bench");
  EXPECT_EQ(compile_model(base_scene()).gravity.z, -9.81);
}

TEST(SceneCompile, ForcesFilled) {
  const Model m = compile_model(base_scene());
  ASSERT_EQ(m.forces.size(), 6u);
  const ForceElement& push = m.forces[0];
  EXPECT_EQ(push.type, ForceType::PointForce);
  EXPECT_EQ(push.body, 0);
  EXPECT_TRUE(push.world_frame);
  expect_vec_near(push.vec, Vec3d{1, 2, 3}, 0.0);
  expect_vec_near(push.point_B, Vec3d{0.1, 0, 0}, 0.0);
  const ForceElement& twist = m.forces[1];
  EXPECT_EQ(twist.type, ForceType::Torque);
  EXPECT_FALSE(twist.world_frame);
  const ForceElement& spring = m.forces[2];
  EXPECT_EQ(spring.type, ForceType::SpringDamper);
  EXPECT_EQ(spring.body_i, kGround);
  EXPECT_EQ(spring.body_j, 1);
  expect_vec_near(spring.point_i, Vec3d{0, 0, 1}, 0.0);
  expect_vec_near(spring.point_j, Vec3d{0.01, 0, 0}, 0.0);
  EXPECT_EQ(spring.stiffness, 10.0);
  EXPECT_EQ(spring.damping, 0.5);
  EXPECT_EQ(spring.rest, 0.3);
  const ForceElement& rsd = m.forces[3];
  EXPECT_EQ(rsd.type, ForceType::RotationalSpringDamper);
  EXPECT_EQ(rsd.joint, 1);
  EXPECT_EQ(rsd.damping, 0.0);
  EXPECT_EQ(rsd.rest, 0.0);
  EXPECT_EQ(m.forces[4].kind, ActuatorKind::Torque);
  EXPECT_EQ(m.forces[4].value, 0.25);
  EXPECT_EQ(m.forces[5].kind, ActuatorKind::Force);
  EXPECT_EQ(m.forces[5].value, 0.0);
}

TEST(SceneCompile, SolverAllKeys) {
  json doc = base_scene();
  doc["solver"] = json::parse(R"({"dt": 0.002, "t_end": 3, "baumgarte_alpha": 5, "baumgarte_beta": 6,
      "tikhonov_epsilon": 1e-8, "refinement_steps": 5, "record_every": 10, "violation_bound": 0.5,
      "assembly_max_iterations": 20, "assembly_tolerance": 1e-9})");
  const SolverSettings s = compile_model(doc).solver;
  EXPECT_EQ(s.dt, 0.002);
  EXPECT_EQ(s.t_end, 3.0);
  EXPECT_EQ(s.baumgarte_alpha, 5.0);
  EXPECT_EQ(s.baumgarte_beta, 6.0);
  EXPECT_EQ(s.tikhonov_epsilon, 1e-8);
  EXPECT_EQ(s.refinement_steps, 5);
  EXPECT_EQ(s.record_every, 10);
  EXPECT_EQ(s.violation_bound, 0.5);
  EXPECT_EQ(s.assembly_max_iterations, 20);
  EXPECT_EQ(s.assembly_tolerance, 1e-9);
}

TEST(SceneCompile, NearUnitQuaternionNormalised) {
  json doc = base_scene();
  doc["bodies"][0]["orientation"] = {1.0005, 0, 0, 0};
  const Quatd p = compile_model(doc).bodies[0].p0;
  EXPECT_NEAR(p.w, 1.0, 1e-15);
}

TEST(SceneCompile, NameLookups) {
  const Model m = compile_model(base_scene());
  EXPECT_EQ(m.body_index("ground"), kGround);
  EXPECT_EQ(m.body_index("rocker"), 1);
  EXPECT_EQ(m.body_index("nobody"), -2);
  EXPECT_EQ(m.joint_index("p1"), 2);
  EXPECT_EQ(m.joint_index("nojoint"), -1);
}

TEST(SceneCompile, ParseSceneKeepsTextAndDoc) {
  const std::string text = base_scene().dump();
  const Scene s = parse_scene(text, "bench.json");
  EXPECT_EQ(s.text, text);
  EXPECT_EQ(s.doc, base_scene());
  EXPECT_EQ(s.model.n_bodies(), 3);
  EXPECT_TRUE(s.sweep.parameters.empty());
}

}  // namespace
}  // namespace simphant
