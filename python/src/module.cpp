// simphant._simphant: the compiled part of the Python package (docs/python.md).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "simphant/model/components.hpp"
#include "simphant/sim/cuda_factory.hpp"

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
  m.attr("components") = components;
  simphant::python::bind_errors(m);
  simphant::python::bind_scene(m);
  simphant::python::bind_simulator(m);
  simphant::python::bind_run(m);
  simphant::python::bind_merge(m);
}
