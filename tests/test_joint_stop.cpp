// End stops on a joint coordinate (docs/contact.md, "End stops"; formulas/joint_stop.hpp):
//  - a rotor spinning into its upper stop with no other load rebounds at e times its
//    speed, for e = 0.3, 0.6 and 0.9 (the Tsuji law's restitution is exact for one body on
//    the joint), within the step's bound, and the same with the range across the angle's
//    wrap at +-pi;
//  - the coordinate rates are the derivatives of the coordinates (both bodies moving);
//  - stops between two moving bodies (discs on a hinge, blocks on a rail, free in space)
//    rebound at e with their reduced inertia or mass, the momentum conserved;
//  - a torque held against a revolute stop and a force against a prismatic stop come to
//    rest at limit + load / K;
//  - with e = 1 the energy (kinetic + the stop's potential K delta^2 / 2) is conserved,
//    with e < 1 the energy lost equals the stop's dissipated work (the power channel);
//  - a cylindrical joint's stop limits the coordinate it names;
//  - the cuda and cuda-fused per-thread sequences on the CPU grid equal the CPU reference
//    (examples/swing_arm_end_stops.json with its swept stops; a slider between two stops),
//    and so do the per-thread energy and power;
//  - the load-time check refuses a dt beyond the stop's mode, naming its stiffness, and
//    warns of a joint that starts beyond a limit and of stops too soft for the starting
//    kinetic energy;
//  - errors name the field.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "example_models.hpp"
#include "grid_reference.hpp"
#include "scene_run.hpp"
#include "simphant/formulas/joint_stop.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant {
namespace {

using json = nlohmann::json;
using test::SceneRun;

constexpr double kMass = 2.0, kArm = 0.3, kIzz = 0.02;  // I about the hinge: 0.2 kg m^2
constexpr double kHingeInertia = kIzz + kMass * kArm * kArm;
/// The rotor's initial rate [rad/s]: it reaches the stop at 0.5 / 1.9 s, between steps.
constexpr double kRate = 1.9;
constexpr double kPiTest = 3.14159265358979323846;

/// A rod on a revolute joint about world z through the origin, its CoM kArm along x, no
/// gravity, spinning at `rate` [rad/s] from angle `turn` [rad], stops at turn +- 0.5 rad.
json rotor(double K, double e, double rate, double dt, double turn = 0) {
  return {{"name", "rotor on end stops"},
          {"bodies", {{{"name", "arm"}, {"mass", kMass}, {"inertia", {0.01, 0.01, kIzz}}, {"position", {kArm, 0, 0}}}}},
          {"joints",
           {{{"name", "hinge"},
             {"type", "revolute"},
             {"body_i", "ground"},
             {"body_j", "arm"},
             {"frame", {{"origin", {0, 0, 0}}, {"z", {0, 0, 1}}, {"x", {1, 0, 0}}}},
             {"initial", {{"angle", turn}, {"rate", rate}}},
             {"limits", {{"lower", turn - 0.5}, {"upper", turn + 0.5}, {"stiffness", K}, {"restitution", e}}}}}},
          {"solver", {{"dt", dt}, {"t_end", 1.0}}}};
}

/// The coordinate (an angle read about the stops' middle) and rate of the stopped joint
/// (the model's last force element) at run's state.
void hinge_state(SceneRun& run, double& q, double& qd) {
  const ForceElement& stop = run.model.forces.back();
  const Joint& jt = run.model.joints[static_cast<std::size_t>(stop.joint)];
  set_kinematics(run.model, run.d, run.Y.data());
  const auto kin = [&run](int b) { return b >= 0 ? run.d.kin[static_cast<std::size_t>(b)] : ground_kin<double>(); };
  joint_stop_coordinate(stop.kind == ActuatorKind::Torque, jt.frame, kin(jt.body_i), kin(jt.body_j),
                        joint_stop_middle(stop.lower, stop.upper), q, qd);
}

/// Assembles run's initial state (the joints' initial rates) and evaluates it (its kinematics).
void assemble_run(SceneRun& run) {
  EXPECT_TRUE(assemble(run.model, run.d, run.Y.data()).ok);
  std::vector<double> Ydot(run.model.ny());
  evaluate(run.model, run.d, 0.0, run.Y.data(), nullptr, Ydot.data());
}

/// The rotor's rebound rate over its impact rate on the upper stop, run at dt, its range
/// turned by `turn`.
double rebound_ratio(double e, double dt, double turn = 0) {
  const double K = 1e3, w0 = kRate;  // contact time pi sqrt(I / K) = 44 ms
  SceneRun run(rotor(K, e, w0, dt, turn));
  assemble_run(run);
  double q = 0, qd = 0;
  hinge_state(run, q, qd);
  EXPECT_NEAR(q, turn, 1e-12);
  EXPECT_NEAR(qd, w0, 1e-12);
  bool entered = false;
  for (int s = 0; s < static_cast<int>(1.0 / dt); ++s) {
    if (!run.step()) return NAN;
    hinge_state(run, q, qd);
    entered = entered || q > turn + 0.5;
    if (entered && q < turn + 0.5) return -qd / w0;  // off the stop: free rotation at a constant rate
  }
  ADD_FAILURE() << "no rebound";
  return NAN;
}

TEST(JointStop, RotorReboundsWithTheRequestedRestitution) {
  const double omega_n = std::sqrt(1e3 / kHingeInertia);  // the stop's undamped rate [rad/s]
  for (const double e : {0.3, 0.6, 0.9}) {
    // Tsuji's linear law: e exact for this one body on the joint. RK4 meets the damping
    // force's jump at the onset (D qd from zero) inside a step; misplacing it by up to a
    // step changes the rate by up to D qd dt / (2 I) = zeta omega_n dt qd: first order,
    // its size depending on where in a step the impact falls. 220 and 440 steps per contact.
    const double zeta = tsuji_damping_ratio(e, 1.0);
    for (const double dt : {2e-4, 1e-4}) {
      const double ratio = rebound_ratio(e, dt);
      std::printf("e = %.1f: rebound ratio %.6f at dt = %.0e (bound on the error %.2g)\n", e, ratio, dt,
                  zeta * omega_n * dt);
      EXPECT_NEAR(ratio, e, zeta * omega_n * dt) << e << " at dt = " << dt;
    }
  }
  // The range turned by pi, across the angle's wrap at +-pi: the same impact, to rounding.
  EXPECT_NEAR(rebound_ratio(0.6, 1e-4, kPiTest), rebound_ratio(0.6, 1e-4), 1e-9);
}

// The rates joint_stop_coordinate gives are the derivatives of its coordinates, both
// bodies moving, by central differences along random motions (constant v and omega_B, the
// orientation advanced by its exponential). A slide: random joint frames. An angle: its
// rate v_i . (omega_j - omega_i) is the angle's derivative where the joint's axes stay
// aligned (as the constraint rows hold them), so body_j turns against body_i about the
// common axis z by alpha t.
TEST(JointStop, CoordinateRatesAreTheDerivativesOfTheCoordinates) {
  std::mt19937 rng(20261206);
  std::uniform_real_distribution<double> U(-1, 1);
  const auto rv = [&] { return Vec3d{U(rng), U(rng), U(rng)}; };
  const auto unit = [](const Vec3d& v) { return (1 / norm(v)) * v; };
  const auto qz = [](double a) { return Quatd{std::cos(a / 2), 0, 0, std::sin(a / 2)}; };
  const double h = 1e-5;
  for (int trial = 0; trial < 20; ++trial) {
    const Vec3d r_i = rv(), r_j = rv(), v_i = rv(), v_j = rv(), w_i = rv(), w_j = rv();
    const Quatd p_i = normalized(Quatd{U(rng), U(rng), U(rng), U(rng)});
    const Quatd p_j = normalized(Quatd{U(rng), U(rng), U(rng), U(rng)});
    const auto body_i = [&](double t) { return make_body_kin(r_i + t * v_i, qmul(p_i, quat_from_rotvec(t * w_i)), v_i, w_i); };
    double q, qd, qp, qm, unused;
    {  // slide
      JointFrame<double> f;
      for (auto [u, v, a, b] : {std::tie(f.u_i, f.v_i, f.a_i, f.b_i), std::tie(f.u_j, f.v_j, f.a_j, f.b_j)}) {
        u = rv();
        v = unit(rv());
        a = unit(cross(v, rv()));
        b = cross(v, a);
      }
      const auto body_j = [&](double t) {
        return make_body_kin(r_j + t * v_j, qmul(p_j, quat_from_rotvec(t * w_j)), v_j, w_j);
      };
      joint_stop_coordinate(false, f, body_i(0), body_j(0), 0.0, q, qd);
      joint_stop_coordinate(false, f, body_i(h), body_j(h), 0.0, qp, unused);
      joint_stop_coordinate(false, f, body_i(-h), body_j(-h), 0.0, qm, unused);
      // The difference's error h^2 / 6 times the third derivative, and rounding 1e-16 / h:
      // both below 1e-9 here.
      EXPECT_NEAR((qp - qm) / (2 * h), qd, 1e-8 * (1 + std::fabs(qd))) << "slide " << trial;
    }
    {  // angle
      const double phi_i = 3 * U(rng), phi_j = 3 * U(rng), theta0 = 3 * U(rng), alpha = 2 * U(rng);
      JointFrame<double> f;
      f.v_i = f.v_j = Vec3d{0, 0, 1};
      f.a_i = Vec3d{std::cos(phi_i), std::sin(phi_i), 0};
      f.a_j = Vec3d{std::cos(phi_j), std::sin(phi_j), 0};
      f.b_i = cross(f.v_i, f.a_i);
      f.b_j = cross(f.v_j, f.a_j);
      f.u_i = rv();
      f.u_j = rv();
      // body_j = body_i turned about z by theta0 + alpha t: omega_B of j at t = 0 is
      // Rz(-theta0) w_i + alpha z.
      const Vec3d w_j0{std::cos(theta0) * w_i.x + std::sin(theta0) * w_i.y,
                       -std::sin(theta0) * w_i.x + std::cos(theta0) * w_i.y, w_i.z + alpha};
      const auto body_j = [&](double t) {
        return make_body_kin(r_j, qmul(qmul(p_i, quat_from_rotvec(t * w_i)), qz(theta0 + alpha * t)), v_j, w_j0);
      };
      joint_stop_coordinate(true, f, body_i(0), body_j(0), 0.0, q, qd);
      joint_stop_coordinate(true, f, body_i(h), body_j(h), 0.0, qp, unused);
      joint_stop_coordinate(true, f, body_i(-h), body_j(-h), 0.0, qm, unused);
      EXPECT_NEAR(qd, alpha, 1e-12) << "angle " << trial;
      EXPECT_NEAR((qp - qm) / (2 * h), qd, 1e-8 * (1 + std::fabs(qd))) << "angle " << trial;
    }
  }
}

// Two discs on a common axis, free in space and joined by a hinge with stops, spinning
// against each other into the lower stop: the relative rate rebounds at e (the stop's
// damping uses the reduced inertia I_a I_b / (I_a + I_b) about the axis, which is the
// joint's exactly here), and the angular momentum about the axis is conserved (the stop's
// torques on the two discs are equal and opposite). The same along a rail between two
// blocks with the reduced mass, the momentum conserved.
TEST(JointStop, StopsBetweenTwoMovingBodiesReboundAtEAndConserveMomentum) {
  const double e = 0.6, dt = 1e-4;
  for (const bool angle : {true, false}) {
    const char* rate_key = angle ? "angular_velocity" : "velocity";
    const json doc = {
        {"name", "two bodies on a stopped joint"},
        {"bodies",
         {{{"name", "a"}, {"mass", 1.0}, {"inertia", {0.03, 0.03, 0.05}}, {"position", {0, 0, 0}}, {rate_key, {0, 0, 1.0}}},
          {{"name", "b"}, {"mass", 3.0}, {"inertia", {0.05, 0.05, 0.08}}, {"position", {0, 0, 0.1}},
           {rate_key, {0, 0, -1.0}}}}},
        {"joints",
         {{{"name", "j"},
           {"type", angle ? "revolute" : "prismatic"},
           {"body_i", "a"},
           {"body_j", "b"},
           {"frame", {{"origin", {0, 0, 0.05}}, {"z", {0, 0, 1}}, {"x", {1, 0, 0}}}},
           {"limits",
            {{"lower", angle ? -0.5 : -0.02}, {"upper", 0.5}, {"stiffness", angle ? 100.0 : 1e4}, {"restitution", e}}}}}},
        {"solver", {{"dt", dt}, {"t_end", 1.0}}}};
    SceneRun run(doc);
    assemble_run(run);
    const ForceElement& stop = run.model.forces.back();
    const double reduced = angle ? 0.05 * 0.08 / (0.05 + 0.08) : 1.0 * 3.0 / 4.0;
    const double K = stop.contact.normal.stiffness, zeta = tsuji_damping_ratio(e, 1.0);
    EXPECT_NEAR(stop.contact.normal.damping, 2 * zeta * std::sqrt(reduced * K), 1e-12 * stop.contact.normal.damping);
    const auto momentum = [&run, angle] {  // about / along the axis z
      return angle ? 0.05 * run.omega_B(0).z + 0.08 * run.omega_B(1).z : 1.0 * run.v(0).z + 3.0 * run.v(1).z;
    };
    const double L0 = momentum();
    double q, qd;
    hinge_state(run, q, qd);
    const double rate0 = qd;
    EXPECT_NEAR(rate0, -2.0, 1e-12);
    bool entered = false;
    double ratio = NAN;
    for (int s = 0; s < 10000 && std::isnan(ratio); ++s) {
      ASSERT_TRUE(run.step());
      hinge_state(run, q, qd);
      entered = entered || q < stop.lower;
      if (entered && q > stop.lower) ratio = -qd / rate0;
    }
    std::printf("%s: rebound ratio %.6f, momentum change %.3g\n", angle ? "discs" : "blocks", ratio, momentum() - L0);
    EXPECT_NEAR(ratio, e, zeta * std::sqrt(K / reduced) * dt) << (angle ? "angle" : "slide");
    EXPECT_NEAR(momentum(), L0, 1e-12) << (angle ? "angle" : "slide");
  }
}

TEST(JointStop, LoadsHeldAgainstAStopRestAtTheLimitPlusLoadOverStiffness) {
  {  // revolute: a torque of 5 N m into the upper stop, K = 1e3 N m/rad
    json doc = rotor(1e3, 0.3, 0.0, 1e-4);
    doc["forces"] = {{{"name", "push"}, {"type", "actuator"}, {"joint", "hinge"}, {"kind", "torque"}, {"value", 5.0}}};
    SceneRun run(doc);
    assemble_run(run);
    for (int s = 0; s < 20000; ++s) ASSERT_TRUE(run.step());  // 2 s: settled (zeta 0.36, period 0.09 s)
    double q, qd;
    hinge_state(run, q, qd);
    EXPECT_NEAR(q, 0.5 + 5.0 / 1e3, 1e-9);
    EXPECT_NEAR(qd, 0, 1e-9);
  }
  {  // prismatic along world x: a force of 20 N toward the lower stop at -0.1 m, K = 1e5 N/m
    json doc = {{"name", "slider on a stop"},
                {"bodies", {{{"name", "block"}, {"mass", 3.0}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {0, 0, 0}}}}},
                {"joints",
                 {{{"name", "rail"},
                   {"type", "prismatic"},
                   {"body_i", "ground"},
                   {"body_j", "block"},
                   {"frame", {{"origin", {0, 0, 0}}, {"z", {1, 0, 0}}, {"x", {0, 1, 0}}}},
                   {"limits", {{"lower", -0.1}, {"stiffness", 1e5}, {"restitution", 0.3}}}}}},
                {"forces", {{{"name", "push"}, {"type", "actuator"}, {"joint", "rail"}, {"kind", "force"}, {"value", -20.0}}}},
                {"solver", {{"dt", 1e-4}, {"t_end", 1.0}}}};
    SceneRun run(doc);
    assemble_run(run);
    ASSERT_EQ(run.model.forces.back().type, ForceType::JointStop);
    EXPECT_EQ(run.model.forces.back().kind, ActuatorKind::Force);
    for (int s = 0; s < 10000; ++s) ASSERT_TRUE(run.step());
    EXPECT_NEAR(run.r(0).x, -0.1 - 20.0 / 1e5, 1e-9);
    EXPECT_NEAR(run.v(0).x, 0, 1e-9);
  }
}

