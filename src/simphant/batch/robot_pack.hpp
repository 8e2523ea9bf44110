#pragma once
// Host-side packing of robot models (Model::robot, solver aba / cga) into the model slots
// of kernels/reduced_batch.hpp: per slot the n links (ReducedLinkParams and their CGA
// form), the n joint parameter rows, the floating base's mass properties and gravity, in
// the batch precision T; and an instance's initial state in robot_dynamics.hpp's layout.
// Used by the GPU joint-space backend (host/cuda_reduced_backend.cuh) and by the tests
// that run its per-thread functions on the CPU.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/robot_contact_pair.hpp"
#include "simphant/reduced/robot_dynamics.hpp"

namespace simphant::batch {

/// RobotJointParams<double> in precision T.
template <class T>
RobotJointParams<T> cast_joint_params(const RobotJointParams<double>& p) {
  return {p.mode,          T(p.kp),        T(p.kd),    T(p.effort),          T(p.velocity),      T(p.damping),
          T(p.friction),   T(p.friction_velocity),     p.limited,            T(p.lower),         T(p.upper),
          T(p.limit_stiffness), T(p.limit_damping),    p.mimic,              T(p.mimic_multiplier), T(p.mimic_offset),
          T(p.stiffness),  T(p.spring_q)};
}

/// Shape s in precision T.
template <class T>
Shape<T> cast_shape(const Shape<double>& s) {
  return {s.kind, {T(s.size[0]), T(s.size[1]), T(s.size[2])}, cast3<T>(s.pos_B),
          Quat<T>{T(s.quat_B.w), T(s.quat_B.x), T(s.quat_B.y), T(s.quat_B.z)}};
}

/// The joint-space owner (RobotContactPair) of the maximal model's body b (model/robot.hpp:
/// body k = link k, or with a floating base body 0 = the base and body k + 1 = link k).
inline int robot_contact_owner(int b, bool floating) {
  if (b == kGround) return kRobotWorldOwner;
  return floating ? b - 1 : b;  // floating: body 0 -> kRobotBaseOwner (-1)
}

/// The contact pairs of a robot model in the joint-space form (reduced/robot_contact.hpp):
/// its Contact force elements (scene/contact_compile.cpp, in model order), with their
/// shapes already in the bodies' frames and the pairs' parameters, in precision T.
template <class T>
std::vector<RobotContactPair<T>> robot_contact_pairs(const Model& m) {
  std::vector<RobotContactPair<T>> out;
  if (!m.robot) return out;
  const bool floating = m.robot->model.floating;
  for (const ForceElement& f : m.forces) {
    if (f.type != ForceType::Contact) continue;
    const ContactPairParams<double>& c = f.contact;
    RobotContactPair<T> p;
    p.owner_a = robot_contact_owner(f.body_i, floating);
    p.owner_b = robot_contact_owner(f.body_j, floating);
    p.shape_a = cast_shape<T>(f.shape_i);
    p.shape_b = cast_shape<T>(f.shape_j);
    p.params.normal = {c.normal.law, T(c.normal.stiffness), T(c.normal.exponent), T(c.normal.damping),
                       T(c.normal.v_floor)};
    p.params.friction = {T(c.friction.mu), T(c.friction.v_eps), T(c.friction.mu_roll), T(c.friction.w_eps)};
    p.params.margin = T(c.margin);
    out.push_back(p);
  }
  return out;
}

/// Instance state y (robot_state_size) at the model's initial values: [q0, qd0], or
/// [base_q0 (p_B, quat_B), q0, base_v0 (v_B, omega_B), qd0] with a floating base.
inline void robot_initial_state(const RobotJointSpace& r, double* y) {
  const int n = r.n();
  int e = 0;
  if (r.model.floating)
    for (double v : r.base_q0) y[e++] = v;
  for (int k = 0; k < n; ++k) y[e++] = r.q0[static_cast<std::size_t>(k)];
  if (r.model.floating)
    for (double v : r.base_v0) y[e++] = v;
  for (int k = 0; k < n; ++k) y[e++] = r.qd0[static_cast<std::size_t>(k)];
}

/// The slots of a batch on the host, (slots, n) each (slot s's rows at s * n).
template <class T>
struct RobotSlots {
  int n = 0;
  int ny = 0;  ///< robot_state_size
  std::vector<ReducedLinkParams<T>> links;
  std::vector<cga::CgaLink<T>> cga_links;
  std::vector<RobotJointParams<T>> joints;
  std::vector<RobotBaseParams<T>> base;
  std::vector<Vec3<T>> gravity;
  std::vector<T> runaway;  ///< (slots) solver.runaway_kinetic_energy [J]; <= 0: none
  std::vector<T> y_init;   ///< (slots, robot_state_size) the initial state (robot_initial_state)
  int n_contacts = 0;      ///< contact pairs per slot (robot_contact_pairs)
  std::vector<RobotContactPair<T>> contacts;  ///< (slots, n_contacts)

