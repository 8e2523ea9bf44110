#pragma once
// The per-body arithmetic of the projection onto the constraint manifold (docs/solver.md,
// Projection onto the constraint manifold), header-only __host__ __device__ so that the
// CPU step (dynamics/projection.cpp) and the batched kernels (kernels/projection.hpp) run
// the same code.
//
// A projection stage solves the Schur system of the step's own solve with Q = 0 and
// gamma* = -(residual), so that lambda = C^-1 (residual) and the solve's "accelerations"
// are the mass-orthogonal correction in velocity coordinates [v (W), omega (B)]:
//   position: residual Phi,            dq    = -M^-1 Phi_q^T C^-1 Phi   (one Newton step)
//   velocity: residual Phi_q qdot,     dqdot = -M^-1 Phi_q^T C^-1 Phi_q qdot
// with C = Phi_q M^-1 Phi_q^T + eps I. This is the minimiser of the kinetic metric
// 1/2 dq^T M dq subject to the linearised constraint (Haug, Computer-Aided Kinematics
// and Dynamics of Mechanical Systems, 1989; Hairer & Wanner, Solving Ordinary
// Differential Equations II, section VII.2, projection methods).
#include "simphant/core/hd.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// The two stages of a projection (gamma* and the state entries they correct).
enum ProjectionStage : int { kProjectPosition = 0, kProjectVelocity = 1 };

/// Newton steps of the position stage, a fixed count on every backend so that the CPU
/// reference and the batched kernels take the same steps. After an RK4 step max |Phi| is
/// the step's local error (1e-10 m or less at a practical dt), so one step leaves the
/// square of it; the second removes what the linearisation and the eps-regularised
/// solve leave near a singular configuration (measured in docs/solver.md).
constexpr int kProjectionNewtonIterations = 2;

/// Whether a projection mode (the value of Projection: 0 none, 1 velocity,
/// 2 position_velocity) also projects the velocities of the RK4 stage states 2 to 4
/// before they are evaluated: position_velocity only (docs/solver.md, Projection onto the
/// constraint manifold; with velocity, Baumgarte needs Phi_q qdot).
SP_HD bool projects_stage_states(int projection) { return projection == 2; }

/// Projection::Auto as int (ModelView::projection).
constexpr int kProjectionAuto = 3;

/// Whether an adaptive integrator's accepted step is projected (dopri5: velocity or
/// position_velocity; auto takes no per-step decision there and is none, as
/// set_auto_projection resolves it for a run).
SP_HD bool projects_adaptive_step(int projection) { return projection == 1 || projection == 2; }

/// The projection mode one fixed step of an instance runs (0 none, 1 velocity,
/// 2 position_velocity): projection itself, or for auto position_velocity when step_pivot,
/// the smallest relative pivot of the step's Schur factorisations so far
/// (formulas/pivot_watch.hpp), is below auto_pivot (SolverSettings::auto_projection_pivot),
/// else none (docs/solver.md, "Singular configurations").
template <class T>
SP_HD int step_projection(int projection, T step_pivot, T auto_pivot) {
  if (projection != kProjectionAuto) return projection;
  return step_pivot < auto_pivot ? 2 : 0;
}

/// gamma* of row R of a projection stage from that row's Phi and Phi_q qdot.
template <class T>
SP_HD T projection_gamma_star(int stage, T phi, T phi_dot) {
  return stage == kProjectPosition ? -phi : -phi_dot;
}

/// Applies a position correction dq = (dr (W), dtheta (B)) to one body's r (W) and
/// p (B -> W): r += dr, p <- normalised(p (x) exp(dtheta / 2)) (the body-frame rotation
/// of the velocity coordinates, docs/solver.md, State and coordinates).
template <class T>
SP_HD void apply_position_correction(Vec3<T>& r, Quat<T>& p, const T* dq) {
  r = {r.x + dq[0], r.y + dq[1], r.z + dq[2]};
  p = normalized(qmul(p, quat_from_rotvec(Vec3<T>{dq[3], dq[4], dq[5]})));
}

/// The same correction of body k in a state vector Y (formulas/state.hpp layout).
template <class T>
SP_HD void apply_position_correction(T* Y, int k, const T* dq) {
  Vec3<T> r = state_r(Y, k);
  Quat<T> p = state_p(Y, k);
  apply_position_correction(r, p, dq);
  T* q = Y + 7 * k;
  q[0] = r.x; q[1] = r.y; q[2] = r.z;
  q[3] = p.w; q[4] = p.x; q[5] = p.y; q[6] = p.z;
}

}  // namespace simphant