/// The rotor at restitution e and step dt for 1 s (four impacts, on both stops): the
/// largest |E(t) - E(0) - W(t)| [J], W the work of the power channel (trapezoid per step);
/// onset gets sum D qd^2 over the impacts' first steps in the stop [W] and W its total.
double balance_error(double e, double dt, double& onset, double& W) {
  SceneRun run(rotor(1e3, e, kRate, dt));
  assemble_run(run);
  const double D = run.model.forces.back().contact.normal.damping;
  const double E0 = run.energy();
  double P_prev = nonconservative_power(run.model, run.d, 0.0, nullptr), worst = 0, q, qd;
  bool inside = true;
  W = 0;
  onset = 0;
  for (int s = 0; s < static_cast<int>(std::lround(1.0 / dt)); ++s) {
    if (!run.step()) return NAN;
    const double E = run.energy();  // evaluates the kinematics of the new state
    const double P = nonconservative_power(run.model, run.d, run.t, nullptr);
    W += 0.5 * dt * (P + P_prev);
    P_prev = P;
    worst = std::max(worst, std::fabs(E - E0 - W));
    hinge_state(run, q, qd);
    if (inside && std::fabs(q) > 0.5) onset += D * qd * qd;
    inside = std::fabs(q) <= 0.5;
  }
  return worst;
}

