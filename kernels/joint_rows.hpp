#pragma once
// Per-thread function of the joint-rows kernel: one thread per (instance, constraint
// element: a joint, a driver or a mimic row, model_view.hpp) evaluates that element's
// Phi, its Phi_q row block (mv.jac_cols() = 6 mv.sides columns: each side's body's
// translational and rotational blocks; a joint or driver fills sides 0 and 1, the others
// are zero) and
// gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi with the shared joint math
// (simphant/joints/joint_math.hpp, joint_coordinate.hpp; docs/solver.md, Joints,
// Rheonomic drivers and Mimic rows).
// Callable on the host so CPU tests run it over the whole grid (one copy of the joint
// math for CPU and GPU).
#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"

namespace simphant::batch {

/// Rows R of constraint element j of instance i from its evaluated rows jr (the removed
/// ones taken out of the solve first: remove_rows, mv.removed_mask): Phi into
/// phi_out (m, n), gamma* (row_gamma_star with the instance's alpha, beta) into
/// gamma_star_out (m, n), the Phi_q row block into jac_out (m, mv.jac_cols(), n): columns
/// 0..11 from jr, then (4 sides) columns 12..23 from leader_jac (row r at
/// leader_jac[12 r]; null: zeros).
template <class T>
SP_HD void joint_rows_store(int i, int j, const ModelView<T>& mv, JointRows<T>& jr, T* phi_out, T* jac_out,
                            T* gamma_star_out, const T* leader_jac = nullptr) {
  const int n = mv.n_instances, w = mv.jac_cols();
  const int removed = mv.removed_mask[j];
  remove_rows(jr, removed);
  const T alpha = mv.alpha(i), beta = mv.beta(i);
  for (int r = 0; r < jr.m; ++r) {
    const int R = mv.row_offset[j] + r;
    soa(phi_out, R, n, i) = jr.phi[r];
    soa(gamma_star_out, R, n, i) = row_gamma_star(jr, r, removed, alpha, beta);
    for (int c = 0; c < 12; ++c) soa(jac_out, w * R + c, n, i) = jr.jac[r][c];
    const bool leader = leader_jac && !(removed & (1 << r));  // remove_rows zeroes a removed row's columns
    for (int c = 12; c < w; ++c) soa(jac_out, w * R + c, n, i) = leader ? leader_jac[12 * r + c - 12] : T(0);
  }
}

/// Joint j < mv.n_joints of instance i (no time dependence: runs with any T, the SIMD
/// lanes of simd/ included). y_in (13 N, n); outputs as joint_rows_store.
template <class T>
SP_HD void joint_rows_of_joint(int i, int j, const ModelView<T>& mv, const T* y_in, T* phi_out, T* jac_out,
                               T* gamma_star_out) {
  const int n = mv.n_instances;
  const BodyKin<T> Bi = soa_body_kin(y_in, n, i, mv.n_bodies, mv.body_of(j, 0));
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.body_of(j, 1));
  JointRows<T> jr;
  joint_eval(static_cast<JointType>(mv.joint_type[j]), mv.frame(j, i), Bi, Bj, jr);
  joint_rows_store(i, j, mv, jr, phi_out, jac_out, gamma_star_out);
}

/// Driver element j >= mv.n_joints of instance i at its time t_in[i] [s] (the motion
/// law's s(t), s', s''; scalar T). Outputs as joint_rows_store.
template <class T>
SP_HD void joint_rows_of_driver(int i, int j, const ModelView<T>& mv, const T* t_in, const T* y_in, T* phi_out,
                                T* jac_out, T* gamma_star_out) {
  const int n = mv.n_instances;
  const BodyKin<T> Bi = soa_body_kin(y_in, n, i, mv.n_bodies, mv.body_of(j, 0));
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.body_of(j, 1));
  JointRows<T> jr;
  const int* dr = mv.driver + 3 * (j - mv.n_joints);  // joint, coordinate, law
  T s, sd, sdd;
  motion_law_value(mv, dr[2], i, t_in[i], s, sd, sdd);
  jr.m = 1;
  driver_row(static_cast<JointCoordinate>(dr[1]), mv.frame(dr[0], i), Bi, Bj, s, sd, sdd, jr, 0);
  joint_rows_store(i, j, mv, jr, phi_out, jac_out, gamma_star_out);
}

/// Mimic row element j >= mv.first_mimic() of instance i (mimic_row: the follower's
/// columns in 0..11, the leader's, times -multiplier, in 12..23; no time dependence, but
/// the angles' wrap (wrap_angle) is scalar: float or double, so the SIMD lanes of simd/
/// run it per lane). Outputs as joint_rows_store.
template <class T>
SP_HD void joint_rows_of_mimic(int i, int j, const ModelView<T>& mv, const T* y_in, T* phi_out, T* jac_out,
                               T* gamma_star_out) {
  const int n = mv.n_instances, N = mv.n_bodies, k = j - mv.first_mimic();
  const int* mi = mv.mimic + 4 * k;  // follower, leader, coordinate, leader coordinate
  const int p = mv.mimic_param + kMimicParams * k;
  JointRows<T> jr;
  T leader_jac[12];
  mimic_row(static_cast<JointCoordinate>(mi[2]), mv.frame(mi[0], i), soa_body_kin(y_in, n, i, N, mv.body_of(j, 0)),
            soa_body_kin(y_in, n, i, N, mv.body_of(j, 1)), static_cast<JointCoordinate>(mi[3]), mv.frame(mi[1], i),
            soa_body_kin(y_in, n, i, N, mv.body_of(j, 2)), soa_body_kin(y_in, n, i, N, mv.body_of(j, 3)),
            mv.param(p, i), mv.param(p + 1, i), mv.param(p + 2, i), mv.param(p + 3, i), jr, leader_jac);
  joint_rows_store(i, j, mv, jr, phi_out, jac_out, gamma_star_out, static_cast<const T*>(leader_jac));
}

/// tid = j * n + i (instance fastest). t_in: (n) instance times [s]; y_in: (13 N, n).
/// Outputs, rows R of element j: phi_out (m, n), jac_out (m, mv.jac_cols(), n),
/// gamma_star_out (m, n). Threads past n n_constraints() return.
template <class T>
SP_HD void joint_rows_thread(int tid, const ModelView<T>& mv, const T* t_in, const T* y_in, T* phi_out, T* jac_out,
                             T* gamma_star_out) {
  const int n = mv.n_instances;
  if (tid >= n * mv.n_constraints()) return;
  const int i = tid % n, j = tid / n;
  if (j < mv.n_joints)
    joint_rows_of_joint(i, j, mv, y_in, phi_out, jac_out, gamma_star_out);
  else if (j < mv.first_mimic())
    joint_rows_of_driver(i, j, mv, t_in, y_in, phi_out, jac_out, gamma_star_out);
  else
    joint_rows_of_mimic(i, j, mv, y_in, phi_out, jac_out, gamma_star_out);
}

}  // namespace simphant::batch
