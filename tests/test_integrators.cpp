// The first-order fixed-step integrators on the CPU reference (dynamics/euler.hpp through
// CpuBackend; docs/solver.md, "Integrators"):
//  (a) observed order 1 of explicit and symplectic Euler, against the closed-form motion
//      of a linear oscillator and against a fine RK4 reference on a double pendulum with
//      Baumgarte off;
//  (b) long runs of conservative scenes: symplectic Euler's energy error stays bounded
//      (oscillator, nonlinear spring chain), explicit Euler's grows, on the oscillator
//      by exactly (1 + h^2 omega^2) per step; on a constrained pendulum symplectic Euler's
//      energy drifts in proportion to h (not symplectic there: see the test);
//  (c) the stability limits of integrator_stable_step (dynamics/stability.hpp), checked by
//      running just inside and just outside them, and the check at load
//      (job/stability_check.hpp) using each integrator's own limit;
//  (d) the integrator names, order, and the status reason step_size_underflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/formulas/runaway.hpp"
#include "simphant/dynamics/stability.hpp"
#include "simphant/job/stability_check.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/cpu_backend.hpp"

namespace simphant {
namespace {

using nlohmann::json;

constexpr double kPi = 3.14159265358979323846;

/// A 1 kg body on a spring of stiffness k from the ground point (-1, 0, 0), rest length 1,
/// released at x = x0 on the x axis at rest, no gravity: the force along the line is
/// exactly -k x (the line stays the x axis), so x(t) = x0 cos(omega t), omega = sqrt(k).
/// damping c [N s/m].
json oscillator(double k, double x0, double dt, double t_end, const char* integrator, double c = 0) {
  return {{"gravity", {0.0, 0.0, 0.0}},
          {"bodies", {{{"name", "mass"}, {"mass", 1.0}, {"inertia", {1.0, 1.0, 1.0}}, {"position", {x0, 0.0, 0.0}}}}},
          {"forces",
           {{{"name", "spring"}, {"type", "spring_damper"}, {"body_i", "ground"}, {"point_i", {-1.0, 0.0, 0.0}},
             {"body_j", "mass"}, {"point_j", {0.0, 0.0, 0.0}}, {"stiffness", k}, {"damping", c}, {"rest_length", 1.0}}}},
          {"solver", {{"dt", dt}, {"t_end", t_end}, {"integrator", integrator}, {"allow_unstable", true}}}};
}

/// A planar double pendulum on revolute hinges about the world y axis (as the RK4 order
/// test in test_closed_form.cpp), Baumgarte alpha = beta = `baumgarte`.
json double_pendulum(double dt, double t_end, const char* integrator, double baumgarte = 0.0) {
  return {{"gravity", {0.0, 0.0, -9.81}},
          {"bodies",
           {{{"name", "upper"}, {"mass", 0.8}, {"inertia", {4e-5, 0.01669, 0.01669}}, {"position", {0.25, 0.0, 0.0}}},
            {{"name", "lower"}, {"mass", 0.6}, {"inertia", {3e-5, 0.01252, 0.01252}}, {"position", {0.75, 0.0, 0.0}}}}},
          {"joints",
           {{{"name", "shoulder"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "upper"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}},
            {{"name", "elbow"}, {"type", "revolute"}, {"body_i", "upper"}, {"body_j", "lower"},
             {"frame", {{"origin", {0.5, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
          {"solver",
           {{"dt", dt}, {"t_end", t_end}, {"integrator", integrator}, {"baumgarte_alpha", baumgarte},
            {"baumgarte_beta", baumgarte}}}};
}

/// A single pendulum: a 1 kg body with I_c = 0.01 kg m^2, hinged about the world y axis
/// 1 m from its CoM, released at 90 degrees (as test_closed_form.cpp's period test).
json pendulum(double dt, double t_end, const char* integrator) {
  return {{"gravity", {0.0, 0.0, -9.81}},
          {"bodies", {{{"name", "bob"}, {"mass", 1.0}, {"inertia", {0.01, 0.01, 0.01}}, {"position", {1.0, 0.0, 0.0}}}}},
          {"joints",
           {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
          {"solver", {{"dt", dt}, {"t_end", t_end}, {"integrator", integrator}}}};
}

/// One instance of `doc` on the CPU backend (one thread).
std::unique_ptr<CpuBackend> backend_of(const json& doc) {
  auto models = std::make_shared<const std::vector<Model>>(std::vector<Model>{compile_model(doc)});
  auto b = std::make_unique<CpuBackend>(models, 1, 1);
  EXPECT_TRUE(b->assembly()[0].ok);
  return b;
}

std::vector<double> state_after(const json& doc, int steps) {
  auto b = backend_of(doc);
  b->advance(steps);
  std::vector<double> y(static_cast<std::size_t>(b->state_size()));
  b->get_state(nullptr, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
  std::int8_t status = 0;
  double t = 0;
  b->read_status(&status, &t, nullptr);
  EXPECT_EQ(status, 0) << doc["solver"].dump();
  return y;
}

double energy_of(const CpuBackend& b) {
  double e = 0;
  b.read_energy(&e, nullptr);
  return e;
}

// ---------------------------------------------------------------------------------------
// (a) Observed order 1.

// Oscillator omega = 2 pi rad/s, x0 = 0.1 m, at t = 1.3 s (a phase where neither x nor v
// vanishes): max of |x - x0 cos(omega t)| and |v - v(t)| / omega at dt, dt/2, dt/4. The
// leading error term of a first-order method halves with dt: log2 of successive ratios ~ 1.
TEST(Integrators, EulerAndSymplecticEulerHaveObservedOrderOneOnTheOscillator) {
  const double k = 4 * kPi * kPi, omega = 2 * kPi, x0 = 0.1, T = 1.3, dt = 1e-3;
  for (const char* integ : {"euler", "symplectic_euler"}) {
    double err[3];
    for (int j = 0; j < 3; ++j) {
      const double h = dt / double(1 << j);
      const int steps = static_cast<int>(std::lround(T / h));
      const std::vector<double> y = state_after(oscillator(k, x0, h, T, integ), steps);
      const double x = y[0], v = y[7];  // r.x; v.x (y = [r, p, v, omega_B] for one body)
      err[j] = std::max(std::abs(x - x0 * std::cos(omega * T)), std::abs(v + x0 * omega * std::sin(omega * T)) / omega);
    }
    const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
    std::printf("%s oscillator: errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", integ, err[0], err[1], err[2], p1,
                p2);
    // First order: the ratio of errors at halved steps is 2 up to the O(h^2) term
    // (relative size omega h ~ 6e-3 here). Bounds 0.9 .. 1.1.
    EXPECT_GT(p1, 0.9) << integ;
    EXPECT_LT(p1, 1.1) << integ;
    EXPECT_GT(p2, 0.9) << integ;
    EXPECT_LT(p2, 1.1) << integ;
  }
}

// Double pendulum with Baumgarte off (so the stepped ODE is the same smooth ODE for every
// dt), errors after 0.5 s at dt = 1e-3, 5e-4, 2.5e-4 against RK4 at 1e-4 (RK4's error there,
// ~1e-12, is far below the first-order errors of ~1e-3).
TEST(Integrators, EulerAndSymplecticEulerHaveObservedOrderOneOnAConstrainedSystem) {
  const double T = 0.5, dt = 1e-3;
  const std::vector<double> ref = state_after(double_pendulum(1e-4, T, "rk4"), 5000);
  for (const char* integ : {"euler", "symplectic_euler"}) {
    double err[3];
    for (int j = 0; j < 3; ++j) {
      const double h = dt / double(1 << j);
      const std::vector<double> y = state_after(double_pendulum(h, T, integ), static_cast<int>(std::lround(T / h)));
      double e = 0;
      for (std::size_t c = 0; c < y.size(); ++c) e = std::max(e, std::abs(y[c] - ref[c]));
      err[j] = e;
    }
    const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
    std::printf("%s double pendulum: errors %.3e %.3e %.3e, observed orders %.3f %.3f\n", integ, err[0], err[1],
                err[2], p1, p2);
    EXPECT_GT(p1, 0.85) << integ;
    EXPECT_LT(p1, 1.15) << integ;
    EXPECT_GT(p2, 0.85) << integ;
    EXPECT_LT(p2, 1.15) << integ;
  }
}

// ---------------------------------------------------------------------------------------
// (b) Energy over long runs.

// 1e5 steps of h = 1e-3 s (100 periods) of the oscillator, omega h = 2 pi 1e-3.
// Symplectic Euler conserves the modified energy H~ = (v^2 + omega^2 x^2 - h omega^2 x v) / 2
// exactly (Hairer, Lubich, Wanner, GNI, Sec. IX.1), so E oscillates about it within
// |E - E0| / E0 <= omega h / (1 - omega h / 2) and does not drift. Explicit Euler maps
// v^2 + omega^2 x^2 to (1 + h^2 omega^2) times itself each step, so E_n = E_0 (1 + h^2 omega^2)^n
// (a factor 51.8 here).
TEST(Integrators, SymplecticEulerEnergyErrorStaysBoundedExplicitEulerGrows) {
  const double k = 4 * kPi * kPi, omega = 2 * kPi, x0 = 0.1, h = 1e-3;
  const int chunks = 1000, per_chunk = 100;  // 1e5 steps, energy read every 100
  const double wh = omega * h;
  {
    auto b = backend_of(oscillator(k, x0, h, 100.0, "symplectic_euler"));
    const double E0 = energy_of(*b);
    double worst = 0, worst_last = 0;
    for (int c = 0; c < chunks; ++c) {
      b->advance(per_chunk);
      const double dev = std::abs(energy_of(*b) - E0) / E0;
      worst = std::max(worst, dev);
      if (c >= chunks - 100) worst_last = std::max(worst_last, dev);
    }
    std::printf("symplectic Euler, 1e5 steps: max |E - E0| / E0 = %.3e (bound omega h / (1 - omega h / 2) = %.3e), "
                "over the last 1e4 steps %.3e\n",
                worst, wh / (1 - wh / 2), worst_last);
    EXPECT_LE(worst, wh / (1 - wh / 2));
    // No drift: the last tenth reaches the same band, not beyond it.
    EXPECT_LE(worst_last, wh / (1 - wh / 2));
    EXPECT_GT(worst_last, 0.5 * worst);
  }
  {
    auto b = backend_of(oscillator(k, x0, h, 100.0, "euler"));
    const double E0 = energy_of(*b);
    b->advance(chunks * per_chunk);
    const double expected = std::pow(1 + wh * wh, chunks * per_chunk);
    const double ratio = energy_of(*b) / E0;
    std::printf("explicit Euler, 1e5 steps: E / E0 = %.9g, (1 + h^2 omega^2)^n = %.9g\n", ratio, expected);
    // Rounding over 1e5 steps: ~1e5 * 1e-16 relative; bound 1e-9.
    EXPECT_NEAR(ratio / expected, 1.0, 1e-9);
  }
}

/// Two 1 kg point-like bodies on springs with rest lengths (ground -> a -> b), attached at
/// their CoMs, no gravity, started off the springs' lines and moving in 3D: a nonlinear
/// Hamiltonian system H = T(v) + U(r) with no rotation and no constraint.
json spring_chain(double dt, double t_end, const char* integrator) {
  const json body_a = {{"name", "a"}, {"mass", 1.0}, {"inertia", {1.0, 1.0, 1.0}}, {"position", {1.2, 0.3, 0.0}},
                       {"velocity", {0.0, 1.0, 0.5}}};
  const json body_b = {{"name", "b"}, {"mass", 1.0}, {"inertia", {1.0, 1.0, 1.0}}, {"position", {2.0, -0.2, 0.4}},
                       {"velocity", {-0.5, 0.0, 1.0}}};
  return {{"gravity", {0.0, 0.0, 0.0}},
          {"bodies", {body_a, body_b}},
          {"forces",
           {{{"name", "s1"}, {"type", "spring_damper"}, {"body_i", "ground"}, {"point_i", {0.0, 0.0, 0.0}},
             {"body_j", "a"}, {"stiffness", 30.0}, {"rest_length", 1.0}},
            {{"name", "s2"}, {"type", "spring_damper"}, {"body_i", "a"}, {"body_j", "b"}, {"stiffness", 20.0},
             {"rest_length", 1.0}}}},
          {"solver", {{"dt", dt}, {"t_end", t_end}, {"integrator", integrator}, {"allow_unstable", true}}}};
}

// The spring chain over 1e5 steps of 1e-3 s (its fastest frequency about 8 rad/s, so
// ~130 periods): symplectic Euler is symplectic for this separable H (positions from the
// new velocities, forces from the positions alone), so its energy error stays in a band
// of order omega h without a drift; explicit Euler's grows steadily.
TEST(Integrators, SymplecticEulerEnergyBoundedOnANonlinearSpringChain) {
  const double h = 1e-3;
  const int chunks = 1000, per_chunk = 100;
  double first = 0, last = 0, worst = 0, E0 = 0;
  {
    auto b = backend_of(spring_chain(h, 100.0, "symplectic_euler"));
    E0 = energy_of(*b);
    for (int c = 0; c < chunks; ++c) {
      b->advance(per_chunk);
      const double dev = std::abs(energy_of(*b) - E0) / E0;
      worst = std::max(worst, dev);
      if (c < 100) first = std::max(first, dev);
      if (c >= chunks - 100) last = std::max(last, dev);
    }
  }
  auto e = backend_of(spring_chain(h, 100.0, "euler"));
  e->advance(chunks * per_chunk);
  const double euler_gain = (energy_of(*e) - E0) / E0;
  std::printf("spring chain, 1e5 steps: symplectic Euler max |E - E0| / E0 = %.3e (first 1e4 steps %.3e, last %.3e); "
              "explicit Euler (E - E0) / E0 = %.3e\n",
              worst, first, last, euler_gain);
  // omega_max h ~ 8e-3: a band of that order, reached early and not exceeded later.
  EXPECT_LE(worst, 1e-2);
  EXPECT_LE(last, 1.2 * first);
  EXPECT_GT(euler_gain, 100 * worst);
}

// A large-amplitude pendulum in maximal coordinates (90 degrees, one revolute joint,
// Baumgarte 10/10), 20 s. Here the constraint forces come from the acceleration-level
// solve at the step's start state (index-1 formulation), not from a position constraint
// at the end of the step as in the constrained symplectic Euler (SHAKE-type; Hairer,
// Lubich, Wanner, GNI, Sec. VII.1), so the step is first order but not symplectic: the
// energy drifts, by an amount proportional to h (docs/solver.md, "Integrators"). The test
// pins that: halving h halves the drift (measured 4.5e-2 and 2.2e-2 of m g l at 10 s),
// while explicit Euler at the same h gains about four times as much (measured 0.17 m g l).
TEST(Integrators, SymplecticEulerPendulumDriftIsFirstOrder) {
  const auto drift = [](double h, const char* integ, std::int8_t* status) {
    auto b = backend_of(pendulum(h, 10.0, integ));
    const double E0 = energy_of(*b);
    b->advance(static_cast<int>(std::lround(10.0 / h)));
    double t = 0;
    b->read_status(status, &t, nullptr);
    return (energy_of(*b) - E0) / 9.81;  // m g l = 9.81 J
  };
  std::int8_t s1 = -1, s2 = -1, se = -1;
  const double d1 = drift(1e-3, "symplectic_euler", &s1), d2 = drift(5e-4, "symplectic_euler", &s2);
  const double de = drift(1e-3, "euler", &se);
  std::printf("pendulum, 10 s: symplectic Euler dE / (m g l) = %.3e (h = 1e-3), %.3e (h = 5e-4), ratio %.3f; explicit "
              "Euler %.3e (status %d)\n",
              d1, d2, d1 / d2, de, se);
  EXPECT_EQ(s1, 0);
  EXPECT_EQ(s2, 0);
  EXPECT_NEAR(d1 / d2, 2.0, 0.1);
  EXPECT_LT(std::abs(d1), 0.1);
  EXPECT_TRUE(se != 0 || de > 2.5 * std::abs(d1)) << "explicit Euler status " << int(se) << ", dE " << de;
}

// ---------------------------------------------------------------------------------------
// (c) Stability limits.

/// Amplitude growth of the oscillator (k, damping c) over `steps` steps of h: sqrt(E_end / E_0).
double growth(double k, double c, double h, int steps, const char* integ) {
  auto b = backend_of(oscillator(k, 0.1, h, steps * h, integ, c));
  const double E0 = energy_of(*b);
  b->advance(steps);
  std::int8_t status = 0;
  double t = 0;
  b->read_status(&status, &t, nullptr);
  if (status != 0) return INFINITY;
  return std::sqrt(energy_of(*b) / E0);
}

TEST(Integrators, StableStepLimitsHoldOnTheOscillator) {
  const double k = 400.0;  // omega = 20 rad/s on 1 kg
  // Undamped: symplectic Euler stable for omega h <= 2, RK4 for omega h <= 2 sqrt(2),
  // explicit Euler never.
  const StabilityMode undamped = spring_mode(0, k, 0.0, 1.0);
  EXPECT_NEAR(integrator_stable_step(Integrator::SymplecticEuler, undamped), 2.0 / 20.0, 1e-12);
  EXPECT_NEAR(integrator_stable_step(Integrator::Rk4, undamped), 2.0 * std::sqrt(2.0) / 20.0, 1e-9);
  EXPECT_EQ(integrator_stable_step(Integrator::Euler, undamped), 0.0);
  EXPECT_TRUE(std::isinf(integrator_stable_step(Integrator::Dopri5, undamped)));
  const double se = integrator_stable_step(Integrator::SymplecticEuler, undamped);
  EXPECT_LT(growth(k, 0.0, 0.98 * se, 2000, "symplectic_euler"), 20.0);  // bounded (near the limit, an eccentric ellipse)
  EXPECT_GT(growth(k, 0.0, 1.02 * se, 2000, "symplectic_euler"), 1e6);   // eigenvalue ~ -1.3: blows up
  EXPECT_GT(growth(k, 0.0, 1e-3, 2000, "euler"), 1.0);                   // grows at any step
  EXPECT_NEAR(growth(k, 0.0, 1e-3, 2000, "euler"), std::pow(1 + 0.02 * 0.02, 1000), 1e-9);

  // Damped, underdamped (c = 8: zeta = 0.2): explicit Euler stable iff
  // h <= 2 |Re lambda| / |lambda|^2 = 2 (c / 2) / k = 0.02 s; symplectic Euler iff
  // h^2 k + 2 h c <= 4.
  const double c = 8.0;
  const StabilityMode damped = spring_mode(0, k, c, 1.0);
  const double ee = integrator_stable_step(Integrator::Euler, damped);
  EXPECT_NEAR(ee, 0.02, 1e-12);
  EXPECT_LT(growth(k, c, 0.98 * ee, 4000, "euler"), 1.0);
  EXPECT_GT(growth(k, c, 1.02 * ee, 4000, "euler"), 1.0);
  const double sed = integrator_stable_step(Integrator::SymplecticEuler, damped);
  EXPECT_NEAR(sed * sed * k + 2 * sed * c, 4.0, 1e-12);
  EXPECT_LT(growth(k, c, 0.98 * sed, 4000, "symplectic_euler"), 1.0);
  EXPECT_GT(growth(k, c, 1.02 * sed, 4000, "symplectic_euler"), 1.0);

  // Overdamped (a pure damper, real lambda = -c): both first-order methods stable for h c <= 2.
  const StabilityMode damper = spring_mode(0, 0.0, 100.0, 1.0);
  EXPECT_NEAR(integrator_stable_step(Integrator::Euler, damper), 0.02, 1e-12);
  EXPECT_NEAR(integrator_stable_step(Integrator::SymplecticEuler, damper), 0.02, 1e-12);
  EXPECT_NEAR(euler_blowup_step(damper), 0.02, 1e-12);
}

// The check at load uses the integrator's own limit: omega dt = 2.2 is within RK4's limit
// (2 sqrt 2), beyond symplectic Euler's (2): refused there, naming the spring's stiffness.
// Explicit Euler is not refused for an undamped spring with omega dt < 2 but warned of
// (it amplifies it by sqrt(1 + omega^2 dt^2) per step); beyond omega dt = 2 it is refused.
TEST(Integrators, StabilityCheckUsesEachIntegratorsLimit) {
  const double k = 400.0;  // omega = 20 rad/s
  const auto check = [&](const char* integ, double dt) {
    json doc = oscillator(k, 0.1, dt, 1.0, integ);
    doc["solver"]["allow_unstable"] = false;
    return check_step_stability({compile_model(doc)}, doc);
  };
  const double dt = 2.2 / 20.0;
  EXPECT_EQ(check("rk4", dt).refused_field, "");
  const StabilityCheck se = check("symplectic_euler", dt);
  EXPECT_EQ(se.refused_field, "/forces/0/stiffness");
  EXPECT_NE(se.refused_reason.find("symplectic_euler"), std::string::npos) << se.refused_reason;
  EXPECT_EQ(check("symplectic_euler", 1.0 / 20.0).refused_field, "");
  const StabilityCheck ee = check("euler", 1e-3);
  EXPECT_EQ(ee.refused_field, "");
  ASSERT_EQ(ee.warnings.size(), 1u);
  EXPECT_NE(ee.warnings[0].find("explicit Euler amplifies"), std::string::npos) << ee.warnings[0];
  EXPECT_EQ(ee.estimate["modes"][0]["verdict"], "warn");
  EXPECT_EQ(check("euler", dt).refused_field, "/forces/0/stiffness");
  // Adaptive integrators set their own step: no refusal, no modes.
  const StabilityCheck ad = check("dopri5", dt);
  EXPECT_EQ(ad.refused_field, "");
  EXPECT_TRUE(ad.estimate["modes"].empty());
  EXPECT_EQ(ad.estimate["integrator"], "dopri5");
}

// ---------------------------------------------------------------------------------------
// (d) Names, orders, reasons.

TEST(Integrators, NamesRoundTripAndOrders) {
  for (Integrator k : {Integrator::Rk4, Integrator::Euler, Integrator::SymplecticEuler, Integrator::Dopri5,
                       Integrator::Bdf}) {
    Integrator back = Integrator::Rk4;
    ASSERT_TRUE(parse_integrator(integrator_name(k), back));
    EXPECT_EQ(back, k);
  }
  Integrator x = Integrator::Euler;
  EXPECT_FALSE(parse_integrator("rk45", x));
  EXPECT_EQ(x, Integrator::Euler);
  EXPECT_EQ(integrator_order(Integrator::Rk4), 4);
  EXPECT_EQ(integrator_order(Integrator::Euler), 1);
  EXPECT_EQ(integrator_order(Integrator::SymplecticEuler), 1);
  EXPECT_EQ(integrator_order(Integrator::Dopri5), 5);
  EXPECT_EQ(integrator_order(Integrator::Bdf), 0);
  EXPECT_TRUE(is_adaptive(Integrator::Dopri5));
  EXPECT_TRUE(is_adaptive(Integrator::Bdf));
  EXPECT_FALSE(is_adaptive(Integrator::SymplecticEuler));
}

TEST(Integrators, StepSizeUnderflowIsADivergedReason) {
  EXPECT_EQ(kReasonStepSizeUnderflow, 6);
  EXPECT_EQ(kReasonCount, 7);
  EXPECT_STREQ(status_reason_name(kReasonStepSizeUnderflow), "step_size_underflow");
  EXPECT_STREQ(status_reason_name(7), "unknown");
  EXPECT_TRUE(status_reason_fits(2, kReasonStepSizeUnderflow));
  EXPECT_FALSE(status_reason_fits(0, kReasonStepSizeUnderflow));
  EXPECT_FALSE(status_reason_fits(1, kReasonStepSizeUnderflow));
  const std::int8_t diverged[] = {2}, ok[] = {0}, six[] = {6}, seven[] = {7};
  EXPECT_NO_THROW(check_status_reasons("set_state", 1, diverged, six));
  EXPECT_THROW(check_status_reasons("set_state", 1, ok, six), std::invalid_argument);
  EXPECT_THROW(check_status_reasons("set_state", 1, diverged, seven), std::invalid_argument);
  // set_state writes it and get_state reads it back.
  auto b = backend_of(oscillator(400.0, 0.1, 1e-3, 1.0, "euler"));
  b->set_state(nullptr, 1, nullptr, nullptr, diverged, nullptr, six);
  std::int8_t reason = 0;
  b->get_state(nullptr, 1, nullptr, nullptr, nullptr, nullptr, &reason);
  EXPECT_EQ(reason, kReasonStepSizeUnderflow);
}

// Fixed-step step statistics: accepted = the instance's steps (those before it stopped),
// rejected 0, min = max = dt.
TEST(Integrators, FixedStepStatistics) {
  auto b = backend_of(oscillator(400.0, 0.1, 1e-3, 1.0, "symplectic_euler"));
  EXPECT_EQ(b->integrator(), Integrator::SymplecticEuler);
  EXPECT_EQ(b->integrator_state_size(), 0);
  b->advance(25);
  std::int64_t acc = -1, rej = -1;
  double lo = 0, hi = 0;
  b->read_step_statistics(&acc, &rej, &lo, &hi);
  EXPECT_EQ(acc, 25);
  EXPECT_EQ(rej, 0);
  EXPECT_EQ(lo, 1e-3);
  EXPECT_EQ(hi, 1e-3);
  const int id = 0;
  b->reset(&id, 1);
  b->advance(5);
  b->read_step_statistics(&acc, nullptr, nullptr, nullptr);
  EXPECT_EQ(acc, 5);
}

}  // namespace
}  // namespace simphant
