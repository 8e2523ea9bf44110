// _Simulator's per-instance state: get_state / set_state / reset / set_parameters /
// set_inputs of listed instances (Simulator's contract, sim/simulator.hpp), and zero-copy views of the
// backend's state and input arrays (NumPy on the host, DLPack on a device).
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "py_arrays.hpp"
#include "py_simulator.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

using Ids = std::optional<HostArray<const std::int32_t>>;

/// (pointer, count) of an optional id list: (nullptr, n_instances) for every instance.
std::pair<const int*, int> id_list(const PySimulator& s, const Ids& ids) {
  if (!ids) return {nullptr, s.sim->n_instances()};
  return {reinterpret_cast<const int*>(ids->data()), static_cast<int>(ids->size())};
}

/// A view of backend memory as a Python object that keeps `self` alive: a NumPy array on
/// the host, an object with __dlpack__ / __dlpack_device__ on a device. None when the
/// backend has no such array.
nb::object view(const ArrayView& v, nb::handle self) {
  if (v.data == nullptr) return nb::none();
  const std::size_t shape[3] = {static_cast<std::size_t>(v.shape[0]), static_cast<std::size_t>(v.shape[1]),
                                static_cast<std::size_t>(v.shape[2])};
  const nb::dlpack::dtype dtype = v.dtype_bits == 32 ? nb::dtype<float>() : nb::dtype<double>();
  if (!v.device) {
    nb::ndarray<nb::numpy> a(v.data, static_cast<std::size_t>(v.ndim), shape, self, v.strides, dtype,
                             nb::device::cpu::value);
    return nb::cast(a, nb::rv_policy::reference);
  }
  nb::ndarray<> a(v.data, static_cast<std::size_t>(v.ndim), shape, self, v.strides, dtype, nb::device::cuda::value, 0);
  return nb::cast(a, nb::rv_policy::reference);
}

}  // namespace

