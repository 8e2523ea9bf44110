#pragma once
// Phi_q (m, 6N) as a sparse matrix, for the work on large models that the dense
// (m, 6N) d.Phi_q of assemble_jacobian (dynamics/evaluate.hpp) would make slow or large:
// assembly above kDenseAssemblyRows (dynamics/assembly.hpp) and the rank analysis of a
// closed loop (dynamics/row_qr.hpp).
#include <Eigen/SparseCore>

#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Phi_q of the evaluated rows d.rows (call evaluate_constraints first): each constraint
/// element's rows on its bodies' 6 columns each (ground: none); exact zeros left out.
Eigen::SparseMatrix<double> sparse_jacobian(const Model& model, const Data& d);

}  // namespace simphant
