#include "simphant/dynamics/runaway_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <Eigen/Eigenvalues>

#include "simphant/dynamics/evaluate.hpp"

namespace simphant {

namespace {

/// Eigenvalues of a symmetric inertia J_B, ascending.
Eigen::Vector3d inertia_eigenvalues(const Mat3d& J) {
  Eigen::Matrix3d A;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) A(r, c) = J.m[r][c];
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(A, Eigen::EigenvaluesOnly).eigenvalues();
}

}  // namespace

double load_power_coefficient(const Model& model) {
  // A driver's power (its load times the prescribed rate) is not bounded at load.
  if (model.n_drivers() > 0) return std::numeric_limits<double>::infinity();
  const int N = model.n_bodies();
  std::vector<double> force(static_cast<std::size_t>(N)), torque(static_cast<std::size_t>(N));
  const double g = norm(model.gravity);
  for (int k = 0; k < N; ++k) force[k] = model.bodies[k].mass * g;
  for (const ForceElement& f : model.forces) {
    if (f.type == ForceType::Actuator) return std::numeric_limits<double>::infinity();
    if (f.body < 0) continue;
    if (f.type == ForceType::PointForce) {
      force[f.body] += norm(f.vec);
      torque[f.body] += norm(f.point_B) * norm(f.vec);
    } else if (f.type == ForceType::Torque) {
      torque[f.body] += norm(f.vec);
    }
  }
  double G2 = 0;
  for (int k = 0; k < N; ++k) {
    const Body& b = model.bodies[k];
    G2 += force[k] * force[k] / b.mass;
    if (torque[k] > 0) G2 += torque[k] * torque[k] / inertia_eigenvalues(b.inertia_B)[0];
  }
  return std::sqrt(G2);
}

RunawayCoefficients runaway_coefficients(const Model& model, Data& d, const double* Y) {
  RunawayCoefficients c;
  const SolverSettings& s = model.solver;
  if (s.runaway_kinetic_energy > 0) {
    c.a = std::sqrt(s.runaway_kinetic_energy);
    return c;
  }
  const double G = load_power_coefficient(model);
  if (!std::isfinite(G)) {
    c.a = std::numeric_limits<double>::infinity();
    return c;
  }
  set_kinematics(model, d, Y);
  const int N = model.n_bodies();
  double gravity_potential = 0, mass_sum = 0;
  for (int k = 0; k < N; ++k) {
    gravity_potential -= model.bodies[k].mass * dot(model.gravity, d.kin[k].r);
    mass_sum += model.bodies[k].mass + inertia_eigenvalues(model.bodies[k].inertia_B)[2];
  }
  // kinetic + spring potential = total - gravity potential
  const double E0 = std::max(0.0, total_energy(model, d) - gravity_potential);
  const double u = (2.0 * s.baumgarte_alpha + s.baumgarte_beta) * s.violation_bound;
  const double E_floor = 0.5 * u * u * mass_sum;
  c.a = std::sqrt(kRunawayFactor * (E0 + E_floor));
  c.b = std::sqrt(0.5 * kRunawayFactor) * G;
  return c;
}

}  // namespace simphant
