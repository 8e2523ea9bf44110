#pragma once
// Test helper: where the robots of the example-robot-data Python package are
// (pip install example-robot-data; BSD-2-Clause package, files used in place, never
// copied into this repository -- docs/robots.md). Header-only, for any test.
#include <string>
#include <vector>

#include "simphant/urdf/robot_data.hpp"

namespace simphant::test {

/// The robots folder of the installed example-robot-data package, or "" (the library's
/// lookup, simphant/urdf/robot_data.hpp).
inline std::string robot_data_dir() { return example_robot_data_dir(); }

/// The three arms of the robot tests. KUKA iiwa is not in example-robot-data 6.0.0: xArm7
/// (7 revolute joints) stands in for it.
struct TestRobot {
  const char* name;
  const char* path;  ///< relative to robot_data_dir()
};
inline std::vector<TestRobot> test_robots() {
  return {{"panda", "panda_description/urdf/panda.urdf"},
          {"ur5", "ur_description/urdf/ur5_robot.urdf"},
          {"xarm7", "xarm_description/urdf/xarm7.urdf"}};
}

/// GTEST_SKIP()s the calling test when the package is absent; else sets `dir`.
#define SIMPHANT_REQUIRE_ROBOT_DATA(dir)                                                              \
  const std::string dir = ::simphant::test::robot_data_dir();                                         \
  if (dir.empty())                                                                                    \
  GTEST_SKIP() << "example-robot-data is not installed (pip install example-robot-data, or set "      \
                  "SIMPHANT_ROBOT_DATA to its robots folder)"

}  // namespace simphant::test
