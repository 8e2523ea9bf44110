// Mass-property arithmetic of the URDF import: frame changes, welding (parallel-axis
// theorem) and the physical-validity check of an inertia tensor.
#include <cstdio>
#include <string>

#include <Eigen/Dense>

#include "simphant/reduced/spatial.hpp"
#include "simphant/urdf/urdf_detail.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::urdf_detail {

namespace {

constexpr double kTriangleTol = 1e-9;  ///< relative, as the scene compiler (inertia_compile.cpp)

std::string fmt(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

/// m (|d|^2 E - d d^T): inertia of a point mass m at offset d about the origin.
Mat3d point_inertia(double m, const Vec3d& d) {
  const double d2 = dot(d, d);
  Mat3d J;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) J.m[r][c] = m * ((r == c ? d2 : 0.0) - d[r] * d[c]);
  return J;
}

}  // namespace

Mat3d rotate_inertia(const Mat3d& R_GF, const Mat3d& I_F) {
  using namespace spatial_detail;
  return m3_congruence_sym(m3_mul_tn(R_GF, identity3<double>()), I_F);  // E^T I E with E = R^T
}

MassProps transform_mass(const MassProps& m, const Mat3d& R_GF, const Vec3d& p_GF) {
  MassProps out;
  out.mass = m.mass;
  out.com = mul(R_GF, m.com) + p_GF;
  out.inertia = rotate_inertia(R_GF, m.inertia);
  return out;
}

MassProps combine_mass(const MassProps& a, const MassProps& b) {
  MassProps out;
  out.mass = a.mass + b.mass;
  out.com = (1.0 / out.mass) * (a.mass * a.com + b.mass * b.com);
  using spatial_detail::m3_add;
  out.inertia = m3_add(m3_add(a.inertia, point_inertia(a.mass, a.com - out.com)),
                       m3_add(b.inertia, point_inertia(b.mass, b.com - out.com)));
  return out;
}

void check_inertia(const Mat3d& inertia, const std::string& where) {
  Eigen::Matrix3d E;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) E(r, c) = inertia.m[r][c];
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(E, Eigen::EigenvaluesOnly);
  const Eigen::Vector3d l = eig.eigenvalues();  // ascending
  const std::string moments = " (principal moments " + fmt(l[0]) + ", " + fmt(l[1]) + ", " + fmt(l[2]) + " kg m^2)";
  if (!(l[0] > 0)) throw UrdfError(where + ": inertia is not positive definite" + moments);
  if (l[0] + l[1] < l[2] * (1.0 - kTriangleTol)) {
    throw UrdfError(where + ": inertia violates the triangle inequality I1 + I2 >= I3 of principal moments" + moments);
  }
}

}  // namespace simphant::urdf_detail

namespace simphant {

void add_point_mass(ReducedLink& link, double mass, const Vec3d& com_L) {
  if (!(mass > 0)) return;  // nothing to weld (and no 0 / 0 CoM on a massless link)
  const urdf_detail::MassProps welded =
      urdf_detail::combine_mass({link.mass, link.com, link.inertia_com}, {mass, com_L, Mat3d{}});
  link.mass = welded.mass;
  link.com = welded.com;
  link.inertia_com = welded.inertia;
}

}  // namespace simphant
