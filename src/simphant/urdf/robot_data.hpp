#pragma once
// Where the robots of the example-robot-data Python package are installed (pip install
// example-robot-data: URDF files only, BSD-2-Clause; used in place, never copied into
// this repository, docs/robots.md).
#include <string>

namespace simphant {

/// The package's robots folder (.../cmeel.prefix/share/example-robot-data/robots), found
/// through python3's package metadata, or "" when python3 cannot find the package. The
/// environment variable SIMPHANT_ROBOT_DATA overrides it. Asked once per process.
std::string example_robot_data_dir();

}  // namespace simphant
