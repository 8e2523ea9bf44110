#pragma once
// The first-order fixed-step integrators' update of one body (docs/solver.md,
// "Integrators"), written once for the CPU reference (dynamics/euler.cpp) and the batched
// kernels (kernels/euler_stage.hpp, kernels/fused_stage.hpp). From the body's state
// q = (r, p), qdot = (v, omega_B) at the step's start and its derivative there
// (rdot = v, pdot = 1/2 p (0, omega_B), vdot, omegadot_B from one evaluate):
//   explicit Euler:             q+ = q + h qdot(q, v),         v+ = v + h a(q, v)
//   symplectic (semi-implicit): v+ = v + h a(q, v),            r+ = r + h v+,
//                               p+ = p + h 1/2 p (0, omega_B+)
// then p+ is renormalised, as RK4's result is. Symplectic Euler is the first-order
// method that treats the velocities explicitly and the positions implicitly (Hairer,
// Lubich, Wanner, "Geometric Numerical Integration", 2nd ed., Sec. I.1.2 and VI.3).
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// The fixed-step first-order methods of euler_body_step.
enum class EulerKind : int { Explicit = 0, Symplectic = 1 };

/// One step h [s] of one body. In: q (7: r [m], p w x y z), qd (6: v [m/s] W,
/// omega_B [rad/s]), qdot (7: rdot, pdot of the evaluation) and qdd (6: vdot [m/s^2],
/// omegadot_B [rad/s^2]). Out: q_out (7, p unit), qd_out (6). Outputs may not alias
/// inputs.
template <class T>
SP_HD void euler_body_step(EulerKind kind, T h, const T* q, const T* qd, const T* qdot, const T* qdd, T* q_out,
                           T* qd_out) {
  for (int e = 0; e < 6; ++e) qd_out[e] = qd[e] + h * qdd[e];
  if (kind == EulerKind::Explicit) {
    for (int e = 0; e < 7; ++e) q_out[e] = q[e] + h * qdot[e];
  } else {
    for (int e = 0; e < 3; ++e) q_out[e] = q[e] + h * qd_out[e];
    const Quat<T> p{q[3], q[4], q[5], q[6]};
    const Quat<T> pd = quat_rate(p, Vec3<T>{qd_out[3], qd_out[4], qd_out[5]});
    q_out[3] = p.w + h * pd.w;
    q_out[4] = p.x + h * pd.x;
    q_out[5] = p.y + h * pd.y;
    q_out[6] = p.z + h * pd.z;
  }
  const Quat<T> pn = normalized(Quat<T>{q_out[3], q_out[4], q_out[5], q_out[6]});
  q_out[3] = pn.w;
  q_out[4] = pn.x;
  q_out[5] = pn.y;
  q_out[6] = pn.z;
}

}  // namespace simphant
