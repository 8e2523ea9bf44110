#pragma once
// Per-thread function of the joint-rows kernel: one thread per (instance, joint)
// evaluates that joint's Phi, its Phi_q row block (12 columns: the two bodies'
// translational and rotational blocks) and gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi
// with the shared joint math (simphant/joints/joint_math.hpp; docs/solver.md, Joints).
// Callable on the host so CPU tests run it over the whole grid (one copy of the joint
// math for CPU and GPU).
#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"

namespace simphant::batch {

/// tid = j * n + i (instance fastest). y_in: (13 N, n). Outputs, rows R of joint j:
/// phi_out (m, n), jac_out (m, 12, n), gamma_star_out (m, n). Threads past n J return.
template <class T>
SP_HD void joint_rows_thread(int tid, const ModelView<T>& mv, const T* y_in, T* phi_out, T* jac_out,
                             T* gamma_star_out) {
  const int n = mv.n_instances;
  if (tid >= n * mv.n_joints) return;
  const int i = tid % n, j = tid / n;
  const BodyKin<T> Bi = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j]);
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.joint_body[2 * j + 1]);
  JointRows<T> jr;
  joint_eval(static_cast<JointType>(mv.joint_type[j]), mv.frame(j, i), Bi, Bj, jr);
  const T alpha = mv.alpha(i), beta = mv.beta(i);
  for (int r = 0; r < jr.m; ++r) {
    const int R = mv.row_offset[j] + r;
    soa(phi_out, R, n, i) = jr.phi[r];
    soa(gamma_star_out, R, n, i) = baumgarte_gamma(jr.gamma[r], jr.phi_dot[r], jr.phi[r], alpha, beta);
    for (int c = 0; c < 12; ++c) soa(jac_out, 12 * R + c, n, i) = jr.jac[r][c];
  }
}

}  // namespace simphant::batch
