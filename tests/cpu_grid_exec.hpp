#pragma once
// The CPU executor of kernels/batch_step.hpp for the tests: launch runs the lambda for
// every thread of the whole grid (blocks of kBlock threads, so threads past the end are
// run too and must return), cholesky_factor does what cuSOLVER's potrfBatched does (lower
// factor written into C, info > 0 where a matrix is not positive definite) and
// cholesky_solve what potrsBatched does (rhs solved in place with that factor), with
// Eigen's LLT. The C matrices as built, before the factorisation overwrites them, are
// kept for the comparisons (last_C).
#include <Eigen/Dense>

#include <vector>

namespace simphant::test {

template <class T>
struct CpuGridExec {
  static constexpr int kBlock = 64;
  std::vector<T> last_C;  ///< (n, m, m) copy of the Schur matrices given to the last cholesky_solve

  template <class F>
  void launch(const char*, int n_threads, F f) {
    const int grid = (n_threads + kBlock - 1) / kBlock;
    for (int tid = 0; tid < grid * kBlock; ++tid) f(tid);
  }

  void cholesky_factor(int m, T** C_ptrs, int* info, int batch) {
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    last_C.assign(static_cast<std::size_t>(batch) * m * m, T(0));
    for (int i = 0; i < batch; ++i) {
      Eigen::Map<Mat> C(C_ptrs[i], m, m);
      Eigen::Map<Mat>(last_C.data() + static_cast<std::size_t>(i) * m * m, m, m) = C;
      Eigen::LLT<Mat> llt(C.template selfadjointView<Eigen::Lower>());
      info[i] = llt.info() == Eigen::Success ? 0 : 1;
      if (info[i] == 0) C.template triangularView<Eigen::Lower>() = llt.matrixL();
    }
  }

  void cholesky_solve(int m, T** C_ptrs, T** rhs_ptrs, int batch) {
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    for (int i = 0; i < batch; ++i) {
      Eigen::Map<Mat> C(C_ptrs[i], m, m);
      Eigen::Map<Vec> rhs(rhs_ptrs[i], m);
      C.template triangularView<Eigen::Lower>().solveInPlace(rhs);
      C.template triangularView<Eigen::Lower>().transpose().solveInPlace(rhs);
    }
  }
};

}  // namespace simphant::test
