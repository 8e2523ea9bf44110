#include "simphant/job/run_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace simphant {

namespace {
/// max that keeps a NaN once seen (a NaN must not hide in the summary).
double nan_max(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b); }
}  // namespace

RunStats::RunStats(int n_instances)
    : n_(n_instances),
      e0_(static_cast<std::size_t>(n_instances), 0.0),
      max_violation_(static_cast<std::size_t>(n_instances), 0.0),
      max_abs_drift_(static_cast<std::size_t>(n_instances), 0.0),
      max_ke_(static_cast<std::size_t>(n_instances), 0.0),
      drift_time_(static_cast<std::size_t>(n_instances), std::nan("")),
      e_last_(static_cast<std::size_t>(n_instances), std::nan("")) {}

void RunStats::add_frame(double t, const std::int8_t* status, const double* violation, const double* energy,
                         const double* kinetic) {
  for (int k = 0; k < n_; ++k) {
    if (status[k] != 0) continue;
    max_violation_[k] = nan_max(max_violation_[k], violation[k]);
    max_ke_[k] = nan_max(max_ke_[k], kinetic[k]);
    if (!have_e0_) {
      e0_[k] = energy[k];
    } else {
      const double drift = std::abs(energy[k] - e0_[k]);
      // The first frame after E(0) sets the time; a larger drift (or a first NaN) moves it.
      if (std::isnan(drift_time_[k]) || (!std::isnan(max_abs_drift_[k]) && !(drift <= max_abs_drift_[k])))
        drift_time_[k] = t;
      max_abs_drift_[k] = nan_max(max_abs_drift_[k], drift);
      e_last_[k] = energy[k];
    }
  }
  have_e0_ = true;
}

double RunStats::relative_drift(int k) const { return max_abs_drift_[k] / energy_scale(k); }

double RunStats::energy_scale(int k) const { return std::max({std::abs(e0_[k]), max_ke_[k], 1e-12}); }

double RunStats::energy_change(int k) const { return e_last_[k] - e0_[k]; }

double RunStats::drift_time(int k) const { return drift_time_[k]; }

void RunStats::restore(const Saved& saved) {
  const auto n = static_cast<std::size_t>(n_);
  if (saved.e0.size() != n || saved.max_violation.size() != n || saved.max_abs_drift.size() != n ||
      saved.max_ke.size() != n || saved.drift_time.size() != n)
    throw std::invalid_argument("RunStats::restore: the saved arrays do not have " + std::to_string(n_) + " instances");
  have_e0_ = saved.have_e0;
  e0_ = saved.e0;
  max_violation_ = saved.max_violation;
  max_abs_drift_ = saved.max_abs_drift;
  max_ke_ = saved.max_ke;
  drift_time_ = saved.drift_time;
  e_last_ = saved.e_last.size() == n ? saved.e_last : std::vector<double>(n, std::nan(""));
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
      s.max_rel_drift = nan_max(s.max_rel_drift, relative_drift(k));
    }
  }
  return s;
}

}  // namespace simphant
