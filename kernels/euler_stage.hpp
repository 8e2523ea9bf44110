#pragma once
// Per-thread function of the first-order fixed-step integrators (explicit Euler,
// symplectic Euler; docs/solver.md, "Integrators"), one thread per (instance, body k):
// the candidate state from the start state and its one evaluation, by the body update
// that the CPU reference runs (formulas/euler_math.hpp). The candidate is then projected
// and committed per instance as RK4's is (batch_step.hpp, enqueue_euler_step).
#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/euler_math.hpp"
#include "simphant/model/integrator.hpp"

namespace simphant::batch {

/// The EulerKind of ModelView::integrator (euler or symplectic_euler).
SP_HD EulerKind euler_kind_of(std::int8_t integrator) {
  return integrator == static_cast<std::int8_t>(Integrator::SymplecticEuler) ? EulerKind::Symplectic
                                                                              : EulerKind::Explicit;
}

/// tid = k * n + i. y_new_out = body k's one step dt from y_in with derivative k_in
/// (euler_body_step of mv.integrator's kind), quaternion unit; all (13 N, n).
template <class T>
SP_HD void euler_final_thread(int tid, const ModelView<T>& mv, const T* y_in, const T* k_in, T* y_new_out) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n * N) return;
  const int i = tid % n, k = tid / n;
  T q[7], qd[6], qdot[7], qdd[6], q_out[7], qd_out[6];
  for (int e = 0; e < 7; ++e) {
    q[e] = soa(y_in, 7 * k + e, n, i);
    qdot[e] = soa(k_in, 7 * k + e, n, i);
  }
  for (int e = 0; e < 6; ++e) {
    qd[e] = soa(y_in, 7 * N + 6 * k + e, n, i);
    qdd[e] = soa(k_in, 7 * N + 6 * k + e, n, i);
  }
  euler_body_step(euler_kind_of(mv.integrator), mv.dt, q, qd, qdot, qdd, q_out, qd_out);
  for (int e = 0; e < 7; ++e) soa(y_new_out, 7 * k + e, n, i) = q_out[e];
  for (int e = 0; e < 6; ++e) soa(y_new_out, 7 * N + 6 * k + e, n, i) = qd_out[e];
}

}  // namespace simphant::batch
