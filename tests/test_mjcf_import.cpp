// MJCF import (src/simphant/mjcf/mjcf_import.hpp): defaults and childclass, angle units,
// orientation forms, geom inertia against closed forms, joints -> links, welding, the
// floating base, actuators, warnings and the errors' naming of element and attribute.
// tests/python/test_mjcf_mujoco.py checks the import against MuJoCo itself.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "simphant/mjcf/mjcf_import.hpp"

using namespace simphant;

namespace {

constexpr double kPi = 3.14159265358979323846;

MjcfModel imp(const std::string& body, const std::string& head = "", const std::string& tail = "") {
  return import_mjcf("<mujoco model=\"t\">" + head + "<worldbody>" + body + "</worldbody>" + tail + "</mujoco>",
                     "test.xml");
}

std::string error_of(const std::string& body, const std::string& head = "", const std::string& tail = "") {
  try {
    imp(body, head, tail);
  } catch (const MjcfError& e) {
    return e.what();
  }
  return "no error";
}

std::string import_error_of(const std::string& xml) {
  try {
    import_mjcf(xml, "test.xml");
  } catch (const MjcfError& e) {
    return e.what();
  }
  return "no error";
}

bool has_warning(const ReducedModel& rm, const std::string& part) {
  for (const std::string& w : rm.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

void expect_mat_near(const Mat3d& a, const Mat3d& b, double tol) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.m[r][c], b.m[r][c], tol) << r << "," << c;
}

const char* kBall = "<geom type=\"sphere\" size=\"0.1\"/>";

}  // namespace

TEST(MjcfImport, DefaultsAndChildclass) {
  const std::string head =
      "<default><joint damping=\"2\" frictionloss=\"0\"/><geom density=\"500\"/>"
      "<default class=\"a\"><joint damping=\"3\" axis=\"1 0 0\"/></default></default>";
  const MjcfModel mj = imp(
      "<body name=\"b1\" childclass=\"a\"><joint name=\"j1\"/>" + std::string(kBall) +
          "<body name=\"b2\"><joint name=\"j2\" class=\"main\"/>" + kBall +
          "<body name=\"b3\"><joint name=\"j3\" damping=\"7\"/>" + kBall + "</body></body></body>",
      head);
  const ReducedModel& rm = mj.model;
  ASSERT_EQ(rm.nq(), 3);
  EXPECT_EQ(rm.links[0].damping, 3);  // childclass a
  EXPECT_EQ(rm.links[0].axis.x, 1);   // a's axis
  EXPECT_EQ(rm.links[1].damping, 2);  // class main overrides the childclass
  EXPECT_EQ(rm.links[1].axis.z, 1);   // main's axis: the MJCF default (0 0 1)
  EXPECT_EQ(rm.links[2].damping, 7);  // explicit attribute wins; class a from b1's childclass otherwise
  EXPECT_EQ(rm.links[2].axis.x, 1);
  EXPECT_NEAR(rm.links[0].mass, 500 * 4.0 / 3.0 * kPi * 1e-3, 1e-14);  // geom density from main
  EXPECT_EQ(rm.links[0].parent, -1);
  EXPECT_EQ(rm.links[2].parent, 1);
}

TEST(MjcfImport, AngleUnits) {
  const std::string body =
      "<body euler=\"0 0 90\"><joint name=\"h\" range=\"-90 45\"/><joint name=\"s\" type=\"slide\" range=\"-90 45\"/>" +
      std::string(kBall) + "</body>";
  const ReducedModel deg = imp(body).model;
  EXPECT_NEAR(deg.links[0].lower, -kPi / 2, 1e-15);
  EXPECT_NEAR(deg.links[0].upper, kPi / 4, 1e-15);
  EXPECT_FALSE(deg.links[0].continuous);
  EXPECT_EQ(deg.links[1].lower, -90);  // slide: metres, never converted
  EXPECT_NEAR(deg.links[0].R_parent_joint.m[1][0], 1, 1e-15);  // x -> y: 90 degrees about z
  const ReducedModel rad = imp("<body euler=\"0 0 1.5707963267948966\"><joint range=\"-1 0.5\"/>" +
                                   std::string(kBall) + "</body>",
                               "<compiler angle=\"radian\"/>")
                               .model;
  EXPECT_EQ(rad.links[0].lower, -1);
  EXPECT_EQ(rad.links[0].upper, 0.5);
  expect_mat_near(rad.links[0].R_parent_joint, deg.links[0].R_parent_joint, 1e-15);
  // limited="auto" (autolimits): limited iff a range is given
  EXPECT_TRUE(imp("<body><joint/>" + std::string(kBall) + "</body>").model.links[0].continuous);
  EXPECT_TRUE(imp("<body><joint limited=\"false\" range=\"-1 1\"/>" + std::string(kBall) + "</body>")
                  .model.links[0].continuous);
}

TEST(MjcfImport, OrientationFormsAgree) {
  // One rotation: 120 degrees about (1, 1, 1)/sqrt(3), which maps x -> y -> z -> x.
  const char* forms[] = {"quat=\"0.5 0.5 0.5 0.5\"", "axisangle=\"1 1 1 120\"", "xyaxes=\"0 1 0 0 0 1\"",
                         "euler=\"90 90 0\"" /* xyz, moving axes: Rx(90) Ry(90) */};
  Mat3d R0{};
  for (int k = 0; k < 4; ++k) {
    const ReducedModel rm =
        imp("<body " + std::string(forms[k]) + "><joint/>" + kBall + "</body>").model;
    if (k == 0) R0 = rm.links[0].R_parent_joint;
    expect_mat_near(rm.links[0].R_parent_joint, R0, 1e-15);
  }
  EXPECT_NEAR(R0.m[1][0], 1, 1e-15);  // x -> y
  EXPECT_NEAR(R0.m[2][1], 1, 1e-15);  // y -> z
  // zaxis: the shortest rotation taking z to the given axis
  const ReducedModel z = imp("<body zaxis=\"1 0 0\"><joint/>" + std::string(kBall) + "</body>").model;
  EXPECT_NEAR(z.links[0].R_parent_joint.m[0][2], 1, 1e-15);
  EXPECT_NEAR(z.links[0].R_parent_joint.m[1][1], 1, 1e-15);
  // eulerseq in capitals: fixed axes
  const ReducedModel X = imp("<body euler=\"90 0 90\"><joint/>" + std::string(kBall) + "</body>",
                             "<compiler eulerseq=\"XYZ\"/>").model;
  expect_mat_near(X.links[0].R_parent_joint, R0, 1e-15);  // Rz(90) Rx(90), as MuJoCo 4.0.1 compiles it
  // xyz (moving axes) "90 0 90" = Rx(90) Rz(90): MuJoCo 4.0.1's body_quat gives [[0 -1 0] [0 0 -1] [1 0 0]]
  const ReducedModel x = imp("<body euler=\"90 0 90\"><joint/>" + std::string(kBall) + "</body>").model;
  EXPECT_NEAR(x.links[0].R_parent_joint.m[0][1], -1, 1e-15);
  EXPECT_NEAR(x.links[0].R_parent_joint.m[1][2], -1, 1e-15);
  EXPECT_NEAR(x.links[0].R_parent_joint.m[2][0], 1, 1e-15);
}

