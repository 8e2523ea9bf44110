// run_job: options -> scene -> output claimed -> sweep samples -> per-instance models ->
// Simulator (assembles every instance) -> step loop recording every record_every steps
// into the temporary file -> final status, attributes, stop_reason -> the file renamed
// onto the output -> summary (run_job.hpp).
#include "simphant/job/run_job.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "simphant/core/host_info.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/load_indeterminacy.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/io/recorder.hpp"
#include "simphant/io/reductions_writer.hpp"
#include "simphant/model/components.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/step_count.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/error_estimate.hpp"
#include "simphant/job/input_digests.hpp"
#include "simphant/job/job_checks.hpp"
#include "simphant/job/output_file.hpp"
#include "simphant/job/progress_log.hpp"
#include "simphant/job/energy_check.hpp"
#include "simphant/job/refinement_report.hpp"
#include "simphant/job/singular_passage_hint.hpp"
#include "simphant/job/run_inputs.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/job/step_report.hpp"
#include "simphant/job/test_hold.hpp"
#include "simphant/log/log.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Buffers for one frame, filled from the simulator.
struct Frame {
  std::vector<double> states, reactions, joint_loads, bearing_loads;  ///< loads (n, J, 6) and (n, J, 4)
  std::vector<double> violation, energy, kinetic;
  std::vector<double> joint_q, joint_qd, joint_tau;  ///< (n, n_coords) each, robot runs
  std::vector<double> driver_loads;                  ///< (n, n_drivers)
  Frame(int n, int n_bodies, int n_joints, int n_coords, int n_drivers)
      : states(static_cast<std::size_t>(n) * n_bodies * 13),
        reactions(static_cast<std::size_t>(n) * n_joints * 6),
        joint_loads(static_cast<std::size_t>(n) * n_joints * 6),
        bearing_loads(static_cast<std::size_t>(n) * n_joints * 4),
        violation(static_cast<std::size_t>(n)),
        energy(static_cast<std::size_t>(n)),
        kinetic(static_cast<std::size_t>(n)),
        joint_q(static_cast<std::size_t>(n) * n_coords),
        joint_qd(static_cast<std::size_t>(n) * n_coords),
        joint_tau(static_cast<std::size_t>(n) * n_coords),
        driver_loads(static_cast<std::size_t>(n) * n_drivers) {}
};

/// Whether the run records /joint_loads and /bearing_loads: a backend with the DAE state
/// (13 numbers per body: joint reactions exist) and joints.
bool records_joint_loads(const Simulator& sim) {
  return sim.model().n_joints() > 0 && sim.state_size() == 13 * sim.model().n_bodies();
}

