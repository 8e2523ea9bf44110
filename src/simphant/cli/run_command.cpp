// `simphant run SCENE`: load -> CLI overrides -> sample the sweep -> per-instance models
// -> Simulator (assembles every instance) -> step loop recording every record_every
// steps -> final status, attributes and summary.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "commands.hpp"
#include "progress.hpp"
#include "run_stats.hpp"
#include "signals.hpp"
#include "simphant/io/recorder.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Loads the scene and applies --dt / --t-end / --solver (by patching the document's
/// solver section and re-validating it) and --seed. Scene.text stays the file as read.
Scene load_with_overrides(const RunOptions& o) {
  Scene scene = load_scene(o.scene);
  if (!o.solver.empty() && !scene.doc.contains("robot"))
    throw SceneError("--solver", "'" + o.solver + "' applies to robot scenes (a \"robot\" section, docs/robots.md); " +
                                     o.scene + " has none");
  if (o.has_dt || o.has_t_end || !o.solver.empty()) {
    nlohmann::json doc = scene.doc;
    if (o.has_dt) doc["solver"]["dt"] = o.dt;
    if (o.has_t_end) doc["solver"]["t_end"] = o.t_end;
    if (!o.solver.empty()) doc["solver"]["type"] = o.solver;
    std::string text = std::move(scene.text);
    scene = parse_scene(doc.dump(), o.scene);
    scene.text = std::move(text);
  }
  if (o.has_seed) scene.sweep.seed = o.seed;
  return scene;
}

/// Refuses an output path that cannot be written, before any work: its folder must
/// exist and be writable, and it must not be a folder or the scene file itself.
void check_output_path(const std::string& out, const std::string& scene_file) {
  namespace fs = std::filesystem;
  const fs::path p(out);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::runtime_error("output " + out + ": " + dir.string() + " is not a folder");
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("output " + out + ": folder " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw std::runtime_error("output " + out + ": folder " + dir.string() + " is not writable");
  if (fs::is_directory(p, ec)) throw std::runtime_error("output " + out + ": is a folder");
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw std::runtime_error("output " + out + ": exists and is not a regular file (a device, pipe or socket)");
  if (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0)
    throw std::runtime_error("output " + out + ": exists and is not writable");
  if (fs::exists(p, ec) && fs::equivalent(p, fs::path(scene_file), ec))
    throw std::runtime_error("output " + out + ": is the scene file itself");
}

/// Refuses a batch whose memory would not fit, before any allocation: an estimate of
/// the bytes per instance (its model when the sweep varies it, its state, one recorded
/// frame, statistics) against the machine's physical memory.
void check_memory(const Scene& scene, const RunOptions& o) {
  const Model& m = scene.model;
  const long long n = o.instances > 0 ? o.instances : scene.sweep.instances;
  const double per_model = sizeof(Model) + m.bodies.size() * sizeof(Body) + m.joints.size() * sizeof(Joint) +
                           m.forces.size() * sizeof(ForceElement);
  const double per_instance = (scene.sweep.parameters.empty() ? 0.0 : per_model) +
                              8.0 * (2 * m.ny() + 6 * m.n_joints() + m.n_inputs + 8 + scene.sweep.parameters.size());
  const double need = per_instance * static_cast<double>(n);
  const double have = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (have > 0 && need > 0.8 * have) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "%lld instances need about %.1f GiB (%.0f bytes each); this machine has %.1f GiB: use fewer instances",
                  n, need / (1 << 30), per_instance, have / (1 << 30));
    throw std::runtime_error(msg);
  }
}

/// Buffers for one frame, filled from the simulator.
struct Frame {
  std::vector<double> states, reactions, violation, energy, kinetic;
  std::vector<double> joint_q, joint_qd, joint_tau;  ///< (n, n_coords) each, robot runs
  Frame(int n, int n_bodies, int n_joints, int n_coords)
      : states(static_cast<std::size_t>(n) * n_bodies * 13),
        reactions(static_cast<std::size_t>(n) * n_joints * 6),
        violation(static_cast<std::size_t>(n)),
        energy(static_cast<std::size_t>(n)),
        kinetic(static_cast<std::size_t>(n)),
        joint_q(static_cast<std::size_t>(n) * n_coords),
        joint_qd(static_cast<std::size_t>(n) * n_coords),
        joint_tau(static_cast<std::size_t>(n) * n_coords) {}
};

