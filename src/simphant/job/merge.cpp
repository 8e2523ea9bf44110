// merge_shards: plan_merge's checks, then OUT's temporary file: groups and attributes of
// the first shard, /time copied, every instance dataset virtual over the shards or copied
// from them, root attributes of the whole design; renamed onto OUT (merge.hpp).
#include "simphant/job/merge.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "simphant/io/h5_dims.hpp"
#include "simphant/job/job_checks.hpp"
#include "simphant/job/merge_inputs.hpp"
#include "simphant/job/output_file.hpp"

namespace simphant {

namespace {

using merge_detail::MergeDataset;
using merge_detail::MergePlan;
using merge_detail::ShardFile;
namespace fs = std::filesystem;

/// Root attributes of a shard that the merged file, like a one-shot run's, does not have
/// or has with the whole design's value.
const std::set<std::string> kShardOnly = {"shard_index", "shard_count", "instance_offset", "n_instances_total",
                                          "n_instances", "wall_time_s"};

/// Root attributes of the reference shard (merge_inputs.hpp) that the merged file takes.
const std::set<std::string> kEnding = {"frames", "stop_reason", "interrupted"};

/// The attributes by which HDF5 dimension scales link datasets and scales (H5DS).
const std::set<std::string> kDimensionLinks = {"DIMENSION_LIST", "REFERENCE_LIST"};

h5::Handle open_dataset(hid_t file, const std::string& path) {
  h5::Handle d(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!d.valid()) throw h5::H5Error("H5Dopen2(" + path + ") failed");
  return d;
}

h5::Handle open_object(hid_t file, const std::string& path) {
  h5::Handle o(H5Oopen(file, path.c_str(), H5P_DEFAULT), H5Oclose);
  if (!o.valid()) throw h5::H5Error("H5Oopen(" + path + ") failed");
  return o;
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw h5::H5Error(what + " failed");
}

std::uint64_t element_count(const std::vector<hsize_t>& dims) {
  std::uint64_t n = 1;
  for (hsize_t d : dims) n *= d;
  return n;
}

/// The name a virtual dataset in OUT gives the shard: relative to OUT's folder.
std::string source_name(const std::string& shard, const std::string& out) {
  std::error_code ec;
  const fs::path out_dir = fs::absolute(out, ec).parent_path();
  const fs::path rel = fs::relative(fs::absolute(shard, ec), out_dir, ec);
  return ec || rel.empty() ? fs::absolute(shard).string() : rel.string();
}

/// The fill value of a virtual dataset, read where a source file is missing: NaN for
/// floating point, -1 for integers.
void set_fill_value(hid_t dcpl, const h5::DatasetShape& shape) {
  if (H5Tget_class(shape.native_type.id()) == H5T_FLOAT) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    check(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan), "H5Pset_fill_value");
  } else if (H5Tget_class(shape.native_type.id()) == H5T_INTEGER) {
    const long long minus_one = -1;
    check(H5Pset_fill_value(dcpl, H5T_NATIVE_LLONG, &minus_one), "H5Pset_fill_value");
  }
}

/// OUT's shape of dataset `d` whose shape in a shard is `ref`: the design's instances on its
/// instance axis, the reference shard's frames on a frame axis (an extendible axis 0).
std::vector<hsize_t> merged_dims(const MergePlan& plan, const MergeDataset& d, const h5::DatasetShape& ref) {
  std::vector<hsize_t> dims = ref.dims;
  if (ref.extendible() && !dims.empty()) dims[0] = static_cast<hsize_t>(plan.frames);
  if (d.instance_axis >= 0) dims[static_cast<std::size_t>(d.instance_axis)] = static_cast<hsize_t>(plan.total);
  return dims;
}

/// The frames of shard `s`'s dataset (shape `sh`) that OUT takes: all but the frames after
/// a shard's end when all its instances failed (ShardFile::frames_used).
hsize_t frames_taken(const ShardFile& s, const h5::DatasetShape& sh) {
  return sh.extendible() ? std::min<hsize_t>(sh.dims[0], static_cast<hsize_t>(s.frames_used)) : sh.dims[0];
}

