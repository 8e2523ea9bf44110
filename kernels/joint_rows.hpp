#pragma once
// Per-thread function of the joint-rows kernel: one thread per (instance, constraint
// element: a joint or a driver, model_view.hpp) evaluates that element's Phi, its Phi_q
// row block (12 columns: the two bodies' translational and rotational blocks) and
// gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi with the shared joint math
// (simphant/joints/joint_math.hpp, joint_coordinate.hpp; docs/solver.md, Joints and
// Rheonomic drivers).
// Callable on the host so CPU tests run it over the whole grid (one copy of the joint
// math for CPU and GPU).
#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"

namespace simphant::batch {

/// Rows R of constraint element j of instance i from its evaluated rows jr (the removed
/// ones taken out of the solve first: remove_rows, mv.removed_mask): Phi into
/// phi_out (m, n), gamma* (row_gamma_star with the instance's alpha, beta) into
/// gamma_star_out (m, n), the Phi_q row block into jac_out (m, 12, n).
template <class T>
SP_HD void joint_rows_store(int i, int j, const ModelView<T>& mv, JointRows<T>& jr, T* phi_out, T* jac_out,
                            T* gamma_star_out) {
  const int n = mv.n_instances;
  const int removed = mv.removed_mask[j];
  remove_rows(jr, removed);
  const T alpha = mv.alpha(i), beta = mv.beta(i);
  for (int r = 0; r < jr.m; ++r) {
    const int R = mv.row_offset[j] + r;
    soa(phi_out, R, n, i) = jr.phi[r];
    soa(gamma_star_out, R, n, i) = row_gamma_star(jr, r, removed, alpha, beta);
    for (int c = 0; c < 12; ++c) soa(jac_out, 12 * R + c, n, i) = jr.jac[r][c];
  }
}

/// Joint j < mv.n_joints of instance i (no time dependence: runs with any T, the SIMD
/// lanes of simd/ included). y_in (13 N, n); outputs as joint_rows_store.
template <class T>
SP_HD void joint_rows_of_joint(int i, int j, const ModelView<T>& mv, const T* y_in, T* phi_out, T* jac_out,
                               T* gamma_star_out) {
  const int n = mv.n_instances;
  const BodyKin<T> Bi = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j]);
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j + 1]);
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
  const BodyKin<T> Bi = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j]);
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j + 1]);
  JointRows<T> jr;
  const int* dr = mv.driver + 3 * (j - mv.n_joints);  // joint, coordinate, law
  T s, sd, sdd;
  motion_law_value(mv, dr[2], i, t_in[i], s, sd, sdd);
  jr.m = 1;
  driver_row(static_cast<JointCoordinate>(dr[1]), mv.frame(dr[0], i), Bi, Bj, s, sd, sdd, jr, 0);
  joint_rows_store(i, j, mv, jr, phi_out, jac_out, gamma_star_out);
}

/// tid = j * n + i (instance fastest). t_in: (n) instance times [s]; y_in: (13 N, n).
/// Outputs, rows R of element j: phi_out (m, n), jac_out (m, 12, n), gamma_star_out
/// (m, n). Threads past n n_constraints() return.
template <class T>
SP_HD void joint_rows_thread(int tid, const ModelView<T>& mv, const T* t_in, const T* y_in, T* phi_out, T* jac_out,
                             T* gamma_star_out) {
  const int n = mv.n_instances;
  if (tid >= n * mv.n_constraints()) return;
  const int i = tid % n, j = tid / n;
  if (j < mv.n_joints)
    joint_rows_of_joint(i, j, mv, y_in, phi_out, jac_out, gamma_star_out);
  else
    joint_rows_of_driver(i, j, mv, t_in, y_in, phi_out, jac_out, gamma_star_out);
}

}  // namespace simphant::batch
