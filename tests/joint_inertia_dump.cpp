// For tests/pinocchio_inertia_check.py: the effective inertias 1 / (M(q)^-1)_kk of a URDF
// robot's joints (scene/robot_joint_params.hpp, joint_effective_inertia) at a given q.
// Usage: joint_inertia_dump URDF FLOATING(0|1) q_1 ... q_n
// Prints one JSON object {"names": [joint names], "inertia": [n numbers]}; exit 2 on bad
// arguments or a URDF / model error (message on stderr).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "simphant/scene/robot_joint_params.hpp"
#include "simphant/urdf/urdf_import.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: joint_inertia_dump URDF FLOATING(0|1) q_1 ... q_n\n");
    return 2;
  }
  try {
    simphant::ReducedModel rm = simphant::load_urdf(argv[1]);
    if (std::string(argv[2]) == "1") simphant::make_floating_base(rm);
    std::vector<double> q;
    for (int i = 3; i < argc; ++i) q.push_back(std::strtod(argv[i], nullptr));
    const std::vector<double> I = simphant::joint_effective_inertia(rm, q);
    std::printf("{\"names\": [");
    for (int k = 0; k < rm.nq(); ++k) std::printf("%s\"%s\"", k ? ", " : "", rm.links[k].joint_name.c_str());
    std::printf("], \"inertia\": [");
    for (int k = 0; k < rm.nq(); ++k) std::printf("%s%.17g", k ? ", " : "", I[static_cast<std::size_t>(k)]);
    std::printf("]}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "joint_inertia_dump: %s\n", e.what());
    return 2;
  }
  return 0;
}