void bind_simulator_state(nb::class_<PySimulator>& cls) {
  cls.def(
         "get_state",
         [](PySimulator& s, Ids ids, HostArray<double> y, HostArray<std::int64_t> steps,
            HostArray<std::int8_t> status, HostArray<std::int64_t> status_steps, HostArray<std::uint64_t> episodes,
            HostArray<std::int8_t> status_reasons) {
           const auto [p, k] = id_list(s, ids);
           const std::size_t n = static_cast<std::size_t>(k);
           double* py = checked("y", y, n * static_cast<std::size_t>(s.sim->state_size()));
           std::int64_t* ps = checked("steps", steps, n);
           std::int8_t* pst = checked("status", status, n);
           std::int64_t* pss = checked("status_steps", status_steps, n);
           std::uint64_t* pe = checked("episodes", episodes, n);
           std::int8_t* pr = checked("status_reasons", status_reasons, n);
           nb::gil_scoped_release release;
           std::lock_guard<std::mutex> lock(s.mutex);
           s.sim->get_state(p, k, py, ps, pst, pss, pe, pr);
         },
         nb::arg("ids").none(), nb::arg("y"), nb::arg("steps"), nb::arg("status"), nb::arg("status_steps"),
         nb::arg("episodes"), nb::arg("status_reasons"))
      .def(
          "set_state",
          [](PySimulator& s, Ids ids, HostArray<const double> y, HostArray<const std::int64_t> steps,
             HostArray<const std::int8_t> status, HostArray<const std::int64_t> status_steps,
             HostArray<const std::uint64_t> episodes, HostArray<const std::int8_t> status_reasons) {
            const auto [p, k] = id_list(s, ids);
            const std::size_t n = static_cast<std::size_t>(k);
            // status_reasons: n reasons, or none (size 0: each status keeps or gets its reason,
            // Backend::set_state).
            if (y.size() != n * static_cast<std::size_t>(s.sim->state_size()) || steps.size() != n ||
                status.size() != n || status_steps.size() != n || episodes.size() != n ||
                (status_reasons.size() != n && status_reasons.size() != 0))
              throw std::invalid_argument("state: its arrays do not match " + std::to_string(k) + " instances");
            const std::int8_t* reasons = status_reasons.size() == 0 ? nullptr : status_reasons.data();
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->set_state(p, k, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data(),
                             reasons);
          },
          nb::arg("ids").none(), nb::arg("y"), nb::arg("steps"), nb::arg("status"), nb::arg("status_steps"),
          nb::arg("episodes"), nb::arg("status_reasons"))
      .def(
          "reset",
          [](PySimulator& s, Ids ids, bool resample) {
            const auto [p, k] = id_list(s, ids);
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->reset(p, k, resample);
          },
          nb::arg("ids").none(), nb::arg("resample"))
      .def(
          "set_parameters",
          [](PySimulator& s, Ids ids, const std::vector<std::string>& paths, HostArray<const double> values) {
            const auto [p, k] = id_list(s, ids);
            const std::size_t expected = static_cast<std::size_t>(k) * paths.size();
            if (values.size() != expected)
              throw std::invalid_argument("values: has " + std::to_string(values.size()) + " elements, expected " +
                                          std::to_string(expected) + " (ids x paths)");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->set_parameters(p, k, paths.data(), static_cast<int>(paths.size()), values.data());
          },
          nb::arg("ids").none(), nb::arg("paths"), nb::arg("values"))
      .def(
          "parameter_overrides",
          [](PySimulator& s, int instance) {
            std::lock_guard<std::mutex> lock(s.mutex);
            return s.sim->parameter_overrides(instance);
          },
          nb::arg("instance"))
      .def(
          "set_inputs",
          [](PySimulator& s, nb::ndarray<const double, nb::c_contig> u, Ids ids) {
            const auto [p, k] = id_list(s, ids);
            const std::size_t expected = static_cast<std::size_t>(k) * static_cast<std::size_t>(s.sim->model().n_inputs);
            if (u.size() != expected)
              throw std::invalid_argument("u: has " + std::to_string(u.size()) + " elements, expected " +
                                          std::to_string(expected) + " (ids x n_inputs)");
            if (u.device_type() == nb::device::cuda::value) {
              if (ids) throw std::invalid_argument("u: a device array sets every instance's inputs; ids must be None");
              nb::gil_scoped_release release;
              std::lock_guard<std::mutex> lock(s.mutex);
              s.sim->set_inputs_device(u.data());
              s.device_inputs = u;  // read by the device in stream order: keep it alive
              return;
            }
            if (u.device_type() != nb::device::cpu::value)
              throw std::invalid_argument("u: an array on device type " + std::to_string(u.device_type()) +
                                          " (host memory or a CUDA device array expected)");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            if (ids)
              s.sim->set_inputs(p, k, u.data());
            else
              s.sim->set_inputs(u.data());
          },
          nb::arg("u"), nb::arg("ids").none())
      .def(
          "state_view",
          [](nb::handle self) {
            PySimulator& s = nb::cast<PySimulator&>(self);
            std::lock_guard<std::mutex> lock(s.mutex);
            return view(s.sim->state_view(), self);
          })
      .def("state_sensitivities_view",
           [](nb::handle self) {
             PySimulator& s = nb::cast<PySimulator&>(self);
             std::lock_guard<std::mutex> lock(s.mutex);
             return view(s.sim->state_sensitivities_view(), self);
           })
      .def("inputs_view",
           [](nb::handle self) {
             PySimulator& s = nb::cast<PySimulator&>(self);
             std::lock_guard<std::mutex> lock(s.mutex);
             return view(s.sim->inputs_view(), self);
           })
      // Link frames of a robot scene (Simulator::read_link_frames; docs/robots.md, "Link frames").
      .def_prop_ro("n_link_frames", [](const PySimulator& s) { return s.sim->n_link_frames(); })
      .def("link_frame_index", [](const PySimulator& s, const std::string& name) { return s.sim->link_frame_index(name); },
           nb::arg("name"))
      .def("link_tree",
           [](const PySimulator& s) {
             LinkTree t = s.sim->link_tree();
             return std::make_tuple(std::move(t.names), std::move(t.parents), t.floating);
           })
      .def(
          "read_link_frames",
          [](PySimulator& s, HostArray<const std::int32_t> frames, HostArray<double> out) {
            const int count = static_cast<int>(frames.size());
            double* p = checked("out", out, static_cast<std::size_t>(s.sim->n_instances()) * 13 * frames.size());
            const int* f = reinterpret_cast<const int*>(frames.data());
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_link_frames(f, count, p);
          },
          nb::arg("frames"), nb::arg("out"))
      .def(
          "link_frames_view",
          [](nb::handle self, HostArray<const std::int32_t> frames) {
            PySimulator& s = nb::cast<PySimulator&>(self);
            std::lock_guard<std::mutex> lock(s.mutex);
            return view(s.sim->link_frames_view(reinterpret_cast<const int*>(frames.data()), static_cast<int>(frames.size())),
                        self);
          },
          nb::arg("frames"));
}

}  // namespace simphant::python
