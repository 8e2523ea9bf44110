#include "simphant/dynamics/schur_pattern.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace simphant {

namespace {

// Adjacency of the joint graph as a dense boolean matrix (a few hundred joints at most).
struct JointGraph {
  int n;
  std::vector<char> adj;
  explicit JointGraph(int n_) : n(n_), adj(static_cast<std::size_t>(n_) * n_, 0) {}
  bool has(int a, int b) const { return adj[static_cast<std::size_t>(a) * n + b] != 0; }
  void add(int a, int b) { adj[static_cast<std::size_t>(a) * n + b] = adj[static_cast<std::size_t>(b) * n + a] = 1; }
};

}  // namespace

SchurPattern build_schur_pattern(int n_joints, const int* joint_body, const int* rows, const int* row_offset) {
  SchurPattern P;
  P.n_joints = n_joints;
  JointGraph g(n_joints);
  for (int a = 0; a < n_joints; ++a) {
    if (rows[a] < 1 || rows[a] > 6)
      throw std::invalid_argument("build_schur_pattern: joint " + std::to_string(a) + " has " + std::to_string(rows[a]) +
                                  " rows (1..6 expected)");
    for (int s = 0; s < 2; ++s)
      if (joint_body[2 * a + s] < -1)
        throw std::invalid_argument("build_schur_pattern: joint " + std::to_string(a) + " has body index " +
                                    std::to_string(joint_body[2 * a + s]));
    P.n_rows += rows[a];
  }
  for (int a = 0; a < n_joints; ++a)
    for (int b = a + 1; b < n_joints; ++b)
      for (int s = 0; s < 2; ++s)
        for (int t = 0; t < 2; ++t) {
          const int k = joint_body[2 * a + s];
          if (k >= 0 && k == joint_body[2 * b + t]) g.add(a, b);
        }
  const JointGraph original = g;

  // Greedy minimum fill; g gains the fill edges, so it ends as the graph of L.
  std::vector<char> done(n_joints, 0);
  P.position.assign(n_joints, -1);
  for (int p = 0; p < n_joints; ++p) {
    int best = -1;
    long long best_fill = 0, best_deg = 0;
    for (int v = 0; v < n_joints; ++v) {
      if (done[v]) continue;
      long long fill = 0, deg = 0;
      for (int x = 0; x < n_joints; ++x) {
        if (done[x] || x == v || !g.has(v, x)) continue;
        deg += rows[x];
        for (int y = x + 1; y < n_joints; ++y)
          if (!done[y] && y != v && g.has(v, y) && !g.has(x, y)) fill += static_cast<long long>(rows[x]) * rows[y];
      }
      if (best < 0 || fill < best_fill || (fill == best_fill && deg < best_deg)) {
        best = v;
        best_fill = fill;
        best_deg = deg;
      }
    }
    for (int x = 0; x < n_joints; ++x)
      for (int y = x + 1; y < n_joints; ++y)
        if (!done[x] && !done[y] && x != best && y != best && g.has(best, x) && g.has(best, y)) g.add(x, y);
    done[best] = 1;
    P.position[best] = p;
    P.joint_at.push_back(best);
  }

  for (int p = 0; p < n_joints; ++p) {
    P.pos_rows.push_back(rows[P.joint_at[p]]);
    P.pos_row0.push_back(row_offset[P.joint_at[p]]);
  }
  // Block columns: the diagonal, then every later neighbour in the filled graph.
  int values = 0;
  P.col_start.push_back(0);
  for (int p = 0; p < n_joints; ++p) {
    const int a = P.joint_at[p];
    for (int q = p; q < n_joints; ++q) {
      const int b = P.joint_at[q];
      if (q != p && !g.has(a, b)) continue;
      if (q != p && !original.has(a, b)) ++P.n_fill_blocks;
      P.block_row.push_back(q);
      P.block_col.push_back(p);
      P.block_value.push_back(values);
      values += P.pos_rows[q] * P.pos_rows[p];
    }
    P.col_start.push_back(P.n_blocks());
  }
  P.n_values = values;
  // Left-looking updates: L(q, p) -= L(q, c) L(p, c)^T for every earlier column c with
  // both blocks present.
  const SchurPatternView v = P.view();
  P.update_start.push_back(0);
  for (int p = 0; p < n_joints; ++p)
    for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b];
      for (int c = 0; c < p; ++c) {
        const int bpc = v.find_block(p, c);
        const int bqc = bpc < 0 ? -1 : v.find_block(q, c);
        if (bqc < 0) continue;
        P.update.push_back(bqc);
        P.update.push_back(bpc);
      }
      P.update_start.push_back(static_cast<int>(P.update.size() / 2));
    }
  return P;
}

SchurPatternView SchurPattern::view() const {
  SchurPatternView v;
  v.n_joints = n_joints;
  v.n_rows = n_rows;
  v.n_blocks = n_blocks();
  v.n_values = n_values;
  v.joint_at = joint_at.data();
  v.position = position.data();
  v.pos_rows = pos_rows.data();
  v.pos_row0 = pos_row0.data();
  v.col_start = col_start.data();
  v.block_row = block_row.data();
  v.block_col = block_col.data();
  v.block_value = block_value.data();
  v.update_start = update_start.data();
  v.update = update.data();
  return v;
}

long long SchurPattern::factor_flops() const {
  long long f = 0;
  for (int p = 0; p < n_joints; ++p)
    for (int b = col_start[p]; b < col_start[p + 1]; ++b) {
      const long long rq = pos_rows[block_row[b]], rp = pos_rows[p];
      for (int u = update_start[b]; u < update_start[b + 1]; ++u) f += rq * rp * pos_rows[block_col[update[2 * u]]];
      f += block_row[b] == p ? rp * rp * rp / 6 : rq * rp * rp / 2;
    }
  return f;
}

}  // namespace simphant
