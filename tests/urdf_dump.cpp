// urdf_dump URDF... : what the URDF import (urdf/urdf_import.hpp) makes of each URDF, as
// JSON on stdout, for tests/pinocchio_urdf_check.py to compare with Pinocchio's
// buildModelFromUrdf. The base is made floating (make_floating_base) unless the URDF
// has a floating joint. Exit 0, or 2 on a usage / import error (the message on stderr).
//
// JSON: {"robots": [{"urdf", "base": {"link", "mass", "com" [3], "inertia" [9]},
//         "links": [{"joint", "link", "mass", "com", "inertia" (row-major, link frame,
//         about the CoM), "lower", "upper", "continuous", "effort", "velocity", "damping",
//         "friction", "mimic" (leader joint name or null), "multiplier", "offset"}],
//         "warnings": [...]}]}
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/urdf/urdf_import.hpp"

namespace {

nlohmann::json vec(const simphant::Vec3d& v) { return {v.x, v.y, v.z}; }
nlohmann::json mat(const simphant::Mat3d& m) {
  nlohmann::json a = nlohmann::json::array();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) a.push_back(m.m[r][c]);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace simphant;
  if (argc < 2) {
    std::fprintf(stderr, "usage: urdf_dump URDF...\n");
    return 2;
  }
  nlohmann::json out;
  out["robots"] = nlohmann::json::array();
  try {
    for (int a = 1; a < argc; ++a) {
      ReducedModel rm = load_urdf(argv[a]);
      make_floating_base(rm);
      nlohmann::json r = {{"urdf", argv[a]},
                          {"base",
                           {{"link", rm.base.link},
                            {"mass", rm.base.mass},
                            {"com", vec(rm.base.com)},
                            {"inertia", mat(rm.base.inertia_com)}}},
                          {"warnings", rm.warnings}};
      r["links"] = nlohmann::json::array();
      for (const ReducedLink& l : rm.links) {
        r["links"].push_back({{"joint", l.joint_name},
                              {"link", l.name},
                              {"mass", l.mass},
                              {"com", vec(l.com)},
                              {"inertia", mat(l.inertia_com)},
                              {"lower", l.lower},
                              {"upper", l.upper},
                              {"continuous", l.continuous},
                              {"effort", l.effort},
                              {"velocity", l.velocity},
                              {"damping", l.damping},
                              {"friction", l.friction},
                              {"mimic", l.mimic < 0 ? nlohmann::json(nullptr)
                                                    : nlohmann::json(rm.links[static_cast<std::size_t>(l.mimic)].joint_name)},
                              {"multiplier", l.mimic_multiplier},
                              {"offset", l.mimic_offset}});
      }
      out["robots"].push_back(r);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "urdf_dump: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
