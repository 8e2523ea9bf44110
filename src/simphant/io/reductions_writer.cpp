#include "simphant/io/reductions_writer.hpp"

#include <cstddef>

namespace simphant {

void write_reductions(hid_t file, const Model& model, const ReductionLayout& L, int n_instances, const double* stats,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units) {
  if (!L.any()) return;
  if (h5::exists(file, "reductions")) h5::remove_link(file, "reductions");
  h5::Handle root = h5::create_group(file, "reductions");
  const auto I = static_cast<hsize_t>(n_instances);
  const auto J = static_cast<hsize_t>(model.n_joints());
  const int C = L.channels;
  for (int q = 0; q < kReductionQuantities; ++q) {
    const auto quantity = static_cast<ReductionQuantity>(q);
    if (!L.enabled(quantity)) continue;
    const int width = reduction_components(q, model.n_joints(), static_cast<int>(driver_names.size()));
    if (width == 0) continue;  // driver_loads of a scene without drivers
    std::vector<hsize_t> dims{I};
    switch (quantity) {
      case ReductionQuantity::Reactions: dims.insert(dims.end(), {J, 8}); break;
      case ReductionQuantity::JointLoads: dims.insert(dims.end(), {J, kJointLoadComponents}); break;
      case ReductionQuantity::BearingLoads: dims.insert(dims.end(), {J, kBearingLoadComponents}); break;
      case ReductionQuantity::DriverLoads: dims.push_back(static_cast<hsize_t>(width)); break;
      case ReductionQuantity::JointCoordinates: dims.push_back(J); break;
      default: break;
    }
    h5::Handle g = h5::create_group(root.id(), reduction_quantity_name(quantity));
    std::vector<double> values(static_cast<std::size_t>(n_instances) * width);
    for (int s = 0; s < kReductionStats; ++s) {
      for (int i = 0; i < n_instances; ++i)
        for (int c = 0; c < width; ++c)
          values[static_cast<std::size_t>(i) * width + c] =
              stats[(static_cast<std::size_t>(i) * C + L.offset[q] + c) * kReductionStats + s];
      h5::write_dataset(g.id(), reduction_stat_name(s), H5T_NATIVE_DOUBLE, dims, values.data());
    }
    h5::write_attr(g.id(), "components", reduction_components(quantity, model, driver_names));
    h5::write_attr(g.id(), "units", reduction_units(quantity, model, driver_units));
    h5::write_attr(g.id(), "sampled", "every step");
  }
  h5::flush(file);
}

}  // namespace simphant
