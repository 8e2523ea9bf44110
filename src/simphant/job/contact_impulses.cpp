#include "simphant/job/contact_impulses.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "simphant/sim/contact_frames.hpp"

namespace simphant {

bool ContactImpulses::applies(const Simulator& sim) {
  const ReductionLayout L = sim.reduction_layout();
  const Integrator integrator = sim.model().solver.integrator;
  return sim.model().contact_pair_count() > 0 && L.enabled(ReductionQuantity::Contacts) &&
         integrator != Integrator::Dopri5 && integrator != Integrator::Bdf;
}

ContactImpulses::ContactImpulses(const Simulator& sim, bool from_first)
    : n_(sim.n_instances()), pairs_(sim.model().contact_pair_count()), dt_(sim.dt()), from_first_(from_first) {
  const ReductionLayout L = sim.reduction_layout();
  if (!applies(sim)) throw std::logic_error("ContactImpulses: the run samples no contact forces every step");
  acc_size_ = L.size();
  // The sum slot of the first pair's normal_force channel (formulas/reductions.hpp: per
  // channel max, min, sum, sum of squares, step of the max, after the sample count).
  first_sum_ = 1 + kReductionSlots * L.offset[static_cast<int>(ReductionQuantity::Contacts)] + 2;
  acc_.resize(static_cast<std::size_t>(n_) * static_cast<std::size_t>(acc_size_));
  sum_.resize(static_cast<std::size_t>(n_) * static_cast<std::size_t>(pairs_));
  force_.resize(sum_.size());
  status_.resize(static_cast<std::size_t>(n_));
  status_time_.resize(static_cast<std::size_t>(n_));
}

void ContactImpulses::frame(const Simulator& sim, const double* contacts, double* out) {
  sim.get_reduction_state(acc_.data());
  sim.read_status(status_.data(), status_time_.data());
  const bool move_start = !(from_first_ && have_start_);
  for (int i = 0; i < n_; ++i)
    for (int p = 0; p < pairs_; ++p) {
      const std::size_t k = static_cast<std::size_t>(i) * pairs_ + static_cast<std::size_t>(p);
      const double S = acc_[static_cast<std::size_t>(i) * acc_size_ + first_sum_ +
                            static_cast<std::size_t>(kReductionSlots * kContactSummaryComponents * p)];
      const double F = contacts[k * kContactRecordComponents];
      out[k] = have_start_ ? dt_ * (S - sum_[k]) + 0.5 * dt_ * (F - force_[k]) : 0.0;
      if (status_[static_cast<std::size_t>(i)] != 0) out[k] = std::numeric_limits<double>::quiet_NaN();
      if (move_start) {
        sum_[k] = S;
        force_[k] = F;
      }
    }
  have_start_ = true;
}

std::vector<double> ContactImpulses::start() const {
  if (!have_start_) return {};
  std::vector<double> s;
  s.reserve(2 * sum_.size());
  for (int i = 0; i < n_; ++i) {
    const auto row = static_cast<std::ptrdiff_t>(i) * pairs_;
    s.insert(s.end(), sum_.begin() + row, sum_.begin() + row + pairs_);
    s.insert(s.end(), force_.begin() + row, force_.begin() + row + pairs_);
  }
  return s;
}

void ContactImpulses::restore(const std::vector<double>& start) {
  if (start.size() != 2 * sum_.size())
    throw std::invalid_argument("contact impulses: the checkpoint holds " + std::to_string(start.size()) +
                                " numbers of their last frame, the rebuilt run needs " +
                                std::to_string(2 * sum_.size()));
  for (int i = 0; i < n_; ++i)
    for (int p = 0; p < pairs_; ++p) {
      const std::size_t k = static_cast<std::size_t>(i) * pairs_ + static_cast<std::size_t>(p);
      sum_[k] = start[static_cast<std::size_t>(i) * 2 * pairs_ + static_cast<std::size_t>(p)];
      force_[k] = start[static_cast<std::size_t>(i) * 2 * pairs_ + static_cast<std::size_t>(pairs_ + p)];
    }
  have_start_ = true;
}

}  // namespace simphant
