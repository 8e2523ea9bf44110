#include "simphant/job/run_summary.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "simphant/sim/backend.hpp"

namespace simphant {

namespace {

using nlohmann::json;

/// Appends printf-formatted text to `out`.
void appendf(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* format, ...) {
  char buf[1024];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(&big[0], big.size(), format, args);
  va_end(args);
  big.pop_back();
  out += big;
}

/// A figure, or null when it is NaN (does not exist).
json or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

}  // namespace

json summary_json(const RunReport& r, const RunStats::Summary& s) {
  const double rate = r.loop_wall_s > 0 ? static_cast<double>(r.steps) * s.n_instances / r.loop_wall_s : 0.0;
  const bool any_ok = s.n_ok > 0;
  json failed = json::array();
  for (const FailedInstance& f : r.failed)
    failed.push_back(json{{"instance", f.instance},
                          {"status", f.status},
                          {"reason", status_reason_name(f.reason)},
                          {"time_s", f.time_s},
                          {"message", f.message}});
  return json{{"scene", r.scene_file},
              {"out", r.out_file},
              {"backend", r.backend},
              {"seed", r.seed},
              {"instances", s.n_instances},
              {"instances_ok", s.n_ok},
              {"instances_assembly_failed", s.n_assembly_failed},
              {"instances_diverged", s.n_diverged},
              {"assembly_max_position_residual", r.assembly.max_position_residual},
              {"assembly_max_velocity_residual", r.assembly.max_velocity_residual},
              {"assembly_max_iterations", r.assembly.max_iterations},
              {"assembly_max_position_change_m", r.assembly.max_position_change},
              {"assembly_max_orientation_change_rad", r.assembly.max_orientation_change},
              {"assembly_max_velocity_change_m_s", r.assembly.max_velocity_change},
              {"assembly_max_angular_velocity_change_rad_s", r.assembly.max_angular_velocity_change},
              {"assembly_changed_values", r.assembly.changed_values},
              {"assembly_changed_instances", r.assembly.changed_instances},
              {"assembly_swept_frames", r.assembly.swept_frames},
              {"failed_instances", failed},
              {"warnings", r.warnings},
              {"steps", r.steps},
              {"steps_planned", r.steps_planned},
              {"dt_s", r.dt},
              {"frames", r.frames},
              {"sim_time_s", r.sim_time},
              {"throughput_instance_steps_per_s", rate},
              {"wall_time_s", r.wall_s},
              {"loop_wall_time_s", r.loop_wall_s},
              {"max_constraint_violation", any_ok ? json(s.max_violation) : json(nullptr)},
              {"energy_drift_rel", any_ok ? json(s.max_rel_drift) : json(nullptr)},
              {"energy_drift_abs_J", any_ok ? json(s.max_abs_drift) : json(nullptr)},
              {"energy_conserved", r.energy_sources.empty()},
              {"energy_sources", r.energy_sources},
              {"energy_error_bound",
               r.energy_sources.empty() || r.energy_balanced ? or_null(r.energy_error_bound) : json(nullptr)},
              {"energy_check_flagged_instances", r.energy_check_flagged},
              {"energy_balance_rel", r.energy_balanced && any_ok ? or_null(r.energy_balance_rel) : json(nullptr)},
              {"energy_balance_abs_J", r.energy_balanced && any_ok ? or_null(r.energy_balance_abs) : json(nullptr)},
              {"energy_work_abs_J", r.energy_balanced && any_ok ? or_null(r.energy_work_abs) : json(nullptr)},
              {"energy_balance_flagged_instances", r.energy_balance_flagged},
              {"interrupted", r.interrupted},
              {"stop_reason", r.stop_reason},
              {"factorisation_recoveries", r.factorisation_recoveries},
              {"tikhonov_epsilon", r.tikhonov_epsilon},
              {"redundant_rows_removed", r.redundant_rows_removed},
              {"refinement_unconverged_solves", r.refinement_unconverged_solves},
              {"refinement_unconverged_instances", r.refinement_unconverged_instances},
              {"refinement_max_error", or_null(r.refinement_max_error)},
              {"singular_passage_instances", r.singular_passage_instances},
              {"min_relative_pivot", std::isinf(r.min_relative_pivot) ? json(nullptr) : or_null(r.min_relative_pivot)},
              {"integrator", r.integrator},
              {"accepted_steps", r.accepted_steps},
              {"rejected_steps", r.rejected_steps},
              {"rtol", or_null(r.rtol)},
              {"atol", or_null(r.atol)},
              {"min_step_s", or_null(r.min_step)},
              {"max_step_s", or_null(r.max_step)},
              {"error_estimate_position_m", r.has_error_estimate ? or_null(r.error_estimate.max_position) : json(nullptr)},
              {"error_estimate_orientation_rad",
               r.has_error_estimate ? or_null(r.error_estimate.max_orientation) : json(nullptr)},
              {"stop_signal", nullptr}};
}

std::string no_instance_ok_text(const json& j) {
  const int failed = j.at("instances_assembly_failed").get<int>(), diverged = j.at("instances_diverged").get<int>();
  const auto steps = j.at("steps").get<std::int64_t>(), planned = j.at("steps_planned").get<std::int64_t>();
  const std::string failures = std::to_string(failed) + (failed == 1 ? " assembly failure" : " assembly failures");
  std::string s = diverged == 0 ? "no instance assembled: " + failures
                                : (failed > 0 ? failures + ", " : std::string()) + std::to_string(diverged) + " diverged";
  if (j.at("stop_reason").get<std::string>() == "no instance alive") {
    if (steps == 0)
      s += "; nothing was stepped";
    else
      s += "; the run stopped after " + std::to_string(steps) + " of " + std::to_string(planned) +
           " steps, when the last one diverged";
  }
  return s;
}

std::string summary_text(const json& j) {
  std::string out;
  appendf(out, "simphant run: %s\n", j.at("scene").get<std::string>().c_str());
  if (j.at("stop_reason").get<std::string>() == "no instance alive") {
    // Not an interruption: the run ended because nothing was left to step.
    appendf(out, "  NO INSTANCE OK     %s (the file holds what was computed)\n", no_instance_ok_text(j).c_str());
  } else if (j.at("interrupted").get<bool>()) {
    appendf(out, "  INTERRUPTED        %s, after %lld of %lld steps (the file holds what was computed)\n",
            j.at("stop_reason").get<std::string>().c_str(),
            static_cast<long long>(j.at("steps").get<std::int64_t>()),
            static_cast<long long>(j.at("steps_planned").get<std::int64_t>()));
  }
  appendf(out, "  backend            %s\n", j.at("backend").get<std::string>().c_str());
  appendf(out, "  instances          %d: ok %d, assembly failed %d, diverged %d\n", j.at("instances").get<int>(),
          j.at("instances_ok").get<int>(), j.at("instances_assembly_failed").get<int>(),
          j.at("instances_diverged").get<int>());
  appendf(out, "  assembly           max |Phi| %.3e, max |Phi_q qdot| %.3e, at most %d Newton iterations\n",
          j.at("assembly_max_position_residual").get<double>(), j.at("assembly_max_velocity_residual").get<double>(),
          j.at("assembly_max_iterations").get<int>());
  appendf(out, "  assembly moved     positions by up to %.3e m and %.3e rad, velocities by up to %.3e m/s and %.3e rad/s\n",
          j.at("assembly_max_position_change_m").get<double>(), j.at("assembly_max_orientation_change_rad").get<double>(),
          j.at("assembly_max_velocity_change_m_s").get<double>(),
          j.at("assembly_max_angular_velocity_change_rad_s").get<double>());
  const json& frames = j.at("assembly_swept_frames");
  if (j.at("assembly_changed_values").get<int>() > 0 && !frames.empty())
    appendf(out, "                     %d given values of %d instances by more than 1 %%, as the sweep of %s%s moves "
            "the joints (/assembly/position_change)\n",
            j.at("assembly_changed_values").get<int>(), j.at("assembly_changed_instances").get<int>(),
            frames[0].get<std::string>().c_str(), frames.size() > 1 ? " and more frames" : "");
  const json& failed = j.at("failed_instances");
  const int n_failed = j.at("instances_assembly_failed").get<int>() + j.at("instances_diverged").get<int>();
  for (const json& f : failed) {
    const std::string message = f.at("message").get<std::string>();
    appendf(out, "  failed             instance %d: %s at t = %g s%s%s\n", f.at("instance").get<int>(),
            f.at("reason").get<std::string>().c_str(), f.at("time_s").get<double>(), message.empty() ? "" : ": ",
            message.c_str());
  }
  if (n_failed > static_cast<int>(failed.size()))
    appendf(out, "  failed             ... and %d more (/status, /status_reason in the output)\n",
            n_failed - static_cast<int>(failed.size()));
  for (const json& w : j.at("warnings")) appendf(out, "  WARNING            %s\n", w.get<std::string>().c_str());
  appendf(out, "  steps              %lld x dt %g s = %g s simulated, %lld frames recorded\n",
          static_cast<long long>(j.at("steps").get<std::int64_t>()), j.at("dt_s").get<double>(),
          j.at("sim_time_s").get<double>(), static_cast<long long>(j.at("frames").get<std::int64_t>()));
  {
    const json& lo = j.at("min_step_s");
    const json& hi = j.at("max_step_s");
    std::string range = "no step accepted";
    if (!lo.is_null() && !hi.is_null()) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "step %.4g .. %.4g s", lo.get<double>(), hi.get<double>());
      range = buf;
    }
    std::string tolerances;
    if (!j.at("rtol").is_null() && !j.at("atol").is_null()) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " (rtol %.3g, atol %.3g)", j.at("rtol").get<double>(), j.at("atol").get<double>());
      tolerances = buf;
    }
    appendf(out, "  integrator         %s%s: %lld accepted, %lld rejected steps (all instances), %s\n",
            j.at("integrator").get<std::string>().c_str(), tolerances.c_str(),
            static_cast<long long>(j.at("accepted_steps").get<std::int64_t>()),
            static_cast<long long>(j.at("rejected_steps").get<std::int64_t>()), range.c_str());
  }
  if (!j.at("error_estimate_position_m").is_null())
    appendf(out, "  error estimate     max %.3e m, %.3e rad at the end (Richardson against dt/2; /error_estimate)\n",
            j.at("error_estimate_position_m").get<double>(),
            j.at("error_estimate_orientation_rad").is_null() ? NAN : j.at("error_estimate_orientation_rad").get<double>());
  appendf(out, "  throughput         %.4g instance-steps/s (stepping + recording loop)\n",
          j.at("throughput_instance_steps_per_s").get<double>());
  appendf(out, "  wall time          %.3f s total, %.3f s in the step loop\n", j.at("wall_time_s").get<double>(),
          j.at("loop_wall_time_s").get<double>());
  if (j.at("instances_ok").get<int>() > 0) {
    appendf(out, "  max |Phi|          %.3e (ok instances, recorded frames)\n",
            j.at("max_constraint_violation").get<double>());
    const json& sources = j.at("energy_sources");
    if (sources.empty()) {
      const json& bound = j.at("energy_error_bound");
      if (bound.is_null())
        appendf(out, "  max energy error   %.3e relative, %.3e J absolute (ok instances; no bound for this integrator)\n",
                j.at("energy_drift_rel").get<double>(), j.at("energy_drift_abs_J").get<double>());
      else
        appendf(out, "  max energy error   %.3e relative, %.3e J absolute (ok instances; bound %.2e, %d beyond it)\n",
                j.at("energy_drift_rel").get<double>(), j.at("energy_drift_abs_J").get<double>(),
                bound.get<double>(), j.at("energy_check_flagged_instances").get<int>());
    } else {
      // Not an error: the work of these elements changes E (job/energy_check.hpp).
      std::string list;
      for (std::size_t k = 0; k < sources.size() && k < 3; ++k)
        list += (k ? ", " : "") + sources[k].get<std::string>();
      if (sources.size() > 3) list += ", ... (" + std::to_string(sources.size()) + " in all)";
      appendf(out, "  energy change      %.3e relative, %.3e J absolute (ok instances; not conserved: %s)\n",
              j.at("energy_drift_rel").get<double>(), j.at("energy_drift_abs_J").get<double>(), list.c_str());
      if (!j.at("energy_balance_rel").is_null()) {
        const json& bound = j.at("energy_error_bound");
        std::string checked = "no bound for this integrator";
        if (!bound.is_null()) {
          checked.clear();
          appendf(checked, "bound %.2e, %d beyond it", bound.get<double>(),
                  j.at("energy_balance_flagged_instances").get<int>());
        }
        appendf(out, "  energy balance     %.3e relative, %.3e J absolute (ok instances; %s; E(T) - E(0) - W, the "
                "work W of those elements up to %.3e J)\n",
                j.at("energy_balance_rel").get<double>(), j.at("energy_balance_abs_J").get<double>(), checked.c_str(),
                j.at("energy_work_abs_J").get<double>());
      }
    }
  } else {
    appendf(out, "  max |Phi|          n/a (no instance ok)\n");
    appendf(out, "  max energy drift   n/a (no instance ok)\n");
  }
  if (j.at("factorisation_recoveries").get<std::int64_t>() > 0)
    appendf(out, "  factorisation      %lld evaluations recovered from a rejected pivot by a larger shift\n",
            static_cast<long long>(j.at("factorisation_recoveries").get<std::int64_t>()));
  if (const json& removed = j.at("redundant_rows_removed"); !removed.empty()) {
    std::string list;
    for (const json& r : removed) list += (list.empty() ? "" : ", ") + r.get<std::string>();
    appendf(out, "  redundant rows     %zu removed (%s; solver.redundant_rows, docs/solver.md)\n", removed.size(),
            list.c_str());
  }
  if (j.at("refinement_unconverged_solves").get<std::int64_t>() > 0)
    appendf(out, "  refined solve      %lld solves in %d instances ended above the tolerance (largest relative error %.2e; "
                 "/refinement)\n",
            static_cast<long long>(j.at("refinement_unconverged_solves").get<std::int64_t>()),
            j.at("refinement_unconverged_instances").get<int>(),
            j.at("refinement_max_error").is_null() ? NAN : j.at("refinement_max_error").get<double>());
  if (j.at("singular_passage_instances").get<int>() > 0)
    appendf(out, "  rank watch         %d instances passed near a configuration where Phi_q loses rank (smallest relative "
                 "pivot %.2e; /refinement/min_pivot)\n",
            j.at("singular_passage_instances").get<int>(),
            j.at("min_relative_pivot").is_null() ? NAN : j.at("min_relative_pivot").get<double>());
  appendf(out, "  output             %s\n", j.at("out").get<std::string>().c_str());
  return out;
}

}  // namespace simphant
