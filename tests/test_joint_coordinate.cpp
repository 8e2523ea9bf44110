// Joint coordinate rows (joints/joint_coordinate.hpp): the Jacobian row against central
// differences of the value, the rate against the time derivative of the value, gamma
// against finite differences of Phi_q qdot along a motion with zero generalised
// acceleration (coord_ddot = -gamma there), at seeded random states and frames (the
// joint's own constraints violated), either side on ground; the angle equals atan2((a_i x a_j) . v_i, a_i . a_j);
// the driver row's wrap, Phi_dot and gamma.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "simphant/formulas/force_math.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "body_side.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

using test::random_side;
using test::Side;

CoordinateRow<double> eval(JointCoordinate c, const JointFrame<double>& f, const Side& i, const Side& j) {
  CoordinateRow<double> out{};
  joint_coordinate_row(c, f, i.kin(), j.kin(), out);
  return out;
}

// Well-conditioned angle: a_j not close to v_i (x^2 + y^2 >= 0.1, so theta's derivatives
// are O(10) at most) and theta away from the +-pi cut of atan2.
bool angle_usable(const JointFrame<double>& f, const Side& i, const Side& j) {
  const BodyKin<double> Bi = i.kin(), Bj = j.kin();
  const Vec3d a_j = mul(Bj.A, f.a_j);
  const double x = dot(mul(Bi.A, f.a_i), a_j), y = dot(mul(Bi.A, f.b_i), a_j);
  return x * x + y * y >= 0.1 && std::abs(std::atan2(y, x)) < 3.0;
}

class Coordinate : public ::testing::TestWithParam<JointCoordinate> {};

// Central differences, h = 1e-6, values O(1), derivatives O(10) (angle with x^2 + y^2 >=
// 0.1): truncation ~ h^2 |f'''| / 6 <= 1e-10, rounding ~ eps / h ~ 1e-10; 1e-7 leaves
// three orders of margin while a wrong term (O(0.1)) fails.
constexpr double kH = 1e-6;
constexpr double kTol = 1e-7;

TEST_P(Coordinate, JacobianRateAndGammaMatchFiniteDifferences) {
  const JointCoordinate coord = GetParam();
  std::mt19937_64 g(4321 + static_cast<int>(coord));
  int used = 0;
  for (int trial = 0; trial < 200 && used < 60; ++trial) {
    const bool gi = trial % 5 == 1, gj = trial % 5 == 2;
    const JointFrame<double> f = test::random_frame(g);
    // The ground draws nothing from g here.
    const Side si = gi ? test::ground_side() : random_side(g, false);
    const Side sj = gj ? test::ground_side() : random_side(g, false);
    if (coord == JointCoordinate::Angle &&
        !(angle_usable(f, si, sj) && angle_usable(f, si.moved(0.01), sj.moved(0.01)) &&
          angle_usable(f, si.moved(-0.01), sj.moved(-0.01))))
      continue;
    ++used;
    const CoordinateRow<double> R = eval(coord, f, si, sj);
    for (int c = 0; c < 12; ++c) {
      const bool on_i = c < 6;
      if ((on_i && gi) || (!on_i && gj)) continue;
      const int cc = c % 6;
      const double vp = on_i ? eval(coord, f, si.perturbed(cc, kH), sj).value : eval(coord, f, si, sj.perturbed(cc, kH)).value;
      const double vm = on_i ? eval(coord, f, si.perturbed(cc, -kH), sj).value : eval(coord, f, si, sj.perturbed(cc, -kH)).value;
      EXPECT_NEAR(R.jac[c], (vp - vm) / (2 * kH), kTol) << "col " << c << " trial " << trial;
    }
    const CoordinateRow<double> P = eval(coord, f, si.moved(kH), sj.moved(kH));
    const CoordinateRow<double> M = eval(coord, f, si.moved(-kH), sj.moved(-kH));
    EXPECT_NEAR(R.rate, (P.value - M.value) / (2 * kH), kTol) << "trial " << trial;
    // qddot = 0 along the free motion: coord_ddot = -gamma. gamma ~ |omega|^2 ~ 10.
    EXPECT_NEAR(R.gamma, -(P.rate - M.rate) / (2 * kH), 10 * kTol) << "trial " << trial;
    // The rate is the row times qdot.
    const BodyKin<double> Bi = si.kin(), Bj = sj.kin();
    const double qd[12] = {Bi.v.x, Bi.v.y, Bi.v.z, Bi.omega_B.x, Bi.omega_B.y, Bi.omega_B.z,
                           Bj.v.x, Bj.v.y, Bj.v.z, Bj.omega_B.x, Bj.omega_B.y, Bj.omega_B.z};
    double r = 0;
    for (int c = 0; c < 12; ++c) r += R.jac[c] * qd[c];
    EXPECT_NEAR(R.rate, r, 1e-12);
    if (coord == JointCoordinate::Angle) {
      // The same angle by the other form, atan2((a_i x a_j) . v_i, a_i . a_j).
      const Vec3d a_i = mul(Bi.A, f.a_i), a_j = mul(Bj.A, f.a_j), v_i = mul(Bi.A, f.v_i);
      EXPECT_NEAR(R.value, std::atan2(dot(cross(a_i, a_j), v_i), dot(a_i, a_j)), 1e-15);
      EXPECT_EQ(R.value, coordinate_angle_value(f, Bi, Bj));
    } else {
      EXPECT_EQ(R.value, coordinate_slide_value(f, Bi, Bj));
    }
  }
  EXPECT_GE(used, 40);
}

