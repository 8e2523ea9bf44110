#pragma once
// The per-joint force parameters of a robot scene (reduced/joint_forces.hpp) derived from
// its URDF values, the scene's `robot.servos`, `robot.urdf_dynamics` and
// `robot.friction_velocity`, and the step dt (docs/robots.md, "Actuators, limits, damping
// and friction" and "Servos"):
//
//  - position limits: a one-sided spring-damper with stiffness I_k omega^2 and damping
//    2 I_k omega (critical), omega = kLimitOmegaDt / dt, I_k the smallest effective
//    inertia 1 / (M^-1)_kk found over q0 and sampled configurations
//    (joint_inertia_lower_bound; a floating base free). At I_k the linearised contact
//    mode s^2 + 2 omega s + omega^2 has the double root -omega, |lambda| dt = 0.5: 5.6
//    times inside RK4's real-axis limit 2.785; where the joint is heavier the mode is
//    slower (underdamped, |lambda| = omega sqrt(I_k / I)). An MJCF joint's solreflimit
//    (time constant tc, damping ratio zeta; ReducedLink::limit_time_constant) asks for the
//    softer mode of MuJoCo's limit constraint, omega = 1 / (tc zeta) with damping ratio
//    zeta, wherever its fastest root, omega (zeta + sqrt(zeta^2 - 1)) (omega for
//    zeta <= 1), lies within kLimitOmegaDt / dt (limit_mode), with the scene's
//    robot.limit_law "solreflimit".
//  - Coulomb friction: friction_velocity raised so that the smoothed law's slope at rest,
//    friction / friction_velocity, keeps (friction / friction_velocity) dt / I_k <=
//    kFrictionSlopeDt (a pure damping mode, real lambda, |lambda| dt <= 0.5).
//  - effort, velocity, damping, friction, mimic: the URDF values as read (the DAE holds a
//    mimic as a constraint row: model/robot_joint_laws.hpp).
//  - stiffness, spring_q: an MJCF joint spring as read, always (part of the model).
#include <string>
#include <vector>

#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// omega dt of the position-limit spring-damper (critically damped).
constexpr double kLimitOmegaDt = 0.5;
/// The limit law's natural frequency omega [1/s] and damping ratio of a joint at step dt
/// (see the header's comment): the step's critical mode (kLimitOmegaDt / dt, 1), or the
/// link's solreflimit mode (1 / (tc zeta), zeta) where that is no faster.
struct LimitMode {
  double omega = 0, damping_ratio = 1;
};
/// solreflimit false (robot.limit_law "step"): the step's mode for every joint.
LimitMode limit_mode(const ReducedLink& link, double dt, bool solreflimit);

/// Largest (friction / friction_velocity) dt / I_k: the Coulomb law's slope at rest.
constexpr double kFrictionSlopeDt = 0.5;
/// Default robot.friction_velocity [rad/s | m/s]: the Coulomb law reaches tanh(1) = 76 %
/// of the friction force at this rate.
constexpr double kDefaultFrictionVelocity = 0.01;

/// Which URDF joint values the scene uses (robot.urdf_dynamics; all true by default).
struct UrdfDynamicsUse {
  bool limits = true;    ///< position limits (spring-damper)
  /// The limits' mode from an MJCF file's solreflimit (robot.limit_law "solreflimit");
  /// false: the step's mode.
  bool solreflimit = false;
  /// The effort clamp and velocity cut: a URDF robot's with its limits (urdf_dynamics
  /// "limits" turns off all three); an MJCF robot's always (the bounds of its actuators,
  /// robot.actuators "mjcf", which MuJoCo's limit flag does not switch off either).
  bool effort = true;
  bool damping = true;   ///< <dynamics damping>
  bool friction = true;  ///< <dynamics friction>
  bool mimic = true;     ///< <mimic>
};

/// A servo of robot.servos (ActuatorMode Position or Velocity).
struct ServoSpec {
  int joint = -1;  ///< index of the moving joint
  ActuatorMode mode = ActuatorMode::Position;
  double kp = 0;   ///< [N m/rad | N/m], position servos only
  double kd = 0;   ///< [N m s/rad | N s/m]
};

/// Effective inertia I_k = 1 / (M(q)^-1)_kk [kg m^2 | kg] of every moving joint of `rm`
/// at q (n = rm.nq() entries): the inertia the joint alone feels when every other joint
/// is free, and with a floating base (rm.floating) the base free too (M the (6 + n) mass
/// matrix; never more than the fixed-base value). M includes the joints' armatures
/// (ReducedLink::armature), so a joint's own adds to I_k. Throws std::invalid_argument naming
/// the joint when the fixed-base M(q) (CRBA) is not positive definite (a joint that
/// moves no mass).
std::vector<double> joint_effective_inertia(const ReducedModel& rm, const std::vector<double>& q);

/// Configurations sampled by joint_inertia_lower_bound.
constexpr int kInertiaSamples = 64;

/// Per joint the smallest effective inertia [kg m^2 | kg] over q0 and kInertiaSamples
/// pseudo-random configurations (each joint uniform in [lower, upper], or [-pi, pi]
/// without position limits; a fixed std::mt19937_64 sequence, so the same on every
/// platform): an estimate from above of the lightest the joint gets in the motion (a
/// robot's effective inertias vary up to ~30-fold over its workspace; Panda's joint 3
/// and Solo-12's HAA joints at their q0 = 0 measured with Pinocchio over 2000
/// configurations). Samples where M is singular are skipped. Errors as
/// joint_effective_inertia at q0.
std::vector<double> joint_inertia_lower_bound(const ReducedModel& rm, const std::vector<double>& q0);

/// The joint parameters of every moving joint of `rm`: plain_joint_params, then the URDF
/// values selected by `use`, the servos, limit gains and friction_velocity floor from
/// I_k (joint_inertia_lower_bound) and dt as the header says.
/// friction_velocity > 0, dt > 0.
std::vector<RobotJointParams<double>> derive_joint_params(const ReducedModel& rm, const std::vector<double>& I_k,
                                                          const UrdfDynamicsUse& use,
                                                          const std::vector<ServoSpec>& servos,
                                                          double friction_velocity, double dt);

}  // namespace simphant
