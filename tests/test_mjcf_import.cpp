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

TEST(MjcfImport, WarningsNameWhatIsNotUsed) {
  const ReducedModel rm = imp("<geom type=\"plane\" size=\"1 1 1\"/><light/><body name=\"b\"><joint name=\"j\" "
                              "frictionloss=\"0.5\" margin=\"0.1\"/><geom type=\"sphere\" size=\"0.1\" rgba=\"1 0 0 1\" "
                              "contype=\"0\" bogus=\"1\"/><site name=\"tip\"/></body>",
                              "<size nstack=\"10\"/>", "<sensor/>")
                              .model;
  EXPECT_EQ(rm.links[0].friction, 0.5);
  for (const char* w : {"<geom rgba>", "<geom contype>", "<geom bogus>: unknown attribute", "<joint frictionloss>",
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
  EXPECT_NE(error_of("<body name=\"cart\"><joint name=\"slider\" armature=\"0.1\"/>" + ball + "</body>")
                .find("worldbody/body[cart]/joint[slider]: attribute 'armature'"),
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
  EXPECT_NE(error_of("<body name=\"b\"><joint name=\"j\" stiffness=\"3\"/>" + ball + "</body>")
                .find("joint[j]: attribute 'stiffness'"),
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
  EXPECT_NE(error_of("<body><joint/>" + ball + "</body>", "", "<tendon><fixed name=\"t\"/></tendon>")
                .find("tendon/fixed[t]: tendons are not supported"),
            std::string::npos);
  EXPECT_NE(error_of("<body name=\"b\"><joint range=\"1 -1\" limited=\"true\"/>" + ball + "</body>")
                .find("attribute 'range'"),
            std::string::npos);
  EXPECT_THROW(import_mjcf("<mujoco><worldbody>", "x"), MjcfError);
  EXPECT_THROW(import_mjcf("<robot/>", "x"), MjcfError);
  EXPECT_THROW(load_mjcf("/nonexistent/file.xml"), MjcfError);
}
