// run_job: options -> scene -> output claimed -> sweep samples -> per-instance models ->
// Simulator (assembles every instance) -> step loop recording every record_every steps
// into the temporary file -> final status, attributes, stop_reason -> the file renamed
// onto the output -> summary (run_job.hpp). One JobRun object holds the run's state, one
// method per stage; what goes into the file besides the frames: job/run_records.hpp.
#include "simphant/job/run_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "simphant/core/host_info.hpp"
#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/io/recorder.hpp"
#include "simphant/io/reductions_writer.hpp"
#include "simphant/job/checkpoint.hpp"
#include "simphant/job/contact_impulses.hpp"
#include "simphant/job/energy_check.hpp"
#include "simphant/job/error_estimate.hpp"
#include "simphant/job/input_digests.hpp"
#include "simphant/job/job_checks.hpp"
#include "simphant/job/output_file.hpp"
#include "simphant/job/progress_log.hpp"
#include "simphant/job/refinement_report.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/run_inputs.hpp"
#include "simphant/job/run_records.hpp"
#include "simphant/job/run_stats.hpp"
#include "simphant/job/run_summary.hpp"
#include "simphant/job/shard.hpp"
#include "simphant/job/singular_passage_hint.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/sim/frame_sensitivities.hpp"
#include "simphant/job/scene_simulator.hpp"
#include "simphant/job/step_report.hpp"
#include "simphant/job/test_hold.hpp"
#include "simphant/log/log.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/step_count.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduction_names.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

namespace {

using namespace job_detail;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The scene's output.reductions of model m (after the run's overrides: --solver aba or cga
/// leaves a robot energy and contacts only); SceneError naming output.reductions otherwise.
std::vector<ReductionQuantity> scene_reductions(const Model& m) {
  try {
    return parse_reduction_quantities(m.output.reductions, m.n_drivers(), "", m.contact_pair_count(),
                                      joint_space_reductions(m));
  } catch (const std::invalid_argument& e) {
    throw SceneError("output.reductions", std::string(e.what()).substr(2));  // without where's ": "
  }
}

bool any_ok(const std::vector<std::int8_t>& status) {
  for (std::int8_t s : status)
    if (s == 0) return true;
  return false;
}

/// Buffers for one frame, filled from the simulator.
struct Frame {
  std::vector<double> states, reactions, joint_loads, bearing_loads;  ///< loads (n, J, 6) and (n, J, 4)
  std::vector<double> violation, energy, kinetic;
  std::vector<double> joint_q, joint_qd, joint_tau;  ///< (n, n_coords) each, robot runs
  std::vector<double> driver_loads;                  ///< (n, n_drivers)
  std::vector<double> contacts;                      ///< (n, n_pairs, 4)
  std::vector<double> contact_impulses;              ///< (n, n_pairs)
  std::vector<double> sensitivities;                 ///< (n, n_bodies, 13, S)
  std::vector<double> reaction_sensitivities;        ///< (n, n_joints, 6, S)
  std::vector<double> joint_load_sensitivities;      ///< (n, n_joints, 6, S)
  std::vector<double> bearing_load_sensitivities;    ///< (n, n_joints, 4, S)
  std::vector<double> driver_load_sensitivities;     ///< (n, n_drivers, S)
  std::vector<double> energy_sensitivities;          ///< (n, S)
  std::vector<double> joint_q_sensitivities, joint_qd_sensitivities, joint_tau_sensitivities;  ///< (n, n_coords, S) each
  Frame(int n, int n_bodies, int n_joints, int n_coords, int n_drivers, int n_pairs, int n_sens)
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
        driver_loads(static_cast<std::size_t>(n) * n_drivers),
        contacts(static_cast<std::size_t>(n) * n_pairs * kContactRecordComponents),
        contact_impulses(static_cast<std::size_t>(n) * n_pairs),
        sensitivities(static_cast<std::size_t>(n) * n_bodies * 13 * n_sens),
        reaction_sensitivities(static_cast<std::size_t>(n) * n_joints * 6 * n_sens),
        joint_load_sensitivities(static_cast<std::size_t>(n) * n_joints * 6 * n_sens),
        bearing_load_sensitivities(static_cast<std::size_t>(n) * n_joints * 4 * n_sens),
        driver_load_sensitivities(static_cast<std::size_t>(n) * n_drivers * n_sens),
        energy_sensitivities(static_cast<std::size_t>(n) * n_sens),
        joint_q_sensitivities(static_cast<std::size_t>(n) * n_coords * n_sens),
        joint_qd_sensitivities(joint_q_sensitivities.size()),
        joint_tau_sensitivities(joint_q_sensitivities.size()) {}
};

/// One run of run_job, stage by stage: prepare (the constructor: options, scene, checks,
/// the output's lock, the models and the assembled Simulator), open_output (the recorder,
/// a resumed run's state), step_loop (the frames, checkpoints and progress, then the
/// records of the run's end, all inside one guard of the output's writes), close_output
/// (the file completed and renamed onto the output), result (the summary).
class JobRun {
 public:
  JobRun(const JobOptions& given, const JobHooks& hooks);
  void open_output();
  void step_loop();
  void close_output();
  JobResult result();

