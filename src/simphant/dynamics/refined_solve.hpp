#pragma once
// The rules of the refined regularised solve of the Schur system (docs/solver.md, "The
// refined regularised solve"), shared by the CPU path (evaluate.cpp), the `cuda` path
// (kernels/schur.hpp, kernels/refine.hpp) and the `cuda-fused` one (kernels/fused_solve.hpp):
//
//   * Regularisation relative to the diagonal: row R of the factorised matrix C + E gets
//     E_R = eps C_RR (tikhonov_term), so light and heavy bodies see the same relative
//     shift (an absolute eps is below round-off next to a 1e-9 kg m^2 inertia's 1e9 and a
//     visible compliance next to a 1e3 kg body's 1e-3).
//   * Iterative refinement on that factor (proximal point / augmented Lagrangian):
//       lambda_0 = 0,  lambda_{k+1} = lambda_k + (C + E)^-1 (r - C lambda_k),
//     C applied without E. On the directions where C is regular the error falls by
//     E/(sigma + E) per step (sigma: C's eigenvalue in the E metric), so the answer
//     converges to the unregularised one; on C's null space (redundant rows) lambda stays
//     the E-weighted minimum-norm solution, and Phi_q^T lambda (hence qddot) is unique
//     (Parikh & Boyd, "Proximal Algorithms", 2014, section 4.1; Bertsekas, "Constrained
//     Optimization and Lagrange Multiplier Methods", 1982, chapter 2).
//   * Pivot recovery: in exact arithmetic every pivot of C + E is at least E_R (the Schur
//     complement of a principal block of C + E dominates that of E), so a pivot below
//     E_R / 2 (pivot_floor) is round-off, not information. The factorisation is then
//     repeated with the larger relative shift recovery_epsilon(eps, t), t = 1 ..
//     kRecoveryAttempts, and counted; when every attempt fails, the solve fails as an
//     unfactorisable C did before (evaluate() false, info 1).
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// Refinement steps (solves after the first) when the scene does not set
/// solver.refinement_steps. Measured in docs/solver.md, "The refined regularised solve".
constexpr int kDefaultRefinementSteps = 2;

/// Largest accepted solver.refinement_steps.
constexpr int kMaxRefinementSteps = 20;

/// Factorisations retried with a larger shift before the solve fails.
constexpr int kRecoveryAttempts = 3;

/// Regularisation E_R of a row whose unregularised diagonal entry is d >= 0: eps d, or
/// eps when d = 0 (a row with an all-zero Jacobian, whose pivot would otherwise be 0).
template <class T>
SP_HD T tikhonov_term(T eps, T d) {
  return eps * lane_select(d > T(0), d, T(1));
}

/// Smallest pivot of row R accepted from the factorisation of C + E: E_R / 2, or, when
/// E_R = 0 (eps = 0), a few hundred units in the last place of d = C_RR: below it the
/// pivot is round-off.
template <class T>
SP_HD T pivot_floor(T reg, T d) {
  const T ulp = sizeof(lane_scalar_t<T>) == 8 ? T(2.220446049250313e-16) : T(1.1920929e-7);
  return lane_select(reg > T(0), T(0.5) * reg, T(256) * ulp * d);
}

/// Whether pivot p (the squared diagonal entry of L) is accepted with floor f.
template <class T>
SP_HD bool pivot_ok(T p, T f) {
  return p > f && p > T(0) && std::isfinite(p);
}

/// pivot_ok per lane for any T (math/lane_ops.hpp): a bool for a scalar, a mask for Lanes.
template <class T>
SP_HD auto pivot_accepted(T p, T f) {
  return (p > f) && (p > T(0)) && lane_isfinite(p);
}

/// The relative shift of recovery attempt t (1 .. kRecoveryAttempts) for the scene's
/// relative eps: max(eps, base) 100^t, base 1e-12 in fp64 and 1e-6 in fp32 (a few ulp of
/// C's diagonal). fp64 with the default eps = 1e-10: 1e-8, 1e-6, 1e-4.
template <class T>
SP_HD T recovery_epsilon(T eps, int t) {
  const T base = sizeof(lane_scalar_t<T>) == 8 ? T(1e-12) : T(1e-6);
  T e = lane_max(eps, base);
  for (int s = 0; s < t; ++s) e *= T(100);
  return e;
}

/// In place: the lower Cholesky factor of the m x m matrix A (column-major, leading
/// dimension m; the lower triangle is read and written), with every pivot checked
/// against floor[R * floor_stride] (pivot_ok). Returns false on the first rejected pivot.
/// The per-thread factorisation of the `cuda` path's recovery (kernels/refine.hpp).
template <class T>
SP_HD bool dense_cholesky_lower(int m, T* A, const T* floor, int floor_stride) {
  for (int c = 0; c < m; ++c) {
    T d = A[c * m + c];
    for (int t = 0; t < c; ++t) d -= A[t * m + c] * A[t * m + c];
    if (!pivot_ok(d, floor[c * floor_stride])) return false;
    const T dc = std::sqrt(d);
    A[c * m + c] = dc;
    for (int r = c + 1; r < m; ++r) {
      T v = A[c * m + r];
      for (int t = 0; t < c; ++t) v -= A[t * m + r] * A[t * m + c];
      A[c * m + r] = v / dc;
    }
  }
  return true;
}

}  // namespace simphant
