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
//       lambda_0 = (C + E)^-1 r,  lambda_{k+1} = lambda_k + delta_k,
//       delta_k = (C + E)^-1 (r - C lambda_k),
//     C applied without E. On the directions where C is regular the error falls by
//     q = E/(sigma + E) per step (sigma: C's eigenvalue in the E metric), so the answer
//     converges to the unregularised one; on C's null space (redundant rows) lambda stays
//     the E-weighted minimum-norm solution, and Phi_q^T lambda (hence qddot) is unique
//     (Parikh & Boyd, "Proximal Algorithms", 2014, section 4.1; Bertsekas, "Constrained
//     Optimization and Lagrange Multiplier Methods", 1982, chapter 2).
//   * Residual control: the iteration stops when the error left in lambda, estimated in
//     the norm of C (||x||_C^2 = x^T C x = |Phi_q^T x|^2 in the M^-1 metric, so a
//     redundant row's null-space share, which moves no body, does not count), is below
//     refinement_tolerance() times ||lambda_0||_C; solver.refinement_steps is the largest
//     number of corrections, and at least two are made; a solve that cannot reach the
//     tolerance within that many at its present ratio stops early. The estimate after a correction
//     of size e_k that followed one of size e_{k-1} is that of a linear iteration with
//     ratio q = e_k / e_{k-1}: e_k q / (1 - q) (refinement_error_estimate;
//     refine_corrections runs the loop for every path). A solve that ends above the tolerance
//     is counted per instance (the run summary warns, docs/solver.md).
//   * Pivot recovery: in exact arithmetic every pivot of C + E is at least E_R (the Schur
//     complement of a principal block of C + E dominates that of E), so a pivot below
//     E_R / 2 (pivot_floor) is round-off, not information. The factorisation is then
//     repeated with the larger relative shift recovery_epsilon(eps, t), t = 1 ..
//     kRecoveryAttempts, and counted; when every attempt fails, the solve fails as an
//     unfactorisable C did before (evaluate() false, info 1).
#include <cmath>
#include <cstddef>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// The largest number of refinement corrections (solves after the first) when the scene
/// does not set solver.refinement_steps; a solve stops earlier once its error estimate is
/// below refinement_tolerance(). Ten corrections reach the fp64 tolerance at a
/// convergence ratio q of 0.09, that of a 1 m pendulum whose bob has an inertia of 1e-9
/// kg m^2 (measured in docs/solver.md, "The refined regularised solve").
constexpr int kDefaultRefinementSteps = 10;

/// Largest accepted solver.refinement_steps.
constexpr int kMaxRefinementSteps = 20;

/// Factorisations retried with a larger shift before the solve fails.
constexpr int kRecoveryAttempts = 3;

