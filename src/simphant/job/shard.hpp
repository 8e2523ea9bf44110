#pragma once
// Shards of a sampled design (README "Command line", `simphant run --shard K/N`): shard K
// of N runs the instances [K*I/N, (K+1)*I/N) of the I-instance design, sampled whole from
// the seed so that its instances are bit-identical to the same instances of the one-shot
// run, and records the slice in its file's root attributes (shard_index, shard_count,
// instance_offset, n_instances_total) for `simphant merge` (job/merge.hpp).
//
//   simphant::ShardSlice s = simphant::shard_slice(1, 4, 10);   // instances [2, 5)
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/job/job_options.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {

/// One shard's slice of an I-instance design.
struct ShardSlice {
  int index = 0;  ///< K, 0 <= K < N
  int count = 1;  ///< N
  int begin = 0;  ///< first global instance, floor(K*I/N)
  int end = 0;    ///< one past the last, floor((K+1)*I/N)
  int total = 0;  ///< I, the design's size
  int size() const { return end - begin; }
};

/// Parses "K/N" (decimal, 0 <= K < N). Throws SceneError("--shard", ...) naming the text
/// and the rule it breaks ("expected K/N ...", "K = 4 must be < N = 4").
ShardSlice parse_shard(const std::string& text);

/// The slice of shard `index` of `count` over `total` instances (64-bit arithmetic).
/// Throws SceneError("--shard", ...) when count < 1, index is outside [0, count), or the
/// slice would hold no instance (total < count).
ShardSlice shard_slice(int index, int count, int total);

/// The samples of instances [slice.begin, slice.end) of `all` (the whole design), with
/// first_instance = slice.begin so that messages name the global instance.
SweepSamples slice_samples(const SweepSamples& all, const ShardSlice& slice);

/// The options the memory guard of a shard's run judges (job/memory_estimate.hpp): `o`
/// with instances = the slice's size (the models, the simulator and the recorder hold the
/// slice; the whole design's sampled values, 8 bytes per value, are checked by
/// sample_sweep).
JobOptions shard_memory_options(const JobOptions& o, const ShardSlice& slice);

/// Adds the summary keys of a shard's run (run_summary.hpp): shard_index, shard_count,
/// instance_offset (the first global instance) and instances_total (the design's I).
void add_shard_summary(nlohmann::json& summary, const ShardSlice& slice);

}  // namespace simphant