TEST(JointStop, EnergyIsConservedWithoutDampingAndBalancedWithIt) {
  const double E_kin = 0.5 * kHingeInertia * kRate * kRate;
  double onset, W, onset2, W2;
  // e = 1: no damping, no work; RK4's error at the force's kinks (K delta, continuous).
  const double err = balance_error(1.0, 1e-4, onset, W), err2 = balance_error(1.0, 5e-5, onset2, W2);
  std::printf("e = 1: largest |E - E0| %.3g J at dt = 1e-4, %.3g J at 5e-5, of %.3g J\n", err, err2, E_kin);
  EXPECT_EQ(W, 0.0);
  EXPECT_LT(err, 1e-5 * E_kin);
  EXPECT_LT(err2, 0.25 * err) << "second order or better";
  // e = 0.5: the balance holds to the power's quadrature. The damping force jumps to
  // D qd at an impact's first step in the stop, where the trapezoid is off by up to
  // dt D qd^2 / 2: first order.
  const double bal = balance_error(0.5, 1e-4, onset, W), bal2 = balance_error(0.5, 5e-5, onset2, W2);
  std::printf("e = 0.5: largest |E - E0 - W| %.3g J at dt = 1e-4, %.3g J at 5e-5 (dissipated %.3g J of %.3g J; "
              "onset bound dt sum D qd^2 / 2 = %.3g J)\n", bal, bal2, -W, E_kin, 0.5 * 1e-4 * onset);
  EXPECT_GT(-W, 0.7 * E_kin);  // e^2 = 1/4 of the kinetic energy is left after the first impact
  EXPECT_LT(bal, 1e-4 * onset);  // twice the bound above
  EXPECT_LT(bal2, 0.6 * bal) << "first order";
}

