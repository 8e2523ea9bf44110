// _Simulator: simphant::Simulator (sim/simulator.hpp) built from a scene as `simphant
// run` builds it; stepping with the GIL released; reads into caller arrays.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "py_arrays.hpp"
#include "py_scene.hpp"
#include "py_simulator.hpp"
#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/scene_simulator.hpp"
#include "simphant/sim/contact_frames.hpp"
#include "simphant/sim/frame_sensitivities.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

std::size_t count(const PySimulator& s, std::size_t per_instance) {
  return static_cast<std::size_t>(s.sim->n_instances()) * per_instance;
}

// A binding that writes per-instance refinement records, read(sim) (n), into the arrays
// unconverged, max_error and max_error_time (n each).
template <class Read>
auto refinement_reader(Read read) {
  return [read](PySimulator& s, HostArray<std::int64_t> unconverged, HostArray<double> max_error,
                HostArray<double> max_error_time) {
    std::int64_t* u = checked("unconverged", unconverged, count(s, 1));
    double* e = checked("max_error", max_error, count(s, 1));
    double* t = checked("max_error_time", max_error_time, count(s, 1));
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(s.mutex);
    const std::vector<RefinementRecord> rec = read(*s.sim);
    for (std::size_t i = 0; i < rec.size(); ++i) {
      u[i] = rec[i].unconverged;
      e[i] = rec[i].worst;
      t[i] = rec[i].worst_time;
    }
  };
}

// The instances' body states (n, B, 13) as read_states; the caller holds s.mutex.
std::vector<double> current_states(PySimulator& s) {
  std::vector<double> states(count(s, 13 * static_cast<std::size_t>(s.sim->model().n_bodies())));
  s.sim->read_states(states.data());
  return states;
}

void init(PySimulator* self, const PyScene& scene, std::optional<int> instances, const std::string& backend,
          const std::string& precision, int threads, std::optional<std::uint64_t> seed,
          std::optional<std::vector<std::string>> sensitivities) {
  if (instances && *instances <= 0)
    throw std::invalid_argument("instances: must be > 0 (got " + std::to_string(*instances) + ")");
  if (threads < 0) throw std::invalid_argument("threads: must be >= 0 (got " + std::to_string(threads) + ")");
  std::shared_ptr<const Scene> sc = scene.scene;
  if (seed || sensitivities) {
    auto copy = std::make_shared<Scene>(*sc);
    if (seed) copy->sweep.seed = *seed;
    if (sensitivities) copy->sensitivities = sensitivity_spec(copy->doc, *sensitivities, "sensitivities");
    sc = copy;
  }
  SimulatorOptions options;
  options.backend = backend;
  options.precision = precision;
  options.threads = threads;
  // The memory guard of `simphant run`, before anything is sampled or allocated: a batch
  // that would not fit is a MemoryError at once, not minutes of allocation first.
  const MemoryEstimate need = estimate_simulator_memory(*sc, instances ? *instances : -1, options);
  try {
    check_memory_fits(need, std::to_string(need.instances) + (need.instances == 1 ? " instance" : " instances"),
                      "use fewer instances");
  } catch (const std::runtime_error& e) {
    PyErr_SetString(PyExc_MemoryError, e.what());
    throw nb::python_error();
  }
  std::unique_ptr<Simulator> sim;
  {
    nb::gil_scoped_release release;
    sim = make_simulator(*sc, instances ? *instances : -1, options);
  }
  new (self) PySimulator();
  self->scene = std::move(sc);
  self->sim = std::move(sim);
}

}  // namespace