TEST(MjcfImport, FromtoCapsuleMassAndInertia) {
  const double r = 0.05, h = 0.6, rho = 1000;
  const ReducedModel rm =
      imp("<body><joint/><geom type=\"capsule\" fromto=\"0 0 0 0 0 0.6\" size=\"0.05\"/></body>").model;
  const double mc = rho * kPi * r * r * h, ms = rho * 4.0 / 3.0 * kPi * r * r * r;
  const double m = mc + ms;
  const double I_axis = mc * r * r / 2 + 2.0 / 5.0 * ms * r * r;
  const double I_perp = mc * (r * r / 4 + h * h / 12) + ms * (2.0 / 5.0 * r * r + h * h / 4 + 3.0 * h * r / 8);
  const ReducedLink& l = rm.links[0];
  EXPECT_NEAR(l.mass, m, 1e-13 * m);
  EXPECT_NEAR(l.com.z, 0.3, 1e-15);
  EXPECT_NEAR(l.inertia_com.m[0][0], I_perp, 1e-13 * I_perp);
  EXPECT_NEAR(l.inertia_com.m[1][1], I_perp, 1e-13 * I_perp);
  EXPECT_NEAR(l.inertia_com.m[2][2], I_axis, 1e-13 * I_axis);
  // Along x: the axis moment moves to xx.
  const ReducedLink lx =
      imp("<body><joint/><geom type=\"capsule\" fromto=\"-0.3 0 0 0.3 0 0\" size=\"0.05\"/></body>").model.links[0];
  EXPECT_NEAR(lx.inertia_com.m[0][0], I_axis, 1e-13 * I_axis);
  EXPECT_NEAR(lx.inertia_com.m[2][2], I_perp, 1e-13 * I_perp);
  // mass replaces density; box and cylinder closed forms
  const ReducedLink b =
      imp("<body><joint/><geom type=\"box\" size=\"0.1 0.2 0.3\" mass=\"2\"/></body>").model.links[0];
  EXPECT_NEAR(b.mass, 2, 1e-15);
  EXPECT_NEAR(b.inertia_com.m[0][0], 2 * (0.04 + 0.09) / 3, 1e-15);
  const ReducedLink c =
      imp("<body><joint/><geom type=\"cylinder\" size=\"0.1 0.2\" density=\"10\"/></body>").model.links[0];
  const double mcyl = 10 * kPi * 0.01 * 0.4;
  EXPECT_NEAR(c.mass, mcyl, 1e-14);
  EXPECT_NEAR(c.inertia_com.m[0][0], mcyl * (3 * 0.01 + 0.16) / 12, 1e-15);
  EXPECT_NEAR(c.inertia_com.m[2][2], mcyl * 0.01 / 2, 1e-15);
  // an <inertial> wins over geoms (inertiafromgeom auto) and loses with inertiafromgeom true
  const std::string withinertial = "<body><joint/><inertial pos=\"0 0 1\" mass=\"3\" diaginertia=\"1 2 2\"/>" +
                                   std::string(kBall) + "</body>";
  EXPECT_EQ(imp(withinertial).model.links[0].mass, 3);
  EXPECT_EQ(imp(withinertial).model.links[0].com.z, 1);
  EXPECT_NEAR(imp(withinertial, "<compiler inertiafromgeom=\"true\"/>").model.links[0].mass,
              1000 * 4.0 / 3.0 * kPi * 1e-3, 1e-12);
}

TEST(MjcfImport, MultiJointBodyBecomesChain) {
  const ReducedModel rm = imp(
      "<body name=\"b\" pos=\"1 0 0\"><joint name=\"j1\" pos=\"0 0 0.1\" axis=\"1 0 0\"/>"
      "<joint name=\"j2\" type=\"slide\" pos=\"0 0.2 0\" axis=\"0 2 0\"/>"
      "<geom type=\"sphere\" size=\"0.1\" pos=\"0 0 0.5\"/></body>").model;
  ASSERT_EQ(rm.nq(), 2);
  EXPECT_EQ(rm.links[0].name, "b/j1");
  EXPECT_EQ(rm.links[1].name, "b");
  EXPECT_EQ(rm.links[0].mass, 0);  // massless intermediate link
  EXPECT_GT(rm.links[1].mass, 0);
  EXPECT_EQ(rm.links[1].parent, 0);
  EXPECT_EQ(rm.links[1].type, ReducedJointType::Prismatic);
  EXPECT_EQ(rm.links[1].axis.y, 1);  // normalised
  EXPECT_NEAR(rm.links[0].p_parent_joint.x, 1, 1e-15);
  EXPECT_NEAR(rm.links[0].p_parent_joint.z, 0.1, 1e-15);
  EXPECT_NEAR(rm.links[1].p_parent_joint.y, 0.2, 1e-15);   // p2 - p1
  EXPECT_NEAR(rm.links[1].p_parent_joint.z, -0.1, 1e-15);
  EXPECT_NEAR(rm.links[1].com.y, -0.2, 1e-15);  // body frame shifted to joint 2's point
  EXPECT_NEAR(rm.links[1].com.z, 0.5, 1e-15);
}