/// Names the joint-load components that redundant rows leave statically indeterminate at
/// instance 0's state (dynamics/load_indeterminacy.hpp) in the attribute
/// statically_indeterminate of /joint_loads and /bearing_loads (where the file has them)
/// (frame datasets) or of their /reductions groups (reductions); nothing when none is.
void write_indeterminacy(hid_t file, const Simulator& sim, bool reductions) {
  if (!records_joint_loads(sim)) return;
  // From the full Phi_q: a removed redundant row's load is as indeterminate as the rest
  // of its self-stress (dynamics/redundant_rows.hpp).
  Model model = sim.model();
  model.removed_rows.clear();
  const int first = 0;
  std::vector<double> y(static_cast<std::size_t>(sim.state_size()));
  sim.get_state(&first, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  Data d(model);
  const LoadIndeterminacy a = analyse_load_indeterminacy(model, d, y.data());
  for (const bool bearing : {false, true}) {
    const std::vector<std::string> text = indeterminate_components(model, a, bearing);
    if (text.empty()) continue;
    const std::string name = bearing ? "bearing_loads" : "joint_loads";
    const std::string path = reductions ? "reductions/" + name : name;
    if (h5::exists(file, path)) {
      const h5::Handle obj(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
      if (obj.valid()) h5::write_attr(obj.id(), "statically_indeterminate", text);
    }
  }
}

RecorderInfo recorder_info(const Simulator& sim, const Scene& scene, const JobOptions& o, const SolverSettings& solver,
                           const ShardSlice& shard, const std::string& start_time, const std::string& input_files) {
  RecorderInfo info;
  info.input_files = input_files;
  if (shard.count > 1) {
    info.shard_index = shard.index;
    info.shard_count = shard.count;
    info.instance_offset = shard.begin;
    info.n_instances_total = shard.total;
  }
  info.n_instances = sim.n_instances();
  for (const Body& b : sim.model().bodies) info.body_names.push_back(b.name);
  for (const Joint& j : sim.model().joints) info.joint_names.push_back(j.name);
  info.scene_text = scene.text;
  info.scene_file = o.scene;
  info.solver = solver;
  info.backend = sim.backend_name();
  info.seed = scene.sweep.seed;
  const SweepSpec& sweep = scene.sweep;
  if (!sweep.parameters.empty()) info.sweep_mode = sweep_mode_name(sweep.mode);
  info.saltelli_base = sweep.saltelli_base;
  info.saltelli_second_order = sweep.saltelli_second_order ? 1 : 0;
  info.sweep_design_file = sweep.design_file;
  info.sweep_design_crc64 = sweep.design_crc64;
  info.params_problem = salib_problem(sweep);
  info.output = scene.model.output;
  if (sim.n_joint_coordinates() > 0) {
    info.joint_coordinate_names = info.joint_names;  // joint k = coordinate k
    for (const Joint& j : sim.model().joints)
      info.joint_coordinate_units.push_back(j.type == JointType::Prismatic ? "m" : "rad");
  }
  info.git_commit = o.git_commit;
  info.buffer_frames = static_cast<hsize_t>(std::max(0, o.record_buffer_frames));
  info.command_line = o.command_line;
  info.host = host_name();
  // A device backend's details name the GPU; a CPU backend's the threads, so add the CPU.
  info.device = sim.backend_details();
  if (info.device.rfind("cuda", 0) != 0) info.device += "; " + cpu_model_name();
  info.start_time = start_time;
  // The drivers' loads (contract of docs/solver.md, "Rheonomic drivers"): the torque
  // [N m] or force [N] each driver applies to its joint's body_j along the joint axis.
  if (sim.n_drivers() > 0) {
    std::vector<std::string> units;
    for (const Driver& dr : sim.model().drivers) {
      info.driver_names.push_back(dr.name);
      units.push_back(dr.coordinate == JointCoordinate::Angle ? "N m" : "N");
    }
    info.frame_datasets.push_back({"driver_loads", "driver_loads",
                                   {static_cast<hsize_t>(sim.n_instances()), static_cast<hsize_t>(sim.n_drivers())},
                                   {"instance", "driver"}, units,
                                   "torque or force each driver applies to its joint's body_j along the joint axis",
                                   {{"driver", info.driver_names}}});
  }
  // The joint-frame loads, on the backends that integrate the constraint forces (the
  // DAE state: 13 numbers per body), computed on the host from each frame's states and
  // reactions (sim/joint_load_frames.hpp).
  if (records_joint_loads(sim)) {
    const auto I = static_cast<hsize_t>(sim.n_instances()), J = static_cast<hsize_t>(sim.model().n_joints());
    info.frame_datasets.push_back({"joint_loads", "joint_loads", {I, J, 6}, {"instance", "joint", "joint_load_component"},
                                   component_units(kJointLoadTable),
                                   "force and moment each joint applies to its body_i about body_i's anchor, on its "
                                   "joint frame (a_i, b_i, v_i)",
                                   {{"joint_load_component", component_names(kJointLoadTable)}}});
    info.frame_datasets.push_back(
        {"bearing_loads", "bearing_loads", {I, J, 4}, {"instance", "joint", "bearing_component"},
         component_units(kBearingTable),
         "axial force, radial force, axial moment and bending moment of each joint on its body_i",
         {{"bearing_component", component_names(kBearingTable)}}});
  }
  return info;
}

/// Most warnings of values assembly changed (AssemblyResult::changed_values) listed (the
/// rest are counted).
constexpr int kChangeWarningsListed = 5;

/// Writes /assembly/* (unless recorder is null: a resumed run's file has them) and
/// returns the maxima over the instances that assembled; appends a warning for each value
/// the scene gave that assembly changed by more than 1 % (kGivenValueChange in
/// dynamics/assembly.hpp), naming the instance, the body, the given and the achieved value.
AssemblySummary record_assembly(const Simulator& sim, Recorder* recorder, std::vector<std::string>& warnings) {
  AssemblySummary assembly;
  std::vector<double> pos, vel, dpos, drot, dvel, domega;
  std::vector<std::int32_t> iters;
  int instance = 0, changed = 0;
  for (const AssemblyResult& a : sim.assembly()) {
    pos.push_back(a.position_residual);
    vel.push_back(a.velocity_residual);
    iters.push_back(a.iterations);
    dpos.push_back(a.position_change);
    drot.push_back(a.orientation_change);
    dvel.push_back(a.velocity_change);
    domega.push_back(a.angular_velocity_change);
    if (a.ok) {
      assembly.max_position_residual = std::max(assembly.max_position_residual, a.position_residual);
      assembly.max_velocity_residual = std::max(assembly.max_velocity_residual, a.velocity_residual);
      assembly.max_iterations = std::max(assembly.max_iterations, a.iterations);
      assembly.max_position_change = std::max(assembly.max_position_change, a.position_change);
      assembly.max_orientation_change = std::max(assembly.max_orientation_change, a.orientation_change);
      assembly.max_velocity_change = std::max(assembly.max_velocity_change, a.velocity_change);
      assembly.max_angular_velocity_change = std::max(assembly.max_angular_velocity_change, a.angular_velocity_change);
      for (const std::string& change : a.changed_values)
        if (changed++ < kChangeWarningsListed)
          warnings.push_back("instance " + std::to_string(instance) + ", " + change +
                             ": assembly moved it onto Phi = 0 / Phi_q qdot = 0 (the given values do not fit the "
                             "joints)");
    }
    ++instance;
  }
  if (changed > kChangeWarningsListed)
    warnings.push_back("... and " + std::to_string(changed - kChangeWarningsListed) +
                       " more given values assembly changed by more than 1 % (/assembly/position_change, "
                       "/assembly/velocity_change, ...)");
  if (recorder) {
    recorder->write_assembly(pos, vel, iters);
    recorder->write_assembly_changes(dpos, drot, dvel, domega);
  }
  return assembly;
}

/// The first kFailedListed failed instances by status time, then index.
std::vector<FailedInstance> first_failed(const std::vector<std::int8_t>& status, const std::vector<double>& status_time,
                                         const std::vector<std::int8_t>& reason, const std::vector<AssemblyResult>& assembly) {
  std::vector<FailedInstance> failed;
  for (std::size_t i = 0; i < status.size(); ++i)
    if (status[i] != 0)
      failed.push_back({static_cast<int>(i), status[i], reason[i], status_time[i],
                        status[i] == static_cast<std::int8_t>(InstanceStatus::AssemblyFailed) ? assembly[i].message : ""});
  const std::size_t k = std::min<std::size_t>(failed.size(), kFailedListed);
  std::partial_sort(failed.begin(), failed.begin() + static_cast<std::ptrdiff_t>(k), failed.end(),
                    [](const FailedInstance& a, const FailedInstance& b) {
                      return a.time_s != b.time_s ? a.time_s < b.time_s : a.instance < b.instance;
                    });
  failed.resize(k);
  return failed;
}

/// The stop_reason of a failed write of `out`, naming the system error when there is one.
std::string write_failure(const h5::H5Error& e, const std::string& out) {
  switch (e.sys_errno()) {
    case ENOSPC: return "disk full (ENOSPC): " + out;
    case EDQUOT: return "disk quota exceeded (EDQUOT): " + out;
    case EFBIG: return "file size limit exceeded (EFBIG): " + out;
    default: return "write error: " + out + ": " + e.what();
  }
}

bool any_ok(const std::vector<std::int8_t>& status) {
  for (std::int8_t s : status)
    if (s == 0) return true;
  return false;
}

}  // namespace

JobResult run_job(const JobOptions& given, const JobHooks& hooks) {
  using namespace job_detail;
  const auto t_start = Clock::now();
  const std::string start_time = utc_now_iso8601();
  // --resume: the options and scene are the interrupted run's (job/checkpoint.hpp).
  const std::optional<ResumePoint> resume = given.resume.empty() ? std::nullopt : std::optional(find_resume(given));
  const JobOptions& o = resume ? resume->options : given;
  check_options(o);
  Scene scene = load_job_scene(o);
  if (resume) check_resumed_design(*resume, scene.sweep);
  check_backend(scene, o);
  const std::string out = output_path(o);
  const std::vector<std::string> inputs = run_input_files(scene, o.scene);
  check_output_path(out, inputs);
  if (!hooks.progress_file.empty()) {
    check_output_path(hooks.progress_file, inputs, "--progress-file");
    std::error_code e1, e2;
    if (std::filesystem::weakly_canonical(hooks.progress_file, e1) == std::filesystem::weakly_canonical(out, e2))
      throw SceneError("--progress-file", hooks.progress_file + " is the run's output file: choose another file");
  }
  // The files behind the scene text (which the output stores whole), fingerprinted: a
  // resumed run continues only with the files the run started with.
  std::vector<std::string> behind_scene = inputs;
  behind_scene.erase(std::remove(behind_scene.begin(), behind_scene.end(), o.scene), behind_scene.end());
  if (resume) check_input_digests(resume->input_files, behind_scene, resume->source);
  const std::string input_files = input_digests(behind_scene);
  const ShardSlice shard = shard_slice(o.shard_index, o.shard_count, o.instances > 0 ? o.instances : scene.sweep.instances);
  check_memory(scene, shard_memory_options(o, shard));
  OutputFile output(out);  // the lock: a second run on the same output stops here
  const auto stop_asked = [&] { return stop_requested() || (hooks.stop_requested && hooks.stop_requested()); };
  TestHold hold = TestHold::from_environment(out);  // SIMPHANT_TEST_HOLD, for tests (job/test_hold.hpp)

  SweepSamples samples = sample_sweep(scene.sweep, o.instances);  // the whole design, also for a shard
  if (shard.count > 1) samples = slice_samples(samples, shard);
  const int n = samples.n_instances;
  if (hold.at_setup()) {
    const std::int64_t from = resume ? resume->at.steps_done : 0;
    const double wall = (resume ? resume->at.wall_s : 0) + seconds_since(t_start);
    const double loop_wall = resume ? resume->at.loop_wall_s : 0.0;
    hold.hold({{"steps_done", from}, {"steps_total", 0}, {"wall_s", wall}, {"loop_wall_s", loop_wall}}, stop_asked);
  }
  std::vector<Model> models = build_instance_models(scene, samples);  // polls the stop flag
  const SolverSettings solver = models.front().solver;
  // Step-size stability (dynamics/stability.hpp): refused as bad input unless allowed.
  std::vector<std::string> warnings;
  {
    const StabilityCheck st = check_step_stability(models, scene.doc);
    if (!st.refused_field.empty() && !solver.allow_unstable) throw SceneError(st.refused_field, st.refused_reason);
    for (const std::string& w : st.warnings) {
      logger().warn("{}", w);
      warnings.push_back(w);
    }
  }
  logger().debug("{}: {} instances, {} sweep parameters, dt = {} s, t_end = {} s", o.scene, n, samples.paths.size(),
                 solver.dt, solver.t_end);

  // Let HDF5 itself try the output folder before the expensive assembly (a path such as
  // /proc passes the folder checks above); the recorder recreates the file below.
  try {
    h5::create_file(output.temp_path());
  } catch (const h5::H5Error& e) {
    throw h5::H5Error(write_failure(e, out), e.sys_errno());
  }

  SimulatorOptions sim_options;
  sim_options.backend = o.backend;
  sim_options.threads = o.threads;
  sim_options.precision = o.precision;
  sim_options.auto_instances = shard.total;  // "auto" chooses as for the whole design
  const std::vector<ReductionQuantity> reductions =
      parse_reduction_quantities(models.front().output.reductions, models.front().n_drivers(), "output.reductions");
  // The error estimate's dt/2 batch starts from the same models (job/error_estimate.hpp).
  std::vector<Model> half_models;
  if (solver.error_estimate) half_models = models;
  EnergyCheck energy = energy_account(models, o.precision);  // which instances conserve E (job/energy_check.hpp)
  std::unique_ptr<Simulator> sim = Simulator::create(std::move(models), sim_options, n);
  try {
    sim->set_reductions(reductions);  // before a checkpoint's accumulators are restored
  } catch (const BackendError& e) {
    throw SceneError("output.reductions", std::string(e.what()) + " (solver.type \"dae\" has them)");
  }
  // Assembly gives up on the stop flag, leaving instances that are not failures.
  if (stop_requested()) throw Interrupted("assembly");
  logger().debug("backend {}; assembly done in {:.3f} s", sim->backend_details(), seconds_since(t_start));
  std::optional<HalfStepRun> half;
  if (solver.error_estimate) half.emplace(std::move(half_models), sim_options, *sim);
  Simulator* const half_sim = half ? &half->simulator() : nullptr;
  const Model& model = sim->model();
  const int n_coords = sim->n_joint_coordinates();
  // The relative shift the run uses: the scene's, or lower where a light body's rows
  // would leave the refinement too slow a contraction (dynamics/shift_choice.hpp).
  SolverSettings run_solver = solver;
  run_solver.tikhonov_epsilon = model.solver.tikhonov_epsilon;
  if (run_solver.tikhonov_epsilon != solver.tikhonov_epsilon)
    logger().info("solver.tikhonov_epsilon {:.3g} lowered to {:.3g} for this run: at the first instance's start the "
                  "refinement contracted too slowly with it (docs/solver.md, \"The shift of a run\")",
                  solver.tikhonov_epsilon, run_solver.tikhonov_epsilon);

  std::optional<Recorder> recorder;
  std::optional<BatchState> restored;
  try {
    if (resume) restored = take_checkpoint(*resume, output.temp_path());
    if (restored) {
      recorder.emplace(output.temp_path(), recorder_info(*sim, scene, o, run_solver, shard, start_time, input_files), restored->at.frames);
    } else {
      recorder.emplace(output.temp_path(), recorder_info(*sim, scene, o, run_solver, shard, start_time, input_files));
      write_indeterminacy(recorder->file_id(), *sim, false);
      const std::vector<std::string> removed = removed_row_names(sim->model());
      if (!removed.empty()) h5::write_attr(recorder->file_id(), "redundant_rows_removed", removed);
    }
  } catch (const h5::H5Error& e) {
    throw h5::H5Error(write_failure(e, out), e.sys_errno());  // the temporary file is removed with `output`
  }
  Checkpointer checkpoints(out, o.checkpoint_every_s, stored_options(o, sim->backend_name()));
  RunStats stats(n);
  if (restored) restore_batch(*restored, *sim, stats, half_sim);
  const double wall_before = restored ? restored->at.wall_s : 0, loop_before = restored ? restored->at.loop_wall_s : 0;
  std::vector<std::int8_t> status(static_cast<std::size_t>(n)), reason(static_cast<std::size_t>(n));
  std::vector<double> status_time(static_cast<std::size_t>(n));
  sim->read_status(status.data(), status_time.data(), reason.data());
  Frame frame(n, model.n_bodies(), model.n_joints(), n_coords, model.n_drivers());
  const std::vector<std::string>& selected = model.output.datasets;
  const bool joint_loads = records_joint_loads(*sim) &&
                           (std::find(selected.begin(), selected.end(), "joint_loads") != selected.end() ||
                            std::find(selected.begin(), selected.end(), "bearing_loads") != selected.end());
  AssemblySummary assembly;
  const std::int64_t total = step_count(solver);
  const std::int64_t every = std::max(1, solver.record_every);
  std::int64_t done = restored ? restored->at.steps_done : 0;
  std::string stop_reason = "completed", output_error;
  std::exception_ptr loop_error;  // a failure other than a write: rethrown once the file is closed
  bool stopped = false;
  Clock::time_point t_loop = Clock::now();
  StepReport steps_taken;
  RunReport report;

  try {
    if (!restored) {
      recorder->write_params(samples.paths, samples.values);
      recorder->write_status(status.data(), status_time.data(), reason.data());
    }
    const std::size_t n_warnings = warnings.size();
    assembly = record_assembly(*sim, restored ? nullptr : &*recorder, warnings);
    for (std::size_t w = n_warnings; w < warnings.size(); ++w) logger().warn("{}", warnings[w]);

    // A frame is read from the simulator (a device backend brings it back through pinned
    // memory) and written to the file after the next slice of steps is queued, so on a
    // device backend the HDF5 write overlaps the step loop.
    bool frame_pending = false;
    double frame_time = 0;
    auto read_frame = [&] {
      sim->read_states(frame.states.data());
      sim->read_reactions(frame.reactions.data());
      if (sim->n_drivers() > 0) sim->read_driver_loads(frame.driver_loads.data());
      if (joint_loads) {
        sim->joint_load_frames(frame.states.data(), frame.reactions.data(),
                               sim->n_drivers() > 0 ? frame.driver_loads.data() : nullptr, frame.joint_loads.data(),
                               frame.bearing_loads.data());
      }
      sim->read_constraint_violation(frame.violation.data());
      sim->read_energy(frame.energy.data(), frame.kinetic.data());
      if (n_coords > 0) sim->read_joint_state(frame.joint_q.data(), frame.joint_qd.data(), frame.joint_tau.data());
      frame_time = sim->time();
      frame_pending = true;
    };
    auto write_frame = [&] {
      if (!frame_pending) return;
      frame_pending = false;
      recorder->record(frame_time, frame.states.data(), frame.reactions.data(), frame.violation.data(),
                       frame.energy.data(), frame.joint_q.data(), frame.joint_qd.data(), frame.joint_tau.data(),
                       {{"joint_loads", frame.joint_loads.data()},
                        {"bearing_loads", frame.bearing_loads.data()},
                        {"driver_loads", frame.driver_loads.data()}});
      stats.add_frame(frame_time, status.data(), frame.violation.data(), frame.energy.data(), frame.kinetic.data());
    };
    // A stop request seen once stays seen (a hook need not keep answering true).
    auto stop = [&] { return stopped = stopped || stop_asked(); };

    // Step loop. advance() is called in slices of about 50 ms (never across a record
    // point) so that a stop request and the progress report are served promptly; after
    // each slice the loop ends when no instance is left ok.
    if (!restored) read_frame();  // a resumed run's file holds the frames up to its checkpoint
    // A shard, like a one-shot run, ends when none of its instances is left ok: the merge
    // reads its frames after that as NaN (job/merge.hpp).
    bool alive = any_ok(status);
    // Log lines when no progress hook takes them; records whenever a file is named.
    ProgressLog progress_log(hooks.progress_log_interval_s, !hooks.progress, hooks.progress_file);
    t_loop = Clock::now();
    checkpoints.start();
    hold.start_loop(done);
    // When the last checkpoint was completed (or the loop started), for the test hold's
    // report: a run never goes checkpoint_every_s without completing one.
    Clock::time_point checkpoint_done = Clock::now();
    std::int64_t since_record = restored ? restored->at.since_record : 0, slice = 1;
    // Where the loop stands, every frame written (job/checkpoint.hpp).
    auto loop_point = [&] {
      write_frame();
      recorder->flush();  // the buffered frames too: a checkpoint holds every frame recorded
      return LoopPoint{done, since_record, recorder->frames(), wall_before + seconds_since(t_start),
                       loop_before + seconds_since(t_loop)};
    };
    while (alive && done < total && !stop()) {
      const std::int64_t k = hold.clamp(done, std::min({slice, every - since_record, total - done}));
      const auto t_slice = Clock::now();
      sim->advance(static_cast<int>(k));
      if (half) half->advance(static_cast<int>(k));
      write_frame();
      sim->synchronize();
      if (half) half_sim->synchronize();
      const double slice_s = seconds_since(t_slice);
      done += k;
      since_record += k;
      if (since_record == every || done == total) {
        read_frame();
        since_record = 0;
      }
      sim->read_status(status.data(), status_time.data(), reason.data());
      alive = any_ok(status);
      const double per_step = std::max(slice_s / static_cast<double>(k), 1e-9);
      slice = std::clamp<std::int64_t>(static_cast<std::int64_t>(0.05 / per_step), 1, 1 << 20);
      const auto t_check = Clock::now();
      double checkpoint_age = 0;  // [s] at this check, since the checkpoint the run has on disk
      if (checkpoints.due() && alive && done < total) {
        const int saved = checkpoints.count();
        checkpoints.save(*recorder, *sim, stats, loop_point(), half_sim);
        if (checkpoints.count() > saved) checkpoint_done = Clock::now();
      }
      if (checkpoint_done < t_check) checkpoint_age = std::chrono::duration<double>(t_check - checkpoint_done).count();
      const JobProgress p{done, total, sim->time(), n};
      if (hooks.progress) hooks.progress(p);
      progress_log.update(p);
      if (hold.reached(done))
        hold.hold({{"steps_done", done},
                   {"steps_total", total},
                   {"wall_s", wall_before + seconds_since(t_start)},
                   {"loop_wall_s", loop_before + seconds_since(t_loop)},
                   {"checkpoint_age_s", checkpoint_age}},
                  stop);
    }
    write_frame();
    progress_log.finish(JobProgress{done, total, sim->time(), n});
    if (stop()) checkpoints.store(*recorder, *sim, stats, loop_point(), half_sim);  // resuming continues from here
    if (since_record > 0) {  // stopped between record points: keep the last state
      read_frame();
      write_frame();
    }
    recorder->finish_frames();  // a failed write is a write failure of the run, not of finalize()
    if (stop()) {
      std::string why = hooks.stop_reason ? hooks.stop_reason() : std::string();
      stop_reason = why.empty() ? "stop requested" : why;
    } else if (!alive && done < total) {
      stop_reason = "no instance alive";
    }
    // The reductions over time, up to the state the run ends on (a stopped run's too:
    // its resumption writes them again at its end).
    if (sim->reduction_layout().any()) {
      std::vector<double> red(static_cast<std::size_t>(n) * sim->reduction_layout().channels * kReductionStats);
      sim->read_reductions(red.data());
      std::vector<std::string> driver_names, driver_units;
      for (const Driver& dr : model.drivers) {
        driver_names.push_back(dr.name);
        driver_units.push_back(dr.coordinate == JointCoordinate::Angle ? "N m" : "N");
      }
      write_reductions(*recorder, model, sim->reduction_layout(), n, red.data(), driver_names, driver_units);
      write_indeterminacy(recorder->file_id(), *sim, true);
    }
    // The step figures at the state the run ends on. A run stopped on request (resumable)
    // gets the root attributes only: the per-instance datasets and the error estimate are
    // written once, by the session that ends the run, so that a resumed file equals an
    // uninterrupted one (dimension scales list the datasets attached to them).
    const bool final_session = !stop();
    steps_taken = step_report(*sim);
    write_step_report(*recorder, steps_taken, final_session);
    // The refined solves of the run (a resumed run's earlier sessions from the checkpoint).
    const RefinementReport refinement = refinement_report(*sim);
    if (final_session) write_refinement_report(*recorder, refinement);
    for (const std::string& w : refinement_warnings(refinement, run_solver.tikhonov_epsilon, solver.refinement_steps)) {
      logger().warn("{}", w);
      warnings.push_back(w);
    }
    // The energy check over the frames so far (a resumed run's earlier ones from the checkpoint).
    sim->read_status(status.data(), status_time.data(), reason.data());
    finish_energy_check(energy, stats, status);
    if (final_session) write_energy_check(*recorder, energy);
    for (const std::string& w : energy_check_warnings(energy)) {
      logger().warn("{}", w);
      warnings.push_back(w);
    }
    report.redundant_rows_removed = removed_row_names(sim->model());
    report.refinement_unconverged_solves = refinement.unconverged_solves;
    report.refinement_unconverged_instances = refinement.unconverged_instances;
    report.refinement_max_error = refinement.max_error_all;
    if (half && final_session)
      report.error_estimate = half->write(*recorder, *sim, integrator_order(solver.integrator));
  } catch (const h5::H5Error& e) {
    output_error = stop_reason = write_failure(e, out);
    logger().debug("the run stops: {}", e.what());
  } catch (const std::exception& e) {
    stop_reason = std::string("error: ") + e.what();
    loop_error = std::current_exception();
  }
  const double loop_s = seconds_since(t_loop);

  sim->read_status(status.data(), status_time.data(), reason.data());
  try {
    recorder->finalize(status.data(), status_time.data(), reason.data(), wall_before + seconds_since(t_start),
                       stop_reason);
    // The output now holds the end, or (stopped on request) what resuming needs; after a
    // failed write the checkpoint file stays, to resume from once there is room.
    output.commit([&] {
      if (output_error.empty()) checkpoints.discard();
    });
  } catch (const std::exception& e) {
    recorder.reset();
    output.keep_temporary();
    throw std::runtime_error((output_error.empty() ? "output " + out + ": " + e.what() : output_error) +
                             "; HDF5 could not complete the file: the partial file " + output.temp_path() +
                             " is kept (it may not be readable)");
  }
  if (loop_error) std::rethrow_exception(loop_error);

  report.scene_file = o.scene;
  report.out_file = out;
  report.backend = sim->backend_details();
  report.seed = scene.sweep.seed;
  report.steps = done;
  report.steps_planned = total;
  report.frames = recorder->frames();
  report.dt = solver.dt;
  report.sim_time = sim->time();
  report.wall_s = wall_before + seconds_since(t_start);
  report.loop_wall_s = loop_before + loop_s;
  report.interrupted = stop_reason != "completed";
  report.stop_reason = stop_reason;
  report.assembly = assembly;
  report.failed = first_failed(status, status_time, reason, sim->assembly());
  if (const std::string hint = singular_passage_hint(model, status, reason, status_time); !hint.empty()) {
    logger().warn("{}", hint);
    warnings.push_back(hint);
  }
  report.warnings = warnings;
  report.factorisation_recoveries = sim->factorisation_recoveries();
  report.integrator = steps_taken.integrator.empty() ? integrator_name(solver.integrator) : steps_taken.integrator;
  report.accepted_steps = steps_taken.accepted;
  const bool adaptive = is_adaptive(solver.integrator);
  report.rtol = adaptive ? solver.rtol : std::numeric_limits<double>::quiet_NaN();
  report.atol = adaptive ? solver.atol : std::numeric_limits<double>::quiet_NaN();
  report.rejected_steps = steps_taken.rejected;
  report.min_step = steps_taken.min_step;
  report.max_step = steps_taken.max_step;
  report.has_error_estimate = solver.error_estimate;
  report.tikhonov_epsilon = run_solver.tikhonov_epsilon;
  report.energy_sources = energy.sources;
  report.energy_error_bound = energy.bound;
  report.energy_check_flagged = static_cast<int>(energy.flagged.size());
  const RunStats::Summary summary = stats.reduce(status);

  JobResult result;
  result.out_file = out;
  result.output_error = output_error;
  result.summary = summary_json(report, summary);
  result.summary["checkpoints"] = checkpoints.count();
  result.summary["checkpoint_wall_time_s"] = checkpoints.seconds();
  result.summary["resumed_from_step"] = restored ? nlohmann::json(restored->at.steps_done) : nlohmann::json();
  if (shard.count > 1) add_shard_summary(result.summary, shard);
  result.exit_code = stopped ? 130 : (summary.n_ok == 0 || !output_error.empty()) ? 3 : 0;
  return result;
}

}  // namespace simphant
