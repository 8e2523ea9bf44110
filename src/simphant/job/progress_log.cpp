#include "simphant/job/progress_log.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "simphant/log/log.hpp"

namespace simphant {

namespace {

/// The fraction done and the remaining seconds at the rate since `elapsed` began.
std::pair<double, double> fraction_and_eta(const JobProgress& p, double elapsed) {
  const double total = static_cast<double>(std::max<std::int64_t>(1, p.steps_total));
  const double frac = static_cast<double>(p.steps_done) / total;
  return {frac, frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0};
}

}  // namespace

ProgressLog::ProgressLog(double interval_s, bool lines, const std::string& records_file)
    : interval_s_(std::max(0.0, interval_s)), lines_(lines), records_path_(records_file), start_(Clock::now()),
      last_(start_) {
  if (records_file.empty()) return;
  records_.open(records_file, std::ios::app);
  if (!records_)
    throw std::runtime_error("progress file " + records_file + ": cannot open it for appending: " + std::strerror(errno));
}

void ProgressLog::update(const JobProgress& p) {
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_s_) return;
  last_ = now;
  const auto [frac, eta] = fraction_and_eta(p, std::chrono::duration<double>(now - start_).count());
  if (lines_)
    logger().info("step {}/{} ({:.0f}%), t = {:.4g} s, ETA {:.0f} s", p.steps_done, p.steps_total, 100.0 * frac,
                  p.sim_time, eta);
  record(p, now, eta);
}

void ProgressLog::finish(const JobProgress& p) {
  const auto now = Clock::now();
  record(p, now, fraction_and_eta(p, std::chrono::duration<double>(now - start_).count()).second);
}

void ProgressLog::record(const JobProgress& p, Clock::time_point now, double eta) {
  if (!records_.is_open()) return;
  const double total = static_cast<double>(std::max<std::int64_t>(1, p.steps_total));
  const nlohmann::json r = {{"steps_done", p.steps_done},
                            {"steps_total", p.steps_total},
                            {"progress", static_cast<double>(p.steps_done) / total},
                            {"sim_time_s", p.sim_time},
                            {"eta_s", eta},
                            {"wall_s", std::chrono::duration<double>(now - start_).count()},
                            {"instances", p.n_instances}};
  records_ << r.dump() << '\n';
  records_.flush();
  // A record that cannot be written (a full disk) is the caller's loss, not the run's.
  if (!records_) {
    logger().warn("progress file {}: a record could not be written; no more are", records_path_);
    records_.close();
  }
}

}  // namespace simphant
