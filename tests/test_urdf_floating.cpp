// The floating base of the URDF import (urdf/urdf_import.hpp): a `floating` joint, the
// base made floating or fixed afterwards (make_floating_base / make_fixed_base), and the
// maximal-coordinate model of a floating robot (urdf/maximal_from_urdf.hpp: body 0 = the
// base, body k + 1 = link k). Mass properties are checked against Eigen welds written
// here; the maximal model's initial state against the joint constraints and against
// central differences of the body poses along the motion.
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "robot_data.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"
#include "urdf_text.hpp"

namespace simphant {
namespace {

using test::expect_urdf_error;
using test::joint;
using test::link;
using test::robot;

Eigen::Matrix3d E(const Mat3d& A) {
  Eigen::Matrix3d M;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) M(r, c) = A.m[r][c];
  return M;
}
Eigen::Vector3d E(const Vec3d& a) { return {a.x, a.y, a.z}; }
void expect_near(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tol, const char* what) {
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tol) << what << "\n" << a << "\nvs\n" << b;
}

const std::string kTorso = "<inertial><origin xyz=\"0.05 -0.02 0.01\" rpy=\"0.1 0.2 0.3\"/><mass value=\"4\"/>"
                           "<inertia ixx=\"0.1\" iyy=\"0.2\" izz=\"0.25\" ixy=\"0.01\" ixz=\"0\" iyz=\"0\"/></inertial>";
const std::string kImu = "<inertial><origin xyz=\"0.01 0 0\"/><mass value=\"0.5\"/>"
                         "<inertia ixx=\"0.001\" iyy=\"0.001\" izz=\"0.001\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>";

/// A torso with a fixed IMU and two legs (one with a knee); with `floating_joint`, hung
/// from a `world` link by a floating joint.
std::string legged(bool floating_joint) {
  std::string s = link("torso", kTorso) + link("imu", kImu) + link("thigh_l") + link("shin_l") + link("thigh_r") +
                  joint("imu_joint", "fixed", "torso", "imu", "<origin xyz=\"0.2 0.1 0.05\" rpy=\"0 0 1.0\"/>") +
                  joint("hip_l", "continuous", "torso", "thigh_l", "<origin xyz=\"0.1 0.15 -0.1\"/><axis xyz=\"0 1 0\"/>") +
                  joint("knee_l", "continuous", "thigh_l", "shin_l", "<origin xyz=\"0 0 -0.3\"/><axis xyz=\"0 1 0\"/>") +
                  joint("hip_r", "continuous", "torso", "thigh_r",
                        "<origin xyz=\"0.1 -0.15 -0.1\" rpy=\"0.3 0 0\"/><axis xyz=\"1 0 1\"/>");
  if (floating_joint) {
    s = link("world", test::kInertial) + s +
        joint("root_joint", "floating", "world", "torso", "<origin xyz=\"0 0 0.8\"/>");
  }
  return robot(s);
}

/// Torso + IMU welded in the torso frame (parallel-axis theorem, written out here).
void expected_base(double& m, Eigen::Vector3d& c, Eigen::Matrix3d& I) {
  auto rpy = [](double r, double p, double y) {
    return (Eigen::AngleAxisd(y, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(p, Eigen::Vector3d::UnitY()) *
            Eigen::AngleAxisd(r, Eigen::Vector3d::UnitX()))
        .toRotationMatrix();
  };
  Eigen::Matrix3d It;
  It << 0.1, 0.01, 0, 0.01, 0.2, 0, 0, 0, 0.25;
  const Eigen::Matrix3d Rt = rpy(0.1, 0.2, 0.3), Ri = rpy(0, 0, 1.0);
  const double mt = 4, mi = 0.5;
  const Eigen::Vector3d ct(0.05, -0.02, 0.01), ci = Eigen::Vector3d(0.2, 0.1, 0.05) + Ri * Eigen::Vector3d(0.01, 0, 0);
  m = mt + mi;
  c = (mt * ct + mi * ci) / m;
  auto shift = [](double mm, const Eigen::Vector3d& d) {
    return Eigen::Matrix3d(mm * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose()));
  };
  I = Rt * It * Rt.transpose() + shift(mt, ct - c) + 0.001 * Eigen::Matrix3d::Identity() + shift(mi, ci - c);
}

