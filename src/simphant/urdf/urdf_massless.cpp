// warn_singular_mass_matrix (urdf_detail.hpp): a massless moving link is accepted when
// mass lies below it, but geometry can still leave a joint without inertia (a massless
// link whose only massive child turns about the same axis). That is found here as a
// vanishing pivot of the Cholesky factorisation of the joint-space mass matrix M(0)
// (CRBA, reduced/crba.hpp; Featherstone, Rigid Body Dynamics Algorithms, ch. 6).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/urdf/urdf_detail.hpp"

namespace simphant::urdf_detail {

namespace {

/// Relative size below which a Cholesky pivot counts as zero: M's entries carry
/// round-off of order 1e-16 of the largest diagonal entry; 1e-12 leaves a wide margin.
constexpr double kPivotTol = 1e-12;

}  // namespace

void warn_singular_mass_matrix(ReducedModel& rm) {
  const int n = rm.nq();
  bool massless = false;
  for (const ReducedLink& l : rm.links) massless = massless || !(l.mass > 0);
  if (!massless || n > kMaxReducedLinks) return;  // above kMaxReducedLinks no solver runs it
  std::vector<ReducedLinkParams<double>> P;
  for (int k = 0; k < n; ++k) P.push_back(reduced_link_params<double>(rm, k));
  const auto ws = std::make_unique<CrbaWorkspace<double>>();
  const std::vector<double> q(static_cast<std::size_t>(n), 0.0);
  std::vector<double> M(static_cast<std::size_t>(n * n));
  crba<double>(n, P.data(), rm.gravity, q.data(), nullptr, M.data(), nullptr, *ws);
  double scale = 0;
  for (int k = 0; k < n; ++k) scale = std::fmax(scale, M[static_cast<std::size_t>(k * n + k)]);
  // In-place Cholesky, M = L L^T, lower triangle; stop at the first vanishing pivot.
  for (int j = 0; j < n; ++j) {
    double d = M[static_cast<std::size_t>(j * n + j)];
    for (int k = 0; k < j; ++k) d -= M[static_cast<std::size_t>(j * n + k)] * M[static_cast<std::size_t>(j * n + k)];
    if (!(d > kPivotTol * scale)) {
      rm.warnings.push_back("joint '" + rm.links[static_cast<std::size_t>(j)].joint_name +
                            "': the joint-space mass matrix is singular at q = 0 (the joint adds no inertia beyond "
                            "the joints before it: a massless link whose massive links below it move with it along "
                            "the same axis?); aba and cga would divide by zero there");
      return;
    }
    const double Ljj = std::sqrt(d);
    M[static_cast<std::size_t>(j * n + j)] = Ljj;
    for (int i = j + 1; i < n; ++i) {
      double s = M[static_cast<std::size_t>(i * n + j)];
      for (int k = 0; k < j; ++k) s -= M[static_cast<std::size_t>(i * n + k)] * M[static_cast<std::size_t>(j * n + k)];
      M[static_cast<std::size_t>(i * n + j)] = s / Ljj;
    }
  }
}

}  // namespace simphant::urdf_detail
