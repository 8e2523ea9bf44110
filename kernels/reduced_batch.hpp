#pragma once
// A batch of robot instances in joint coordinates as the GPU joint-space backend keeps it
// (host/cuda_reduced_backend.cuh; docs/cuda-backend.md, "Robots"), and the per-thread
// functions of its reads. Plain data and header-only SP_HD templates: the device runs
// them one thread per instance, tests/test_reduced_batch_grid.cpp runs them over the whole
// grid on the CPU.
//
// Layout: every per-instance array is structure of arrays, element e of instance i at
// a[e * n_instances + i] (a warp reads 32 consecutive numbers). The model is held in
// slots: slot 0 for every instance (one shared model), or slot i for instance i (a sweep,
// or after set_models); a slot is the robot's n links (ReducedLinkParams and their CGA
// form), its n joint parameter rows (RobotJointParams), the floating base's mass
// properties and gravity.
//
// Frames (robot_kinematics): the base B of a floating robot at (p_B, quat_B) with twist
// (v_B in W, omega_B in B) from the state (reduced/robot_dynamics.hpp); a fixed base is W.
// Link k's frame L_k is at (R_k: L_k -> W, o_k in W); its CoM c_k = o_k + R_k com_k.
// Velocities: forward_kinematics_velocity (reduced/forward_kinematics.hpp) relative to
// B, then composed with the base's motion: omega_k = R_B (omega_B + w_k^B),
// v(o_k) = v_B + R_B (omega_B x o_k^B + v_k^B).
#include <cstddef>
#include <cstdint>

#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/forward_kinematics.hpp"
#include "simphant/reduced/robot_dynamics.hpp"