  int slots() const { return static_cast<int>(base.size()); }
  void resize(int n_links, int floating, int n_slots, int pairs = 0) {
    n = n_links;
    n_contacts = pairs;
    contacts.resize(static_cast<std::size_t>(n_slots) * static_cast<std::size_t>(pairs));
    ny = robot_state_size(n_links, floating);
    const std::size_t rows = static_cast<std::size_t>(n_slots) * static_cast<std::size_t>(n_links);
    links.resize(rows);
    cga_links.resize(rows);
    joints.resize(rows);
    base.resize(static_cast<std::size_t>(n_slots));
    gravity.resize(static_cast<std::size_t>(n_slots));
    runaway.resize(static_cast<std::size_t>(n_slots));
    y_init.resize(static_cast<std::size_t>(n_slots) * static_cast<std::size_t>(ny));
  }
  /// Points the model part of a batch view (kernels/reduced_step.hpp, ReducedBatchView)
  /// at these slots: n, n_slots and the links, CGA links, joints, base, gravity, runaway
  /// bounds, initial states and contact pairs.
  template <class View>
  void point(View& b) const {
    b.n = n;
    b.n_slots = slots();
    b.links = links.data();
    b.cga_links = cga_links.data();
    b.joints = joints.data();
    b.base = base.data();
    b.gravity = gravity.data();
    b.runaway_kinetic_energy = runaway.data();
    b.y_init = y_init.data();
    b.n_contacts = n_contacts;
    b.contacts = n_contacts > 0 ? contacts.data() : nullptr;
  }
  /// Slot s's rows copied to slot d of `to` (same n).
  void copy_slot(int s, RobotSlots& to, int d) const {
    const std::size_t o = static_cast<std::size_t>(s) * n, p = static_cast<std::size_t>(d) * n;
    for (int k = 0; k < n; ++k) {
      to.links[p + k] = links[o + k];
      to.cga_links[p + k] = cga_links[o + k];
      to.joints[p + k] = joints[o + k];
    }
    to.base[static_cast<std::size_t>(d)] = base[static_cast<std::size_t>(s)];
    to.gravity[static_cast<std::size_t>(d)] = gravity[static_cast<std::size_t>(s)];
    to.runaway[static_cast<std::size_t>(d)] = runaway[static_cast<std::size_t>(s)];
    for (int e = 0; e < ny; ++e)
      to.y_init[static_cast<std::size_t>(d) * ny + e] = y_init[static_cast<std::size_t>(s) * ny + e];
    for (int c = 0; c < n_contacts; ++c)
      to.contacts[static_cast<std::size_t>(d) * n_contacts + c] = contacts[static_cast<std::size_t>(s) * n_contacts + c];
  }
  /// Writes model m (a robot model of n joints) into slot s. Joints without derived
  /// parameters (an empty RobotJointSpace::joints) get plain_joint_params: torque inputs.
  /// Throws std::invalid_argument (changing nothing) unless m has n_contacts contact pairs.
  void write(int s, const Model& m) {
    const std::vector<RobotContactPair<T>> pairs = robot_contact_pairs<T>(m);
    if (static_cast<int>(pairs.size()) != n_contacts)
      throw std::invalid_argument("robot model: every instance needs the same contact pairs (" +
                                  std::to_string(pairs.size()) + " against " + std::to_string(n_contacts) + ")");
    const RobotJointSpace& r = *m.robot;
    const std::size_t o = static_cast<std::size_t>(s) * static_cast<std::size_t>(n);
    for (int k = 0; k < n; ++k) {
      links[o + k] = reduced_link_params<T>(r.model, k);
      cga_links[o + k] = cga::cga_link(links[o + k]);
      joints[o + k] = r.joints.size() == static_cast<std::size_t>(n) ? cast_joint_params<T>(r.joints[static_cast<std::size_t>(k)])
                                                                     : plain_joint_params<T>();
    }
    base[static_cast<std::size_t>(s)] = {T(r.model.base.mass), cast3<T>(r.model.base.com), cast33<T>(r.model.base.inertia_com)};
    gravity[static_cast<std::size_t>(s)] = cast3<T>(r.model.gravity);
    runaway[static_cast<std::size_t>(s)] = T(m.solver.runaway_kinetic_energy);
    double y[2 * kMaxReducedLinks + 13];
    robot_initial_state(r, y);
    for (int e = 0; e < ny; ++e) y_init[static_cast<std::size_t>(s) * ny + e] = T(y[e]);
    std::copy(pairs.begin(), pairs.end(), contacts.begin() + static_cast<std::ptrdiff_t>(s) * n_contacts);
  }
};

// for_each_slot_number visits every number of these rows: a new field must be added there too.
static_assert(sizeof(ReducedLinkParams<double>) == 2 * sizeof(int) + 29 * sizeof(double),
              "for_each_slot_number: ReducedLinkParams has other fields");
static_assert(sizeof(RobotJointParams<double>) == 15 * sizeof(double) + 3 * sizeof(double),
              "for_each_slot_number: RobotJointParams has other fields (3 ints, each padded to 8 bytes)");
static_assert(sizeof(RobotBaseParams<double>) == 13 * sizeof(double),
              "for_each_slot_number: RobotBaseParams has other fields");

/// f(x) for each number x (a T&) of slot s's links, joints, base and gravity, in one
/// fixed order: a robot's packed parameters (robot_flat_params), whose derivatives with
/// respect to scene values seed its sensitivities (sim/sensitivity_seeds.hpp), as
/// batch::flatten_params's do for the DAE. Not the CGA links (derived from the links:
/// write them again after changing a link), the runaway bound, the initial state or the
/// contact pairs.
template <class T, class F>
void for_each_slot_number(RobotSlots<T>& a, int s, F f) {
  const auto vec = [&f](Vec3<T>& v) {
    f(v.x);
    f(v.y);
    f(v.z);
  };
  const auto mat = [&f](Mat3<T>& m) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) f(m.m[i][j]);
  };
  const std::size_t o = static_cast<std::size_t>(s) * static_cast<std::size_t>(a.n);
  for (int k = 0; k < a.n; ++k) {
    ReducedLinkParams<T>& l = a.links[o + k];
    mat(l.R_parent_joint);
    vec(l.p_parent_joint);
    vec(l.axis);
    f(l.mass);
    vec(l.com);
    mat(l.inertia_com);
    f(l.armature);
    RobotJointParams<T>& j = a.joints[o + k];
    for (T* x : {&j.kp, &j.kd, &j.effort, &j.velocity, &j.damping, &j.friction, &j.friction_velocity, &j.lower,
                 &j.upper, &j.limit_stiffness, &j.limit_damping, &j.mimic_multiplier, &j.mimic_offset, &j.stiffness,
                 &j.spring_q})
      f(*x);
  }
  RobotBaseParams<T>& b = a.base[static_cast<std::size_t>(s)];
  f(b.mass);
  vec(b.com);
  mat(b.inertia_com);
  vec(a.gravity[static_cast<std::size_t>(s)]);
}

