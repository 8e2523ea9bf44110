#pragma once
// Private to scene/: the names of one section of a scene (bodies, joints, forces,
// drivers) -> their indices, so that a compile stage's duplicate checks and name
// references cost one hash lookup each. (Model::body_index and joint_index search
// linearly: once per reference, that made a scene of 20000 bodies take seconds to compile.)
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace simphant::scene_detail {

class NameIndex {
 public:
  NameIndex() = default;
  /// The names of `named` (items with a std::string `name`: Model::bodies, Model::joints)
  /// -> their positions. Precondition: the names are unique (compiled and checked).
  template <class T>
  explicit NameIndex(const std::vector<T>& named) {
    map_.reserve(named.size());
    for (std::size_t k = 0; k < named.size(); ++k) map_.emplace(named[k].name, static_cast<int>(k));
  }
  /// Adds name -> k; false, and nothing added, when the name is already there.
  bool insert(const std::string& name, int k) { return map_.emplace(name, k).second; }
  /// The index of `name`, or `missing` when it is not there.
  int find(const std::string& name, int missing) const {
    const auto it = map_.find(name);
    return it == map_.end() ? missing : it->second;
  }

 private:
  std::unordered_map<std::string, int> map_;
};

/// The body named by obj[key] (a string): kGround for "ground", else its index in
/// `bodies` (NameIndex of Model::bodies). Errors: a missing key, not a string, or
/// "<path>/<key>: unknown body \"name\"".
int body_ref(const nlohmann::json& obj, const std::string& path, const char* key, const NameIndex& bodies);

}  // namespace simphant::scene_detail