void write_virtual(hid_t out_file, const std::string& out, const MergePlan& plan, const MergeDataset& d) {
  const h5::DatasetShape ref = h5::dataset_shape(plan.shards.front().file.id(), d.path);
  const auto axis = static_cast<std::size_t>(d.instance_axis);
  const std::vector<hsize_t> dims = merged_dims(plan, d, ref);
  h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  h5::Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  if (!space.valid() || !dcpl.valid()) throw h5::H5Error("dataspace of /" + d.path + " failed");
  set_fill_value(dcpl.id(), ref);  // also what the frames after a shard's early end read
  for (const ShardFile& s : plan.shards) {
    const h5::DatasetShape sh = h5::dataset_shape(s.file.id(), d.path);
    std::vector<hsize_t> start(dims.size(), 0), count = sh.dims;
    count[0] = frames_taken(s, sh);
    if (count[0] == 0) continue;
    h5::Handle src(H5Screate_simple(static_cast<int>(sh.dims.size()), sh.dims.data(), nullptr), H5Sclose);
    check(H5Sselect_hyperslab(src.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
          "H5Sselect_hyperslab(/" + d.path + ", " + s.path + ")");
    h5::Handle dst(H5Scopy(space.id()), H5Sclose);
    start[axis] = static_cast<hsize_t>(s.offset);
    check(H5Sselect_hyperslab(dst.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
          "H5Sselect_hyperslab(/" + d.path + ")");
    check(H5Pset_virtual(dcpl.id(), dst.id(), source_name(s.path, out).c_str(), ("/" + d.path).c_str(), src.id()),
          "H5Pset_virtual(/" + d.path + ", " + s.path + ")");
  }
  h5::Handle dset(H5Dcreate2(out_file, d.path.c_str(), ref.file_type.id(), space.id(), H5P_DEFAULT, dcpl.id(),
                             H5P_DEFAULT),
                  H5Dclose);
  if (!dset.valid()) throw h5::H5Error("H5Dcreate2(/" + d.path + ", virtual) failed");
}

/// Writes the fill value of set_fill_value (NaN, or -1 for integers) into the block
/// [start, start + count) of `target` (a dataset of type `shape`).
void write_fill(hid_t target, const h5::DatasetShape& shape, const std::vector<hsize_t>& start,
                const std::vector<hsize_t>& count, const std::string& path) {
  const std::uint64_t n = element_count(count);
  if (n == 0) return;
  const bool floating = H5Tget_class(shape.native_type.id()) == H5T_FLOAT;
  std::vector<double> nan(floating ? n : 0, std::numeric_limits<double>::quiet_NaN());
  std::vector<long long> minus_one(floating ? 0 : n, -1);
  h5::Handle fspace(H5Dget_space(target), H5Sclose);
  h5::Handle mspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
  check(H5Sselect_hyperslab(fspace.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        "H5Sselect_hyperslab(/" + path + ")");
  check(H5Dwrite(target, floating ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG, mspace.id(), fspace.id(), H5P_DEFAULT,
                 floating ? static_cast<const void*>(nan.data()) : static_cast<const void*>(minus_one.data())),
        "H5Dwrite(/" + path + ", fill)");
}

/// Copies a dataset of the shards into OUT: an extendible one as a run's (chunked, the
/// same chunk shape and filters: the shard dataset's creation properties), a fixed one plain. An extendible dataset is
/// written a block of frames at a time, every shard's slab of the block in turn, through a
/// chunk cache that holds the block, so that a chunk split between two shards is completed
/// in the cache instead of being written twice.
void write_copy(hid_t out_file, const MergePlan& plan, const MergeDataset& d, std::size_t block_bytes) {
  // A dataset without instances (/time) is the reference shard's.
  const ShardFile& first = d.instance_axis >= 0 ? plan.shards.front() : plan.shards[plan.reference];
  const h5::DatasetShape ref = h5::dataset_shape(first.file.id(), d.path);
  const std::vector<hsize_t> dims = merged_dims(plan, d, ref);
  if (ref.extendible()) {
    // The shard's chunk shape and filters (compression), so the copy is chunked as a run's.
    const h5::Handle src = open_dataset(first.file.id(), d.path);
    const h5::Handle dcpl(H5Dget_create_plist(src.id()), H5Pclose);
    std::vector<hsize_t> maxdims = ref.maxdims;  // T unlimited, the others the merged extent
    for (std::size_t k = 1; k < maxdims.size(); ++k)
      if (maxdims[k] != H5S_UNLIMITED) maxdims[k] = dims[k];
    h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()), H5Sclose);
    if (!dcpl.valid() || !space.valid()) throw h5::H5Error("dataspace of /" + d.path + " failed");
    h5::Handle created(H5Dcreate2(out_file, d.path.c_str(), ref.file_type.id(), space.id(), H5P_DEFAULT, dcpl.id(),
                                  H5P_DEFAULT),
                       H5Dclose);
    if (!created.valid()) throw h5::H5Error("H5Dcreate2(/" + d.path + ") failed");
  } else {
    h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    h5::Handle created(H5Dcreate2(out_file, d.path.c_str(), ref.file_type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       H5Dclose);
    if (!created.valid()) throw h5::H5Error("H5Dcreate2(/" + d.path + ") failed");
  }
  if (element_count(dims) == 0) return;
  h5::Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
  check(H5Pset_chunk_cache(dapl.id(), 100003, 4 * std::max<std::size_t>(block_bytes, 1), 1.0), "H5Pset_chunk_cache(/" + d.path + ")");
  h5::Handle target(H5Dopen2(out_file, d.path.c_str(), dapl.id()), H5Dclose);
  if (!target.valid()) throw h5::H5Error("H5Dopen2(/" + d.path + ") failed");

  std::vector<const ShardFile*> sources;
  if (d.instance_axis >= 0) {
    for (const ShardFile& s : plan.shards) sources.push_back(&s);
  } else {
    sources.push_back(&first);
  }
  std::vector<h5::Handle> src;
  std::vector<h5::DatasetShape> shapes;
  for (const ShardFile* s : sources) {
    src.push_back(open_dataset(s->file.id(), d.path));
    shapes.push_back(h5::dataset_shape(s->file.id(), d.path));
  }
  // Blocks along axis 0 (frames, or instances of an (I, ...) dataset) of about block_bytes
  // of OUT's dataset.
  const std::uint64_t row_bytes =
      std::max<std::uint64_t>(1, element_count(dims) / std::max<hsize_t>(dims[0], 1) * ref.element_size);
  const hsize_t rows = std::max<hsize_t>(1, static_cast<hsize_t>(block_bytes / row_bytes));
  std::vector<unsigned char> block;
  for (hsize_t r0 = 0; r0 < dims[0]; r0 += rows) {
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const h5::DatasetShape& sh = shapes[k];
      std::vector<hsize_t> start(sh.dims.size(), 0), count = sh.dims;
      std::vector<hsize_t> out_start = start;
      if (d.instance_axis == 0) {  // (I, ...): each shard's rows where they fall in [r0, r0 + rows)
        const hsize_t lo = std::max<hsize_t>(r0, static_cast<hsize_t>(sources[k]->offset));
        const hsize_t hi = std::min<hsize_t>(r0 + rows, static_cast<hsize_t>(sources[k]->offset) + sh.dims[0]);
        if (lo >= hi) continue;
        start[0] = lo - static_cast<hsize_t>(sources[k]->offset);
        count[0] = hi - lo;
        out_start[0] = lo;
      } else {  // (T, ...) or (T, I, ...): frames [r0, r0 + rows) of every shard
        start[0] = out_start[0] = r0;
        if (d.instance_axis == 1) out_start[1] = static_cast<hsize_t>(sources[k]->offset);
        const hsize_t taken = frames_taken(*sources[k], sh), end = std::min(r0 + rows, dims[0]);
        if (taken < end) {  // frames after the shard's early end: the fill value
          std::vector<hsize_t> fill_start = out_start, fill_count = count;
          fill_start[0] = std::max(r0, taken);
          fill_count[0] = end - fill_start[0];
          write_fill(target.id(), sh, fill_start, fill_count, d.path);
        }
        if (r0 >= taken) continue;
        count[0] = std::min(end, taken) - r0;
      }
      h5::read_block(src[k].id(), sh, start, count, block);
      h5::Handle fspace(H5Dget_space(target.id()), H5Sclose);
      h5::Handle mspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
      check(H5Sselect_hyperslab(fspace.id(), H5S_SELECT_SET, out_start.data(), nullptr, count.data(), nullptr),
            "H5Sselect_hyperslab(/" + d.path + ")");
      check(H5Dwrite(target.id(), sh.native_type.id(), mspace.id(), fspace.id(), H5P_DEFAULT, block.data()),
            "H5Dwrite(/" + d.path + ")");
    }
  }
}

std::uint64_t instance_bytes(const MergePlan& plan) {
  std::uint64_t bytes = 0;
  for (const MergeDataset& d : plan.datasets) {
    if (d.instance_axis < 0) continue;
    for (const ShardFile& s : plan.shards) {
      const h5::DatasetShape sh = h5::dataset_shape(s.file.id(), d.path);
      bytes += element_count(sh.dims) * sh.element_size;
    }
  }
  return bytes;
}

}  // namespace

