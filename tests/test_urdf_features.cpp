// URDF import of what robot files carry beyond the kinematic tree (urdf/urdf_import.hpp):
// <limit> and <dynamics> values, <mimic> resolution, massless intermediate moving links,
// and the warnings for what is read and not used. Expected values are the numbers written
// into the inline URDFs, or an independent computation (CRBA + RNEA for ABA).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include "robot_data.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/urdf_import.hpp"
#include "urdf_text.hpp"

namespace simphant {
namespace {

using test::expect_urdf_error;
using test::joint;
using test::link;
using test::mass_inertia;
using test::robot;

const std::string kBase = "<link name=\"base\"/>";
const std::string kAxisZ = "<axis xyz=\"0 0 1\"/>";
std::string limit(const char* lo, const char* hi, const char* effort = "10", const char* vel = "2") {
  return std::string("<limit lower=\"") + lo + "\" upper=\"" + hi + "\" effort=\"" + effort + "\" velocity=\"" + vel +
         "\"/>";
}
std::string mimic(const char* j, const char* mult = nullptr, const char* off = nullptr) {
  std::string s = std::string("<mimic joint=\"") + j + "\"";
  if (mult != nullptr) s += std::string(" multiplier=\"") + mult + "\"";
  if (off != nullptr) s += std::string(" offset=\"") + off + "\"";
  return s + "/>";
}

/// Index of the first warning containing `text`, or -1.
int find_warning(const ReducedModel& rm, const std::string& text) {
  for (std::size_t i = 0; i < rm.warnings.size(); ++i)
    if (rm.warnings[i].find(text) != std::string::npos) return static_cast<int>(i);
  return -1;
}
std::string all_warnings(const ReducedModel& rm) {
  std::string s;
  for (const std::string& w : rm.warnings) s += "  " + w + "\n";
  return s;
}

// ---- limits and <dynamics> ---------------------------------------------------------------

TEST(UrdfJointValues, LimitsAndDynamicsAreStored) {
  const ReducedModel rm = parse_urdf(
      robot(kBase + link("a") + link("b") + link("c") +
            joint("j1", "revolute", "base", "a", kAxisZ + limit("-1.5", "2.5", "87", "2.175") +
                                                     "<dynamics damping=\"0.3\" friction=\"0.7\"/>") +
            joint("j2", "continuous", "a", "b", "<limit effort=\"12\" velocity=\"3\"/><dynamics damping=\"2\"/>") +
            joint("j3", "prismatic", "b", "c", limit("0", "0.04", "100", "0.2") + "<dynamics friction=\"5\"/>")),
      "ok.urdf");
  ASSERT_EQ(rm.nq(), 3);
  const ReducedLink &a = rm.links[0], &b = rm.links[1], &c = rm.links[2];
  EXPECT_EQ(a.lower, -1.5);
  EXPECT_EQ(a.upper, 2.5);
  EXPECT_EQ(a.effort, 87.0);
  EXPECT_EQ(a.velocity, 2.175);
  EXPECT_EQ(a.damping, 0.3);
  EXPECT_EQ(a.friction, 0.7);
  EXPECT_TRUE(b.continuous);
  EXPECT_EQ(b.effort, 12.0);
  EXPECT_EQ(b.velocity, 3.0);
  EXPECT_EQ(b.damping, 2.0);
  EXPECT_EQ(b.friction, 0.0);  // the spec's default
  EXPECT_EQ(c.upper, 0.04);
  EXPECT_EQ(c.damping, 0.0);
  EXPECT_EQ(c.friction, 5.0);
  EXPECT_EQ(a.mimic, -1);
  EXPECT_TRUE(rm.warnings.empty()) << all_warnings(rm);
}

TEST(UrdfJointValues, BadLimitsAndDynamicsNameTheJoint) {
  const std::string l = link("a");
  expect_urdf_error(robot(kBase + l + joint("j1", "revolute", "base", "a", limit("1", "-1"))),
                    {"joint 'j1': limit", "lower <= upper", "lower 1, upper -1"});
  // urdfdom refuses non-finite numbers itself, naming the joint.
  expect_urdf_error(robot(kBase + l + joint("j1", "revolute", "base", "a", limit("nan", "1"))), {"limit", "[j1]"});
  expect_urdf_error(robot(kBase + l + joint("j1", "revolute", "base", "a", limit("0", "1", "inf"))), {"limit", "[j1]"});
  expect_urdf_error(robot(kBase + l + joint("j1", "continuous", "base", "a", "<dynamics damping=\"-0.1\"/>")),
                    {"joint 'j1': dynamics: damping must be a finite number >= 0 (got -0.1)"});
  expect_urdf_error(robot(kBase + l + joint("j1", "continuous", "base", "a", "<dynamics friction=\"-2\"/>")),
                    {"joint 'j1': dynamics: friction", "(got -2)"});
  expect_urdf_error(robot(kBase + l + joint("j1", "continuous", "base", "a", "<dynamics damping=\"inf\"/>")),
                    {"dynamics", "[j1]"});
}

// ---- <mimic> ---------------------------------------------------------------------------

TEST(UrdfMimic, DirectAndChainedMimicsResolveToTheLeader) {
  // j2 = 2 j1 + 0.1 ; j3 = -0.5 j2 + 0.3 = -j1 + 0.25 ; j4 = 1 j3 + 0 = -j1 + 0.25 (defaults 1, 0).
  const ReducedModel rm =
      parse_urdf(robot(kBase + link("a") + link("b") + link("c") + link("d") +
                       joint("j1", "continuous", "base", "a") + joint("j2", "continuous", "a", "b", mimic("j1", "2", "0.1")) +
                       joint("j3", "prismatic", "a", "c", limit("-1", "1") + mimic("j2", "-0.5", "0.3")) +
                       joint("j4", "continuous", "c", "d", mimic("j3"))),
                 "ok.urdf");
  ASSERT_EQ(rm.nq(), 4);
  const int j1 = 0;
  auto by_joint = [&](const char* name) -> const ReducedLink& {
    for (const ReducedLink& l : rm.links)
      if (l.joint_name == name) return l;
    throw std::runtime_error(name);
  };
  EXPECT_EQ(rm.links[j1].joint_name, "j1");
  EXPECT_EQ(by_joint("j1").mimic, -1);
  const ReducedLink &l2 = by_joint("j2"), &l3 = by_joint("j3"), &l4 = by_joint("j4");
  EXPECT_EQ(l2.mimic, j1);
  EXPECT_EQ(l2.mimic_multiplier, 2.0);
  EXPECT_EQ(l2.mimic_offset, 0.1);
  EXPECT_EQ(l3.mimic, j1);
  EXPECT_DOUBLE_EQ(l3.mimic_multiplier, -1.0);
  EXPECT_DOUBLE_EQ(l3.mimic_offset, -0.5 * 0.1 + 0.3);
  EXPECT_EQ(l4.mimic, j1);
  EXPECT_DOUBLE_EQ(l4.mimic_multiplier, -1.0);
  EXPECT_DOUBLE_EQ(l4.mimic_offset, 0.25);
  // The composed map gives the same q as applying the chain joint by joint.
  for (double q1 : {-1.3, 0.0, 0.7}) {
    const double q2 = 2 * q1 + 0.1, q3 = -0.5 * q2 + 0.3, q4 = q3;
    EXPECT_NEAR(l4.mimic_multiplier * q1 + l4.mimic_offset, q4, 1e-15);
  }
}

TEST(UrdfMimic, WhatCannotBeFollowedIsAnError) {
  const std::string ab = kBase + link("a") + link("b");
  expect_urdf_error(robot(ab + joint("j1", "continuous", "base", "a") + joint("j2", "continuous", "a", "b", mimic("j2"))),
                    {"joint 'j2': mimic: the joint mimics itself"});
  expect_urdf_error(robot(ab + joint("j1", "continuous", "base", "a") + joint("j2", "continuous", "a", "b", mimic("nope"))),
                    {"joint 'j2': mimic: no joint 'nope'"});
  expect_urdf_error(robot(ab + joint("j1", "fixed", "base", "a") + joint("j2", "continuous", "a", "b", mimic("j1"))),
                    {"joint 'j2': mimic: joint 'j1' has no coordinate"});
  expect_urdf_error(robot(ab + link("c") + joint("j1", "continuous", "base", "a") +
                          joint("j2", "continuous", "a", "b", mimic("j3")) + joint("j3", "continuous", "b", "c", mimic("j2"))),
                    {"mimic: a cycle of mimic joints", "j2 -> j3 -> j2"});
  expect_urdf_error(robot(ab + joint("j1", "continuous", "base", "a") +
                          joint("j2", "continuous", "a", "b", mimic("j1", "nan"))),
                    {"mimic", "[j2]"});  // urdfdom's own check
}

TEST(UrdfMimic, PandaFingersFollowFingerOne) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const ReducedModel rm = load_urdf(dir + "/panda_description/urdf/panda.urdf");
  const int f1 = rm.link_index("panda_leftfinger"), f2 = rm.link_index("panda_rightfinger");
  ASSERT_GE(f1, 0);
  ASSERT_GE(f2, 0);
  EXPECT_EQ(rm.links[f1].mimic, -1);
  EXPECT_EQ(rm.links[f2].mimic, f1);
  EXPECT_EQ(rm.links[f2].mimic_multiplier, 1.0);
  EXPECT_EQ(rm.links[f2].mimic_offset, 0.0);
  EXPECT_EQ(rm.links[f2].damping, 0.3);
  const ReducedLink& j1 = rm.links[rm.link_index("panda_link1")];
  EXPECT_EQ(j1.damping, 0.003);  // <dynamics D="1" K="7000" damping="0.003" friction="0.0" ...>
  EXPECT_EQ(j1.friction, 0.0);
  EXPECT_EQ(j1.effort, 87.0);
  EXPECT_EQ(j1.lower, -2.8973);
  int mimics = 0;
  for (const ReducedLink& l : rm.links) mimics += l.mimic >= 0 ? 1 : 0;
  EXPECT_EQ(mimics, 1);
}

// ---- massless intermediate links --------------------------------------------------------

/// Two revolutes at one point with a massless link between them (a 2-axis joint), then a
/// third link; the massless link carries a massless fixed frame.
std::string gimbal_urdf() {
  const std::string body = "<inertial><origin xyz=\"0.1 0.2 -0.3\" rpy=\"0.2 0.1 0\"/><mass value=\"1.7\"/>"
                           "<inertia ixx=\"0.05\" iyy=\"0.06\" izz=\"0.07\" ixy=\"0.001\" ixz=\"0\" iyz=\"0\"/></inertial>";
  return robot(kBase + link("yoke", "") + link("frame", "") + link("body", body) + link("tip") +
               joint("jx", "continuous", "base", "yoke", "<origin xyz=\"0 0 1\"/><axis xyz=\"1 0 0\"/>") +
               joint("jf", "fixed", "yoke", "frame", "<origin xyz=\"0.3 0 0\"/>") +
               joint("jy", "continuous", "yoke", "body", "<axis xyz=\"0 1 0\"/>") +
               joint("jz", "prismatic", "body", "tip", "<origin xyz=\"0 0 -0.5\"/><axis xyz=\"0 0 1\"/>" +
                                                            limit("-0.2", "0.2")));
}

TEST(UrdfMassless, IntermediateLinkIsAcceptedAndAbaMatchesCrba) {
  const ReducedModel rm = parse_urdf(gimbal_urdf(), "gimbal.urdf");
  ASSERT_EQ(rm.nq(), 3);
  const int yoke = rm.link_index("yoke");
  ASSERT_EQ(yoke, 0);
  EXPECT_EQ(rm.links[yoke].mass, 0.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(rm.links[yoke].inertia_com.m[r][c], 0.0);
  // ABA on the massless link against M qdd = tau - bias from CRBA (Featherstone Table 6.2)
  // solved by Eigen: two different algorithms; M is well conditioned here, so agreement
  // to 1e-12 relative is the double-precision round-off of either.
  std::vector<ReducedLinkParams<double>> P;
  for (int k = 0; k < rm.nq(); ++k) P.push_back(reduced_link_params<double>(rm, k));
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  static AbaWorkspace<double> aws;
  static CrbaWorkspace<double> cws;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> q(3), qd(3), tau(3), qdd(3), M(9), bias(3);
    for (int k = 0; k < 3; ++k) {
      q[k] = 3 * u(g);
      qd[k] = 2 * u(g);
      tau[k] = 5 * u(g);
    }
    aba(3, P.data(), rm.gravity, q.data(), qd.data(), tau.data(), qdd.data(), aws);
    crba(3, P.data(), rm.gravity, q.data(), qd.data(), M.data(), bias.data(), cws);
    const Eigen::Matrix3d Me = Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(M.data());
    const Eigen::Vector3d rhs = Eigen::Map<Eigen::Vector3d>(tau.data()) - Eigen::Map<Eigen::Vector3d>(bias.data());
    const Eigen::Vector3d ref = Me.ldlt().solve(rhs);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(qdd[k], ref[k], 1e-12 * std::max(1.0, ref.cwiseAbs().maxCoeff()));
  }
}

TEST(UrdfMassless, LeafWithoutMassIsRefusedAndDaeNeedsMassEverywhere) {
  expect_urdf_error(robot(kBase + link("a") + link("b", "") + joint("j1", "continuous", "base", "a") +
                          joint("j2", "continuous", "a", "b")),
                    {"link 'b': no mass", "no mass below it", "moving joint 'j2'"});
  expect_urdf_error(robot(kBase + link("a", mass_inertia("0", "0", "0", "0")) + link("b", "") +
                          joint("j1", "continuous", "base", "a") + joint("j2", "continuous", "a", "b")),
                    {"link 'a': no mass"});
  const ReducedModel rm = parse_urdf(gimbal_urdf(), "gimbal.urdf");
  try {
    require_dae_masses(rm);
    ADD_FAILURE() << "no UrdfError";
  } catch (const UrdfError& e) {
    EXPECT_NE(std::string(e.what()).find("link 'yoke' (joint 'jx'): no mass: solver dae needs mass on every moving "
                                         "link; use solver aba or cga"),
              std::string::npos)
        << e.what();
  }
  // The maximal model still builds (the aba / cga scenes report bodies from it): the
  // massless body has zero inertia and zero inverse, not inf.
  const Model m = maximal_model_from_urdf(rm, {0.1, 0.2, 0.0}, {0.0, 0.0, 0.0});
  EXPECT_EQ(m.bodies[0].mass, 0.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(m.bodies[0].inertia_inv_B.m[r][c], 0.0);
  const ReducedModel chain = parse_urdf(robot(kBase + link("a") + joint("j1", "continuous", "base", "a")), "ok.urdf");
  EXPECT_NO_THROW(require_dae_masses(chain));
}

// ---- warnings for what is read and not used -------------------------------------------------

TEST(UrdfWarnings, EveryUnusedElementIsListedOnce) {
  const std::string extra_dyn = "<dynamics damping=\"0.1\" K=\"7000\" D=\"1\"/>";
  const std::string safety = "<safety_controller k_position=\"100\" k_velocity=\"40\" soft_lower_limit=\"-1\" "
                             "soft_upper_limit=\"1\"/>";
  const std::string xml = robot(
      kBase + "<material name=\"grey\"><color rgba=\"0.5 0.5 0.5 1\"/></material>" +
      "<link name=\"a\">" + test::kInertial + "<visual><geometry><box size=\"1 1 1\"/></geometry></visual>" +
      "<collision><geometry><box size=\"1 1 1\"/></geometry></collision></link>" + link("b") + link("c") +
      link("f", "") +
      joint("j1", "revolute", "base", "a", limit("-1", "1") + extra_dyn + safety + "<calibration rising=\"0.1\"/>") +
      joint("j2", "continuous", "a", "b", limit("-1", "1") + extra_dyn + safety) +
      joint("j3", "continuous", "b", "c", "<axis xyz=\"0 0 1\" foo=\"1\"/>") +
      joint("jf", "fixed", "c", "f", "<axis xyz=\"0 0 1\"/><dynamics damping=\"1\"/><mimic joint=\"j1\"/>") +
      "<transmission name=\"t1\"><type>transmission_interface/SimpleTransmission</type></transmission>" +
      "<gazebo reference=\"a\"><mu1>0.2</mu1></gazebo><gazebo><static>false</static></gazebo>" +
      "<sensor name=\"cam\"/>");
  const ReducedModel rm = parse_urdf(xml, "warn.urdf");
  ASSERT_EQ(rm.nq(), 3);
  const std::vector<std::string> expected = {
      "<dynamics> attributes K, D of joints 'j1', 'j2': not used",
      "<safety_controller> of joints 'j1', 'j2': not used (SimPhant enforces the <limit> values only)",
      "<calibration> of joint 'j1': not used",
      "<limit> lower/upper of joint 'j2': not used (a continuous joint has no position limits)",
      "<axis> attribute foo of joint 'j3': not used",
      "<axis> of joint 'jf': not used (a fixed joint has no coordinate)",
      "<dynamics> of joint 'jf': not used",
      "<mimic> of joint 'jf': not used",
      "<transmission> of transmission 't1': not used (actuators come from the scene",
      "<gazebo> of references 'a', '(robot)': not used",
      "<sensor> of element 'cam': not used",
      "2 <visual>/<collision> and 1 top-level <material> elements: not used"};
  for (const std::string& e : expected) EXPECT_GE(find_warning(rm, e), 0) << "missing: " << e << "\n" << all_warnings(rm);
  EXPECT_EQ(rm.warnings.size(), expected.size()) << all_warnings(rm);
  // The values that are used are still read.
  EXPECT_EQ(rm.links[0].damping, 0.1);
}

TEST(UrdfWarnings, PandaListsItsExtraDynamicsAttributesAndSafetyControllers) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  const ReducedModel rm = load_urdf(dir + "/panda_description/urdf/panda.urdf");
  const int dyn = find_warning(rm, "<dynamics> attributes D, K, mu_coulomb, mu_viscous of joints 'panda_joint1',");
  const int safety = find_warning(rm, "<safety_controller> of joints 'panda_joint1',");
  ASSERT_GE(dyn, 0) << all_warnings(rm);
  ASSERT_GE(safety, 0) << all_warnings(rm);
  EXPECT_NE(rm.warnings[static_cast<std::size_t>(dyn)].find("'panda_joint7'"), std::string::npos);
  EXPECT_NE(rm.warnings[static_cast<std::size_t>(safety)].find("'panda_joint7'"), std::string::npos);
}

// Every URDF of example-robot-data either imports or is refused with a UrdfError (no
// crash, no other exception); those that import have topological order and finite values.
TEST(UrdfRobots, EveryExampleRobotDataUrdfImportsOrIsRefusedCleanly) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  int loaded = 0, refused = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".urdf") continue;
    try {
      const ReducedModel rm = load_urdf(e.path().string());
      for (int k = 0; k < rm.nq(); ++k) {
        EXPECT_LT(rm.links[k].parent, k);
        EXPECT_TRUE(std::isfinite(rm.links[k].mass) && rm.links[k].mass >= 0) << e.path();
        EXPECT_LT(rm.links[k].mimic, rm.nq());
      }
      ++loaded;
    } catch (const UrdfError& err) {
      ++refused;
      std::printf("  refused: %s\n", err.what());
    }
  }
  std::printf("  example-robot-data: %d URDFs imported, %d refused\n", loaded, refused);
  EXPECT_GT(loaded, 20);
}

}  // namespace
}  // namespace simphant
