#pragma once
// The summary of a job (run_job.hpp): one JSON object holding every figure, and the
// text that `simphant run` prints from it (README "Command line").
//
// Keys of the summary object (units in the names; null where a figure does not exist):
//
//   scene                              the scene file as given (or the name given with its text)
//   out                                the HDF5 file written
//   backend                            the backend and its details, e.g. "cpu (2 threads, dense Schur)"
//   seed                               the sweep seed used
//   instances                          I, the number of instances
//   instances_ok                       instances whose final /status is 0
//   instances_assembly_failed          ... is 1 (did not assemble; never integrated)
//   instances_diverged                 ... is 2 (non-finite, max |Phi| above violation_bound, runaway or
//                                      a failed factorisation: /status_reason; frozen)
//   assembly_max_position_residual     max |Phi| after assembly over the assembled instances [m | rad]
//   assembly_max_velocity_residual     max |Phi_q qdot| after assembly [m/s | rad/s]
//   assembly_max_iterations            most Newton iterations of the position assembly
//   assembly_max_position_change_m     how far assembly moved the given positions: max |r - r_0| over
//                                      the instances and bodies [m]
//   assembly_max_orientation_change_rad   ... orientations [rad]
//   assembly_max_velocity_change_m_s      ... velocities, max |v - v_0| [m/s]
//   assembly_max_angular_velocity_change_rad_s  ... max |omega_B - omega_0B| [rad/s]
//   assembly_changed_values            given values that assembly changed by more than 1 % (assembled
//                                      instances), assembly_changed_instances the instances with any
//   assembly_swept_frames              the swept paths that move joint frames ([] none): with them the
//                                      changes are expected and printed as one line, not warned of
//   failed_instances                   [{instance, status, reason, time_s, message}] the first
//                                      kFailedListed instances whose final status is not 0, by
//                                      status time, then index; reason as in /status_reason by
//                                      name ("runaway", ...); message: the assembly's, else ""
//   warnings                           [strings] what the run warns of (also logged): step-size
//                                      stability (dynamics/stability.hpp) and given velocities that
//                                      the assembly's projection changed by more than 1 %
//   steps                              RK4 steps taken (fewer than planned when interrupted)
//   steps_planned                      round(t_end / dt)
//   dt_s                               step [s]
//   frames                             frames recorded (T of the output)
//   sim_time_s                         simulated time reached [s]
//   throughput_instance_steps_per_s    instances x steps / loop_wall_time_s
//   wall_time_s                        the whole job, loading to closing the file [s]
//   loop_wall_time_s                   the step loop, recording included [s]
//   max_constraint_violation           max |Phi| over the recorded frames of the ok instances [m | rad]; null if none ok
//   energy_drift_rel                   max relative energy drift of the ok instances (run_stats.hpp); null if none ok
//   energy_drift_abs_J                 max absolute energy drift of the ok instances [J]; null if none ok
//   energy_conserved                   true when nothing but gravity and springs does work on any instance's
//                                      model, so that the drift above is an error (job/energy_check.hpp)
//   energy_sources                     what else does work ("forces.<name> (damping)", "drivers.<name>
//                                      (rheonomic driver)", "contact <shape> <shape> (contact damping,
//                                      ...)", ...); [] when energy_conserved
//   energy_error_bound                 the energy check's relative bound (job/energy_check.hpp), on the
//                                      energy error of a conserving model or on the energy balance; null when
//                                      none applies (euler, symplectic_euler; a model that does not conserve E
//                                      without a balance)
//   energy_check_flagged_instances     ok instances of a conserving model whose relative energy error passed
//                                      the bound (each also a warning; /energy_check)
//   energy_balance_rel                 max over the ok instances of |E(T) - E(0) - W| / max(|E(0)|, peak
//                                      kinetic energy, |W|), W the work of the energy_sources
//                                      (job/energy_check.hpp); null without a balance
//   energy_balance_abs_J               max |E(T) - E(0) - W| [J] of the ok instances; null without a balance
//   energy_work_abs_J                  max |W| [J] of the ok instances; null without a balance
//   energy_balance_flagged_instances   ok instances of the other models whose energy balance passed the
//                                      bound (each also a warning; /energy_check/balance_relative)
//   interrupted                        true when the run ended early for any reason (the file's `interrupted`)
//   stop_reason                        why the run ended (the file's `stop_reason`): "completed", "signal
//                                      SIGINT", "stop requested", "no instance alive", "disk full (ENOSPC):
//                                      <out>", "write error: ...", "error: ..."
//   factorisation_recoveries           evaluations whose Schur factorisation met a rejected pivot and was
//                                      recovered with a larger shift (docs/solver.md, "The refined
//                                      regularised solve"); an instance no shift recovers is diverged
//   tikhonov_epsilon                   the relative shift of the refined solve the run used: solver.tikhonov_epsilon,
//                                      or lower where light bodies needed it (dynamics/shift_choice.hpp; the
//                                      output's root attribute of the same name)
//   redundant_rows_removed             the rows of Phi_q removed as redundant at the start, "joint <name>
//                                      row <r>" (solver.redundant_rows; dynamics/redundant_rows.hpp; the
//                                      output's root attribute of the same name); [] when none
//   refinement_unconverged_solves      refined Schur solves whose error estimate ended above the
//                                      refinement tolerance, summed over the instances
//                                      (job/refinement_report.hpp; /refinement/unconverged)
//   refinement_unconverged_instances   instances with at least one such solve
//   refinement_max_error               the largest relative error estimate of a refined solve's
//                                      constraint forces over the instances (/refinement/max_error);
//                                      null when none was written (a run stopped to be resumed)
//   singular_passage_instances         instances whose smallest relative pivot of a Schur
//                                      factorisation fell below kSingularRelativePivot: they passed
//                                      near a configuration where Phi_q loses rank (the rank watch,
//                                      formulas/pivot_watch.hpp; /refinement/min_pivot); 0 where the
//                                      watch does not tell (solver.redundant_rows keep on a closed loop)
//   min_relative_pivot                 the smallest relative pivot over the instances; null when no
//                                      Schur factorisation ran (no constraint rows, joint coordinates)
//   integrator                         the integrator that ran: rk4 | euler | symplectic_euler | dopri5 | bdf
//                                      (model/integrator.hpp; docs/solver.md, "Integrators")
//   accepted_steps                     accepted integrator steps, summed over the instances (fixed-step
//                                      integrators: each instance's steps of dt; job/step_report.hpp)
//   rejected_steps                     rejected step attempts, summed over the instances (0 for fixed steps)
//   rtol, atol                         the adaptive integrator's tolerances (solver.rtol, solver.atol); null
//                                      for the fixed-step integrators, which do not use them
//   min_step_s, max_step_s             smallest and largest accepted step over the instances [s] (fixed
//                                      steps: dt); null when no instance accepted a step
//   error_estimate_position_m          solver.error_estimate runs (job/error_estimate.hpp): the largest
//                                      estimated global position error at the end over the instances [m]
//                                      (/error_estimate/position); null without the estimate or when no
//                                      instance has one
//   error_estimate_orientation_rad     ... orientation error [rad] (/error_estimate/orientation)
//   stop_signal                        "SIGINT" / "SIGTERM" / "SIGHUP" when the CLI stopped on that signal, else null
//   shard_index, shard_count           a shard's run only (`--shard K/N`, job/shard.hpp): K and N
//   instance_offset, instances_total   ... the design's index of its first instance, and the design's I
//
// A NaN figure (an ok instance whose record holds NaN) is NaN in the object and null
// when it is written as JSON text.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/job/error_estimate.hpp"
#include "simphant/job/run_stats.hpp"