 private:
  // The stages' parts.
  void read_frame();
  void write_frame();
  bool stop();                  ///< a stop request seen once stays seen (a hook need not keep answering true)
  bool stop_asked() const;      ///< the stop flag or the hook
  LoopPoint loop_point();       ///< where the loop stands, every frame written (job/checkpoint_state.hpp)
  void loop();                  ///< the slices of steps
  void record_end();            ///< the reductions, step figures, refinement, energy check, error estimate
  void warn(const std::string& w);

  const JobHooks& hooks_;
  const Clock::time_point t_start_ = Clock::now();
  const std::string start_time_ = utc_now_iso8601();
  std::optional<ResumePoint> resume_;
  JobOptions o_;
  Scene scene_;
  std::string out_, input_files_;
  ShardSlice shard_;
  std::optional<OutputFile> output_;
  TestHold hold_;
  SweepSamples samples_;
  int n_ = 0;
  SolverSettings solver_, run_solver_;
  std::vector<std::string> warnings_;
  EnergyCheck energy_;
  std::vector<ReductionQuantity> reductions_;  ///< the scene's output.reductions (the ones written)
  bool balance_ = false;  ///< the run forms the energy balance (job/energy_check.hpp)
  std::unique_ptr<Simulator> sim_;
  std::optional<HalfStepRun> half_;
  Simulator* half_sim_ = nullptr;

  // open_output
  std::optional<Recorder> recorder_;
  std::optional<BatchState> restored_;
  std::optional<Checkpointer> checkpoints_;
  std::optional<RunStats> stats_;
  double wall_before_ = 0, loop_before_ = 0;
  std::vector<std::int8_t> status_, reason_;
  std::vector<double> status_time_;
  std::optional<Frame> frame_;
  bool joint_loads_ = false;
  bool contacts_ = false;  ///< /contacts is recorded (the scene has contact pairs, output.datasets selects it)
  std::optional<ContactImpulses> impulses_;  ///< /contact_impulses is recorded (job/contact_impulses.hpp)
  bool sensitivities_ = false;  ///< /state_sensitivities is recorded (the scene has sensitivities, selected)
  /// The frame's other derivatives recorded (as sensitivities_; the pointers of those not
  /// recorded null): /reaction_sensitivities, /joint_load_sensitivities,
  /// /bearing_load_sensitivities (with joints), /driver_load_sensitivities (with drivers),
  /// /energy_sensitivities, filled into frame_ by read_frame.
  FrameSensitivities frame_sensitivities_;
  bool any_frame_sensitivities_ = false;
  std::int64_t total_ = 0, every_ = 1, done_ = 0, since_record_ = 0;

