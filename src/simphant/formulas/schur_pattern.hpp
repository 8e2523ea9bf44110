#pragma once
// The block-sparse structure of the Schur matrix C = Phi_q M^-1 Phi_q^T + eps I and of
// its Cholesky factor L, ordered by the topology (the cuda-fused path). M is block diagonal
// per body, so the rows of joints a and b couple only where the two joints share a body:
// C is a joint-by-joint block matrix whose non-zero blocks are the edges of the joint
// graph. Eliminating the joints in a perfect elimination order of that graph factorises
// C without fill-in; chains and trees have one (their joint graph is a block graph: the
// joints at one body form a clique), closed loops get the fill that the greedy order
// below leaves. The cost is then O(sum of the blocks' products) instead of the dense
// O(m^3): linear in the number of joints for a chain.
//
// This file is the host-side symbolic analysis, done once per topology; the numeric
// factorisation and solve are __host__ __device__ (sparse_cholesky.hpp), used by the CPU
// path (dynamics/evaluate.cpp) and the cuda-fused kernel (kernels/fused_stage.hpp).
#include <vector>

#include "simphant/core/hd.hpp"

namespace simphant {

/// Raw-pointer view of a SchurPattern (host or device memory), as the numeric functions
/// read it. "Position" p is the p-th joint eliminated; block b of block column p holds
/// L(q, p) (q >= p, diagonal first) as a dense rows(q) x rows(p) row-major block.
struct SchurPatternView {
  int n_joints = 0, n_rows = 0, n_blocks = 0, n_values = 0;
  const int* joint_at = nullptr;     ///< (n_joints) joint eliminated at position p
  const int* position = nullptr;     ///< (n_joints) position of joint j (the inverse of joint_at)
  const int* pos_rows = nullptr;     ///< (n_joints) rows of the joint at position p
  const int* pos_row0 = nullptr;     ///< (n_joints) its first row in the original row order
  const int* col_start = nullptr;    ///< (n_joints + 1) blocks of column p: [col_start[p], col_start[p+1])
  const int* block_row = nullptr;    ///< (n_blocks) position q of the block's row joint
  const int* block_col = nullptr;    ///< (n_blocks) position p of its column joint
  const int* block_value = nullptr;  ///< (n_blocks) offset of its first value
  const int* update_start = nullptr; ///< (n_blocks + 1) updates of block b: [update_start[b], update_start[b+1])
  const int* update = nullptr;       ///< (n_updates, 2) (block (q, c), block (p, c)): L(q, p) -= L(q, c) L(p, c)^T
  /// The block holding L(q, p) for positions q >= p, or -1 when it is structurally zero.
  SP_HD int find_block(int q, int p) const {
    for (int b = col_start[p]; b < col_start[p + 1]; ++b)
      if (block_row[b] == q) return b;
    return -1;
  }
};

/// The symbolic analysis of one topology. Built by build_schur_pattern; the vectors
/// back view().
struct SchurPattern {
  int n_joints = 0, n_rows = 0;
  int n_fill_blocks = 0;  ///< blocks of L that are zero in C (0 for chains and trees)
  int n_values = 0;       ///< values of L (all blocks, each dense)
  std::vector<int> joint_at, position, pos_rows, pos_row0, col_start, block_row, block_col, block_value, update_start, update;
  int n_blocks() const { return static_cast<int>(block_row.size()); }
  /// Multiply-adds of one numeric factorisation (the updates and the block
  /// factorisations / triangular solves), for the cost model and the auto choice.
  long long factor_flops() const;
  /// Multiply-adds of the dense Cholesky of the same m (m^3 / 6).
  long long dense_factor_flops() const { return static_cast<long long>(n_rows) * n_rows * n_rows / 6; }
  SchurPatternView view() const;
};

/// Symbolic analysis of C for n_joints constraint elements: joint_body (n_joints, sides)
/// holds each element's bodies (sides 2 for joints and drivers, 4 with mimic rows,
/// Model::element_sides; -1: ground or an unused side, which couples nothing), rows (n_joints) its number of
/// constraint rows (1..6), row_offset (n_joints) its first row. The elimination order is
/// greedy minimum fill on the joint graph (fill weighted by rows(a) rows(b); ties: the
/// fewest weighted neighbours, then the lowest joint index), which finds a perfect
/// elimination order, hence no fill, for chains and trees. Throws std::invalid_argument
/// for rows outside 1..6, sides outside 1..4 or a body index below -1.
SchurPattern build_schur_pattern(int n_joints, int sides, const int* joint_body, const int* rows, const int* row_offset);

}  // namespace simphant