namespace simphant::batch {

/// The robot model of a batch (device or host pointers).
template <class T>
struct RobotBatchView {
  int n_instances;
  int n;             ///< moving joints per instance
  int floating;      ///< 1: floating base
  int use_cga;       ///< 0: spatial-vector ABA, 1: CGA ABA
  int per_instance;  ///< 1: slot i for instance i; 0: slot 0 for every instance
  const ReducedLinkParams<T>* links;  ///< (slots, n)
  const cga::CgaLink<T>* cga_links;   ///< (slots, n)
  const RobotJointParams<T>* joints;  ///< (slots, n)
  const RobotBaseParams<T>* base;     ///< (slots)
  const Vec3<T>* gravity;             ///< (slots) [m/s^2], W
};

/// Bodies a robot reports per instance (read_states): the links, plus the base first
/// when it floats (the maximal model's numbering, model/robot.hpp).
SP_HD inline int robot_body_count(int n, int floating) { return n + (floating ? 1 : 0); }

/// Link frames a robot offers (read_link_frames): links 0 .. n-1, then the base (n) when
/// it floats.
SP_HD inline int robot_frame_count(int n, int floating) { return n + (floating ? 1 : 0); }

/// Entries per instance of the frame the backend reads back (robot_frame_thread): the
/// body states (13 per body), kinetic and total energy, q, qd and the actuator forces.
SP_HD inline int robot_frame_size(int n, int floating) { return 13 * robot_body_count(n, floating) + 2 + 3 * n; }

/// Instance i's robot (the slot it reads).
template <class T>
SP_HD RobotView<T> robot_view(const RobotBatchView<T>& b, int i) {
  const std::size_t s = b.per_instance ? static_cast<std::size_t>(i) : 0;
  const std::size_t o = s * static_cast<std::size_t>(b.n);
  RobotView<T> r;
  r.n = b.n;
  r.floating = b.floating;
  r.use_cga = b.use_cga;
  r.links = b.links + o;
  r.cga_links = b.cga_links + o;
  r.joints = b.joints + o;
  r.base = b.base[s];
  r.gravity = b.gravity[s];
  return r;
}

/// Copies instance i's column of the structure-of-arrays state Y into y (count entries).
template <class T>
SP_HD void load_column(const T* Y, int n_instances, int i, int count, T* y) {
  for (int e = 0; e < count; ++e) y[e] = Y[static_cast<std::size_t>(e) * n_instances + i];
}

/// Poses and velocities of the base and the links at one state; Cap >= n.
template <class T, int Cap>
struct RobotKinematics {
  Mat3<T> R[Cap];   ///< L_k -> W
  Vec3<T> o[Cap];   ///< frame origin, W [m]
  Vec3<T> c[Cap];   ///< CoM, W [m]
  Vec3<T> vc[Cap];  ///< CoM velocity, W [m/s]
  Vec3<T> w[Cap];   ///< angular velocity in L_k [rad/s]
  Vec3<T> vo[Cap];  ///< velocity of the frame origin, W [m/s]
  Mat3<T> R_B;      ///< base B -> W (identity for a fixed base)
  Quat<T> quat_B;   ///< the state's base quaternion (w, x, y, z); (1, 0, 0, 0) fixed
  Vec3<T> p_B, v_B, omega_B;  ///< base origin [m] and its velocity [m/s] in W; omega in B [rad/s]
};

/// Fills K for the state y of robot r (robot_dynamics.hpp's layout).
template <class T, int Cap>
SP_HD void robot_kinematics(const RobotView<T>& r, const T* y, RobotKinematics<T, Cap>& K) {
  const int n = r.n;
  const int nq = robot_q_size(n, r.floating);
  const T* q = y + (r.floating ? 7 : 0);
  const T* qd = y + nq + (r.floating ? 6 : 0);
  forward_kinematics_velocity(n, r.links, q, qd, K.R, K.o, K.c, K.vc, K.w, K.vo);
  if (!r.floating) {
    K.R_B = identity3<T>();
    K.quat_B = Quat<T>{T(1), T(0), T(0), T(0)};
    K.p_B = K.v_B = K.omega_B = zero3<T>();
    return;
  }
  K.p_B = Vec3<T>{y[0], y[1], y[2]};
  K.quat_B = Quat<T>{y[3], y[4], y[5], y[6]};
  K.R_B = rotation(normalized(K.quat_B));
  K.v_B = Vec3<T>{y[nq], y[nq + 1], y[nq + 2]};
  K.omega_B = Vec3<T>{y[nq + 3], y[nq + 4], y[nq + 5]};
  for (int k = 0; k < n; ++k) {
    const Mat3<T> R_rel = K.R[k];  // L_k -> B
    const Vec3<T> omega_rel_B = mul(R_rel, K.w[k]);  // relative angular velocity, B axes
    K.R[k] = spatial_detail::m3_mul(K.R_B, R_rel);
    K.w[k] = mul_t(R_rel, K.omega_B + omega_rel_B);  // absolute, L_k axes
    const Vec3<T> o_rel = K.o[k];
    K.o[k] = K.p_B + mul(K.R_B, o_rel);
    K.vo[k] = K.v_B + mul(K.R_B, cross(K.omega_B, o_rel) + K.vo[k]);
    const Vec3<T> c_rel = K.c[k];
    K.c[k] = K.p_B + mul(K.R_B, c_rel);
    K.vc[k] = K.v_B + mul(K.R_B, cross(K.omega_B, c_rel) + K.vc[k]);
  }
}

/// The 13 numbers of one pose and twist: position [m], quaternion (w, x, y, z; frame ->
/// W), velocity of that point [m/s] (W), angular velocity in the frame's own axes [rad/s].
template <class T>
SP_HD void write_frame13(const Vec3<T>& r, const Quat<T>& p, const Vec3<T>& v, const Vec3<T>& omega_B, T* out,
                         std::size_t stride) {
  const T rec[13] = {r.x, r.y, r.z, p.w, p.x, p.y, p.z, v.x, v.y, v.z, omega_B.x, omega_B.y, omega_B.z};
  for (int e = 0; e < 13; ++e) out[static_cast<std::size_t>(e) * stride] = rec[e];
}

/// Body b's state (Backend::read_states' 13 numbers: CoM, orientation with w >= 0 for the
/// links (quat_from_rotation) and the state's quaternion for the base, CoM velocity, angular
/// velocity in the body axes). Body 0 is the base when it floats.
template <class T, int Cap>
SP_HD void robot_body_state(const RobotView<T>& r, const RobotKinematics<T, Cap>& K, int b, T* out,
                            std::size_t stride) {
  if (r.floating && b == 0) {
    const Vec3<T> com = mul(K.R_B, r.base.com);
    write_frame13(K.p_B + com, K.quat_B, K.v_B + cross(mul(K.R_B, K.omega_B), com), K.omega_B, out, stride);
    return;
  }
  const int k = b - (r.floating ? 1 : 0);
  write_frame13(K.c[k], quat_from_rotation(K.R[k]), K.vc[k], K.w[k], out, stride);
}

/// Frame f's pose and twist (read_link_frames): link f's frame L_f (f < n) or the base
/// frame B (f == n, floating), at the frame origin: the 13 numbers of write_frame13.
template <class T, int Cap>
SP_HD void robot_link_frame(const RobotView<T>& r, const RobotKinematics<T, Cap>& K, int f, T* out,
                            std::size_t stride) {
  if (f >= r.n) {
    write_frame13(K.p_B, K.quat_B, K.v_B, K.omega_B, out, stride);
    return;
  }
  write_frame13(K.o[f], quat_from_rotation(K.R[f]), K.vo[f], K.w[f], out, stride);
}

/// Kinetic energy sum 1/2 m v_c.v_c + 1/2 w.I_c w and gravity potential -sum m g.c [J]
/// over the links and the floating base.
template <class T, int Cap>
SP_HD void robot_energy(const RobotView<T>& r, const RobotKinematics<T, Cap>& K, T& kinetic, T& potential) {
  T Tk = T(0), V = T(0);
  for (int k = 0; k < r.n; ++k) {
    const ReducedLinkParams<T>& L = r.links[k];
    Tk += T(0.5) * L.mass * dot(K.vc[k], K.vc[k]) + T(0.5) * dot(K.w[k], mul(L.inertia_com, K.w[k]));
    V -= L.mass * dot(r.gravity, K.c[k]);
  }
  if (r.floating) {
    const Vec3<T> com = mul(K.R_B, r.base.com);
    const Vec3<T> vc = K.v_B + cross(mul(K.R_B, K.omega_B), com);
    Tk += T(0.5) * r.base.mass * dot(vc, vc) + T(0.5) * dot(K.omega_B, mul(r.base.inertia_com, K.omega_B));
    V -= r.base.mass * dot(r.gravity, K.p_B + com);
  }
  kinetic = Tk;
  potential = V;
}

/// tid = instance i: the frame the backend reads back, (robot_frame_size, n_instances)
/// structure of arrays: the body states (13 per body, robot_body_state), kinetic and total
/// energy [J], q (n), qd (n) and the actuator forces tau (n) (robot_actuator_forces: what
/// /joint_state/tau records). Y (state size, n_instances), U (n, n_instances) inputs.
template <class T, int Cap>
SP_HD void robot_frame_thread(int tid, const RobotBatchView<T> b, const T* Y, const T* U, T* frame) {
  if (tid >= b.n_instances) return;
  const int i = tid, n = b.n;
  const RobotView<T> r = robot_view(b, i);
  const int ny = robot_state_size(n, b.floating), nq = robot_q_size(n, b.floating);
  T y[2 * Cap + 13], u[Cap], tau[Cap];
  load_column(Y, b.n_instances, i, ny, y);
  load_column(U, b.n_instances, i, n, u);
  RobotKinematics<T, Cap> K;
  robot_kinematics(r, y, K);
  const std::size_t s = static_cast<std::size_t>(b.n_instances);
  T* out = frame + i;
  const int B = robot_body_count(n, b.floating);
  for (int body = 0; body < B; ++body) robot_body_state(r, K, body, out + 13 * body * s, s);
  T kinetic, potential;
  robot_energy(r, K, kinetic, potential);
  out[(13 * B) * s] = kinetic;
  out[(13 * B + 1) * s] = kinetic + potential;
  robot_actuator_forces(r, y, u, tau);
  const int q0 = b.floating ? 7 : 0, qd0 = nq + (b.floating ? 6 : 0);
  for (int k = 0; k < n; ++k) {
    out[static_cast<std::size_t>(13 * B + 2 + k) * s] = y[q0 + k];
    out[static_cast<std::size_t>(13 * B + 2 + n + k) * s] = y[qd0 + k];
    out[static_cast<std::size_t>(13 * B + 2 + 2 * n + k) * s] = tau[k];
  }
}

/// tid = instance i: the pose and twist of frames[0 .. count) (robot_link_frame) into
/// out (13 count, n_instances), structure of arrays.
template <class T, int Cap>
SP_HD void robot_link_frames_thread(int tid, const RobotBatchView<T> b, const T* Y, const int* frames, int count,
                                    T* out) {
  if (tid >= b.n_instances) return;
  const int i = tid;
  const RobotView<T> r = robot_view(b, i);
  T y[2 * Cap + 13];
  load_column(Y, b.n_instances, i, robot_state_size(b.n, b.floating), y);
  RobotKinematics<T, Cap> K;
  robot_kinematics(r, y, K);
  const std::size_t s = static_cast<std::size_t>(b.n_instances);
  for (int c = 0; c < count; ++c) robot_link_frame(r, K, frames[c], out + i + 13 * c * s, s);
}

}  // namespace simphant::batch
