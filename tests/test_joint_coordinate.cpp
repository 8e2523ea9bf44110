// Joint coordinate rows (joints/joint_coordinate.hpp): the Jacobian row against central
// differences of the value, the rate against the time derivative of the value, gamma
// against finite differences of Phi_q qdot along a motion with zero generalised
// acceleration (coord_ddot = -gamma there), at seeded random states and frames (the
// joint's own constraints violated), either side on ground; the angle equals atan2((a_i x a_j) . v_i, a_i . a_j);
// the driver row's wrap, Phi_dot and gamma; the mimic row (four sides, or three with a
// shared body) against central differences of its Phi.
#include <gtest/gtest.h>

#include <array>
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

struct MimicEval {
  JointRows<double> rows{};
  double leader_jac[12] = {};
};

// Phi = q_f - r q_l - o of the mimic row at the four sides (the follower's Bfi, Bfj and the
// leader's Bli, Blj), each angle read about its q_ref.
MimicEval mimic_eval(JointCoordinate cf, JointCoordinate cl, const JointFrame<double>& ff, const JointFrame<double>& fl,
                     const Side (&s)[4], double r, double o, double q_ref, double leader_q_ref) {
  MimicEval e;
  mimic_row(cf, ff, s[0].kin(), s[1].kin(), cl, fl, s[2].kin(), s[3].kin(), r, o, q_ref, leader_q_ref, e.rows,
            e.leader_jac);
  return e;
}

// The mimic row's 24 Jacobian columns, Phi_dot and gamma against central differences of
// Phi (tolerances as above), for every pair of coordinates, four independent sides and
// three sides where the follower's body_i is the leader's body_i (a gripper's hand: the
// shared body's columns then sum, which the differences of the shared body check). Phi
// itself is the composition of the coordinates read about their q_ref.
TEST(Coordinate, MimicRowMatchesFiniteDifferences) {
  std::mt19937_64 g(777);
  int used = 0;
  for (int trial = 0; trial < 400 && used < 80; ++trial) {
    const JointCoordinate cf = trial % 2 ? JointCoordinate::Slide : JointCoordinate::Angle;
    const JointCoordinate cl = (trial / 2) % 2 ? JointCoordinate::Slide : JointCoordinate::Angle;
    const bool shared = trial % 3 == 0;
    const JointFrame<double> ff = test::random_frame(g), fl = test::random_frame(g);
    Side s[4] = {random_side(g, false), random_side(g, false), random_side(g, false), random_side(g, false)};
    if (shared) s[2] = s[0];
    const auto usable = [&](const Side (&x)[4]) {
      return (cf == JointCoordinate::Slide || angle_usable(ff, x[0], x[1])) &&
             (cl == JointCoordinate::Slide || angle_usable(fl, x[2], x[3]));
    };
    const auto moved = [&](double h) {
      Side m[4] = {s[0].moved(h), s[1].moved(h), s[2].moved(h), s[3].moved(h)};
      if (shared) m[2] = m[0];
      return std::array<Side, 4>{m[0], m[1], m[2], m[3]};
    };
    const std::array<Side, 4> mp = moved(0.01), mm = moved(-0.01);
    const Side up[4] = {mp[0], mp[1], mp[2], mp[3]}, dn[4] = {mm[0], mm[1], mm[2], mm[3]};
    if (!usable(s) || !usable(up) || !usable(dn)) continue;
    ++used;
    const double r = -1.7, o = 0.3;
    // Wrap centres near each angle, so that q_ref + wrap(theta - q_ref) is theta + 2 pi k
    // with k != 0 for some trials.
    const double qf_ref = eval(cf, ff, s[0], s[1]).value + (trial % 5 == 0 ? 2 * M_PI : 0.2);
    const double ql_ref = eval(cl, fl, s[2], s[3]).value + (trial % 7 == 0 ? -2 * M_PI : -0.3);
    const MimicEval R = mimic_eval(cf, cl, ff, fl, s, r, o, qf_ref, ql_ref);
    ASSERT_EQ(R.rows.m, 1);
    const double qf = coordinate_about(cf, eval(cf, ff, s[0], s[1]).value, qf_ref);
    const double ql = coordinate_about(cl, eval(cl, fl, s[2], s[3]).value, ql_ref);
    EXPECT_NEAR(R.rows.phi[0], qf - r * ql - o, 1e-14);
    // Column c of side k: the follower's 12 in rows.jac[0], the leader's in leader_jac.
    const auto column = [&](int k, int c) { return k < 2 ? R.rows.jac[0][6 * k + c] : R.leader_jac[6 * (k - 2) + c]; };
    for (int k = 0; k < 4; ++k) {
      if (shared && k == 2) continue;  // the same body as side 0
      for (int c = 0; c < 6; ++c) {
        Side p[4] = {s[0], s[1], s[2], s[3]}, m[4] = {s[0], s[1], s[2], s[3]};
        p[k] = s[k].perturbed(c, kH);
        m[k] = s[k].perturbed(c, -kH);
        if (shared && k == 0) {
          p[2] = p[0];
          m[2] = m[0];
        }
        const double fd = (mimic_eval(cf, cl, ff, fl, p, r, o, qf_ref, ql_ref).rows.phi[0] -
                           mimic_eval(cf, cl, ff, fl, m, r, o, qf_ref, ql_ref).rows.phi[0]) /
                          (2 * kH);
        const double col = column(k, c) + (shared && k == 0 ? column(2, c) : 0.0);
        EXPECT_NEAR(col, fd, 3 * kTol) << "side " << k << " col " << c << " trial " << trial;
      }
    }
    const std::array<Side, 4> hp = moved(kH), hm = moved(-kH);
    const Side P4[4] = {hp[0], hp[1], hp[2], hp[3]}, M4[4] = {hm[0], hm[1], hm[2], hm[3]};
    const MimicEval P = mimic_eval(cf, cl, ff, fl, P4, r, o, qf_ref, ql_ref);
    const MimicEval M = mimic_eval(cf, cl, ff, fl, M4, r, o, qf_ref, ql_ref);
    EXPECT_NEAR(R.rows.phi_dot[0], (P.rows.phi[0] - M.rows.phi[0]) / (2 * kH), 3 * kTol) << "trial " << trial;
    EXPECT_NEAR(R.rows.gamma[0], -(P.rows.phi_dot[0] - M.rows.phi_dot[0]) / (2 * kH), 30 * kTol) << "trial " << trial;
  }
  EXPECT_GE(used, 60);
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
