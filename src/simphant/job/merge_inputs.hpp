#pragma once
// The checks of `simphant merge` (job/merge.hpp) and what they learn: the shard files
// opened and ordered by their slices, and each dataset's instance axis.
#include <cstddef>
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"
#include "simphant/job/merge.hpp"

namespace simphant::merge_detail {

/// One shard file, open read-only.
struct ShardFile {
  std::string path;
  h5::Handle file;
  long long offset = 0;  ///< the design's index of its instance 0 (instance_offset)
  long long n = 0;       ///< its instances (n_instances)
  long long total = 0;   ///< the design's I (n_instances_total; n for a file without shard attributes)
  double wall_time_s = 0;
  long long frames = 0;       ///< its recorded frames (root attribute frames)
  /// It ended when none of its instances was left ok (stop_reason "no instance alive"),
  /// before t_end: it holds fewer frames than a shard that ran to the end.
  bool ended_all_failed = false;
  /// Its first frames that are the merged file's (its /time agrees with the reference
  /// shard's up to there); the merged file's later frames of its instances are NaN.
  long long frames_used = 0;
};

/// A dataset of the shards and where its instances lie.
struct MergeDataset {
  std::string path;    ///< e.g. "state", "params/bodies.crank.mass"
  int instance_axis;   ///< 1 for a (T, I, ...) dataset, 0 for an (I, ...) one, -1 for one without (/time)
};

struct MergePlan {
  std::vector<ShardFile> shards;         ///< ordered by offset; they tile [0, total)
  std::vector<h5::ObjectEntry> objects;  ///< the first shard's groups and datasets
  std::vector<MergeDataset> datasets;
  long long total = 0;                   ///< I
  long long frames = 0;                  ///< T, the reference shard's
  /// Index in `shards` of the shard whose /time, frames and stop_reason the merged file
  /// takes: the one that recorded the most frames (one that ran to the end when there is one).
  std::size_t reference = 0;
};

/// Opens and checks the shards of `o` (every refusal of merge_shards is a MergeError
/// thrown here), and OUT against them. Nothing is written.
MergePlan plan_merge(const MergeOptions& o);

}  // namespace simphant::merge_detail
