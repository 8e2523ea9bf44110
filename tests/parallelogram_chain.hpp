#pragma once
// A chain of N parallelogram cells built from spatial revolute joints (the model of
// tests/test_parallelogram_chain.cpp and bench/bench_projection.cpp), and its reduced
// one-degree-of-freedom reference.
//
// N + 1 equal rockers (length R, mass m_r, CoM at c = R/2 from the pivot, moment J_r
// about their axis through the CoM) hang from pivots on the ground at x = i L, z = 0;
// N couplers (length L, mass m_c) join the tips of neighbouring rockers. Every revolute
// axis is W's y, gravity is -z: a planar mechanism with N closed loops, 5 (3 N + 1) rows of
// which 3 N are redundant, and one degree of freedom: every rocker at the same angle
// theta (from +x towards +z), every coupler translating on a circle of radius R. Where
// theta = 0 or pi all links lie on the ground line and Phi_q loses N more ranks (each
// cell could fold into an anti-parallelogram there).
//
// Reduced coordinates (Lagrange): T = 1/2 I theta_dot^2, V = G sin(theta) with
//   I = (N + 1)(J_r + m_r c^2) + N m_c R^2,   G = g ((N + 1) m_r c + N m_c R),
// so theta_ddot = -(G / I) cos(theta).
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace simphant::test {

struct ParallelogramChain {
  int cells = 1;
  double L = 1.0, R = 0.5, m_r = 1.0, J_r = 1.0 / 48.0, m_c = 1.0, J_c = 1.0 / 12.0, g = 9.81;
  /// Highest angle of the swing [rad]: started hanging (theta = -pi/2) with the speed
  /// that reaches theta_max, so every half swing passes the flat configurations
  /// theta = 0 (when theta_max > 0) and theta = -pi.
  double theta_max = 0.3;

  double c() const { return 0.5 * R; }
  double inertia() const { return (cells + 1) * (J_r + m_r * c() * c()) + cells * m_c * R * R; }
  double weight_moment() const { return g * ((cells + 1) * m_r * c() + cells * m_c * R); }
  double theta0() const { return -0.5 * M_PI; }
  double theta_dot0() const {
    return std::sqrt(2.0 * weight_moment() / inertia() * (std::sin(theta_max) - std::sin(theta0())));
  }
  /// Total energy [J] of the reduced model at (theta, theta_dot); the same as the
  /// maximal-coordinate model's total_energy (zero potential at z = 0).
  double energy(double th, double thd) const { return 0.5 * inertia() * thd * thd + weight_moment() * std::sin(th); }

  /// The scene (scene format, docs/scene-format.md), started at theta0 with theta_dot0.
  nlohmann::json scene(double dt, double t_end, const std::string& projection) const {
    using nlohmann::json;
    json bodies = json::array(), joints = json::array();
    const double w = theta_dot0();
    const json axis_frame_x = {1.0, 0.0, 0.0}, axis_y = {0.0, 1.0, 0.0};
    for (int i = 0; i <= cells; ++i) {
      bodies.push_back({{"name", "rocker" + std::to_string(i)},
                        {"mass", m_r},
                        {"inertia", {J_r, J_r, J_r}},
                        {"position", {i * L, 0.0, -c()}},
                        {"velocity", {c() * w, 0.0, 0.0}},
                        {"angular_velocity_world", {0.0, -w, 0.0}}});
      joints.push_back({{"name", "pivot" + std::to_string(i)},
                        {"type", "revolute"},
                        {"body_i", "ground"},
                        {"body_j", "rocker" + std::to_string(i)},
                        {"frame", {{"origin", {i * L, 0.0, 0.0}}, {"z", axis_y}, {"x", axis_frame_x}}}});
    }
    for (int i = 0; i < cells; ++i) {
      const std::string name = "coupler" + std::to_string(i);
      bodies.push_back({{"name", name},
                        {"mass", m_c},
                        {"inertia", {J_c, J_c, J_c}},
                        {"position", {(i + 0.5) * L, 0.0, -R}},
                        {"velocity", {R * w, 0.0, 0.0}}});
      for (int side = 0; side < 2; ++side) {
        const int rocker = i + side;
        joints.push_back({{"name", name + (side ? "_right" : "_left")},
                          {"type", "revolute"},
                          {"body_i", "rocker" + std::to_string(rocker)},
                          {"body_j", name},
                          {"frame", {{"origin", {rocker * L, 0.0, -R}}, {"z", axis_y}, {"x", axis_frame_x}}}});
      }
    }
    return {{"name", "parallelogram chain of " + std::to_string(cells) + " cells"},
            {"gravity", {0.0, 0.0, -g}},
            {"bodies", bodies},
            {"joints", joints},
            {"solver", {{"dt", dt}, {"t_end", t_end}, {"projection", projection}}}};
  }
};

/// theta(t) of the reduced model by classical RK4 at step h (h divides t exactly enough
/// for the caller: round(t / h) steps). Returns {theta, theta_dot}.
inline std::pair<double, double> reduced_chain_solution(const ParallelogramChain& ch, double t, double h) {
  const double k = ch.weight_moment() / ch.inertia();
  double th = ch.theta0(), w = ch.theta_dot0();
  const long n = std::lround(t / h);
  for (long s = 0; s < n; ++s) {
    const double a1 = -k * std::cos(th), v1 = w;
    const double a2 = -k * std::cos(th + 0.5 * h * v1), v2 = w + 0.5 * h * a1;
    const double a3 = -k * std::cos(th + 0.5 * h * v2), v3 = w + 0.5 * h * a2;
    const double a4 = -k * std::cos(th + h * v3), v4 = w + h * a3;
    th += h / 6.0 * (v1 + 2 * v2 + 2 * v3 + v4);
    w += h / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4);
  }
  return {th, w};
}

}  // namespace simphant::test
