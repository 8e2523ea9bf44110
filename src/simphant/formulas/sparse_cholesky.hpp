#pragma once
// Numeric block-sparse Cholesky factorisation and solve of the Schur matrix C in the
// topology order of a SchurPattern (schur_pattern.hpp): C = L L^T with L stored block by
// block, each block dense. Left-looking by block column: for each column p, every block
// L(q, p) (diagonal first) takes its updates -L(q, c) L(p, c)^T from earlier columns;
// the diagonal block is then factorised densely and the blocks below it solved against
// it (Golub & Van Loan, "Matrix Computations", 4th ed., §4.2.7 and §4.2.9 for the block
// and sparse forms). __host__ __device__, no allocation: used per instance by the CPU
// path (stride 1) and per thread by the cuda-fused kernel, whose values are structure of
// arrays (value e of the instance at L[e * stride]).
//
// The factor keeps the reciprocals of its diagonal: the diagonal entry (c, c) of each
// diagonal block holds 1 / L(c, c), so the block solves and the triangular solves
// multiply instead of divide (one division per row of C in the factorisation, none in
// a solve). On the host every block operation runs as a fixed-size kernel for the
// joints' row counts (1 .. kMaxSchurBlockRows, dispatched once per block), so its loops
// unroll and the offsets fold into multiples of the stride. In device code the same
// kernels run with the row counts known at run time (kFixedBlockRows): the fixed-size
// form inlines 2 x 36 unrolled update kernels at every call site of the fused stage
// kernels, which multiplies nvcc's compile time of host/cuda_backend_*.cu (and the
// device code size) for a gain measured only on the CPU (docs/cuda-backend.md).
#include <cmath>
#include <cstddef>

#include "simphant/formulas/refined_solve.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// The largest number of rows of one joint in a SchurPattern (build_schur_pattern
/// accepts 1..6).
inline constexpr int kMaxSchurBlockRows = 6;

/// Whether sparse_cholesky and sparse_solve dispatch each block to a kernel of
/// compile-time size (true: the host) or run one kernel with run-time row counts (false:
/// device code, see above). Both forms perform the same operations in the same order.
#ifdef __CUDA_ARCH__
inline constexpr bool kFixedBlockRows = false;
#else
inline constexpr bool kFixedBlockRows = true;
#endif

/// Where C(row r of the joint at position pa, row s of the joint at position pb) lives
/// in the values: base + r * stride_r + s * stride_s. Lower blocks only: for pa < pb it
/// is the transposed entry of block (pb, pa). Precondition: the two joints share a body
/// or pa == pb (the block exists).
struct SchurBlockSlot {
  int base, stride_r, stride_s;
};

SP_HD SchurBlockSlot schur_block_slot(const SchurPatternView& P, int pa, int pb) {
  if (pa >= pb) return {P.block_value[P.find_block(pa, pb)], P.pos_rows[pb], 1};
  return {P.block_value[P.find_block(pb, pa)], 1, P.pos_rows[pa]};
}

