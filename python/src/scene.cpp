// _Scene: a parsed, validated scene (simphant::Scene, scene/scene.hpp), shared read-only
// by the simulators and runs made from it.
#include <memory>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "py_scene.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/backend_rules.hpp"
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
            Model m = s.scene->model;
            if (!solver.empty() && m.robot) {
              auto rj = std::make_shared<RobotJointSpace>(*m.robot);
              rj->solver = solver == "aba" ? RobotSolver::Aba : solver == "cga" ? RobotSolver::Cga : RobotSolver::Dae;
              m.robot = rj;
            }
            return cpu_backend_of_auto(m, design_size);
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
      .def_prop_ro("is_robot", [](const PyScene& s) { return static_cast<bool>(s.scene->model.robot); });
}

}  // namespace simphant::python
