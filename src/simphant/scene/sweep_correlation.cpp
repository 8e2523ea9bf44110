// Correlated normal sweep parameters (docs/scene-format.md, "Sweep", "Correlated
// normals"): validation of `correlation` / `covariance`, the Cholesky factor of the
// correlation matrix (Eigen LLT), and the map of one instance's uniforms to its values.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "simphant/scene/json_access.hpp"
#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

/// Relative tolerance of the symmetry, unit-diagonal and std^2 checks: matrices written
/// by other programs carry round-off of a few ulps (1e-12 is 4500 ulps).
constexpr double kMatrixTol = 1e-12;

bool close(double a, double b) { return std::fabs(a - b) <= kMatrixTol * std::max({1.0, std::fabs(a), std::fabs(b)}); }

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

SweepCorrelation parse_correlation(const json& j, const std::string& path, bool covariance, const SweepSpec& spec) {
  expect_object(j, path);
  check_keys(j, path, {"parameters", "matrix"});
  const std::string p_path = child_path(path, "parameters");
  const json& names = require_key(j, path, "parameters");
  expect_array(names, p_path);
  if (names.size() < 2) throw SceneError(p_path, "must list at least two parameters");
  SweepCorrelation c;
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::string k_path = child_path(p_path, k);
    const std::string name = as_string(names[k], k_path);
    const auto it = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                                 [&](const SweepParameter& p) { return p.path == name; });
    if (it == spec.parameters.end())
      throw SceneError(k_path, "\"" + name + "\" is not the path of a sweep parameter (write it as in /sweep/parameters)");
    const int index = static_cast<int>(it - spec.parameters.begin());
    if (std::find(c.parameters.begin(), c.parameters.end(), index) != c.parameters.end())
      throw SceneError(k_path, "\"" + name + "\" is listed twice");
    if (it->dist != Distribution::Normal)
      throw SceneError(k_path, "\"" + name + "\" must have dist \"normal\" to be correlated");
    // Truncating a marginal after the correlation would change the correlation: refused.
    if (it->truncated)
      throw SceneError(k_path, "\"" + name + "\" is truncated; correlated normals cannot be truncated");
    c.parameters.push_back(index);
  }
  const std::size_t n = c.parameters.size();
  // A row of L has unit length, so |(L z)_r| <= |z| <= 38 sqrt(n) (|z_k| <= 38 each,
  // sweep_dist.cpp): every sample must stay finite.
  for (std::size_t r = 0; r < n; ++r) {
    const SweepParameter& p = spec.parameters[static_cast<std::size_t>(c.parameters[r])];
    if (!std::isfinite(std::fabs(p.mean) + 38.0 * std::sqrt(static_cast<double>(n)) * p.std))
      throw SceneError(child_path(p_path, r), "\"" + p.path + "\": mean +- 38 sqrt(" + std::to_string(n) +
                                                  ") std, the widest correlated sample, overflows");
  }
  const std::string m_path = child_path(path, "matrix");
  const json& m = require_key(j, path, "matrix");
  expect_array(m, m_path);
  if (m.size() != n) throw SceneError(m_path, "must have " + std::to_string(n) + " rows, one per parameter (got " +
                                                  std::to_string(m.size()) + ")");
  Eigen::MatrixXd a(n, n);
  for (std::size_t r = 0; r < n; ++r) {
    const std::string r_path = child_path(m_path, r);
    expect_array(m[r], r_path);
    if (m[r].size() != n) throw SceneError(r_path, "must have " + std::to_string(n) + " entries (got " +
                                                       std::to_string(m[r].size()) + ")");
    for (std::size_t k = 0; k < n; ++k) a(r, k) = as_number(m[r][k], child_path(r_path, k));
  }
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < r; ++k)
      if (!close(a(r, k), a(k, r)))
        throw SceneError(m_path, "must be symmetric: [" + std::to_string(r) + "][" + std::to_string(k) + "] = " +
                                     format_number(a(r, k)) + " but [" + std::to_string(k) + "][" + std::to_string(r) +
                                     "] = " + format_number(a(k, r)));
    const SweepParameter& p = spec.parameters[static_cast<std::size_t>(c.parameters[r])];
    const double want = covariance ? p.std * p.std : 1.0;
    if (!close(a(r, r), want))
      throw SceneError(child_path(child_path(m_path, r), r),
                       covariance ? "must be the variance std^2 = " + format_number(want) + " of \"" + p.path +
                                        "\" (std " + format_number(p.std) + "), got " + format_number(a(r, r))
                                  : "a correlation matrix has 1 on its diagonal (got " + format_number(a(r, r)) + ")");
  }
  if (covariance) {  // the correlation matrix D^-1 Sigma D^-1
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t k = 0; k < n; ++k) {
        const double sr = spec.parameters[static_cast<std::size_t>(c.parameters[r])].std;
        const double sk = spec.parameters[static_cast<std::size_t>(c.parameters[k])].std;
        a(r, k) = r == k ? 1.0 : a(r, k) / (sr * sk);
      }
  }
  for (std::size_t r = 0; r < n; ++r) a(r, r) = 1.0;
  a = 0.5 * (a + a.transpose()).eval();
  Eigen::LLT<Eigen::MatrixXd> llt(a);
  if (llt.info() != Eigen::Success) {
    const double lowest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a, Eigen::EigenvaluesOnly).eigenvalues()(0);
    throw SceneError(m_path, std::string("is not positive definite: the Cholesky factorisation of the ") +
                                 (covariance ? "correlation matrix it implies" : "matrix") +
                                 " fails (its smallest eigenvalue is " + fmt(lowest) + ")");
  }
  const Eigen::MatrixXd L = llt.matrixL();
  c.cholesky.resize(n * n);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < n; ++k) c.cholesky[r * n + k] = k <= r ? L(r, k) : 0.0;
  return c;
}

void map_point(const SweepSpec& sweep, double* x) {
  const SweepCorrelation& c = sweep.correlation;
  const std::size_t n = c.parameters.size();
  double z[64];
  std::vector<double> z_heap;
  double* zs = z;
  if (n > 64) {
    z_heap.resize(n);
    zs = z_heap.data();
  }
  for (std::size_t r = 0; r < n; ++r) zs[r] = standard_normal_quantile(x[static_cast<std::size_t>(c.parameters[r])]);
  for (std::size_t p = 0; p < sweep.parameters.size(); ++p)
    if (std::find(c.parameters.begin(), c.parameters.end(), static_cast<int>(p)) == c.parameters.end())
      x[p] = inverse_cdf(sweep.parameters[p], x[p]);
  for (std::size_t r = 0; r < n; ++r) {  // row r of L z (L lower triangular)
    double y = 0;
    for (std::size_t k = 0; k <= r; ++k) y += c.cholesky[r * n + k] * zs[k];
    const SweepParameter& p = sweep.parameters[static_cast<std::size_t>(c.parameters[r])];
    x[static_cast<std::size_t>(c.parameters[r])] = p.mean + p.std * y;
  }
}

}  // namespace simphant::scene_detail
