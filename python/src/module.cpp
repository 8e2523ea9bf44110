// simphant._simphant: the compiled part of the Python package (docs/python.md).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace nb = nanobind;

NB_MODULE(_simphant, m) {
  m.doc() = "SimPhant's C++ core (internal: use the simphant package)";
  m.attr("__version__") = SIMPHANT_VERSION;
  m.def("cuda_built", &simphant::cuda_backend_built, "True when this build has the CUDA backends.");
  m.def("cuda_device_count", &simphant::cuda_device_count, "Number of usable CUDA devices (0 without).");
  simphant::python::bind_errors(m);
  simphant::python::bind_scene(m);
  simphant::python::bind_simulator(m);
  simphant::python::bind_run(m);
  simphant::python::bind_merge(m);
}