TEST(JointStop, CylindricalJointLimitsTheCoordinateItNames) {
  json doc = rotor(1e3, 0.5, 0.0, 1e-4);
  json& j = doc["joints"][0];
  j["type"] = "cylindrical";
  j["initial"] = {{"velocity", 1.0}};
  j["limits"] = {{"upper", 0.05}, {"stiffness", 1e4}, {"restitution", 0.5}, {"coordinate", "slide"}};
  SceneRun run(doc);
  assemble_run(run);
  double top = 0;
  for (int s = 0; s < 2000; ++s) {
    ASSERT_TRUE(run.step());
    top = std::max(top, run.r(0).z);
  }
  // m v^2 / 2 = K delta^2 / 2 without damping: the stop lets it in by less than v sqrt(m / K).
  EXPECT_GT(top, 0.05);
  EXPECT_LT(top, 0.05 + 1.0 * std::sqrt(kMass / 1e4));
  EXPECT_LT(run.v(0).z, 0) << "sent back";
  j["limits"].erase("coordinate");
  try {
    compile_model(doc);
    ADD_FAILURE() << "a cylindrical joint's stop without its coordinate";
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/joints/0/limits/coordinate: ", 0), 0u) << e.what();
  }
}

/// At the grid's final state body 0 (on a joint to the ground) is inside its stop, so
/// that the comparison covers the stop's force.
void expect_in_stop(const Model& m, int i, const Data& d) {
  const ForceElement& stop = m.forces.back();
  double q, qd;
  joint_stop_coordinate(stop.kind == ActuatorKind::Torque, m.joints[stop.joint].frame, ground_kin<double>(), d.kin[0],
                        joint_stop_middle(stop.lower, stop.upper), q, qd);
  EXPECT_TRUE(q > stop.upper || q < stop.lower) << "instance " << i << " is not in a stop at the end, q = " << q;
}

