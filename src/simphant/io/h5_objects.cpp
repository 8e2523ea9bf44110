#include "simphant/io/h5_objects.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace simphant::h5 {

namespace {

[[noreturn]] void fail(const std::string& call, const std::string& what) { throw H5Error(call + "(" + what + ") failed"); }

hid_t check(hid_t id, const char* call, const std::string& what) {
  if (id < 0) fail(call, what);
  return id;
}

void check_status(herr_t status, const char* call, const std::string& what) {
  if (status < 0) fail(call, what);
}

/// The memory type an attribute is read into: the native type of numbers, the file's own
/// type for strings (a variable-length string reads as char*).
Handle memory_type(hid_t file_type, const std::string& what) {
  if (H5Tget_class(file_type) == H5T_STRING) return Handle(check(H5Tcopy(file_type), "H5Tcopy", what), H5Tclose);
  return Handle(check(H5Tget_native_type(file_type, H5T_DIR_ASCEND), "H5Tget_native_type", what), H5Tclose);
}

/// An attribute read whole in its memory type; variable-length data freed on destruction.
struct AttrValue {
  Handle attr, file_type, mem_type, space;
  hssize_t n = 0;
  std::vector<unsigned char> bytes;
  AttrValue(hid_t obj, const std::string& name) {
    attr = Handle(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
    file_type = Handle(check(H5Aget_type(attr.id()), "H5Aget_type", name), H5Tclose);
    space = Handle(check(H5Aget_space(attr.id()), "H5Aget_space", name), H5Sclose);
    mem_type = memory_type(file_type.id(), name);
    n = H5Sget_simple_extent_npoints(space.id());
    if (n < 0) fail("H5Sget_simple_extent_npoints", name);
    bytes.resize(static_cast<std::size_t>(n) * H5Tget_size(mem_type.id()));
    if (n > 0) check_status(H5Aread(attr.id(), mem_type.id(), bytes.data()), "H5Aread", name);
  }
  bool variable() const {
    return H5Tis_variable_str(mem_type.id()) > 0 || H5Tdetect_class(mem_type.id(), H5T_VLEN) > 0;
  }
  ~AttrValue() {
    if (n > 0 && variable()) H5Dvlen_reclaim(mem_type.id(), space.id(), H5P_DEFAULT, bytes.data());
  }
  AttrValue(const AttrValue&) = delete;
  AttrValue& operator=(const AttrValue&) = delete;
};

std::string element_text(const AttrValue& a, hssize_t k) {
  const hid_t t = a.mem_type.id();
  const std::size_t size = H5Tget_size(t);
  const unsigned char* p = a.bytes.data() + static_cast<std::size_t>(k) * size;
  char buf[64];
  switch (H5Tget_class(t)) {
    case H5T_INTEGER: {
      const bool is_signed = H5Tget_sign(t) != H5T_SGN_NONE;
      std::uint64_t u = 0;
      std::int64_t s = 0;
      if (size == 1) { is_signed ? (void)(s = *reinterpret_cast<const std::int8_t*>(p)) : (void)(u = *p); }
      else if (size == 2) { std::int16_t v; std::uint16_t w; std::memcpy(&v, p, 2); std::memcpy(&w, p, 2); s = v; u = w; }
      else if (size == 4) { std::int32_t v; std::uint32_t w; std::memcpy(&v, p, 4); std::memcpy(&w, p, 4); s = v; u = w; }
      else { std::memcpy(&s, p, 8); std::memcpy(&u, p, 8); }
      if (is_signed) std::snprintf(buf, sizeof buf, "%" PRId64, s);
      else std::snprintf(buf, sizeof buf, "%" PRIu64, u);
      return buf;
    }
    case H5T_FLOAT: {
      double v = 0;
      if (size == 4) {
        float f;
        std::memcpy(&f, p, 4);
        v = f;
      } else {
        std::memcpy(&v, p, 8);
      }
      // The shortest text that reads back as the same double.
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v || std::isnan(v)) break;
      }
      return buf;
    }
    case H5T_STRING: {
      if (H5Tis_variable_str(t) > 0) {
        const char* s = nullptr;
        std::memcpy(&s, p, sizeof s);
        return s ? s : "";
      }
      std::string s(reinterpret_cast<const char*>(p), size);
      return s.substr(0, s.find('\0'));
    }
    default: {
      std::string hex;
      for (std::size_t i = 0; i < size; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", p[i]);
        hex += buf;
      }
      return "0x" + hex;
    }
  }
}

}  // namespace

