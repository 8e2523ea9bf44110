// The joint force law (reduced/joint_forces.hpp; docs/robots.md, "Actuators, limits,
// damping and friction") against its closed forms, every branch, in fp64 and fp32: the
// actuator modes, the effort clamp, the velocity cut, viscous damping, smoothed Coulomb
// friction (value, oddness, slope at rest by finite differences, saturation) and the
// one-sided limit spring-damper (push, never pull); joint_law_branch, the side of the
// laws' discontinuities that forward sensitivities watch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "simphant/reduced/joint_forces.hpp"

namespace simphant {
namespace {

template <class T>
class JointForces : public ::testing::Test {
 protected:
  // A few ulps of the values compared (|values| <= ~100): exact formulas evaluated in
  // another order than the law's differ by rounding only.
  static T tol() { return T(64) * std::numeric_limits<T>::epsilon() * T(100); }
};
using Scalars = ::testing::Types<double, float>;
TYPED_TEST_SUITE(JointForces, Scalars);

TYPED_TEST(JointForces, PlainJointIsATorqueInputWithoutPassiveForces) {
  using T = TypeParam;
  const RobotJointParams<T> p = plain_joint_params<T>();
  EXPECT_EQ(p.mode, static_cast<int>(ActuatorMode::Torque));
  EXPECT_EQ(p.limited, 0);
  EXPECT_EQ(p.mimic, -1);
  EXPECT_EQ(p.mimic_multiplier, T(1));
  EXPECT_EQ(p.mimic_offset, T(0));
  EXPECT_EQ(p.stiffness, T(0));
  EXPECT_GT(p.friction_velocity, T(0));  // the tanh argument is finite even with friction 0
  for (T u : {T(-3.5), T(0), T(2.25)}) {
    EXPECT_EQ(joint_actuator_force(p, u, T(10), T(-40)), u);
    EXPECT_EQ(joint_passive_force(p, T(10), T(-40)), T(0));
    EXPECT_EQ(joint_applied_force(p, u, T(10), T(-40)), u);
  }
}

TYPED_TEST(JointForces, PositionServoIsKpErrorMinusKdRate) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.mode = static_cast<int>(ActuatorMode::Position);
  p.kp = T(100);
  p.kd = T(3);
  // 100 (0.5 - 0.2) - 3 (-1) = 33
  EXPECT_NEAR(joint_actuator_force(p, T(0.5), T(0.2), T(-1)), T(33), this->tol());
  // At the target and at rest: no force; the rate alone: -kd qd.
  EXPECT_EQ(joint_actuator_force(p, T(0.7), T(0.7), T(0)), T(0));
  EXPECT_NEAR(joint_actuator_force(p, T(0.7), T(0.7), T(2)), T(-6), this->tol());
}

TYPED_TEST(JointForces, VelocityServoIsKdRateError) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.mode = static_cast<int>(ActuatorMode::Velocity);
  p.kp = T(1000);  // not read by a velocity servo
  p.kd = T(4);
  // 4 (1.5 - (-0.5)) = 8, whatever q is
  EXPECT_NEAR(joint_actuator_force(p, T(1.5), T(-7), T(-0.5)), T(8), this->tol());
  EXPECT_NEAR(joint_actuator_force(p, T(1.5), T(3), T(-0.5)), T(8), this->tol());
  EXPECT_EQ(joint_actuator_force(p, T(1.5), T(3), T(1.5)), T(0));
}

TYPED_TEST(JointForces, EffortClampsTheActuatorOnlyWhenPositive) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.effort = T(12);
  EXPECT_EQ(joint_actuator_force(p, T(30), T(0), T(0)), T(12));
  EXPECT_EQ(joint_actuator_force(p, T(-30), T(0), T(0)), T(-12));
  EXPECT_EQ(joint_actuator_force(p, T(11.5), T(0), T(0)), T(11.5));
  EXPECT_EQ(joint_actuator_force(p, T(-12), T(0), T(0)), T(-12));
  // A servo's output is clamped too: 100 (1 - 0) = 100 -> 12.
  p.mode = static_cast<int>(ActuatorMode::Position);
  p.kp = T(100);
  EXPECT_EQ(joint_actuator_force(p, T(1), T(0), T(0)), T(12));
  // effort <= 0: no clamp.
  for (T e : {T(0), T(-5)}) {
    p.effort = e;
    EXPECT_EQ(joint_actuator_force(p, T(1), T(0), T(0)), T(100));
  }
  // The clamp does not touch the passive forces.
  p = plain_joint_params<T>();
  p.effort = T(1);
  p.damping = T(10);
  EXPECT_NEAR(joint_applied_force(p, T(0), T(0), T(2)), T(-20), this->tol());
}

