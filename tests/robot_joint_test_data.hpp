#pragma once
// Small robots written by the tests of the derived joint parameters and the robot scene
// keys (tests/test_robot_joint_params.cpp, tests/test_robot_scene_keys.cpp): a planar
// two-link arm with its closed-form mass matrix and a floating body with one arm link.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant::robot_test {

namespace fs = std::filesystem;

// A planar two-link arm about z: link a (m1, CoM l1c on x, Izz1) on joint j1 at the
// origin, link b (m2, CoM l2c on x, Izz2) on joint j2 at L1 on a's x axis; j1 limited,
// j2 with damping and friction; j3 a continuous joint of a small wrist link c.
inline constexpr double m1 = 2.0, l1c = 0.25, Izz1 = 0.03, L1 = 0.5, m2 = 1.2, l2c = 0.2, Izz2 = 0.02;
inline const char* const kPlanar = R"(<robot name="planar">
  <link name="base"/>
  <link name="a"><inertial><origin xyz="0.25 0 0"/><mass value="2.0"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.03"/></inertial></link>
  <link name="b"><inertial><origin xyz="0.2 0 0"/><mass value="1.2"/>
    <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1.5" effort="40" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0" effort="0" velocity="0"/><dynamics damping="0.4" friction="1.5"/></joint>
</robot>)";

/// The mass matrix entries of the planar arm at q2 (any q1): the textbook closed form.
inline void planar_mass_matrix(double q2, double& a, double& b, double& c) {
  a = Izz1 + m1 * l1c * l1c + Izz2 + m2 * (L1 * L1 + l2c * l2c + 2 * L1 * l2c * std::cos(q2));
  b = Izz2 + m2 * (l2c * l2c + L1 * l2c * std::cos(q2));
  c = Izz2 + m2 * l2c * l2c;
}

// A free-floating body with one arm link (a URDF floating root joint).
inline const char* const kFloating = R"(<robot name="flyer">
  <link name="world"/>
  <link name="torso"><inertial><origin xyz="0 0 0.1"/><mass value="5"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.12" iyz="0" izz="0.08"/></inertial></link>
  <link name="arm"><inertial><origin xyz="0 0 -0.2"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial></link>
  <joint name="root" type="floating"><parent link="world"/><child link="torso"/></joint>
  <joint name="shoulder" type="revolute"><parent link="torso"/><child link="arm"/><origin xyz="0.2 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
</robot>)";

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("simphant_joint_params_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
    std::ofstream(dir / "planar.urdf") << kPlanar;
    std::ofstream(dir / "flyer.urdf") << kFloating;
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string planar() const { return (dir / "planar.urdf").string(); }
  std::string flyer() const { return (dir / "flyer.urdf").string(); }
};

inline nlohmann::json planar_doc(const std::string& urdf, const char* solver = "aba") {
  nlohmann::json doc;
  doc["name"] = "planar";
  doc["robot"] = {{"urdf", urdf}, {"q0", {0.3, 0.7}}};
  doc["solver"] = {{"type", solver}, {"dt", 1e-3}, {"t_end", 0.01}};
  return doc;
}

/// The SceneError path of compiling `doc`, "" when it compiles; the message in *what.
inline std::string error_path(const nlohmann::json& doc, std::string* what = nullptr) {
  try {
    parse_scene(doc.dump());
  } catch (const SceneError& e) {
    if (what) *what = e.what();
    return e.path();
  }
  return "";
}

}  // namespace simphant::robot_test
