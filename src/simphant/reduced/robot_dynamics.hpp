#pragma once
// The joint-space equations of motion of a robot instance, dy/dt = f(y, u), written once
// as header-only SP_HD templates for the CPU backend (sim/reduced_backend.cpp) and the
// GPU one (kernels/reduced_step.hpp): a fixed or floating base, forward dynamics by the
// spatial-vector ABA (aba.hpp) or its CGA form (cga/cga_dynamics.hpp), the joint forces
// of joint_forces.hpp, and mimic joints as shared coordinates (docs/robots.md).
//
// State y of one instance (robot_state_size):
//   fixed base    : [q (n), qd (n)]
//   floating base : [p_B (3), quat_B (4), q (n), v_B (3), omega_B (3), qd (n)]
// p_B: the base frame B's origin in W [m]; quat_B: (w, x, y, z), B -> W; v_B: the
// velocity of B's origin in W [m/s]; omega_B: the base's angular velocity in B [rad/s]
// (MuJoCo's free-joint convention; the DAE body state's frames). q, qd: the moving
// joints in ReducedModel order [rad | m, rad/s | m/s].
// Inputs u (n): per joint, the actuator input of RobotJointParams::mode.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"

namespace simphant {

/// Most mimic joints one robot may have (the per-thread coupling solve is dense in them).
constexpr int kMaxRobotMimic = 8;

/// One instance's robot (plain data; pointers into host or device arrays).
template <class T>
struct RobotView {
  int n;                                ///< moving joints, 1 .. kMaxReducedLinks
  int floating;                         ///< 1: floating base
  int use_cga;                          ///< 0: spatial-vector ABA, 1: CGA ABA
  const ReducedLinkParams<T>* links;    ///< (n)
  const cga::CgaLink<T>* cga_links;     ///< (n), read when use_cga
  const RobotJointParams<T>* joints;    ///< (n)
  RobotBaseParams<T> base;              ///< read when floating
  Vec3<T> gravity;                      ///< [m/s^2], W
};

/// Joint-space coordinates: n (+ 7 floating) positions, n (+ 6 floating) rates.
SP_HD int robot_q_size(int n, int floating) { return n + (floating ? 7 : 0); }
SP_HD int robot_v_size(int n, int floating) { return n + (floating ? 6 : 0); }
SP_HD int robot_state_size(int n, int floating) { return robot_q_size(n, floating) + robot_v_size(n, floating); }

/// Per-call scratch of robot_derivative; fixed size, no allocation. (Layout is the
/// implementer's: the GPU wants it small, see kernels/reduced_step.hpp.)
template <class T>
struct RobotWorkspace {
  AbaWorkspace<T> aba;
  cga::CgaWorkspace<T> cga;
  T tau[kMaxReducedLinks];   ///< joint forces at y
  T qdd[kMaxReducedLinks];
  T resp[kMaxRobotMimic][kMaxReducedLinks + 6];  ///< mimic: unit responses M^-1 J^T
  T C[kMaxRobotMimic * kMaxRobotMimic];          ///< mimic: J M^-1 J^T
};

/// dy/dt at y with inputs u (robot_state_size entries): [dq/dt (q size), dv/dt (v size)];
/// for a floating base dp_B/dt = v_B, dquat_B/dt = quat_B (0, omega_B) / 2, then the base's
/// (dv_B/dt, domega_B/dt) and qdd. Mimic joints get qd = r qd[m] and qdd = r qdd[m]
/// exactly (constraint forces of the coupling, docs/robots.md "Mimic joints").
template <class T>
SP_HD void robot_derivative(const RobotView<T>& r, const T* y, const T* u, T* ydot, RobotWorkspace<T>& ws);

/// The actuator forces (n) at y with inputs u (joint_actuator_force; what /joint_state/tau records).
template <class T>
SP_HD void robot_actuator_forces(const RobotView<T>& r, const T* y, const T* u, T* tau_out);

/// After a step: the base quaternion renormalised, mimic joints set to
/// q = r q[m] + offset and qd = r qd[m].
template <class T>
SP_HD void robot_normalize_state(const RobotView<T>& r, T* y);

}  // namespace simphant
