#pragma once
// The runaway bound of one instance, derived at load from its assembled state and its
// applied loads (docs/solver.md, "Runaway bound"); the step loop tests it with
// formulas/runaway.hpp.
#include "simphant/dynamics/data.hpp"

namespace simphant {

/// Safety factor s on the derived kinetic-energy bound (a factor sqrt(s) = 10 in speed):
/// the derivation bounds the exact dynamics, the integrated one may exceed it by the
/// truncation error; a runaway grows geometrically and passes any fixed factor.
constexpr double kRunawayFactor = 100.0;

/// K_max(t) = (a + b t)^2 [J]; a = +inf: no runaway test.
struct RunawayCoefficients {
  double a = 0;  ///< [sqrt(J)]
  double b = 0;  ///< [sqrt(J)/s]
};

/// The load power coefficient G [sqrt(J)/s] of the model: G^2 = sum over bodies of
/// |F_k|^2 / m_k + |tau_k|^2 / lambda_min(J_k), with |F_k| <= m_k |g| + sum |F| of the
/// point forces on body k and |tau_k| <= sum |tau| of its torques + sum |point_B| |F| of its
/// point forces, so that the power of the constant loads is at most G sqrt(2 T)
/// (Cauchy-Schwarz in the mass metric). Infinite when the model has actuators (their
/// inputs are not bounded at load) or rheonomic drivers (a driver feeds in whatever power
/// its motion law needs; docs/solver.md, "Rheonomic drivers"), so that no bound is
/// derived; a given solver.runaway_kinetic_energy still applies.
double load_power_coefficient(const Model& model);

/// The coefficients of one instance at its assembled state Y (13N): given
/// solver.runaway_kinetic_energy > 0: a = sqrt of it, b = 0; else
/// a = sqrt(s (E_0 + E_floor)), b = sqrt(s / 2) G, with E_0 = kinetic + spring potential
/// at Y, E_floor = 1/2 u^2 sum_k (m_k + lambda_max(J_k)) the energy of the Baumgarte
/// correction of a violation at the bound, u = (2 alpha + beta) violation_bound, and
/// s = kRunawayFactor. d: a workspace for the model's evaluation.
RunawayCoefficients runaway_coefficients(const Model& model, Data& d, const double* Y);

}  // namespace simphant
