#include "simphant/io/h5_file.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace simphant::h5 {

namespace {

/// Switches off HDF5's automatic error-stack printing once: failures surface as H5Error.
void quiet() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

/// The errno that HDF5's file driver recorded on the error stack of the failed call
/// ("... errno = 28, error message = 'No space left on device' ..."), or 0.
int stack_errno() {
  int found = 0;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
        const char* at = e && e->desc ? std::strstr(e->desc, "errno = ") : nullptr;
        if (at != nullptr) {
          *static_cast<int*>(data) = std::atoi(at + 8);
          return 1;  // the innermost one is enough
        }
        return 0;
      },
      &found);
  return found;
}

[[noreturn]] void fail(const std::string& call, const std::string& what) {
  const int err = stack_errno();
  throw H5Error(call + "(" + what + ") failed" + (err != 0 ? std::string(": ") + std::strerror(err) : std::string()),
                err);
}

hid_t check(hid_t id, const char* call, const std::string& what) {
  if (id < 0) fail(call, what);
  return id;
}

void check_status(herr_t status, const char* call, const std::string& what) {
  if (status < 0) fail(call, what);
}

Handle make_space(const std::vector<hsize_t>& dims, const std::vector<hsize_t>* maxdims = nullptr) {
  if (dims.empty()) return Handle(check(H5Screate(H5S_SCALAR), "H5Screate", "scalar"), H5Sclose);
  return Handle(check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(),
                                       maxdims ? maxdims->data() : nullptr),
                      "H5Screate_simple", "dataspace"),
                H5Sclose);
}

Handle vlen_string_type() {
  Handle t(check(H5Tcopy(H5T_C_S1), "H5Tcopy", "string type"), H5Tclose);
  check_status(H5Tset_size(t.id(), H5T_VARIABLE), "H5Tset_size", "string type");
  check_status(H5Tset_cset(t.id(), H5T_CSET_UTF8), "H5Tset_cset", "string type");
  return t;
}

void write_attr_raw(hid_t obj, const std::string& name, hid_t type, const std::vector<hsize_t>& dims,
                    const void* data) {
  quiet();
  hssize_t n = 1;
  for (hsize_t d : dims) n *= static_cast<hssize_t>(d);
  if (attr_exists(obj, name)) {
    // Same type and size: write in place (the recorder updates "frames" every frame).
    Handle old(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
    Handle old_type(check(H5Aget_type(old.id()), "H5Aget_type", name), H5Tclose);
    Handle old_space(check(H5Aget_space(old.id()), "H5Aget_space", name), H5Sclose);
    if (n > 0 && H5Tequal(old_type.id(), type) > 0 && H5Sget_simple_extent_npoints(old_space.id()) == n &&
        H5Sget_simple_extent_ndims(old_space.id()) == static_cast<int>(dims.size())) {
      check_status(H5Awrite(old.id(), type, data), "H5Awrite", name);
      return;
    }
    old.reset();
    check_status(H5Adelete(obj, name.c_str()), "H5Adelete", name);
  }
  Handle space = make_space(dims);
  Handle attr(check(H5Acreate2(obj, name.c_str(), type, space.id(), H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2",
                    name),
              H5Aclose);
  if (n > 0) check_status(H5Awrite(attr.id(), type, data), "H5Awrite", name);  // n = 0: empty array
}

}  // namespace

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    closer_ = o.closer_;
    o.id_ = H5I_INVALID_HID;
  }
  return *this;
}

bool Handle::close() {
  const bool ok = id_ < 0 || closer_ == nullptr || closer_(id_) >= 0;
  id_ = H5I_INVALID_HID;
  return ok;
}

bool close_file_first(Handle& file, std::initializer_list<Handle*> objects) {
  bool ok = file.close();
  for (Handle* h : objects)
    if (h != nullptr) ok = h->close() && ok;
  return ok;
}

Handle create_file(const std::string& path) {
  quiet();
  return Handle(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "H5Fcreate", path),
                H5Fclose);
}

Handle open_file_readonly(const std::string& path) {
  quiet();
  return Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "H5Fopen", path), H5Fclose);
}

Handle open_file_readwrite(const std::string& path) {
  quiet();
  return Handle(check(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), "H5Fopen", path), H5Fclose);
}

void flush(hid_t obj) { check_status(H5Fflush(obj, H5F_SCOPE_GLOBAL), "H5Fflush", "file"); }

