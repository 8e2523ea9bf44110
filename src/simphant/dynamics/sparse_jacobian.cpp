#include "simphant/dynamics/sparse_jacobian.hpp"

#include <vector>

namespace simphant {

Eigen::SparseMatrix<double> sparse_jacobian(const Model& model, const Data& d) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(12 * model.n_rows));
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement e = model.constraint(a);
    const int bodies[2] = {e.body_i, e.body_j};
    for (int r = 0; r < d.rows[a].m; ++r)
      for (int side = 0; side < 2; ++side) {
        if (bodies[side] < 0) continue;
        for (int c = 0; c < 6; ++c) {
          const double v = d.rows[a].jac[r][6 * side + c];
          if (v != 0.0) entries.emplace_back(e.row_offset + r, 6 * bodies[side] + c, v);
        }
      }
  }
  Eigen::SparseMatrix<double> A(model.n_rows, model.nv());
  A.setFromTriplets(entries.begin(), entries.end());
  return A;
}

}  // namespace simphant
