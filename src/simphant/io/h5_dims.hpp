#pragma once
// Named dimensions for the run's HDF5 file, the netCDF-4 way, so that
// `xarray.open_dataset(path, engine="h5netcdf")` (and netCDF readers) see named
// dimensions with coordinates instead of phony_dim_N: each dimension is a 1-D
// coordinate dataset at the root made an HDF5 dimension scale (H5DS, hdf5_hl) whose
// name is the dimension's ("time", "instance", "body", "joint", "state_component", ...),
// and each axis of a data dataset is attached to the scale of its dimension.
// Every dataset also carries a `units` attribute: one SI string ("s", "m", "N", "N m",
// "J", "1" for dimensionless) or, where the last axis mixes quantities (the 13 numbers of
// a body state), one string per entry of that axis.
//
// Adding a dataset (another branch's /joint_loads):
//   h5::ensure_coordinate(file, "load_component", {"F_x", "F_y", "F_z", "M_x", "M_y", "M_z"});
//   h5::attach_dimensions(file, "joint_loads", {"time", "instance", "joint", "load_component"});
//   h5::write_units(dset, {"N", "N", "N", "N m", "N m", "N m"});
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/io/h5_file.hpp"

namespace simphant::h5 {

/// Makes the existing 1-D dataset `path` (below `file`) the dimension scale named
/// `dim_name` (e.g. the extendible /time). Throws H5Error.
void make_dimension_scale(hid_t file, const std::string& path, const std::string& dim_name);

/// Creates, unless it exists, the 1-D coordinate dataset /<name> holding `labels`
/// (variable-length UTF-8 strings) as the dimension scale `name`. When it exists, its
/// length must be labels.size() (H5Error otherwise: two datasets disagree about the
/// dimension). Zero labels make a zero-length dimension.
void ensure_coordinate(hid_t file, const std::string& name, const std::vector<std::string>& labels);
/// The same with integer values (e.g. /instance = the design's instance numbers).
void ensure_coordinate(hid_t file, const std::string& name, const std::vector<std::int64_t>& values,
                       const std::string& units = "1");

/// Attaches axis k of the dataset `path` to the dimension scale /<dims[k]> (which must
/// exist: ensure_coordinate or make_dimension_scale). dims.size() must equal the rank.
/// Throws H5Error naming the dataset and the dimension.
void attach_dimensions(hid_t file, const std::string& path, const std::vector<std::string>& dims);

/// The `units` attribute of `obj`: one string, or one per entry of the last axis.
void write_units(hid_t obj, const std::string& units);
void write_units(hid_t obj, const std::vector<std::string>& units);
/// write_units on the object at `path` below `file`.
void write_units_at(hid_t file, const std::string& path, const std::string& units);

/// Removes the object `path` below `file` (a dataset or a group of them) after
/// detaching every dataset in it from its dimension scales, so that no scale's
/// REFERENCE_LIST keeps a link to a removed dataset (a /reductions group that a stopped
/// run wrote and its resume writes again). Throws H5Error.
void remove_with_dimensions(hid_t file, const std::string& path);

/// The names of the dimension scales attached to each axis of dataset `path` ("" for
/// an axis without one). Throws H5Error.
std::vector<std::string> dimension_names(hid_t file, const std::string& path);

}  // namespace simphant::h5
