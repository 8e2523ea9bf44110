#include "simphant/job/check_scene.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/log/log.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

namespace {

using nlohmann::json;

std::string body_name(const Model& model, int index) {
  return index == kGround ? std::string("ground") : model.bodies[static_cast<std::size_t>(index)].name;
}

/// The Tikhonov epsilon is an absolute compliance: it must be small against every
/// diagonal entry of Phi_q M^-1 Phi_q^T (an inverse mass), or the constraints give by
/// about eps * lambda (docs/scene-format.md, "Solver"). Returns the warning, or "".
std::string epsilon_warning(const Model& model, Data& d, const std::vector<double>& Y) {
  if (model.n_rows == 0) return "";
  std::vector<double> Ydot(Y.size());
  evaluate(model, d, Y.data(), nullptr, Ydot.data());  // builds d.C
  const double eps = model.solver.tikhonov_epsilon;
  const double c_min = (d.C.diagonal().array() - eps).minCoeff();
  if (!(eps > 1e-6 * c_min)) return "";
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "tikhonov_epsilon = %.3g is not small against the smallest diagonal entry of Phi_q M^-1 Phi_q^T "
                "(%.3g, an inverse mass): the joints will give by about eps * lambda; use eps below %.3g",
                eps, c_min, 1e-6 * c_min);
  return msg;
}

}  // namespace

json check_scene(const Scene& scene) {
  const MemoryEstimate memory = estimate_check_memory(scene);
  check_memory_fits(memory, "check of " + std::to_string(memory.instances) +
                                (memory.instances == 1 ? " instance" : " instances"),
                    scene.sweep.parameters.empty() ? "the model is too large for a dense analysis on this machine"
                                                   : "use fewer sweep instances");
  // Every sampled instance is compiled, so that check rejects what run would reject.
  const SweepSamples samples = sample_sweep(scene.sweep);
  const std::vector<Model> instance_models = build_instance_models(scene, samples);
  const StabilityCheck stability = check_step_stability(instance_models, scene.doc);
  const Model& model = scene.model;
  Data d(model, SchurFactorization::Dense);  // epsilon_warning reads the dense C
  std::vector<double> Y(static_cast<std::size_t>(model.ny()));
  initial_state(model, Y.data());
  const AssemblyResult res = assemble(model, d, Y.data());
  const ConstraintAnalysis an = analyse_constraints(model, d, Y.data());

  json bodies = json::array(), joints = json::array(), warnings = json::array();
  for (const Body& b : model.bodies) bodies.push_back(b.name);
  for (const Joint& j : model.joints)
    joints.push_back(json{{"name", j.name},
                          {"type", joint_type_name(j.type)},
                          {"body_i", body_name(model, j.body_i)},
                          {"body_j", body_name(model, j.body_j)},
                          {"rows", joint_rows(j.type)}});
  if (res.ok && model.robot && model.robot->solver != RobotSolver::Dae) {
    // The analysis is of the robot's maximal-coordinate model; the run integrates joint
    // coordinates, where epsilon plays no part.
    logger().info("solver '{}' integrates the robot's {} joint coordinates (docs/robots.md); the constraint "
                  "analysis is of its maximal-coordinate (dae) model",
                  robot_solver_name(model.robot->solver), model.robot->n());
  } else if (res.ok) {
    const std::string w = epsilon_warning(model, d, Y);
    if (!w.empty()) {
      logger().warn("{}", w);
      warnings.push_back(w);
    }
  }
  for (const std::string& w : stability.warnings) {
    logger().warn("{}", w);
    warnings.push_back(w);
  }
  json step_stability = stability.estimate;
  step_stability["refused"] = !stability.refused_field.empty() && !model.solver.allow_unstable;
  if (step_stability["refused"].get<bool>())
    step_stability["error"] = stability.refused_field + ": " + stability.refused_reason;
  return json{{"bodies", bodies},
              {"joints", joints},
              {"constraint_rows", an.rows},
              {"rank", an.rank},
              {"dof", an.dof},
              {"redundant_rows", an.redundant_rows},
              {"assembly_ok", res.ok},
              {"assembly_residual", res.position_residual},
              {"assembly_velocity_residual", res.velocity_residual},
              {"assembly_iterations", res.iterations},
              {"assembly_message", res.message},
              {"step_stability", step_stability},
              {"instances", samples.n_instances},
              {"warnings", warnings}};
}

}  // namespace simphant
