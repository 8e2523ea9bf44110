#pragma once
// `simphant merge OUT SHARD...` as a library call: the shard files of one design
// (`simphant run --shard K/N`, job/shard.hpp) become one file that reads like the
// one-shot run's (README "Output (HDF5)": the same datasets, shapes, types and values bit
// for bit, n_instances = I, no shard attributes).
//
//   simphant::MergeOptions m;
//   m.out = "study.h5";
//   m.shards = {"study.0.h5", "study.1.h5", "study.2.h5"};
//   nlohmann::json s = simphant::merge_shards(m);   // s["instances"], s["seconds"], ...
//
// By default every dataset with an instance axis is an HDF5 virtual dataset over the
// shards (H5Pset_virtual; the shards' data is not copied): its source files are named
// relative to OUT's folder, so OUT and the shards move together but the shards must stay
// where they are relative to OUT. A source that cannot be found reads as the fill value,
// NaN (floating point) or -1 (integers), never as plausible numbers. `copy` writes real
// datasets instead (chunked as a run's), a self-contained file.
//
// /time and the group and root attributes are copied from the shard holding instance 0
// (so a solver setting that the sweep varies is instance 0's, as in a run); wall_time_s is
// the largest of the shards' (they ran side by side), scene_file that shard's.
// A shard whose instances all failed ended there ("no instance alive", fewer frames): /time,
// frames, stop_reason and interrupted are those of the shard that recorded the most frames,
// and the ended shard's instances read NaN in the frames after its end (where a one-shot
// run records their frozen states).
// Exceptions to "bit for bit": a virtual dataset's storage layout and limits (maxshape)
// differ from a run's chunked, extendible datasets, not its values.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simphant {

struct MergeOptions {
  std::string out;                  ///< the merged file (written through a temporary file, job/output_file.hpp)
  std::vector<std::string> shards;  ///< shard files, in any order
  bool copy = false;                ///< real datasets instead of virtual ones
  /// [B] of OUT's dataset that `copy` reads and writes at a time (a block of frames, or of
  /// instances of an (I) dataset; at least one frame); its chunk cache holds 4 blocks.
  std::size_t block_bytes = std::size_t{32} << 20;
};

/// Bad input of a merge (exit code 2): the message names the shard file(s), the attribute
/// or dataset that differs and both values, the instance range that is missing or held
/// twice, or the shard that did not complete.
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Checks the shards, then writes `out`. Refused with MergeError, before anything is
/// written: no shard; OUT is one of the shards; a shard that is missing, not readable as
/// HDF5 or not a simphant run file; a shard that did not complete (interrupted = 1, its
/// stop_reason, which is named, other than "no instance alive"); shards that differ in
/// version, scene (its text), seed, dt, t_end, record_every, the other solver settings
/// (except those the scene's sweep varies: a file records its first instance's), backend,
/// body or joint names, the design's size, frames or /time (a shard that ended with no
/// instance alive: /time other than a prefix of the longest shard's, up to its own last
/// frame), or in their datasets (names, types, shapes); slices
/// that leave instances of [0, I) out or hold one twice (the range is named).
/// A file without shard attributes counts as the whole design (shard 0 of 1).
/// Then takes OUT's lock (OutputBusy when another process holds it) and writes OUT's
/// temporary file, renamed onto OUT at the end: an existing OUT is untouched until then
/// and on any failure (std::runtime_error / h5::H5Error naming the file).
/// Returns {"out", "shards", "instances", "frames", "mode" ("virtual" | "copy"),
/// "bytes" (the instance datasets' data, [B]), "seconds" (wall time of the merge, [s])}.
nlohmann::json merge_shards(const MergeOptions& options);

}  // namespace simphant
