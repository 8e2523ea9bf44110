#pragma once
// The simulator as the module holds it: the C++ Simulator, the scene it came from, and a
// lock so that calls from several Python threads (the GIL is released while stepping)
// never run at once (Simulator is not thread-safe).
#include <memory>
#include <mutex>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant::python {

struct PySimulator {
  std::shared_ptr<const Scene> scene;
  std::unique_ptr<Simulator> sim;
  std::mutex mutex;
  /// The device array last given to set_inputs on a GPU backend: the device reads it in
  /// stream order, so it is kept alive until the next set_inputs.
  nanobind::ndarray<const double, nanobind::c_contig> device_inputs;
};

void bind_simulator_state(nanobind::class_<PySimulator>& cls);

}  // namespace simphant::python