void bind_simulator(nb::module_& m) {
  nb::class_<PySimulator> cls(m, "_Simulator");
  cls.def("__init__", &init, nb::arg("scene"), nb::arg("instances").none(), nb::arg("backend"), nb::arg("precision"),
          nb::arg("threads"), nb::arg("seed").none(), nb::arg("sensitivities").none())
      .def_prop_ro("sensitivity_paths", [](const PySimulator& s) { return s.sim->sensitivity_paths(); })
      .def(
          "read_state_sensitivities",
          [](PySimulator& s, HostArray<double> out) {
            const int S = s.sim->n_sensitivities();
            if (S == 0) throw std::logic_error("state_sensitivities: this Simulator has no sensitivities (pass "
                                               "sensitivities=[...] or give the scene a \"sensitivities\" section)");
            double* p = checked("out", out, count(s, 13 * static_cast<std::size_t>(s.sim->model().n_bodies()) * S));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_state_sensitivities(p);
          },
          nb::arg("out"))
      .def_prop_ro("sensitivity_crossed",
                   [](PySimulator& s) {
                     std::lock_guard<std::mutex> lock(s.mutex);
                     return s.sim->sensitivity_crossed();
                   })
      .def(
          "read_reaction_sensitivities",
          [](PySimulator& s, HostArray<double> out) {
            const int S = s.sim->n_sensitivities();
            if (S == 0) throw std::logic_error("reaction_sensitivities: this Simulator has no sensitivities (pass "
                                               "sensitivities=[...] or give the scene a \"sensitivities\" section)");
            double* p = checked("out", out, count(s, 6 * static_cast<std::size_t>(s.sim->model().n_joints()) * S));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_reaction_sensitivities(p);
          },
          nb::arg("out"))
      .def(
          "read_joint_state_sensitivities",
          [](PySimulator& s, HostArray<double> q, HostArray<double> qd, HostArray<double> tau) {
            const int S = s.sim->n_sensitivities();
            if (S == 0) throw std::logic_error("joint_state_sensitivities: this Simulator has no sensitivities (pass "
                                               "sensitivities=[...] or give the scene a \"sensitivities\" section)");
            const std::size_t n = count(s, static_cast<std::size_t>(s.sim->n_joint_coordinates()) * S);
            FrameSensitivities f;
            f.joint_q = checked("q", q, n);
            f.joint_qd = checked("qd", qd, n);
            f.joint_tau = checked("tau", tau, n);
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_frame_sensitivities(f);
          },
          nb::arg("q"), nb::arg("qd"), nb::arg("tau"))
      .def(
          "read_energy_sensitivities",
          [](PySimulator& s, HostArray<double> total, HostArray<double> kinetic) {
            const int S = s.sim->n_sensitivities();
            if (S == 0) throw std::logic_error("energy_sensitivities: this Simulator has no sensitivities (pass "
                                               "sensitivities=[...] or give the scene a \"sensitivities\" section)");
            const std::size_t n = count(s, static_cast<std::size_t>(S));
            FrameSensitivities f;
            f.energy = checked("total", total, n);
            f.kinetic = checked("kinetic", kinetic, n);
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_frame_sensitivities(f);
          },
          nb::arg("total"), nb::arg("kinetic"))
      .def_prop_ro("n_instances", [](const PySimulator& s) { return s.sim->n_instances(); })
      .def_prop_ro("n_bodies", [](const PySimulator& s) { return s.sim->model().n_bodies(); })
      .def_prop_ro("n_joints", [](const PySimulator& s) { return s.sim->model().n_joints(); })
      .def_prop_ro("n_inputs", [](const PySimulator& s) { return s.sim->model().n_inputs; })
      .def_prop_ro("n_joint_coordinates", [](const PySimulator& s) { return s.sim->n_joint_coordinates(); })
      .def_prop_ro("state_size", [](const PySimulator& s) { return s.sim->state_size(); })
      .def_prop_ro("dt", [](const PySimulator& s) { return s.sim->dt(); })
      .def_prop_ro("backend", [](const PySimulator& s) { return std::string(s.sim->backend_name()); })
      .def_prop_ro("backend_details", [](const PySimulator& s) { return s.sim->backend_details(); })
      .def_prop_ro("input_names", [](const PySimulator& s) { return input_names(s.sim->model()); })
      .def("time",
           [](PySimulator& s) {
             std::lock_guard<std::mutex> lock(s.mutex);
             return s.sim->time();
           })
      .def("steps_taken",
           [](PySimulator& s) {
             std::lock_guard<std::mutex> lock(s.mutex);
             return s.sim->steps_taken();
           })
      .def(
          "step",
          [](PySimulator& s, int n) {
            if (n < 0) throw std::invalid_argument("n: must be >= 0 (got " + std::to_string(n) + ")");
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->advance(n);
          },
          nb::arg("n"))
      .def("synchronize",
           [](PySimulator& s) {
             nb::gil_scoped_release release;
             std::lock_guard<std::mutex> lock(s.mutex);
             s.sim->synchronize();
           })
      .def(
          "read_states",
          [](PySimulator& s, HostArray<double> out) {
            double* p = checked("out", out, count(s, 13 * static_cast<std::size_t>(s.sim->model().n_bodies())));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_states(p);
          },
          nb::arg("out"))
      .def_prop_ro("contact_pair_names",
                   [](const PySimulator& s) { return contact_pair_names(s.sim->model()); })
      .def(
          "read_contacts",
          [](PySimulator& s, HostArray<double> out) {
            const std::size_t pairs = contact_pair_names(s.sim->model()).size();
            double* p = checked("out", out, count(s, pairs * kContactRecordComponents));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            const std::vector<double> states = current_states(s);
            s.sim->contact_frames(states.data(), p);
          },
          nb::arg("out"))
      .def(
          "read_contact_wrenches",
          [](PySimulator& s, HostArray<double> out) {
            const std::size_t pairs = contact_pair_names(s.sim->model()).size();
            double* p = checked("out", out, count(s, pairs * kContactWrenchComponents));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            const std::vector<double> states = current_states(s);
            s.sim->contact_wrenches(states.data(), p);
          },
          nb::arg("out"))
      .def(
          "read_centres_of_mass",
          [](PySimulator& s, HostArray<double> out) {
            double* p = checked("out", out, count(s, 3));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            const std::vector<double> states = current_states(s);
            s.sim->centres_of_mass(states.data(), p);
          },
          nb::arg("out"))
      .def(
          "read_reactions",
          [](PySimulator& s, HostArray<double> out) {
            double* p = checked("out", out, count(s, 6 * static_cast<std::size_t>(s.sim->model().n_joints())));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_reactions(p);
          },
          nb::arg("out"))
      .def(
          "read_constraint_violation",
          [](PySimulator& s, HostArray<double> out) {
            double* p = checked("out", out, count(s, 1));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_constraint_violation(p);
          },
          nb::arg("out"))
      .def(
          "read_energy",
          [](PySimulator& s, HostArray<double> total, HostArray<double> kinetic) {
            double* t = checked("out", total, count(s, 1));
            double* k = checked("kinetic", kinetic, count(s, 1));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_energy(t, k);
          },
          nb::arg("total"), nb::arg("kinetic"))
      .def(
          "read_status",
          [](PySimulator& s, HostArray<std::int8_t> status, HostArray<double> status_time,
             HostArray<std::int8_t> status_reason) {
            std::int8_t* st = checked("status", status, count(s, 1));
            double* t = checked("status_time", status_time, count(s, 1));
            std::int8_t* r = checked("status_reason", status_reason, count(s, 1));
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_status(st, t, r);
          },
          nb::arg("status"), nb::arg("status_time"), nb::arg("status_reason"))
      .def("read_refinement", refinement_reader([](const Simulator& sim) {
             std::vector<RefinementRecord> rec(static_cast<std::size_t>(sim.n_instances()));
             sim.read_refinement(rec.data());
             return rec;
           }),
           nb::arg("unconverged"), nb::arg("max_error"), nb::arg("max_error_time"))
      .def("read_sensitivity_refinement", refinement_reader([](const Simulator& sim) {
             std::vector<RefinementRecord> rec = sim.sensitivity_refinement();
             if (rec.empty()) throw std::logic_error("sensitivity_refinement: this Simulator has no sensitivities");
             return rec;
           }),
           nb::arg("unconverged"), nb::arg("max_error"), nb::arg("max_error_time"))
      .def(
          "read_joint_state",
          [](PySimulator& s, HostArray<double> q, HostArray<double> qd, HostArray<double> tau) {
            const std::size_t n = count(s, static_cast<std::size_t>(s.sim->n_joint_coordinates()));
            double* pq = checked("q", q, n);
            double* pqd = checked("qd", qd, n);
            double* ptau = checked("tau", tau, n);
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(s.mutex);
            s.sim->read_joint_state(pq, pqd, ptau);
          },
          nb::arg("q"), nb::arg("qd"), nb::arg("tau"))
      .def(
          "read_assembly",
          [](PySimulator& s, HostArray<std::uint8_t> ok, HostArray<std::int32_t> iterations,
             HostArray<double> position_residual, HostArray<double> velocity_residual) {
            const std::size_t n = count(s, 1);
            std::uint8_t* o = checked("ok", ok, n);
            std::int32_t* it = checked("iterations", iterations, n);
            double* pr = checked("position_residual", position_residual, n);
            double* vr = checked("velocity_residual", velocity_residual, n);
            std::lock_guard<std::mutex> lock(s.mutex);
            const auto& a = s.sim->assembly();
            for (std::size_t i = 0; i < n; ++i) {
              o[i] = a[i].ok ? 1 : 0;
              it[i] = a[i].iterations;
              pr[i] = a[i].position_residual;
              vr[i] = a[i].velocity_residual;
            }
          },
          nb::arg("ok"), nb::arg("iterations"), nb::arg("position_residual"), nb::arg("velocity_residual"));
  bind_simulator_state(cls);
}

}  // namespace simphant::python
