// `simphant check SCENE [--json]`: validates the scene and every instance of its sweep,
// assembles the base model (no sweep applied) once and analyses Phi_q at the assembled
// state.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::cli {

namespace {

std::string body_name(const Model& model, int index) {
  return index == kGround ? std::string("ground") : model.bodies[static_cast<std::size_t>(index)].name;
}

void print_table(const std::string& file, const Model& model, const AssemblyResult& res,
                 const ConstraintAnalysis& an) {
  std::printf("scene %s%s%s\n", file.c_str(), model.name.empty() ? "" : ": ", model.name.c_str());
  std::printf("\nbodies (%d)\n  %-20s %12s %12s %12s %12s\n", model.n_bodies(), "name", "mass [kg]", "Jxx", "Jyy",
              "Jzz");
  for (const Body& b : model.bodies)
    std::printf("  %-20s %12.6g %12.6g %12.6g %12.6g\n", b.name.c_str(), b.mass, b.inertia_B.m[0][0],
                b.inertia_B.m[1][1], b.inertia_B.m[2][2]);
  std::printf("\njoints (%d)\n  %-20s %-12s %-20s %-20s %5s\n", model.n_joints(), "name", "type", "body_i", "body_j",
              "rows");
  for (const Joint& j : model.joints)
    std::printf("  %-20s %-12s %-20s %-20s %5d\n", j.name.c_str(), joint_type_name(j.type),
                body_name(model, j.body_i).c_str(), body_name(model, j.body_j).c_str(), joint_rows(j.type));
  std::printf("\nconstraint rows m   %d\n", an.rows);
  std::printf("rank of Phi_q       %d\n", an.rank);
  std::printf("degrees of freedom  %d  (6N - rank, N = %d)\n", an.dof, model.n_bodies());
  std::printf("redundant rows      ");
  if (an.redundant_rows.empty()) std::printf("none");
  for (std::size_t k = 0; k < an.redundant_rows.size(); ++k)
    std::printf("%s%d", k ? ", " : "", an.redundant_rows[k]);
  std::printf("\nassembly            %s after %d iterations, max |Phi| = %.3e, max |Phi_q qdot| = %.3e\n",
              res.ok ? "ok" : "FAILED", res.iterations, res.position_residual, res.velocity_residual);
}

nlohmann::json to_json(const Model& model, const AssemblyResult& res, const ConstraintAnalysis& an) {
  nlohmann::json bodies = nlohmann::json::array(), joints = nlohmann::json::array();
  for (const Body& b : model.bodies) bodies.push_back(b.name);
  for (const Joint& j : model.joints)
    joints.push_back(nlohmann::json{{"name", j.name}, {"type", joint_type_name(j.type)}, {"rows", joint_rows(j.type)}});
  return {{"bodies", bodies},
          {"joints", joints},
          {"constraint_rows", an.rows},
          {"rank", an.rank},
          {"dof", an.dof},
          {"redundant_rows", an.redundant_rows},
          {"assembly_residual", res.position_residual}};
}

/// The Tikhonov epsilon is an absolute compliance: it must be small against every
/// diagonal entry of Phi_q M^-1 Phi_q^T (an inverse mass), or the constraints give by
/// about eps * lambda (docs/scene-format.md, "Solver").
void warn_if_epsilon_is_large(const Model& model, Data& d, const std::vector<double>& Y) {
  if (model.n_rows == 0) return;
  std::vector<double> Ydot(Y.size());
  evaluate(model, d, Y.data(), nullptr, Ydot.data());  // builds d.C
  const double eps = model.solver.tikhonov_epsilon;
  const double c_min = (d.C.diagonal().array() - eps).minCoeff();
  if (eps > 1e-6 * c_min)
    std::fprintf(stderr,
                 "warning: tikhonov_epsilon = %.3g is not small against the smallest diagonal entry of "
                 "Phi_q M^-1 Phi_q^T (%.3g, an inverse mass): the joints will give by about eps * lambda; "
                 "use eps below %.3g\n",
                 eps, c_min, 1e-6 * c_min);
}

int check(const CheckOptions& o) {
  const Scene scene = load_scene(o.scene);
  // Every sampled instance is compiled, so that check rejects what run would reject.
  const SweepSamples samples = sample_sweep(scene.sweep);
  build_instance_models(scene, samples);
  const Model& model = scene.model;
  Data d(model, SchurFactorization::Dense);  // warn_if_epsilon_is_large reads the dense C
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  const AssemblyResult res = assemble(model, d, Y.data());
  const ConstraintAnalysis an = analyse_constraints(model, d, Y.data());
  if (o.json) {
    std::cout << to_json(model, res, an).dump() << std::endl;
  } else {
    print_table(o.scene, model, res, an);
  }
  if (!res.ok) {
    std::fprintf(stderr, "error: assembly failed: max |Phi| = %.3e after %d iterations\n", res.position_residual,
                 res.iterations);
    return kExitRunFailed;
  }
  if (model.robot && model.robot->solver != RobotSolver::Dae) {
    // The analysis above is of the robot's maximal-coordinate model; the run integrates
    // joint coordinates, where epsilon plays no part.
    std::fprintf(stderr, "note: solver '%s' integrates the robot's %d joint coordinates (docs/robots.md); the "
                         "constraint analysis is of its maximal-coordinate (dae) model\n",
                 robot_solver_name(model.robot->solver), model.robot->n());
    return kExitOk;
  }
  warn_if_epsilon_is_large(model, d, Y);
  return kExitOk;
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