TYPED_TEST(JointForces, VelocityLimitCutsOnlyAForceDrivingFurtherOut) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.velocity = T(2);
  // At or beyond +limit: a positive force is cut, a negative one (braking) kept.
  EXPECT_EQ(joint_actuator_force(p, T(5), T(0), T(2)), T(0));
  EXPECT_EQ(joint_actuator_force(p, T(5), T(0), T(3)), T(0));
  EXPECT_EQ(joint_actuator_force(p, T(-5), T(0), T(3)), T(-5));
  // At or beyond -limit: the mirror image.
  EXPECT_EQ(joint_actuator_force(p, T(-5), T(0), T(-2)), T(0));
  EXPECT_EQ(joint_actuator_force(p, T(-5), T(0), T(-3)), T(0));
  EXPECT_EQ(joint_actuator_force(p, T(5), T(0), T(-3)), T(5));
  // Inside the limit: untouched.
  EXPECT_EQ(joint_actuator_force(p, T(5), T(0), T(1.99)), T(5));
  EXPECT_EQ(joint_actuator_force(p, T(-5), T(0), T(-1.99)), T(-5));
  // velocity <= 0: no limit.
  for (T v : {T(0), T(-1)}) {
    p.velocity = v;
    EXPECT_EQ(joint_actuator_force(p, T(5), T(0), T(100)), T(5));
  }
  // The cut acts on the clamped servo output: kd (u - qd) = 4 (10 - 3) = 28 -> 12 -> cut at qd = 3 >= 2.
  p.velocity = T(2);
  p.effort = T(12);
  p.mode = static_cast<int>(ActuatorMode::Velocity);
  p.kd = T(4);
  EXPECT_EQ(joint_actuator_force(p, T(10), T(0), T(3)), T(0));
  EXPECT_EQ(joint_actuator_force(p, T(10), T(0), T(1)), T(12));
  EXPECT_EQ(joint_actuator_force(p, T(0), T(0), T(3)), T(-12));  // braking: 4 (0 - 3) = -12 kept
}

TYPED_TEST(JointForces, TheBranchOfTheDiscontinuousLawsNamesTheCutAndADampedLimit) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  EXPECT_EQ(joint_law_branch(p, T(5), T(0), T(100)), 0);  // no velocity limit, no limits
  p.velocity = T(2);
  // The cut acts exactly where joint_actuator_force returns 0 for a nonzero force.
  for (T u : {T(5), T(-5)})
    for (T qd : {T(-3), T(-2), T(-1.99), T(0), T(1.99), T(2), T(3)}) {
      const bool cut = joint_actuator_force(p, u, T(0), qd) == T(0);
      EXPECT_EQ(joint_law_branch(p, u, T(0), qd) & 1, cut ? 1 : 0) << "u " << u << " qd " << qd;
      EXPECT_EQ((joint_law_branch(p, u, T(0), qd) & 8) != 0, std::abs(qd) >= T(2)) << "qd " << qd;
    }
  EXPECT_EQ(joint_law_branch(p, T(0), T(0), T(3)), 8);  // beyond the limit, a zero force: nothing to cut
  // A limit without damping is continuous (a kink): no bit. With damping: below 2, above 4.
  p.limited = 1;
  p.lower = T(-1);
  p.upper = T(1);
  p.limit_stiffness = T(100);
  EXPECT_EQ(joint_law_branch(p, T(0), T(-1.5), T(0)), 0);
  p.limit_damping = T(3);
  EXPECT_EQ(joint_law_branch(p, T(0), T(-1.5), T(0)), 2);
  EXPECT_EQ(joint_law_branch(p, T(0), T(0), T(0)), 0);
  EXPECT_EQ(joint_law_branch(p, T(0), T(1.5), T(0)), 4);
  EXPECT_EQ(joint_law_branch(p, T(5), T(1.5), T(3)), 13);  // cut, beyond the velocity limit, above the limit
  // Entering the damped limit at rate qd starts the push at limit_damping |qd|: the jump
  // that a change of the branch marks.
  const T qd = T(0.5);
  EXPECT_EQ(joint_passive_force(p, T(1), qd), T(0));
  EXPECT_NEAR(joint_passive_force(p, T(1) + T(1e-6), qd), -T(3) * qd, T(1e-3));
}