TEST(MjcfImport, WeldedBodyMerged) {
  const ReducedModel rm = imp(
      "<body name=\"a\"><joint/><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/>"
      "<body name=\"w\" pos=\"0 0 1\"><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/>"
      "<body name=\"c\" pos=\"1 0 0\"><joint/>" + std::string(kBall) + "</body></body></body>").model;
  ASSERT_EQ(rm.nq(), 2);
  EXPECT_EQ(rm.links[0].name, "a");  // the welded body w does not rename its parent's link
  EXPECT_EQ(rm.links[1].name, "c");
  EXPECT_EQ(rm.links[0].mass, 2);
  EXPECT_NEAR(rm.links[0].com.z, 0.5, 1e-15);
  const double Is = 2.0 / 5.0 * 1 * 0.01;
  EXPECT_NEAR(rm.links[0].inertia_com.m[0][0], 2 * Is + 2 * 0.25, 1e-15);  // parallel axis
  EXPECT_NEAR(rm.links[0].inertia_com.m[2][2], 2 * Is, 1e-15);
  EXPECT_NEAR(rm.links[1].p_parent_joint.x, 1, 1e-15);  // composed through the welded body
  EXPECT_NEAR(rm.links[1].p_parent_joint.z, 1, 1e-15);
  // bodies welded to the world: the fixed base's mass
  const ReducedModel w = imp("<body name=\"s\"><geom type=\"sphere\" size=\"0.1\" mass=\"4\"/></body>"
                             "<body><joint/>" + std::string(kBall) + "</body>").model;
  EXPECT_FALSE(w.floating);
  EXPECT_EQ(w.base.mass, 4);
}

TEST(MjcfImport, SettotalmassScalesEveryBodyIncludingThoseWeldedToTheWorld) {
  // masses 1 (welded to the world), 2 and 5: total 8, scaled to 4 (factor 1/2); the
  // inertias with them, the centres of mass unchanged
  const std::string body =
      "<body name=\"s\"><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/></body>"
      "<body name=\"a\"><joint/><geom type=\"sphere\" size=\"0.1\" mass=\"2\" pos=\"0 0 0.3\"/>"
      "<body name=\"b\"><joint/><geom type=\"box\" size=\"0.1 0.2 0.3\" mass=\"5\"/></body></body>";
  const ReducedModel plain = imp(body).model;
  const ReducedModel rm = imp(body, "<compiler settotalmass=\"4\"/>").model;
  EXPECT_NEAR(rm.links[0].mass, 1, 1e-15);
  EXPECT_NEAR(rm.links[1].mass, 2.5, 1e-15);
  EXPECT_NEAR(rm.base.mass, 0.5, 1e-15);
  EXPECT_NEAR(rm.links[0].com.z, plain.links[0].com.z, 1e-15);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(rm.links[1].inertia_com.m[r][c], 0.5 * plain.links[1].inertia_com.m[r][c], 1e-15);
  EXPECT_NE(error_of(body, "<compiler settotalmass=\"inf\"/>").find("attribute 'settotalmass'"), std::string::npos);
  // a later <compiler> without it keeps it (MuJoCo's compiler settings accumulate)
  EXPECT_NEAR(imp(body, "<compiler settotalmass=\"4\"/><compiler angle=\"radian\"/>").model.links[1].mass, 2.5, 1e-15);
  // fusestatic folds the body welded to the world into the world: the total is 2 + 5 = 7
  // (MuJoCo 4.0.1: a = 8/7, b = 20/7 for settotalmass 4)
  const ReducedModel fused = imp(body, "<compiler settotalmass=\"4\" fusestatic=\"true\"/>").model;
  EXPECT_NEAR(fused.links[0].mass, 8.0 / 7.0, 1e-15);
  EXPECT_NEAR(fused.links[1].mass, 20.0 / 7.0, 1e-15);
  // <= 0: MuJoCo's "not set"
  EXPECT_EQ(imp(body, "<compiler settotalmass=\"-1\"/>").model.links[1].mass, 5);
}

TEST(MjcfImport, JointSpringsAboutSpringrefLessRef) {
  const MjcfModel mj = imp(
      "<body name=\"a\"><joint name=\"h\" stiffness=\"8\" springref=\"30\" ref=\"10\"/>"
      "<joint name=\"s\" type=\"slide\" stiffness=\"50\" springref=\"0.2\"/>" + std::string(kBall) + "</body>");
  const ReducedModel& rm = mj.model;
  ASSERT_EQ(rm.nq(), 2);
  EXPECT_EQ(rm.links[0].stiffness, 8);
  EXPECT_NEAR(rm.links[0].spring_q, 20 * kPi / 180, 1e-15);  // degrees, as ref; q = qpos - ref
  EXPECT_EQ(rm.links[1].stiffness, 50);
  EXPECT_NEAR(rm.links[1].spring_q, 0.2, 1e-15);  // a slide's springref is a length
  // <flag spring="disable">: MuJoCo runs without them, so they are dropped (warned)
  const std::string sprung = "<body name=\"a\"><joint stiffness=\"8\"/>" + std::string(kBall) + "</body>";
  for (const char* f : {"spring", "passive"}) {
    const ReducedModel off = imp(sprung, std::string("<option><flag ") + f + "=\"disable\"/></option>").model;
    EXPECT_EQ(off.links[0].stiffness, 0) << f;
    EXPECT_TRUE(has_warning(off, "springs (stiffness) are dropped")) << f;
  }
}

