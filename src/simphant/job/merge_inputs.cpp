// plan_merge: every check of `simphant merge` before anything is written (merge.hpp).
#include "simphant/job/merge_inputs.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "simphant/io/h5_dims.hpp"

namespace simphant::merge_detail {

namespace {

namespace fs = std::filesystem;

/// Root attributes every run file has (io/recorder.hpp).
const char* const kRequired[] = {"scene", "version", "seed", "n_instances", "frames", "interrupted", "stop_reason",
                                 "wall_time_s"};

/// Root attributes whose values the shards of one design share (besides the design's size).
/// output_compression is not among them: the deflate level changes how the data are
/// stored, not the data (HDF5 filters are lossless).
const char* const kAgree[] = {"version",      "scene",          "seed",           "dt",
                              "t_end",        "record_every",   "baumgarte_alpha", "baumgarte_beta",
                              "tikhonov_epsilon", "violation_bound", "backend",   "body_names",
                              "joint_names",  "output_datasets", "output_frames",
                              "output_reductions", "sweep_mode", "saltelli_base",
                              "saltelli_second_order", "sweep_design_crc64", "integrator",
                              "projection",   "auto_projection_pivot"};

/// The stop_reason of a run that ended because none of its instances was left ok.
const char* const kNoInstanceAlive = "no instance alive";

std::string quote(const std::string& s) { return "'" + s + "'"; }

/// "11" and "12" for short values; for long ones (the scene text) where they part.
std::string describe_difference(const std::string& a_name, const std::string& a, const std::string& b_name,
                                const std::string& b) {
  if (a.size() <= 80 && b.size() <= 80) return a_name + " has " + a + ", " + b_name + " has " + b;
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const std::size_t from = i > 20 ? i - 20 : 0;
  return a_name + " and " + b_name + " differ from character " + std::to_string(i) + " (" +
         quote(a.substr(from, 50)) + " vs " + quote(b.substr(from, 50)) + ")";
}

long long attr_int(hid_t f, const char* name) { return static_cast<long long>(h5::read_attr_double(f, name)); }

ShardFile open_shard(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw MergeError("shard " + path + ": does not exist");
  if (!fs::is_regular_file(path, ec)) throw MergeError("shard " + path + ": is not a regular file");
  ShardFile s;
  s.path = path;
  try {
    s.file = h5::open_file_readonly(path);
  } catch (const h5::H5Error& e) {
    throw MergeError("shard " + path + ": cannot be read as HDF5 (" + e.what() + ")");
  }
  const hid_t f = s.file.id();
  for (const char* name : kRequired)
    if (!h5::attr_exists(f, name))
      throw MergeError("shard " + path + ": has no root attribute '" + name + "': not a file of `simphant run`");
  const std::string reason = h5::read_attr_string(f, "stop_reason");
  // A shard whose instances all failed ends there (interrupted = 1): its file is complete.
  s.ended_all_failed = reason == kNoInstanceAlive;
  if ((attr_int(f, "interrupted") != 0 || reason != "completed") && !s.ended_all_failed)
    throw MergeError("shard " + path + ": did not complete (interrupted = " + std::to_string(attr_int(f, "interrupted")) +
                     ", stop_reason " + quote(reason) + "): run that shard again");
  s.n = attr_int(f, "n_instances");
  s.frames = attr_int(f, "frames");
  s.wall_time_s = h5::read_attr_double(f, "wall_time_s");
  if (h5::attr_exists(f, "shard_count")) {
    for (const char* name : {"shard_index", "instance_offset", "n_instances_total"})
      if (!h5::attr_exists(f, name))
        throw MergeError("shard " + path + ": has shard_count but no root attribute '" + name + "'");
    s.offset = attr_int(f, "instance_offset");
    s.total = attr_int(f, "n_instances_total");
  } else {
    s.offset = 0;
    s.total = s.n;
  }
  if (s.n < 1 || s.offset < 0 || s.offset + s.n > s.total)
    throw MergeError("shard " + path + ": instance_offset " + std::to_string(s.offset) + " + n_instances " +
                     std::to_string(s.n) + " lies outside the design of " + std::to_string(s.total) + " instances");
  return s;
}

std::string range(long long a, long long b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

/// Refuses slices that leave instances out or hold one twice, naming every such range.
void check_coverage(const std::vector<ShardFile>& shards, long long total) {
  std::vector<std::string> problems;
  long long pos = 0;
  const ShardFile* reach = nullptr;  // the shard whose slice ends at pos
  for (const ShardFile& s : shards) {
    if (s.offset > pos) problems.push_back("instances " + range(pos, s.offset) + " are in no shard given");
    if (s.offset < pos)
      problems.push_back("instances " + range(s.offset, std::min(pos, s.offset + s.n)) + " are in both " + reach->path +
                         " and " + s.path);
    if (s.offset + s.n > pos) {
      pos = s.offset + s.n;
      reach = &s;
    }
  }
  if (pos < total) problems.push_back("instances " + range(pos, total) + " are in no shard given");
  if (problems.empty()) return;
  std::string msg = "the shards do not cover the design's " + std::to_string(total) + " instances exactly once: ";
  for (std::size_t k = 0; k < problems.size(); ++k) msg += (k > 0 ? "; " : "") + problems[k];
  throw MergeError(msg);
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string s = "(";
  for (std::size_t k = 0; k < dims.size(); ++k) s += (k > 0 ? ", " : "") + std::to_string(dims[k]);
  return s + ")";
}

/// The dataset's instance axis in a run file (io/recorder.hpp): the axis attached to the
/// dimension "instance" (-1 when its axes name other dimensions: /time, /body, ...); in a
/// file without dimension scales, from its shape: a dataset extendible along T has its
/// instances on axis 1, unless it is (T) alone; a fixed one on axis 0.
int instance_axis(hid_t file, const std::string& path, const h5::DatasetShape& shape) {
  if (shape.dims.empty()) return -1;
  const std::vector<std::string> dims = h5::dimension_names(file, path);
  bool named = false;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == "instance") return static_cast<int>(k);
    named = named || !dims[k].empty();
  }
  if (named) return -1;
  if (shape.extendible()) return shape.dims.size() >= 2 ? 1 : -1;
  return 0;
}

/// Whether the dataset's axis 0 is the frame axis T (extendible: /time and the frame
/// datasets, io/recorder.hpp).
bool frame_axis(const h5::DatasetShape& shape) { return shape.extendible() && !shape.dims.empty(); }

void check_datasets(MergePlan& plan) {
  const ShardFile& first = plan.shards[plan.reference];
  plan.objects = h5::list_objects(first.file.id());
  for (const ShardFile& s : plan.shards) {
    const std::vector<h5::ObjectEntry> objects = h5::list_objects(s.file.id());
    for (const h5::ObjectEntry& o : plan.objects) {
      auto it = std::find_if(objects.begin(), objects.end(), [&](const h5::ObjectEntry& e) { return e.path == o.path; });
      if (it == objects.end() || it->group != o.group)
        throw MergeError("shards differ in their datasets: /" + o.path + " is in " + first.path + " but not in " + s.path);
    }
    for (const h5::ObjectEntry& e : objects) {
      auto it = std::find_if(plan.objects.begin(), plan.objects.end(),
                             [&](const h5::ObjectEntry& o) { return e.path == o.path; });
      if (it == plan.objects.end())
        throw MergeError("shards differ in their datasets: /" + e.path + " is in " + s.path + " but not in " + first.path);
    }
  }
  for (const h5::ObjectEntry& o : plan.objects) {
    if (o.group) continue;
    const h5::DatasetShape ref = h5::dataset_shape(first.file.id(), o.path);
    const int axis = instance_axis(first.file.id(), o.path, ref);
    plan.datasets.push_back({o.path, axis});
    std::vector<unsigned char> ref_bytes, bytes;
    const bool same_bits = axis < 0 && !frame_axis(ref) && H5Tget_class(ref.file_type.id()) != H5T_STRING;
    if (same_bits) {
      h5::Handle d(H5Dopen2(first.file.id(), o.path.c_str(), H5P_DEFAULT), H5Dclose);
      if (!d.valid()) throw MergeError("shard " + first.path + ": cannot open /" + o.path);
      h5::read_block(d.id(), ref, std::vector<hsize_t>(ref.dims.size(), 0), ref.dims, ref_bytes);
    }
    for (const ShardFile& s : plan.shards) {
      const h5::DatasetShape sh = h5::dataset_shape(s.file.id(), o.path);
      if (H5Tequal(sh.file_type.id(), ref.file_type.id()) <= 0)
        throw MergeError("shards differ in the type of /" + o.path + ": " + first.path + " and " + s.path);
      bool same = sh.dims.size() == ref.dims.size() && instance_axis(s.file.id(), o.path, sh) == axis &&
                  frame_axis(sh) == frame_axis(ref);
      for (std::size_t k = 0; same && k < sh.dims.size(); ++k) {
        if (static_cast<int>(k) == axis) continue;
        // T: the shard's own frames (fewer in a shard whose instances all failed)
        const hsize_t expected = k == 0 && frame_axis(ref) ? static_cast<hsize_t>(s.frames) : ref.dims[k];
        if (sh.dims[k] != expected) same = false;
      }
      if (!same)
        throw MergeError("shards differ in the shape of /" + o.path + ": " +
                         describe_difference(first.path, shape_text(ref.dims), s.path, shape_text(sh.dims)));
      if (axis >= 0 && sh.dims[static_cast<std::size_t>(axis)] != static_cast<hsize_t>(s.n))
        throw MergeError("shard " + s.path + ": /" + o.path + " " + shape_text(sh.dims) + " does not hold its " +
                         std::to_string(s.n) + " instances along axis " + std::to_string(axis));
      if (axis < 0 && H5Tget_class(ref.file_type.id()) == H5T_STRING) {  // labels (/body, ...): the same text
        if (h5::read_strings(s.file.id(), o.path) != h5::read_strings(first.file.id(), o.path))
          throw MergeError("shards differ in /" + o.path + ": " + first.path + " and " + s.path);
      } else if (same_bits && &s != &first) {  // the same in every shard, bit for bit
        h5::Handle d(H5Dopen2(s.file.id(), o.path.c_str(), H5P_DEFAULT), H5Dclose);
        if (!d.valid()) throw MergeError("shard " + s.path + ": cannot open /" + o.path);
        const std::vector<hsize_t> start(sh.dims.size(), 0);
        h5::read_block(d.id(), sh, start, sh.dims, bytes);
        if (bytes != ref_bytes) {
          std::size_t at = 0;
          while (at < bytes.size() && bytes[at] == ref_bytes[at]) ++at;
          throw MergeError("shards differ in /" + o.path + " (element " + std::to_string(at / sh.element_size) +
                           " is not the same bits in " + first.path + " and " + s.path + ")");
        }
      }
    }
  }
}

/// The reference shard (MergePlan::reference): the most frames; among those one that ran to
/// the end, else (every shard's instances failed) the one whose last frame is latest.
std::size_t reference_shard(const std::vector<ShardFile>& shards) {
  auto last_time = [](const ShardFile& s) {
    if (!h5::exists(s.file.id(), "time") || s.frames < 1) return -std::numeric_limits<double>::infinity();
    return h5::read_doubles(s.file.id(), "time").back();
  };
  std::size_t best = 0;
  for (std::size_t k = 1; k < shards.size(); ++k) {
    const ShardFile &a = shards[k], &b = shards[best];
    if (a.frames != b.frames) {
      if (a.frames > b.frames) best = k;
    } else if (a.ended_all_failed != b.ended_all_failed) {
      if (!a.ended_all_failed) best = k;
    } else if (a.ended_all_failed && last_time(a) > last_time(b)) {
      best = k;
    }
  }
  return best;
}

/// The frames of each shard that the merged file takes (ShardFile::frames_used): all of a
/// shard that ran to the end, whose /time must be the reference's bit for bit; a shard
/// whose instances all failed ended early, its /time the reference's up to its last frame,
/// which may lie off the reference's record points (the state the run ended on) and is
/// then left out.
void check_frames(MergePlan& plan) {
  const ShardFile& ref = plan.shards[plan.reference];
  plan.frames = ref.frames;
  const std::vector<double> ref_time = h5::read_doubles(ref.file.id(), "time");
  for (ShardFile& s : plan.shards) {
    if (!s.ended_all_failed && s.frames != ref.frames)
      throw MergeError("shards differ in 'frames': " + describe_difference(ref.path, std::to_string(ref.frames), s.path,
                                                                            std::to_string(s.frames)));
    const std::vector<double> time = h5::read_doubles(s.file.id(), "time");
    std::size_t common = 0;
    while (common < time.size() && common < ref_time.size() &&
           std::memcmp(&time[common], &ref_time[common], sizeof(double)) == 0)
      ++common;
    const std::size_t needed = s.ended_all_failed && !time.empty() ? time.size() - 1 : time.size();
    if (common < needed)
      throw MergeError("shards differ in /time (element " + std::to_string(common) + " is not the same bits in " +
                       ref.path + " and " + s.path + ")");
    s.frames_used = static_cast<long long>(common);
  }
}

/// The solver settings the scene's sweep varies ("violation_bound" for a sweep path
/// "solver.violation_bound"): a run file records its first instance's value
/// (io/recorder.hpp), so shards of one design may differ in them.
std::set<std::string> swept_solver_keys(const std::string& scene_text) {
  std::set<std::string> keys;
  const nlohmann::json doc = nlohmann::json::parse(scene_text, nullptr, false);
  if (!doc.is_object() || !doc.contains("sweep") || !doc["sweep"].is_object()) return keys;
  const nlohmann::json& params = doc["sweep"].value("parameters", nlohmann::json::array());
  for (const nlohmann::json& p : params)
    if (p.is_object() && p.contains("path") && p["path"].is_string()) {
      const std::string path = p["path"].get<std::string>();
      if (path.rfind("solver.", 0) == 0) keys.insert(path.substr(7));
    }
  return keys;
}

/// Whether `path` is an existing result file of one shard of `simphant run --shard`
/// (root attribute shard_count): the usual slip of a merge whose OUT was left out.
bool is_shard_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  try {
    const h5::Handle f = h5::open_file_readonly(path);
    return h5::attr_exists(f.id(), "shard_count") && h5::attr_exists(f.id(), "instance_offset");
  } catch (const h5::H5Error&) {
    return false;  // not HDF5: an earlier output of something else, replaced as before
  }
}

}  // namespace