namespace simphant {

/// Most failed instances listed in the summary.
constexpr int kFailedListed = 10;

/// One failed instance of the summary's failed_instances.
struct FailedInstance {
  int instance = 0;
  std::int8_t status = 0;   ///< InstanceStatus
  std::int8_t reason = 0;   ///< kReason* (formulas/runaway.hpp)
  double time_s = 0;        ///< instance time at which the status was set [s]
  std::string message;      ///< the assembly's message, or ""
};

/// The figures of a job besides the statistics.
struct RunReport {
  std::string scene_file, out_file, backend;
  std::uint64_t seed = 0;
  std::int64_t steps = 0, steps_planned = 0, frames = 0;
  double dt = 0, sim_time = 0;
  double wall_s = 0, loop_wall_s = 0;
  bool interrupted = false;
  std::string stop_reason = "completed";
  std::int64_t factorisation_recoveries = 0;
  double tikhonov_epsilon = 0;  ///< the run's relative shift (dynamics/shift_choice.hpp)
  std::vector<std::string> redundant_rows_removed;  ///< removed_row_names (dynamics/redundant_rows.hpp)
  std::int64_t refinement_unconverged_solves = 0;
  int refinement_unconverged_instances = 0;
  double refinement_max_error = 0;  ///< NaN: not read (a run stopped to be resumed)
  int singular_passage_instances = 0;
  double min_relative_pivot = std::numeric_limits<double>::infinity();  ///< +inf: no factorisation
  std::string integrator = "rk4";
  std::int64_t accepted_steps = 0, rejected_steps = 0;
  double rtol = 0, atol = 0;          ///< the adaptive integrator's tolerances; NaN for fixed steps
  double min_step = 0, max_step = 0;  ///< [s]; NaN: no step accepted
  bool has_error_estimate = false;
  std::vector<std::string> energy_sources;  ///< EnergyCheck::sources (job/energy_check.hpp)
  double energy_error_bound = 0;            ///< EnergyCheck::bound; NaN: none applies
  int energy_check_flagged = 0;             ///< conservative ok instances above the bound
  bool energy_balanced = false;             ///< EnergyCheck::balanced
  int energy_balance_flagged = 0;           ///< EnergyCheck::balance_flagged
  /// Over the ok instances: max balance_relative, max |balance| [J], max |work| [J].
  double energy_balance_rel = 0, energy_balance_abs = 0, energy_work_abs = 0;
  ErrorEstimateSummary error_estimate;  ///< when has_error_estimate (NaN: none written, e.g. a run stopped to be resumed)
  AssemblySummary assembly;
  std::vector<FailedInstance> failed;  ///< at most kFailedListed
  std::vector<std::string> warnings;
};

/// The summary object (keys above); stop_signal is null.
nlohmann::json summary_json(const RunReport& report, const RunStats::Summary& stats);

/// The text summary of `simphant run` (several lines, each ending in a newline) from a
/// summary object. Throws nlohmann::json::exception when a key is missing.
std::string summary_text(const nlohmann::json& summary);

/// What happened to a run none of whose instances finished ok, from a summary object,
/// e.g. "no instance assembled: 2 assembly failures; nothing was stepped" or "1 assembly
/// failure, 3 diverged; the run stopped after 40 of 100 steps, when the last one
/// diverged". Throws nlohmann::json::exception when a key is missing.
std::string no_instance_ok_text(const nlohmann::json& summary);

}  // namespace simphant
