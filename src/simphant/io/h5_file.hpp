#pragma once
// A small RAII layer over the HDF5 C API (HDF5 >= 1.10): every hid_t is owned by a
// Handle that closes it in its destructor, and every failing call throws H5Error with
// the name of the call and the object. HDF5's own error-stack printing is switched off
// (the message of H5Error replaces it).
//
// Only what the recorder and the tests need: files, groups, fixed datasets, datasets
// extendible along their first dimension (one "frame" appended at a time), and scalar /
// string / string-array attributes.
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include <hdf5.h>

namespace simphant::h5 {

/// A failed HDF5 call; what() names the call and the object ("H5Fcreate(out.h5) failed"),
/// followed by the system error when HDF5 reported one (": No space left on device").
class H5Error : public std::runtime_error {
 public:
  explicit H5Error(const std::string& what, int sys_errno = 0) : std::runtime_error(what), sys_errno_(sys_errno) {}
  /// The errno of the failed read / write / truncate below HDF5 (ENOSPC, EDQUOT, EFBIG,
  /// EIO, ...), taken from HDF5's error stack; 0 when the failure was not a system call.
  int sys_errno() const { return sys_errno_; }

 private:
  int sys_errno_ = 0;
};

/// Owns one hid_t and closes it with the matching H5?close function. Move-only.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept;
  ~Handle() { reset(); }

  hid_t id() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now (errors ignored); the handle becomes invalid.
  void reset() { close(); }
  /// Closes now; the handle becomes invalid. False when the close call failed.
  bool close();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Creates (truncates) a file for writing. Throws H5Error.
Handle create_file(const std::string& path);
/// Opens an existing file read-only. Throws H5Error.
Handle open_file_readonly(const std::string& path);
/// Opens an existing file for reading and writing. Throws H5Error.
Handle open_file_readwrite(const std::string& path);
/// Flushes every buffer of the file that holds `obj` to disk.
void flush(hid_t obj);

/// Reserves `bytes` of disk space beyond the current end of the file (fallocate(2) with
/// FALLOC_FL_KEEP_SIZE on the file's descriptor; the size of the file does not change),
/// so that the next writes of up to that many bytes cannot fail for want of space.
/// Returns 0, or the errno of the refusal: ENOSPC (disk full), EDQUOT, EFBIG (also when
/// the file would grow past the process's file size limit, RLIMIT_FSIZE). A file
/// system or file driver that cannot reserve (EOPNOTSUPP, not the sec2 driver) returns 0:
/// there, a full disk shows as a failed write instead. HDF5 gives the space back when the
/// file is closed (it truncates the file to its end of allocation).
int reserve_space(hid_t file, std::uint64_t bytes);

/// Closes an open file and the objects opened in it, in the order that is safe when a
/// write has failed: the file first (with HDF5's default weak close degree the file stays
/// open until its last object is closed), then each object, whose closing of the last one
/// closes the file. Closing the objects first and then the file, after a failed write
/// (disk full), leaves HDF5's file list damaged, and HDF5's clean-up at process exit then
/// crashes (SIGSEGV in H5F__close_cb, HDF5 1.10). Every handle is closed once and left
/// invalid; returns false when any close failed (data that could not be written), true
/// otherwise.
bool close_file_first(Handle& file, std::initializer_list<Handle*> objects);

/// Creates a group (intermediate groups too).
Handle create_group(hid_t loc, const std::string& name);
/// Whether a link `name` exists below loc (one level; no intermediate checks).
bool exists(hid_t loc, const std::string& name);
/// Removes the link `name` below loc (a group or dataset; its space is not given back
/// to the file system). Throws H5Error.
void remove_link(hid_t loc, const std::string& name);

/// Writes a fixed-shape dataset (row-major `data`). mem_type e.g. H5T_NATIVE_DOUBLE.
/// A dataset with zero elements is created with its shape and no data.
void write_dataset(hid_t loc, const std::string& name, hid_t mem_type, const std::vector<hsize_t>& dims,
                   const void* data);
/// Overwrites the whole content of an existing dataset.
void overwrite_dataset(hid_t loc, const std::string& name, hid_t mem_type, const void* data);

/// Current shape of a dataset.
std::vector<hsize_t> dataset_dims(hid_t loc, const std::string& name);
/// Reads a whole dataset as doubles (converted by HDF5 from any numeric type).
std::vector<double> read_doubles(hid_t loc, const std::string& name);
/// Reads a whole dataset of exactly `count` elements into `out` as mem_type (converted by
/// HDF5 from the file's type). Throws H5Error naming the dataset when it holds another
/// number of elements.
void read_dataset(hid_t loc, const std::string& name, hid_t mem_type, void* out, std::size_t count);

/// How an ExtendibleDataset is chunked and filtered.
struct ChunkOptions {
  /// Frames per chunk (the first axis of a chunk); 0: chosen from the frame size (a few
  /// frames, about 64 KiB per chunk).
  hsize_t frames_per_chunk = 0;
  /// Deflate level 0..9 (0: no filter); > 0 adds the shuffle filter before deflate.
  /// Throws H5Error when this HDF5 has no deflate encoder (H5Zfilter_avail).
  int deflate = 0;
};

/// A chunked dataset of shape (T, frame_dims...) with T unlimited, grown a frame or a
/// block of frames at a time. A chunk covers ChunkOptions::frames_per_chunk frames of
/// the whole frame, or, for a frame over 1 MiB, a slice of its second dimension so that
/// a chunk stays under about 1 MiB.
class ExtendibleDataset {
 public:
  ExtendibleDataset() = default;
  ExtendibleDataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                    std::vector<hsize_t> frame_dims, const ChunkOptions& chunking = {});
  /// Opens an existing dataset that the constructor above created with the same
  /// file_type and frame_dims, to append after its frames (its chunk shape and filters
  /// are the file's). Throws H5Error naming the dataset when its shape after the first
  /// dimension is not frame_dims.
  static ExtendibleDataset open(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                                std::vector<hsize_t> frame_dims);
  /// Appends one frame: prod(frame_dims) values of mem_type, row-major.
  void append(const void* frame) { append_frames(frame, 1); }
  /// Appends n frames (n * prod(frame_dims) values, row-major) with one write.
  void append_frames(const void* frames, hsize_t n);
  hsize_t frames() const { return frames_; }
  /// Sets the extent back to `frames` (< frames()) after a failed append, so that the
  /// datasets of a frame keep one length. Returns false when HDF5 refuses.
  bool truncate(hsize_t frames);
  /// Sets the extent to `frames` (more or fewer), so that blocks of frames can be written
  /// in place with H5Dwrite on id() (`simphant merge --copy`). Throws H5Error.
  void resize(hsize_t frames);
  /// Bytes one append may add to the file: a new chunk, or the frame when it is larger.
  std::uint64_t append_bytes() const { return append_bytes_; }
  /// Bytes that appending n frames after frames() may add to the file: every chunk the
  /// block touches, written anew (a filtered chunk that is rewritten moves), at the
  /// filter's worst-case size.
  std::uint64_t block_bytes(hsize_t n) const;
  hsize_t chunk_frames() const { return chunk_.empty() ? 1 : chunk_[0]; }
  hid_t id() const { return dset_.id(); }
  Handle& handle() { return dset_; }