TEST(JointStop, BatchedPathsEqualTheCpuReference) {
  {  // the swing arm, its stops' restitution and stiffness per instance: 0.13 s, in the upper stop
    const std::vector<Model> models = test::example_models("swing_arm_end_stops", 3);
    ASSERT_NE(models[0].forces.back().contact.normal.stiffness, models[1].forces.back().contact.normal.stiffness);
    test::expect_grid_matches_reference(models, 3, 650, 1e-12, expect_in_stop);
  }
  {  // a block between two stops on a tilted rail, thrown at 2 m/s: into the upper stop at 0.03 s
    const json doc = {{"name", "block between stops"},
                      {"gravity", {0, 0, -9.81}},
                      {"bodies", {{{"name", "block"}, {"mass", 3.0}, {"inertia", {0.01, 0.02, 0.03}}, {"position", {0, 0, 0}}}}},
                      {"joints",
                       {{{"name", "rail"},
                         {"type", "prismatic"},
                         {"body_i", "ground"},
                         {"body_j", "block"},
                         {"frame", {{"origin", {0, 0, 0}}, {"z", {0.6, 0, 0.8}}, {"x", {0, 1, 0}}}},
                         {"initial", {{"velocity", 2.0}}},
                         {"limits", {{"lower", -0.05}, {"upper", 0.05}, {"stiffness", 1e5}, {"restitution", 0.7}}}}}},
                      {"solver", {{"dt", 1e-4}, {"t_end", 1.0}}}};
    std::vector<Model> models = {compile_model(doc)};
    set_removed_rows(models);  // as a run prepares them (Simulator::create)
    set_auto_projection(models);
    test::expect_grid_matches_reference(models, 2, 300, 1e-12, expect_in_stop);
  }
}