namespace sparse_cholesky_detail {

/// A block's row count known at compile time (the fixed-size kernels): loops unroll.
template <int N>
struct Rows {
  static constexpr int bound = N;
  SP_HD constexpr int n() const { return N; }
};

/// A block's row count known at run time, at most kMaxSchurBlockRows (device code).
struct RuntimeRows {
  static constexpr int bound = kMaxSchurBlockRows;
  int count;
  SP_HD int n() const { return count; }
};

/// Fixed: f(Rows<r>{}) for r in 1 .. kMaxSchurBlockRows, other r do nothing
/// (build_schur_pattern rejects them). Not Fixed: f(RuntimeRows{r}).
template <bool Fixed, class F>
SP_HD void with_rows(int r, F&& f) {
  if constexpr (Fixed) {
    switch (r) {
      case 1: f(Rows<1>{}); break;
      case 2: f(Rows<2>{}); break;
      case 3: f(Rows<3>{}); break;
      case 4: f(Rows<4>{}); break;
      case 5: f(Rows<5>{}); break;
      case 6: f(Rows<6>{}); break;
      default: break;
    }
  } else {
    f(RuntimeRows{r});
  }
}

/// Value e of a block at B (stride st).
template <class T>
SP_HD T& at(T* B, int e, std::size_t st) {
  return B[static_cast<std::size_t>(e) * st];
}
template <class T>
SP_HD const T& at(const T* B, int e, std::size_t st) {
  return B[static_cast<std::size_t>(e) * st];
}

/// A (rq x RP) -= X (rq x RC) Y^T (Y: RP x RC); with diagonal (then X == Y's rows are
/// the same joint's, rq == RP) only the lower triangle s <= r. RP, RC: Rows<N> or
/// RuntimeRows (here and below: the row counts of the blocks' joints).
template <bool Diagonal, class RP, class RC, class T>
SP_HD void block_update(T* A, const T* X, const T* Y, RP rp_, RC rc_, int rq, std::size_t st) {
  const int rp = rp_.n(), rc = rc_.n();
  for (int r = 0; r < (Diagonal ? rp : rq); ++r) {
    T x[RC::bound];
    for (int t = 0; t < rc; ++t) x[t] = at(X, r * rc + t, st);
    for (int s = 0; s < (Diagonal ? r + 1 : rp); ++s) {
      T acc = x[0] * at(Y, s * rc, st);
      for (int t = 1; t < rc; ++t) acc += x[t] * at(Y, s * rc + t, st);
      at(A, r * rp + s, st) -= acc;
    }
  }
}

/// Dense Cholesky of the RP x RP block A in place (lower triangle; the diagonal left as
/// reciprocals). floor: null or row c's pivot floor at floor[c * floor_stride].
template <class RP, class T>
SP_HD bool block_factor(T* A, RP rp_, std::size_t st, const T* floor, std::size_t floor_stride) {
  const int rp = rp_.n();
  for (int c = 0; c < rp; ++c) {
    T d = at(A, c * rp + c, st);
    for (int t = 0; t < c; ++t) {
      const T l = at(A, c * rp + t, st);
      d -= l * l;
    }
    const T f = floor ? floor[static_cast<std::size_t>(c) * floor_stride] : T(0);
    if (!lane_all(pivot_accepted(d, f))) return false;
    const T inv = T(1) / lane_sqrt(d);
    at(A, c * rp + c, st) = inv;
    for (int r = c + 1; r < rp; ++r) {
      T v = at(A, r * rp + c, st);
      for (int t = 0; t < c; ++t) v -= at(A, r * rp + t, st) * at(A, c * rp + t, st);
      at(A, r * rp + c, st) = v * inv;
    }
  }
  return true;
}

/// A (rq x RP) <- A L(p, p)^-T with the factorised diagonal block D (reciprocal
/// diagonal), row by row.
template <class RP, class T>
SP_HD void block_solve_below(T* A, const T* D, RP rp_, int rq, std::size_t st) {
  const int rp = rp_.n();
  T inv[RP::bound];
  for (int s = 0; s < rp; ++s) inv[s] = at(D, s * rp + s, st);
  for (int r = 0; r < rq; ++r) {
    T a[RP::bound];
    for (int s = 0; s < rp; ++s) {
      T v = at(A, r * rp + s, st);
      for (int t = 0; t < s; ++t) v -= a[t] * at(D, s * rp + t, st);
      a[s] = v * inv[s];
      at(A, r * rp + s, st) = a[s];
    }
  }
}

/// Forward substitution with the diagonal block D: x (RP rows, x[r * xs]) <- D^-1 x.
/// Here and below X, the type of x, is T or one that multiplies T (several right-hand
/// sides in lanes, sparse_solve).
template <class RP, class T, class X>
SP_HD void diag_forward(const T* D, RP rp_, std::size_t st, X* x, std::size_t xs) {
  const int rp = rp_.n();
  X v[RP::bound];
  for (int r = 0; r < rp; ++r) {
    X w = x[static_cast<std::size_t>(r) * xs];
    for (int t = 0; t < r; ++t) w -= at(D, r * rp + t, st) * v[t];
    v[r] = w * at(D, r * rp + r, st);
    x[static_cast<std::size_t>(r) * xs] = v[r];
  }
}

/// Backward substitution with the diagonal block D: x <- D^-T x.
template <class RP, class T, class X>
SP_HD void diag_backward(const T* D, RP rp_, std::size_t st, X* x, std::size_t xs) {
  const int rp = rp_.n();
  X v[RP::bound];
  for (int r = rp - 1; r >= 0; --r) {
    X w = x[static_cast<std::size_t>(r) * xs];
    for (int t = r + 1; t < rp; ++t) w -= at(D, t * rp + r, st) * v[t];
    v[r] = w * at(D, r * rp + r, st);
    x[static_cast<std::size_t>(r) * xs] = v[r];
  }
}

/// xq (rq rows) -= B (rq x RP) xp (RP rows).
template <class RP, class T, class X>
SP_HD void below_forward(const T* B, RP rp_, int rq, std::size_t st, const X* xp, X* xq, std::size_t xs) {
  const int rp = rp_.n();
  X v[RP::bound];
  for (int s = 0; s < rp; ++s) v[s] = xp[static_cast<std::size_t>(s) * xs];
  for (int r = 0; r < rq; ++r) {
    X acc = at(B, r * rp, st) * v[0];
    for (int s = 1; s < rp; ++s) acc += at(B, r * rp + s, st) * v[s];
    xq[static_cast<std::size_t>(r) * xs] -= acc;
  }
}

/// xp (RP rows) -= B^T (RP x rq) xq (rq rows).
template <class RP, class T, class X>
SP_HD void below_backward(const T* B, RP rp_, int rq, std::size_t st, const X* xq, X* xp, std::size_t xs) {
  const int rp = rp_.n();
  X acc[RP::bound];
  const X x0 = xq[0];
  for (int s = 0; s < rp; ++s) acc[s] = at(B, s, st) * x0;
  for (int r = 1; r < rq; ++r) {
    const X xr = xq[static_cast<std::size_t>(r) * xs];
    for (int s = 0; s < rp; ++s) acc[s] += at(B, r * rp + s, st) * xr;
  }
  for (int s = 0; s < rp; ++s) xp[static_cast<std::size_t>(s) * xs] -= acc[s];
}

}  // namespace sparse_cholesky_detail

