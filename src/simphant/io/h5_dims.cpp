#include "simphant/io/h5_dims.hpp"

#include <hdf5_hl.h>

namespace simphant::h5 {

namespace {

Handle open_dataset(hid_t file, const std::string& path) {
  const hid_t id = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  if (id < 0) throw H5Error("H5Dopen2(" + path + ") failed");
  return Handle(id, H5Dclose);
}

std::string scale_name(hid_t scale) {
  const ssize_t n = H5DSget_scale_name(scale, nullptr, 0);
  if (n <= 0) return {};
  std::string name(static_cast<std::size_t>(n) + 1, '\0');
  H5DSget_scale_name(scale, name.data(), name.size());
  name.resize(static_cast<std::size_t>(n));
  return name;
}

/// An existing coordinate /<name> of `length` entries, or false when absent.
bool existing_coordinate(hid_t file, const std::string& name, std::size_t length) {
  if (!exists(file, name)) return false;
  const std::vector<hsize_t> dims = dataset_dims(file, name);
  if (dims.size() != 1 || dims[0] != length)
    throw H5Error("/" + name + ": the dimension '" + name + "' has " + std::to_string(dims.empty() ? 0 : dims[0]) +
                  " entries, a dataset needs " + std::to_string(length));
  return true;
}

}  // namespace

void make_dimension_scale(hid_t file, const std::string& path, const std::string& dim_name) {
  const Handle d = open_dataset(file, path);
  if (H5DSis_scale(d.id()) > 0) return;
  if (H5DSset_scale(d.id(), dim_name.c_str()) < 0) throw H5Error("H5DSset_scale(" + path + ") failed");
}

void ensure_coordinate(hid_t file, const std::string& name, const std::vector<std::string>& labels) {
  if (existing_coordinate(file, name, labels.size())) return;
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  if (!type.valid() || H5Tset_size(type.id(), H5T_VARIABLE) < 0 || H5Tset_cset(type.id(), H5T_CSET_UTF8) < 0)
    throw H5Error("string type for /" + name + " failed");
  std::vector<const char*> ptrs;
  for (const std::string& s : labels) ptrs.push_back(s.c_str());
  write_dataset(file, name, type.id(), {labels.size()}, ptrs.data());
  make_dimension_scale(file, name, name);
}

void ensure_coordinate(hid_t file, const std::string& name, const std::vector<std::int64_t>& values,
                       const std::string& units) {
  if (existing_coordinate(file, name, values.size())) return;
  write_dataset(file, name, H5T_NATIVE_INT64, {values.size()}, values.data());
  make_dimension_scale(file, name, name);
  write_units_at(file, name, units);
}

void attach_dimensions(hid_t file, const std::string& path, const std::vector<std::string>& dims) {
  const Handle d = open_dataset(file, path);
  const std::vector<hsize_t> shape = dataset_dims(file, path);
  if (shape.size() != dims.size())
    throw H5Error(path + ": rank " + std::to_string(shape.size()) + ", " + std::to_string(dims.size()) +
                  " dimension names given");
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == path) continue;  // a coordinate is its own dimension
    const Handle scale = open_dataset(file, dims[k]);
    if (H5DSattach_scale(d.id(), scale.id(), static_cast<unsigned>(k)) < 0)
      throw H5Error("H5DSattach_scale(" + path + ", axis " + std::to_string(k) + " -> " + dims[k] + ") failed");
  }
}

void remove_with_dimensions(hid_t file, const std::string& path) {
  // Every dataset below `path` (or `path` itself), then each axis' attached scales by
  // path; detached afterwards (not while H5DSiterate_scales walks the list).
  std::vector<std::string> datasets;
  const hid_t id = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  if (id < 0) throw H5Error("H5Oopen(" + path + ") failed");
  {
    const Handle obj(id, H5Oclose);
    if (H5Iget_type(obj.id()) == H5I_DATASET) {
      datasets.push_back(path);
    } else {
      const herr_t status = H5Lvisit(
          obj.id(), H5_INDEX_NAME, H5_ITER_INC,
          [](hid_t group, const char* name, const H5L_info_t* info, void* data) -> herr_t {
            if (info->type != H5L_TYPE_HARD) return 0;
            const hid_t o = H5Oopen(group, name, H5P_DEFAULT);
            if (o < 0) return -1;
            const H5I_type_t type = H5Iget_type(o);
            H5Oclose(o);
            if (type == H5I_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(name);
            return 0;
          },
          &datasets);
      if (status < 0) throw H5Error("H5Lvisit(" + path + ") failed");
      for (std::string& d : datasets) d = path + "/" + d;
    }
  }
  for (const std::string& d : datasets) {
    const Handle dset = open_dataset(file, d);
    const std::size_t rank = dataset_dims(file, d).size();
    for (std::size_t k = 0; k < rank; ++k) {
      std::vector<std::string> scales;
      if (H5DSget_num_scales(dset.id(), static_cast<unsigned>(k)) <= 0) continue;
      H5DSiterate_scales(
          dset.id(), static_cast<unsigned>(k), nullptr,
          [](hid_t, unsigned, hid_t scale, void* data) -> herr_t {
            const ssize_t n = H5Iget_name(scale, nullptr, 0);
            std::string name(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
            if (n > 0) H5Iget_name(scale, name.data(), name.size());
            name.resize(static_cast<std::size_t>(n > 0 ? n : 0));
            static_cast<std::vector<std::string>*>(data)->push_back(name);
            return 0;
          },
          &scales);
      for (const std::string& sc : scales) {
        const Handle scale = open_dataset(file, sc);
        if (H5DSdetach_scale(dset.id(), scale.id(), static_cast<unsigned>(k)) < 0)
          throw H5Error("H5DSdetach_scale(" + d + ", axis " + std::to_string(k) + " -> " + sc + ") failed");
      }
    }
  }
  remove_link(file, path);
}

void write_units(hid_t obj, const std::string& units) { write_attr(obj, "units", units); }
void write_units(hid_t obj, const std::vector<std::string>& units) { write_attr(obj, "units", units); }

void write_units_at(hid_t file, const std::string& path, const std::string& units) {
  const hid_t id = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  if (id < 0) throw H5Error("H5Oopen(" + path + ") failed");
  const Handle obj(id, H5Oclose);
  write_units(obj.id(), units);
}

std::vector<std::string> dimension_names(hid_t file, const std::string& path) {
  const Handle d = open_dataset(file, path);
  const std::size_t rank = dataset_dims(file, path).size();
  std::vector<std::string> names(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    if (H5DSis_scale(d.id()) > 0 && rank == 1) {
      names[k] = scale_name(d.id());
      continue;
    }
    if (H5DSget_num_scales(d.id(), static_cast<unsigned>(k)) <= 0) continue;
    int idx = 0;
    H5DSiterate_scales(
        d.id(), static_cast<unsigned>(k), &idx,
        [](hid_t, unsigned, hid_t scale, void* data) -> herr_t {
          *static_cast<std::string*>(data) = scale_name(scale);
          return 1;  // the first scale names the axis
        },
        &names[k]);
  }
  return names;
}

}  // namespace simphant::h5