 private:
  /// Sets frame_dims_, frame_elems_, chunk_, append_bytes_ and returns the chunk shape.
  std::vector<hsize_t> layout(hid_t file_type, hsize_t frames_per_chunk);
  Handle dset_;
  hid_t mem_type_ = H5I_INVALID_HID;
  std::vector<hsize_t> frame_dims_, chunk_;
  hsize_t frame_elems_ = 0;
  hsize_t frames_ = 0;
  std::uint64_t append_bytes_ = 0;
  std::uint64_t slice_chunk_bytes_ = 0;  ///< bytes of one chunk
  hsize_t slices_ = 1;                   ///< chunks side by side across one frame
  bool filtered_ = false;
  std::string name_;
};

/// Attributes on `obj` (a file, group or dataset). Writing an existing attribute
/// replaces it.
void write_attr(hid_t obj, const std::string& name, double value);
void write_attr(hid_t obj, const std::string& name, std::int64_t value);
void write_attr(hid_t obj, const std::string& name, std::uint64_t value);
void write_attr(hid_t obj, const std::string& name, const std::string& value);  ///< UTF-8, variable length
void write_attr(hid_t obj, const std::string& name, const std::vector<std::string>& values);
inline void write_attr(hid_t obj, const std::string& name, const char* value) {
  write_attr(obj, name, std::string(value));
}
inline void write_attr(hid_t obj, const std::string& name, int value) {
  write_attr(obj, name, static_cast<std::int64_t>(value));
}

bool attr_exists(hid_t obj, const std::string& name);
double read_attr_double(hid_t obj, const std::string& name);
std::int64_t read_attr_int64(hid_t obj, const std::string& name);
std::string read_attr_string(hid_t obj, const std::string& name);

}  // namespace simphant::h5
