// Sobol' and Saltelli designs (docs/scene-format.md, "Sweep"): the Sobol' sequence of
// Boost.Random (boost::random::sobol, 64-bit, direction numbers of S. Joe and F. Y. Kuo,
// "Constructing Sobol sequences with better two-dimensional projections", SIAM J. Sci.
// Comput. 30 (2008), file new-joe-kuo-6.21201, as scipy.stats.qmc.Sobol), with an
// optional random digital shift, and the cross-sampled rows of Saltelli (2002) in the
// order of SALib.sample.sobol.sample.
#include <climits>
#include <random>

#include <boost/random/sobol.hpp>

#include "simphant/scene/sweep_detail.hpp"

namespace simphant::scene_detail {

namespace {

/// The first n points of the dims-dimensional Sobol' sequence as uniforms u[d][k]:
/// point 0 is the origin (Boost's engine starts at point 1, so it is prepended: dropping
/// it spoils the balance of the first 2^m points, A. B. Owen, "On dropping the first
/// Sobol' point", 2020); scrambled: each coordinate's 64 bits XOR a word drawn per
/// dimension (in order) from std::mt19937_64(seed), a random digital shift.
/// u = (x >> 11) 2^-53 keeps 53 bits, so u < 1.
std::vector<std::vector<double>> sobol_points(int dims, int n, bool scramble, std::uint64_t seed) {
  std::vector<std::uint64_t> shift(static_cast<std::size_t>(dims), 0);
  if (scramble) {
    std::mt19937_64 rng(seed);
    for (std::uint64_t& s : shift) s = rng();
  }
  std::vector<std::vector<double>> u(static_cast<std::size_t>(dims), std::vector<double>(static_cast<std::size_t>(n)));
  if (n == 0 || dims == 0) return u;
  const auto to_u = [](std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1p-53; };
  for (std::size_t d = 0; d < shift.size(); ++d) u[d][0] = to_u(shift[d]);
  boost::random::sobol engine(static_cast<std::size_t>(dims));
  for (std::size_t k = 1; k < static_cast<std::size_t>(n); ++k) {
    for (std::size_t d = 0; d < shift.size(); ++d) u[d][k] = to_u(engine() ^ shift[d]);
  }
  return u;
}

}  // namespace

int max_sobol_dimension() { return static_cast<int>(boost::random::default_sobol_table::max_dimension); }

long long saltelli_rows(long long base, long long dims, bool second_order) {
  const long long per_base = second_order ? 2 * dims + 2 : dims + 2;
  if (base < 0 || dims < 0 || base > INT_MAX / per_base) return -1;
  return base * per_base;
}

void sobol_uniforms(const SweepSpec& sweep, int n, std::vector<std::vector<double>>& u) {
  u = sobol_points(static_cast<int>(sweep.parameters.size()), n, sweep.scramble, sweep.seed);
}

void saltelli_uniforms(const SweepSpec& sweep, std::vector<std::vector<double>>& u) {
  const std::size_t D = sweep.parameters.size();
  const std::size_t N = static_cast<std::size_t>(sweep.saltelli_base);
  const std::vector<std::vector<double>> base = sobol_points(static_cast<int>(2 * D), static_cast<int>(N), sweep.scramble, sweep.seed);
  const std::size_t rows = static_cast<std::size_t>(saltelli_rows(static_cast<long long>(N), static_cast<long long>(D),
                                                                   sweep.saltelli_second_order));
  u.assign(D, std::vector<double>(rows));
  std::size_t r = 0;
  // One row: parameter j from matrix B (columns D..2D-1) where from_b(j), else from A.
  const auto put = [&](std::size_t i, auto from_b) {
    for (std::size_t j = 0; j < D; ++j) u[j][r] = from_b(j) ? base[j + D][i] : base[j][i];
    ++r;
  };
  for (std::size_t i = 0; i < N; ++i) {
    put(i, [](std::size_t) { return false; });                          // A
    for (std::size_t k = 0; k < D; ++k) put(i, [k](std::size_t j) { return j == k; });  // A with column k of B
    if (sweep.saltelli_second_order)
      for (std::size_t k = 0; k < D; ++k) put(i, [k](std::size_t j) { return j != k; });  // B with column k of A
    put(i, [](std::size_t) { return true; });                           // B
  }
}

}  // namespace simphant::scene_detail