TYPED_TEST(JointForces, AJumpIsADampedLimitEnteredOrTheCutSwitchingAtTheVelocityLimit) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.velocity = T(2);
  p.limited = 1;
  p.lower = T(-1);
  p.upper = T(1);
  p.limit_stiffness = T(100);
  p.limit_damping = T(3);
  const auto branch = [&p](T u, T q, T qd) { return joint_law_branch(p, u, q, qd); };
  // Entering the upper limit at qd = 0.5 jumps (the push starts at -3 qd); leaving it, the
  // push having fallen to max(0, .) = 0, does not.
  EXPECT_TRUE(joint_law_jumps(branch(T(0), T(0.99), T(0.5)), branch(T(0), T(1.01), T(0.5))));
  EXPECT_FALSE(joint_law_jumps(branch(T(0), T(1.01), T(-0.5)), branch(T(0), T(0.99), T(-0.5))));
  EXPECT_TRUE(joint_law_jumps(branch(T(0), T(-0.99), T(-0.5)), branch(T(0), T(-1.01), T(-0.5))));
  // The cut switching as qd crosses the limit with a force of 5 jumps, both ways; the cut
  // switching as the force changes sign beyond the limit does not (it passes 0).
  EXPECT_TRUE(joint_law_jumps(branch(T(5), T(0), T(1.9)), branch(T(5), T(0), T(2.1))));
  EXPECT_TRUE(joint_law_jumps(branch(T(5), T(0), T(2.1)), branch(T(5), T(0), T(1.9))));
  EXPECT_FALSE(joint_law_jumps(branch(T(5), T(0), T(2.1)), branch(T(-5), T(0), T(2.1))));
  // Crossing the velocity limit with a force that brakes: no cut either side, no jump.
  EXPECT_FALSE(joint_law_jumps(branch(T(-5), T(0), T(1.9)), branch(T(-5), T(0), T(2.1))));
  // The same branch: no jump.
  EXPECT_FALSE(joint_law_jumps(branch(T(5), T(1.5), T(3)), branch(T(5), T(1.5), T(3))));
}

TYPED_TEST(JointForces, DampingIsViscous) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.damping = T(0.3);
  for (T qd : {T(-4), T(0), T(0.25), T(7)}) EXPECT_NEAR(joint_passive_force(p, T(1), qd), -T(0.3) * qd, this->tol());
  // Not clamped by the effort, not cut by the velocity limit.
  p.effort = T(0.01);
  p.velocity = T(0.1);
  EXPECT_NEAR(joint_applied_force(p, T(0), T(1), T(7)), T(-2.1), this->tol());
}

TYPED_TEST(JointForces, SpringPullsTowardItsRestCoordinateInBothDirections) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.stiffness = T(240);
  p.spring_q = T(0.25);
  // -240 (q - 0.25): a linear spring about 0.25, independent of the rate
  EXPECT_NEAR(joint_passive_force(p, T(0.75), T(3)), T(-120), this->tol() * T(120));
  EXPECT_NEAR(joint_passive_force(p, T(-0.25), T(-3)), T(120), this->tol() * T(120));
  EXPECT_EQ(joint_passive_force(p, T(0.25), T(5)), T(0));
  p.damping = T(2);  // with damping: the two add
  EXPECT_NEAR(joint_passive_force(p, T(0.75), T(3)), T(-126), this->tol() * T(126));
}

