#pragma once
// Solve A x = b for a symmetric positive definite 6x6 A by Cholesky factorisation
// A = L L^T (Golub & Van Loan, Matrix Computations, 4th ed., Alg. 4.2.1), header-only
// SP_HD: the floating-base ABA's last step, the base's articulated inertia solved for its
// spatial acceleration (aba.hpp, cga/cga_dynamics.hpp). About 100 multiplications, 6
// square roots and 6 divisions (reciprocal pivots); no pivoting (none is needed for SPD A). Cholesky's backward error does
// not depend on a symmetric diagonal scaling of A, so the mixed units of an inertia
// ([kg m^2], [kg m], [kg]) cost no accuracy.
#include <cmath>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"

namespace simphant {

/// x = A^-1 b. A: row-major 6x6, symmetric positive definite (only the lower triangle is
/// read); b, x: 6 entries (x may alias b). A is not modified. Precondition violated (A
/// not positive definite): the square root of a non-positive pivot gives NaN / inf in x,
/// which the integrators' non-finite check reports; no crash.
template <class T>
SP_HD void spd6_solve(const T (&A)[6][6], const T* b, T* x) {
  T L[6][6];
  T inv[6];  // 1 / L[j][j]: one division per pivot, multiplications in the solves
  for (int j = 0; j < 6; ++j) {
    T d = A[j][j];
    for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
    const T ljj = lane_sqrt(d);
    L[j][j] = ljj;
    inv[j] = T(1) / ljj;
    for (int i = j + 1; i < 6; ++i) {
      T s = A[i][j];
      for (int k = 0; k < j; ++k) s -= L[i][k] * L[j][k];
      L[i][j] = s * inv[j];
    }
  }
  T y[6];
  for (int i = 0; i < 6; ++i) {  // L y = b
    T s = b[i];
    for (int k = 0; k < i; ++k) s -= L[i][k] * y[k];
    y[i] = s * inv[i];
  }
  for (int i = 5; i >= 0; --i) {  // L^T x = y
    T s = y[i];
    for (int k = i + 1; k < 6; ++k) s -= L[k][i] * x[k];
    x[i] = s * inv[i];
  }
}

}  // namespace simphant
