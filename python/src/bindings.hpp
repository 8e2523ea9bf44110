#pragma once
// The nanobind module simphant._simphant: one bind_* function per part, called by
// module.cpp. This layer converts arguments and arrays and maps exceptions; the Python
// package (python/simphant/) adds the public names, type hints and docstrings.
#include <nanobind/nanobind.h>

namespace simphant::python {

void bind_errors(nanobind::module_& m);
void bind_scene(nanobind::module_& m);
void bind_simulator(nanobind::module_& m);
void bind_run(nanobind::module_& m);
void bind_merge(nanobind::module_& m);
void bind_mjcf(nanobind::module_& m);
void bind_contact(nanobind::module_& m);

}  // namespace simphant::python
