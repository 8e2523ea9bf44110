// URDF import (urdf/urdf_import.hpp), forward kinematics (reduced/forward_kinematics.hpp)
// and the maximal-coordinate model built from a URDF (urdf/maximal_from_urdf.hpp).
// Expected values are computed here independently with Eigen (Isometry3d, AngleAxis).
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <gtest/gtest.h>

#include "robot_data.hpp"
#include "urdf_text.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant {
namespace {

const std::string kDataDir = std::string(SIMPHANT_SOURCE_DIR) + "/tests/data/urdf/";

Eigen::Matrix3d rpy(double r, double p, double y) {  // URDF: Rz(yaw) Ry(pitch) Rx(roll)
  return (Eigen::AngleAxisd(y, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(p, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(r, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}
Eigen::Matrix3d E(const Mat3d& A) {
  Eigen::Matrix3d M;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) M(r, c) = A.m[r][c];
  return M;
}
Eigen::Vector3d E(const Vec3d& a) { return {a.x, a.y, a.z}; }
Eigen::Matrix3d sym(double xx, double yy, double zz, double xy, double xz, double yz) {
  Eigen::Matrix3d I;
  I << xx, xy, xz, xy, yy, yz, xz, yz, zz;
  return I;
}

/// Inertial of one URDF link in its link frame: mass, CoM, inertia about the CoM.
struct Inertial {
  double m;
  Eigen::Vector3d c;
  Eigen::Matrix3d I;
};
Inertial inertial(double m, Eigen::Vector3d xyz, const Eigen::Matrix3d& R, const Eigen::Matrix3d& I) {
  return {m, xyz, R * I * R.transpose()};
}
/// `b` moved into a's frame by (R, p) and welded to `a` (parallel-axis theorem).
Inertial weld(const Inertial& a, const Inertial& b, const Eigen::Matrix3d& R, const Eigen::Vector3d& p) {
  const Eigen::Vector3d cb = R * b.c + p;
  const double M = a.m + b.m;
  const Eigen::Vector3d c = (a.m * a.c + b.m * cb) / M;
  auto shift = [](double m, const Eigen::Vector3d& d) {
    return Eigen::Matrix3d(m * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose()));
  };
  return {M, c, a.I + shift(a.m, a.c - c) + R * b.I * R.transpose() + shift(b.m, cb - c)};
}

void expect_near(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tol, const char* what) {
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), tol) << what << "\n" << a << "\nvs\n" << b;
}

TEST(Urdf, ThreeLinkChainObliqueAxesRotatedInertials) {
  const ReducedModel rm = load_urdf(kDataDir + "chain3.urdf");
  ASSERT_EQ(rm.nq(), 3);
  EXPECT_EQ(rm.name, "chain3");
  EXPECT_EQ(rm.base_link, "base");
  const char* names[] = {"l1", "l2", "l3"};
  const char* joints[] = {"j1", "j2", "j3"};
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(rm.links[k].name, names[k]);
    EXPECT_EQ(rm.links[k].joint_name, joints[k]);
    EXPECT_EQ(rm.links[k].parent, k - 1);
  }
  EXPECT_EQ(rm.links[0].type, ReducedJointType::Revolute);
  EXPECT_EQ(rm.links[1].type, ReducedJointType::Revolute);  // continuous
  EXPECT_TRUE(rm.links[1].continuous);
  EXPECT_FALSE(rm.links[0].continuous);
  EXPECT_EQ(rm.links[2].type, ReducedJointType::Prismatic);
  EXPECT_DOUBLE_EQ(rm.links[0].lower, -2);
  EXPECT_DOUBLE_EQ(rm.links[0].upper, 2.5);
  EXPECT_DOUBLE_EQ(rm.links[0].effort, 50);
  EXPECT_DOUBLE_EQ(rm.links[2].velocity, 0.5);
  expect_near(E(rm.links[0].axis), Eigen::Vector3d(1, 1, 1).normalized(), 1e-15, "axis j1");
  expect_near(E(rm.links[1].axis), Eigen::Vector3d(0, 1, -2).normalized(), 1e-15, "axis j2");
  expect_near(E(rm.links[2].axis), Eigen::Vector3d(1, 0, 1).normalized(), 1e-15, "axis j3");
  expect_near(E(rm.links[0].R_parent_joint), rpy(0.1, 0.2, 0.3), 1e-14, "R j1");
  expect_near(E(rm.links[1].R_parent_joint), rpy(-0.4, 0.6, 1.1), 1e-14, "R j2");
  expect_near(E(rm.links[2].R_parent_joint), rpy(0.7, -0.3, 0.2), 1e-14, "R j3");
  expect_near(E(rm.links[1].p_parent_joint), Eigen::Vector3d(0.3, -0.1, 0.4), 0, "p j2");
  const Inertial in[3] = {
      inertial(2.0, {0.1, 0.2, 0.3}, rpy(0.3, -0.2, 0.5), sym(0.3, 0.4, 0.5, 0.01, 0.02, -0.03)),
      inertial(1.5, {-0.05, 0.4, 0.0}, rpy(1.0, 0.4, -0.7), sym(0.2, 0.25, 0.3, -0.02, 0.01, 0.015)),
      inertial(0.8, {0, 0, 0.15}, rpy(0, 1.2, 0), sym(0.05, 0.06, 0.07, 0, 0, 0))};
  for (int k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(rm.links[k].mass, in[k].m);
    expect_near(E(rm.links[k].com), in[k].c, 0, "com");
    expect_near(E(rm.links[k].inertia_com), in[k].I, 1e-15, "inertia");
  }
  EXPECT_DOUBLE_EQ(rm.gravity.z, -9.81);
}

