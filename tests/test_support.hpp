#pragma once
// Helpers shared by the tests: seeded random states and frames, and small models built
// directly in C++ (without the scene parser).
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "simphant/joints/joint_math.hpp"
#include "simphant/model/model.hpp"

namespace simphant::test {

inline Vec3d random_vec(std::mt19937_64& g, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return {u(g), u(g), u(g)};
}

inline Quatd random_quat(std::mt19937_64& g) {
  std::normal_distribution<double> n(0.0, 1.0);
  return normalized(Quatd{n(g), n(g), n(g), n(g)});
}

/// The change from angle `prev` to angle `next` [rad], both in (-pi, pi], taken in
/// (-pi, pi]: summing it unwraps an angle sampled often enough.
inline double angle_step(double prev, double next) {
  double da = next - prev;
  if (da > M_PI) da -= 2 * M_PI;
  if (da < -M_PI) da += 2 * M_PI;
  return da;
}

/// A random right-handed orthonormal triad (v = z, a = x, b = y = v x a), body frame.
inline void random_triad(std::mt19937_64& g, Vec3d& v, Vec3d& a, Vec3d& b) {
  const Mat3d R = rotation(random_quat(g));
  a = {R.m[0][0], R.m[1][0], R.m[2][0]};
  b = {R.m[0][1], R.m[1][1], R.m[2][1]};
  v = {R.m[0][2], R.m[1][2], R.m[2][2]};
}

inline JointFrame<double> random_frame(std::mt19937_64& g) {
  JointFrame<double> f;
  f.u_i = random_vec(g, 0.5);
  f.u_j = random_vec(g, 0.5);
  random_triad(g, f.v_i, f.a_i, f.b_i);
  random_triad(g, f.v_j, f.a_j, f.b_j);
  return f;
}

/// A body with a random SPD inertia (principal moments in [0.5, 1.5], rotated).
inline Body random_body(std::mt19937_64& g, const std::string& name) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  Body b;
  b.name = name;
  b.mass = u(g);
  const Mat3d R = rotation(random_quat(g));
  const double I[3] = {u(g), u(g), u(g)};
  const double Imax = std::max({I[0], I[1], I[2]});
  const double d[3] = {I[0] + Imax, I[1] + Imax, I[2] + Imax};  // satisfies the triangle inequality
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += R.m[r][k] * d[k] * R.m[c][k];
      b.inertia_B.m[r][c] = s;
    }
  // inverse: R diag(1/d) R^T
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += R.m[r][k] / d[k] * R.m[c][k];
      b.inertia_inv_B.m[r][c] = s;
    }
  b.r0_W = random_vec(g);
  b.p0 = random_quat(g);
  b.v0_W = random_vec(g);
  b.omega0_B = random_vec(g, 2.0);
  return b;
}

/// A body at rest at r with principal moments I (body axes), mass m.
inline Body principal_body(const std::string& name, double mass, const Vec3d& I, const Vec3d& r) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia_B = {{{I.x, 0, 0}, {0, I.y, 0}, {0, 0, I.z}}};
  b.inertia_inv_B = {{{1 / I.x, 0, 0}, {0, 1 / I.y, 0}, {0, 0, 1 / I.z}}};
  b.r0_W = r;
  return b;
}

/// A chain of random bodies joined by joints of the given types (first to ground).
/// The state is random and does not satisfy Phi = 0: fine for algebraic tests.
inline Model random_chain(std::mt19937_64& g, const std::vector<JointType>& types) {
  Model m;
  m.gravity = {0, 0, -9.81};
  int row = 0;
  for (size_t k = 0; k < types.size(); ++k) {
    m.bodies.push_back(random_body(g, "b" + std::to_string(k)));
    Joint j;
    j.name = "j" + std::to_string(k);
    j.type = types[k];
    j.body_i = static_cast<int>(k) - 1;
    j.body_j = static_cast<int>(k);
    j.frame = random_frame(g);
    j.row_offset = row;
    row += joint_rows(j.type);
    m.joints.push_back(j);
  }
  m.n_rows = row;
  return m;
}

}  // namespace simphant::test

namespace simphant::test {

/// Local joint frames of joint j from one world frame (origin O, triad z, x, y) at the
/// bodies' initial poses: Phi = 0 at the initial state.
inline JointFrame<double> frame_from_world(const Model& m, int bi, int bj, const Vec3d& O, const Vec3d& z,
                                           const Vec3d& x, const Vec3d& y) {
  auto local = [&](int k, Vec3d& u, Vec3d& v, Vec3d& a, Vec3d& b) {
    const Mat3d A = k >= 0 ? rotation(m.bodies[k].p0) : identity3<double>();
    const Vec3d r = k >= 0 ? m.bodies[k].r0_W : zero3<double>();
    u = mul_t(A, O - r); v = mul_t(A, z); a = mul_t(A, x); b = mul_t(A, y);
  };
  JointFrame<double> f;
  local(bi, f.u_i, f.v_i, f.a_i, f.b_i);
  local(bj, f.u_j, f.v_j, f.a_j, f.b_j);
  return f;
}

/// A random chain whose joints are consistent at the initial state (Phi = 0); the
/// random initial velocities are not (assembly projects them).
inline Model consistent_chain(std::mt19937_64& g, const std::vector<JointType>& types) {
  Model m = random_chain(g, types);
  for (Joint& j : m.joints) {
    Vec3d z, x, y;
    random_triad(g, z, x, y);
    j.frame = frame_from_world(m, j.body_i, j.body_j, random_vec(g), z, x, y);
  }
  return m;
}

}  // namespace simphant::test
