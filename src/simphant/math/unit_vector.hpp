#pragma once
// Normalising an input direction (a joint axis from a scene or a URDF) without
// overflow or underflow: host-side input validation, not for kernels.
#include <algorithm>
#include <cmath>

#include "simphant/math/small.hpp"

namespace simphant {

/// The unit vector along `a`, normalised through s = a / max_k |a_k| so that a direction
/// written with huge (1e200) or tiny (1e-200) components is still normalised exactly.
/// Returns false, leaving `unit` unchanged, when a component is not finite or when the
/// norm of `a` is below `min_norm` (a zero-length axis).
inline bool unit_vector(const Vec3d& a, double min_norm, Vec3d& unit) {
  const double big = std::max({std::fabs(a.x), std::fabs(a.y), std::fabs(a.z)});
  if (!std::isfinite(a.x) || !std::isfinite(a.y) || !std::isfinite(a.z) || !(big > 0)) return false;
  const Vec3d s = (1.0 / big) * a;
  const double n = norm(s);  // in [1, sqrt(3)]
  if (!(big * n >= min_norm)) return false;
  unit = (1.0 / n) * s;
  return true;
}

}  // namespace simphant
