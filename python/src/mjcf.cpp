// simphant._simphant.mjcf_model: what the MJCF importer (src/simphant/mjcf/mjcf_import.hpp)
// makes of a file, as plain Python values (tests/python/test_mjcf_mujoco.py compares it
// with MuJoCo's compiled model; docs/mjcf.md).
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "simphant/mjcf/mjcf_import.hpp"

namespace nb = nanobind;

namespace simphant::python {

namespace {

nb::list vec(const Vec3d& v) {
  nb::list l;
  for (int k = 0; k < 3; ++k) l.append(v[k]);
  return l;
}

nb::list mat(const Mat3d& M) {
  nb::list l;
  for (int r = 0; r < 3; ++r) {
    nb::list row;
    for (int c = 0; c < 3; ++c) row.append(M.m[r][c]);
    l.append(row);
  }
  return l;
}

nb::dict mjcf_model(const std::string& path) {
  MjcfModel mj;
  try {
    mj = load_mjcf(path);
  } catch (const MjcfError& e) {
    throw nb::value_error(e.what());
  }
  const ReducedModel& rm = mj.model;
  nb::dict out;
  out["name"] = rm.name;
  out["floating"] = rm.floating;
  out["gravity"] = vec(rm.gravity);
  out["timestep"] = mj.options.timestep;
  out["integrator"] = mj.options.integrator;
  nb::list links;
  for (std::size_t k = 0; k < rm.links.size(); ++k) {
    const ReducedLink& l = rm.links[k];
    nb::dict d;
    d["name"] = l.name;
    d["joint"] = l.joint_name;
    d["parent"] = l.parent;
    d["type"] = l.type == ReducedJointType::Revolute ? "hinge" : "slide";
    d["axis"] = vec(l.axis);
    d["p_parent_joint"] = vec(l.p_parent_joint);
    d["R_parent_joint"] = mat(l.R_parent_joint);
    d["mass"] = l.mass;
    d["com"] = vec(l.com);
    d["inertia"] = mat(l.inertia_com);
    d["limited"] = !l.continuous;
    d["lower"] = l.lower;
    d["upper"] = l.upper;
    d["damping"] = l.damping;
    d["friction"] = l.friction;
    d["armature"] = l.armature;
    d["stiffness"] = l.stiffness;
    d["spring_q"] = l.spring_q;
    d["ref"] = mj.qpos_ref[k];
    links.append(d);
  }
  out["links"] = links;
  nb::dict base;
  base["link"] = rm.base.link;
  base["mass"] = rm.base.mass;
  base["com"] = vec(rm.base.com);
  base["inertia"] = mat(rm.base.inertia_com);
  // a free body's XML pose: MuJoCo's qpos0 of its free joint (position W, quaternion w x y z)
  base["position"] = vec(mj.free_position);
  const Quatd& o = mj.free_orientation;
  base["orientation"] = nb::make_tuple(o.w, o.x, o.y, o.z);
  out["base"] = base;
  nb::list bodies;
  for (const MjcfBodyMass& b : mj.body_masses) {
    nb::dict d;
    d["name"] = b.name;
    d["owner"] = b.owner;
    d["mass"] = b.mass;
    d["com"] = vec(b.com);
    d["inertia"] = mat(b.inertia_com);
    bodies.append(d);
  }
  out["bodies"] = bodies;
  nb::list acts;
  for (const MjcfActuator& a : mj.actuators) {
    nb::dict d;
    d["name"] = a.name;
    d["type"] = a.type == MjcfActuatorType::Motor ? "motor" : a.type == MjcfActuatorType::Position ? "position" : "velocity";
    d["joint"] = a.joint;
    d["gear"] = a.gear;
    d["ctrllimited"] = a.ctrllimited;
    d["ctrlrange"] = nb::make_tuple(a.ctrl_lower, a.ctrl_upper);
    d["forcelimited"] = a.forcelimited;
    d["forcerange"] = nb::make_tuple(a.force_lower, a.force_upper);
    d["kp"] = a.kp;
    d["kv"] = a.kv;
    d["gain"] = a.gain;
    acts.append(d);
  }
  out["actuators"] = acts;
  nb::list warnings;
  for (const std::string& w : rm.warnings) warnings.append(w);
  out["warnings"] = warnings;
  return out;
}

}  // namespace

void bind_mjcf(nb::module_& m) {
  m.def("mjcf_model", &mjcf_model, nb::arg("path"),
        "The MJCF importer's model of a file (docs/mjcf.md) as a dict: links (name, joint, parent, type, axis, "
        "joint frame, mass, com, inertia about the CoM in the link frame, limits, damping, friction, armature, "
        "stiffness and spring_q (the spring's rest coordinate in SimPhant's q), ref), "
        "base (link, mass, com, inertia; position and orientation (w, x, y, z): a free body's XML pose, MuJoCo's "
        "qpos0 of its free joint), bodies (per MuJoCo body from id 1: name, owner (the link "
        "it moves with, or \"world\"), its own mass, com and inertia about the com in the owner's frame: MuJoCo's "
        "body_mass, body_ipos, body_inertia placed on Simulator.link_frames of the owner; empty under "
        "<compiler fusestatic=\"true\">), floating, gravity, timestep, integrator, actuators (name, type, joint, gear, ctrlrange, forcerange, kp, kv, gain), "
        "warnings. ValueError: what the importer refuses.");
}

}  // namespace simphant::python