/// In place: on entry the values hold the blocks of C (the diagonal blocks' lower
/// triangles and the blocks below them; the diagonal blocks' upper triangles are neither
/// read nor written; the fill blocks zero), on exit those of L, except that the diagonal
/// entry (c, c) of each diagonal block holds 1 / L(c, c) (what sparse_solve reads).
/// L: the instance's first value; value e at L[e * stride]. floor: null, or the smallest
/// accepted pivot of each row in the original row order, row R at floor[R * floor_stride]
/// (pivot_floor in refined_solve.hpp). Returns false when a pivot is not positive, not
/// finite or not above its floor (C not positive definite at this precision; with T =
/// Lanes, in any lane: pivot_accepted); L is then partly factorised. Fixed: the block
/// kernels' form (kFixedBlockRows); both give the same result.
template <class T, bool Fixed = kFixedBlockRows>
SP_HD bool sparse_cholesky(const SchurPatternView& P, T* L, std::size_t stride, const T* floor = nullptr,
                           std::size_t floor_stride = 1) {
  namespace d = sparse_cholesky_detail;
  for (int p = 0; p < P.n_joints; ++p) {
    const int rp = P.pos_rows[p];
    const int bd = P.col_start[p];
    const T* D = L + static_cast<std::size_t>(P.block_value[bd]) * stride;
    for (int b = bd; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b], rq = P.pos_rows[q];
      T* A = L + static_cast<std::size_t>(P.block_value[b]) * stride;
      const bool diagonal = q == p;
      for (int u = P.update_start[b]; u < P.update_start[b + 1]; ++u) {
        const int bqc = P.update[2 * u], bpc = P.update[2 * u + 1];
        const int rc = P.pos_rows[P.block_col[bqc]];
        const T* X = L + static_cast<std::size_t>(P.block_value[bqc]) * stride;  // rq x rc
        const T* Y = L + static_cast<std::size_t>(P.block_value[bpc]) * stride;  // rp x rc
        d::with_rows<Fixed>(rp, [&](auto RP) {
          d::with_rows<Fixed>(rc, [&](auto RC) {
            if (diagonal)
              d::block_update<true>(A, X, Y, RP, RC, rq, stride);
            else
              d::block_update<false>(A, X, Y, RP, RC, rq, stride);
          });
        });
      }
      bool ok = true;
      d::with_rows<Fixed>(rp, [&](auto RP) {
        if (diagonal)
          ok = d::block_factor(
              A, RP, stride, floor ? floor + static_cast<std::size_t>(P.pos_row0[p]) * floor_stride : floor, floor_stride);
        else
          d::block_solve_below(A, D, RP, rq, stride);
      });
      if (!ok) return false;
    }
  }
  return true;
}

/// x <- C^-1 x with the factor from sparse_cholesky (forward then backward substitution
/// by block columns). x: the instance's first row, in the original row order; row R at
/// x[R * x_stride]. Fixed: as in sparse_cholesky. X: T, or a type that multiplies T (a
/// lane vector of several right-hand sides with a factor of plain numbers: each lane
/// solved as T alone would solve it).
template <class T, bool Fixed = kFixedBlockRows, class X = T>
SP_HD void sparse_solve(const SchurPatternView& P, const T* L, std::size_t stride, X* x, std::size_t x_stride) {
  namespace d = sparse_cholesky_detail;
  auto block = [&](int b) { return L + static_cast<std::size_t>(P.block_value[b]) * stride; };
  auto rows = [&](int p) { return x + static_cast<std::size_t>(P.pos_row0[p]) * x_stride; };
  for (int p = 0; p < P.n_joints; ++p) {  // L y = x
    const int bd = P.col_start[p], be = P.col_start[p + 1];
    d::with_rows<Fixed>(P.pos_rows[p], [&](auto RP) {
      d::diag_forward(block(bd), RP, stride, rows(p), x_stride);
      for (int b = bd + 1; b < be; ++b) {
        const int q = P.block_row[b];
        d::below_forward(block(b), RP, P.pos_rows[q], stride, static_cast<const X*>(rows(p)), rows(q), x_stride);
      }
    });
  }
  for (int p = P.n_joints - 1; p >= 0; --p) {  // L^T x = y
    const int bd = P.col_start[p], be = P.col_start[p + 1];
    d::with_rows<Fixed>(P.pos_rows[p], [&](auto RP) {
      for (int b = bd + 1; b < be; ++b) {
        const int q = P.block_row[b];
        d::below_backward(block(b), RP, P.pos_rows[q], stride, static_cast<const X*>(rows(q)), rows(p), x_stride);
      }
      d::diag_backward(block(bd), RP, stride, rows(p), x_stride);
    });
  }
}

}  // namespace simphant
