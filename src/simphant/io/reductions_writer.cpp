#include "simphant/io/reductions_writer.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "simphant/io/h5_dims.hpp"
#include "simphant/sim/contact_frames.hpp"

namespace simphant {

namespace {

/// The shape (I, ...), dimensions, label coordinates and units per entry of the last axis
/// of quantity q's datasets in /reductions (one frame of its dataset without T).
struct QuantityLayout {
  std::vector<hsize_t> shape;
  std::vector<std::string> dims{"instance"};
  std::vector<std::pair<std::string, std::vector<std::string>>> coordinates;
  std::vector<std::string> value_units;
};

QuantityLayout quantity_layout(ReductionQuantity quantity, const Model& model, int n_instances, int width,
                               const std::vector<std::string>& components, const std::vector<std::string>& units,
                               const std::vector<std::string>& driver_names) {
  const auto J = static_cast<hsize_t>(model.n_joints());
  QuantityLayout out;
  out.shape.push_back(static_cast<hsize_t>(n_instances));
  out.value_units = units;
  std::vector<hsize_t>& shape = out.shape;
  std::vector<std::string>& dims = out.dims;
  auto& coordinates = out.coordinates;
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
      for (std::string& u : out.value_units)
        if (u.empty()) u = "1";  // the NaN coordinate of a joint type without one
      break;
    default: break;
  }
  return out;
}

/// Calls f(q, width, components, units, layout) for each quantity of L in `written` with
/// at least one component.
template <class F>
void for_each_written(const Model& model, const ReductionLayout& L, int n_instances,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units,
                      const std::vector<ReductionQuantity>& written, F f) {
  for (int q = 0; q < kReductionQuantities; ++q) {
    const auto quantity = static_cast<ReductionQuantity>(q);
    if (!L.enabled(quantity) || std::find(written.begin(), written.end(), quantity) == written.end()) continue;
    const int width = reduction_components(q, model.n_joints(), static_cast<int>(driver_names.size()),
                                           model.contact_pair_count());
    if (width == 0) continue;  // driver_loads of a scene without drivers
    const std::vector<std::string> components = reduction_components(quantity, model, driver_names);
    const std::vector<std::string> units = reduction_units(quantity, model, driver_units);
    f(q, width, components, units, quantity_layout(quantity, model, n_instances, width, components, units, driver_names));
  }
}

/// Replaces the group `name` at the root of the file with an empty one.
void fresh_group(hid_t file, const char* name) {
  if (h5::exists(file, name)) h5::remove_with_dimensions(file, name);  // a stopped run's, resumed
  h5::create_group(file, name);
}

/// The quantity group's attributes: components, units, sampled.
void describe_group(hid_t file, const std::string& group, const Model& model, const std::vector<std::string>& components,
                    const std::vector<std::string>& units) {
  const h5::Handle g(H5Gopen2(file, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw h5::H5Error("H5Gopen2 failed: /" + group);
  h5::write_attr(g.id(), "components", components);
  h5::write_attr(g.id(), "units", units);
  // bdf samples the state at each grid time (steps of dt), as the fixed-step integrators
  // do, not at CVODE's internal steps (docs/solver.md, "The bdf integrator").
  h5::write_attr(g.id(), "sampled", model.solver.integrator == Integrator::Bdf ? "every grid step of dt" : "every step");
}

}  // namespace

void write_reductions(Recorder& recorder, const Model& model, const ReductionLayout& L, int n_instances, const double* stats,
                      const std::vector<std::string>& driver_names, const std::vector<std::string>& driver_units,
                      const std::vector<ReductionQuantity>& written) {
  if (!L.any() || written.empty()) return;
  const hid_t file = recorder.file_id();
  fresh_group(file, "reductions");
  const int n = n_instances, C = L.channels;
  for_each_written(model, L, n, driver_names, driver_units, written,
                   [&](int q, int width, const std::vector<std::string>& components,
                       const std::vector<std::string>& units, const QuantityLayout& ql) {
                     const std::string group = std::string("reductions/") + reduction_quantity_name(static_cast<ReductionQuantity>(q));
                     std::vector<double> values(static_cast<std::size_t>(n) * width);
                     for (int s = 0; s < kReductionStats; ++s) {
                       for (int i = 0; i < n; ++i)
                         for (int c = 0; c < width; ++c)
                           values[static_cast<std::size_t>(i) * width + c] =
                               stats[(static_cast<std::size_t>(i) * C + L.offset[q] + c) * kReductionStats + s];
                       const bool time = s == kReductionStats - 1;
                       recorder.write_instance_dataset(group + "/" + reduction_stat_name(s), ql.shape, values.data(),
                                                       ql.dims, time ? std::vector<std::string>{"s"} : ql.value_units,
                                                       ql.coordinates);
                     }
                     describe_group(file, group, model, components, units);
                   });
  h5::flush(file);
}

void write_reduction_sensitivities(Recorder& recorder, const Model& model, const ReductionLayout& L, int n_instances,
                                   const double* dstats, const std::vector<std::string>& paths,
                                   const std::vector<std::string>& driver_names,
                                   const std::vector<std::string>& driver_units,
                                   const std::vector<ReductionQuantity>& written) {
  if (!L.any() || written.empty() || paths.empty()) return;
  const hid_t file = recorder.file_id();
  fresh_group(file, "reduction_sensitivities");
  const int n = n_instances, C = L.channels, S = static_cast<int>(paths.size());
  for_each_written(model, L, n, driver_names, driver_units, written,
                   [&](int q, int width, const std::vector<std::string>& components,
                       const std::vector<std::string>& units, QuantityLayout ql) {
                     // The violation is the solve's rounding: its change is not a derivative.
                     if (q == static_cast<int>(ReductionQuantity::ConstraintViolation)) return;
                     const std::string group = std::string("reduction_sensitivities/") + reduction_quantity_name(static_cast<ReductionQuantity>(q));
                     ql.shape.push_back(static_cast<hsize_t>(S));
                     ql.dims.push_back("parameter");
                     ql.coordinates.push_back({"parameter", paths});
                     // The last axis is the parameter's: the units of each component are
                     // the group's `units`, each per the parameter's unit.
                     const std::string unit = std::string("(") + reduction_quantity_name(static_cast<ReductionQuantity>(q)) +
                                              " unit) / parameter unit";
                     std::vector<double> values(static_cast<std::size_t>(n) * width * S);
                     for (int st = 0; st < kReductionTangentStats; ++st) {
                       for (int i = 0; i < n; ++i)
                         for (int c = 0; c < width; ++c)
                           for (int p = 0; p < S; ++p)
                             values[(static_cast<std::size_t>(i) * width + c) * S + p] =
                                 dstats[((static_cast<std::size_t>(i) * C + L.offset[q] + c) * kReductionTangentStats +
                                         st) * S + p];
                       recorder.write_instance_dataset(group + "/" + reduction_stat_name(st), ql.shape, values.data(),
                                                       ql.dims, {unit}, ql.coordinates);
                     }
                     describe_group(file, group, model, components, units);
                   });
  h5::flush(file);
}

}  // namespace simphant