TEST(Urdf, FixedJointsMergeIntoParentAndBase) {
  const ReducedModel rm = load_urdf(kDataDir + "merge.urdf");
  ASSERT_EQ(rm.nq(), 4);  // a (with b, tool), c, d, e; base + plate dropped
  for (int k = 0; k < rm.nq(); ++k) EXPECT_LT(rm.links[k].parent, k);
  const int a = rm.link_index("a"), c = rm.link_index("c"), d = rm.link_index("d"), e = rm.link_index("e");
  ASSERT_TRUE(a >= 0 && c >= 0 && d >= 0 && e >= 0);
  EXPECT_EQ(rm.link_index("b"), -1);
  EXPECT_EQ(rm.link_index("tool"), -1);
  EXPECT_EQ(rm.links[a].parent, -1);
  EXPECT_EQ(rm.links[e].parent, -1);
  EXPECT_EQ(rm.links[c].parent, a);
  EXPECT_EQ(rm.links[d].parent, a);
  EXPECT_EQ(rm.links[c].joint_name, "j2");
  // Base side: plate sits 0.1 above base, so j1 / j4 origins are composed with it.
  expect_near(E(rm.links[a].p_parent_joint), Eigen::Vector3d(0, 0, 0.3), 1e-15, "p j1");
  expect_near(E(rm.links[a].R_parent_joint), rpy(0, 0, 0.3), 1e-15, "R j1");
  expect_near(E(rm.links[e].p_parent_joint), Eigen::Vector3d(0.5, 0, 0.1), 1e-15, "p j4");
  // b welded to a by jf; tool is massless.
  const Eigen::Matrix3d R_ab = rpy(0.5, -0.2, 0.9);
  const Eigen::Vector3d p_ab(0.3, 0.05, -0.1);
  const Inertial ia = inertial(1.2, {0.1, 0, 0}, rpy(0, 0, 0.4), sym(0.01, 0.02, 0.025, 0, 0, 0));
  const Inertial ib = inertial(0.7, {0, 0.1, 0.02}, rpy(0.2, 0.1, 0), sym(0.004, 0.005, 0.006, 0.0005, 0, 0));
  const Inertial merged = weld(ia, ib, R_ab, p_ab);
  EXPECT_NEAR(rm.links[a].mass, 1.9, 1e-15);
  expect_near(E(rm.links[a].com), merged.c, 1e-15, "merged com");
  expect_near(E(rm.links[a].inertia_com), merged.I, 1e-15, "merged inertia");
  // c hangs on b: joint origin composed through jf; d hangs on tool (jf, jt, j3).
  expect_near(E(rm.links[c].R_parent_joint), R_ab * rpy(0, 0.3, 0), 1e-14, "R j2");
  expect_near(E(rm.links[c].p_parent_joint), p_ab + R_ab * Eigen::Vector3d(0.1, 0, 0), 1e-15, "p j2");
  const Eigen::Matrix3d R_at = R_ab * rpy(0, 0.4, 0);
  const Eigen::Vector3d p_at = p_ab + R_ab * Eigen::Vector3d(0, 0, 0.05);
  expect_near(E(rm.links[d].R_parent_joint), R_at, 1e-14, "R j3");
  expect_near(E(rm.links[d].p_parent_joint), p_at + R_at * Eigen::Vector3d(0, 0, 0.1), 1e-15, "p j3");
  EXPECT_EQ(rm.links[d].type, ReducedJointType::Prismatic);
  EXPECT_TRUE(rm.links[e].continuous);
}