TEST(MjcfImport, SolreflimitFromTheJointOrItsClassRaisedToTwoSteps) {
  const std::string defaults = "<default><default class=\"soft\"><joint solreflimit=\"0.05 0.7\"/></default></default>";
  const std::string head = "<option timestep=\"0.005\"/>" + defaults;
  const std::string body = "<body name=\"a\"><joint name=\"d\" range=\"-1 1\"/>"
                           "<joint name=\"c\" class=\"soft\" range=\"-1 1\"/>"
                           "<joint name=\"f\" class=\"soft\" range=\"-1 1\" solreflimit=\"0.004\"/>" +
                           std::string(kBall) + "</body>";
  const ReducedModel rm = imp(body, head).model;
  ASSERT_EQ(rm.nq(), 3);
  EXPECT_EQ(rm.links[0].limit_time_constant, 0.02);  // MuJoCo's default (0.02, 1)
  EXPECT_EQ(rm.links[0].limit_damping_ratio, 1.0);
  EXPECT_EQ(rm.links[1].limit_time_constant, 0.05);  // from the class
  EXPECT_EQ(rm.links[1].limit_damping_ratio, 0.7);
  EXPECT_EQ(rm.links[2].limit_time_constant, 0.01);  // refsafe: at least 2 x 0.005 s
  EXPECT_EQ(rm.links[2].limit_damping_ratio, 0.7);   // one number laid over the class's two
  const ReducedModel unsafe = imp(body, "<option timestep=\"0.005\"><flag refsafe=\"disable\"/></option>" + defaults).model;
  EXPECT_EQ(unsafe.links[2].limit_time_constant, 0.004);
  EXPECT_FALSE(has_warning(rm, "solreflimit")) << "read, not warned";
  // A nested class's shorter list is laid over its parent class's, as MuJoCo reads it.
  const ReducedModel nested = imp("<body name=\"a\" childclass=\"inner\"><joint name=\"n\" range=\"-1 1\"/>" +
                                      std::string(kBall) + "</body>",
                                  "<default><joint solreflimit=\"0.05 0.5\"/><default class=\"inner\">"
                                  "<joint solreflimit=\"0.1\"/></default></default>")
                                  .model;
  EXPECT_EQ(nested.links[0].limit_time_constant, 0.1);
  EXPECT_EQ(nested.links[0].limit_damping_ratio, 0.5);
  // Mixed signs (or a zero beside a positive number): MuJoCo's default, as MuJoCo replaces it.
  for (const char* mixed : {"0 1", "0.02 -1"}) {
    const ReducedModel m = imp("<body name=\"a\"><joint name=\"j\" range=\"-1 1\" solreflimit=\"" + std::string(mixed) +
                               "\"/>" + std::string(kBall) + "</body>")
                               .model;
    EXPECT_EQ(m.links[0].limit_time_constant, 0.02) << mixed;
    EXPECT_EQ(m.links[0].limit_damping_ratio, 1.0) << mixed;
    EXPECT_TRUE(has_warning(m, "mixed signs")) << mixed;
  }
  // MuJoCo's direct form is not read: a warning, and no time constant (robot.limit_law
  // "solreflimit" refuses the joint; the default "step" does not use it)
  const ReducedModel direct = imp("<body name=\"a\"><joint name=\"j\" range=\"-1 1\" solreflimit=\"-1000 -10\"/>" +
                                  std::string(kBall) + "</body>").model;
  EXPECT_EQ(direct.links[0].limit_time_constant, 0);
  EXPECT_TRUE(has_warning(direct, "<joint solreflimit>: MuJoCo's direct form")) << "warned";
  EXPECT_NE(error_of("<body name=\"a\"><joint name=\"j\" solreflimit=\"0.02 1 3\"/>" + std::string(kBall) + "</body>")
                .find("solreflimit"),
            std::string::npos)
      << "three numbers";
}

TEST(MjcfImport, FloatingBaseOptionsActuatorsRef) {
  const MjcfModel mj = imp(
      "<body name=\"torso\" pos=\"0 0 2\"><freejoint/><geom type=\"box\" size=\"0.1 0.1 0.1\"/>"
      "<body name=\"leg\"><joint name=\"hip\" ref=\"30\" range=\"-10 10\"/>" + std::string(kBall) + "</body></body>",
      "<option gravity=\"0 0 -3\" timestep=\"0.005\" integrator=\"RK4\"/><default><motor ctrlrange=\"-1 1\"/>"
      "</default>",
      "<actuator><motor joint=\"hip\" gear=\"50\"/><position name=\"p\" joint=\"hip\" kp=\"10\"/>"
      "<velocity joint=\"hip\" kv=\"2\" forcerange=\"-5 5\"/></actuator>");
  const ReducedModel& rm = mj.model;
  EXPECT_TRUE(rm.floating);
  EXPECT_EQ(rm.base.link, "torso");
  EXPECT_NEAR(rm.base.mass, 8, 1e-12);
  EXPECT_EQ(rm.nq(), 1);
  EXPECT_EQ(rm.gravity.z, -3);
  EXPECT_EQ(mj.options.timestep, 0.005);
  EXPECT_EQ(mj.options.integrator, "RK4");
  EXPECT_EQ(mj.free_position.z, 2);
  EXPECT_NEAR(mj.qpos_ref[0], kPi / 6, 1e-15);
  // MuJoCo's range bounds qpos; q = qpos - ref, so the limits are range - ref: [-40, -20] degrees.
  EXPECT_FALSE(rm.links[0].continuous);
  EXPECT_NEAR(rm.links[0].lower, -40 * kPi / 180, 1e-15);
  EXPECT_NEAR(rm.links[0].upper, -20 * kPi / 180, 1e-15);
  EXPECT_TRUE(has_warning(rm, "<joint ref>"));
  ASSERT_EQ(mj.actuators.size(), 3u);
  EXPECT_EQ(mj.actuators[0].gear, 50);
  EXPECT_TRUE(mj.actuators[0].ctrllimited);  // default class ctrlrange, autolimits
  EXPECT_EQ(mj.actuators[0].ctrl_upper, 1);
  EXPECT_EQ(mj.actuators[0].link, 0);
  EXPECT_EQ(mj.actuators[1].type, MjcfActuatorType::Position);
  EXPECT_EQ(mj.actuators[1].kp, 10);
  EXPECT_EQ(mj.actuators[2].kv, 2);
  EXPECT_TRUE(mj.actuators[2].forcelimited);
}

