// Closed-form checks of the CPU reference solver (closed-form cases):
//  (a) the large-amplitude period of a compound pendulum against the exact elliptic-
//      integral period;
//  (b) a torque-free asymmetric body (Dzhanibekov flips) conserving energy and the
//      world-frame angular momentum;
//  (c) RK4's observed order of convergence on a double pendulum with Baumgarte off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "low_level_instance.hpp"

namespace simphant {
namespace {

using nlohmann::json;

using test::Instance;

json solver(double dt, double alpha, double beta) {
  return {{"dt", dt}, {"t_end", 1.0}, {"baumgarte_alpha", alpha}, {"baumgarte_beta", beta},
          {"tikhonov_epsilon", 1e-10}};
}

// ---------------------------------------------------------------------------------------
// (a) Pendulum period.
// A body of mass m = 1 kg with inertia I_c = 0.01 kg m^2 about its CoM, hinged about the
// world y axis at a point l = 1 m from the CoM, released at rest with the CoM level with
// the hinge (theta0 = 90 deg). Angle from the downward vertical: theta = atan2(x, -z),
// I_O theta'' = -m g l sin(theta), I_O = I_c + m l^2. Exact period
//   T = 4 sqrt(I_O / (m g l)) K(k),  k = sin(theta0 / 2)  (K: complete elliptic integral
// of the first kind with modulus k, std::comp_ellint_1).
TEST(ClosedForm, PendulumPeriodMatchesEllipticIntegral) {
  const double m = 1.0, l = 1.0, Ic = 0.01, g = 9.81, dt = 1e-3;
  const json scene = {
      {"gravity", {0.0, 0.0, -g}},
      {"bodies", {{{"name", "bob"}, {"mass", m}, {"inertia", {Ic, Ic, Ic}}, {"position", {l, 0.0, 0.0}}}}},
      {"joints",
       {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
         {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
      {"solver", solver(dt, 10.0, 10.0)}};
  Instance run(scene);
  const int N = 1;
  auto angle = [&](const std::vector<double>& Y, double* rate) {
    const Vec3d r = state_r(Y.data(), 0);
    const Vec3d v = state_v(Y.data(), N, 0);
    *rate = (-r.z * v.x + r.x * v.z) / (r.x * r.x + r.z * r.z);
    return std::atan2(r.x, -r.z);
  };
  const double I_O = Ic + m * l * l;
  const double T_exact = 4.0 * std::sqrt(I_O / (m * g * l)) * std::comp_ellint_1(std::sin(M_PI / 4.0));

  // Zero crossings of theta located by cubic Hermite interpolation of (theta, theta_dot)
  // over the step that brackets them (interpolation error O(dt^4), far below the bound).
  std::vector<double> crossings;
  double rate0 = 0;
  double th0 = angle(run.Y, &rate0);
  double t = 0;
  const int n_steps = static_cast<int>(std::lround(3.3 * T_exact / dt));
  for (int s = 0; s < n_steps; ++s) {
    run.step(dt);
    double rate1 = 0;
    const double th1 = angle(run.Y, &rate1);
    if ((th0 > 0) != (th1 > 0)) {
      auto herm = [&](double x) {  // x in [0, 1]
        const double x2 = x * x, x3 = x2 * x;
        return (2 * x3 - 3 * x2 + 1) * th0 + (x3 - 2 * x2 + x) * dt * rate0 + (-2 * x3 + 3 * x2) * th1 +
               (x3 - x2) * dt * rate1;
      };
      double lo = 0, hi = 1;
      for (int it = 0; it < 60; ++it) {
        const double mid = 0.5 * (lo + hi);
        if ((herm(mid) > 0) == (th0 > 0)) lo = mid; else hi = mid;
      }
      crossings.push_back(t + 0.5 * (lo + hi) * dt);
    }
    th0 = th1;
    rate0 = rate1;
    t += dt;
  }
  ASSERT_GE(crossings.size(), 6u);
  // Successive zero crossings are half a period apart.
  const double T_measured = 2.0 * (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  const double rel = std::abs(T_measured - T_exact) / T_exact;
  std::printf("pendulum: T_exact = %.12f s, T_measured = %.12f s, relative error %.3e\n", T_exact, T_measured, rel);
  // RK4's global error is O(dt^4): with omega_max = sqrt(2 m g l / I_O) ~ 4.4 rad/s and
  // dt = 1e-3, (omega dt)^4 ~ 4e-10; Baumgarte (violation ~1e-12) and Tikhonov (eps 1e-10
  // on C ~ 1) perturb at the same level or below. Bound 1e-8 (measured: 3e-11).
  EXPECT_LT(rel, 1e-8);
}

// ---------------------------------------------------------------------------------------
// (b) Torque-free asymmetric body (Dzhanibekov / tennis-racket flips).
// Principal moments 1, 2, 3 kg m^2, no joints, no gravity, omega_B(0) = (0.05, 5, 0.05)
// rad/s near the intermediate axis: the perturbation grows as exp(lambda t), lambda =
// omega_y sqrt((I2 - I1)(I3 - I2) / (I1 I3)) = 2.9 1/s, so the body flips about every
// 4 s (omega_y changes sign 5 times in 20 s; checked with an independent integration of
// Euler's equations).
TEST(ClosedForm, TorqueFreeBodyConservesEnergyAndMomentumThroughFlips) {
  const double dt = 1e-3, t_end = 20.0;
  const json scene = {
      {"bodies",
       {{{"name", "racket"}, {"mass", 2.0}, {"inertia", {1.0, 2.0, 3.0}}, {"position", {0.0, 0.0, 0.0}},
         {"velocity", {0.1, 0.0, 0.0}}, {"angular_velocity", {0.05, 5.0, 0.05}}}}},
      {"solver", solver(dt, 10.0, 10.0)}};
  Instance run(scene);
  const int N = 1;
  const Mat3d J = run.model.bodies[0].inertia_B;
  auto momentum_W = [&]() {
    const Vec3d w = state_omega(run.Y.data(), N, 0);
    return mul(rotation(normalized(state_p(run.Y.data(), 0))), mul(J, w));
  };
  auto energy = [&]() {
    const Vec3d w = state_omega(run.Y.data(), N, 0);
    const Vec3d v = state_v(run.Y.data(), N, 0);
    return 0.5 * dot(w, mul(J, w)) + 0.5 * 2.0 * dot(v, v);
  };
  const Vec3d L0 = momentum_W();
  const double E0 = energy();
  double max_dE = 0, max_dL = 0;
  int sign_changes = 0;
  double wy_prev = state_omega(run.Y.data(), N, 0).y;
  const int n_steps = static_cast<int>(std::lround(t_end / dt));
  for (int s = 0; s < n_steps; ++s) {
    run.step(dt);
    const double wy = state_omega(run.Y.data(), N, 0).y;
    if ((wy > 0) != (wy_prev > 0)) ++sign_changes;
    wy_prev = wy;
    max_dE = std::max(max_dE, std::abs(energy() - E0) / E0);
    max_dL = std::max(max_dL, norm(momentum_W() - L0) / norm(L0));
  }
  set_kinematics(run.model, run.d, run.Y.data());
  const double E_solver = total_energy(run.model, run.d);
  std::printf("torque-free: %d sign changes of omega_y, max rel energy error %.3e, max rel |dL_W| %.3e, "
              "total_energy() %.12f vs %.12f\n",
              sign_changes, max_dE, max_dL, E_solver, E0);
  EXPECT_GE(sign_changes, 4) << "the body must really flip about its intermediate axis";
  // RK4 local error ~ (|omega| dt)^5 / 120 ~ 3e-14 per step at |omega| dt = 5e-3: 2e4
  // steps give at most ~6e-10 even if every error added up (measured: ~1e-12, printed).
  EXPECT_LT(max_dE, 1e-9);
  EXPECT_LT(max_dL, 1e-9);
  EXPECT_NEAR(E_solver, E0, 1e-9 * E0);
}

// ---------------------------------------------------------------------------------------
// (c) RK4's observed order on a double pendulum, Baumgarte off (alpha = beta = 0), so
// that the stepped ODE is the same smooth ODE for every dt (Tikhonov's eps only modifies
// it, identically for every dt).
std::vector<double> double_pendulum_at(double dt, double horizon) {
  const json scene = {
      {"gravity", {0.0, 0.0, -9.81}},
      {"bodies",
       {{{"name", "upper"}, {"mass", 0.8}, {"inertia", {4e-5, 0.01669, 0.01669}}, {"position", {0.25, 0.0, 0.0}}},
        {{"name", "lower"}, {"mass", 0.6}, {"inertia", {3e-5, 0.01252, 0.01252}}, {"position", {0.75, 0.0, 0.0}}}}},
      {"joints",
       {{{"name", "shoulder"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "upper"},
         {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}},
        {{"name", "elbow"}, {"type", "revolute"}, {"body_i", "upper"}, {"body_j", "lower"},
         {"frame", {{"origin", {0.5, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
      {"solver", solver(dt, 0.0, 0.0)}};
  Instance run(scene);
  const int n = static_cast<int>(std::lround(horizon / dt));
  for (int s = 0; s < n; ++s) run.step(dt);
  return run.Y;
}

TEST(ClosedForm, Rk4ObservedOrderIsFour) {
  const double horizon = 1.0, dt = 4e-3;
  const std::vector<double> ref = double_pendulum_at(dt / 16, horizon);
  double err[3];
  for (int k = 0; k < 3; ++k) {
    const std::vector<double> y = double_pendulum_at(dt / double(1 << k), horizon);
    double e = 0;
    for (std::size_t c = 0; c < y.size(); ++c) e = std::max(e, std::abs(y[c] - ref[c]));
    err[k] = e;
  }
  const double order1 = std::log2(err[0] / err[1]);
  const double order2 = std::log2(err[1] / err[2]);
  std::printf("RK4 order: errors %.3e %.3e %.3e at dt = %g, %g, %g; observed orders %.3f %.3f\n", err[0], err[1],
              err[2], dt, dt / 2, dt / 4, order1, order2);
  EXPECT_GE(order1, 3.6);
  EXPECT_LE(order1, 4.4);
  EXPECT_GE(order2, 3.6);
  EXPECT_LE(order2, 4.4);
}

}  // namespace
}  // namespace simphant
