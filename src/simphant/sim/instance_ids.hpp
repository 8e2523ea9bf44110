#pragma once
// InstanceIds: checks the instance lists of the per-instance calls (Backend::get_state,
// set_state, reset, set_models, set_inputs(ids, ...); Simulator's) without allocating
// after creation, so that those calls can sit in a step loop.
#include <cstdint>
#include <vector>

namespace simphant {

class InstanceIds {
 public:
  explicit InstanceIds(int n_instances);
  int n_instances() const { return n_; }
  /// Checks `count` ids for a batch of n_instances: ids == nullptr means every instance
  /// in order (count must then be n_instances); otherwise 0 <= count <= n_instances and
  /// each ids[k] in [0, n_instances), none repeated. Throws std::invalid_argument whose
  /// message starts with `call` and names the argument ("reset: ids[2] = 7 is out of
  /// range [0, 5)"). Not thread-safe (a scratch array marks the ids seen).
  void check(const char* call, const int* ids, int count) const;
  /// The instance of row k: ids[k], or k when ids is null.
  static int at(const int* ids, int k) { return ids ? ids[k] : k; }

 private:
  int n_;
  mutable std::vector<std::uint32_t> seen_;  ///< (n) stamp_ when the id was seen in this check
  mutable std::uint32_t stamp_ = 0;
};

}  // namespace simphant