TEST(MjcfImport, ArmatureAndGeneralActuators) {
  const MjcfModel mj = imp(
      "<body name=\"a\"><joint name=\"j\" class=\"arm\"/>" + std::string(kBall) +
          "<body name=\"b\"><joint name=\"k\" type=\"slide\" armature=\"0.25\"/>" + std::string(kBall) +
          "</body></body>",
      "<default><default class=\"arm\"><joint armature=\"0.1\"/>"
      "<general dyntype=\"none\" biastype=\"affine\" forcerange=\"-87 87\"/></default></default>",
      "<actuator><general class=\"arm\" name=\"p\" joint=\"j\" gainprm=\"4500\" biasprm=\"0 -4500 -450\"/>"
      "<general class=\"arm\" name=\"v\" joint=\"k\" gainprm=\"30\" biasprm=\"0 0 -30\"/>"
      "<general name=\"m\" joint=\"k\" gainprm=\"2.5\" gear=\"3\"/></actuator>");
  ASSERT_EQ(mj.model.nq(), 2);
  EXPECT_EQ(mj.model.links[0].armature, 0.1);  // from the class
  EXPECT_EQ(mj.model.links[1].armature, 0.25);
  ASSERT_EQ(mj.actuators.size(), 3u);
  EXPECT_EQ(mj.actuators[0].type, MjcfActuatorType::Position);
  EXPECT_EQ(mj.actuators[0].kp, 4500);
  EXPECT_EQ(mj.actuators[0].kv, 450);
  EXPECT_TRUE(mj.actuators[0].forcelimited);
  EXPECT_EQ(mj.actuators[0].force_upper, 87);
  EXPECT_EQ(mj.actuators[1].type, MjcfActuatorType::Velocity);
  EXPECT_EQ(mj.actuators[1].kv, 30);
  EXPECT_EQ(mj.actuators[2].type, MjcfActuatorType::Motor);
  EXPECT_EQ(mj.actuators[2].gain, 2.5);
  EXPECT_EQ(mj.actuators[2].gear, 3);
  const std::string body = "<body name=\"a\"><joint name=\"j\"/>" + std::string(kBall) + "</body>";
  auto general = [&](const std::string& attrs) {
    return error_of(body, "", "<actuator><general name=\"g\" joint=\"j\" " + attrs + "/></actuator>");
  };
  EXPECT_NE(general("biastype=\"affine\" gainprm=\"10\" biasprm=\"1 -10 0\"").find("actuator/general[g]: attribute "
                                                                                  "'biasprm': an affine"),
            std::string::npos);
  EXPECT_NE(general("biastype=\"affine\" gainprm=\"10\" biasprm=\"0 -10 3\"").find("'biasprm'"), std::string::npos);
  EXPECT_NE(general("dyntype=\"filter\"").find("attribute 'dyntype': activation dynamics"), std::string::npos);
  EXPECT_NE(general("gaintype=\"affine\"").find("attribute 'gaintype'"), std::string::npos);
  EXPECT_NE(general("biastype=\"muscle\"").find("attribute 'biastype'"), std::string::npos);
  EXPECT_NE(general("biastype=\"bad\"").find("attribute 'biastype': \"bad\" is not one of"), std::string::npos);
  EXPECT_NE(error_of(body, "<default><position kp=\"5\"/></default>",
                     "<actuator><general name=\"g\" joint=\"j\" biastype=\"affine\"/></actuator>")
                .find("attribute 'class': its default class sets 'kp' on a <position>"),
            std::string::npos);
}

TEST(MjcfImport, ActuatorDefaultsOfAnotherTypeAndUnsupportedParametersRefused) {
  const std::string body = "<body name=\"a\"><joint name=\"j\"/>" + std::string(kBall) + "</body>";
  auto with = [&](const std::string& defaults, const std::string& act) {
    return error_of(body, "<default>" + defaults + "</default>", "<actuator>" + act + "</actuator>");
  };
  // MuJoCo translates each shortcut's parameters into one actuator default: a <position>
  // would take kp 100 and kv 10 from the <general>'s gainprm / biasprm, a <general> the
  // <position>'s bias, a <position> ignores a <velocity>'s kv.
  EXPECT_NE(with("<general gainprm=\"100\" biastype=\"affine\" biasprm=\"0 -100 -10\"/>",
                 "<position name=\"p\" joint=\"j\"/>")
                .find("actuator/position[p]: attribute 'class': its default class sets 'biasprm' on a <general>"),
            std::string::npos);
  EXPECT_NE(with("<position kp=\"100\" kv=\"3\"/>", "<general name=\"g\" joint=\"j\" gainprm=\"50\"/>")
                .find("sets 'kp' on a <position>"),
            std::string::npos);
  EXPECT_NE(with("<velocity kv=\"7\"/>", "<position name=\"p\" joint=\"j\" kp=\"100\"/>").find("sets 'kv' on a <velocity>"),
            std::string::npos);
  // The element's own value wins: no inheritance, no refusal.
  EXPECT_EQ(with("<velocity kv=\"7\"/>", "<position name=\"p\" joint=\"j\" kp=\"100\" kv=\"1\"/>"), "no error");
  // Shared attributes (ctrlrange, forcerange, gear) may come from any actuator default.
  EXPECT_EQ(with("<motor ctrlrange=\"-1 1\" gear=\"3\"/>", "<position name=\"p\" joint=\"j\" kp=\"10\"/>"),
            "no error");
  EXPECT_NE(with("", "<position name=\"p\" joint=\"j\" kp=\"10\" dampratio=\"1\"/>").find("attribute 'dampratio'"),
            std::string::npos);
  EXPECT_NE(with("<position timeconst=\"0.1\"/>", "<position name=\"p\" joint=\"j\"/>").find("attribute 'timeconst'"),
            std::string::npos);
  EXPECT_NE(with("", "<general name=\"g\" joint=\"j\" biastype=\"affine\" gainprm=\"-5\" biasprm=\"0 5 0\"/>")
                .find("attribute 'gainprm': an affine <general> servo needs gainprm[0] >= 0"),
            std::string::npos);
  // A free joint's damping / armature (here from the default class) is refused, naming it.
  EXPECT_NE(error_of("<body name=\"f\"><joint name=\"free\" type=\"free\"/>" + std::string(kBall) + "</body>",
                     "<default><joint armature=\"0.1\"/></default>")
                .find("joint[free]: attribute 'armature': a free joint's armature"),
            std::string::npos);
  EXPECT_EQ(error_of("<body name=\"f\"><freejoint/>" + std::string(kBall) + "<body><joint/>" + std::string(kBall) +
                     "</body></body>",
                     "<default><joint armature=\"0.1\"/></default>"),
            "no error");  // <freejoint> takes no class
  // actuatorfrcrange is read per link (and options record the actuation flags).
  const MjcfModel mj = imp("<body name=\"a\"><joint name=\"j\" actuatorfrcrange=\"-3 3\"/>" + std::string(kBall) +
                           "</body>",
                           "<option><flag actuation=\"disable\" clampctrl=\"disable\"/></option>");
  ASSERT_EQ(mj.actuator_force_range.size(), 1u);
  EXPECT_EQ(mj.actuator_force_range[0][0], -3);
  EXPECT_EQ(mj.actuator_force_range[0][1], 3);
  EXPECT_FALSE(mj.options.actuation);
  EXPECT_FALSE(mj.options.clampctrl);
  EXPECT_NE(error_of("<body name=\"a\"><joint name=\"j\" actuatorfrcrange=\"3 -3\" actuatorfrclimited=\"true\"/>" +
                     std::string(kBall) + "</body>")
                .find("attribute 'actuatorfrcrange'"),
            std::string::npos);
}