/// The integrator's step figures of the whole design (job/step_report.hpp): accepted_steps
/// and rejected_steps summed over the shards, min_step_s and max_step_s the smallest and
/// largest of theirs (a shard without an accepted step has NaN there).
void write_step_figures(hid_t out, const MergePlan& plan) {
  const hid_t first = plan.shards.front().file.id();
  if (!h5::attr_exists(first, "accepted_steps")) return;  // files of earlier versions
  std::int64_t accepted = 0, rejected = 0;
  double lo = std::nan(""), hi = std::nan("");
  for (const ShardFile& s : plan.shards) {
    const hid_t f = s.file.id();
    accepted += h5::read_attr_int64(f, "accepted_steps");
    rejected += h5::read_attr_int64(f, "rejected_steps");
    const double a = h5::read_attr_double(f, "min_step_s"), b = h5::read_attr_double(f, "max_step_s");
    if (!std::isnan(a)) lo = std::isnan(lo) ? a : std::min(lo, a);
    if (!std::isnan(b)) hi = std::isnan(hi) ? b : std::max(hi, b);
  }
  h5::write_attr(out, "accepted_steps", accepted);
  h5::write_attr(out, "rejected_steps", rejected);
  h5::write_attr(out, "min_step_s", lo);
  h5::write_attr(out, "max_step_s", hi);
}

