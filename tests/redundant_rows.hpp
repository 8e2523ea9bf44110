#pragma once
// Whether a model's Phi_q has redundant rows at a state: where it has, lambda and the
// reactions agree between two implementations only to about cond(C) x 1e-16 relative
// (docs/cuda-backend.md, "Verification"), and the tests compare them to
// kRedundantLambdaTol.
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"

namespace simphant::test {

// Tolerance of lambda and the reactions between the paths where Phi_q has redundant
// rows: a few refinement steps of 1e-16 / eps = 1e-6 relative drift along C's null space
// (measured: 3.4e-8 after one evaluation, 5e-7 after 300 steps, on Bricard).
constexpr double kRedundantLambdaTol = 1e-5;

// Whether Phi_q has redundant rows at the state Y (constraint_analysis.hpp).
inline bool has_redundant_rows(const Model& model, const double* Y) {
  Data d(model, SchurFactorization::Dense);
  return !analyse_constraints(model, d, Y).redundant_rows.empty();
}

}  // namespace simphant::test
