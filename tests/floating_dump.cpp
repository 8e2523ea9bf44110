// floating_dump ROBOTS_DIR OUT.json: our floating-base forward dynamics (aba_floating,
// cga::cga_aba_floating) and floating forward kinematics at random states of robots from
// example-robot-data made floating (make_floating_base: the root link and the links fixed
// to it become the free base B, as Pinocchio's JointModelFreeFlyer root does), written as
// JSON for tests/pinocchio_floating_check.py, which recomputes them with Pinocchio.
// Exit 0, or 2 on a usage / load error.
//
// JSON: {"robots": [{"name", "urdf", "joints": [names], "links": [names], "gravity": [3],
//   "cases": [{"p_B", "quat_B" (w x y z), "v_B" (W), "omega_B" (B), "q", "qd", "tau",
//              "aba": {"vdot_B" (W), "omegadot_B" (B), "qdd"}, "cga_aba": {...},
//              "R_W" (n x 9, row-major link -> W), "o_W" (n x 3), "vo_W" (n x 3: velocity of
//              the link-frame origin, W), "omega_L" (n x 3: link angular velocity, link
//              frame)}]}]}
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace {

struct FloatingRobot {
  const char* name;
  const char* path;  ///< relative to the robots folder of example-robot-data
};

/// Two arms made floating and two legged robots (no floating joint in their URDFs either:
/// Pinocchio and we add the free base).
std::vector<FloatingRobot> floating_robots() {
  return {{"panda", "panda_description/urdf/panda.urdf"},
          {"ur5", "ur_description/urdf/ur5_robot.urdf"},
          {"solo12", "solo_description/robots/solo12.urdf"},
          {"anymal_c", "anymal_c_simple_description/urdf/anymal.urdf"}};
}

template <class V>
nlohmann::json vec3(const V& a) {
  return {a.x, a.y, a.z};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace simphant;
  if (argc != 3) {
    std::fprintf(stderr, "usage: floating_dump ROBOTS_DIR OUT.json\n");
    return 2;
  }
  static AbaWorkspace<double> aws;
  static cga::CgaWorkspace<double> cws;
  std::mt19937_64 g(2025);
  std::uniform_real_distribution<double> u(-1, 1);
  std::normal_distribution<double> nd(0, 1);
  nlohmann::json out;
  out["robots"] = nlohmann::json::array();
  try {
    for (const FloatingRobot& r : floating_robots()) {
      const std::string urdf = std::string(argv[1]) + "/" + r.path;
      ReducedModel rm = load_urdf(urdf);
      make_floating_base(rm);
      const int n = rm.nq();
      std::vector<ReducedLinkParams<double>> L;
      std::vector<cga::CgaLink<double>> C;
      nlohmann::json robot = {{"name", r.name}, {"urdf", urdf}, {"gravity", vec3(rm.gravity)}};
      for (int k = 0; k < n; ++k) {
        L.push_back(reduced_link_params<double>(rm, k));
        C.push_back(cga::cga_link(L.back()));
        robot["joints"].push_back(rm.links[k].joint_name);
        robot["links"].push_back(rm.links[k].name);
      }
      const RobotBaseParams<double> base{rm.base.mass, rm.base.com, rm.base.inertia_com};
      for (int c = 0; c < 20; ++c) {
        const Vec3d p_B{u(g), u(g), 0.5 + u(g)}, v_B{u(g), u(g), u(g)}, omega_B{2 * u(g), 2 * u(g), 2 * u(g)};
        const Quatd quat_B = normalized(Quatd{nd(g), nd(g), nd(g), nd(g)});
        std::vector<double> q(n), qd(n), tau(n), a1(n), a2(n);
        for (int k = 0; k < n; ++k) {
          q[k] = rm.links[k].type == ReducedJointType::Revolute ? M_PI * u(g) : 0.02 + 0.02 * u(g);
          qd[k] = 2 * u(g);
          tau[k] = 5 * u(g);
        }
        Vec3d vdot1, wdot1, vdot2, wdot2;
        aba_floating(n, L.data(), base, rm.gravity, p_B, quat_B, v_B, omega_B, q.data(), qd.data(), tau.data(), vdot1,
                     wdot1, a1.data(), aws);
        cga::cga_aba_floating(n, C.data(), base, rm.gravity, p_B, quat_B, v_B, omega_B, q.data(), qd.data(),
                              tau.data(), vdot2, wdot2, a2.data(), cws);
        std::vector<Mat3d> R(n);
        std::vector<Vec3d> o(n), cW(n), vc(n), w(n), vo(n);
        forward_kinematics_velocity_floating(n, L.data(), p_B, quat_B, v_B, omega_B, q.data(), qd.data(), R.data(),
                                             o.data(), cW.data(), vc.data(), w.data(), vo.data());
        nlohmann::json RW = nlohmann::json::array(), oW = nlohmann::json::array(), voW = nlohmann::json::array(),
                       wL = nlohmann::json::array();
        for (int k = 0; k < n; ++k) {
          nlohmann::json m = nlohmann::json::array();
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) m.push_back(R[k].m[i][j]);
          RW.push_back(m);
          oW.push_back(vec3(o[k]));
          voW.push_back(vec3(vo[k]));
          wL.push_back(vec3(w[k]));
        }
        robot["cases"].push_back(
            {{"p_B", vec3(p_B)},
             {"quat_B", {quat_B.w, quat_B.x, quat_B.y, quat_B.z}},
             {"v_B", vec3(v_B)},
             {"omega_B", vec3(omega_B)},
             {"q", q},
             {"qd", qd},
             {"tau", tau},
             {"aba", {{"vdot_B", vec3(vdot1)}, {"omegadot_B", vec3(wdot1)}, {"qdd", a1}}},
             {"cga_aba", {{"vdot_B", vec3(vdot2)}, {"omegadot_B", vec3(wdot2)}, {"qdd", a2}}},
             {"R_W", RW},
             {"o_W", oW},
             {"vo_W", voW},
             {"omega_L", wL}});
      }
      out["robots"].push_back(robot);
    }
  } catch (const UrdfError& e) {
    std::fprintf(stderr, "floating_dump: %s\n", e.what());
    return 2;
  }
  std::ofstream(argv[2]) << out.dump();
  return 0;
}
