#include "run_stats.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>

namespace simphant::cli {

namespace {
/// max that keeps a NaN once seen (a NaN must not hide in the summary).
double nan_max(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b); }
}  // namespace

RunStats::RunStats(int n_instances)
    : n_(n_instances),
      e0_(static_cast<std::size_t>(n_instances), 0.0),
      max_violation_(static_cast<std::size_t>(n_instances), 0.0),
      max_abs_drift_(static_cast<std::size_t>(n_instances), 0.0),
      max_ke_(static_cast<std::size_t>(n_instances), 0.0) {}

void RunStats::add_frame(const double* violation, const double* energy, const double* kinetic) {
  for (int k = 0; k < n_; ++k) {
    max_violation_[k] = nan_max(max_violation_[k], violation[k]);
    max_ke_[k] = nan_max(max_ke_[k], kinetic[k]);
    if (!have_e0_) {
      e0_[k] = energy[k];
    } else {
      max_abs_drift_[k] = nan_max(max_abs_drift_[k], std::abs(energy[k] - e0_[k]));
    }
  }
  have_e0_ = true;
}

RunStats::Summary RunStats::reduce(const std::vector<std::int8_t>& status) const {
  Summary s;
  s.n_instances = n_;
  for (int k = 0; k < n_; ++k) {
    if (status[k] == 1) {
      ++s.n_assembly_failed;
    } else if (status[k] == 2) {
      ++s.n_diverged;
    } else {
      ++s.n_ok;
      s.max_violation = nan_max(s.max_violation, max_violation_[k]);
      s.max_abs_drift = nan_max(s.max_abs_drift, max_abs_drift_[k]);
      s.max_rel_drift = nan_max(s.max_rel_drift, max_abs_drift_[k] / std::max({std::abs(e0_[k]), max_ke_[k], 1e-12}));
    }
  }
  return s;
}

void print_summary(const RunReport& r, const RunStats::Summary& s) {
  std::printf("simphant run: %s\n", r.scene_file.c_str());
  if (r.stop_signal != 0)
    std::printf("  INTERRUPTED        by %s after %lld of %lld steps (file holds what was computed)\n",
                r.stop_signal == SIGINT ? "SIGINT" : r.stop_signal == SIGTERM ? "SIGTERM" : "a signal",
                static_cast<long long>(r.steps), static_cast<long long>(r.steps_planned));
  std::printf("  backend            %s\n", r.backend.c_str());
  std::printf("  instances          %d: ok %d, assembly failed %d, diverged %d\n", s.n_instances, s.n_ok,
              s.n_assembly_failed, s.n_diverged);
  std::printf("  assembly           max |Phi| %.3e, max |Phi_q qdot| %.3e, at most %d Newton iterations\n",
              r.assembly.max_position_residual, r.assembly.max_velocity_residual, r.assembly.max_iterations);
  std::printf("  steps              %lld x dt %g s = %g s simulated, %lld frames recorded\n",
              static_cast<long long>(r.steps), r.dt, r.sim_time, static_cast<long long>(r.frames));
  const double rate = r.loop_wall_s > 0 ? static_cast<double>(r.steps) * s.n_instances / r.loop_wall_s : 0.0;
  std::printf("  throughput         %.4g instance-steps/s (stepping + recording loop)\n", rate);
  std::printf("  wall time          %.3f s total, %.3f s in the step loop\n", r.wall_s, r.loop_wall_s);
  if (s.n_ok > 0) {
    std::printf("  max |Phi|          %.3e (ok instances, recorded frames)\n", s.max_violation);
    std::printf("  max energy drift   %.3e relative, %.3e J absolute (ok instances)\n", s.max_rel_drift,
                s.max_abs_drift);
  } else {
    std::printf("  max |Phi|          n/a (no instance ok)\n");
    std::printf("  max energy drift   n/a (no instance ok)\n");
  }
  std::printf("  output             %s\n", r.out_file.c_str());
  std::fflush(stdout);
}

}  // namespace simphant::cli