TEST(JointStop, CheckRefusesATooStiffStopAndWarnsOfAStartBeyondALimit) {
  // Undamped mode sqrt(K / I): RK4's limit 2.785 / sqrt(K / I) = 3.9e-3 s at K = 1e5.
  json doc = rotor(1e5, 0.9, 1.0, 5e-3);
  StabilityCheck c = check_step_stability({compile_model(doc)}, doc);
  EXPECT_EQ(c.refused_field, "/joints/0/limits/stiffness") << c.refused_reason;
  EXPECT_NE(c.refused_reason.find("end stops of joint 'hinge'"), std::string::npos) << c.refused_reason;
  EXPECT_NE(c.refused_reason.find("about its axis"), std::string::npos) << c.refused_reason;
  doc["solver"]["dt"] = 1e-4;
  c = check_step_stability({compile_model(doc)}, doc);
  EXPECT_EQ(c.refused_field, "");
  EXPECT_TRUE(c.warnings.empty());
  // 200 rad/s (4000 J) against stops that store K h^2 / 2 = 3489 J at h = pi - 0.5 rad past
  // a limit: a warning that an impact would pass through.
  doc = rotor(1e3, 0.9, 200.0, 1e-5);
  c = check_step_stability({compile_model(doc)}, doc);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].rfind("/joints/0/limits: the end stops of joint 'hinge' store K h^2 / 2 = 3489 J", 0), 0u)
      << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("less than the 4000 J of kinetic energy"), std::string::npos) << c.warnings[0];
  doc = rotor(1e5, 0.9, 1.0, 1e-4);
  // Started 0.1 rad past the upper stop: a warning naming the limits and the push.
  doc["joints"][0]["initial"] = {{"angle", 0.6}};
  c = check_step_stability({compile_model(doc)}, doc);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].rfind("/joints/0/limits: joint 'hinge' starts at 0.6 rad, 0.1 beyond its upper limit 0.5: "
                                "its end stop pushes it back from the start with 1e+04 N m",
                                0),
            0u)
      << c.warnings[0];
}

