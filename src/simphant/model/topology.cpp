#include "simphant/model/topology.hpp"

#include <cstdio>
#include <vector>

#include "simphant/model/robot.hpp"

namespace simphant {

namespace {

std::string counts(const char* what, long long a, long long b) {
  return std::string("number of ") + what + " differs (" + std::to_string(a) + " vs " + std::to_string(b) + ")";
}

}  // namespace

bool has_closed_loop(const Model& model) {
  std::vector<int> parent(static_cast<std::size_t>(model.n_bodies()) + 1);
  for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = static_cast<int>(k);
  const auto root = [&](int k) {
    while (parent[static_cast<std::size_t>(k)] != k) k = parent[static_cast<std::size_t>(k)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(k)])];
    return k;
  };
  const auto node = [&](int body) { return body < 0 ? model.n_bodies() : body; };  // ground: the last node
  for (const Joint& j : model.joints) {
    const int a = root(node(j.body_i)), b = root(node(j.body_j));
    if (a == b) return true;
    parent[static_cast<std::size_t>(a)] = b;
  }
  return false;
}

std::string topology_difference(const Model& a, const Model& b) {
  if (a.n_bodies() != b.n_bodies()) return counts("bodies", a.n_bodies(), b.n_bodies());
  if (a.n_joints() != b.n_joints()) return counts("joints", a.n_joints(), b.n_joints());
  if (a.n_rows != b.n_rows) return counts("constraint rows", a.n_rows, b.n_rows);
  if (a.forces.size() != b.forces.size())
    return counts("force elements (contact pairs included: a swept collision filter or shape changes them)",
                  static_cast<long long>(a.forces.size()), static_cast<long long>(b.forces.size()));
  if (a.n_inputs != b.n_inputs) return counts("inputs", a.n_inputs, b.n_inputs);
  if (a.solver.dt != b.solver.dt) {
    char msg[96];
    std::snprintf(msg, sizeof msg, "dt differs (%.17g vs %.17g)", a.solver.dt, b.solver.dt);
    return msg;
  }
  if (a.solver.integrator != b.solver.integrator)
    return std::string("integrator differs (") + integrator_name(a.solver.integrator) + " vs " +
           integrator_name(b.solver.integrator) + ")";
  for (int j = 0; j < a.n_joints(); ++j) {
    const Joint &x = a.joints[static_cast<std::size_t>(j)], &y = b.joints[static_cast<std::size_t>(j)];
    if (x.type != y.type || x.body_i != y.body_i || x.body_j != y.body_j || x.row_offset != y.row_offset)
      return "joint " + std::to_string(j) + " differs in type, bodies or rows";
  }
  if (a.n_drivers() != b.n_drivers()) return counts("drivers", a.n_drivers(), b.n_drivers());
  for (int k = 0; k < a.n_drivers(); ++k) {
    const Driver &x = a.drivers[static_cast<std::size_t>(k)], &y = b.drivers[static_cast<std::size_t>(k)];
    if (x.joint != y.joint || x.coordinate != y.coordinate || x.law != y.law || x.row_offset != y.row_offset)
      return "driver " + std::to_string(k) + " differs in joint, coordinate, law or row";
  }
  if (a.n_mimics() != b.n_mimics()) return counts("mimic rows", a.n_mimics(), b.n_mimics());
  for (int k = 0; k < a.n_mimics(); ++k) {
    const Mimic &x = a.mimics[static_cast<std::size_t>(k)], &y = b.mimics[static_cast<std::size_t>(k)];
    if (x.joint != y.joint || x.leader != y.leader || x.coordinate != y.coordinate ||
        x.leader_coordinate != y.leader_coordinate || x.row_offset != y.row_offset)
      return "mimic row " + std::to_string(k) + " differs in follower, leader, coordinates or row";
  }
  if (a.laws.size() != b.laws.size())
    return counts("motion laws", static_cast<long long>(a.laws.size()), static_cast<long long>(b.laws.size()));
  for (std::size_t l = 0; l < a.laws.size(); ++l)
    if (a.laws[l].type != b.laws[l].type || a.laws[l].params.size() != b.laws[l].params.size())
      return "motion law " + std::to_string(l) + " differs in type or number of parameters";
  for (std::size_t f = 0; f < a.forces.size(); ++f) {
    const ForceElement &x = a.forces[f], &y = b.forces[f];
    if (x.type != y.type || x.body != y.body || x.world_frame != y.world_frame || x.body_i != y.body_i ||
        x.body_j != y.body_j || x.joint != y.joint || x.kind != y.kind || x.input_index != y.input_index)
      return "force element " + std::to_string(f) + " differs in type, bodies, joint, frame or input slot";
    if (x.type == ForceType::Contact &&
        (x.shape_i.kind != y.shape_i.kind || x.shape_j.kind != y.shape_j.kind || x.contact.normal.law != y.contact.normal.law))
      return "contact pair " + std::to_string(f) + " (" + x.name + ") differs in its shape types or contact law";
  }
  if (static_cast<bool>(a.robot) != static_cast<bool>(b.robot)) return "one model is a robot in joint coordinates, the other not";
  if (a.robot && (a.robot->n() != b.robot->n() || a.robot->solver != b.robot->solver))
    return "the robot differs in its number of joints or its solver";
  return "";
}

}  // namespace simphant