MergePlan plan_merge(const MergeOptions& o) {
  if (o.out.empty()) throw MergeError("OUT: no output file given");
  if (o.shards.empty()) throw MergeError("SHARD: no shard file given");
  for (const std::string& s : o.shards) {
    std::error_code e1, e2;
    const bool same = fs::exists(o.out, e1) && fs::exists(s, e2)
                          ? fs::equivalent(o.out, s, e1)
                          : fs::weakly_canonical(o.out, e1) == fs::weakly_canonical(s, e2);
    if (same) throw MergeError("OUT " + o.out + " is the shard " + s + ": choose another output file");
  }
  if (is_shard_file(o.out))
    throw MergeError("OUT " + quote(o.out) + " is an existing shard file: give the output file first, e.g. " +
                     "simphant merge merged.h5 shard_*.h5");
  MergePlan plan;
  for (const std::string& path : o.shards) plan.shards.push_back(open_shard(path));
  const ShardFile& first = plan.shards.front();
  const std::set<std::string> swept = swept_solver_keys(h5::read_attr_string(first.file.id(), "scene"));
  for (const ShardFile& s : plan.shards) {
    for (const char* name : kAgree) {
      if (swept.count(name) > 0) continue;
      const bool in_first = h5::attr_exists(first.file.id(), name), in_s = h5::attr_exists(s.file.id(), name);
      if (!in_first && !in_s) continue;
      const std::string a = in_first ? h5::attr_text(first.file.id(), name) : "(none)";
      const std::string b = in_s ? h5::attr_text(s.file.id(), name) : "(none)";
      if (a != b)
        throw MergeError(std::string("shards differ in '") + name + "': " + describe_difference(first.path, a, s.path, b));
    }
    if (s.total != first.total)
      throw MergeError("shards differ in the design's size (n_instances_total): " +
                       describe_difference(first.path, std::to_string(first.total), s.path, std::to_string(s.total)));
  }
  plan.total = first.total;
  std::stable_sort(plan.shards.begin(), plan.shards.end(),
                   [](const ShardFile& a, const ShardFile& b) { return a.offset < b.offset; });
  check_coverage(plan.shards, plan.total);
  plan.reference = reference_shard(plan.shards);
  check_datasets(plan);
  check_frames(plan);
  return plan;
}

}  // namespace simphant::merge_detail