TEST(MjcfImport, WarningsNameWhatIsNotUsed) {
  const ReducedModel rm = imp("<geom type=\"plane\" size=\"1 1 1\"/><light/><body name=\"b\"><joint name=\"j\" "
                              "frictionloss=\"0.5\" margin=\"0.1\"/><geom type=\"sphere\" size=\"0.1\" rgba=\"1 0 0 1\" "
                              "friction=\"0.5\" bogus=\"1\"/><site name=\"tip\"/></body>",
                              "<size nstack=\"10\"/>", "<sensor/>")
                              .model;
  EXPECT_EQ(rm.links[0].friction, 0.5);
  for (const char* w : {"<geom rgba>", "<geom friction>", "<geom bogus>: unknown attribute", "<joint frictionloss>",
                        "<joint margin>", "<site>", "<light>", "<size>", "<sensor>", "<geom> of <worldbody>",
                        "(worldbody/body[b]/geom)"})
    EXPECT_TRUE(has_warning(rm, w)) << w << "\n" << [&] {
      std::string all;
      for (const std::string& x : rm.warnings) all += x + "\n";
      return all;
    }();
}

TEST(MjcfImport, ErrorsNameElementAndAttribute) {
  const std::string ball = kBall;
  EXPECT_NE(error_of("<body name=\"cart\"><joint name=\"slider\" armature=\"-0.1\"/>" + ball + "</body>")
                .find("worldbody/body[cart]/joint[slider]: attribute 'armature': must be >= 0"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint name=\"s\" type=\"ball\"/>" + ball + "</body>")
                .find("joint[s]: attribute 'type': ball joints are not supported"),
            std::string::npos);
  EXPECT_NE(error_of("<body><joint/>" + ball + "</body>", "<compiler coordinate=\"global\"/>")
                .find("compiler: attribute 'coordinate'"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\" pos=\"1 x 3\"><joint/>" + ball + "</body>")
                .find("body[b]: attribute 'pos': \"1 x 3\" is not a list of numbers"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\" pos=\"1 2\"><joint/>" + ball + "</body>").find("attribute 'pos': needs 3"),
            std::string::npos);
  EXPECT_NE(error_of("<body><joint name=\"j\"/>" + ball + "</body>", "",
                     "<actuator><motor name=\"m\" joint=\"nope\"/></actuator>")
                .find("actuator/motor[m]: attribute 'joint': unknown joint 'nope'"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint name=\"j\" stiffness=\"-3\"/>" + ball + "</body>")
                .find("joint[j]: attribute 'stiffness': must be >= 0"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint name=\"j\" springdamper=\"0.1 1\"/>" + ball + "</body>")
                .find("joint[j]: attribute 'springdamper'"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint class=\"zz\"/>" + ball + "</body>").find("unknown default class 'zz'"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint/><geom type=\"mesh\" mesh=\"m\"/></body>")
                .find("geom: attribute 'type': mesh inertia not supported"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint/></body>").find("body 'b' (joint 'joint0'): no mass"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><body name=\"c\"><freejoint/>" + ball + "</body><joint/>" + ball + "</body>")
                .find("body[c]/freejoint: attribute 'type': a free joint is only supported on a child of <worldbody>"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint range=\"1 -1\" limited=\"true\"/>" + ball + "</body>")
                .find("attribute 'range'"),
            std::string::npos);
  EXPECT_THROW(import_mjcf("<mujoco><worldbody>", "x"), MjcfError);
  EXPECT_THROW(import_mjcf("<robot/>", "x"), MjcfError);
  EXPECT_THROW(load_mjcf("/nonexistent/file.xml"), MjcfError);
}

TEST(MjcfImport, RepeatedNamesRefused) {
  const std::string ball = kBall;
  EXPECT_NE(error_of("<body name=\"b\"><joint name=\"j\"/>" + ball + "</body><body name=\"b\"><joint name=\"k\"/>" +
                     ball + "</body>")
                .find("body[b]: attribute 'name': repeated name 'b' in body"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"a\"><joint name=\"j\"/>" + ball + "<body name=\"c\"><joint name=\"j\"/>" + ball +
                     "</body></body>")
                .find("body[c]/joint[j]: attribute 'name': repeated name 'j' in joint"),
            std::string::npos);
  // a free joint's name counts; "world" is the world body's
  EXPECT_NE(error_of("<body name=\"f\"><freejoint name=\"j\"/>" + ball + "<body><joint name=\"j\"/>" + ball +
                     "</body></body>")
                .find("repeated name 'j' in joint"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"world\"><joint/>" + ball + "</body>").find("repeated name 'world' in body"),
            std::string::npos);
  EXPECT_NE(error_of("<body><joint name=\"j\"/>" + ball + "</body>", "",
                     "<actuator><motor name=\"m\" joint=\"j\"/><motor name=\"m\" joint=\"j\"/></actuator>")
                .find("repeated name 'm' in actuator"),
            std::string::npos);
  // SimPhant's name of an unnamed joint / body must not be another's
  EXPECT_NE(error_of("<body><joint/>" + ball + "</body><body><joint name=\"joint0\"/>" + ball + "</body>")
                .find("SimPhant's name of the unnamed joint"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"body2\"><joint/>" + ball + "</body><body><joint/>" + ball + "</body>")
                .find("SimPhant's name of this unnamed body"),
            std::string::npos);
}

