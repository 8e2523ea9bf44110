// simphant._simphant: the compiled part of the Python package (docs/python.md).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "simphant/core/nearest_name.hpp"
#include "simphant/model/components.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/cuda_factory.hpp"
#include "simphant/urdf/urdf_mesh.hpp"

namespace nb = nanobind;

namespace {

/// [(name, unit), ...] of a component table (model/components.hpp).
template <std::size_t N>
nb::list component_list(const std::array<simphant::Component, N>& table) {
  nb::list out;
  for (const simphant::Component& c : table) out.append(nb::make_tuple(c.name, c.unit));
  return out;
}

}  // namespace

NB_MODULE(_simphant, m) {
  m.doc() = "SimPhant's C++ core (internal: use the simphant package)";
  m.attr("__version__") = SIMPHANT_VERSION;
  m.def("cuda_built", &simphant::cuda_backend_built, "True when this build has the CUDA backends.");
  m.def("cuda_device_count", &simphant::cuda_device_count, "Number of usable CUDA devices (0 without).");
  // The output's component names and units (model/components.hpp): one table for C++ and Python.
  nb::dict components;
  components["state"] = component_list(simphant::kStateTable);
  components["reactions"] = component_list(simphant::kReactionTable);
  components["reaction_magnitudes"] = component_list(simphant::kReactionMagnitudeTable);
  components["joint_loads"] = component_list(simphant::kJointLoadTable);
  components["bearing_loads"] = component_list(simphant::kBearingTable);
  components["contacts"] = component_list(simphant::kContactTable);
  m.attr("components") = components;
  // The command line's typo hints (core/nearest_name.hpp), for `simphant serve` and `view`.
  m.def("edit_distance", &simphant::edit_distance, nb::arg("a"), nb::arg("b"));
  m.def("nearest_name", &simphant::nearest_name, nb::arg("word"), nb::arg("candidates"));
  // Where a URDF's filename points (urdf/urdf_mesh.hpp), for the service's 3D replay.
  m.def("resolve_urdf_filename", &simphant::resolve_urdf_filename, nb::arg("name"), nb::arg("urdf_dir"),
        "The file a URDF filename names for a URDF in urdf_dir; '' when none is found (urdf/urdf_mesh.hpp).");
  // The backend rules (sim/backend_rules.hpp), for the service's check of a submission.
  m.def(
      "refuse_backend_settings",
      [](const std::string& backend, const std::string& precision,
         const std::string& integrator) -> std::optional<std::pair<std::string, std::string>> {
        simphant::BackendSettings s{backend, precision, simphant::Integrator::Rk4};
        if (!simphant::parse_integrator(integrator, s.integrator))
          throw nb::value_error(("unknown integrator '" + integrator + "'").c_str());
        const std::optional<simphant::BackendRefusal> r = simphant::refuse_backend_settings(s);
        if (!r) return std::nullopt;
        return std::make_pair(r->setting, r->reason);
      },
      nb::arg("backend"), nb::arg("precision"), nb::arg("integrator"),
      "(setting, reason) of the first backend rule the settings break, or None (sim/backend_rules.hpp).");
  simphant::python::bind_errors(m);
  simphant::python::bind_scene(m);
  simphant::python::bind_mjcf(m);
  simphant::python::bind_simulator(m);
  simphant::python::bind_run(m);
  simphant::python::bind_merge(m);
  simphant::python::bind_contact(m);
}