/// Regularisation E_R of a row whose unregularised diagonal entry is d >= 0: eps d, or 1
/// when d = 0 (a row with an all-zero Jacobian, a removed redundant row among them: its
/// right-hand side is 0 and so is its multiplier, whatever eps, 0 included).
template <class T>
SP_HD T tikhonov_term(T eps, T d) {
  return lane_select(d > T(0), eps * d, T(1));
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
  using std::isfinite;  // unqualified: a number type's own (math/dual.hpp: value and tangents finite)
  return p > f && p > T(0) && isfinite(p);
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

/// The relative tolerance of the refinement: the error estimate of lambda in the C norm
/// over ||lambda_0||_C, eps_mach^(2/3) of the scalar type (fp64 3.7e-11, fp32 2.4e-5):
/// well above the round-off floor of the product C lambda, well below any error a
/// simulation result shows.
template <class T>
SP_HD T refinement_tolerance() {
  return sizeof(lane_scalar_t<T>) == 8 ? T(3.7e-11) : T(2.4e-5);
}

/// The error left in lambda after a correction of C-norm e that followed one of e_prev:
/// e q / (1 - q) with q = e / e_prev (the tail of a linear iteration), or e itself when
/// the corrections do not shrink (q >= 1: round-off, or a share that does not converge).
template <class T>
SP_HD T refinement_error_estimate(T e, T e_prev) {
  const auto shrinks = e < e_prev;
  const T gap = lane_select(shrinks, e_prev - e, T(1));
  return lane_select(shrinks, e * e / gap, e);
}

/// The corrections of one refined solve, any T (a scalar, or the SIMD lanes of simd/, each
/// lane iterating as long as it needs): the CPU reference (evaluate.cpp) and the batched
/// paths (kernels/refine.hpp, kernels/fused_solve.hpp, simd/simd_group.hpp) all run this
/// loop. On entry w holds rhs and delta the first solve (C + E)^-1 rhs = lambda_0; on
/// return lambda holds the refined multipliers, w and delta are workspace. Row R of each
/// at R * stride. solve(x) solves (C + E) x = x in place; subtract(x, w, e2) does w <- w -
/// C x and e2 += x^T C x (C without E). K: the largest number of corrections
/// (solver.refinement_steps). At least two corrections are made (when K allows): the
/// first one's size e_1 is the error of lambda_0, and only the second gives the ratio q =
/// e_2 / e_1 of the error estimate (refinement_error_estimate); after one correction the
/// estimate is e_1 itself. The loop stops once the estimate is below
/// refinement_tolerance<T>() ||lambda_0||_C, or as soon as the estimate times q^(K - k)
/// (what the remaining corrections would reach at the present ratio) is still above it:
/// such a solve is reported unconverged after the corrections made so far. Returns the relative estimate (over
/// ||lambda_0||_C; above the tolerance when K corrections did not reach it, NaN when a
/// value is not finite), or -1 when K = 0 (nothing checked). ratio, when given, receives
/// the ratio q of the last two corrections (0 when fewer than two were made): the
/// contraction of the slowest mode the right-hand side excites, which the shift's choice
/// at load reads (dynamics/shift_choice.hpp).
template <class T, class Solve, class Subtract>
SP_HD T refine_corrections(int m, int K, std::size_t stride, T* w, T* delta, T* lambda, Solve solve, Subtract subtract,
                           T* ratio = nullptr) {
  if (ratio != nullptr) *ratio = T(0);
  for (int R = 0; R < m; ++R) lambda[R * stride] = delta[R * stride];
  if (K == 0) return T(-1);
  T e2 = T(0);
  subtract(static_cast<const T*>(delta), w, e2);  // w = rhs - C lambda_0
  const T scale = lane_sqrt(lane_max(e2, T(0)));  // ||lambda_0||_C
  const T tol = refinement_tolerance<T>() * scale;
  auto active = scale > tol;  // a scale of 0 (lambda = 0 exactly) needs no correction
  // One correction on the active lanes; returns its C norm.
  const auto correct = [&](const decltype(active)& on) {
    for (int R = 0; R < m; ++R) delta[R * stride] = w[R * stride];
    solve(delta);
    for (int R = 0; R < m; ++R)
      lambda[R * stride] = lane_select(on, lambda[R * stride] + delta[R * stride], lambda[R * stride]);
    T ek2 = T(0);
    subtract(static_cast<const T*>(delta), w, ek2);
    return lane_sqrt(lane_max(ek2, T(0)));
  };
  T est = scale;
  if (lane_any(active)) {
    T e_prev = correct(active);  // e_1: the error of lambda_0, no ratio yet
    est = lane_select(active, e_prev, est);
    for (int k = 2; k <= K && lane_any(active); ++k) {
      const T e = correct(active);
      const T q = lane_select(e < e_prev, e / lane_select(e < e_prev, e_prev, T(1)), T(1));
      if (ratio != nullptr) *ratio = lane_select(active, q, *ratio);
      est = lane_select(active, refinement_error_estimate(e, e_prev), est);
      e_prev = lane_select(active, e, e_prev);
      // What the corrections left would reach at this ratio: a solve that cannot get
      // below the tolerance within K stops here (more corrections along a direction far
      // below the shift only move lambda along it).
      T reach = est;
      for (int r = k; r < K; ++r) reach *= q;
      active = active && (est > tol) && (reach <= tol);
    }
  }
  const auto positive = scale > T(0);
  return lane_select(positive, est / lane_select(positive, scale, T(1)), est);
}

/// Keeps the larger of an instance's worst relative error estimate and rel (with the time t
/// [s] of rel): a NaN, once there, stays; a NaN rel replaces a number. Scalar T.
template <class T>
SP_HD void keep_worst_estimate(T rel, T t, T& worst, T& worst_time) {
  if (worst == worst && !(rel <= worst)) {
    worst = rel;
    worst_time = t;
  }
}

/// One refined solve at instance time t [s] with relative error estimate rel
/// (refine_corrections; < 0: not checked) into an instance's record: unconverged counts
/// the solves above refinement_tolerance<T>() (a NaN included), worst and worst_time as
/// keep_worst_estimate. The record of the CPU reference (RefinementRecord) and of the
/// batched paths (kernels/refine.hpp, refine_record). Scalar T.
template <class T, class Count>
SP_HD void record_refined_solve(T rel, T t, Count& unconverged, T& worst, T& worst_time) {
  if (rel < T(0)) return;
  if (!(rel <= refinement_tolerance<T>())) ++unconverged;
  keep_worst_estimate(rel, t, worst, worst_time);
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
    using std::sqrt;  // unqualified: a number type's own sqrt by argument-dependent lookup (math/dual.hpp)
    const T dc = sqrt(d);
    A[c * m + c] = dc;
    for (int r = c + 1; r < m; ++r) {
      T v = A[c * m + r];
      for (int t = 0; t < c; ++t) v -= A[t * m + r] * A[t * m + c];
      A[c * m + r] = v / dc;
    }
  }
  return true;
}

/// In place: x <- (L L^T)^-1 x for the lower factor L of dense_cholesky_lower (column-major,
/// leading dimension m), x's row R at x[R * x_stride]. The per-thread solve of the `cuda`
/// path's refinement (kernels/refine.hpp).
template <class T>
SP_HD void dense_cholesky_solve(int m, const T* L, T* x, std::size_t x_stride) {
  for (int c = 0; c < m; ++c) {
    T v = x[c * x_stride];
    for (int t = 0; t < c; ++t) v -= L[static_cast<std::size_t>(t) * m + c] * x[t * x_stride];
    x[c * x_stride] = v / L[static_cast<std::size_t>(c) * m + c];
  }
  for (int c = m - 1; c >= 0; --c) {
    T v = x[c * x_stride];
    for (int t = c + 1; t < m; ++t) v -= L[static_cast<std::size_t>(c) * m + t] * x[t * x_stride];
    x[c * x_stride] = v / L[static_cast<std::size_t>(c) * m + c];
  }
}

}  // namespace simphant