TEST(MjcfImport, OptionFlags) {
  const std::string ball = kBall;
  const std::string limited = "<body name=\"b\"><joint name=\"j\" range=\"-1 1\" damping=\"0.5\"/>" + ball + "</body>";
  const std::string free = "<body name=\"b\"><joint name=\"j\"/>" + ball + "</body>";
  auto flag = [](const std::string& attrs) { return "<option><flag " + attrs + "/></option>"; };
  EXPECT_NE(error_of(limited, flag("gravity=\"disable\""))
                .find("option/flag: attribute 'gravity': MuJoCo would run without gravity"),
            std::string::npos);
  EXPECT_NE(error_of(limited, flag("gravity=\"disable\"")).find("robot.gravity [0, 0, 0]"), std::string::npos);
  EXPECT_NE(error_of(limited, flag("limit=\"disable\"")).find("attribute 'limit'"), std::string::npos);
  EXPECT_NE(error_of(limited, flag("limit=\"disable\"")).find("\"limits\": false"), std::string::npos);
  EXPECT_NE(error_of(limited, flag("damper=\"disable\"")).find("attribute 'damper'"), std::string::npos);
  EXPECT_NE(error_of(limited, flag("passive=\"disable\"")).find("\"damping\": false"), std::string::npos);
  EXPECT_NE(error_of(limited, flag("constraint=\"disable\"")).find("attribute 'constraint'"), std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint frictionloss=\"0.1\"/>" + ball + "</body>",
                     flag("frictionloss=\"disable\""))
                .find("\"friction\": false"),
            std::string::npos);
  EXPECT_NE(error_of(free, flag("gravity=\"off\"")).find("attribute 'gravity': \"off\" is not one of enable, disable"),
            std::string::npos);
  EXPECT_NE(error_of(free, "<option><flag/><flag/></option>").find("a second <flag>"), std::string::npos);
  // flags that change nothing SimPhant computes for this model: a warning naming each
  const ReducedModel rm =
      imp(free, "<option gravity=\"0 0 0\"><flag gravity=\"disable\" limit=\"disable\" constraint=\"disable\" "
                "contact=\"disable\" warmstart=\"disable\" energy=\"enable\" bogus=\"disable\" damper=\"enable\"/>"
                "</option>")
          .model;
  for (const char* w : {"<flag gravity=\"disable\">: no effect", "<flag limit=\"disable\">: no effect",
                        "<flag constraint=\"disable\">: no effect", "<flag contact=\"disable\">: no effect",
                        "<flag warmstart=\"disable\">: no effect", "<flag energy=\"enable\">: no effect",
                        "<flag bogus=\"disable\">: unknown flag"})
    EXPECT_TRUE(has_warning(rm, w)) << w;
  EXPECT_FALSE(has_warning(rm, "damper"));  // the default value
}

TEST(MjcfImport, WorldbodyAttributesAndMergedDefaults) {
  EXPECT_NE(import_error_of("<mujoco><default><default class=\"a\"/></default><worldbody childclass=\"a\">"
                            "<body><joint/><geom size=\"0.1\"/></body></worldbody></mujoco>")
                .find("worldbody: attribute 'childclass': <worldbody> takes no attributes"),
            std::string::npos);
  // Several top-level <default>s merge into class main, in document order; a class copies
  // its parent as it is read (MuJoCo 4.0.1: damping [3, 2], frictionloss [1, 0]).
  const MjcfModel mj = import_mjcf(
      "<mujoco><default><joint damping=\"2\"/><default class=\"a\"/></default>"
      "<default><joint frictionloss=\"1\" damping=\"3\"/><default class=\"b\"><geom density=\"10\"/></default>"
      "</default><worldbody><body name=\"m\"><joint/><geom size=\"0.1\"/></body>"
      "<body name=\"a\" childclass=\"a\"><joint/><geom size=\"0.1\"/></body>"
      "<body name=\"b\" childclass=\"b\"><joint/><geom size=\"0.1\"/></body></worldbody></mujoco>",
      "t.xml");
  ASSERT_EQ(mj.model.nq(), 3);
  EXPECT_EQ(mj.model.links[0].damping, 3);
  EXPECT_EQ(mj.model.links[0].friction, 1);
  EXPECT_EQ(mj.model.links[1].damping, 2);
  EXPECT_EQ(mj.model.links[1].friction, 0);
  EXPECT_EQ(mj.model.links[2].damping, 3);  // b read after main's second part
  EXPECT_NEAR(mj.model.links[2].mass, 10 * 4.0 / 3.0 * kPi * 1e-3, 1e-15);
  EXPECT_NE(import_error_of("<mujoco><default><default class=\"a\"/></default><default><default class=\"a\"/>"
                            "</default><worldbody/></mujoco>")
                .find("default class 'a' is defined twice"),
            std::string::npos);
  EXPECT_NE(import_error_of("<mujoco><default/><default class=\"x\"/><worldbody/></mujoco>")
                .find("a top-level <default> is class \"main\""),
            std::string::npos);
}

TEST(MjcfImport, IntegersAndOverflowsRefused) {
  const std::string j = "<body name=\"b\"><joint/>";
  EXPECT_NE(error_of(j + "<geom size=\"0.1\" group=\"1.5\"/></body>").find("attribute 'group': \"1.5\": bad format"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom size=\"0.1\" group=\"1e300\"/></body>").find("attribute 'group': \"1e300\": bad format"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom size=\"0.1\" group=\"3000000000\"/></body>").find("outside the int range"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom size=\"0.1\"/></body>", "<compiler inertiagrouprange=\"0 2.5\"/>")
                .find("compiler: attribute 'inertiagrouprange': \"0 2.5\": bad format"),
            std::string::npos);
  // inertiagrouprange as integers: a geom of group 3 outside [0, 2] adds no mass
  EXPECT_EQ(imp(j + "<geom size=\"0.1\"/><geom size=\"0.1\" group=\"3\" mass=\"5\"/></body>",
                "<compiler inertiagrouprange=\"0 2\"/>").model.links[0].mass,
            imp(j + "<geom size=\"0.1\"/></body>").model.links[0].mass);
  EXPECT_NE(error_of(j + "<geom size=\"1e200\"/></body>").find("geom: attribute 'size': the sphere's volume overflows"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom size=\"1e100\"/></body>").find("geom: attribute 'size': the derived inertia"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom size=\"1e100\" density=\"1e300\"/></body>").find("attribute 'density': the derived mass"),
            std::string::npos);
  EXPECT_NE(error_of(j + "<geom type=\"capsule\" size=\"0.1\" fromto=\"-1e308 0 0 1e308 0 0\"/></body>")
                .find("attribute 'fromto'"),
            std::string::npos);
}

