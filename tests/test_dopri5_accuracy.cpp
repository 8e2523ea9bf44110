// Accuracy of the CPU backend's Dormand-Prince 5(4) integration (sim/cpu_dopri5.cpp)
// against closed forms, as rtol falls:
//  (a) the large-amplitude pendulum period (complete elliptic integral K(k));
//  (b) a torque-free asymmetric body through its flips: the body angular velocity at
//      the 4th sign change of omega_2 from the Jacobi-elliptic solution (crossing times
//      from incomplete elliptic integrals F(phi, k));
//  (c) the heavy symmetric top: energy, the spin I3 omega_3 and the vertical angular
//      momentum about the pivot are conserved, and the nutation stays between the roots
//      of the turning-point cubic;
//  (d) observed order 5 at a fixed step (first_step = min_step = max_step, tolerances
//      that accept every step), on a double pendulum with Baumgarte off;
//  (e) the dense output at grid times inside the steps against the states of runs whose
//      steps land on those grid times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "dopri5_support.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {
namespace {

using nlohmann::json;
using test::Dopri5Settings;
using test::dopri5_backend;
using test::dopri5_model;
using test::state_of;

json solver(double dt, double alpha, double beta, double t_end = 1.0) {
  return {{"dt", dt}, {"t_end", t_end}, {"baumgarte_alpha", alpha}, {"baumgarte_beta", beta},
          {"tikhonov_epsilon", 1e-10}};
}

/// rtol and atol of the runs: atol = 1e-3 rtol (positions ~ 1 m, velocities ~ 1-10 /s:
/// the relative part dominates).
Dopri5Settings tol(double rtol) {
  Dopri5Settings s;
  s.rtol = rtol;
  s.atol = 1e-3 * rtol;
  return s;
}

// ---------------------------------------------------------------------------------------
// (a) The compound pendulum of test_closed_form.cpp (m = 1 kg, I_c = 0.01 kg m^2, hinge
// 1 m from the CoM about W's y), released at rest at theta0 = 90 deg: exact period
// T = 4 sqrt(I_O / (m g l)) K(sin(theta0 / 2)). The grid is T / 100, so grid step 300 is
// t = 3 T (to an ulp), where the pendulum is back at its turning point theta0. There
// theta' = theta''(theta0) (t - t_turn), so the period error is
// dT = -theta'(3T) / (3 theta''(theta0)), theta''(theta0) = -m g l / I_O.
double pendulum_period_error(double rtol) {
  const double m = 1.0, l = 1.0, Ic = 0.01, g = 9.81;
  const double I_O = Ic + m * l * l;
  const double T = 4.0 * std::sqrt(I_O / (m * g * l)) * std::comp_ellint_1(std::sin(M_PI / 4.0));
  const json scene = {
      {"gravity", {0.0, 0.0, -g}},
      {"bodies", {{{"name", "bob"}, {"mass", m}, {"inertia", {Ic, Ic, Ic}}, {"position", {l, 0.0, 0.0}}}}},
      {"joints",
       {{{"name", "hinge"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "bob"},
         {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
      {"solver", solver(T / 100, 10.0, 10.0, 3 * T)}};
  auto b = dopri5_backend({dopri5_model(scene, tol(rtol))});
  b->advance(300);
  const std::vector<double> Y = state_of(*b, 0);
  const Vec3d r = state_r(Y.data(), 0), v = state_v(Y.data(), 1, 0);
  const double rate = (-r.z * v.x + r.x * v.z) / (r.x * r.x + r.z * r.z);
  const double theta_dd = -m * g * l / I_O;
  std::int64_t acc = 0, rej = 0;
  b->read_step_statistics(&acc, &rej, nullptr, nullptr);
  const double rel = std::fabs(rate / (3 * theta_dd)) / T;
  std::printf("pendulum rtol %.0e: period error %.3e relative, %lld accepted, %lld rejected steps\n", rtol, rel,
              static_cast<long long>(acc), static_cast<long long>(rej));
  return rel;
}

TEST(Dopri5Accuracy, PendulumPeriodErrorFallsWithRtol) {
  // The global error of an error-per-step controller is about proportional to rtol
  // (Hairer-Norsett-Wanner II.4, "Numerical experiments": tolerance proportionality).
  // Measured (2026-12-01): 1.15e-5, 5.9e-8, 3.4e-10 at rtol 1e-5, 1e-7, 1e-9 (200, 487,
  // 1230 steps): 1.1 rtol at most and 190x, 176x per two decades. Bounds: below 10 rtol,
  // at least 50x per two decades (a slope of 0.85).
  double prev = 0;
  for (double rtol : {1e-5, 1e-7, 1e-9}) {
    const double e = pendulum_period_error(rtol);
    EXPECT_LT(e, 10 * rtol) << "rtol=" << rtol;
    if (prev > 0) {
      EXPECT_LT(e, prev / 50) << "rtol=" << rtol;
    }
    prev = e;
  }
}

// ---------------------------------------------------------------------------------------
// (b) Torque-free body, principal moments I = (1, 2, 3) kg m^2, omega_B(0) = (0.05, 5,
// 0.05) rad/s next to the intermediate axis (test_closed_form.cpp's racket). With 2E =
// sum I_i w_i^2 and L^2 = sum I_i^2 w_i^2 (here 2 E I_1 < 2 E I_2 < L^2 < 2 E I_3), Euler's
// equations are solved by (Landau-Lifshitz, Mechanics, section 37)
//   w1 = A1 cn(tau, k), w2 = A2 sn(tau, k), w3 = A3 dn(tau, k), tau = p (t + t0),
//   A1^2 = (2E I3 - L^2) / (I1 (I3 - I1)), A2^2 = (2E I3 - L^2) / (I2 (I3 - I2)),
//   A3^2 = (L^2 - 2E I1) / (I3 (I3 - I1)), p^2 = (I3 - I2)(L^2 - 2E I1) / (I1 I2 I3),
//   k^2 = (I2 - I1)(2E I3 - L^2) / ((I3 - I2)(L^2 - 2E I1)).
// At t = 0 all w_i > 0, so the amplitude am(p t0) = acos(w1(0) / A1) in (0, pi/2) and
// p t0 = F(acos(w1(0) / A1), k). w2 changes sign at tau = 2 K m (the flips); at the 4th,
// tau = 8 K, cn = dn = 1: omega_B = (A1, 0, A3) exactly.
double flip_error(double rtol, double* t4_out) {
  const double I1 = 1, I2 = 2, I3 = 3, w10 = 0.05, w20 = 5, w30 = 0.05;
  const double E2 = I1 * w10 * w10 + I2 * w20 * w20 + I3 * w30 * w30;
  const double L2 = I1 * I1 * w10 * w10 + I2 * I2 * w20 * w20 + I3 * I3 * w30 * w30;
  const double A1 = std::sqrt((E2 * I3 - L2) / (I1 * (I3 - I1)));
  const double A3 = std::sqrt((L2 - E2 * I1) / (I3 * (I3 - I1)));
  const double p = std::sqrt((I3 - I2) * (L2 - E2 * I1) / (I1 * I2 * I3));
  const double k = std::sqrt((I2 - I1) * (E2 * I3 - L2) / ((I3 - I2) * (L2 - E2 * I1)));
  const double tau0 = std::ellint_1(k, std::acos(w10 / A1));
  const double t4 = (8 * std::comp_ellint_1(k) - tau0) / p;
  *t4_out = t4;
  const json scene = {
      {"bodies",
       {{{"name", "racket"}, {"mass", 2.0}, {"inertia", {I1, I2, I3}}, {"position", {0.0, 0.0, 0.0}},
         {"velocity", {0.1, 0.0, 0.0}}, {"angular_velocity", {w10, w20, w30}}}}},
      {"solver", solver(t4 / 400, 10.0, 10.0, t4)}};
  auto b = dopri5_backend({dopri5_model(scene, tol(rtol))});
  b->advance(400);
  const std::vector<double> Y = state_of(*b, 0);
  const Vec3d w = state_omega(Y.data(), 1, 0);
  const double e = std::sqrt((w.x - A1) * (w.x - A1) + w.y * w.y + (w.z - A3) * (w.z - A3)) / w20;
  std::int64_t acc = 0;
  b->read_step_statistics(&acc, nullptr, nullptr, nullptr);
  std::printf("torque-free rtol %.0e: |omega_B(t4) - (A1, 0, A3)| / |omega| = %.3e at t4 = %.6f s (%lld steps)\n", rtol,
              e, t4, static_cast<long long>(acc));
  return e;
}

TEST(Dopri5Accuracy, TorqueFreeFlipsFollowTheEllipticSolution) {
  // Near the separatrix (k = 0.9999) the flip time is sensitive to the phase, so the
  // error at t4 is the accumulated phase error times |omega_2'| ~ A2 p: it falls with
  // rtol as in (a). Measured (2026-12-01): 9.2e-6, 7.1e-8, 7.6e-10 at rtol 1e-6, 1e-8,
  // 1e-10 (198, 510, 1314 steps), 7-9 rtol, 130x and 94x per two decades. Bounds: below
  // 50 rtol, at least 50x per two decades.
  double prev = 0, t4 = 0;
  for (double rtol : {1e-6, 1e-8, 1e-10}) {
    const double e = flip_error(rtol, &t4);
    EXPECT_LT(e, 50 * rtol) << "rtol=" << rtol;
    if (prev > 0) {
      EXPECT_LT(e, prev / 50) << "rtol=" << rtol;
    }
    prev = e;
  }
  EXPECT_GT(t4, 13.0);  // four flips of about 3.9 s each after the first quarter
}

// ---------------------------------------------------------------------------------------
// (c) Heavy symmetric top (examples/spinning_top.json): m = 0.5 kg, I_c = (6.5e-4,
// 6.5e-4, 9e-4) kg m^2, CoM l = 0.04 m up the symmetry axis from the spherical joint at
// the origin, tilted theta0 = 20 deg about W's x, spinning at omega_3 = 125 rad/s with
// no precession rate. About the pivot I1 = I_c1 + m l^2, I3 = I_c3. Conserved: the
// energy, p_psi = I3 omega_3 and p_phi = L_O . e_z. u = cos theta moves between the
// roots of f(u) = (1 - u^2)(alpha - beta u) - (b - a u)^2, a = p_psi / I1, b = p_phi / I1,
// alpha = 2 E' / I1, beta = 2 m g l / I1 (Goldstein, Classical Mechanics, 5.7); started
// at rest in theta and phi, u0 is one root and the other solves
// beta (1 - u^2) = a^2 (u0 - u).
struct TopDrift {
  double energy = 0, p_psi = 0, p_phi = 0, u_min = 1, u_max = -1, u_root = 0, u0 = 0;
};

TopDrift top_drift(double rtol) {
  const double m = 0.5, l = 0.04, g = 9.81, Ic1 = 6.5e-4, Ic3 = 9e-4, w3 = 125.0, th0 = 20.0 * M_PI / 180.0;
  const double dt = 5e-4;
  const int steps = 2000;  // 1 s, about 12 nutation periods of 2 pi / a = 0.081 s
  const json scene = {
      {"gravity", {0.0, 0.0, -g}},
      {"bodies",
       {{{"name", "top"}, {"mass", m}, {"inertia", {Ic1, Ic1, Ic3}},
         {"position", {0.0, -l * std::sin(th0), l * std::cos(th0)}},
         {"orientation", {std::cos(th0 / 2), std::sin(th0 / 2), 0.0, 0.0}},
         {"angular_velocity", {0.0, 0.0, w3}}}}},
      {"joints",
       {{{"name", "tip"}, {"type", "spherical"}, {"body_i", "ground"}, {"body_j", "top"},
         {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 0.0, 1.0}}}}}}},
      {"solver", solver(dt, 10.0, 10.0, steps * dt)}};
  const double I1 = Ic1 + m * l * l, I3 = Ic3;
  Mat3d J_O{};
  J_O.m[0][0] = J_O.m[1][1] = I1;
  J_O.m[2][2] = I3;
  const auto invariants = [&](const std::vector<double>& Y, double* E, double* pp, double* ph, double* u) {
    const Quatd q = normalized(state_p(Y.data(), 0));
    const Mat3d R = rotation(q);
    const Vec3d w = state_omega(Y.data(), 1, 0);
    const Vec3d r = state_r(Y.data(), 0);
    *E = 0.5 * dot(w, mul(J_O, w)) + m * g * r.z;  // rotation about the fixed pivot
    *pp = I3 * w.z;
    *ph = mul(R, mul(J_O, w)).z;
    *u = mul(R, Vec3d{0.0, 0.0, 1.0}).z;
  };
  auto b = dopri5_backend({dopri5_model(scene, tol(rtol))});
  double E0, pp0, ph0, u0;
  invariants(state_of(*b, 0), &E0, &pp0, &ph0, &u0);
  TopDrift d;
  d.u0 = u0;
  const double a = pp0 / I1, beta = 2 * m * g * l / I1;
  d.u_root = (a * a - std::sqrt(a * a * a * a - 4 * beta * (a * a * u0 - beta))) / (2 * beta);
  for (int s = 0; s < steps; ++s) {
    b->advance(1);
    double E, pp, ph, u;
    invariants(state_of(*b, 0), &E, &pp, &ph, &u);
    d.energy = std::max(d.energy, std::fabs(E - E0) / (0.5 * I3 * w3 * w3));
    d.p_psi = std::max(d.p_psi, std::fabs(pp - pp0) / std::fabs(pp0));
    d.p_phi = std::max(d.p_phi, std::fabs(ph - ph0) / std::fabs(pp0));
    d.u_min = std::min(d.u_min, u);
    d.u_max = std::max(d.u_max, u);
  }
  std::int8_t status = 0;
  double status_time = 0;
  b->read_status(&status, &status_time, nullptr);
  EXPECT_EQ(status, 0);
  std::printf("heavy top rtol %.0e: max drift energy %.3e, p_psi %.3e, p_phi %.3e; u in [%.9f, %.9f], roots %.9f, %.9f\n",
              rtol, d.energy, d.p_psi, d.p_phi, d.u_min, d.u_max, d.u_root, d.u0);
  return d;
}

TEST(Dopri5Accuracy, HeavyTopConservesAndNutatesBetweenTheRoots) {
  double prev = 0;
  for (double rtol : {1e-6, 1e-8, 1e-10}) {
    const TopDrift d = top_drift(rtol);
    const double worst = std::max({d.energy, d.p_psi, d.p_phi});
    // Drifts relative to the spin's kinetic energy / momentum. Measured (2026-12-01):
    // p_phi drifts most, 7.1e-8, 6.6e-10, 6.1e-12 at rtol 1e-6, 1e-8, 1e-10 (energy
    // 2.6e-9 .. 2.0e-13; p_psi stays exact: the torques about the pivot have no
    // component along the symmetry axis). Bounds: below rtol, at least 50x per two
    // decades.
    EXPECT_LT(worst, rtol) << "rtol=" << rtol;
    if (prev > 0) {
      EXPECT_LT(worst, prev / 50) << "rtol=" << rtol;
    }
    prev = worst;
    // Nutation between the roots: sampled every 0.5 ms, the extreme samples miss the
    // turning points by at most 0.25 ms, u'' (dt/2)^2 / 2 ~ 5e-7 with u'' ~ a^2 (u0 -
    // u_root) / 2 = 17 /s^2; the integration error adds 1e3 rtol (u through the phase).
    const double sampling = 0.5 * 17.2 * 2.5e-4 * 2.5e-4 * 1.2;
    EXPECT_NEAR(d.u_max, d.u0, sampling + 1e3 * rtol) << "rtol=" << rtol;
    EXPECT_NEAR(d.u_min, d.u_root, sampling + 1e3 * rtol) << "rtol=" << rtol;
  }
}

// ---------------------------------------------------------------------------------------
// (d) Observed order 5 at a fixed step: test_closed_form.cpp's double pendulum with
// Baumgarte off (the same smooth ODE for every h), h = first_step = min_step = max_step,
// rtol = 1 and atol = 1e6 so that every step is accepted (checked: no rejection, min =
// max = h). Grid dt = 0.2 s, t = 1 s; the reference takes h / 16.
json double_pendulum(double dt, double t_end) {
  return {{"gravity", {0.0, 0.0, -9.81}},
          {"bodies",
           {{{"name", "upper"}, {"mass", 0.8}, {"inertia", {4e-5, 0.01669, 0.01669}}, {"position", {0.25, 0.0, 0.0}}},
            {{"name", "lower"}, {"mass", 0.6}, {"inertia", {3e-5, 0.01252, 0.01252}}, {"position", {0.75, 0.0, 0.0}}}}},
          {"joints",
           {{{"name", "shoulder"}, {"type", "revolute"}, {"body_i", "ground"}, {"body_j", "upper"},
             {"frame", {{"origin", {0.0, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}},
            {{"name", "elbow"}, {"type", "revolute"}, {"body_i", "upper"}, {"body_j", "lower"},
             {"frame", {{"origin", {0.5, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}}}}}},
          {"solver", solver(dt, 0.0, 0.0, t_end)}};
}

Dopri5Settings fixed_step(double h) {
  Dopri5Settings s;
  s.rtol = 1.0;
  s.atol = 1e6;
  s.first_step = s.min_step = s.max_step = h;
  return s;
}

/// Grid states (n_grid grid steps of dt, every one) of the double pendulum at fixed h.
std::vector<std::vector<double>> fixed_step_run(double h, double dt, int n_grid) {
  auto b = dopri5_backend({dopri5_model(double_pendulum(dt, n_grid * dt), fixed_step(h))});
  std::vector<std::vector<double>> out;
  for (int s = 0; s < n_grid; ++s) {
    b->advance(1);
    out.push_back(state_of(*b, 0));
  }
  std::int64_t acc = 0, rej = 0;
  double hmin = 0, hmax = 0;
  b->read_step_statistics(&acc, &rej, &hmin, &hmax);
  EXPECT_EQ(rej, 0);
  EXPECT_EQ(hmin, h);
  EXPECT_EQ(hmax, h);
  EXPECT_GE(acc, std::llround(n_grid * dt / h));
  return out;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0;
  for (std::size_t c = 0; c < a.size(); ++c) e = std::max(e, std::fabs(a[c] - b[c]));
  return e;
}

TEST(Dopri5Accuracy, ObservedOrderFiveAtFixedStep) {
  const double h = 0.01, dt = 0.2;
  const std::vector<double> ref = fixed_step_run(h / 16, dt, 5).back();
  double err[3];
  for (int k = 0; k < 3; ++k) err[k] = max_diff(fixed_step_run(h / (1 << k), dt, 5).back(), ref);
  const double p1 = std::log2(err[0] / err[1]), p2 = std::log2(err[1] / err[2]);
  std::printf("dopri5 order: errors %.3e %.3e %.3e at h = %g, %g, %g; observed orders %.3f %.3f\n", err[0], err[1],
              err[2], h, h / 2, h / 4, p1, p2);
  // Measured (2026-12-01): 1.7e-6, 4.3e-8, 1.2e-9, orders 5.31 and 5.15 (at h = 0.04
  // the error is 1e-2 and the order 6.9: not yet asymptotic). The errors are far above
  // the reference's (h/16: 16^-5 of the smallest) and round-off; the next term of the
  // expansion moves the observed order by O(h).
  EXPECT_NEAR(p1, 5.0, 0.4);
  EXPECT_NEAR(p2, 5.0, 0.4);
}

// ---------------------------------------------------------------------------------------
// (e) Dense output: at a fixed step h with the grid dt = h / 4, three of four grid states
// come from the continuous extension inside a step (theta = 1/4, 1/2, 3/4) and every 4th
// from a step's end. Against a reference whose steps land on every grid time (h / 64 on
// the same grid), the interior states' error is of the order of the step-end states'
// (the extension's local error O(h^5) is of the global error's order) and falls with h
// at order 5; the step-end states equal those of the run on the grid dt = h.
TEST(Dopri5Accuracy, DenseOutputInsideStepsMatchesRunsThatLandOnTheGrid) {
  const double t_end = 1.0;
  double mid_err[2];
  for (int k = 0; k < 2; ++k) {
    const double h = 0.01 / (1 << k), dt = h / 4;
    const int n = static_cast<int>(std::lround(t_end / dt));
    const auto fine = fixed_step_run(h, dt, n);
    const auto ref = fixed_step_run(h / 64, dt, n);
    const auto coarse = fixed_step_run(h, h, n / 4);
    double e_mid = 0, e_end = 0, e_same = 0;
    for (int s = 0; s < n; ++s) {
      const double e = max_diff(fine[s], ref[s]);
      if ((s + 1) % 4 == 0) {
        e_end = std::max(e_end, e);
        e_same = std::max(e_same, max_diff(fine[s], coarse[(s + 1) / 4 - 1]));
      } else {
        e_mid = std::max(e_mid, e);
      }
    }
    std::printf("dense output h = %g: max error inside steps %.3e, at step ends %.3e, step ends vs grid-landing run %.3e\n",
                h, e_mid, e_end, e_same);
    // Step ends: the same steps (the grid does not change them); a step end that differs
    // from the grid time by an ulp would move the state by ~ |Y'| ulp(t) (measured: 0,
    // the ends land on the grid bit for bit here).
    EXPECT_LT(e_same, 1e-13);
    // Measured (2026-12-01): inside 3.6e-6, 1.2e-7; step ends 1.9e-6, 4.8e-8 at h = 0.01,
    // 0.005: the ratio 1.9, 2.6 (both O(h^5); the step ends are not yet asymptotic,
    // order 5.3). Bound 4.
    EXPECT_LT(e_mid, 4 * e_end + 1e-13);
    mid_err[k] = e_mid;
  }
  EXPECT_NEAR(std::log2(mid_err[0] / mid_err[1]), 5.0, 0.5);  // measured 4.86
}

}  // namespace
}  // namespace simphant
