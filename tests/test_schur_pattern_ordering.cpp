// The greedy minimum-fill ordering of build_schur_pattern written the plain way, on a dense
// adjacency matrix (O(n^4): for every elimination, every pair of every joint's
// neighbours): the reference that the production version, on adjacency lists and
// updating only the joints near each eliminated one, must reproduce exactly (the same
// order, blocks and update list, so that every factorisation is the same to the bit).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "simphant/formulas/schur_pattern.hpp"

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

SchurPattern reference_pattern(int n_joints, const int* joint_body, const int* rows, const int* row_offset) {
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


void expect_same(const SchurPattern& a, const SchurPattern& b) {
  EXPECT_EQ(a.n_joints, b.n_joints);
  EXPECT_EQ(a.n_rows, b.n_rows);
  EXPECT_EQ(a.n_fill_blocks, b.n_fill_blocks);
  EXPECT_EQ(a.n_values, b.n_values);
  EXPECT_EQ(a.joint_at, b.joint_at);
  EXPECT_EQ(a.position, b.position);
  EXPECT_EQ(a.pos_rows, b.pos_rows);
  EXPECT_EQ(a.pos_row0, b.pos_row0);
  EXPECT_EQ(a.col_start, b.col_start);
  EXPECT_EQ(a.block_row, b.block_row);
  EXPECT_EQ(a.block_col, b.block_col);
  EXPECT_EQ(a.block_value, b.block_value);
  EXPECT_EQ(a.update_start, b.update_start);
  EXPECT_EQ(a.update, b.update);
}

TEST(SchurPatternOrdering, EqualsThePlainGreedyOrderingOnRandomGraphs) {
  std::mt19937 g(5);
  int fill = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int bodies = 1 + static_cast<int>(g() % 25), joints = 1 + static_cast<int>(g() % 40);
    std::vector<int> joint_body, rows, row_offset;
    int offset = 0;
    for (int j = 0; j < joints; ++j) {
      // Mostly a chain or a tree, with random extra joints closing loops.
      const int b = static_cast<int>(g() % bodies);
      const int a = g() % 4 == 0 ? -1 : static_cast<int>(g() % bodies);
      joint_body.push_back(a == b ? -1 : a);
      joint_body.push_back(b);
      rows.push_back(1 + static_cast<int>(g() % 6));
      row_offset.push_back(offset);
      offset += rows.back();
    }
    const SchurPattern got = build_schur_pattern(joints, 2, joint_body.data(), rows.data(), row_offset.data());
    const SchurPattern want = reference_pattern(joints, joint_body.data(), rows.data(), row_offset.data());
    expect_same(got, want);
    fill += want.n_fill_blocks;
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "trial " << trial;
      return;
    }
  }
  EXPECT_GT(fill, 0);  // the graphs include orderings that fill
}

TEST(SchurPatternOrdering, ALongChainIsOrderedInLinearTime) {
  // 20000 joints in a chain: the plain ordering takes hours; this one well under a second
  // (no timing asserted: a chain has no fill and a block per neighbour).
  const int n = 20000;
  std::vector<int> joint_body, rows(n, 5), row_offset;
  for (int j = 0; j < n; ++j) {
    joint_body.push_back(j - 1);
    joint_body.push_back(j);
    row_offset.push_back(5 * j);
  }
  const SchurPattern P = build_schur_pattern(n, 2, joint_body.data(), rows.data(), row_offset.data());
  EXPECT_EQ(P.n_fill_blocks, 0);
  EXPECT_EQ(P.n_blocks(), 2 * n - 1);
}

}  // namespace
}  // namespace simphant