// ---- errors ------------------------------------------------------------------------

using test::expect_urdf_error;
using test::joint;
using test::link;
using test::mass_inertia;
using test::robot;

TEST(UrdfErrors, EachNamesTheElement) {
  const std::string base = "<link name=\"base\"/>";
  const std::string c = "<axis xyz=\"0 0 1\"/>";
  expect_urdf_error(robot(base + link("a", "") + joint("j1", "floating", "base", "a")),
                    {"link 'a' (the floating base of joint 'j1'", "no mass"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "planar", "base", "a")), {"joint 'j1'", "planar"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "weird", "base", "a")), {"j1", "weird"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "continuous", "base", "a", "<axis xyz=\"0 0 0\"/>")),
                    {"joint 'j1'", "axis"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "revolute", "base", "a", c)), {"j1", "limits"});
  // Mass rules.
  expect_urdf_error(robot(base + link("a", "") + joint("j1", "continuous", "base", "a", c)),
                    {"link 'a'", "no mass", "no mass below it", "'j1'"});
  expect_urdf_error(robot(base + link("a", mass_inertia("0", "1", "1", "1")) + joint("j1", "continuous", "base", "a")),
                    {"link 'a': inertial", "mass is 0 but the inertia is not zero"});
  expect_urdf_error(robot(base + link("a", mass_inertia("-2", "1", "1", "1")) + joint("j1", "continuous", "base", "a")),
                    {"link 'a': inertial", "mass must be a finite number >= 0 (got -2 kg)"});
  expect_urdf_error(robot(base + link("a", mass_inertia("1", "1", "-1", "1")) + joint("j1", "continuous", "base", "a")),
                    {"link 'a': inertial", "not positive definite"});
  expect_urdf_error(robot(base + link("a", mass_inertia("1", "1", "1", "1", "2")) + joint("j1", "continuous", "base", "a")),
                    {"link 'a': inertial", "not positive definite"});
  expect_urdf_error(robot(base + link("a", mass_inertia("1", "1", "1", "3")) + joint("j1", "continuous", "base", "a")),
                    {"link 'a': inertial", "triangle inequality"});
  expect_urdf_error(robot(base + link("a") + link("b", mass_inertia("-1", "1", "1", "1")) +
                          joint("j1", "continuous", "base", "a") + joint("jf", "fixed", "a", "b")),
                    {"link 'b' (merged by fixed joints into link 'a'): inertial", "mass must be a finite number >= 0"});
  // A merged part need not be a rigid body alone (anymal's base: a rank-1 placeholder
  // inertia); the merged body must be. Errors then name the merged body.
  expect_urdf_error(robot(base + link("a") + link("b", mass_inertia("1", "1", "1", "5")) +
                          joint("j1", "continuous", "base", "a") + joint("jf", "fixed", "a", "b")),
                    {"link 'a' (with its fixed children merged)", "triangle inequality"});
  expect_urdf_error(robot(base + link("a", "") + link("b", mass_inertia("0", "1", "1", "1")) +
                          joint("j1", "continuous", "base", "a") + joint("jf", "fixed", "a", "b") + link("c") +
                          joint("j2", "continuous", "a", "c")),
                    {"link 'b' (merged by fixed joints into link 'a'): inertial", "mass is 0 but the inertia is not zero"});
  expect_urdf_error(robot(base + link("a", "<inertial><mass value=\"1\"/></inertial>") +
                          joint("j1", "continuous", "base", "a")),
                    {"Link [a]", "inertia element"});  // urdfdom's own check
  // Tree structure.
  expect_urdf_error(robot(base + link("a") + link("b") + joint("j1", "continuous", "base", "a") +
                          joint("j2", "continuous", "a", "b") + joint("j3", "continuous", "b", "a")),
                    {"joint 'j3'", "link 'a' already has parent joint 'j1'", "loop"});
  expect_urdf_error(robot(base + link("x") + link("a") + link("b") + joint("j0", "continuous", "base", "x") +
                          joint("j2", "continuous", "a", "b") + joint("j3", "continuous", "b", "a")),
                    {"kinematic loop", "a -> b", "joint 'j"});
  expect_urdf_error(robot(link("a") + link("b") + joint("j2", "continuous", "a", "b") +
                          joint("j3", "continuous", "b", "a")),
                    {"kinematic loop", "joint 'j", "a -> b -> a"});  // named before urdfdom sees it
  expect_urdf_error(robot(base + link("a") + joint("j1", "continuous", "nosuch", "a")), {"nosuch", "j1"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "continuous", "base", "nosuch")), {"nosuch", "j1"});
  expect_urdf_error(robot(base + "<link name=\"base2\"/>" + link("a") + joint("j1", "continuous", "base", "a")),
                    {"base2", "root"});
  expect_urdf_error(robot(base + link("a") + link("a") + joint("j1", "continuous", "base", "a")), {"link 'a'"});
  expect_urdf_error(robot(base + link("a") + joint("j1", "continuous", "base", "a") +
                          joint("j1", "fixed", "base", "a")),
                    {"joint 'j1'"});
  expect_urdf_error("<robot name=\"r\">\n<link name=\"base\">\n<link name=\"a\"", {"Error", "XML line 3"});
}

