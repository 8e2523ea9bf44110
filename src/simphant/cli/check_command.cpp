// `simphant check SCENE [--json]`: the scene check (simphant/job/check_scene.hpp) as a
// table or as one JSON object on stdout.
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stdout_check.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/job/check_scene.hpp"
#include "simphant/job/test_hold.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::cli {

namespace {

using nlohmann::json;

void print_table(const std::string& file, const Model& model, const json& c) {
  std::printf("scene %s%s%s\n", file.c_str(), model.name.empty() ? "" : ": ", model.name.c_str());
  std::printf("\nbodies (%d)\n  %-20s %12s %12s %12s %12s\n", model.n_bodies(), "name", "mass [kg]", "Jxx", "Jyy",
              "Jzz");
  for (const Body& b : model.bodies)
    std::printf("  %-20s %12.6g %12.6g %12.6g %12.6g\n", b.name.c_str(), b.mass, b.inertia_B.m[0][0],
                b.inertia_B.m[1][1], b.inertia_B.m[2][2]);
  std::printf("\njoints (%d)\n  %-20s %-12s %-20s %-20s %5s\n", model.n_joints(), "name", "type", "body_i", "body_j",
              "rows");
  for (const json& j : c.at("joints"))
    std::printf("  %-20s %-12s %-20s %-20s %5d\n", j.at("name").get<std::string>().c_str(),
                j.at("type").get<std::string>().c_str(), j.at("body_i").get<std::string>().c_str(),
                j.at("body_j").get<std::string>().c_str(), j.at("rows").get<int>());
  std::printf("\nconstraint rows m   %d\n", c.at("constraint_rows").get<int>());
  std::printf("rank of Phi_q       %d\n", c.at("rank").get<int>());
  std::printf("degrees of freedom  %d  (6N - rank, N = %d)\n", c.at("dof").get<int>(), model.n_bodies());
  std::printf("redundant rows      ");
  const json& redundant = c.at("redundant_rows");
  if (redundant.empty()) std::printf("none");
  for (std::size_t k = 0; k < redundant.size(); ++k) std::printf("%s%d", k ? ", " : "", redundant[k].get<int>());
  std::printf("\nassembly            %s after %d iterations, max |Phi| = %.3e, max |Phi_q qdot| = %.3e\n",
              c.at("assembly_ok").get<bool>() ? "ok" : "FAILED", c.at("assembly_iterations").get<int>(),
              c.at("assembly_residual").get<double>(), c.at("assembly_velocity_residual").get<double>());
  const json& st = c.at("step_stability");
  const Integrator integrator = model.solver.integrator;
  std::printf("\nstep-size stability (%s, dt = %g s; docs/solver.md)\n", integrator_name(integrator),
              st.at("dt_s").get<double>());
  if (is_adaptive(integrator))
    std::printf("  adaptive integrator: its error control sets the step (dt is the output grid)\n");
  else if (st.at("modes").empty())
    std::printf("  no stiff modes (no constraint rows, spring-dampers or robot joint forces)\n");
  else
    std::printf("  %-40s %14s %12s %12s  %s\n", "mode (field)", "|lambda| [1/s]", "|lambda| dt", "dt max [s]", "verdict");
  for (const json& m : st.at("modes")) {
    const double mag = std::hypot(m.at("lambda_re").get<double>(), m.at("lambda_im").get<double>());
    // A robot joint's mode (dynamics/robot_stability.hpp) also says which joint it is, a
    // contact's which pair (dynamics/contact_stability.hpp).
    const std::string name = m.at("name").get<std::string>();
    const std::string joint = name.rfind("joint '", 0) == 0 || m.contains("normal_force_n") ? "  " + name : std::string();
    std::printf("  %-40s %14.4g %12.4g %12.4g  %s%s\n", m.at("field").get<std::string>().c_str(), mag,
                m.at("lambda_dt").get<double>(), m.at("dt_max_s").get<double>(), m.at("verdict").get<std::string>().c_str(),
                joint.c_str());
  }
}

int check(const CheckOptions& o) {
  const Scene scene = load_scene(o.scene);
  // SIMPHANT_TEST_HOLD=check:<gate>, for tests (job/test_hold.hpp)
  const job_detail::TestHold hold = job_detail::TestHold::from_environment(scene.model.name, true);
  if (hold.at_check()) hold.hold({{"steps_done", 0}, {"steps_total", 0}}, [] { return stop_requested(); });
  const json c = check_scene(scene);
  if (o.json) {
    std::cout << c.dump() << '\n';
  } else {
    print_table(o.scene, scene.model, c);
  }
  const json& st = c.at("step_stability");
  if (st.at("refused").get<bool>()) {
    std::fprintf(stderr, "error: %s\n", st.at("error").get<std::string>().c_str());
    return finish_stdout(kExitBadInput);
  }
  if (!c.at("assembly_ok").get<bool>()) {
    const std::string message = c.at("assembly_message").get<std::string>();
    std::fprintf(stderr, "error: assembly failed: max |Phi| = %.3e after %d iterations%s%s\n",
                 c.at("assembly_residual").get<double>(), c.at("assembly_iterations").get<int>(),
                 message.empty() ? "" : ": ", message.c_str());
    return finish_stdout(kExitRunFailed);
  }
  return finish_stdout(kExitOk);
}

}  // namespace

int check_command(const CheckOptions& options) {
  try {
    return check(options);
  } catch (const SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  }
}

}  // namespace simphant::cli