/// The packed parameters of robot model m (m.robot set; for_each_slot_number's order).
inline std::vector<double> robot_flat_params(const Model& m) {
  RobotSlots<double> one;
  one.resize(m.robot->n(), m.robot->model.floating ? 1 : 0, 1, m.contact_pair_count());
  one.write(0, m);
  std::vector<double> out;
  for_each_slot_number(one, 0, [&out](double& x) { out.push_back(x); });
  return out;
}

/// Throws std::invalid_argument (naming `who`) unless m is a robot model of n joints with
/// solver `solver`, a floating base iff `floating`, and q0, qd0, tau, joints (n or none)
/// and, floating, base_q0 (7) and base_v0 (6) of the right sizes.
inline void check_robot_model(const Model& m, int n, bool floating, RobotSolver solver, const std::string& who) {
  if (!m.robot || m.robot->n() != n || m.robot->solver != solver || m.robot->model.floating != floating)
    throw std::invalid_argument(who + ": every instance needs the same robot (joints, base) and solver");
  const RobotJointSpace& r = *m.robot;
  const std::size_t sz = static_cast<std::size_t>(n);
  if (r.q0.size() != sz || r.qd0.size() != sz || r.tau.size() != sz || (!r.joints.empty() && r.joints.size() != sz))
    throw std::invalid_argument(who + ": q0, qd0, tau and the joint parameters need one entry per joint");
  if (floating && (r.base_q0.size() != 7 || r.base_v0.size() != 6))
    throw std::invalid_argument(who + ": a floating base needs base_q0 (7) and base_v0 (6)");
}

}  // namespace simphant::batch
