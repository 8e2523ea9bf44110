#pragma once
// Simulator: the C++ service core that the CLI uses. Create it from per-instance models
// (scene + sweep; job/scene_simulator.hpp does it in one call), set actuator inputs,
// advance, read results; reset, read and write the state of listed instances
// (docs/state.md).
//
//   auto scene = simphant::load_scene("examples/four_bar.json");
//   auto samples = simphant::sample_sweep(scene.sweep, 1000);
//   auto sim = simphant::Simulator::create(simphant::build_instance_models(scene, samples), {});
//   sim->advance(100);
//   std::vector<double> y(sim->n_instances() * sim->model().n_bodies() * 13);
//   sim->read_states(y.data());
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "simphant/formulas/refinement_record.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"
#include "simphant/sim/link_frames.hpp"

namespace simphant {

class SensitivityEngine;
struct FrameSensitivities;

struct SimulatorOptions {
  /// "cpu" | "cpu-simd" | "cuda" | "cuda-fused" | "auto" (cuda or cuda-fused when this build has
  /// CUDA, a device is present and the integrator is not bdf; else cpu-simd where it runs the scene
  /// and the batch has at least simd::kLaneWidth instances; else cpu).
  std::string backend = "auto";
  int threads = 0;                  ///< CPU workers (the cpu backends, and assembly); 0 = default_thread_count()
  std::string precision = "fp64";   ///< "fp64" | "fp32" (fp32: the cuda backend only)
  bool use_cuda_graph = true;       ///< cuda: replay one captured step (false: plain launches)
  std::string schur = "auto"; // "auto" | "dense" | "sparse"
  /// The batch size by which backend "auto" chooses between cuda and cuda-fused; 0: the
  /// simulator's own count. A shard of a design (job/shard.hpp) passes the design's size,
  /// so that every shard runs the backend of the one-shot run.
  int auto_instances = 0;
};

/// The automatic choice of a backend: sim/backend_rules.hpp (choose_backend).

/// Not thread-safe: call one Simulator from one thread at a time (its calls use the
/// backend's own worker threads and workspaces). Separate Simulators are independent.
class Simulator {
 public:
  /// models: one per instance, or one shared by all (then n_instances gives the count).
  /// All models must share one topology (same bodies, joints, forces). Assembles every
  /// instance; an instance that cannot assemble gets InstanceStatus::AssemblyFailed.
  /// Throws std::invalid_argument for an unknown backend, precision or inconsistent
  /// models, BackendError when the cuda backend cannot run (no device, too small, a
  /// failed CUDA call).
  static std::unique_ptr<Simulator> create(std::vector<Model> models, const SimulatorOptions& options,
                                           int n_instances = -1);