std::vector<ObjectEntry> list_objects(hid_t file) {
  std::vector<ObjectEntry> out;
  const herr_t status = H5Lvisit(
      file, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t group, const char* name, const H5L_info_t* info, void* data) -> herr_t {
        if (info->type != H5L_TYPE_HARD) return 0;  // the recorder writes hard links only
        const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
        if (obj < 0) return -1;
        const H5I_type_t type = H5Iget_type(obj);
        H5Oclose(obj);
        if (type == H5I_GROUP || type == H5I_DATASET)
          static_cast<std::vector<ObjectEntry>*>(data)->push_back({name, type == H5I_GROUP});
        return 0;
      },
      &out);
  check_status(status, "H5Lvisit", "/");
  return out;
}

DatasetShape dataset_shape(hid_t loc, const std::string& path) {
  DatasetShape s;
  Handle dset(check(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), "H5Dopen2", path), H5Dclose);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", path), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.id());
  if (rank < 0) fail("H5Sget_simple_extent_ndims", path);
  s.dims.resize(static_cast<std::size_t>(rank));
  s.maxdims.resize(static_cast<std::size_t>(rank));
  if (rank > 0) check_status(H5Sget_simple_extent_dims(space.id(), s.dims.data(), s.maxdims.data()),
                             "H5Sget_simple_extent_dims", path);
  s.file_type = Handle(check(H5Dget_type(dset.id()), "H5Dget_type", path), H5Tclose);
  s.native_type = Handle(check(H5Tget_native_type(s.file_type.id(), H5T_DIR_ASCEND), "H5Tget_native_type", path),
                         H5Tclose);
  s.element_size = H5Tget_size(s.native_type.id());
  return s;
}

