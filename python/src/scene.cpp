// _Scene: a parsed, validated scene (simphant::Scene, scene/scene.hpp), shared read-only
// by the simulators and runs made from it.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "py_arrays.hpp"
#include "py_scene.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/link_frames.hpp"
#include "simphant/sim/robot_queries.hpp"
#include "simphant/sim/simulator.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

std::vector<std::string> body_names(const Model& m) {
  std::vector<std::string> out;
  for (const Body& b : m.bodies) out.push_back(b.name);
  return out;
}

std::vector<std::string> joint_names(const Model& m) {
  std::vector<std::string> out;
  for (const Joint& j : m.joints) out.push_back(j.name);
  return out;
}

/// The robot's sizes: nq (joint coordinates, + 7 with a floating base: p_B, quat_B) and
/// nv (their rates, + 6: v_B, omega_B); 0 without a robot.
int robot_nq(const PyScene& s) {
  if (!s.scene->model.robot) return 0;
  const ReducedModel& r = s.scene->model.robot->model;
  return r.nq() + (r.floating ? 7 : 0);
}
int robot_nv(const PyScene& s) {
  if (!s.scene->model.robot) return 0;
  const ReducedModel& r = s.scene->model.robot->model;
  return r.nq() + (r.floating ? 6 : 0);
}

/// The batch B of a (B, width) array for the scene's robot; `expected` >= 0: the batch it
/// must have. Throws std::invalid_argument for a scene without a robot or a size that is
/// not B width.
int robot_batch(const PyScene& s, const HostArray<const double>& a, const char* name, int width, int expected = -1) {
  if (!s.scene->model.robot)
    throw std::invalid_argument(std::string(name) + ": the scene has no robot (docs/robots.md)");
  const std::size_t w = static_cast<std::size_t>(width);
  if (w == 0 || a.size() % w != 0 || (expected >= 0 && a.size() != static_cast<std::size_t>(expected) * w))
    throw std::invalid_argument(std::string(name) + ": has " + std::to_string(a.size()) + " elements, not " +
                                (expected >= 0 ? std::to_string(expected) + " x " : std::string("a multiple of ")) +
                                std::to_string(width));
  return static_cast<int>(a.size() / w);
}

/// Runs an inverse or forward dynamics query (sim/robot_queries.hpp) on (q, qd, x) into
/// out, each checked against the robot's sizes and one batch.
using DynamicsQuery = void (*)(const Model&, int, const double*, const double*, const double*, double*);
void robot_dynamics(const PyScene& s, DynamicsQuery query, HostArray<const double>& q, HostArray<const double>& qd,
                    HostArray<const double>& x, const char* x_name, HostArray<double>& out) {
  const int batch = robot_batch(s, q, "q", robot_nq(s));
  robot_batch(s, qd, "qd", robot_nv(s), batch);
  robot_batch(s, x, x_name, robot_nv(s), batch);
  double* o = checked("out", out, qd.size());
  nb::gil_scoped_release release;
  query(s.scene->model, batch, q.data(), qd.data(), x.data(), o);
}

}  // namespace

std::vector<std::string> input_names(const Model& m) {
  std::vector<std::string> out(static_cast<std::size_t>(m.n_inputs));
  for (const ForceElement& f : m.forces)
    if (f.type == ForceType::Actuator && f.input_index >= 0) out[static_cast<std::size_t>(f.input_index)] = f.name;
  return out;
}

