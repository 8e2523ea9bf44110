#include "simphant/job/check_scene.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/shift_choice.hpp"
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

/// The regularisation's footprint at the assembled state: the constraint accelerations
/// M^-1 Phi_q^T lambda of the refined solve (tikhonov_epsilon, refinement_steps; docs/solver.md,
/// "The refined regularised solve") against those of the minimum-norm least-squares
/// lambda of the unregularised C (a complete orthogonal decomposition). Returns a
/// warning when they differ by more than 1e-6 of the larger of those accelerations and
/// M^-1 Q, else "".
std::string epsilon_warning(const Model& model, Data& d, const std::vector<double>& Y) {
  if (model.n_rows == 0) return "";
  std::vector<double> Ydot(Y.size());
  if (!evaluate(model, d, 0.0, Y.data(), nullptr, Ydot.data())) return "";  // builds d.C (C + E), d.rhs, d.lambda
  assemble_jacobian(model, d);
  Eigen::MatrixXd C = d.C;
  C.diagonal() = d.diag_C;
  const Eigen::VectorXd lambda_ref = C.completeOrthogonalDecomposition().solve(d.rhs);
  const Eigen::VectorXd f_err = d.Phi_q.transpose() * (d.lambda - lambda_ref);
  const Eigen::VectorXd f_ref = d.Phi_q.transpose() * lambda_ref;
  double err = 0, scale = 0;
  for (int k = 0; k < model.n_bodies(); ++k) {
    double a[6], b[6], q[6];
    apply_body_Minv(model.bodies[k].mass, model.bodies[k].inertia_inv_B, f_err.data() + 6 * k, a);
    apply_body_Minv(model.bodies[k].mass, model.bodies[k].inertia_inv_B, f_ref.data() + 6 * k, b);
    apply_body_Minv(model.bodies[k].mass, model.bodies[k].inertia_inv_B, d.Q.data() + 6 * k, q);
    for (int c = 0; c < 6; ++c) {
      err = std::max(err, std::fabs(a[c]));
      scale = std::max({scale, std::fabs(b[c]), std::fabs(q[c])});
    }
  }
  if (!(err > 1e-6 * scale)) return "";
  char msg[512];
  // At the smallest shift a run chooses, what is left is C's conditioning, not the shift.
  const bool floor = model.solver.tikhonov_epsilon <= kMinShiftEpsilon;
  std::snprintf(msg, sizeof msg,
                "tikhonov_epsilon = %.3g with refinement_steps = %d leaves a relative error of %.3g in the constraint "
                "accelerations at the assembled state; %s",
                model.solver.tikhonov_epsilon, model.solver.refinement_steps, err / scale,
                floor ? "the Schur matrix is too ill-conditioned for the precision (light bodies next to heavy ones: "
                        "give them a physical mass and inertia, or run a robot in joint coordinates; docs/solver.md, "
                        "\"The shift of a run\")"
                      : "lower tikhonov_epsilon or raise refinement_steps");
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
  // epsilon_warning reads the dense C; above kDenseAssemblyRows its decomposition of C
  // (O(m^3)) is not made and the run's own record of its solves stands in.
  const bool dense = model.n_rows <= kDenseAssemblyRows;
  Data d(model, dense ? SchurFactorization::Dense : SchurFactorization::Auto);
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
    // The solve as a run makes it: redundant rows removed, the run's shift
    // (dynamics/redundant_rows.hpp, dynamics/shift_choice.hpp).
    std::vector<Model> run_form = {model};
    set_removed_rows(run_form);
    set_run_shift(run_form);
    const std::string w = dense ? epsilon_warning(run_form.front(), d, Y) : "";
    if (!dense)
      logger().info("the regularisation's footprint at the assembled state is not analysed above {} constraint rows "
                    "(m = {}); a run reports every refined solve that stays unconverged (docs/solver.md)",
                    kDenseAssemblyRows, model.n_rows);
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
  return json{{"name", model.name},
              {"dt", model.solver.dt},
              {"t_end", model.solver.t_end},
              {"bodies", bodies},
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
