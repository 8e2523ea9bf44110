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
#include <cmath>
#include <cstddef>

#include "simphant/dynamics/refined_solve.hpp"
#include "simphant/dynamics/schur_pattern.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

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

/// In place: on entry the values hold the blocks of C (the diagonal blocks in full, the
/// fill blocks zero), on exit those of L (the diagonal blocks in their lower triangle).
/// L: the instance's first value; value e at L[e * stride]. floor: null, or the smallest
/// accepted pivot of each row in the original row order, row R at floor[R * floor_stride]
/// (pivot_floor in refined_solve.hpp). Returns false when a pivot is not positive, not
/// finite or not above its floor (C not positive definite at this precision; with T =
/// Lanes, in any lane: pivot_accepted); L is then partly factorised.
template <class T>
SP_HD bool sparse_cholesky(const SchurPatternView& P, T* L, std::size_t stride, const T* floor = nullptr,
                           std::size_t floor_stride = 1) {
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
        for (int r = 0; r < rq; ++r)
          for (int s = 0; s < (diagonal ? r + 1 : rp); ++s) {
            T acc = X[static_cast<std::size_t>(r * rc) * stride] * Y[static_cast<std::size_t>(s * rc) * stride];
            for (int t = 1; t < rc; ++t)
              acc += X[static_cast<std::size_t>(r * rc + t) * stride] * Y[static_cast<std::size_t>(s * rc + t) * stride];
            A[static_cast<std::size_t>(r * rp + s) * stride] -= acc;
          }
      }
      if (diagonal) {  // dense Cholesky of the rp x rp block, lower triangle
        for (int c = 0; c < rp; ++c) {
          T d = A[static_cast<std::size_t>(c * rp + c) * stride];
          for (int t = 0; t < c; ++t) {
            const T l = A[static_cast<std::size_t>(c * rp + t) * stride];
            d -= l * l;
          }
          const T f = floor ? floor[static_cast<std::size_t>(P.pos_row0[p] + c) * floor_stride] : T(0);
          if (!lane_all(pivot_accepted(d, f))) return false;
          const T dc = lane_sqrt(d);
          A[static_cast<std::size_t>(c * rp + c) * stride] = dc;
          for (int r = c + 1; r < rp; ++r) {
            T v = A[static_cast<std::size_t>(r * rp + c) * stride];
            for (int t = 0; t < c; ++t)
              v -= A[static_cast<std::size_t>(r * rp + t) * stride] * A[static_cast<std::size_t>(c * rp + t) * stride];
            A[static_cast<std::size_t>(r * rp + c) * stride] = v / dc;
          }
        }
      } else {  // A <- A L(p, p)^-T, row by row
        for (int r = 0; r < rq; ++r)
          for (int s = 0; s < rp; ++s) {
            T v = A[static_cast<std::size_t>(r * rp + s) * stride];
            for (int t = 0; t < s; ++t)
              v -= A[static_cast<std::size_t>(r * rp + t) * stride] * D[static_cast<std::size_t>(s * rp + t) * stride];
            A[static_cast<std::size_t>(r * rp + s) * stride] = v / D[static_cast<std::size_t>(s * rp + s) * stride];
          }
      }
    }
  }
  return true;
}

/// x <- C^-1 x with the factor from sparse_cholesky (forward then backward substitution
/// by block columns). x: the instance's first row, in the original row order; row R at
/// x[R * x_stride].
template <class T>
SP_HD void sparse_solve(const SchurPatternView& P, const T* L, std::size_t stride, T* x, std::size_t x_stride) {
  auto X = [&](int R) -> T& { return x[static_cast<std::size_t>(R) * x_stride]; };
  auto V = [&](int b, int e) { return L[static_cast<std::size_t>(P.block_value[b] + e) * stride]; };
  for (int p = 0; p < P.n_joints; ++p) {  // L y = x
    const int rp = P.pos_rows[p], r0 = P.pos_row0[p], bd = P.col_start[p];
    for (int r = 0; r < rp; ++r) {
      T v = X(r0 + r);
      for (int t = 0; t < r; ++t) v -= V(bd, r * rp + t) * X(r0 + t);
      X(r0 + r) = v / V(bd, r * rp + r);
    }
    for (int b = bd + 1; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b], rq = P.pos_rows[q], q0 = P.pos_row0[q];
      for (int r = 0; r < rq; ++r) {
        T acc = V(b, r * rp) * X(r0);
        for (int s = 1; s < rp; ++s) acc += V(b, r * rp + s) * X(r0 + s);
        X(q0 + r) -= acc;
      }
    }
  }
  for (int p = P.n_joints - 1; p >= 0; --p) {  // L^T x = y
    const int rp = P.pos_rows[p], r0 = P.pos_row0[p], bd = P.col_start[p];
    for (int b = bd + 1; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b], rq = P.pos_rows[q], q0 = P.pos_row0[q];
      for (int s = 0; s < rp; ++s) {
        T acc = V(b, s) * X(q0);
        for (int r = 1; r < rq; ++r) acc += V(b, r * rp + s) * X(q0 + r);
        X(r0 + s) -= acc;
      }
    }
    for (int r = rp - 1; r >= 0; --r) {
      T v = X(r0 + r);
      for (int t = r + 1; t < rp; ++t) v -= V(bd, t * rp + r) * X(r0 + t);
      X(r0 + r) = v / V(bd, r * rp + r);
    }
  }
}

}  // namespace simphant
