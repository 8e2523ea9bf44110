#include "simphant/io/reductions_writer.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "simphant/io/h5_dims.hpp"
#include "simphant/sim/contact_frames.hpp"

namespace simphant {

void write_reductions(Recorder& recorder, const Model& model, const ReductionLayout& L, int n_instances, const double* stats,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units,
                      const std::vector<ReductionQuantity>& written) {
  if (!L.any() || written.empty()) return;
  const hid_t file = recorder.file_id();
  if (h5::exists(file, "reductions")) h5::remove_with_dimensions(file, "reductions");  // a stopped run's, resumed
  h5::create_group(file, "reductions");
  const int n = n_instances;
  const auto I = static_cast<hsize_t>(n);
  const auto J = static_cast<hsize_t>(model.n_joints());
  const int C = L.channels;
  for (int q = 0; q < kReductionQuantities; ++q) {
    const auto quantity = static_cast<ReductionQuantity>(q);
    if (!L.enabled(quantity) || std::find(written.begin(), written.end(), quantity) == written.end()) continue;
    const int width = reduction_components(q, model.n_joints(), static_cast<int>(driver_names.size()),
                                           model.contact_pair_count());
    if (width == 0) continue;  // driver_loads of a scene without drivers
    const std::vector<std::string> components = reduction_components(quantity, model, driver_names);
    const std::vector<std::string> units = reduction_units(quantity, model, driver_units);
    std::vector<hsize_t> shape{I};
    std::vector<std::string> dims{"instance"};
    std::vector<std::pair<std::string, std::vector<std::string>>> coordinates;
    std::vector<std::string> value_units = units;  // per entry of the last axis
    switch (quantity) {
      case ReductionQuantity::Reactions:
        shape.insert(shape.end(), {J, 8});
        dims.insert(dims.end(), {"joint", "reaction_reduction_component"});
        coordinates.push_back({"reaction_reduction_component", components});
        break;
      case ReductionQuantity::JointLoads:
        shape.insert(shape.end(), {J, kJointLoadComponents});
        dims.insert(dims.end(), {"joint", "joint_load_component"});
        coordinates.push_back({"joint_load_component", components});
        break;
      case ReductionQuantity::BearingLoads:
        shape.insert(shape.end(), {J, kBearingLoadComponents});
        dims.insert(dims.end(), {"joint", "bearing_component"});
        coordinates.push_back({"bearing_component", components});
        break;
      case ReductionQuantity::DriverLoads:
        shape.push_back(static_cast<hsize_t>(width));
        dims.push_back("driver");
        coordinates.push_back({"driver", driver_names});
        break;
      case ReductionQuantity::Contacts:
        shape.insert(shape.end(), {static_cast<hsize_t>(model.contact_pair_count()), kContactSummaryComponents});
        dims.insert(dims.end(), {"contact_pair", "contact_component"});
        coordinates.push_back({"contact_pair", contact_pair_names(model)});
        coordinates.push_back({"contact_component", components});
        break;
      case ReductionQuantity::JointCoordinates:
        shape.push_back(J);
        dims.push_back("joint");
        for (std::string& u : value_units)
          if (u.empty()) u = "1";  // the NaN coordinate of a joint type without one
        break;
      default: break;
    }
    const std::string group = std::string("reductions/") + reduction_quantity_name(quantity);
    std::vector<double> values(static_cast<std::size_t>(n) * width);
    for (int s = 0; s < kReductionStats; ++s) {
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < width; ++c)
          values[static_cast<std::size_t>(i) * width + c] =
              stats[(static_cast<std::size_t>(i) * C + L.offset[q] + c) * kReductionStats + s];
      const bool time = s == kReductionStats - 1;
      recorder.write_instance_dataset(group + "/" + reduction_stat_name(s), shape, values.data(), dims,
                                      time ? std::vector<std::string>{"s"} : value_units, coordinates);
    }
    const h5::Handle g(H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose);
    if (!g.valid()) throw h5::H5Error("H5Gopen2 failed: /" + group);
    h5::write_attr(g.id(), "components", components);
    h5::write_attr(g.id(), "units", units);
    // bdf samples the state at each grid time (steps of dt), as the fixed-step integrators
    // do, not at CVODE's internal steps (docs/solver.md, "The bdf integrator").
    h5::write_attr(g.id(), "sampled", model.solver.integrator == Integrator::Bdf ? "every grid step of dt" : "every step");
  }
  h5::flush(file);
}

}  // namespace simphant
