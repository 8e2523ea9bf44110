#pragma once
// The rank watch of the Schur solve (docs/solver.md, "Rank watch"): every factorisation of
// C + E = Phi_q M^-1 Phi_q^T + E reports its smallest relative pivot
//   rho = min over rows R with C_RR > 0 of L_RR^2 / C_RR,
// the squared sine of the angle (in the metric of M^-1) between row R of Phi_q and the
// span of the rows factorised before it. It is dimensionless, at most 1 + eps, and falls
// to eps where Phi_q loses rank: as theta^2 for a parallelogram chain theta away from its
// flat configuration (measured 0.9 theta^2 for 1 to 40 cells). Removed redundant rows
// (C_RR = 0) are left out. An instance keeps the smallest rho of its run and the instance
// time of that solve; the CPU reference (RefinementRecord, dynamics/evaluate.cpp) and the
// batched paths (kernels/pivot_watch.hpp) use these functions, the factors' too.
#include <cstddef>
#include <limits>

#include "simphant/core/hd.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// An instance's smallest relative pivot before its first Schur factorisation (and of a
/// model without constraint rows): +infinity. Any T (math/lane_ops.hpp) here and below.
template <class T>
SP_HD T no_schur_pivot() {
  return T(std::numeric_limits<lane_scalar_t<T>>::infinity());
}

/// Below this smallest relative pivot an instance has passed within about 1e-3 rad of a
/// configuration where Phi_q loses rank (a singular configuration): the run names the
/// instance and the time (job/refinement_report.hpp). The shipped examples stay at 2e-3
/// or above (docs/solver.md, "Rank watch").
constexpr double kSingularRelativePivot = 1e-6;

/// L_RR^2 / C_RR for the squared pivot l_sq of a row whose unregularised diagonal entry
/// is c_rr > 0; +infinity for c_rr <= 0 (a removed row: not watched).
template <class T>
SP_HD T relative_pivot(T l_sq, T c_rr) {
  return lane_select(c_rr > T(0), l_sq / c_rr, no_schur_pivot<T>());
}

/// The smaller of two relative pivots, NaN kept: the running minimum over a factor's rows.
template <class T>
SP_HD T smaller_pivot(T a, T b) {
  return lane_select((a == a) && !(b >= a), b, a);
}

/// The smallest relative pivot of a dense lower Cholesky factor L (m x m, column-major,
/// leading dimension m), C_RR of row R at diag[R * diag_stride].
template <class T>
SP_HD T dense_smallest_pivot(int m, const T* L, const T* diag, std::size_t diag_stride) {
  T rho = no_schur_pivot<T>();
  for (int R = 0; R < m; ++R) {
    const T l = L[static_cast<std::size_t>(R) * m + R];
    rho = smaller_pivot(rho, relative_pivot(l * l, diag[R * diag_stride]));
  }
  return rho;
}

/// The smallest relative pivot of a factor in the topology-ordered blocks L (P's values,
/// value e at L[e * stride]; each diagonal entry holds 1 / L_RR, sparse_cholesky), C_RR of
/// row R at diag[R * diag_stride]. Any T (with Lanes: a group of instances at once).
template <class T>
SP_HD T sparse_smallest_pivot(const SchurPatternView& P, const T* L, std::size_t stride, const T* diag,
                              std::size_t diag_stride) {
  T rho = no_schur_pivot<T>();
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p], base = P.block_value[P.col_start[p]];
    for (int r = 0; r < rp; ++r) {
      const T inv = L[static_cast<std::size_t>(base + r * rp + r) * stride];
      rho = smaller_pivot(rho, relative_pivot(T(1) / (inv * inv), diag[(P.pos_row0[p] + r) * diag_stride]));
    }
  }
  return rho;
}

/// One factorisation's smallest relative pivot rho at instance time t [s] into an
/// instance's record (scalar T): (smallest, its time) keeps the smallest; a NaN rho is kept (and
/// stays), as keep_worst_estimate keeps a NaN estimate.
template <class T>
SP_HD void keep_smallest_pivot(T rho, T t, T& smallest, T& smallest_time) {
  if (smallest == smallest && !(rho >= smallest)) {  // smaller_pivot, with the time
    smallest = rho;
    smallest_time = t;
  }
}

}  // namespace simphant