nlohmann::json merge_shards(const MergeOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const MergePlan plan = merge_detail::plan_merge(o);
  job_detail::check_output_path(o.out, {});
  OutputFile output(o.out);
  {
    h5::Handle file = h5::create_file(output.temp_path());
    const ShardFile& first = plan.shards.front();
    h5::copy_attributes(first.file.id(), file.id(), kShardOnly);
    // How far the merged file's frames go and how the design's run ended: the reference
    // shard's (a shard whose instances all failed ended early).
    std::set<std::string> not_ending;
    for (const std::string& name : h5::attr_names(plan.shards[plan.reference].file.id()))
      if (kEnding.count(name) == 0) not_ending.insert(name);
    h5::copy_attributes(plan.shards[plan.reference].file.id(), file.id(), not_ending);
    h5::write_attr(file.id(), "n_instances", static_cast<std::int64_t>(plan.total));
    double wall = 0;
    for (const ShardFile& s : plan.shards) wall = std::max(wall, s.wall_time_s);
    h5::write_attr(file.id(), "wall_time_s", wall);
    write_step_figures(file.id(), plan);
    for (const h5::ObjectEntry& e : plan.objects) {
      if (!e.group) continue;
      h5::Handle g = h5::create_group(file.id(), e.path);
      const h5::Handle src = open_object(first.file.id(), e.path);
      h5::copy_attributes(src.id(), g.id());
    }
    for (const MergeDataset& d : plan.datasets) {
      if (o.copy || d.instance_axis < 0) {
        write_copy(file.id(), plan, d, o.block_bytes);
      } else {
        write_virtual(file.id(), o.out, plan, d);
      }
      h5::Handle dst = open_object(file.id(), d.path);
      const h5::Handle src = open_object(first.file.id(), d.path);
      // Dimension scales hold references to objects of their own file: attached anew below.
      h5::copy_attributes(src.id(), dst.id(), kDimensionLinks);
    }
    for (const MergeDataset& d : plan.datasets) {
      std::vector<std::string> dims = h5::dimension_names(first.file.id(), d.path);
      if (std::all_of(dims.begin(), dims.end(), [](const std::string& n) { return n.empty(); })) continue;
      for (std::string& n : dims)
        if (n.empty()) throw h5::H5Error("/" + d.path + ": an axis without a dimension beside named ones");
      h5::attach_dimensions(file.id(), d.path, dims);
    }
    h5::flush(file.id());
    if (!file.close()) throw h5::H5Error("closing " + output.temp_path() + " failed");
  }
  output.commit();
  nlohmann::json summary;
  summary["out"] = o.out;
  summary["shards"] = plan.shards.size();
  summary["instances"] = plan.total;
  summary["frames"] = plan.frames;
  summary["mode"] = o.copy ? "copy" : "virtual";
  summary["bytes"] = instance_bytes(plan);
  summary["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return summary;
}

}  // namespace simphant
