#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace simphant::cli {

ProgressBar::ProgressBar(std::int64_t total_steps, int n_instances)
    : total_(total_steps > 0 ? total_steps : 1),
      n_instances_(n_instances),
      enabled_(isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_(start_ - std::chrono::seconds(1)) {}

void ProgressBar::update(std::int64_t steps_done, double sim_time, bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double frac = static_cast<double>(steps_done) / static_cast<double>(total_);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(steps_done) * n_instances_ / elapsed : 0.0;
  const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(frac * kWidth + 0.5);
  std::string bar(static_cast<std::size_t>(filled), '=');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %5.1f%%  t = %-10.4g s  %.3g inst-steps/s  ETA %.0f s   ", bar.c_str(),
               100.0 * frac, sim_time, rate, eta);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\r%*s\r", 100, "");
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace simphant::cli