// A huge axis is normalised without overflow (it is a direction, not an error).
TEST(Urdf, HugeAxisIsNormalisedWithoutOverflow) {
  const ReducedModel rm = parse_urdf(
      robot("<link name=\"base\"/>" + link("a") + joint("j1", "continuous", "base", "a", "<axis xyz=\"1e200 1e200 0\"/>")),
      "huge.urdf");
  ASSERT_EQ(rm.nq(), 1);
  EXPECT_NEAR(rm.links[0].axis.x, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(rm.links[0].axis.y, std::sqrt(0.5), 1e-15);
  EXPECT_EQ(rm.links[0].axis.z, 0.0);
}

TEST(UrdfErrors, BaseLinksNeedNoInertialAndMissingFileIsReported) {
  const ReducedModel rm = parse_urdf(robot("<link name=\"world\"/><link name=\"base\"/>" + link("a") +
                                           joint("jw", "fixed", "world", "base") +
                                           joint("j1", "continuous", "base", "a") + link("tool", "") +
                                           joint("jt", "fixed", "a", "tool")),
                                     "ok.urdf");
  ASSERT_EQ(rm.nq(), 1);
  EXPECT_EQ(rm.base_link, "world");
  EXPECT_DOUBLE_EQ(rm.links[0].mass, 1.0);
  try {
    load_urdf(kDataDir + "no_such_file.urdf");
    ADD_FAILURE() << "no UrdfError";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_file.urdf: cannot open: No such file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_urdf(kDataDir), UrdfError);  // a directory
}

// ---- forward kinematics and the maximal-coordinate model ------------------------------

std::vector<ReducedLinkParams<double>> params_of(const ReducedModel& rm) {
  std::vector<ReducedLinkParams<double>> p;
  for (int k = 0; k < rm.nq(); ++k) p.push_back(reduced_link_params<double>(rm, k));
  return p;
}

std::vector<double> random_vector(std::mt19937_64& g, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = u(g);
  return v;
}

/// Central difference of the CoM position and rotation along q(t) = q + t qdot.
void check_fk_against_finite_difference(const ReducedModel& rm, std::mt19937_64& g) {
  const int n = rm.nq();
  const auto P = params_of(rm);
  const std::vector<double> q = random_vector(g, n, 3.0), qd = random_vector(g, n, 2.0);
  std::vector<Mat3d> R(n), Rp(n), Rm(n);
  std::vector<Vec3d> o(n), c(n), v(n), w(n), vo(n), op(n), om(n);
  forward_kinematics_velocity(n, P.data(), q.data(), qd.data(), R.data(), o.data(), c.data(), v.data(), w.data(),
                              vo.data());
  const double h = 1e-6;
  std::vector<double> qp(q), qm(q);
  for (int k = 0; k < n; ++k) {
    qp[k] += h * qd[k];
    qm[k] -= h * qd[k];
  }
  forward_kinematics(n, P.data(), qp.data(), Rp.data(), op.data());
  forward_kinematics(n, P.data(), qm.data(), Rm.data(), om.data());
  for (int k = 0; k < n; ++k) {
    const Eigen::Vector3d cp = E(op[k]) + E(Rp[k]) * E(rm.links[k].com);
    const Eigen::Vector3d cm = E(om[k]) + E(Rm[k]) * E(rm.links[k].com);
    expect_near((cp - cm) / (2 * h), E(v[k]), 1e-7, "CoM velocity");
    expect_near((E(op[k]) - E(om[k])) / (2 * h), E(vo[k]), 1e-7, "origin velocity");
    expect_near(E(c[k]), E(o[k]) + E(R[k]) * E(rm.links[k].com), 1e-15, "CoM position");
    // R^T Rdot = [omega_B]x
    const Eigen::Matrix3d W = E(R[k]).transpose() * (E(Rp[k]) - E(Rm[k])) / (2 * h);
    expect_near(Eigen::Vector3d(W(2, 1), W(0, 2), W(1, 0)), E(w[k]), 1e-7, "omega_B");
    expect_near(E(R[k]).transpose() * E(R[k]), Eigen::Matrix3d::Identity(), 1e-14, "R orthonormal");
  }
}

TEST(UrdfKinematics, ForwardKinematicsMatchesFiniteDifferences) {
  std::mt19937_64 g(11);
  for (const char* file : {"chain3.urdf", "merge.urdf"}) {
    const ReducedModel rm = load_urdf(kDataDir + file);
    for (int trial = 0; trial < 5; ++trial) check_fk_against_finite_difference(rm, g);
  }
}

TEST(UrdfKinematics, ForwardKinematicsAtZeroIsTheJointOrigins) {
  const ReducedModel rm = load_urdf(kDataDir + "chain3.urdf");
  const auto P = params_of(rm);
  const std::vector<double> q(3, 0.0);
  std::vector<Mat3d> R(3);
  std::vector<Vec3d> o(3);
  forward_kinematics(3, P.data(), q.data(), R.data(), o.data());
  const Eigen::Matrix3d R1 = rpy(0.1, 0.2, 0.3), R2 = R1 * rpy(-0.4, 0.6, 1.1);
  expect_near(E(R[1]), R2, 1e-14, "R_W l2");
  expect_near(E(o[1]), Eigen::Vector3d(0, 0, 0.5) + R1 * Eigen::Vector3d(0.3, -0.1, 0.4), 1e-15, "o_W l2");
}

TEST(UrdfKinematics, Fp32AgreesWithFp64) {
  const ReducedModel rm = load_urdf(kDataDir + "merge.urdf");
  const int n = rm.nq();
  std::vector<ReducedLinkParams<float>> Pf;
  for (int k = 0; k < n; ++k) Pf.push_back(reduced_link_params<float>(rm, k));
  const auto Pd = params_of(rm);
  std::mt19937_64 g(2);
  const std::vector<double> q = random_vector(g, n, 3.0), qd = random_vector(g, n, 2.0);
  const std::vector<float> qf(q.begin(), q.end()), qdf(qd.begin(), qd.end());
  std::vector<Mat3d> R(n);
  std::vector<Vec3d> o(n), c(n), v(n), w(n), vo(n);
  std::vector<Mat3<float>> Rf(n);
  std::vector<Vec3<float>> of(n), cf(n), vf(n), wf(n), vof(n);
  forward_kinematics_velocity(n, Pd.data(), q.data(), qd.data(), R.data(), o.data(), c.data(), v.data(), w.data(),
                              vo.data());
  forward_kinematics_velocity(n, Pf.data(), qf.data(), qdf.data(), Rf.data(), of.data(), cf.data(), vf.data(),
                              wf.data(), vof.data());
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(cf[k][i], c[k][i], 1e-5);
      EXPECT_NEAR(vf[k][i], v[k][i], 1e-5);
      EXPECT_NEAR(wf[k][i], w[k][i], 1e-5);
    }
  }
}

