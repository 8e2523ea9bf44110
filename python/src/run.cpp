// run_job (job/run_job.hpp), resumable (job/resume.hpp) and checkpoint_file_name (job/checkpoint_state.hpp),
// check_scene (job/check_scene.hpp) and the library settings
// (log level, robot data folder) for the Python package. A run releases the GIL; its
// stop hook takes the GIL briefly to let Python handle a pending signal, so Ctrl-C stops
// the run as SIGINT stops the CLI (the file is recorded up to that point and closed)
// and then raises KeyboardInterrupt.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include "bindings.hpp"
#include "py_scene.hpp"
#include "simphant/job/check_scene.hpp"
#include "simphant/job/resume.hpp"
#include "simphant/job/run_job.hpp"
#include "simphant/log/log.hpp"
#include "simphant/urdf/robot_data.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

struct RunArgs {
  std::optional<int> instances;
  std::optional<double> dt, t_end;
  std::optional<std::uint64_t> seed;
  int threads = 0;
  int shard_index = 0, shard_count = 1;
  std::optional<double> checkpoint_every;
  std::string backend = "auto", precision = "fp64", solver, out, resume;
  std::string datasets, frames, reductions;  ///< "" : the scene's (JobOptions)
  std::optional<int> compression;            ///< None: the scene's; else 0..9 (checked)
  std::string projection, integrator;        ///< "" : the scene's (JobOptions)
  std::optional<double> rtol, atol;          ///< None: the scene's (JobOptions)
  bool error_estimate = false;
  std::string sensitivities;  ///< "" : the scene's (JobOptions)
};

std::tuple<int, std::string, std::string> run(const PyScene* scene, const std::string& scene_file,
                                              const RunArgs& a, nb::object progress) {
  JobOptions o;
  if (scene) {
    o.scene = scene_file;
    o.scene_text = scene->scene->text;
  } else if (a.resume.empty()) {
    throw std::invalid_argument("scene: required unless resume is given");
  }
  if (a.instances) {
    if (*a.instances <= 0) throw std::invalid_argument("instances: must be > 0 (got " + std::to_string(*a.instances) + ")");
    o.instances = *a.instances;
  }
  if (a.dt) o.has_dt = true, o.dt = *a.dt;
  if (a.t_end) o.has_t_end = true, o.t_end = *a.t_end;
  if (a.seed) o.has_seed = true, o.seed = *a.seed;
  if (a.threads < 0) throw std::invalid_argument("threads: must be >= 0 (got " + std::to_string(a.threads) + ")");
  o.threads = a.threads;
  o.backend = a.backend;
  o.precision = a.precision;
  o.solver = a.solver;
  o.out = a.out;
  o.shard_index = a.shard_index;
  o.shard_count = a.shard_count;
  if (a.checkpoint_every) {
    if (!(*a.checkpoint_every >= 0))
      throw std::invalid_argument("checkpoint_every: must be >= 0 [s] (got " + std::to_string(*a.checkpoint_every) +
                                  ")");
    o.checkpoint_every_s = *a.checkpoint_every;
  }
  o.resume = a.resume;
  o.datasets = a.datasets;
  o.frames = a.frames;
  o.reductions = a.reductions;
  o.compression = a.compression;
  o.projection = a.projection;
  o.integrator = a.integrator;
  o.rtol = a.rtol;
  o.atol = a.atol;
  o.error_estimate = a.error_estimate;
  o.sensitivities = a.sensitivities;

  // A Python exception raised in a hook (KeyboardInterrupt from a signal handler, or an
  // error of the progress callback) stops the run; it is raised once run_job returns.
  std::unique_ptr<nb::python_error> pending;
  JobHooks hooks;
  hooks.stop_requested = [&pending] {
    if (pending) return true;
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) pending = std::make_unique<nb::python_error>();
    return static_cast<bool>(pending);
  };
  if (!progress.is_none()) {
    hooks.progress = [&pending, &progress](const JobProgress& p) {
      if (pending) return;
      nb::gil_scoped_acquire gil;
      try {
        progress(p.steps_done, p.steps_total, p.sim_time, p.n_instances);
      } catch (nb::python_error& e) {
        pending = std::make_unique<nb::python_error>(std::move(e));
      }
    };
  }
  JobResult r;
  {
    nb::gil_scoped_release release;
    r = run_job(o, hooks);
  }
  if (pending) {
    pending->restore();
    throw nb::python_error();
  }
  return {r.exit_code, r.out_file, r.summary.dump()};
}

}  // namespace

void bind_run(nb::module_& m) {
  nb::class_<RunArgs>(m, "_RunArgs")
      .def(nb::init<>())
      .def_rw("instances", &RunArgs::instances, nb::arg().none())
      .def_rw("dt", &RunArgs::dt, nb::arg().none())
      .def_rw("t_end", &RunArgs::t_end, nb::arg().none())
      .def_rw("seed", &RunArgs::seed, nb::arg().none())
      .def_rw("threads", &RunArgs::threads)
      .def_rw("shard_index", &RunArgs::shard_index)
      .def_rw("shard_count", &RunArgs::shard_count)
      .def_rw("backend", &RunArgs::backend)
      .def_rw("precision", &RunArgs::precision)
      .def_rw("solver", &RunArgs::solver)
      .def_rw("out", &RunArgs::out)
      .def_rw("checkpoint_every", &RunArgs::checkpoint_every, nb::arg().none())
      .def_rw("resume", &RunArgs::resume)
      .def_rw("datasets", &RunArgs::datasets)
      .def_rw("frames", &RunArgs::frames)
      .def_rw("reductions", &RunArgs::reductions)
      .def_rw("compression", &RunArgs::compression, nb::arg().none())
      .def_rw("projection", &RunArgs::projection)
      .def_rw("integrator", &RunArgs::integrator)
      .def_rw("rtol", &RunArgs::rtol, nb::arg().none())
      .def_rw("atol", &RunArgs::atol, nb::arg().none())
      .def_rw("error_estimate", &RunArgs::error_estimate)
      .def_rw("sensitivities", &RunArgs::sensitivities);
  m.def("run_job", &run, nb::arg("scene").none(), nb::arg("scene_file"), nb::arg("args"), nb::arg("progress").none());
  m.def("resumable", &resumable, nb::arg("out"));
  m.def("checkpoint_file_name", &checkpoint_file_name, nb::arg("out"));
  m.def(
      "check_scene",
      [](const PyScene& s) {
        nb::gil_scoped_release release;
        return check_scene(*s.scene).dump();
      },
      nb::arg("scene"));
  m.def("set_log_level", &set_log_level, nb::arg("level"));
  m.def("set_robot_data_dir", &set_robot_data_dir, nb::arg("dir"));
  m.def("log_level", &log_level);
}

}  // namespace simphant::python
