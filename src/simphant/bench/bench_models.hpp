#pragma once
// The models of the benchmark suite (`simphant bench`, docs/benchmarks.md), each one
// shared Model for all instances:
//  - chain_N: an N-link pendulum on a fixed base, generated as URDF text (chain_urdf) and
//    turned into the maximal DAE Model by the robot importer (parse_urdf +
//    maximal_model_from_urdf, as scene/robot_compile.cpp does), at q0 = qd0 = 0;
//  - arm7: examples/arm7.json (a robot scene: 7 revolute joints with the Franka Panda's
//    link inertias), its compiled Model;
//  - slider_crank, four_bar, bricard: examples/<name>.json, the scene's base Model (no
//    sweep applied);
//  - <robot>_aba, <robot>_cga (arm7_aba, panda_cga, ...): the robot scene
//    examples/<robot>.json in joint coordinates, integrated by the reduced backends with
//    ABA or CGA-ABA (docs/robots.md) instead of its maximal DAE form.
// export_bench_models writes the same models as URDF + robot scenes for external tools
// (the MuJoCo comparison).
#include <string>
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant::bench {

/// The chain sizes of the default suite: 1, 2, 4, 8, 16, 32.
const std::vector<int>& default_chain_sizes();

/// The default model list: chain_1 .. chain_32, arm7, slider_crank, four_bar, bricard.
std::vector<std::string> default_model_names();

/// URDF text of the N-link chain "chain_N" (N >= 1): a massless root link "base" (the
/// fixed world frame) and links link_1 .. link_N, each a uniform slender rod of mass 1 kg
/// and length 0.5 m along its link x axis, CoM at its middle (0.25, 0, 0), inertia about
/// the CoM ixx = 2e-4, iyy = izz = m L^2 / 12 = 0.25 / 12 kg m^2. Joint k (joint_k) is
/// revolute about the link y axis, at the world origin for k = 1 and at the tip
/// (0.5, 0, 0) of link k-1 otherwise. Limits are +-1e6 rad (the URDF needs some; they never
/// act, and SimPhant does not enforce limits anyway). At q = 0 the chain lies straight
/// along +x, horizontal; gravity is the importer's (0, 0, -9.81) m/s^2.
/// Throws std::invalid_argument for N < 1.
std::string chain_urdf(int N);

/// Robot scene JSON text for chain_N (docs/robots.md): robot.urdf = "chain_N.urdf"
/// (relative to the scene's folder), q0 = qd0 = tau = 0, gravity (0, 0, -9.81), solver
/// dae, dt 1e-3, t_end 1.
std::string chain_scene_json(int N);

/// The maximal DAE Model of chain_N at q0 = qd0 = 0 (named "chain_N"; default solver
/// settings: dt 1e-3 s, alpha = beta = 10, eps 1e-10). N bodies, N revolute joints,
/// 5 N rows, no force elements. Throws std::invalid_argument for N < 1.
Model chain_model(int N);

/// The benchmark Model called `name` ("chain_<N>", "arm7", or the stem of a scene in
/// examples_dir, e.g. "four_bar"), named `name`. A robot scene's Model loses its
/// Model::robot (the joint-space form) so that every backend, cuda included, runs its
/// maximal DAE form; its actuators stay (inputs = the scene's tau).
/// A name "<stem>_aba" or "<stem>_cga" whose stem is a robot scene of examples_dir (for
/// chain_<N>_aba: the chain_<N>.json written by export_bench_models there) keeps
/// the joint-space form with Model::robot->solver = Aba / Cga (the scene's own solver
/// type does not matter), so that Simulator::create picks a reduced backend: the
/// joint-space robot benchmark (docs/benchmarks.md, "Robots in joint coordinates").
/// Throws std::invalid_argument for a malformed chain name, a name that is neither a
/// chain nor a scene file of examples_dir, or an _aba / _cga name whose scene has no
/// robot; SceneError for a scene that does not load.
Model bench_model(const std::string& name, const std::string& examples_dir);

/// True for a robot Model integrated in joint coordinates (solver aba or cga).
bool is_joint_space(const Model& model);

/// "dae", "aba" or "cga": how the suite's Simulator integrates `model`.
const char* bench_solver_name(const Model& model);

/// Writes dir/chain_N.urdf and dir/chain_N.json for every N of chain_sizes and copies
/// examples_dir/arm7.urdf and arm7.json into dir (created if missing; files overwritten).
/// Returns the paths written. Throws std::runtime_error when a file cannot be written.
std::vector<std::string> export_bench_models(const std::string& dir, const std::string& examples_dir,
                                             const std::vector<int>& chain_sizes);

}  // namespace simphant::bench
