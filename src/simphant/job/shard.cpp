// Shard slices: parse "K/N", the slice [K*I/N, (K+1)*I/N) and the samples it keeps
// (shard.hpp).
#include "simphant/job/shard.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>

namespace simphant {

namespace {

/// A decimal integer in [0, INT_MAX] filling all of `s`, or -1.
long long parse_count(const std::string& s) {
  if (s.empty() || s.size() > 10) return -1;
  for (char c : s)
    if (c < '0' || c > '9') return -1;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), nullptr, 10);
  return errno == 0 && v <= std::numeric_limits<int>::max() ? v : -1;
}

}  // namespace

ShardSlice parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const long long k = slash == std::string::npos ? -1 : parse_count(text.substr(0, slash));
  const long long n = slash == std::string::npos ? -1 : parse_count(text.substr(slash + 1));
  if (k < 0 || n < 0)
    throw SceneError("--shard", "expected K/N with integers 0 <= K < N, e.g. 0/4 (got '" + text + "')");
  if (n < 1) throw SceneError("--shard", "N must be >= 1 (got '" + text + "')");
  if (k >= n)
    throw SceneError("--shard", "K = " + std::to_string(k) + " must be < N = " + std::to_string(n) +
                                    " (shards are numbered 0 .. N-1; got '" + text + "')");
  ShardSlice s;
  s.index = static_cast<int>(k);
  s.count = static_cast<int>(n);
  return s;
}

ShardSlice shard_slice(int index, int count, int total) {
  if (count < 1) throw SceneError("--shard", "N must be >= 1 (got " + std::to_string(count) + ")");
  if (index < 0 || index >= count)
    throw SceneError("--shard", "K = " + std::to_string(index) + " must be in 0 .. N-1 = " + std::to_string(count - 1));
  if (total < count)
    throw SceneError("--shard", std::to_string(count) + " shards of a design of " + std::to_string(total) +
                                    (total == 1 ? " instance" : " instances") +
                                    ": every shard needs at least one instance (use N <= " + std::to_string(total) + ")");
  ShardSlice s;
  s.index = index;
  s.count = count;
  s.total = total;
  const auto at = [&](long long k) { return static_cast<int>(k * total / count); };
  s.begin = at(index);
  s.end = at(static_cast<long long>(index) + 1);
  return s;
}

SweepSamples slice_samples(const SweepSamples& all, const ShardSlice& slice) {
  SweepSamples s;
  s.n_instances = slice.size();
  s.paths = all.paths;
  s.json_pointers = all.json_pointers;
  s.first_instance = all.first_instance + slice.begin;
  s.values.reserve(all.values.size());
  for (const std::vector<double>& v : all.values) s.values.emplace_back(v.begin() + slice.begin, v.begin() + slice.end);
  return s;
}

JobOptions shard_memory_options(const JobOptions& o, const ShardSlice& slice) {
  JobOptions m = o;
  if (slice.count > 1) m.instances = slice.size();
  return m;
}

void add_shard_summary(nlohmann::json& summary, const ShardSlice& slice) {
  summary["shard_index"] = slice.index;
  summary["shard_count"] = slice.count;
  summary["instance_offset"] = slice.begin;
  summary["instances_total"] = slice.total;
}

}  // namespace simphant
