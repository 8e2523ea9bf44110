// One side of a joint for the finite-difference checks of the joint rows
// (tests/test_joint_math.cpp, tests/test_joint_coordinate.cpp): a body's position,
// orientation and velocities, or the ground.
#pragma once

#include <random>

#include "test_support.hpp"

namespace simphant::test {

/// A body state (r, p, v, omega_B) or the ground (`ground` true; the rest unused).
struct Side {
  bool ground;
  Vec3d r, v, omega_B;
  Quatd p;
  BodyKin<double> kin() const { return ground ? ground_kin<double>() : make_body_kin(r, p, v, omega_B); }
  /// The side moved along its free motion for time t: r + v t, p exp(omega_B t).
  Side moved(double t) const {
    Side s = *this;
    if (ground) return s;
    s.r = r + t * v;
    s.p = qmul(p, quat_from_rotvec(t * omega_B));
    return s;
  }
  /// Perturbed coordinate c (0-2 translation W, 3-5 rotation about body axis c-3).
  Side perturbed(int c, double h) const {
    Side s = *this;
    if (c < 3) {
      s.r[c] += h;
    } else {
      Vec3d th = zero3<double>();
      th[c - 3] = h;
      s.p = qmul(p, quat_from_rotvec(th));
    }
    return s;
  }
};

/// The ground as a side.
inline Side ground_side() { return Side{true, zero3<double>(), zero3<double>(), zero3<double>(), Quatd{1, 0, 0, 0}}; }

/// A random body side (angular velocity scale 2 rad/s), or the ground when `ground`; the
/// body state is drawn either way, so later draws from g do not depend on `ground`.
inline Side random_side(std::mt19937_64& g, bool ground) {
  const Side s{false, random_vec(g), random_vec(g), random_vec(g, 2.0), random_quat(g)};
  return ground ? ground_side() : s;
}

}  // namespace simphant::test