INSTANTIATE_TEST_SUITE_P(Both, Coordinate, ::testing::Values(JointCoordinate::Angle, JointCoordinate::Slide),
                         [](const ::testing::TestParamInfo<JointCoordinate>& p) {
                           return std::string(p.param == JointCoordinate::Angle ? "angle" : "slide");
                         });

// Where the revolute's axis constraints hold (v_j = v_i, a_j in the plane), the angle
// row's rotational blocks are -A_i^T v_i and A_j^T v_j and the rate is (w_j - w_i) . v_i.
TEST(Coordinate, AngleRowOnAnAssembledRevoluteIsTheAxis) {
  std::mt19937_64 g(11);
  for (int trial = 0; trial < 20; ++trial) {
    const Side si = random_side(g, false), sj = random_side(g, false);
    Vec3d z, x, y;
    test::random_triad(g, z, x, y);
    const double th = 2.0 * (trial / 20.0) - 1.0;
    const Vec3d xj = std::cos(th) * x + std::sin(th) * y, yj = cross(z, xj);
    const BodyKin<double> Bi = si.kin(), Bj = sj.kin();
    JointFrame<double> f{};
    f.v_i = mul_t(Bi.A, z); f.a_i = mul_t(Bi.A, x); f.b_i = mul_t(Bi.A, y);
    f.v_j = mul_t(Bj.A, z); f.a_j = mul_t(Bj.A, xj); f.b_j = mul_t(Bj.A, yj);
    CoordinateRow<double> R{};
    coordinate_angle(f, Bi, Bj, R);
    EXPECT_NEAR(R.value, th, 1e-14);
    const Vec3d gi = mul_t(Bi.A, z), gj = mul_t(Bj.A, z);
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(R.jac[3 + c], -gi[c], 1e-14);
      EXPECT_NEAR(R.jac[9 + c], gj[c], 1e-14);
      EXPECT_EQ(R.jac[c], 0.0);
      EXPECT_EQ(R.jac[6 + c], 0.0);
    }
    EXPECT_NEAR(R.rate, dot(Bj.omega_W - Bi.omega_W, z), 1e-13);
  }
}

TEST(Coordinate, WrapAngleIntoHalfOpenInterval) {
  EXPECT_DOUBLE_EQ(wrap_angle(M_PI), M_PI);
  EXPECT_DOUBLE_EQ(wrap_angle(-M_PI), M_PI);
  EXPECT_NEAR(wrap_angle(3 * M_PI + 0.25), -M_PI + 0.25, 1e-14);
  EXPECT_NEAR(wrap_angle(-7.0), -7.0 + 2 * M_PI, 1e-14);
  EXPECT_DOUBLE_EQ(wrap_angle(0.5), 0.5);
}

TEST(Coordinate, DriverRowSubtractsTheLaw) {
  std::mt19937_64 g(3);
  const JointFrame<double> f = test::random_frame(g);
  const Side si = random_side(g, false), sj = random_side(g, false);
  const CoordinateRow<double> c = eval(JointCoordinate::Angle, f, si, sj);
  JointRows<double> rows{};
  const double s = c.value + 4 * M_PI + 0.1, sd = 0.7, sdd = -1.3;
  driver_row(JointCoordinate::Angle, f, si.kin(), sj.kin(), s, sd, sdd, rows, 0);
  EXPECT_NEAR(rows.phi[0], -0.1, 1e-12);
  EXPECT_DOUBLE_EQ(rows.phi_dot[0], c.rate - sd);
  EXPECT_DOUBLE_EQ(rows.gamma[0], c.gamma + sdd);
  const CoordinateRow<double> z = eval(JointCoordinate::Slide, f, si, sj);
  driver_row(JointCoordinate::Slide, f, si.kin(), sj.kin(), z.value + 10.0, sd, sdd, rows, 0);
  EXPECT_NEAR(rows.phi[0], -10.0, 1e-12);
}

TEST(Coordinate, WhichJointTypesHaveWhichCoordinate) {
  EXPECT_TRUE(joint_has_coordinate(JointType::Revolute, JointCoordinate::Angle));
  EXPECT_TRUE(joint_has_coordinate(JointType::Cylindrical, JointCoordinate::Angle));
  EXPECT_TRUE(joint_has_coordinate(JointType::Cylindrical, JointCoordinate::Slide));
  EXPECT_TRUE(joint_has_coordinate(JointType::Prismatic, JointCoordinate::Slide));
  EXPECT_FALSE(joint_has_coordinate(JointType::Prismatic, JointCoordinate::Angle));
  EXPECT_FALSE(joint_has_coordinate(JointType::Revolute, JointCoordinate::Slide));
  for (JointType t : {JointType::Spherical, JointType::Planar, JointType::Fixed})
    for (JointCoordinate c : {JointCoordinate::Angle, JointCoordinate::Slide}) EXPECT_FALSE(joint_has_coordinate(t, c));
}

}  // namespace
}  // namespace simphant
