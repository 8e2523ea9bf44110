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

void RunStats::restore(const Saved& saved) {
  const auto n = static_cast<std::size_t>(n_);
  if (saved.e0.size() != n || saved.max_violation.size() != n || saved.max_abs_drift.size() != n ||
      saved.max_ke.size() != n)
    throw std::invalid_argument("RunStats::restore: the saved arrays do not have " + std::to_string(n_) + " instances");
  have_e0_ = saved.have_e0;
  e0_ = saved.e0;
  max_violation_ = saved.max_violation;
  max_abs_drift_ = saved.max_abs_drift;
  max_ke_ = saved.max_ke;
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

}  // namespace simphant