int run(const RunOptions& o) {
  const auto t_start = Clock::now();
  if (o.precision == "fp32" && o.backend == "cpu") {
    std::fprintf(stderr, "error: --precision fp32 needs --backend cuda or cuda-fused (the cpu backend is the fp64 "
                         "reference)\n");
    return kExitBadInput;
  }
  const bool named_cuda = o.backend == "cuda" || o.backend == "cuda-fused";
  Scene scene = load_with_overrides(o);
  // Combinations that no machine runs are bad input (exit 2), before any device check.
  const RobotJointSpace* robot = scene.model.robot.get();
  if (robot && (named_cuda || o.precision == "fp32")) {
    std::fprintf(stderr, "error: %s: robot scenes run on the cpu backend in fp64 (solver '%s'; the cuda backends do "
                         "not report joint coordinates yet; docs/robots.md)\n",
                 named_cuda ? ("--backend " + o.backend).c_str() : "--precision fp32", robot_solver_name(robot->solver));
    return kExitBadInput;
  }
  // The device, before any work or file (BackendError: exit 3).
  if (named_cuda) require_cuda_device(o.backend);
  const std::string no_cuda = o.precision == "fp32" ? cuda_unavailable_reason() : "";
  if (!no_cuda.empty()) {
    std::fprintf(stderr, "error: --precision fp32 runs on the cuda backend only: %s; use --precision fp64\n",
                 no_cuda.c_str());
    return kExitRunFailed;
  }
  const std::string out =
      o.out.empty() ? std::filesystem::path(o.scene).stem().string() + ".h5" : o.out;
  check_output_path(out, o.scene);
  check_memory(scene, o);
  const SweepSamples samples = sample_sweep(scene.sweep, o.instances);
  const int n = samples.n_instances;
  std::vector<Model> models = build_instance_models(scene, samples);
  const SolverSettings solver = models.front().solver;

  // Let HDF5 itself try the output before the expensive assembly (a path such as /proc
  // passes the folder checks above); the recorder recreates the file below.
  h5::create_file(out);

  SimulatorOptions sim_options;
  sim_options.backend = o.backend;
  sim_options.threads = o.threads;
  sim_options.precision = o.precision;
  std::unique_ptr<Simulator> sim = Simulator::create(std::move(models), sim_options, n);
  const Model& model = sim->model();
  const int B = model.n_bodies(), J = model.n_joints();

  RecorderInfo info;
  info.n_instances = n;
  for (const Body& b : model.bodies) info.body_names.push_back(b.name);
  for (const Joint& j : model.joints) info.joint_names.push_back(j.name);
  info.scene_text = scene.text;
  info.scene_file = o.scene;
  info.solver = solver;
  info.backend = sim->backend_name();
  info.seed = scene.sweep.seed;
  const int n_coords = sim->n_joint_coordinates();
  if (n_coords > 0) info.joint_coordinate_names = info.joint_names;  // robot runs: joint k = coordinate k
  Recorder recorder(out, info);
  recorder.write_params(samples.paths, samples.values);
  AssemblySummary assembly;
  {
    std::vector<double> pos, vel;
    std::vector<std::int32_t> iters;
    for (const AssemblyResult& a : sim->assembly()) {
      pos.push_back(a.position_residual);
      vel.push_back(a.velocity_residual);
      iters.push_back(a.iterations);
      if (a.ok) {
        assembly.max_position_residual = std::max(assembly.max_position_residual, a.position_residual);
        assembly.max_velocity_residual = std::max(assembly.max_velocity_residual, a.velocity_residual);
        assembly.max_iterations = std::max(assembly.max_iterations, a.iterations);
      }
    }
    recorder.write_assembly(pos, vel, iters);
  }
  std::vector<std::int8_t> status(static_cast<std::size_t>(n));
  std::vector<double> status_time(static_cast<std::size_t>(n));
  sim->read_status(status.data(), status_time.data());
  recorder.write_status(status.data(), status_time.data());

  Frame frame(n, B, J, n_coords);
  RunStats stats(n);
  // A frame is read from the simulator (a device backend brings it back through pinned
  // memory) and written to the file after the next slice of steps is queued, so on a
  // device backend the HDF5 write overlaps the step loop.
  bool frame_pending = false;
  double frame_time = 0;
  auto read_frame = [&] {
    sim->read_states(frame.states.data());
    sim->read_reactions(frame.reactions.data());
    sim->read_constraint_violation(frame.violation.data());
    sim->read_energy(frame.energy.data(), frame.kinetic.data());
    if (n_coords > 0) sim->read_joint_state(frame.joint_q.data(), frame.joint_qd.data(), frame.joint_tau.data());
    frame_time = sim->time();
    frame_pending = true;
  };
  auto write_frame = [&] {
    if (!frame_pending) return;
    recorder.record(frame_time, frame.states.data(), frame.reactions.data(), frame.violation.data(),
                    frame.energy.data(), frame.joint_q.data(), frame.joint_qd.data(), frame.joint_tau.data());
    stats.add_frame(frame.violation.data(), frame.energy.data(), frame.kinetic.data());
    frame_pending = false;
  };

  // Step loop. advance() is called in slices of about 50 ms (never across a record
  // point) so that a stop signal and the progress bar are served promptly.
  const std::int64_t total = std::max<std::int64_t>(1, std::llround(solver.t_end / solver.dt));
  const std::int64_t every = std::max(1, solver.record_every);
  read_frame();
  // Nothing to integrate when no instance assembled.
  const bool any_ok = std::any_of(status.begin(), status.end(), [](std::int8_t st) { return st == 0; });
  ProgressBar progress(total, n);
  const auto t_loop = Clock::now();
  std::int64_t done = 0, since_record = 0, slice = 1;
  while (any_ok && done < total && !stop_requested()) {
    const std::int64_t k = std::min({slice, every - since_record, total - done});
    const auto t_slice = Clock::now();
    sim->advance(static_cast<int>(k));
    write_frame();
    sim->synchronize();
    const double slice_s = seconds_since(t_slice);
    done += k;
    since_record += k;
    if (since_record == every || done == total) {
      read_frame();
      since_record = 0;
    }
    const double per_step = std::max(slice_s / static_cast<double>(k), 1e-9);
    slice = std::clamp<std::int64_t>(static_cast<std::int64_t>(0.05 / per_step), 1, 1 << 20);
    progress.update(done, sim->time());
  }
  write_frame();
  if (since_record > 0) {  // stopped between record points: keep the last state
    read_frame();
    write_frame();
  }
  const double loop_s = seconds_since(t_loop);
  progress.finish();

  sim->read_status(status.data(), status_time.data());
  const int sig = stop_signal();
  recorder.finalize(status.data(), status_time.data(), seconds_since(t_start), sig != 0);

  RunReport report;
  report.scene_file = o.scene;
  report.out_file = out;
  report.backend = sim->backend_details();
  report.steps = done;
  report.steps_planned = total;
  report.frames = recorder.frames();
  report.dt = solver.dt;
  report.sim_time = sim->time();
  report.wall_s = seconds_since(t_start);
  report.loop_wall_s = loop_s;
  report.stop_signal = sig;
  report.assembly = assembly;
  const RunStats::Summary summary = stats.reduce(status);
  print_summary(report, summary);

  if (sig != 0) return 128 + sig;
  if (summary.n_ok == 0) {
    std::fprintf(stderr, "error: no instance finished ok (%d assembly failed, %d diverged)\n",
                 summary.n_assembly_failed, summary.n_diverged);
    return kExitRunFailed;
  }
  return kExitOk;
}

}  // namespace

int run_command(const RunOptions& options) {
  install_stop_handlers();
  try {
    return run(options);
  } catch (const SceneError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadInput;
  } catch (const BackendError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  } catch (const h5::H5Error& e) {
    std::fprintf(stderr, "error: output: %s\n", e.what());
    return kExitRunFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitRunFailed;
  }
}

}  // namespace simphant::cli