void bind_scene(nb::module_& m) {
  nb::class_<PyScene>(m, "_Scene")
      .def_static(
          "from_file",
          [](const std::string& file) {
            PyScene s;
            {
              nb::gil_scoped_release release;
              s.scene = std::make_shared<const Scene>(load_scene(file));
            }
            s.source = file;
            return s;
          },
          nb::arg("file"))
      .def_static(
          "from_text",
          [](const std::string& text, const std::string& source) {
            PyScene s;
            {
              nb::gil_scoped_release release;
              s.scene = std::make_shared<const Scene>(parse_scene(text, source));
            }
            s.source = source;
            return s;
          },
          nb::arg("text"), nb::arg("source"))
      .def_prop_ro("text", [](const PyScene& s) { return s.scene->text; })
      .def_prop_ro("source", [](const PyScene& s) { return s.source; })
      .def("doc_json", [](const PyScene& s) { return s.scene->doc.dump(); })
      .def(
          "cpu_backend_of_auto",
          [](const PyScene& s, long long design_size, const std::string& solver) {
            // A robot's --solver override chooses between the DAE and joint coordinates.
            Model model = s.scene->model;
            if (!solver.empty() && model.robot) {
              auto rj = std::make_shared<RobotJointSpace>(*model.robot);
              rj->solver = solver == "aba" ? RobotSolver::Aba : solver == "cga" ? RobotSolver::Cga : RobotSolver::Dae;
              model.robot = rj;
            }
            return cpu_backend_of_auto(model, design_size);
          },
          nb::arg("design_size"), nb::arg("solver"))
      .def_prop_ro("name", [](const PyScene& s) { return s.scene->model.name; })
      .def_prop_ro("body_names", [](const PyScene& s) { return body_names(s.scene->model); })
      .def_prop_ro("joint_names", [](const PyScene& s) { return joint_names(s.scene->model); })
      .def_prop_ro("input_names", [](const PyScene& s) { return input_names(s.scene->model); })
      .def_prop_ro("dt", [](const PyScene& s) { return s.scene->model.solver.dt; })
      .def_prop_ro("t_end", [](const PyScene& s) { return s.scene->model.solver.t_end; })
      .def_prop_ro("sweep_instances", [](const PyScene& s) { return s.scene->sweep.instances; })
      .def_prop_ro("sweep_seed", [](const PyScene& s) { return s.scene->sweep.seed; })
      .def_prop_ro("sweep_paths", [](const PyScene& s) {
        std::vector<std::string> out;
        for (const SweepParameter& p : s.scene->sweep.parameters) out.push_back(p.path);
        return out;
      })
      .def_prop_ro("is_robot", [](const PyScene& s) { return static_cast<bool>(s.scene->model.robot); })
      // Kinematics and dynamics queries of the scene's robot (sim/robot_queries.hpp); the
      // Python layer checks shapes, the sizes are checked here again.
      .def_prop_ro("robot_nq", [](const PyScene& s) { return robot_nq(s); })
      .def_prop_ro("robot_nv", [](const PyScene& s) { return robot_nv(s); })
      .def_prop_ro("robot_links", [](const PyScene& s) { return link_tree(s.scene->model).names; })
      .def(
          "robot_link_index",
          [](const PyScene& s, const std::string& name) { return link_frame_index(s.scene->model, name); },
          nb::arg("name"))
      .def(
          "robot_forward_kinematics",
          [](const PyScene& s, HostArray<const double> q, HostArray<const std::int32_t> frames, HostArray<double> out) {
            const int batch = robot_batch(s, q, "q", robot_nq(s));
            double* o = checked("out", out, static_cast<std::size_t>(batch) * frames.size() * 7);
            nb::gil_scoped_release release;
            robot_forward_kinematics(s.scene->model, batch, q.data(), frames.data(), static_cast<int>(frames.size()),
                                     o);
          },
          nb::arg("q"), nb::arg("frames"), nb::arg("out"))
      .def(
          "robot_link_jacobians",
          [](const PyScene& s, HostArray<const double> q, HostArray<const std::int32_t> frames, HostArray<double> out) {
            const int batch = robot_batch(s, q, "q", robot_nq(s));
            const std::size_t nv = static_cast<std::size_t>(robot_nv(s));
            double* o = checked("out", out, static_cast<std::size_t>(batch) * frames.size() * 6 * nv);
            nb::gil_scoped_release release;
            robot_link_jacobians(s.scene->model, batch, q.data(), frames.data(), static_cast<int>(frames.size()), o);
          },
          nb::arg("q"), nb::arg("frames"), nb::arg("out"))
      .def(
          "robot_mass_matrix",
          [](const PyScene& s, HostArray<const double> q, HostArray<double> out) {
            const int batch = robot_batch(s, q, "q", robot_nq(s));
            const std::size_t nv = static_cast<std::size_t>(robot_nv(s));
            double* o = checked("out", out, static_cast<std::size_t>(batch) * nv * nv);
            nb::gil_scoped_release release;
            robot_mass_matrix(s.scene->model, batch, q.data(), o);
          },
          nb::arg("q"), nb::arg("out"))
      .def(
          "robot_inverse_dynamics",
          [](const PyScene& s, HostArray<const double> q, HostArray<const double> qd, HostArray<const double> qdd,
             HostArray<double> out) { robot_dynamics(s, robot_inverse_dynamics, q, qd, qdd, "qdd", out); },
          nb::arg("q"), nb::arg("qd"), nb::arg("qdd"), nb::arg("out"))
      .def(
          "robot_forward_dynamics",
          [](const PyScene& s, HostArray<const double> q, HostArray<const double> qd, HostArray<const double> tau,
             HostArray<double> out) { robot_dynamics(s, robot_forward_dynamics, q, qd, tau, "tau", out); },
          nb::arg("q"), nb::arg("qd"), nb::arg("tau"), nb::arg("out"));
}

}  // namespace simphant::python