/// The maximal model's initial state satisfies Phi = 0 and Phi_q qdot = 0.
void check_maximal_model(const ReducedModel& rm, std::mt19937_64& g, double q_scale) {
  const int n = rm.nq();
  const std::vector<double> q = random_vector(g, n, q_scale), qd = random_vector(g, n, 2.0);
  const Model model = maximal_model_from_urdf(rm, q, qd);
  ASSERT_EQ(model.n_bodies(), n);
  ASSERT_EQ(model.n_joints(), n);
  EXPECT_EQ(model.n_rows, 5 * n);
  for (int k = 0; k < n; ++k) {
    const Joint& j = model.joints[k];
    EXPECT_EQ(j.row_offset, 5 * k);
    EXPECT_EQ(j.body_j, k);
    EXPECT_EQ(j.body_i, rm.links[k].parent < 0 ? kGround : rm.links[k].parent);
    EXPECT_NEAR(dot(j.frame.v_i, j.frame.a_i), 0.0, 1e-15);
    expect_near(E(cross(j.frame.v_j, j.frame.a_j)), E(j.frame.b_j), 1e-15, "triad j");
    expect_near(E(model.bodies[k].inertia_B) * E(model.bodies[k].inertia_inv_B), Eigen::Matrix3d::Identity(), 1e-12,
                "inverse inertia");
  }
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  Data d(model);
  set_kinematics(model, d, Y.data());
  evaluate_constraints(model, d, 0.0);
  EXPECT_LT(max_violation(d), 1e-12);
  EXPECT_LT(d.phi_dot.cwiseAbs().maxCoeff(), 1e-12);
}

