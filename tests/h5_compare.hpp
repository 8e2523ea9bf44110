#pragma once
// Compares two HDF5 files object by object: the same groups and datasets, each dataset
// with the same type, shape and bytes, and every object with the same attributes (type
// and bytes; variable-length strings by their text). Used to show that two runs wrote
// the same results bit for bit, whatever the files' layout on disk (dimension scales
// compared by the names they link).
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <hdf5.h>

#include "simphant/io/h5_file.hpp"
#include "simphant/io/h5_objects.hpp"

namespace simphant::test {

namespace h5_compare_detail {

inline herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::set<std::string>*>(data)->insert(name);
  return 0;
}

inline herr_t collect_attr(hid_t, const char* name, const H5A_info_t*, void* data) {
  static_cast<std::set<std::string>*>(data)->insert(name);
  return 0;
}

/// Every link path below the root ("time", "joint_state/q", ...).
inline std::set<std::string> paths(hid_t file) {
  std::set<std::string> out;
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect_link, &out);
  return out;
}

/// An attribute's value as comparable bytes: the text of each string for string
/// attributes (variable or fixed length), else the raw bytes in the file's type.
inline std::string attr_bytes(hid_t obj, const std::string& name) {
  // Dimension-scale links are object addresses in their file: compared by the paths linked.
  if (name == "DIMENSION_LIST" || name == "REFERENCE_LIST") return h5::attr_text(obj, name);
  h5::Handle a(H5Aopen(obj, name.c_str(), H5P_DEFAULT), H5Aclose);
  h5::Handle type(H5Aget_type(a.id()), H5Tclose);
  h5::Handle space(H5Aget_space(a.id()), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  std::string out = "class " + std::to_string(H5Tget_class(type.id())) + " n " + std::to_string(n) + ":";
  if (H5Tget_class(type.id()) == H5T_STRING && H5Tis_variable_str(type.id()) > 0) {
    std::vector<char*> strings(static_cast<std::size_t>(n), nullptr);
    h5::Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.id(), H5T_VARIABLE);
    H5Tset_cset(mem.id(), H5Tget_cset(type.id()));
    if (n > 0 && H5Aread(a.id(), mem.id(), strings.data()) < 0) return "unreadable";
    for (char* s : strings) {
      out += std::string(s ? s : "") + '\0';
      H5free_memory(s);
    }
    return out;
  }
  std::string raw(static_cast<std::size_t>(n) * H5Tget_size(type.id()), '\0');
  if (n > 0 && H5Aread(a.id(), type.id(), raw.data()) < 0) return "unreadable";
  return out + raw;
}

inline std::set<std::string> attr_names(hid_t obj) {
  std::set<std::string> out;
  hsize_t idx = 0;
  H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_attr, &out);
  return out;
}

/// The dataset's type, shape and bytes; empty when `obj` is not a dataset.
inline std::string dataset_bytes(hid_t obj) {
  if (H5Iget_type(obj) != H5I_DATASET) return {};
  h5::Handle type(H5Dget_type(obj), H5Tclose);
  h5::Handle space(H5Dget_space(obj), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.id());
  std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
  std::string out = "class " + std::to_string(H5Tget_class(type.id())) + " size " +
                    std::to_string(H5Tget_size(type.id())) + " shape";
  for (hsize_t d : dims) out += " " + std::to_string(d);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  if (H5Tget_class(type.id()) == H5T_STRING) {  // labels (/body, ...): by their text
    out += ":";
    for (const std::string& s : h5::read_strings(obj, ".")) out += s + '\0';
    return out;
  }
  std::string raw(static_cast<std::size_t>(n) * H5Tget_size(type.id()), '\0');
  if (n > 0 && H5Dread(obj, type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0) return "unreadable";
  return out + ":" + raw;
}

inline void compare_attrs(hid_t a, hid_t b, const std::string& where, const std::set<std::string>& skip,
                          std::vector<std::string>& diff) {
  const std::set<std::string> na = attr_names(a), nb = attr_names(b);
  for (const std::string& k : na) {
    if (skip.count(where + "@" + k)) continue;
    if (!nb.count(k)) {
      diff.push_back(where + "@" + k + ": only in the first file");
    } else if (attr_bytes(a, k) != attr_bytes(b, k)) {
      diff.push_back(where + "@" + k + ": differs");
    }
  }
  for (const std::string& k : nb)
    if (!na.count(k) && !skip.count(where + "@" + k)) diff.push_back(where + "@" + k + ": only in the second file");
}

}  // namespace h5_compare_detail

/// The differences between files `a` and `b` ("state: differs", "/@wall_time_s:
/// differs", "checkpoint: only in the first file"); empty when they hold the same
/// objects and values. skip_attrs: attributes left out, as "<object>@<name>" with the
/// root as "/" (e.g. "/@wall_time_s").
inline std::vector<std::string> file_differences(const std::string& a, const std::string& b,
                                                 const std::set<std::string>& skip_attrs = {}) {
  using namespace h5_compare_detail;
  std::vector<std::string> diff;
  const h5::Handle fa = h5::open_file_readonly(a), fb = h5::open_file_readonly(b);
  compare_attrs(fa.id(), fb.id(), "/", skip_attrs, diff);
  const std::set<std::string> pa = paths(fa.id()), pb = paths(fb.id());
  for (const std::string& p : pa) {
    if (!pb.count(p)) {
      diff.push_back(p + ": only in the first file");
      continue;
    }
    const h5::Handle oa(H5Oopen(fa.id(), p.c_str(), H5P_DEFAULT), H5Oclose);
    const h5::Handle ob(H5Oopen(fb.id(), p.c_str(), H5P_DEFAULT), H5Oclose);
    if (!oa.valid() || !ob.valid()) {
      diff.push_back(p + ": cannot be opened");
      continue;
    }
    if (H5Iget_type(oa.id()) != H5Iget_type(ob.id()) || dataset_bytes(oa.id()) != dataset_bytes(ob.id()))
      diff.push_back(p + ": differs");
    compare_attrs(oa.id(), ob.id(), p, skip_attrs, diff);
  }
  for (const std::string& p : pb)
    if (!pa.count(p)) diff.push_back(p + ": only in the second file");
  return diff;
}

}  // namespace simphant::test
