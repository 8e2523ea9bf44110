#include "simphant/formulas/schur_pattern.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace simphant {

namespace {

// The joint graph as sorted adjacency lists: joints are adjacent when they share a body.
struct JointGraph {
  std::vector<std::vector<int>> adj;
  explicit JointGraph(int n) : adj(static_cast<std::size_t>(n)) {}
  bool has(int a, int b) const {
    const std::vector<int>& l = adj[static_cast<std::size_t>(a)];
    return std::binary_search(l.begin(), l.end(), b);
  }
  void add(int a, int b) {
    for (const auto& [x, y] : {std::pair<int, int>{a, b}, {b, a}}) {
      std::vector<int>& l = adj[static_cast<std::size_t>(x)];
      const auto it = std::lower_bound(l.begin(), l.end(), y);
      if (it == l.end() || *it != y) l.insert(it, y);
    }
  }
};

}  // namespace

SchurPattern build_schur_pattern(int n_joints, int sides, const int* joint_body, const int* rows, const int* row_offset) {
  if (sides < 1 || sides > 4)
    throw std::invalid_argument("build_schur_pattern: " + std::to_string(sides) + " sides per element (1..4 expected)");
  SchurPattern P;
  P.n_joints = n_joints;
  int n_bodies = 0;
  for (int a = 0; a < n_joints; ++a) {
    if (rows[a] < 1 || rows[a] > 6)
      throw std::invalid_argument("build_schur_pattern: joint " + std::to_string(a) + " has " + std::to_string(rows[a]) +
                                  " rows (1..6 expected)");
    for (int s = 0; s < sides; ++s) {
      if (joint_body[sides * a + s] < -1)
        throw std::invalid_argument("build_schur_pattern: joint " + std::to_string(a) + " has body index " +
                                    std::to_string(joint_body[sides * a + s]));
      n_bodies = std::max(n_bodies, joint_body[sides * a + s] + 1);
    }
    P.n_rows += rows[a];
  }
  JointGraph g(n_joints);
  {
    std::vector<std::vector<int>> on_body(static_cast<std::size_t>(n_bodies));
    for (int a = 0; a < n_joints; ++a)
      for (int s = 0; s < sides; ++s)
        if (joint_body[sides * a + s] >= 0) on_body[static_cast<std::size_t>(joint_body[sides * a + s])].push_back(a);
    for (const std::vector<int>& joints : on_body)
      for (int x : joints)
        for (int y : joints)
          if (x != y) g.adj[static_cast<std::size_t>(x)].push_back(y);
    for (std::vector<int>& l : g.adj) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
  }
  const JointGraph original = g;

  // Greedy minimum fill; g gains the fill edges, so it ends as the graph of L. Per joint v
  // still to eliminate: fill = the weighted pairs of its remaining neighbours that are not
  // adjacent, deg = its remaining neighbours' rows. Eliminating a joint changes these
  // only for joints within two edges of it, which are the ones recomputed.
  std::vector<char> done(static_cast<std::size_t>(n_joints), 0);
  std::vector<long long> fill(static_cast<std::size_t>(n_joints)), deg(static_cast<std::size_t>(n_joints));
  std::vector<int> live;
  const auto live_neighbours = [&](int v) {
    live.clear();
    for (int x : g.adj[static_cast<std::size_t>(v)])
      if (!done[static_cast<std::size_t>(x)]) live.push_back(x);
  };
  const auto measure = [&](int v) {
    live_neighbours(v);
    long long f = 0, d = 0;
    for (std::size_t i = 0; i < live.size(); ++i) {
      d += rows[live[i]];
      for (std::size_t j = i + 1; j < live.size(); ++j)
        if (!g.has(live[i], live[j])) f += static_cast<long long>(rows[live[i]]) * rows[live[j]];
    }
    fill[static_cast<std::size_t>(v)] = f;
    deg[static_cast<std::size_t>(v)] = d;
  };
  for (int v = 0; v < n_joints; ++v) measure(v);
  std::vector<int> stamp(static_cast<std::size_t>(n_joints), -1), near;
  P.position.assign(static_cast<std::size_t>(n_joints), -1);
  for (int p = 0; p < n_joints; ++p) {
    int best = -1;
    for (int v = 0; v < n_joints; ++v) {
      if (done[static_cast<std::size_t>(v)]) continue;
      if (best < 0 || fill[static_cast<std::size_t>(v)] < fill[static_cast<std::size_t>(best)] ||
          (fill[static_cast<std::size_t>(v)] == fill[static_cast<std::size_t>(best)] &&
           deg[static_cast<std::size_t>(v)] < deg[static_cast<std::size_t>(best)]))
        best = v;
    }
    live_neighbours(best);
    const std::vector<int> clique = live;
    for (std::size_t i = 0; i < clique.size(); ++i)
      for (std::size_t j = i + 1; j < clique.size(); ++j) g.add(clique[i], clique[j]);
    done[static_cast<std::size_t>(best)] = 1;
    P.position[static_cast<std::size_t>(best)] = p;
    P.joint_at.push_back(best);
    // The joints whose remaining neighbourhood changed: best's neighbours and theirs.
    near.clear();
    for (int x : clique)
      for (int y : g.adj[static_cast<std::size_t>(x)])
        for (int z : {x, y})
          if (!done[static_cast<std::size_t>(z)] && stamp[static_cast<std::size_t>(z)] != p) {
            stamp[static_cast<std::size_t>(z)] = p;
            near.push_back(z);
          }
    for (int z : near) measure(z);
  }

  for (int p = 0; p < n_joints; ++p) {
    P.pos_rows.push_back(rows[P.joint_at[p]]);
    P.pos_row0.push_back(row_offset[P.joint_at[p]]);
  }
  // Block columns: the diagonal, then every later neighbour in the filled graph, in
  // position order.
  int values = 0;
  P.col_start.push_back(0);
  std::vector<int> later;
  for (int p = 0; p < n_joints; ++p) {
    const int a = P.joint_at[p];
    later.assign(1, p);
    for (int b : g.adj[static_cast<std::size_t>(a)])
      if (P.position[static_cast<std::size_t>(b)] > p) later.push_back(P.position[static_cast<std::size_t>(b)]);
    std::sort(later.begin() + 1, later.end());
    for (int q : later) {
      const int b = P.joint_at[q];
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
  // both blocks present, c ascending (the columns c < p holding a block in row p).
  std::vector<std::vector<int>> row_cols(static_cast<std::size_t>(n_joints));
  for (int c = 0; c < n_joints; ++c)
    for (int b = P.col_start[c]; b < P.col_start[c + 1]; ++b)
      if (P.block_row[b] != c) row_cols[static_cast<std::size_t>(P.block_row[b])].push_back(c);
  const SchurPatternView v = P.view();
  P.update_start.push_back(0);
  for (int p = 0; p < n_joints; ++p)
    for (int b = P.col_start[p]; b < P.col_start[p + 1]; ++b) {
      const int q = P.block_row[b];
      for (int c : row_cols[static_cast<std::size_t>(p)]) {
        const int bpc = v.find_block(p, c);
        const int bqc = v.find_block(q, c);
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