TEST(JointStop, ErrorsNameTheField) {
  const auto error_of = test::scene_error;
  const auto with = [](const char* key, const json& v) {
    json d = rotor(1e3, 0.5, 1.0, 1e-4);
    d["joints"][0]["limits"][key] = v;
    return d;
  };
  json d = rotor(1e3, 0.5, 1.0, 1e-4);
  d["joints"][0]["type"] = "spherical";
  d["joints"][0].erase("initial");
  EXPECT_EQ(error_of(d).rfind("/joints/0/limits: end stops need a revolute, prismatic or cylindrical joint", 0), 0u)
      << error_of(d);
  EXPECT_EQ(error_of(with("upper", -0.5)).rfind("/joints/0/limits/upper: must be above lower", 0), 0u)
      << error_of(with("upper", -0.5));
  EXPECT_EQ(error_of(with("upper", 6.0)).rfind("/joints/0/limits/upper: the range of an angle must be shorter than a turn", 0),
            0u)
      << error_of(with("upper", 6.0));
  d = rotor(1e3, 0.5, 1.0, 1e-4);
  d["joints"][0]["limits"].erase("upper");
  EXPECT_EQ(error_of(d).rfind("/joints/0/limits/upper: required key is missing: an angle's stops need both ends", 0), 0u)
      << error_of(d);
  EXPECT_EQ(error_of(with("stiffness", 0)).rfind("/joints/0/limits/stiffness: must be > 0", 0), 0u);
  EXPECT_EQ(error_of(with("restitution", 0)).rfind("/joints/0/limits/restitution: must be in (0, 1]", 0), 0u);
  EXPECT_EQ(error_of(with("coordinate", "slide")).rfind("/joints/0/limits/coordinate: a revolute joint has only its angle", 0), 0u)
      << error_of(with("coordinate", "slide"));
  EXPECT_EQ(error_of(with("damping", 1)).rfind("/joints/0/limits/damping: ", 0), 0u);
  d = rotor(1e3, 0.5, 1.0, 1e-4);
  d["joints"][0]["limits"].erase("lower");
  d["joints"][0]["limits"].erase("upper");
  EXPECT_EQ(error_of(d).rfind("/joints/0/limits: give \"lower\", \"upper\" or both", 0), 0u) << error_of(d);
  d = rotor(1e3, 0.5, 1.0, 1e-4);
  d["joints"][0].erase("initial");
  d["joints"][0]["clearance"] = {{"radial", 1e-3}, {"journal_radius", 0.01}};
  d["contact"] = {{"materials", {{"default", {{"stiffness", 1e7}, {"exponent", 1}, {"restitution", 0.5}}}}}};
  EXPECT_EQ(error_of(d).rfind("/joints/0/limits: not with a clearance", 0), 0u) << error_of(d);
}

}  // namespace
}  // namespace simphant