TYPED_TEST(JointForces, CoulombFrictionIsASmoothedSign) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.friction = T(2);
  p.friction_velocity = T(0.01);
  // -F tanh(qd / v_f): closed form, odd, zero at rest.
  for (T qd : {T(-0.03), T(-0.005), T(0.001), T(0.02)})
    EXPECT_NEAR(joint_passive_force(p, T(0), qd), -T(2) * std::tanh(qd / T(0.01)), this->tol());
  EXPECT_EQ(joint_passive_force(p, T(0), T(0)), T(0));
  EXPECT_EQ(joint_passive_force(p, T(0), T(0.004)), -joint_passive_force(p, T(0), T(-0.004)));
  // Saturates at -F sign(qd) well beyond v_f (tanh(100) = 1 in both precisions).
  EXPECT_EQ(joint_passive_force(p, T(0), T(1)), T(-2));
  EXPECT_EQ(joint_passive_force(p, T(0), T(-1)), T(2));
  // Slope at rest -F / v_f = -200, by a central difference (truncation h^2 F / (3 v_f^3) / ...:
  // h = 1e-5 v_f leaves ~1e-10 relative, below fp32's rounding of the difference).
  const double h = 1e-7;
  RobotJointParams<double> pd = plain_joint_params<double>();
  pd.friction = 2;
  pd.friction_velocity = 0.01;
  const double slope = (joint_passive_force(pd, 0.0, h) - joint_passive_force(pd, 0.0, -h)) / (2 * h);
  EXPECT_NEAR(slope, -200.0, 1e-6);
  // friction 0: no term, whatever friction_velocity is.
  p.friction = T(0);
  EXPECT_EQ(joint_passive_force(p, T(0), T(0.004)), T(0));
}

TYPED_TEST(JointForces, LimitSpringDamperPushesAndNeverPulls) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.limited = 1;
  p.lower = T(-1);
  p.upper = T(2);
  p.limit_stiffness = T(1000);
  p.limit_damping = T(20);
  // Inside [lower, upper] and on the bounds: nothing, at any rate.
  for (T q : {T(-1), T(0), T(2)})
    for (T qd : {T(-5), T(0), T(5)}) EXPECT_EQ(joint_passive_force(p, q, qd), T(0));
  // Below lower: k (lower - q) - c qd = 1000 * 0.01 - 20 qd.
  EXPECT_NEAR(joint_passive_force(p, T(-1.01), T(0)), T(10), this->tol());
  EXPECT_NEAR(joint_passive_force(p, T(-1.01), T(-0.5)), T(20), this->tol());   // moving in: more push
  EXPECT_NEAR(joint_passive_force(p, T(-1.01), T(0.25)), T(5), this->tol());    // moving out: less
  EXPECT_NEAR(joint_passive_force(p, T(-1.01), T(0.5)), T(0), this->tol());     // 10 - 10: zero
  EXPECT_EQ(joint_passive_force(p, T(-1.01), T(3)), T(0));                      // 10 - 60 < 0: no pull
  // Above upper: k (upper - q) - c qd, only when negative.
  EXPECT_NEAR(joint_passive_force(p, T(2.02), T(0)), T(-20), this->tol());
  EXPECT_NEAR(joint_passive_force(p, T(2.02), T(0.5)), T(-30), this->tol());
  EXPECT_NEAR(joint_passive_force(p, T(2.02), T(-0.5)), T(-10), this->tol());
  EXPECT_EQ(joint_passive_force(p, T(2.02), T(-3)), T(0));
  // limited = 0: the bounds are ignored.
  p.limited = 0;
  EXPECT_EQ(joint_passive_force(p, T(-5), T(0)), T(0));
  EXPECT_EQ(joint_passive_force(p, T(5), T(0)), T(0));
}

TYPED_TEST(JointForces, AppliedForceSumsActuatorAndPassiveTerms) {
  using T = TypeParam;
  RobotJointParams<T> p = plain_joint_params<T>();
  p.mode = static_cast<int>(ActuatorMode::Position);
  p.kp = T(50);
  p.kd = T(2);
  p.effort = T(8);
  p.damping = T(0.5);
  p.friction = T(1);
  p.friction_velocity = T(0.1);
  p.limited = 1;
  p.lower = T(0);
  p.upper = T(1);
  p.limit_stiffness = T(400);
  p.limit_damping = T(4);
  const T u = T(0.9), q = T(1.05), qd = T(0.2);
  // actuator 50 (0.9 - 1.05) - 2 (0.2) = -7.9 (inside the effort);
  // passive -0.5 (0.2) - tanh(2) + min(0, 400 (1 - 1.05) - 4 (0.2)) = -0.1 - tanh 2 - 20.8
  const double expected = -7.9 - 0.1 - std::tanh(2.0) - 20.8;
  EXPECT_NEAR(double(joint_applied_force(p, u, q, qd)), expected, double(this->tol()));
  EXPECT_EQ(joint_applied_force(p, u, q, qd), joint_actuator_force(p, u, q, qd) + joint_passive_force(p, q, qd));
}

}  // namespace
}  // namespace simphant
