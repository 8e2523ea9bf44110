// robot_dump ROBOTS_DIR OUT.json: our RNEA, ABA, CGA-RNEA and CGA-ABA at random states of
// the test robots (tests/robot_data.hpp), written as JSON for tests/pinocchio_check.py,
// which recomputes them with Pinocchio. Exit 0, or 2 on a usage / load error.
//
// JSON: {"robots": [{"name", "urdf", "joints": [names], "types": ["revolute" | "prismatic"],
//         "gravity": [3], "cases": [{"q", "qd", "qdd", "tau", "rnea", "aba", "cga_rnea", "cga_aba"}]}]}
// q [rad | m] (revolute in [-pi, pi]), qd, qdd, tau, rnea = tau for qdd, aba = qdd for tau.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "robot_data.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/rnea.hpp"
#include "simphant/urdf/urdf_import.hpp"

int main(int argc, char** argv) {
  using namespace simphant;
  if (argc != 3) {
    std::fprintf(stderr, "usage: robot_dump ROBOTS_DIR OUT.json\n");
    return 2;
  }
  static AbaWorkspace<double> aws;
  static RneaWorkspace<double> rws;
  static cga::CgaWorkspace<double> cws;
  std::mt19937_64 g(2024);
  std::uniform_real_distribution<double> u(-1, 1);
  nlohmann::json out;
  out["robots"] = nlohmann::json::array();
  try {
    for (const test::TestRobot& r : test::test_robots()) {
      const std::string urdf = std::string(argv[1]) + "/" + r.path;
      const ReducedModel rm = load_urdf(urdf);
      const int n = rm.nq();
      std::vector<ReducedLinkParams<double>> L;
      nlohmann::json robot = {{"name", r.name}, {"urdf", urdf}, {"gravity", {rm.gravity.x, rm.gravity.y, rm.gravity.z}}};
      for (int k = 0; k < n; ++k) {
        L.push_back(reduced_link_params<double>(rm, k));
        robot["joints"].push_back(rm.links[k].joint_name);
        robot["types"].push_back(rm.links[k].type == ReducedJointType::Revolute ? "revolute" : "prismatic");
      }
      for (int c = 0; c < 25; ++c) {
        std::vector<double> q(n), qd(n), qdd(n), tau(n), t1(n), t2(n), a1(n), a2(n);
        for (int k = 0; k < n; ++k) {
          q[k] = rm.links[k].type == ReducedJointType::Revolute ? M_PI * u(g) : 0.02 + 0.02 * u(g);
          qd[k] = 2 * u(g);
          qdd[k] = 3 * u(g);
          tau[k] = 5 * u(g);
        }
        rnea(n, L.data(), rm.gravity, q.data(), qd.data(), qdd.data(), t1.data(), rws);
        aba(n, L.data(), rm.gravity, q.data(), qd.data(), tau.data(), a1.data(), aws);
        cga::cga_rnea(n, L.data(), rm.gravity, q.data(), qd.data(), qdd.data(), t2.data(), cws);
        cga::cga_aba(n, L.data(), rm.gravity, q.data(), qd.data(), tau.data(), a2.data(), cws);
        robot["cases"].push_back({{"q", q}, {"qd", qd}, {"qdd", qdd}, {"tau", tau}, {"rnea", t1}, {"aba", a1},
                                  {"cga_rnea", t2}, {"cga_aba", a2}});
      }
      out["robots"].push_back(robot);
    }
  } catch (const UrdfError& e) {
    std::fprintf(stderr, "robot_dump: %s\n", e.what());
    return 2;
  }
  std::ofstream(argv[2]) << out.dump();
  return 0;
}