void expect_same_links(const ReducedModel& a, const ReducedModel& b) {
  ASSERT_EQ(a.nq(), b.nq());
  for (int k = 0; k < a.nq(); ++k) {
    EXPECT_EQ(a.links[k].name, b.links[k].name);
    EXPECT_EQ(a.links[k].parent, b.links[k].parent);
    expect_near(E(a.links[k].p_parent_joint), E(b.links[k].p_parent_joint), 0, "p_parent_joint");
    expect_near(E(a.links[k].R_parent_joint), E(b.links[k].R_parent_joint), 0, "R_parent_joint");
    expect_near(E(a.links[k].inertia_com), E(b.links[k].inertia_com), 0, "inertia");
  }
  EXPECT_EQ(a.base.link, b.base.link);
  EXPECT_EQ(a.base.mass, b.base.mass);
  expect_near(E(a.base.com), E(b.base.com), 0, "base com");
  expect_near(E(a.base.inertia_com), E(b.base.inertia_com), 0, "base inertia");
}

TEST(UrdfFloating, FloatingJointMakesItsChildAndFixedLinksTheBase) {
  const ReducedModel rm = parse_urdf(legged(true), "legged.urdf");
  EXPECT_TRUE(rm.floating);
  EXPECT_EQ(rm.base_link, "world");
  EXPECT_EQ(rm.base.link, "torso");
  ASSERT_EQ(rm.nq(), 3);
  double m;
  Eigen::Vector3d c;
  Eigen::Matrix3d I;
  expected_base(m, c, I);
  EXPECT_DOUBLE_EQ(rm.base.mass, m);
  expect_near(E(rm.base.com), c, 1e-15, "base CoM");
  expect_near(E(rm.base.inertia_com), I, 1e-15, "base inertia");
  for (const ReducedLink& l : rm.links)
    if (l.name != "shin_l") EXPECT_EQ(l.parent, -1) << l.name;
  const ReducedLink& hip_r = rm.links[rm.link_index("thigh_r")];
  expect_near(E(hip_r.p_parent_joint), Eigen::Vector3d(0.1, -0.15, -0.1), 0, "hip_r in B");
  // The world link's inertial and the floating joint's origin are read and not used.
  std::string all;
  for (const std::string& w : rm.warnings) all += w + "\n";
  EXPECT_NE(all.find("<inertial> of link 'world': not used"), std::string::npos) << all;
  EXPECT_NE(all.find("<origin> of floating joint 'root_joint': not used"), std::string::npos) << all;
}

TEST(UrdfFloating, MakeFloatingBaseEqualsTheFloatingJoint) {
  ReducedModel fixed = parse_urdf(legged(false), "legged.urdf");
  const ReducedModel floating = parse_urdf(legged(true), "legged.urdf");
  EXPECT_FALSE(fixed.floating);
  EXPECT_EQ(fixed.base.link, "torso");
  expect_same_links(fixed, floating);  // the base's mass is stored for a fixed base too
  make_floating_base(fixed);
  EXPECT_TRUE(fixed.floating);
  expect_same_links(fixed, floating);
  make_floating_base(fixed);  // no-op
  EXPECT_TRUE(fixed.floating);
  make_fixed_base(fixed);
  EXPECT_FALSE(fixed.floating);
}

TEST(UrdfFloating, WhatCannotFloatIsAnError) {
  const std::string b = "<link name=\"world\"/>" + link("torso") + link("a") + link("b");
  expect_urdf_error(robot(b + joint("f1", "floating", "world", "torso") + joint("f2", "floating", "torso", "a") +
                          joint("j", "continuous", "torso", "b")),
                    {"joint 'f2': a second floating joint (joint 'f1' is one)"});
  // A floating joint below a moving joint: that moving joint hangs from the world side.
  expect_urdf_error(robot(b + joint("j", "continuous", "world", "torso") + joint("f", "floating", "torso", "a") +
                          joint("j2", "continuous", "a", "b")),
                    {"joint 'j': a moving joint on the world side of floating joint 'f'",
                     "a floating joint must join the root link"});
  expect_urdf_error(robot(b + joint("f", "floating", "world", "torso") + joint("j", "continuous", "world", "a") +
                          joint("j2", "continuous", "torso", "b")),
                    {"joint 'j': a moving joint on the world side of floating joint 'f'"});
  expect_urdf_error(robot("<link name=\"world\"/><link name=\"torso\"/>" + link("a") +
                          joint("f", "floating", "world", "torso") + joint("j", "continuous", "torso", "a")),
                    {"link 'torso' (the floating base of joint 'f'", "no mass"});
  expect_urdf_error(robot("<link name=\"world\"/>" + link("torso", test::mass_inertia("1", "1", "1", "3")) + link("a") +
                          joint("f", "floating", "world", "torso") + joint("j", "continuous", "torso", "a")),
                    {"link 'torso'", "triangle inequality"});
  // A floating joint from a link welded to the root is fine.
  const ReducedModel ok = parse_urdf(robot("<link name=\"world\"/><link name=\"w2\"/>" + link("torso") + link("a") +
                                           joint("w", "fixed", "world", "w2") + joint("f", "floating", "w2", "torso") +
                                           joint("j", "continuous", "torso", "a")),
                                     "ok.urdf");
  EXPECT_TRUE(ok.floating);
  EXPECT_EQ(ok.base.link, "torso");
}

