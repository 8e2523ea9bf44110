#pragma once
// Where the robots of the example-robot-data Python package are installed (pip install
// example-robot-data: URDF files only, BSD-2-Clause; used in place, never copied into
// this repository, docs/robots.md). Found without running any program, in this order:
//   1. the environment variable SIMPHANT_ROBOT_DATA (the robots folder itself);
//   2. the folder given to set_robot_data_dir() (the Python package passes what its own
//      importlib lookup finds);
//   3. <site>/cmeel.prefix/share/example-robot-data/robots for the usual site-packages
//      folders <site>: the entries of PYTHONPATH, $VIRTUAL_ENV and $CONDA_PREFIX, the
//      interpreter prefixes of the python3 programs on PATH, pyenv's versions
//      ($PYENV_ROOT or ~/.pyenv: $PYENV_VERSION, then the version file, then every
//      version), ~/.local (pip --user), /usr/local and /usr (lib/python3.*/site-packages,
//      lib/python3.*/dist-packages, lib/python3/dist-packages); newer Python versions
//      first within a prefix.
#include <string>
#include <vector>

namespace simphant {

/// The robots folder (.../cmeel.prefix/share/example-robot-data/robots), or "" when
/// none of the places above holds it. The search of step 3 runs once per process.
std::string example_robot_data_dir();

/// Step 2: the robots folder to use when SIMPHANT_ROBOT_DATA is not set ("" clears
/// it). Not checked here: a folder that does not exist makes the robot scene's error
/// name it. Thread-safe.
void set_robot_data_dir(const std::string& dir);

/// Step 3 alone, not cached: the site-packages folders searched, in order, and the
/// first of them that holds the robots folder ("" if none).
std::vector<std::string> robot_data_search_sites();
std::string find_robot_data_dir();

}  // namespace simphant
