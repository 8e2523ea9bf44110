#pragma once
// RobotView: one robot instance as the joint-space per-thread functions read it
// (robot_dynamics.hpp, robot_kinematics.hpp, kernels/reduced_step.hpp), and the sizes of
// its state.
//
// State y of one instance (robot_state_size):
//   fixed base    : [q (n), qd (n)]
//   floating base : [p_B (3), quat_B (4), q (n), v_B (3), omega_B (3), qd (n)]
// p_B: the base frame B's origin in W [m]; quat_B: (w, x, y, z), B -> W; v_B: the
// velocity of B's origin in W [m/s]; omega_B: the base's angular velocity in B [rad/s]
// (MuJoCo's free-joint convention; the DAE body state's frames). q, qd: the moving
// joints in ReducedModel order [rad | m, rad/s | m/s]. The first robot_q_size entries are
// the positions, the remaining robot_v_size the velocities.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/robot_contact_pair.hpp"

namespace simphant {

/// Most mimic joints one robot may have (the per-thread coupling solve is dense in them).
constexpr int kMaxRobotMimic = 8;

/// One instance's robot (plain data; pointers into host or device arrays).
template <class T>
struct RobotView {
  int n;                                ///< moving joints, 0 (a free body) .. kMaxReducedLinks
  int floating;                         ///< 1: floating base
  int use_cga;                          ///< 0: spatial-vector ABA, 1: CGA ABA
  const ReducedLinkParams<T>* links;    ///< (n)
  const cga::CgaLink<T>* cga_links;     ///< (n), read when use_cga
  const RobotJointParams<T>* joints;    ///< (n)
  RobotBaseParams<T> base;              ///< read when floating
  Vec3<T> gravity;                      ///< [m/s^2], W
  int n_contacts = 0;                             ///< contact pairs (reduced/robot_contact.hpp); 0: none
  const RobotContactPair<T>* contacts = nullptr;  ///< (n_contacts), read when n_contacts > 0 and T is a scalar
  /// T = SIMD lanes (simd/reduced_lane_contact.hpp): per lane, its instance's n_contacts
  /// pairs, which the lanes evaluate one lane at a time; unused otherwise.
  const RobotContactPair<double>* const* lane_contacts = nullptr;
};

/// Joint-space coordinates: n (+ 7 floating) positions, n (+ 6 floating) rates.
SP_HD int robot_q_size(int n, int floating) { return n + (floating ? 7 : 0); }
SP_HD int robot_v_size(int n, int floating) { return n + (floating ? 6 : 0); }
SP_HD int robot_state_size(int n, int floating) { return robot_q_size(n, floating) + robot_v_size(n, floating); }
/// Rigid bodies of the robot: the moving links, and the base when it floats.
SP_HD int robot_n_bodies(int n, int floating) { return n + (floating ? 1 : 0); }

}  // namespace simphant
