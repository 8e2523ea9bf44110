#pragma once
// Generic HDF5 reading and copying for `simphant merge` (job/merge.hpp): the objects of a
// file, a dataset's shape and type, any attribute as exact text, attributes copied
// between objects, and hyperslabs read as raw bytes in the dataset's native type (so a
// copy is bit for bit). Built on h5_file.hpp; every failing call throws h5::H5Error.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"

namespace simphant::h5 {

/// One object below the root: its path without the leading '/' ("state",
/// "params/bodies.crank.mass", "joint_state"), and whether it is a group (else a dataset).
struct ObjectEntry {
  std::string path;
  bool group = false;
};

/// Every group and dataset below the root, in name order, parents before their members.
std::vector<ObjectEntry> list_objects(hid_t file);

/// Shape, limits and type of a dataset.
struct DatasetShape {
  std::vector<hsize_t> dims, maxdims;  ///< maxdims[k] == H5S_UNLIMITED for an extendible axis
  Handle file_type;                    ///< the type stored in the file
  Handle native_type;                  ///< its native memory type (H5Tget_native_type)
  std::size_t element_size = 0;        ///< bytes of one element of native_type
  bool extendible() const { return !maxdims.empty() && maxdims[0] == H5S_UNLIMITED; }
};
DatasetShape dataset_shape(hid_t loc, const std::string& path);

/// The attribute names of `obj`, in name order.
std::vector<std::string> attr_names(hid_t obj);

/// An attribute's value as exact text: integers in decimal, floating point as the
/// shortest decimal that reads back as the same value, strings as they are, arrays as "[a, b, ...]" (strings quoted).
/// Two attributes hold the same value exactly when their texts are equal. The links of
/// dimension scales (DIMENSION_LIST, REFERENCE_LIST: object references, addresses in
/// their file) read as the paths they link ("[/time, /instance]").
std::string attr_text(hid_t obj, const std::string& name);

/// Copies every attribute of `from` onto `to` (same type, shape and bytes), except the
/// names in `skip`.
void copy_attributes(hid_t from, hid_t to, const std::set<std::string>& skip = {});

/// Reads a whole dataset of strings (variable or fixed length) as text. Throws H5Error.
std::vector<std::string> read_strings(hid_t loc, const std::string& path);

/// Reads the block [start, start + count) of a dataset in its native type into `out`
/// (resized to the block's bytes, row-major).
void read_block(hid_t dset, const DatasetShape& shape, const std::vector<hsize_t>& start,
                const std::vector<hsize_t>& count, std::vector<unsigned char>& out);

}  // namespace simphant::h5