TEST(UrdfFloating, MakeFloatingBaseNeedsAUsableBaseMass) {
  ReducedModel massless = parse_urdf(robot("<link name=\"world\"/>" + link("a") + joint("j", "continuous", "world", "a")),
                                     "ok.urdf");
  EXPECT_TRUE(massless.warnings.empty());
  try {
    make_floating_base(massless);
    ADD_FAILURE() << "no UrdfError";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find("link 'world' (the base, with the links fixed to it): no usable mass"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(massless.floating);
  // A bad inertial on a fixed base is no error (not used), but a warning, and refuses floating.
  ReducedModel bad = parse_urdf(robot(link("base", test::mass_inertia("-1", "1", "1", "1")) + link("a") +
                                      joint("j", "continuous", "base", "a")),
                                "ok.urdf");
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_NE(bad.warnings[0].find("link 'base': inertial: mass must be a finite number >= 0"), std::string::npos)
      << bad.warnings[0];
  EXPECT_THROW(make_floating_base(bad), UrdfError);
}

// ---- the maximal-coordinate model of a floating robot ------------------------------------

Eigen::Quaterniond quat_after(const Eigen::Quaterniond& q, const Eigen::Vector3d& w_B, double t) {
  const double a = w_B.norm() * t;
  return q * Eigen::Quaterniond(Eigen::AngleAxisd(a, w_B.normalized()));
}

Model floating_model(const ReducedModel& rm, const std::vector<double>& q, const std::vector<double>& qd,
                     const Eigen::Vector3d& p, const Eigen::Quaterniond& quat, const Eigen::Vector3d& v,
                     const Eigen::Vector3d& w) {
  return maximal_model_from_urdf(rm, q, qd, {p.x(), p.y(), p.z(), quat.w(), quat.x(), quat.y(), quat.z()},
                                 {v.x(), v.y(), v.z(), w.x(), w.y(), w.z()});
}

TEST(UrdfFloatingMaximal, BaseIsBodyZeroAndTheStateIsConsistent) {
  const ReducedModel rm = parse_urdf(legged(true), "legged.urdf");
  const int n = rm.nq();
  std::mt19937_64 g(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<double> q(n), qd(n);
    for (int k = 0; k < n; ++k) {
      q[k] = 3 * u(g);
      qd[k] = 2 * u(g);
    }
    const Eigen::Vector3d p(u(g), u(g), 1 + u(g)), v(u(g), u(g), u(g)), w(2 * u(g), 2 * u(g), 2 * u(g));
    const Eigen::Quaterniond quat = Eigen::Quaterniond(u(g), u(g), u(g), u(g)).normalized();
    const Model m = floating_model(rm, q, qd, p, quat, v, w);
    ASSERT_EQ(m.n_bodies(), n + 1);
    ASSERT_EQ(m.n_joints(), n);
    EXPECT_EQ(m.bodies[0].name, "torso");
    EXPECT_EQ(m.bodies[0].mass, rm.base.mass);
    expect_near(E(m.bodies[0].r0_W), p + quat.toRotationMatrix() * E(rm.base.com), 1e-15, "base CoM");
    expect_near(E(m.bodies[0].omega0_B), w, 0, "base omega_B");
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(m.bodies[k + 1].name, rm.links[k].name);
      EXPECT_EQ(m.joints[k].body_j, k + 1);
      EXPECT_EQ(m.joints[k].body_i, rm.links[k].parent + 1);  // -1 (the base) -> body 0
    }
    // Phi = 0 and Phi_q qdot = 0 at the initial state.
    std::vector<double> Y(static_cast<std::size_t>(m.ny()));
    initial_state(m, Y.data());
    Data d(m);
    set_kinematics(m, d, Y.data());
    evaluate_constraints(m, d, 0.0);
    EXPECT_LT(max_violation(d), 1e-12);
    EXPECT_LT(d.phi_dot.cwiseAbs().maxCoeff(), 1e-12);
    // Central differences of every body's CoM and rotation along (base motion, q + t qd).
    const double h = 1e-6;
    std::vector<double> qp(q), qm(q);
    for (int k = 0; k < n; ++k) {
      qp[k] += h * qd[k];
      qm[k] -= h * qd[k];
    }
    const Model mp = floating_model(rm, qp, qd, p + h * v, quat_after(quat, w, h), v, w);
    const Model mm = floating_model(rm, qm, qd, p - h * v, quat_after(quat, w, -h), v, w);
    for (int b = 0; b <= n; ++b) {
      expect_near((E(mp.bodies[b].r0_W) - E(mm.bodies[b].r0_W)) / (2 * h), E(m.bodies[b].v0_W), 1e-7, "CoM velocity");
      const Eigen::Matrix3d R = E(rotation(m.bodies[b].p0));
      const Eigen::Matrix3d W = R.transpose() * (E(rotation(mp.bodies[b].p0)) - E(rotation(mm.bodies[b].p0))) / (2 * h);
      expect_near(Eigen::Vector3d(W(2, 1), W(0, 2), W(1, 0)), E(m.bodies[b].omega0_B), 1e-7, "omega_B");
    }
  }
}

TEST(UrdfFloatingMaximal, BadBaseStateIsRefusedAndEmptyMeansAtRest) {
  const ReducedModel rm = parse_urdf(legged(true), "legged.urdf");
  const std::vector<double> z(3, 0.0);
  EXPECT_THROW(maximal_model_from_urdf(rm, z, z, {0, 0, 0}, {}), std::invalid_argument);
  EXPECT_THROW(maximal_model_from_urdf(rm, z, z, {0, 0, 0, 0, 0, 0, 0}, {}), std::invalid_argument);
  EXPECT_THROW(maximal_model_from_urdf(rm, z, z, {}, {1, 2}), std::invalid_argument);
  const Model rest = maximal_model_from_urdf(rm, z, z);
  const Model unit = maximal_model_from_urdf(rm, z, z, {0, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, 0, 0});
  for (int b = 0; b < rest.n_bodies(); ++b) {
    expect_near(E(rest.bodies[b].r0_W), E(unit.bodies[b].r0_W), 0, "r0");
    expect_near(E(rest.bodies[b].v0_W), Eigen::Vector3d::Zero(), 0, "v0");
  }
  // A quaternion that is not unit length is normalised.
  const Model scaled = maximal_model_from_urdf(rm, z, z, {0, 0, 0, 2, 0, 0, 0}, {});
  expect_near(E(scaled.bodies[1].r0_W), E(rest.bodies[1].r0_W), 1e-15, "normalised quaternion");
}

// ---- robots of example-robot-data made floating (Pinocchio's free-flyer root) -------------

TEST(UrdfFloatingRobots, LeggedRobotsAndPandaFloat) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  struct Case {
    const char* path;
    const char* base;
    int dof;
  };
  const Case cases[] = {{"solo_description/robots/solo12.urdf", "base_link", 12},
                        {"anymal_b_simple_description/robots/anymal.urdf", "base", 12},
                        {"panda_description/urdf/panda.urdf", "panda_link0", 9}};
  std::mt19937_64 g(23);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    ReducedModel rm = load_urdf(dir + "/" + c.path);
    EXPECT_FALSE(rm.floating);
    make_floating_base(rm);
    EXPECT_EQ(rm.base.link, c.base);
    EXPECT_EQ(rm.nq(), c.dof);
    EXPECT_GT(rm.base.mass, 0);
    std::vector<double> q(static_cast<std::size_t>(rm.nq())), qd(q.size());
    for (std::size_t k = 0; k < q.size(); ++k) {
      q[k] = rm.links[k].type == ReducedJointType::Revolute ? 2 * u(g) : 0.02;
      qd[k] = u(g);
    }
    const Model m = floating_model(rm, q, qd, {0.1, 0.2, 0.5}, Eigen::Quaterniond(0.9, 0.1, -0.3, 0.2).normalized(),
                                   {0.3, -0.1, 0.2}, {0.5, 1.0, -0.7});
    ASSERT_EQ(m.n_bodies(), rm.nq() + 1);
    std::vector<double> Y(static_cast<std::size_t>(m.ny()));
    initial_state(m, Y.data());
    Data d(m);
    set_kinematics(m, d, Y.data());
    evaluate_constraints(m, d, 0.0);
    EXPECT_LT(max_violation(d), 1e-12);
    EXPECT_LT(d.phi_dot.cwiseAbs().maxCoeff(), 1e-12);
  }
}

}  // namespace
}  // namespace simphant
