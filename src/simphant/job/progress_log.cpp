#include "simphant/job/progress_log.hpp"

#include <algorithm>

#include "simphant/log/log.hpp"

namespace simphant {

ProgressLog::ProgressLog(double interval_s)
    : interval_s_(std::max(0.0, interval_s)), start_(Clock::now()), last_(start_) {}

void ProgressLog::update(const JobProgress& p) {
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_s_) return;
  last_ = now;
  const double total = static_cast<double>(std::max<std::int64_t>(1, p.steps_total));
  const double frac = static_cast<double>(p.steps_done) / total;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  logger().info("step {}/{} ({:.0f}%), t = {:.4g} s, ETA {:.0f} s", p.steps_done, p.steps_total, 100.0 * frac,
                p.sim_time, eta);
}

}  // namespace simphant
