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
#include <stdexcept>
#include <string>
#include <vector>

#include <hdf5.h>

namespace simphant::h5 {

/// A failed HDF5 call; what() names the call and the object ("H5Fcreate(out.h5) failed").
class H5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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
  void reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Creates (truncates) a file for writing. Throws H5Error.
Handle create_file(const std::string& path);
/// Opens an existing file read-only. Throws H5Error.
Handle open_file_readonly(const std::string& path);
/// Flushes every buffer of the file that holds `obj` to disk.
void flush(hid_t obj);

/// Creates a group (intermediate groups too).
Handle create_group(hid_t loc, const std::string& name);
/// Whether a link `name` exists below loc (one level; no intermediate checks).
bool exists(hid_t loc, const std::string& name);

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

/// A chunked dataset of shape (T, frame_dims...) with T unlimited, grown one frame
/// (or a few) at a time. Chunks cover a few frames (about 64 KiB) and, for large
/// frames, a slice of the second dimension so that a chunk stays under about 1 MiB.
class ExtendibleDataset {
 public:
  ExtendibleDataset() = default;
  ExtendibleDataset(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type,
                    std::vector<hsize_t> frame_dims);
  /// Appends one frame: prod(frame_dims) values of mem_type, row-major.
  void append(const void* frame);
  hsize_t frames() const { return frames_; }
  hid_t id() const { return dset_.id(); }

 private:
  Handle dset_;
  hid_t mem_type_ = H5I_INVALID_HID;
  std::vector<hsize_t> frame_dims_;
  hsize_t frame_elems_ = 0;
  hsize_t frames_ = 0;
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
std::string read_attr_string(hid_t obj, const std::string& name);

}  // namespace simphant::h5
