#include "simphant/dynamics/sparse_jacobian.hpp"

#include <vector>

namespace simphant {

Eigen::SparseMatrix<double> sparse_jacobian(const Model& model, const Data& d) {
  std::vector<Eigen::Triplet<double>> entries;
  const int S = model.element_sides();
  entries.reserve(static_cast<std::size_t>(6 * S * model.n_rows));
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement e = model.constraint(a);
    for (int r = 0; r < d.rows[a].m; ++r)
      for (int side = 0; side < S; ++side) {
        const int k = e.side_body(side);
        if (k < 0) continue;
        const double* row = side_row(model, d, a, r, side);
        for (int c = 0; c < 6; ++c)
          if (row[c] != 0.0) entries.emplace_back(e.row_offset + r, 6 * k + c, row[c]);  // duplicates are summed
      }
  }
  Eigen::SparseMatrix<double> A(model.n_rows, model.nv());
  A.setFromTriplets(entries.begin(), entries.end());
  return A;
}

}  // namespace simphant