// A fixed tendon that cannot act (MuJoCo computes its length and nothing depends on it) is
// imported as nothing, with a warning naming it; one that would act is refused naming the
// attribute that makes it act.
TEST(MjcfImport, InertFixedTendonsAreWarnedOfAndActiveOnesRefused) {
  const std::string arm = "<body name=\"a\"><joint name=\"j\"/>" + std::string(kBall) +
                          "<body name=\"b\"><joint name=\"k\"/>" + std::string(kBall) + "</body></body>";
  const std::string inert = "<tendon><fixed name=\"t\" rgba=\"1 0 0 1\"><joint joint=\"j\" coef=\"-1\"/>"
                            "<joint joint=\"k\" coef=\"1\"/></fixed></tendon>";
  const MjcfModel with = imp(arm, "", inert);
  const MjcfModel without = imp(arm);
  EXPECT_TRUE(has_warning(with.model, "<tendon><fixed>: inert"));
  EXPECT_TRUE(has_warning(with.model, "tendon/fixed[t]"));
  ASSERT_EQ(with.model.links.size(), without.model.links.size());
  for (std::size_t k = 0; k < with.model.links.size(); ++k) {
    EXPECT_EQ(with.model.links[k].mass, without.model.links[k].mass);
    EXPECT_EQ(with.model.links[k].stiffness, without.model.links[k].stiffness);
    EXPECT_EQ(with.model.links[k].damping, without.model.links[k].damping);
  }
  auto tendon_error = [&](const std::string& attrs, const std::string& head = "") {
    return error_of(arm, head, "<tendon><fixed name=\"t\" " + attrs + "><joint joint=\"j\" coef=\"1\"/></fixed></tendon>");
  };
  for (const char* k : {"stiffness", "damping", "frictionloss", "armature"})
    EXPECT_NE(tendon_error(std::string(k) + "=\"0.5\"").find("tendon/fixed[t]: attribute '" + std::string(k) + "'"),
              std::string::npos)
        << k;
  EXPECT_NE(tendon_error("range=\"-1 1\"").find("attribute 'range': a limited tendon acts"), std::string::npos);
  EXPECT_NE(tendon_error("limited=\"true\" range=\"-1 1\"").find("a limited tendon acts"), std::string::npos);
  // MuJoCo's rules for limited: a range without limited under autolimits="false" is an
  // error, and an empty range (lower not below upper) does not limit
  EXPECT_NE(tendon_error("range=\"-1 1\"", "<compiler autolimits=\"false\"/>")
                .find("attribute 'range': a range without limited"),
            std::string::npos);
  EXPECT_EQ(tendon_error("limited=\"false\" range=\"-1 1\"", "<compiler autolimits=\"false\"/>"), "no error");
  EXPECT_EQ(tendon_error("range=\"0.5 0.5\""), "no error");
  EXPECT_NE(error_of(arm, "", "<tendon><fixed name=\"t\"/></tendon>").find("needs at least one <joint>"),
            std::string::npos);
  // a default class's stiffness makes the tendon act too
  EXPECT_NE(tendon_error("", "<default><tendon stiffness=\"3\"/></default>").find("attribute 'stiffness'"),
            std::string::npos);
  EXPECT_NE(error_of(arm, "", "<tendon><fixed name=\"t\"><joint joint=\"nope\" coef=\"1\"/></fixed></tendon>")
                .find("unknown joint 'nope'"),
            std::string::npos);
  EXPECT_NE(error_of(arm, "", "<tendon><fixed name=\"t\"><joint coef=\"1\"/></fixed></tendon>")
                .find("attribute 'joint'"),
            std::string::npos);
  EXPECT_NE(error_of(arm, "", "<tendon><spatial name=\"s\"/></tendon>")
                .find("tendon/spatial[s]: <spatial> tendons are not supported"),
            std::string::npos);
  const std::string one = "<fixed name=\"t\"><joint joint=\"j\" coef=\"1\"/></fixed>";
  EXPECT_NE(error_of(arm, "", "<tendon>" + one + one + "</tendon>").find("repeated name 't'"), std::string::npos);
}

// Each MuJoCo body's own mass properties on the frame that carries it: a welded body's on
// its parent's link, and together they make the links' masses.
TEST(MjcfImport, BodyMassesLieOnTheirOwnersFrames) {
  const std::string body = "<body name=\"a\" pos=\"0 0 1\"><joint name=\"j\" axis=\"0 1 0\"/>"
                           "<geom type=\"sphere\" size=\"0.1\"/>"
                           "<body name=\"w\" pos=\"0.5 0 0\" euler=\"0 0 90\"><geom type=\"box\" "
                           "size=\"0.1 0.2 0.3\" pos=\"0.1 0 0\"/></body></body>";
  const MjcfModel m = imp(body);
  // MuJoCo fuses w into a under fusestatic: its body list is not the file's, so none is given
  EXPECT_TRUE(imp(body, "<compiler fusestatic=\"true\"/>").body_masses.empty());
  ASSERT_EQ(m.body_masses.size(), 2u);
  const MjcfBodyMass& a = m.body_masses[0];
  const MjcfBodyMass& w = m.body_masses[1];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.owner, "a");
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.owner, "a");
  const double box = 1000 * 0.2 * 0.4 * 0.6;
  EXPECT_NEAR(w.mass, box, 1e-12 * box);
  // the box's centre at pos (0.1, 0, 0) in w, turned 90 degrees about z: (0.5, 0.1, 0) in a
  EXPECT_NEAR(w.com.x, 0.5, 1e-15);
  EXPECT_NEAR(w.com.y, 0.1, 1e-15);
  EXPECT_NEAR(w.com.z, 0.0, 1e-15);
  // its x and y half-sizes swap along a's axes: Ixx about the box's centre = m (4 * 0.1^2 + 4 * 0.3^2) / 12
  EXPECT_NEAR(w.inertia_com.m[0][0], box * (0.04 + 0.36) / 12, 1e-12);
  EXPECT_NEAR(w.inertia_com.m[1][1], box * (0.16 + 0.36) / 12, 1e-12);
  EXPECT_NEAR(a.mass + w.mass, m.model.links[0].mass, 1e-12 * m.model.links[0].mass);
  const double xc = (a.mass * a.com.x + w.mass * w.com.x) / (a.mass + w.mass);
  EXPECT_NEAR(xc, m.model.links[0].com.x, 1e-15);
}
