// C++ exceptions -> Python exceptions, message unchanged (docs/python.md, "Errors"):
//   SceneError (bad scene; the message starts with the JSON path) -> ValueError
//   BackendError (no device, device too small, a failed CUDA call) -> simphant.BackendError
//                                                                    (a RuntimeError)
//   MergeError (shards that do not make one design, job/merge.hpp) -> ValueError
//   h5::H5Error (the output file)                                  -> OSError
// std::invalid_argument -> ValueError, std::out_of_range -> IndexError and any other
// std::exception -> RuntimeError are nanobind's own translations.
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "simphant/io/h5_file.hpp"
#include "simphant/job/merge.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/backend_error.hpp"

namespace nb = nanobind;

namespace simphant::python {

void bind_errors(nb::module_& m) {
  nb::exception<BackendError>(m, "BackendError", PyExc_RuntimeError);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const SceneError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const MergeError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const h5::H5Error& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });
}

}  // namespace simphant::python