TEST(UrdfMaximal, InitialStateSatisfiesPositionAndVelocityConstraints) {
  std::mt19937_64 g(5);
  for (const char* file : {"chain3.urdf", "merge.urdf"}) {
    const ReducedModel rm = load_urdf(kDataDir + file);
    for (int trial = 0; trial < 10; ++trial) check_maximal_model(rm, g, 3.0);
  }
  const ReducedModel rm = load_urdf(kDataDir + "merge.urdf");
  const Model model = maximal_model_from_urdf(rm, std::vector<double>(4, 0.0), std::vector<double>(4, 0.0));
  EXPECT_DOUBLE_EQ(model.gravity.z, -9.81);
  EXPECT_EQ(model.bodies[rm.link_index("a")].name, "a");
  EXPECT_THROW(maximal_model_from_urdf(rm, {0.0}, {0.0}), std::invalid_argument);
}

// ---- robots from example-robot-data (pip install example-robot-data) ------------------

TEST(UrdfRobots, LoadsPandaUr5AndXarm7FromExampleRobotData) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  struct Case {
    const char* path;
    int dof;
    const char* base;
  };
  const Case cases[] = {{"panda_description/urdf/panda.urdf", 9, "panda_link0"},
                        {"ur_description/urdf/ur5_robot.urdf", 6, "world"},
                        {"xarm_description/urdf/xarm7.urdf", 7, "world"}};
  std::mt19937_64 g(3);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    const ReducedModel rm = load_urdf(dir + "/" + c.path);
    EXPECT_EQ(rm.nq(), c.dof);
    EXPECT_EQ(rm.base_link, c.base);
    double mass = 0;
    for (const ReducedLink& l : rm.links) mass += l.mass;
    std::printf("  %s: %d dof, moving links (after merging) %d, moving mass %.4f kg\n", c.path, rm.nq(),
                static_cast<int>(rm.links.size()), mass);
    for (int k = 0; k < rm.nq(); ++k) EXPECT_LT(rm.links[k].parent, k);
    for (int trial = 0; trial < 3; ++trial) check_maximal_model(rm, g, 3.0);
    check_fk_against_finite_difference(rm, g);
  }
}

}  // namespace
}  // namespace simphant