  // step_loop
  bool frame_pending_ = false;
  double frame_time_ = 0;
  bool stopped_ = false;
  bool alive_ = false;
  Clock::time_point t_loop_ = Clock::now();
  double loop_s_ = 0;
  AssemblySummary assembly_;
  StepReport steps_taken_;
  RunReport report_;
  std::string stop_reason_ = "completed", output_error_;
  std::exception_ptr loop_error_;  ///< a failure other than a write: rethrown once the file is closed
};

JobRun::JobRun(const JobOptions& given, const JobHooks& hooks) : hooks_(hooks) {
  // --resume: the options and scene are the interrupted run's (job/resume.hpp).
  if (!given.resume.empty()) resume_ = find_resume(given);
  o_ = resume_ ? resume_->options : given;
  check_options(o_);
  scene_ = load_job_scene(o_);
  // A run with sensitivities writes no checkpoints: its tangents are not part of one
  // (docs/sensitivities.md); so none can resume it.
  if (resume_ && !given.sensitivities.empty())
    throw SceneError("--sensitivities", "does not apply to --resume: a run with sensitivities cannot continue from a "
                                        "checkpoint");
  if (!scene_.sensitivities.paths.empty() && resume_)
    throw SceneError("--resume", "a run with sensitivities cannot continue from a checkpoint (its tangents are not "
                                 "stored): run it again");
  if (resume_) check_resumed_design(*resume_, scene_.sweep);
  check_backend(scene_, o_);
  out_ = output_path(o_);
  const std::vector<std::string> inputs = run_input_files(scene_, o_.scene);
  check_output_path(out_, inputs);
  if (!hooks.progress_file.empty()) {
    check_output_path(hooks.progress_file, inputs, "--progress-file");
    std::error_code e1, e2;
    if (std::filesystem::weakly_canonical(hooks.progress_file, e1) == std::filesystem::weakly_canonical(out_, e2))
      throw SceneError("--progress-file", hooks.progress_file + " is the run's output file: choose another file");
  }
  // The files behind the scene text (which the output stores whole), fingerprinted: a
  // resumed run continues only with the files the run started with.
  std::vector<std::string> behind_scene = inputs;
  behind_scene.erase(std::remove(behind_scene.begin(), behind_scene.end(), o_.scene), behind_scene.end());
  if (resume_) check_input_digests(resume_->input_files, behind_scene, resume_->source);
  input_files_ = input_digests(behind_scene);
  shard_ = shard_slice(o_.shard_index, o_.shard_count, o_.instances > 0 ? o_.instances : scene_.sweep.instances);
  reductions_ = scene_reductions(scene_.model);  // before the estimate, which counts them
  check_memory(scene_, shard_memory_options(o_, shard_));
  output_.emplace(out_);  // the lock: a second run on the same output stops here
  hold_ = TestHold::from_environment(out_);  // SIMPHANT_TEST_HOLD, for tests (job/test_hold.hpp)

  samples_ = sample_sweep(scene_.sweep, o_.instances);  // the whole design, also for a shard
  if (shard_.count > 1) samples_ = slice_samples(samples_, shard_);
  n_ = samples_.n_instances;
  if (hold_.at_setup()) {
    const std::int64_t from = resume_ ? resume_->at.steps_done : 0;
    const double wall = (resume_ ? resume_->at.wall_s : 0) + seconds_since(t_start_);
    const double loop_wall = resume_ ? resume_->at.loop_wall_s : 0.0;
    hold_.hold({{"steps_done", from}, {"steps_total", 0}, {"wall_s", wall}, {"loop_wall_s", loop_wall}},
               [this] { return stop_asked(); });
  }
  std::vector<Model> models = build_instance_models(scene_, samples_);  // polls the stop flag
  solver_ = models.front().solver;
  // Step-size stability (dynamics/stability.hpp): refused as bad input unless allowed.
  {
    const StabilityCheck st = check_step_stability(models, scene_.doc);
    if (!st.refused_field.empty() && !solver_.allow_unstable) throw SceneError(st.refused_field, st.refused_reason);
    for (const std::string& w : st.warnings) warn(w);
  }
  logger().debug("{}: {} instances, {} sweep parameters, dt = {} s, t_end = {} s", o_.scene, n_,
                 samples_.paths.size(), solver_.dt, solver_.t_end);

  // Let HDF5 itself try the output folder before the expensive assembly (a path such as
  // /proc passes the folder checks above); the recorder recreates the file below.
  try {
    h5::create_file(output_->temp_path());
  } catch (const h5::H5Error& e) {
    throw h5::H5Error(write_failure(e, out_), e.sys_errno());
  }

  SimulatorOptions sim_options;
  sim_options.backend = o_.backend;
  sim_options.threads = o_.threads;
  sim_options.precision = o_.precision;
  sim_options.auto_instances = shard_.total;  // "auto" chooses as for the whole design
  // The error estimate's dt/2 batch starts from the same models (job/error_estimate.hpp).
  std::vector<Model> half_models;
  if (solver_.error_estimate) half_models = models;
  energy_ = energy_account(models, n_, o_.precision);  // which instances conserve E (job/energy_check.hpp)
  sim_ = Simulator::create(std::move(models), sim_options, n_);
  // Forward sensitivities (docs/sensitivities.md): the engine needs the scene to seed them.
  if (!scene_.sensitivities.paths.empty()) attach_scene(*sim_, scene_, std::make_shared<const SweepSamples>(samples_));
  // A model with elements that can do work gets the power channel for its energy balance
  // (job/energy_check.hpp), written only when the scene asks for it.
  balance_ = forms_energy_balance(sim_->model());
  try {
    sim_->set_reductions(run_reduction_quantities(sim_->model(), "output.reductions"));  // before a checkpoint's accumulators are restored
  } catch (const BackendError& e) {  // e.g. the derivatives of a robot's reductions with sensitivities
    throw SceneError("output.reductions", e.what());
  }
  // Assembly gives up on the stop flag, leaving instances that are not failures.
  if (stop_requested()) throw Interrupted("assembly");
  logger().debug("backend {}; assembly done in {:.3f} s", sim_->backend_details(), seconds_since(t_start_));
  if (solver_.error_estimate) half_.emplace(std::move(half_models), sim_options, *sim_);
  half_sim_ = half_ ? &half_->simulator() : nullptr;
  // The relative shift the run uses: the scene's, or lower where a light body's rows
  // would leave the refinement too slow a contraction (dynamics/shift_choice.hpp).
  run_solver_ = solver_;
  run_solver_.tikhonov_epsilon = sim_->model().solver.tikhonov_epsilon;
  run_solver_.auto_projection_pivot = sim_->model().solver.auto_projection_pivot;
  if (run_solver_.tikhonov_epsilon != solver_.tikhonov_epsilon)
    logger().info("solver.tikhonov_epsilon {:.3g} lowered to {:.3g} for this run: at the first instance's start the "
                  "refinement contracted too slowly with it (docs/solver.md, \"The shift of a run\")",
                  solver_.tikhonov_epsilon, run_solver_.tikhonov_epsilon);
}

void JobRun::open_output() {
  const std::string& temp = output_->temp_path();
  try {
    if (resume_) restored_ = take_checkpoint(*resume_, temp);
    const RecorderInfo info = recorder_info(*sim_, scene_, o_, run_solver_, shard_, start_time_, input_files_);
    if (restored_) {
      recorder_.emplace(temp, info, restored_->at.frames);
    } else {
      recorder_.emplace(temp, info);
      write_indeterminacy(recorder_->file_id(), *sim_, false);
      const std::vector<std::string> removed = removed_row_names(sim_->model());
      if (!removed.empty()) h5::write_attr(recorder_->file_id(), "redundant_rows_removed", removed);
    }
  } catch (const h5::H5Error& e) {
    throw h5::H5Error(write_failure(e, out_), e.sys_errno());  // the temporary file is removed with the output
  }
  checkpoints_.emplace(out_, sim_->n_sensitivities() > 0 ? 0.0 : o_.checkpoint_every_s,
                       stored_options(o_, sim_->backend_name()));
  stats_.emplace(n_);
  if (restored_) restore_batch(*restored_, *sim_, *stats_, half_sim_);
  wall_before_ = restored_ ? restored_->at.wall_s : 0;
  loop_before_ = restored_ ? restored_->at.loop_wall_s : 0;
  status_.assign(static_cast<std::size_t>(n_), 0);
  reason_.assign(static_cast<std::size_t>(n_), 0);
  status_time_.assign(static_cast<std::size_t>(n_), 0.0);
  sim_->read_status(status_.data(), status_time_.data(), reason_.data());
  const Model& model = sim_->model();
  frame_.emplace(n_, model.n_bodies(), model.n_joints(), sim_->n_joint_coordinates(), model.n_drivers(),
                 model.contact_pair_count(), sim_->n_sensitivities());
  const std::vector<std::string>& selected = model.output.datasets;
  const bool joint_loads_applies = records_joint_loads(*sim_);
  joint_loads_ = joint_loads_applies &&
                 (std::find(selected.begin(), selected.end(), "joint_loads") != selected.end() ||
                  std::find(selected.begin(), selected.end(), "bearing_loads") != selected.end());
  contacts_ = model.contact_pair_count() > 0 && std::find(selected.begin(), selected.end(), "contacts") != selected.end();
  if (records_contact_impulses(*sim_)) {
    impulses_.emplace(*sim_, model.output.frames == FrameSelection::FirstLast);
    if (restored_) {
      if (restored_->at.contact_impulse_start.empty())
        throw SceneError("--resume", "the run records /contact_impulses but its checkpoint holds no start of the "
                                     "next frame's interval (/checkpoint/contact_impulse_start)");
      impulses_->restore(restored_->at.contact_impulse_start);
    }
  }
  const auto wanted = [&](const char* name, bool applies) {
    return sim_->n_sensitivities() > 0 && applies && std::find(selected.begin(), selected.end(), name) != selected.end();
  };
  sensitivities_ = wanted("state_sensitivities", true);
  Frame& f = *frame_;
  FrameSensitivities& fs = frame_sensitivities_;
  const bool joints = model.n_joints() > 0;
  if (wanted("reaction_sensitivities", joints)) fs.reactions = f.reaction_sensitivities.data();
  if (wanted("joint_load_sensitivities", joints && joint_loads_applies)) fs.joint_loads = f.joint_load_sensitivities.data();
  if (wanted("bearing_load_sensitivities", joints && joint_loads_applies))
    fs.bearing_loads = f.bearing_load_sensitivities.data();
  if (wanted("driver_load_sensitivities", model.n_drivers() > 0)) fs.driver_loads = f.driver_load_sensitivities.data();
  if (wanted("energy_sensitivities", true)) fs.energy = f.energy_sensitivities.data();
  if (wanted("joint_state_sensitivities", sim_->n_joint_coordinates() > 0)) {
    fs.joint_q = f.joint_q_sensitivities.data();
    fs.joint_qd = f.joint_qd_sensitivities.data();
    fs.joint_tau = f.joint_tau_sensitivities.data();
  }
  any_frame_sensitivities_ =
      fs.reactions || fs.joint_loads || fs.bearing_loads || fs.driver_loads || fs.energy || fs.joint_q;
  total_ = step_count(solver_);
  every_ = std::max(1, solver_.record_every);
  done_ = restored_ ? restored_->at.steps_done : 0;
  since_record_ = restored_ ? restored_->at.since_record : 0;
}

bool JobRun::stop_asked() const { return stop_requested() || (hooks_.stop_requested && hooks_.stop_requested()); }

bool JobRun::stop() { return stopped_ = stopped_ || stop_asked(); }

void JobRun::warn(const std::string& w) {
  logger().warn("{}", w);
  warnings_.push_back(w);
}

// A frame is read from the simulator (a device backend brings it back through pinned
// memory) and written to the file after the next slice of steps is queued, so on a
// device backend the HDF5 write overlaps the step loop.
void JobRun::read_frame() {
  Frame& f = *frame_;
  Simulator& sim = *sim_;
  sim.read_states(f.states.data());
  sim.read_reactions(f.reactions.data());
  if (sim.n_drivers() > 0) sim.read_driver_loads(f.driver_loads.data());
  if (joint_loads_)
    sim.joint_load_frames(f.states.data(), f.reactions.data(), sim.n_drivers() > 0 ? f.driver_loads.data() : nullptr,
                          f.joint_loads.data(), f.bearing_loads.data());
  if (contacts_ || impulses_) sim.contact_frames(f.states.data(), f.contacts.data());
  if (impulses_) impulses_->frame(sim, f.contacts.data(), f.contact_impulses.data());
  if (sensitivities_) sim.read_state_sensitivities(f.sensitivities.data());
  if (any_frame_sensitivities_) sim.read_frame_sensitivities(frame_sensitivities_);
  sim.read_constraint_violation(f.violation.data());
  sim.read_energy(f.energy.data(), f.kinetic.data());
  if (sim.n_joint_coordinates() > 0) sim.read_joint_state(f.joint_q.data(), f.joint_qd.data(), f.joint_tau.data());
  frame_time_ = sim.time();
  frame_pending_ = true;
}

void JobRun::write_frame() {
  if (!frame_pending_) return;
  frame_pending_ = false;
  Frame& f = *frame_;
  recorder_->record(frame_time_, f.states.data(), f.reactions.data(), f.violation.data(), f.energy.data(),
                    f.joint_q.data(), f.joint_qd.data(), f.joint_tau.data(),
                    {{"joint_loads", f.joint_loads.data()},
                     {"bearing_loads", f.bearing_loads.data()},
                     {"driver_loads", f.driver_loads.data()},
                     {"contacts", f.contacts.data()},
                     {"contact_impulses", f.contact_impulses.data()},
                     {"state_sensitivities", f.sensitivities.data()},
                     {"reaction_sensitivities", f.reaction_sensitivities.data()},
                     {"joint_load_sensitivities", f.joint_load_sensitivities.data()},
                     {"bearing_load_sensitivities", f.bearing_load_sensitivities.data()},
                     {"driver_load_sensitivities", f.driver_load_sensitivities.data()},
                     {"energy_sensitivities", f.energy_sensitivities.data()},
                     {"joint_state_sensitivities/q", f.joint_q_sensitivities.data()},
                     {"joint_state_sensitivities/qd", f.joint_qd_sensitivities.data()},
                     {"joint_state_sensitivities/tau", f.joint_tau_sensitivities.data()}});
  stats_->add_frame(frame_time_, status_.data(), f.violation.data(), f.energy.data(), f.kinetic.data());
}

LoopPoint JobRun::loop_point() {
  write_frame();
  recorder_->flush();  // the buffered frames too: a checkpoint holds every frame recorded
  return LoopPoint{done_,
                   since_record_,
                   recorder_->frames(),
                   wall_before_ + seconds_since(t_start_),
                   loop_before_ + seconds_since(t_loop_),
                   impulses_ ? impulses_->start() : std::vector<double>{}};
}

void JobRun::step_loop() {
  t_loop_ = Clock::now();
  try {
    if (!restored_) {
      recorder_->write_params(samples_.paths, samples_.values);
      recorder_->write_status(status_.data(), status_time_.data(), reason_.data());
    }
    std::vector<std::string> assembly_warnings;
    assembly_ = record_assembly(*sim_, restored_ ? nullptr : &*recorder_, samples_.paths, assembly_warnings);
    for (const std::string& w : assembly_warnings) warn(w);
    loop();
    record_end();
  } catch (const h5::H5Error& e) {
    output_error_ = stop_reason_ = write_failure(e, out_);
    logger().debug("the run stops: {}", e.what());
  } catch (const std::exception& e) {
    stop_reason_ = std::string("error: ") + e.what();
    loop_error_ = std::current_exception();
  }
  loop_s_ = seconds_since(t_loop_);
}

// Step loop. advance() is called in slices of about 50 ms (never across a record point)
// so that a stop request and the progress report are served promptly; after each slice
// the loop ends when no instance is left ok.
void JobRun::loop() {
  if (!restored_) read_frame();  // a resumed run's file holds the frames up to its checkpoint
  // A shard, like a one-shot run, ends when none of its instances is left ok: the merge
  // reads its frames after that as NaN (job/merge.hpp).
  alive_ = any_ok(status_);
  // Log lines when no progress hook takes them; records whenever a file is named.
  ProgressLog progress_log(hooks_.progress_log_interval_s, !hooks_.progress, hooks_.progress_file);
  t_loop_ = Clock::now();
  checkpoints_->start();
  hold_.start_loop(done_);
  // When the last checkpoint was completed (or the loop started), for the test hold's
  // report: a run never goes checkpoint_every_s without completing one.
  Clock::time_point checkpoint_done = Clock::now();
  std::int64_t slice = 1;
  while (alive_ && done_ < total_ && !stop()) {
    const std::int64_t k = hold_.clamp(done_, std::min({slice, every_ - since_record_, total_ - done_}));
    const auto t_slice = Clock::now();
    sim_->advance(static_cast<int>(k));
    if (half_) half_->advance(static_cast<int>(k));
    write_frame();
    sim_->synchronize();
    if (half_) half_sim_->synchronize();
    const double slice_s = seconds_since(t_slice);
    done_ += k;
    since_record_ += k;
    if (since_record_ == every_ || done_ == total_) {
      read_frame();
      since_record_ = 0;
    }
    sim_->read_status(status_.data(), status_time_.data(), reason_.data());
    alive_ = any_ok(status_);
    const double per_step = std::max(slice_s / static_cast<double>(k), 1e-9);
    slice = std::clamp<std::int64_t>(static_cast<std::int64_t>(0.05 / per_step), 1, 1 << 20);
    const auto t_check = Clock::now();
    double checkpoint_age = 0;  // [s] at this check, since the checkpoint the run has on disk
    if (checkpoints_->due() && alive_ && done_ < total_) {
      const int saved = checkpoints_->count();
      checkpoints_->save(*recorder_, *sim_, *stats_, loop_point(), half_sim_);
      if (checkpoints_->count() > saved) checkpoint_done = Clock::now();
    }
    if (checkpoint_done < t_check) checkpoint_age = std::chrono::duration<double>(t_check - checkpoint_done).count();
    const JobProgress p{done_, total_, sim_->time(), n_};
    if (hooks_.progress) hooks_.progress(p);
    progress_log.update(p);
    if (hold_.reached(done_))
      hold_.hold({{"steps_done", done_},
                  {"steps_total", total_},
                  {"wall_s", wall_before_ + seconds_since(t_start_)},
                  {"loop_wall_s", loop_before_ + seconds_since(t_loop_)},
                  {"checkpoint_age_s", checkpoint_age}},
                 [this] { return stop(); });
  }
  write_frame();
  progress_log.finish(JobProgress{done_, total_, sim_->time(), n_});
  if (stop() && sim_->n_sensitivities() == 0) checkpoints_->store(*recorder_, *sim_, *stats_, loop_point(), half_sim_);  // resuming continues from here
  if (since_record_ > 0) {  // stopped between record points: keep the last state
    read_frame();
    write_frame();
  }
  recorder_->finish_frames();  // a failed write is a write failure of the run, not of finalize()
  if (stop()) {
    std::string why = hooks_.stop_reason ? hooks_.stop_reason() : std::string();
    stop_reason_ = why.empty() ? "stop requested" : why;
  } else if (!alive_ && done_ < total_) {
    stop_reason_ = "no instance alive";
  }
}

void JobRun::record_end() {
  Simulator& sim = *sim_;
  // The reductions over time, up to the state the run ends on (a stopped run's too: its
  // resumption writes them again at its end).
  const ReductionLayout& L = sim.reduction_layout();
  std::vector<double> work;  // W per instance for the energy balance, when the power channel is on
  if (L.any()) {
    std::vector<double> red(static_cast<std::size_t>(n_) * L.channels * kReductionStats);
    sim.read_reductions(red.data());
    write_reductions(*recorder_, sim.model(), L, n_, red.data(), driver_names(sim.model()), driver_units(sim.model()),
                     reductions_);
    if (const int S = sim.n_sensitivities(); S > 0 && !reductions_.empty()) {
      // Their derivatives (docs/sensitivities.md), from the sensitivity engine's samples.
      std::vector<double> dred(static_cast<std::size_t>(n_) * L.channels * kReductionTangentStats * S);
      sim.read_reduction_sensitivities(dred.data());
      write_reduction_sensitivities(*recorder_, sim.model(), L, n_, dred.data(), sim.sensitivity_paths(),
                                    driver_names(sim.model()), driver_units(sim.model()), reductions_);
    }
    if (!reductions_.empty()) write_indeterminacy(recorder_->file_id(), sim, true);
    if (balance_) {
      // The power's mean is its time average over [0, t] (formulas/reductions.hpp).
      const int c = L.offset[static_cast<int>(ReductionQuantity::Power)];
      work.resize(static_cast<std::size_t>(n_));
      for (int i = 0; i < n_; ++i)
        work[static_cast<std::size_t>(i)] =
            red[(static_cast<std::size_t>(i) * L.channels + c) * kReductionStats + 2] * sim.time();
    }
  }
  if (const int S = sim.n_sensitivities(); S > 0) {
    // The values the derivatives are taken at, each in its parameter's unit.
    std::vector<std::string> units;
    for (const std::string& path : sim.sensitivity_paths()) {
      const std::string u = sweep_units(path);
      units.push_back(u.empty() ? "scene unit of the parameter" : u);
    }
    recorder_->write_instance_dataset("sensitivity_values", {static_cast<hsize_t>(n_), static_cast<hsize_t>(S)},
                                      sim.sensitivity_values().data(), {"instance", "parameter"}, units,
                                      {{"parameter", sim.sensitivity_paths()}});
    // 1 where an ok instance crossed a joint law's discontinuity: why its derivatives are NaN.
    const std::vector<std::uint8_t> crossed = sim.sensitivity_crossed();
    const std::vector<std::int64_t> flags(crossed.begin(), crossed.end());
    recorder_->write_instance_dataset("sensitivity_crossed", {static_cast<hsize_t>(n_)}, flags.data(), {"instance"},
                                      {"1"});
    // The tangents' refined Schur solves (SensitivityEngine::read_refinement).
    write_sensitivity_refinement(*recorder_, reduce_refinement(sim.sensitivity_refinement()));
  }
  // The step figures at the state the run ends on. A run stopped on request (resumable)
  // gets the root attributes only: the per-instance datasets and the error estimate are
  // written once, by the session that ends the run, so that a resumed file equals an
  // uninterrupted one (dimension scales list the datasets attached to them).
  // A stopped run with sensitivities writes no checkpoint (its tangents are not stored),
  // so no later session completes it: its file gets the final records now.
  const bool final_session = !stop() || sim_->n_sensitivities() > 0;
  steps_taken_ = step_report(sim);
  write_step_report(*recorder_, steps_taken_, final_session);
  // The refined solves of the run (a resumed run's earlier sessions from the checkpoint).
  const RefinementReport refinement = refinement_report(sim);
  if (final_session) write_refinement_report(*recorder_, refinement);
  for (const std::string& w : refinement_warnings(refinement, run_solver_.tikhonov_epsilon, solver_.refinement_steps))
    warn(w);
  for (const std::string& w : singular_passage_warnings(sim.model(), refinement.min_pivot, refinement.min_pivot_time))
    warn(w);
  // The energy check over the frames so far (a resumed run's earlier ones from the checkpoint).
  sim.read_status(status_.data(), status_time_.data(), reason_.data());
  finish_energy_check(energy_, *stats_, status_, work.empty() ? nullptr : &work);
  if (final_session) write_energy_check(*recorder_, energy_);
  for (const std::string& w : energy_check_warnings(energy_)) warn(w);
  if (const std::vector<std::uint8_t> crossed = sim.sensitivity_crossed();
      std::count(crossed.begin(), crossed.end(), 1) > 0)
    warn("sensitivities: " + std::to_string(std::count(crossed.begin(), crossed.end(), 1)) + " of " +
         std::to_string(crossed.size()) +
         " instances crossed a discontinuity of a joint law (a velocity cut or a damped position limit), "
         "where the force jumps at a time that moves with the parameters: their derivatives are NaN from "
         "that step on (/sensitivity_crossed; docs/sensitivities.md, \"Non-smooth laws\")");
  if (sim.n_sensitivities() > 0)
    if (const std::string w =
            sensitivity_refinement_warning(reduce_refinement(sim.sensitivity_refinement()), solver_.refinement_steps);
        !w.empty())
      warn(w);
  report_.redundant_rows_removed = removed_row_names(sim.model());
  report_.refinement_unconverged_solves = refinement.unconverged_solves;
  report_.refinement_unconverged_instances = refinement.unconverged_instances;
  report_.refinement_max_error = refinement.max_error_all;
  report_.singular_passage_instances = rank_watch_tells(sim.model()) ? refinement.singular_instances : 0;
  report_.min_relative_pivot = refinement.min_pivot_all;
  if (half_ && final_session) report_.error_estimate = half_->write(*recorder_, sim, integrator_order(solver_.integrator));
}

void JobRun::close_output() {
  sim_->read_status(status_.data(), status_time_.data(), reason_.data());
  try {
    recorder_->finalize(status_.data(), status_time_.data(), reason_.data(), wall_before_ + seconds_since(t_start_),
                        stop_reason_);
    // The output now holds the end, or (stopped on request) what resuming needs; after a
    // failed write the checkpoint file stays, to resume from once there is room.
    output_->commit([&] {
      if (output_error_.empty()) checkpoints_->discard();
    });
  } catch (const std::exception& e) {
    recorder_.reset();
    output_->keep_temporary();
    throw std::runtime_error((output_error_.empty() ? "output " + out_ + ": " + e.what() : output_error_) +
                             "; HDF5 could not complete the file: the partial file " + output_->temp_path() +
                             " is kept (it may not be readable)");
  }
  if (loop_error_) std::rethrow_exception(loop_error_);
}

JobResult JobRun::result() {
  const Model& model = sim_->model();
  RunReport& report = report_;
  report.scene_file = o_.scene;
  report.out_file = out_;
  report.backend = sim_->backend_details();
  report.seed = scene_.sweep.seed;
  report.steps = done_;
  report.steps_planned = total_;
  report.frames = recorder_->frames();
  report.dt = solver_.dt;
  report.sim_time = sim_->time();
  report.wall_s = wall_before_ + seconds_since(t_start_);
  report.loop_wall_s = loop_before_ + loop_s_;
  report.interrupted = stop_reason_ != "completed";
  report.stop_reason = stop_reason_;
  report.assembly = assembly_;
  report.failed = first_failed(status_, status_time_, reason_, sim_->assembly());
  if (const std::string hint = singular_passage_hint(model, status_, reason_, status_time_); !hint.empty()) warn(hint);
  report.warnings = warnings_;
  report.factorisation_recoveries = sim_->factorisation_recoveries();
  report.integrator = steps_taken_.integrator.empty() ? integrator_name(solver_.integrator) : steps_taken_.integrator;
  report.accepted_steps = steps_taken_.accepted;
  const bool adaptive = is_adaptive(solver_.integrator);
  report.rtol = adaptive ? solver_.rtol : std::numeric_limits<double>::quiet_NaN();
  report.atol = adaptive ? solver_.atol : std::numeric_limits<double>::quiet_NaN();
  report.rejected_steps = steps_taken_.rejected;
  report.min_step = steps_taken_.min_step;
  report.max_step = steps_taken_.max_step;
  report.has_error_estimate = solver_.error_estimate;
  report.tikhonov_epsilon = run_solver_.tikhonov_epsilon;
  report.energy_sources = energy_.sources;
  report.energy_error_bound = energy_.bound;
  report.energy_check_flagged = static_cast<int>(energy_.flagged.size());
  report.energy_balanced = energy_.balanced;
  report.energy_balance_flagged = static_cast<int>(energy_.balance_flagged.size());
  const auto nan_max = [](double a, double b) { return std::isnan(a) || std::isnan(b) ? a + b : std::max(a, b); };
  if (energy_.balanced)
    for (int i = 0; i < n_; ++i) {
      if (status_[static_cast<std::size_t>(i)] != 0) continue;
      const auto k = static_cast<std::size_t>(i);
      report.energy_balance_rel = nan_max(report.energy_balance_rel, energy_.balance_relative[k]);
      report.energy_balance_abs = nan_max(report.energy_balance_abs, std::abs(energy_.balance[k]));
      report.energy_work_abs = nan_max(report.energy_work_abs, std::abs(energy_.work[k]));
    }
  const RunStats::Summary summary = stats_->reduce(status_);

  JobResult result;
  result.out_file = out_;
  result.output_error = output_error_;
  result.summary = summary_json(report, summary);
  result.summary["checkpoints"] = checkpoints_->count();
  result.summary["checkpoint_wall_time_s"] = checkpoints_->seconds();
  result.summary["resumed_from_step"] = restored_ ? nlohmann::json(restored_->at.steps_done) : nlohmann::json();
  if (shard_.count > 1) add_shard_summary(result.summary, shard_);
  result.exit_code = stopped_ ? 130 : (summary.n_ok == 0 || !output_error_.empty()) ? 3 : 0;
  return result;
}

}  // namespace

JobResult run_job(const JobOptions& given, const JobHooks& hooks) {
  JobRun run(given, hooks);
  run.open_output();
  run.step_loop();
  run.close_output();
  return run.result();
}

}  // namespace simphant
