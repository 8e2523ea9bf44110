#pragma once
// `simphant check` as a library call: validates a scene and every instance of its
// sweep, assembles the base model (no sweep applied) once and analyses the constraint
// Jacobian Phi_q at the assembled state (README "Command line").
#include <nlohmann/json.hpp>

#include "simphant/scene/scene.hpp"

namespace simphant {

/// The object `simphant check --json` prints:
///   name                        the scene's "name" ("" when it has none)
///   dt, t_end                   solver.dt and solver.t_end of the base model [s]
///   bodies                      [B] body names
///   joints                      [J] {name, type, body_i, body_j (names, "ground"), rows}
///   constraint_rows             m, rows of Phi
///   rank                        rank of Phi_q at the assembled state (dynamics/constraint_analysis.hpp:
///                               one QR of Phi_q^T, relative tolerance 1e-9)
///   dof                         6N - rank
///   redundant_rows              rows that are linear combinations of earlier rows
///   assembly_ok                 whether the position assembly met solver.assembly_tolerance
///   assembly_residual           max |Phi| after assembly [m | rad]
///   assembly_velocity_residual  max |Phi_q qdot| after assembly [m/s | rad/s]
///   assembly_iterations         Newton iterations of the position assembly
///   assembly_message            why assembly failed (a flipped joint: dynamics/assembly.hpp), or ""
///   step_stability              the step-size stability estimate (job/stability_check.hpp: dt_s,
///                               allow_unstable, integrator, modes), plus refused (true when `run` would refuse
///                               dt: exit 2) and, when refused, error (the message naming the field)
///   instances                   instances of the sweep, each compiled and validated
///   warnings                    [strings] also logged at warn level (simphant/log/log.hpp), e.g. a
///                               tikhonov_epsilon whose refined solve leaves a visible error
/// A failed assembly is reported (assembly_ok false), not thrown. Throws SceneError when
/// a sampled instance is invalid (the message names the instance and the path), and,
/// before any allocation, std::runtime_error when the memory it needs (every instance's
/// model, one dense Data, the decompositions of Phi_q: job/memory_estimate.hpp) exceeds
/// 80 % of physical memory.
nlohmann::json check_scene(const Scene& scene);

}  // namespace simphant