std::vector<std::string> attr_names(hid_t obj) {
  std::vector<std::string> names;
  hsize_t idx = 0;
  const herr_t status = H5Aiterate2(
      obj, H5_INDEX_NAME, H5_ITER_INC, &idx,
      [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &names);
  check_status(status, "H5Aiterate2", "attributes");
  return names;
}

namespace {

/// The path of the object an object reference in `file_obj`'s file points to.
std::string referenced_name(hid_t file_obj, const hobj_ref_t& ref) {
  const hid_t target = H5Rdereference2(file_obj, H5P_DEFAULT, H5R_OBJECT, &ref);
  if (target < 0) return "(dangling)";
  const Handle t(target, H5Oclose);
  const ssize_t n = H5Iget_name(target, nullptr, 0);
  std::string name(static_cast<std::size_t>(std::max<ssize_t>(n, 0)) + 1, '\0');
  if (n > 0) H5Iget_name(target, name.data(), name.size());
  name.resize(static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  return name;
}

/// DIMENSION_LIST (per axis, the scales attached) and REFERENCE_LIST (on a scale, the
/// datasets and axes attached to it; sorted, as the order is that of attaching) by the
/// objects' paths: the text is the same in two files that link the same names.
std::string dimension_link_text(hid_t obj, const std::string& name) {
  const Handle attr(check(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "H5Aopen", name), H5Aclose);
  const Handle space(check(H5Aget_space(attr.id()), "H5Aget_space", name), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  if (n < 0) fail("H5Sget_simple_extent_npoints", name);
  std::vector<std::string> items;
  if (name == "DIMENSION_LIST") {
    const Handle type(check(H5Tvlen_create(H5T_STD_REF_OBJ), "H5Tvlen_create", name), H5Tclose);
    std::vector<hvl_t> lists(static_cast<std::size_t>(n));
    if (n > 0) check_status(H5Aread(attr.id(), type.id(), lists.data()), "H5Aread", name);
    for (const hvl_t& l : lists) {
      std::string axis;
      for (std::size_t k = 0; k < l.len; ++k)
        axis += (k > 0 ? "|" : "") + referenced_name(obj, static_cast<const hobj_ref_t*>(l.p)[k]);
      items.push_back(axis);
    }
    if (n > 0) H5Dvlen_reclaim(type.id(), space.id(), H5P_DEFAULT, lists.data());
  } else {
    struct Link {
      hobj_ref_t ref;
      int axis;
    };
    const Handle type(check(H5Tcreate(H5T_COMPOUND, sizeof(Link)), "H5Tcreate", name), H5Tclose);
    check_status(H5Tinsert(type.id(), "dataset", HOFFSET(Link, ref), H5T_STD_REF_OBJ), "H5Tinsert", name);
    check_status(H5Tinsert(type.id(), "dimension", HOFFSET(Link, axis), H5T_NATIVE_INT), "H5Tinsert", name);
    std::vector<Link> links(static_cast<std::size_t>(n));
    if (n > 0) check_status(H5Aread(attr.id(), type.id(), links.data()), "H5Aread", name);
    for (const Link& l : links) items.push_back(referenced_name(obj, l.ref) + ":" + std::to_string(l.axis));
    std::sort(items.begin(), items.end());
  }
  std::string s = "[";
  for (std::size_t k = 0; k < items.size(); ++k) s += (k > 0 ? ", " : "") + items[k];
  return s + "]";
}

}  // namespace

std::string attr_text(hid_t obj, const std::string& name) {
  if (name == "DIMENSION_LIST" || name == "REFERENCE_LIST") return dimension_link_text(obj, name);
  const AttrValue a(obj, name);
  const bool scalar = H5Sget_simple_extent_type(a.space.id()) == H5S_SCALAR;
  if (scalar && a.n == 1) return element_text(a, 0);
  const bool quote = H5Tget_class(a.mem_type.id()) == H5T_STRING;
  std::string s = "[";
  for (hssize_t k = 0; k < a.n; ++k) {
    const std::string e = element_text(a, k);
    s += (k > 0 ? ", " : "") + (quote ? "'" + e + "'" : e);
  }
  return s + "]";
}

void copy_attributes(hid_t from, hid_t to, const std::set<std::string>& skip) {
  for (const std::string& name : attr_names(from)) {
    if (skip.count(name) > 0) continue;
    const AttrValue a(from, name);
    if (H5Aexists(to, name.c_str()) > 0) check_status(H5Adelete(to, name.c_str()), "H5Adelete", name);
    Handle attr(check(H5Acreate2(to, name.c_str(), a.file_type.id(), a.space.id(), H5P_DEFAULT, H5P_DEFAULT),
                      "H5Acreate2", name),
                H5Aclose);
    if (a.n > 0) check_status(H5Awrite(attr.id(), a.mem_type.id(), a.bytes.data()), "H5Awrite", name);
  }
}

std::vector<std::string> read_strings(hid_t loc, const std::string& path) {
  Handle dset(check(H5Dopen2(loc, path.c_str(), H5P_DEFAULT), "H5Dopen2", path), H5Dclose);
  Handle ftype(check(H5Dget_type(dset.id()), "H5Dget_type", path), H5Tclose);
  if (H5Tget_class(ftype.id()) != H5T_STRING) fail("read_strings: not strings", path);
  Handle space(check(H5Dget_space(dset.id()), "H5Dget_space", path), H5Sclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.id());
  if (n < 0) fail("H5Sget_simple_extent_npoints", path);
  std::vector<std::string> out;
  if (n == 0) return out;
  if (H5Tis_variable_str(ftype.id()) > 0) {
    Handle mtype(check(H5Tcopy(H5T_C_S1), "H5Tcopy", path), H5Tclose);
    check_status(H5Tset_size(mtype.id(), H5T_VARIABLE), "H5Tset_size", path);
    check_status(H5Tset_cset(mtype.id(), H5Tget_cset(ftype.id())), "H5Tset_cset", path);
    std::vector<char*> ptrs(static_cast<std::size_t>(n), nullptr);
    check_status(H5Dread(dset.id(), mtype.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), "H5Dread", path);
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(mtype.id(), space.id(), H5P_DEFAULT, ptrs.data());
    return out;
  }
  const std::size_t size = H5Tget_size(ftype.id());
  std::vector<char> bytes(static_cast<std::size_t>(n) * size);
  check_status(H5Dread(dset.id(), ftype.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "H5Dread", path);
  for (hssize_t k = 0; k < n; ++k) {
    std::string s(bytes.data() + static_cast<std::size_t>(k) * size, size);
    out.push_back(s.substr(0, s.find('\0')));
  }
  return out;
}

void read_block(hid_t dset, const DatasetShape& shape, const std::vector<hsize_t>& start,
                const std::vector<hsize_t>& count, std::vector<unsigned char>& out) {
  hsize_t n = 1;
  for (hsize_t c : count) n *= c;
  out.resize(static_cast<std::size_t>(n) * shape.element_size);
  if (n == 0) return;
  Handle fspace(check(H5Dget_space(dset), "H5Dget_space", "block"), H5Sclose);
  if (!count.empty())
    check_status(H5Sselect_hyperslab(fspace.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                 "H5Sselect_hyperslab", "block");
  Handle mspace(count.empty() ? H5Screate(H5S_SCALAR)
                              : H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                H5Sclose);
  check(mspace.id(), "H5Screate_simple", "block");
  check_status(H5Dread(dset, shape.native_type.id(), mspace.id(), fspace.id(), H5P_DEFAULT, out.data()), "H5Dread",
               "block");
}

}  // namespace simphant::h5
