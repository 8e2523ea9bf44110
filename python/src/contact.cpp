// The contact geometry of a scene for drawing it (the service's 3D replay, docs/service.md
// "Web page and replay"): the shapes of its contact pairs as the compiled model places them
// in the body frames, and the contact points at given body states (sim/contact_frames.hpp).
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "py_arrays.hpp"
#include "py_scene.hpp"
#include "simphant/sim/contact_frames.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

// The model of the scene with `params` (sweep path -> value): the sweep's parameters take
// their values from it (each must be there), any other path is set on top of them.
Model instance_model(const PyScene& s, const std::map<std::string, double>& params) {
  const std::vector<SweepParameter>& sweep = s.scene->sweep.parameters;
  if (sweep.empty() && params.empty()) return s.scene->model;
  std::vector<double> values;
  for (const SweepParameter& p : sweep) {
    const auto it = params.find(p.path);
    if (it == params.end()) throw std::invalid_argument("params: no value of the sweep parameter '" + p.path + "'");
    values.push_back(it->second);
  }
  ParameterOverrides extra;
  for (const auto& [path, value] : params) {
    bool in_sweep = false;
    for (const SweepParameter& p : sweep) in_sweep = in_sweep || p.path == path;
    if (!in_sweep) extra.emplace_back(path, value);
  }
  return build_instance_model(*s.scene, values, 0, 0, extra);
}

const char* kind_name(ShapeKind k) {
  switch (k) {
    case ShapeKind::Plane: return "plane";
    case ShapeKind::Sphere: return "sphere";
    case ShapeKind::Capsule: return "capsule";
    case ShapeKind::Box: return "box";
    case ShapeKind::Cylinder: return "cylinder";
    case ShapeKind::Bearing: return "bearing";
    case ShapeKind::Journal: return "journal";
  }
  return "?";
}

bool same_shape(const Shape<double>& a, const Shape<double>& b) {
  return a.kind == b.kind && a.size[0] == b.size[0] && a.size[1] == b.size[1] && a.size[2] == b.size[2] &&
         a.pos_B.x == b.pos_B.x && a.pos_B.y == b.pos_B.y && a.pos_B.z == b.pos_B.z && a.quat_B.w == b.quat_B.w &&
         a.quat_B.x == b.quat_B.x && a.quat_B.y == b.quat_B.y && a.quat_B.z == b.quat_B.z;
}

}  // namespace

void bind_contact(nb::module_& m) {
  m.def(
      "contact_pair_names", [](const PyScene& s) { return contact_pair_names(s.scene->model); }, nb::arg("scene"),
      "The scene's contact pairs in model order (sim/contact_frames.hpp), as /contacts names them.");
  m.def(
      "contact_shapes",
      [](const PyScene& s, const std::map<std::string, double>& params) {
        const Model model = instance_model(s, params);
        std::vector<std::pair<int, Shape<double>>> seen;
        nb::list out;
        for (const ForceElement& f : model.forces) {
          if (f.type != ForceType::Contact) continue;
          for (const auto& [body, shape] : {std::make_pair(f.body_i, f.shape_i), std::make_pair(f.body_j, f.shape_j)}) {
            bool dup = false;
            for (const auto& [b, sh] : seen) dup = dup || (b == body && same_shape(sh, shape));
            if (dup) continue;
            seen.emplace_back(body, shape);
            nb::dict d;
            d["body"] = body;
            d["kind"] = kind_name(shape.kind);
            d["size"] = std::vector<double>{shape.size[0], shape.size[1], shape.size[2]};
            d["position"] = std::vector<double>{shape.pos_B.x, shape.pos_B.y, shape.pos_B.z};
            d["orientation"] = std::vector<double>{shape.quat_B.w, shape.quat_B.x, shape.quat_B.y, shape.quat_B.z};
            out.append(d);
          }
        }
        return out;
      },
      nb::arg("scene"), nb::arg("params"),
      "The distinct shapes of the scene's contact pairs with `params` (sweep path -> value; every sweep parameter's "
      "path must be there): dicts of body (the model's body index, -1 the ground), kind (plane, sphere, capsule, "
      "box, cylinder, bearing, journal), size (contact/shapes.hpp: radius, half_length or half-extents [m]), "
      "position [m] and orientation (w, x, y, z) in the body frame (at its centre of mass; the ground's: W).");
  m.def(
      "contact_points",
      [](const PyScene& s, const std::map<std::string, double>& params, HostArray<const double> states,
         HostArray<double> out) {
        const std::vector<Model> models{instance_model(s, params)};
        const std::size_t B = static_cast<std::size_t>(models[0].n_bodies());
        const std::size_t P = static_cast<std::size_t>(models[0].contact_pair_count());
        if (B == 0 || states.size() % (13 * B) != 0)
          throw std::invalid_argument("states: " + std::to_string(states.size()) + " numbers, not k x " +
                                      std::to_string(B) + " bodies x 13");
        const std::size_t k = states.size() / (13 * B);
        double* o = checked("out", out, k * P * kMaxContacts * kContactPointComponents);
        nb::gil_scoped_release release;
        contact_points(models, static_cast<int>(k), states.data(), o);
      },
      nb::arg("scene"), nb::arg("params"), nb::arg("states"), nb::arg("out").noconvert(),
      "The contact points of the scene with `params` at k frames of body states (k, B, 13) as /state records them: "
      "out (k, P, 4, 7) = point (W) [m], normal from shape A to B (W), normal force [N]; NaN past a pair's count.");
}

}  // namespace simphant::python
