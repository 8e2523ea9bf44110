// Inertia tensor and orientation quaternion of a body (docs/scene-format.md, "Body").
#include <cmath>

#include <Eigen/Dense>

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"

namespace simphant::scene_detail {

namespace {

constexpr double kSymmetryTol = 1e-9;  ///< relative, 3x3 form
constexpr double kTriangleTol = 1e-9;  ///< relative, principal moments
constexpr double kQuatTol = 1e-3;      ///< | |q| - 1 | beyond this is an error

Mat3d read_inertia_form(const json& j, const std::string& path) {
  const char* forms = "must be [Ixx, Iyy, Izz], [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or a 3x3 array";
  if (!j.is_array()) throw SceneError(path, forms);
  Mat3d J{};
  if (j.size() == 3 && !j[0].is_array()) {
    for (int k = 0; k < 3; ++k) J.m[k][k] = as_number(j[k], child_path(path, k));
    return J;
  }
  if (j.size() == 6) {
    double x[6];
    for (int k = 0; k < 6; ++k) x[k] = as_number(j[k], child_path(path, k));
    J = {{{x[0], x[3], x[4]}, {x[3], x[1], x[5]}, {x[4], x[5], x[2]}}};
    return J;
  }
  if (j.size() != 3) throw SceneError(path, forms);
  double scale = 0;
  for (int r = 0; r < 3; ++r) {
    const std::string row_path = child_path(path, r);
    if (!j[r].is_array() || j[r].size() != 3) throw SceneError(row_path, "must be an array of 3 numbers (3x3 form)");
    for (int c = 0; c < 3; ++c) {
      J.m[r][c] = as_number(j[r][c], child_path(row_path, c));
      scale = std::fmax(scale, std::fabs(J.m[r][c]));
    }
  }
  for (int r = 0; r < 3; ++r) {
    for (int c = r + 1; c < 3; ++c) {
      if (std::fabs(J.m[r][c] - J.m[c][r]) > kSymmetryTol * scale) {
        throw SceneError(path, "not symmetric: [" + std::to_string(r) + "][" + std::to_string(c) +
                                   "] = " + format_number(J.m[r][c]) + " but [" + std::to_string(c) + "][" +
                                   std::to_string(r) + "] = " + format_number(J.m[c][r]));
      }
      const double avg = 0.5 * (J.m[r][c] + J.m[c][r]);
      J.m[r][c] = J.m[c][r] = avg;
    }
  }
  return J;
}

}  // namespace

Mat3d compile_inertia(const json& j, const std::string& path) {
  const Mat3d J = read_inertia_form(j, path);
  Eigen::Matrix3d E;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) E(r, c) = J.m[r][c];
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(E, Eigen::EigenvaluesOnly);
  const Eigen::Vector3d l = eig.eigenvalues();  // ascending
  const std::string moments =
      " (principal moments " + format_number(l[0]) + ", " + format_number(l[1]) + ", " + format_number(l[2]) + ")";
  if (!(l[0] > 0)) throw SceneError(path, "not positive definite" + moments);
  if (l[0] + l[1] < l[2] * (1.0 - kTriangleTol)) {
    throw SceneError(path, "principal moments violate the triangle inequality I1 + I2 >= I3" + moments);
  }
  return J;
}

Quatd compile_quaternion(const json& j, const std::string& path) {
  if (!j.is_array() || j.size() != 4) throw SceneError(path, "must be an array of 4 numbers [w, x, y, z]");
  double q[4];
  for (int k = 0; k < 4; ++k) q[k] = as_number(j[k], child_path(path, k));
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(std::fabs(n - 1.0) <= kQuatTol)) {
    throw SceneError(path, "quaternion length " + format_number(n) + " is not within 1e-3 of 1");
  }
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

}  // namespace simphant::scene_detail