int reserve_space(hid_t file, std::uint64_t bytes) {
  void* handle = nullptr;
  if (bytes == 0 || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr) return 0;
  hid_t fapl = H5Fget_access_plist(file);
  const bool sec2 = fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2;
  if (fapl >= 0) H5Pclose(fapl);
  if (!sec2) return 0;  // another driver's handle is not a descriptor
  const int fd = *static_cast<int*>(handle);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  haddr_t eoa = 0;
  H5Fget_eoa(file, &eoa);
  const off_t end = std::max<off_t>(st.st_size, static_cast<off_t>(eoa));
  // A file size limit (ulimit -f) is not checked by fallocate with FALLOC_FL_KEEP_SIZE.
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<std::uint64_t>(end) + bytes > static_cast<std::uint64_t>(limit.rlim_cur))
    return EFBIG;
  if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, end, static_cast<off_t>(bytes)) == 0) return 0;
  const int err = errno;
  return err == EOPNOTSUPP || err == ENOSYS || err == EINVAL ? 0 : err;
}

Handle create_group(hid_t loc, const std::string& name) {
  quiet();
  Handle lcpl(check(H5Pcreate(H5P_LINK_CREATE), "H5Pcreate", "lcpl"), H5Pclose);
  check_status(H5Pset_create_intermediate_group(lcpl.id(), 1), "H5Pset_create_intermediate_group", name);
  return Handle(check(H5Gcreate2(loc, name.c_str(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT), "H5Gcreate2", name),
                H5Gclose);
}

bool exists(hid_t loc, const std::string& name) {
  quiet();
  return H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0;
}

void remove_link(hid_t loc, const std::string& name) {
  quiet();
  check_status(H5Ldelete(loc, name.c_str(), H5P_DEFAULT), "H5Ldelete", name);
}

void write_dataset(hid_t loc, const std::string& name, hid_t mem_type, const std::vector<hsize_t>& dims,
                   const void* data) {
  quiet();
  Handle space = make_space(dims);
  Handle dset(check(H5Dcreate2(loc, name.c_str(), mem_type, space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    "H5Dcreate2", name),
              H5Dclose);
  hsize_t n = 1;
  for (hsize_t d : dims) n *= d;
  if (n > 0) check_status(H5Dwrite(dset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dwrite", name);
}

void overwrite_dataset(hid_t loc, const std::string& name, hid_t mem_type, const void* data) {
  quiet();
  Handle dset(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", name), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.id()) > 0)
    check_status(H5Dwrite(dset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dwrite", name);
}

std::vector<hsize_t> dataset_dims(hid_t loc, const std::string& name) {
  quiet();
  Handle dset(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", name), H5Sclose);
  int rank = H5Sget_simple_extent_ndims(space.id());
  if (rank < 0) fail("H5Sget_simple_extent_ndims", name);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
  return dims;
}

std::vector<double> read_doubles(hid_t loc, const std::string& name) {
  quiet();
  Handle dset(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", name), H5Sclose);
  hssize_t n = H5Sget_simple_extent_npoints(space.id());
  if (n < 0) fail("H5Sget_simple_extent_npoints", name);
  std::vector<double> out(static_cast<std::size_t>(n));
  if (n > 0)
    check_status(H5Dread(dset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "H5Dread",
                 name);
  return out;
}

void read_dataset(hid_t loc, const std::string& name, hid_t mem_type, void* out, std::size_t count) {
  quiet();
  Handle dset(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", name), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  if (n < 0) fail("H5Sget_simple_extent_npoints", name);
  if (static_cast<std::size_t>(n) != count)
    throw H5Error(name + ": holds " + std::to_string(n) + " values, expected " + std::to_string(count));
  if (n > 0) check_status(H5Dread(dset.id(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out), "H5Dread", name);
}

std::vector<hsize_t> ExtendibleDataset::layout(hid_t file_type, hsize_t frames_per_chunk) {
  const std::size_t rank = frame_dims_.size() + 1;
  std::vector<hsize_t> chunk(rank, 1);
  frame_elems_ = 1;
  for (std::size_t k = 0; k < frame_dims_.size(); ++k) {
    chunk[k + 1] = std::max<hsize_t>(frame_dims_[k], 1);
    frame_elems_ *= frame_dims_[k];
  }
  // Chunk shape: at most ~1 MiB per chunk; by default a few frames per chunk for small
  // frames (~64 KiB).
  const hsize_t elem = H5Tget_size(file_type);
  constexpr hsize_t kMaxChunkBytes = 1 << 20, kFrameChunkBytes = 1 << 16, kMaxFramesPerChunk = 1024;
  hsize_t chunk_frame_bytes = elem;
  if (rank > 1) {
    hsize_t inner = elem;
    for (std::size_t k = 2; k < rank; ++k) inner *= chunk[k];
    chunk[1] = std::clamp<hsize_t>(kMaxChunkBytes / inner, 1, chunk[1]);
    chunk_frame_bytes = inner * chunk[1];
  }
  chunk[0] = frames_per_chunk > 0 ? frames_per_chunk
                                  : std::clamp<hsize_t>(kFrameChunkBytes / chunk_frame_bytes, 1, kMaxFramesPerChunk);
  // One append writes at most into one new chunk per slice of the frame (a frame of
  // frame_elems_ values spans ceil(frame / chunk frame) chunks side by side).
  const hsize_t frame_bytes = std::max<hsize_t>(frame_elems_, 1) * elem;
  slices_ = (frame_bytes + chunk_frame_bytes - 1) / chunk_frame_bytes;
  slice_chunk_bytes_ = static_cast<std::uint64_t>(chunk_frame_bytes * chunk[0]);
  append_bytes_ = slices_ * slice_chunk_bytes_;
  chunk_ = chunk;
  return chunk;
}

std::uint64_t ExtendibleDataset::block_bytes(hsize_t n) const {
  if (n == 0) return 0;
  const hsize_t k = chunk_frames();
  const hsize_t rows = (frames_ + n - 1) / k - frames_ / k + 1;  // chunk rows the block touches
  std::uint64_t chunk_bytes = slice_chunk_bytes_;
  // zlib's deflateBound for incompressible data, plus the shuffle filter (same size).
  if (filtered_) chunk_bytes += (chunk_bytes >> 12) + (chunk_bytes >> 14) + (chunk_bytes >> 25) + 13 + 64;
  return static_cast<std::uint64_t>(rows * slices_) * chunk_bytes;
}

ExtendibleDataset::ExtendibleDataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                                     std::vector<hsize_t> frame_dims, const ChunkOptions& chunking)
    : mem_type_(mem_type), frame_dims_(std::move(frame_dims)), name_(name) {
  quiet();
  const std::vector<hsize_t> chunk = layout(file_type, chunking.frames_per_chunk);
  const std::size_t rank = chunk.size();
  std::vector<hsize_t> dims(rank, 0), maxdims(rank, H5S_UNLIMITED);
  for (std::size_t k = 0; k < frame_dims_.size(); ++k) {
    dims[k + 1] = frame_dims_[k];
    // A zero-length dimension (e.g. no joints) cannot be chunked as fixed: leave it unlimited.
    maxdims[k + 1] = frame_dims_[k] == 0 ? H5S_UNLIMITED : frame_dims_[k];
  }
  Handle space = make_space(dims, &maxdims);
  Handle dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", name), H5Pclose);
  check_status(H5Pset_chunk(dcpl.id(), static_cast<int>(rank), chunk.data()), "H5Pset_chunk", name);
  if (chunking.deflate < 0 || chunking.deflate > 9)
    throw H5Error(name + ": deflate level " + std::to_string(chunking.deflate) + " is not in 0..9");
  if (chunking.deflate > 0) {
    unsigned info = 0;
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0 || H5Zget_filter_info(H5Z_FILTER_DEFLATE, &info) < 0 ||
        (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED) == 0)
      throw H5Error(name + ": this HDF5 library has no deflate (zlib) encoder; use compression 0");
    check_status(H5Pset_shuffle(dcpl.id()), "H5Pset_shuffle", name);
    check_status(H5Pset_deflate(dcpl.id(), static_cast<unsigned>(chunking.deflate)), "H5Pset_deflate", name);
    filtered_ = true;
  }
  dset_ = Handle(check(H5Dcreate2(loc, name.c_str(), file_type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT),
                       "H5Dcreate2", name),
                 H5Dclose);
}

ExtendibleDataset ExtendibleDataset::open(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                                          std::vector<hsize_t> frame_dims) {
  quiet();
  ExtendibleDataset d;
  d.mem_type_ = mem_type;
  d.frame_dims_ = std::move(frame_dims);
  d.name_ = name;
  d.dset_ = Handle(check(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "H5Dopen2", name), H5Dclose);
  const std::vector<hsize_t> dims = dataset_dims(loc, name);
  if (dims.size() != d.frame_dims_.size() + 1 || !std::equal(d.frame_dims_.begin(), d.frame_dims_.end(), dims.begin() + 1))
    throw H5Error(name + ": not the shape of this run's frames");
  // The file's chunk shape and filters.
  Handle dcpl(check(H5Dget_create_plist(d.dset_.id()), "H5Dget_create_plist", name), H5Pclose);
  std::vector<hsize_t> chunk(dims.size(), 1);
  if (H5Pget_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()) != static_cast<int>(chunk.size()))
    throw H5Error(name + ": not a chunked dataset");
  d.layout(file_type, chunk[0]);
  d.filtered_ = H5Pget_nfilters(dcpl.id()) > 0;
  d.frames_ = dims[0];
  return d;
}

void ExtendibleDataset::append_frames(const void* frames, hsize_t n) {
  if (n == 0) return;
  const std::size_t rank = frame_dims_.size() + 1;
  std::vector<hsize_t> size(rank), start(rank, 0), count(rank);
  size[0] = frames_ + n;
  count[0] = n;
  start[0] = frames_;
  for (std::size_t k = 0; k < frame_dims_.size(); ++k) size[k + 1] = count[k + 1] = frame_dims_[k];
  check_status(H5Dset_extent(dset_.id(), size.data()), "H5Dset_extent", name_);
  if (frame_elems_ > 0) {
    Handle fspace(check(H5Dget_space(dset_.id()), "H5Dget_space", name_), H5Sclose);
    check_status(H5Sselect_hyperslab(fspace.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                 "H5Sselect_hyperslab", name_);
    Handle mspace = make_space(count);
    check_status(H5Dwrite(dset_.id(), mem_type_, mspace.id(), fspace.id(), H5P_DEFAULT, frames), "H5Dwrite", name_);
  }
  frames_ += n;
}

bool ExtendibleDataset::truncate(hsize_t frames) {
  if (!dset_.valid()) return false;
  std::vector<hsize_t> size(frame_dims_.size() + 1);
  size[0] = frames;
  for (std::size_t k = 0; k < frame_dims_.size(); ++k) size[k + 1] = frame_dims_[k];
  if (H5Dset_extent(dset_.id(), size.data()) < 0) return false;
  frames_ = frames;
  return true;
}

void ExtendibleDataset::resize(hsize_t frames) {
  std::vector<hsize_t> size(frame_dims_.size() + 1);
  size[0] = frames;
  for (std::size_t k = 0; k < frame_dims_.size(); ++k) size[k + 1] = frame_dims_[k];
  check_status(H5Dset_extent(dset_.id(), size.data()), "H5Dset_extent", name_);
  frames_ = frames;
}

void write_attr(hid_t obj, const std::string& name, double value) {
  write_attr_raw(obj, name, H5T_NATIVE_DOUBLE, {}, &value);
}

void write_attr(hid_t obj, const std::string& name, std::int64_t value) {
  write_attr_raw(obj, name, H5T_NATIVE_INT64, {}, &value);
}

void write_attr(hid_t obj, const std::string& name, std::uint64_t value) {
  write_attr_raw(obj, name, H5T_NATIVE_UINT64, {}, &value);
}

void write_attr(hid_t obj, const std::string& name, const std::string& value) {
  Handle t = vlen_string_type();
  const char* ptr = value.c_str();
  write_attr_raw(obj, name, t.id(), {}, &ptr);
}

void write_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values) {
  Handle t = vlen_string_type();
  std::vector<const char*> ptrs;
  ptrs.reserve(values.size());
  for (const auto& v : values) ptrs.push_back(v.c_str());
  write_attr_raw(obj, name, t.id(), {static_cast<hsize_t>(values.size())}, ptrs.data());
}

bool attr_exists(hid_t obj, const std::string& name) {
  quiet();
  return H5Aexists(obj, name.c_str()) > 0;
}

double read_attr_double(hid_t obj, const std::string& name) {
  quiet();
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
  double v = 0;
  check_status(H5Aread(attr.id(), H5T_NATIVE_DOUBLE, &v), "H5Aread", name);
  return v;
}

std::int64_t read_attr_int64(hid_t obj, const std::string& name) {
  quiet();
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
  std::int64_t v = 0;
  check_status(H5Aread(attr.id(), H5T_NATIVE_INT64, &v), "H5Aread", name);
  return v;
}

std::string read_attr_string(hid_t obj, const std::string& name) {
  quiet();
  Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
  Handle ftype(check(H5Aget_type(attr.id()), "H5Aget_type", name), H5Tclose);
  if (H5Tget_class(ftype.id()) != H5T_STRING) fail("read_attr_string: not a string", name);
  if (H5Tis_variable_str(ftype.id()) > 0) {
    Handle t = vlen_string_type();
    char* buf = nullptr;
    check_status(H5Aread(attr.id(), t.id(), &buf), "H5Aread", name);
    std::string s = buf ? buf : "";
    H5free_memory(buf);
    return s;
  }
  const std::size_t size = H5Tget_size(ftype.id());
  std::string s(size, '\0');
  check_status(H5Aread(attr.id(), ftype.id(), s.data()), "H5Aread", name);
  s.resize(s.find('\0') == std::string::npos ? size : s.find('\0'));
  return s;
}

}  // namespace simphant::h5
