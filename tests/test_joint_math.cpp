// Every joint type's Phi_q against central finite differences of Phi, Phi_dot against
// the time derivative of Phi along the motion, and gamma against finite differences of
// Phi_dot along a motion with zero generalised acceleration (Phi_ddot = -gamma there),
// at seeded random states and frames, with either side on ground.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "simphant/joints/joint_math.hpp"
#include "body_side.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

using test::random_side;
using test::Side;

JointRows<double> eval(JointType t, const JointFrame<double>& f, const Side& i, const Side& j) {
  JointRows<double> out{};
  joint_eval(t, f, i.kin(), j.kin(), out);
  return out;
}

class JointMath : public ::testing::TestWithParam<JointType> {};

// Central differences with h = 1e-6 on quantities of size O(1): truncation error
// ~ h^2 |Phi'''| / 6 ~ 1e-12, rounding ~ eps / h ~ 1e-10. Tolerance 1e-8 leaves two
// orders of margin while a wrong sign or a missing term (O(0.1 .. 1)) fails.
constexpr double kH = 1e-6;
constexpr double kTol = 1e-8;

TEST_P(JointMath, JacobianMatchesFiniteDifferencesOfPhi) {
  const JointType type = GetParam();
  std::mt19937_64 g(1234 + static_cast<int>(type));
  for (int trial = 0; trial < 50; ++trial) {
    const bool gi = trial % 5 == 1, gj = trial % 5 == 2;
    const JointFrame<double> f = test::random_frame(g);
    const Side si = random_side(g, gi), sj = random_side(g, gj);
    const JointRows<double> J = eval(type, f, si, sj);
    ASSERT_EQ(J.m, joint_rows(type));
    for (int c = 0; c < 12; ++c) {
      const bool on_i = c < 6;
      if ((on_i && gi) || (!on_i && gj)) continue;
      const int cc = c % 6;
      const JointRows<double> plus = on_i ? eval(type, f, si.perturbed(cc, kH), sj) : eval(type, f, si, sj.perturbed(cc, kH));
      const JointRows<double> minus = on_i ? eval(type, f, si.perturbed(cc, -kH), sj) : eval(type, f, si, sj.perturbed(cc, -kH));
      for (int r = 0; r < J.m; ++r) {
        const double fd = (plus.phi[r] - minus.phi[r]) / (2 * kH);
        EXPECT_NEAR(J.jac[r][c], fd, kTol) << "row " << r << " col " << c << " trial " << trial;
      }
    }
  }
}

TEST_P(JointMath, PhiDotMatchesTimeDerivativeOfPhi) {
  const JointType type = GetParam();
  std::mt19937_64 g(99 + static_cast<int>(type));
  for (int trial = 0; trial < 50; ++trial) {
    const JointFrame<double> f = test::random_frame(g);
    const Side si = random_side(g, trial % 4 == 1), sj = random_side(g, trial % 4 == 2);
    const JointRows<double> J = eval(type, f, si, sj);
    const JointRows<double> plus = eval(type, f, si.moved(kH), sj.moved(kH));
    const JointRows<double> minus = eval(type, f, si.moved(-kH), sj.moved(-kH));
    for (int r = 0; r < J.m; ++r)
      EXPECT_NEAR(J.phi_dot[r], (plus.phi[r] - minus.phi[r]) / (2 * kH), kTol) << "row " << r;
  }
}

// Along r = r0 + v t, p = p0 exp(omega_B t) the velocity coordinates are constant, so
// qddot = 0 and Phi_ddot = Phi_q qddot - gamma = -gamma.
TEST_P(JointMath, GammaMatchesFiniteDifferencesOfPhiDot) {
  const JointType type = GetParam();
  std::mt19937_64 g(7 + static_cast<int>(type));
  for (int trial = 0; trial < 50; ++trial) {
    const JointFrame<double> f = test::random_frame(g);
    const Side si = random_side(g, trial % 4 == 1), sj = random_side(g, trial % 4 == 2);
    const JointRows<double> J = eval(type, f, si, sj);
    const JointRows<double> plus = eval(type, f, si.moved(kH), sj.moved(kH));
    const JointRows<double> minus = eval(type, f, si.moved(-kH), sj.moved(-kH));
    for (int r = 0; r < J.m; ++r) {
      const double phi_ddot = (plus.phi_dot[r] - minus.phi_dot[r]) / (2 * kH);
      // |omega| up to 3.5 rad/s: gamma ~ 10; scale the tolerance with it.
      EXPECT_NEAR(J.gamma[r], -phi_ddot, kTol * 10) << "row " << r << " trial " << trial;
    }
  }
}

TEST_P(JointMath, PhiVanishesWhenFramesCoincide) {
  // Both bodies' joint frames placed at the same world frame: every row is zero.
  const JointType type = GetParam();
  std::mt19937_64 g(5 + static_cast<int>(type));
  for (int trial = 0; trial < 20; ++trial) {
    Side si = random_side(g, false), sj = random_side(g, trial % 3 == 0);
    Vec3d O = test::random_vec(g), z, x, y;
    test::random_triad(g, z, x, y);
    const BodyKin<double> Bi = si.kin(), Bj = sj.kin();
    JointFrame<double> f;
    f.u_i = mul_t(Bi.A, O - Bi.r); f.v_i = mul_t(Bi.A, z); f.a_i = mul_t(Bi.A, x); f.b_i = mul_t(Bi.A, y);
    f.u_j = mul_t(Bj.A, O - Bj.r); f.v_j = mul_t(Bj.A, z); f.a_j = mul_t(Bj.A, x); f.b_j = mul_t(Bj.A, y);
    const JointRows<double> J = eval(type, f, si, sj);
    for (int r = 0; r < J.m; ++r) EXPECT_NEAR(J.phi[r], 0.0, 1e-13) << "row " << r;
  }
}

std::string ParamName(const ::testing::TestParamInfo<JointType>& p) { return joint_type_name(p.param); }

INSTANTIATE_TEST_SUITE_P(AllTypes, JointMath,
                         ::testing::Values(JointType::Spherical, JointType::Revolute, JointType::Prismatic,
                                           JointType::Cylindrical, JointType::Planar, JointType::Fixed),
                         ParamName);

TEST(Baumgarte, StabilisedGammaFollowsDesignFormula) {
  // gamma* = gamma - 2 alpha Phi_dot - beta^2 Phi (docs/solver.md, Joints).
  EXPECT_DOUBLE_EQ(baumgarte_gamma(1.0, 0.5, 0.25, 3.0, 4.0), 1.0 - 2 * 3.0 * 0.5 - 16.0 * 0.25);
}

TEST(Quaternion, RateMatchesProductWithBodyAngularVelocity) {
  std::mt19937_64 g(3);
  for (int t = 0; t < 20; ++t) {
    const Quatd p = test::random_quat(g);
    const Vec3d w = test::random_vec(g);
    const Quatd a = quat_rate(p, w);
    const Quatd b = qmul(p, Quatd{0, w.x, w.y, w.z});
    EXPECT_NEAR(a.w, 0.5 * b.w, 1e-15);
    EXPECT_NEAR(a.x, 0.5 * b.x, 1e-15);
    EXPECT_NEAR(a.y, 0.5 * b.y, 1e-15);
    EXPECT_NEAR(a.z, 0.5 * b.z, 1e-15);
  }
}

}  // namespace
}  // namespace simphant