  /// The batch's model: instance 0's model as created. Its topology, names and dt hold
  /// for every instance; set_models / reset with resampling may since have changed the
  /// parameters of any instance, 0 included.
  const Model& model() const { return models_->front(); }
  int n_instances() const { return backend_->n_instances(); }
  const char* backend_name() const { return backend_->name(); }
  std::string backend_details() const { return backend_->details(); }
  /// Actuator inputs of every instance: u (n_instances, n_inputs), row-major. Throws
  /// std::invalid_argument naming the first NaN or infinite entry (nothing is set then).
  void set_inputs(const double* u);
  /// As set_inputs from device memory (a cuda backend); refused (std::logic_error) with
  /// sensitivities, whose engine reads inputs on the host.
  void set_inputs_device(const double* d_u);
  /// Advances every live instance by n_steps steps (Backend::advance), and with
  /// sensitivities their tangents along the same steps (enable_sensitivities).
  void advance(int n_steps);
  void synchronize() { backend_->synchronize(); }
  /// The batch clock: steps advanced (since creation, or the value set by
  /// set_steps_taken plus the steps since) and time() = steps_taken() * dt.
  double time() const { return static_cast<double>(steps_taken()) * dt(); }
  std::int64_t steps_taken() const { return backend_->steps_taken() + clock_offset_; }
  /// Sets the batch clock to `steps`, as when a run continues from a checkpoint
  /// (job/checkpoint.hpp): time() then equals, bit for bit, the time of a batch that
  /// advanced that many steps. The instances' own clocks (get_state's steps, the status
  /// times) do not change; set_state sets them.
  void set_steps_taken(std::int64_t steps) { clock_offset_ = steps - backend_->steps_taken(); }
  /// Factorisations recovered with a larger shift so far (docs/solver.md, "Pivot recovery").
  std::int64_t factorisation_recoveries() const { return backend_->factorisation_recoveries(); }
  /// (n_instances) per instance, the record of its refined solves and the rank watch of
  /// their factorisations (Backend::read_refinement), after the record
  /// set_refinement_before gave.
  void read_refinement(RefinementRecord* out) const;
  /// The records of the earlier sessions of a resumed run (job/checkpoint.hpp), (n_instances)
  /// as read_refinement gives them: read_refinement then reports each merged with this
  /// session's solves, as the uninterrupted run would (RefinementRecord::merge).
  void set_refinement_before(const RefinementRecord* before);
  /// The integrator advance() runs (Backend::integrator; docs/solver.md, "Integrators").
  Integrator integrator() const { return backend_->integrator(); }
  /// Per instance since its last reset: accepted and rejected steps, smallest and largest
  /// step [s] (Backend::read_step_statistics; any pointer may be null).
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step, double* max_step) const {
    backend_->read_step_statistics(accepted, rejected, min_step, max_step);
  }
  /// The adaptive integrator's state per instance (Backend::integrator_state_size, get_ /
  /// set_integrator_state): (n_instances, integrator_state_size()), for checkpoints.
  int integrator_state_size() const { return backend_->integrator_state_size(); }
  void get_integrator_state(double* out) const { backend_->get_integrator_state(out); }
  void set_integrator_state(const double* in) { backend_->set_integrator_state(in); }
  void read_states(double* out) const { backend_->read_states(out); }
  void read_reactions(double* out) const { backend_->read_reactions(out); }
  void read_constraint_violation(double* out) const { backend_->read_constraint_violation(out); }
  void read_energy(double* total, double* kinetic = nullptr) const { backend_->read_energy(total, kinetic); }
  /// Status, status time [s] and (when `reason` is not null) status reason per instance.
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason = nullptr) const {
    backend_->read_status(status, status_time, reason);
  }
  const std::vector<AssemblyResult>& assembly() const { return backend_->assembly(); }
  /// Joint coordinates per instance (robot scenes), 0 if none; see Backend.
  int n_joint_coordinates() const { return backend_->n_joint_coordinates(); }
  /// Backend::n_drivers, Backend::read_driver_loads ((n_instances, n_drivers) [N m | N]).
  int n_drivers() const { return backend_->n_drivers(); }
  void read_driver_loads(double* out) const { backend_->read_driver_loads(out); }
  void read_joint_state(double* q, double* qd, double* tau) const { backend_->read_joint_state(q, qd, tau); }
  /// Link frames of a robot scene (docs/robots.md, "Link frames"; sim/link_frames.hpp):
  /// their number (the moving links, then a floating base), 0 without a robot.
  int n_link_frames() const;
  /// The frame index of a URDF link name (link_frame_index in sim/link_frames.hpp; throws
  /// std::invalid_argument naming the known links).
  int link_frame_index(const std::string& name) const;
  /// The link frames' names and parents (link_tree in sim/link_frames.hpp).
  LinkTree link_tree() const;
  /// (n_instances, count, 13): origin (W) [m], orientation (w x y z, frame -> W), origin
  /// velocity (W) [m/s] and angular velocity (frame axes) [rad/s] of frames[0 .. count) at
  /// the current state: the backend's own (Backend::read_link_frames: the GPU joint-space
  /// backend) or derived from read_states with each instance's current model (as
  /// created, or as set_models, set_parameters or a reset with resample made it;
  /// link_frames_from_states). Throws std::invalid_argument for a scene without a robot or
  /// a frame index out of range.
  void read_link_frames(const int* frames, int count, double* out) const;
  /// As read_link_frames on the device, without a copy (Backend::link_frames_view); an
  /// empty view on a backend that computes no device link frames.
  ArrayView link_frames_view(const int* frames, int count);

  /// The joint-frame loads of a frame read from this simulator (states as read_states,
  /// reactions as read_reactions, driver_loads (n, D) as read_driver_loads or null
  /// without drivers): loads (n, J, 6), bearing (n, J, 4), either may be null
  /// (sim/joint_load_frames.hpp), with each instance's current model (its joint frames as
  /// set_models, set_parameters or a reset with resample left them).
  void joint_load_frames(const double* states, const double* reactions, const double* driver_loads, double* loads,
                         double* bearing) const;
  /// A recorded frame's contact pairs from its states (n, B, 13) as read_states: out
  /// (n, P, 4) (sim/contact_frames.hpp), with each instance's current model.
  void contact_frames(const double* states, double* out) const;
  /// The contact pairs' wrenches from states (n, B, 13) as read_states: out (n, P, 6)
  /// (sim/contact_frames.hpp, contact_wrenches), with each instance's current model.
  void contact_wrenches(const double* states, double* out) const;
  /// The instances' centres of mass from states (n, B, 13) as read_states: out (n, 3)
  /// (sim/centre_of_mass.hpp), with each instance's current masses.
  void centres_of_mass(const double* states, double* out) const;
  // --- Reductions over time (Backend's contract) ---
  /// With sensitivities, the engine differentiates the same reductions
  /// (read_reduction_sensitivities).
  void set_reductions(const std::vector<ReductionQuantity>& quantities);
  ReductionLayout reduction_layout() const { return backend_->reduction_layout(); }
  void read_reductions(double* out) const { backend_->read_reductions(out); }
  void get_reduction_state(double* acc) const { backend_->get_reduction_state(acc); }
  /// Throws std::logic_error with sensitivities (the accumulators' tangents are not stored).
  void set_reduction_state(const double* acc);
  // --- Per-instance state (Backend's contract for ids, buffers and errors) ---
  int state_size() const { return backend_->state_size(); }
  /// As Backend::get_state, plus episodes (count): the instance's domain-randomisation
  /// episode (0 = the sweep's own sample; reset(..., resample = true) adds one), and
  /// reasons (count): the status reasons. Any output may be null.
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::uint64_t* episodes, std::int8_t* reasons = nullptr) const;
  /// As Backend::set_state, plus episodes (count). When an episode differs from the
  /// instance's current one and a resampler is set, the instance's model is rebuilt for
  /// that episode first (so that a checkpoint restores the parameters too). Throws
  /// std::invalid_argument for a negative step count (steps or status_steps), naming it.
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::uint64_t* episodes, const std::int8_t* reasons = nullptr);
  /// The listed instances go back to their assembled initial state, step 0 and their
  /// assembly status. resample: each listed instance first advances to its next
  /// episode and gets a model freshly drawn by the resampler (domain randomisation;
  /// throws std::logic_error when none is set), then is assembled again.
  void reset(const int* ids, int count, bool resample = false);
  /// Replaces the listed instances' models and resets them (Backend::set_models: same
  /// topology and dt, else std::invalid_argument). Their episodes and parameter
  /// overrides stay as they are (a later reset with resample rebuilds from the scene).
  void set_models(const int* ids, int count, const Model* models);
  /// Actuator inputs of the listed instances: u (count, n_inputs). Throws
  /// std::invalid_argument naming the first NaN or infinite entry (nothing is set then).
  void set_inputs(const int* ids, int count, const double* u);
  /// Zero-copy views of the backend's state and inputs (Backend::state_view); refused
  /// (std::logic_error) with sensitivities: a write through them would bypass the
  /// sensitivities' engine.
  ArrayView state_view();
  ArrayView inputs_view();
  /// Run-time parameter values of one instance (set_parameters): (path, value) pairs in
  /// sweep path syntax, the scene's units (the same type as scene/scene.hpp's).
  using ParameterOverrides = std::vector<std::pair<std::string, double>>;
  /// The model of instance i for its episode e with the instance's parameter overrides
  /// written on top: deterministic in (i, e, overrides) (scene sweep:
  /// job/scene_simulator.hpp). Throwing (SceneError for a draw or an override that makes
  /// the model invalid) leaves the instance unchanged.
  using Resampler = std::function<Model(int instance, std::uint64_t episode, const ParameterOverrides& overrides)>;
  void set_resampler(Resampler resampler) { resampler_ = std::move(resampler); }
  /// Sets physics parameters of the listed instances at run time (domain randomisation
  /// of any number in the scene, without a new Simulator): paths (n_paths) in sweep path
  /// syntax (docs/scene-format.md, "Sweep"; e.g. "bodies.crank.mass",
  /// "joints.j1.frame_i.origin[0]", "robot.payload.mass"), values (count, n_paths)
  /// row-major in the scene's units (SI), row k for ids[k].
  ///
  /// Each listed instance keeps its overrides, merged with those of earlier calls (a
  /// later value for the same path replaces the earlier one), and gets the model of its
  /// current episode (the sweep's sample in episode 0, sample_episode after) with all its
  /// overrides written on top; an override of a sweep parameter's path wins over the
  /// sweep's value. The instance then restarts as set_models does: its assembled initial
  /// state, step 0, its assembly status and its actuators' default inputs. The overrides
  /// hold across reset(), with resample too (the new episode's sweep values, then the
  /// overrides), and across set_state (a changed episode is rebuilt with them); a
  /// Simulator's state (get_state) does not carry them. Instances not listed do not change.
  ///
  /// Throws std::invalid_argument for bad ids (InstanceIds::check) or n_paths < 0;
  /// std::logic_error without a resampler (a Simulator not made from a scene:
  /// make_simulator installs one); SceneError naming the path for a path that is
  /// malformed, names nothing or a non-number, points into the sweep section or names a
  /// setting of the whole run (solver.dt, tikhonov_epsilon, ...:
  /// scene_detail::check_per_instance_path), or a value that is not finite; SceneError
  /// naming the instance and the path for a value
  /// that makes the model invalid (a mass <= 0, ...); std::invalid_argument for a value
  /// that changes the topology or dt (Backend::set_models). On any error no listed
  /// instance changes (models, state or overrides).
  void set_parameters(const int* ids, int count, const std::string* paths, int n_paths, const double* values);
  /// The overrides instance i holds (set_parameters), in the order first set; empty
  /// when none. Throws std::out_of_range for i outside [0, n_instances).
  const ParameterOverrides& parameter_overrides(int instance) const;
  double dt() const { return model().solver.dt; }

  // --- Forward sensitivities (docs/sensitivities.md).

  /// Starts forward sensitivities of the state with respect to the scene values at
  /// `paths` (sweep path syntax, e.g. "bodies.coupler.mass"): values[s][i] is path s's
  /// value in instance i (make_simulator passes the sweep sample or the scene's value).
  /// From here on, advance() also steps each instance's tangents d(state)/d(value)
  /// through the cuda-fused path's per-thread step in dual numbers on the CPU
  /// (sim/sensitivity_engine.hpp: its own dual state from the backend's assembled
  /// start; values equal to the backend's up to its rounding), seeded by
  /// sensitivity_seeds (sim/sensitivity_seeds.hpp): call it before the first advance. reset() (without
  /// resample) returns the tangents to their seeds. With sensitivities, reset with
  /// resample, set_state, set_models, set_parameters and set_inputs_device throw
  /// std::logic_error (they would change the state or the model behind the tangents), and
  /// so do state_view and inputs_view. Throws std::invalid_argument naming the scene field
  /// for a model the engine does not run (sensitivity_unsupported), for no path, a
  /// repeated path, a second call, or a call after advance, set_inputs, set_state,
  /// set_models, set_parameters, a reset with resample or a view (the engine starts from
  /// the batch as created); std::logic_error without a resampler; SceneError from
  /// the seeds (a path that names nothing or a shared setting).
  void enable_sensitivities(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values);
  /// (n_instances) 1 where an instance whose status is ok has crossed a discontinuity of a
  /// robot joint law since it started (SensitivityEngine::crossed: the velocity cut at its
  /// limit, a damped position limit entered): its derivatives read NaN. Empty without
  /// sensitivities.
  std::vector<std::uint8_t> sensitivity_crossed() const;
  /// (n_instances) the refined Schur solves of each instance's tangents
  /// (SensitivityEngine::read_refinement: one solve per parameter and Schur solve; a
  /// tangent solve above the refinement tolerance leaves its derivatives off by about the
  /// record's worst relative error estimate). Empty without sensitivities.
  std::vector<RefinementRecord> sensitivity_refinement() const;
  /// Parameters differentiated (0 without sensitivities), and their paths.
  int n_sensitivities() const;
  std::vector<std::string> sensitivity_paths() const;
  /// (n_instances, n_sensitivities()): each instance's value of each parameter, in its
  /// scene unit (enable_sensitivities' values, transposed); empty without sensitivities.
  const std::vector<double>& sensitivity_values() const { return sensitivity_values_; }
  /// out (n_instances, n_bodies, 13, n_sensitivities()): d(state) / d(value) in the
  /// recorded state layout (read_states: r [m], p, v [m/s], omega_B [rad/s] per body)
  /// per unit of each parameter's scene unit; NaN for an instance whose status (the
  /// backend's) is not Ok or whose dual step failed. Throws std::logic_error without sensitivities.
  void read_state_sensitivities(double* out) const;
  /// A view (n_instances, state_size(), n_sensitivities()) of the engine's state tangents
  /// d(y)/d(value) in the backend's state layout (state_view's y = [q, qdot]), host
  /// memory aliasing the engine (SensitivityEngine::state_tangent_view): it follows every
  /// advance and reset; not NaN-masked (an instance that crossed a joint law or whose
  /// status is not Ok keeps stale tangents: check sensitivity_crossed() and the status).
  /// Throws std::logic_error without sensitivities, std::invalid_argument with more than
  /// SensitivityEngine::kMaxWidth parameters (more than one pass).
  ArrayView state_sensitivities_view();
  /// out (n_instances, n_joints, 6, n_sensitivities()): d(reactions) / d(value), the
  /// reactions as read_reactions gives them (force [N] and torque [N m] each joint applies
  /// to its body_j at the anchor, world frame), evaluated by the engine's dual frame at
  /// its current state (one Schur solve per instance); NaN as read_state_sensitivities.
  /// Throws std::logic_error without sensitivities.
  void read_reaction_sensitivities(double* out) const;
  /// The derivatives of a recorded frame's quantities at the current state, those whose
  /// pointer in `out` is set (FrameSensitivities, sim/frame_sensitivities.hpp: reactions,
  /// joint loads, bearing loads, driver loads, energy; shapes as their frames with S
  /// last), from one dual frame (one Schur solve per instance); NaN as
  /// read_state_sensitivities. Throws std::logic_error without sensitivities.
  void read_frame_sensitivities(const FrameSensitivities& out) const;
  /// out (n_instances, C, kReductionTangentStats, n_sensitivities()) for the C channels of
  /// reduction_layout(): d(max, min, mean, rms)/d(value) of each reduction over time as
  /// read_reductions gives them (formulas/reductions.hpp, reduction_stats_tangent), from
  /// the engine's own samples; the derivative of a max is that of the sample at the
  /// engine's step of the max (a discrete peak's step does not move under a small
  /// change; the time of the max has no derivative). NaN as read_state_sensitivities.
  /// Nothing is written without reductions. Throws std::logic_error without sensitivities.
  void read_reduction_sensitivities(double* out) const;

  ~Simulator();

 private:
  Simulator(std::shared_ptr<const std::vector<Model>> models, std::unique_ptr<Backend> backend);
  /// Throws std::logic_error naming `call` when sensitivities are on.
  void refuse_with_sensitivities(const char* call) const;
  /// Rebuilds the models of the listed instances for episodes[k] (resampler_, with each
  /// instance's overrides) and hands them to the backend (which resets them); then
  /// records the episodes.
  void resample(const int* ids, int count, const std::uint64_t* episodes);
  /// Instance i's model from the resampler for `episode` with `overrides`, carrying the
  /// rows removed and the shift chosen at creation.
  Model rebuild(int instance, std::uint64_t episode, const ParameterOverrides& overrides) const;
  std::shared_ptr<const std::vector<Model>> models_;
  /// (n_instances) each instance's model as the backend now steps it, once set_models,
  /// set_parameters or a reset with resample changed one (a copy per instance from then
  /// on, as the CPU backends keep); empty before (models_ then).
  std::vector<Model> current_;
  /// The models of current_ or, before any change, models_ (one shared or one per instance).
  const std::vector<Model>& current_models() const { return current_.empty() ? *models_ : current_; }
  /// Records that the listed instances now run models[k] (current_).
  void note_models(const int* ids, int count, const Model* models);
  std::unique_ptr<Backend> backend_;
  std::vector<RefinementRecord> refinement_before_;  ///< set_refinement_before; empty: none
  std::vector<std::uint64_t> episodes_;  ///< (n_instances) domain-randomisation episode
  /// (n_instances) each instance's set_parameters overrides; empty until the first call
  std::vector<ParameterOverrides> overrides_;
  Resampler resampler_;
  InstanceIds ids_;
  std::int64_t clock_offset_ = 0;  ///< steps_taken() - the backend's steps (set_steps_taken)
  std::unique_ptr<SensitivityEngine> sensitivities_;  ///< enable_sensitivities; null: none
  std::vector<double> sensitivity_values_;            ///< (n, S) sensitivity_values
  /// advance, set_inputs, set_state, set_models, set_parameters, a resample or a view has
  /// run: too late to enable sensitivities
  bool touched_ = false;
  int threads_ = 0;        ///< SimulatorOptions::threads (the sensitivity engine's workers)
  /// The engine's listed instances (ids null: all) from the backend's current state, at
  /// their seeds (after creation, after a reset).
  void start_sensitivities(const int* ids, int count);
};

}  // namespace simphant
