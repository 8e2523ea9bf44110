#include "simphant/sim/instance_ids.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simphant {

InstanceIds::InstanceIds(int n_instances) : n_(n_instances), seen_(static_cast<std::size_t>(std::max(n_instances, 0)), 0) {}

void InstanceIds::check(const char* call, const int* ids, int count) const {
  const std::string c(call);
  if (!ids) {
    if (count != n_)
      throw std::invalid_argument(c + ": count = " + std::to_string(count) + " with ids = null (every instance): must be " +
                                  "n_instances = " + std::to_string(n_));
    return;
  }
  if (count < 0) throw std::invalid_argument(c + ": count = " + std::to_string(count) + " must be >= 0");
  if (count > n_)
    throw std::invalid_argument(c + ": count = " + std::to_string(count) + " exceeds n_instances = " + std::to_string(n_) +
                                " (ids must not repeat)");
  if (++stamp_ == 0) {  // wrapped: forget every old mark
    std::fill(seen_.begin(), seen_.end(), 0u);
    stamp_ = 1;
  }
  for (int k = 0; k < count; ++k) {
    const int i = ids[k];
    if (i < 0 || i >= n_)
      throw std::invalid_argument(c + ": ids[" + std::to_string(k) + "] = " + std::to_string(i) + " is out of range [0, " +
                                  std::to_string(n_) + ")");
    if (seen_[static_cast<std::size_t>(i)] == stamp_)
      throw std::invalid_argument(c + ": ids[" + std::to_string(k) + "] = " + std::to_string(i) +
                                  " repeats an earlier id (each instance at most once)");
    seen_[static_cast<std::size_t>(i)] = stamp_;
  }
}

}  // namespace simphant
