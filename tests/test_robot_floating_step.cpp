// The joint-space step with a floating base (kernels/reduced_step.hpp over
// robot_dynamics.hpp's floating state), run through the CPU ReducedBackend on solo12 made
// floating (example-robot-data), checked against the laws of a free system in a uniform
// gravity field g: the total momentum P = sum m_i v_i obeys dP/dt = M g, so the centre of
// mass follows c(t) = c0 + (P0 / M) t + g t^2 / 2; the angular momentum about the centre of
// mass, L = sum m_i (c_i - c) x (v_i - v_c) + R_i I_i omega_i, is constant; without damping
// the energy K + V is constant. The joints are driven by torques and servos (internal
// forces, which change none of these). The body records (read_states: CoM, orientation,
// CoM velocity, body-frame angular velocity; the base first) give every quantity, so the
// test also checks the records' frames.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "robot_data.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/reduced_backend.hpp"

namespace simphant {
namespace {

using nlohmann::json;

Model solo(const std::string& dir, const char* solver, const char* integrator, double dt, bool damping) {
  json doc;
  doc["name"] = "solo12";
  doc["robot"] = {{"urdf", dir + "/solo_description/robots/solo12.urdf"},
                  {"floating_base", true},
                  {"base", {{"position", {0.1, -0.2, 0.5}},
                            {"orientation", {0.9, 0.1, -0.3, 0.2}},
                            {"velocity", {0.3, -0.1, 1.0}},
                            {"angular_velocity", {0.4, -0.7, 0.5}}}},
                  {"q0", {0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6}},
                  {"qd0", {0.5, -0.3, 0.2, 0.1, 0.4, -0.6, -0.2, 0.3, 0.1, 0.2, -0.1, 0.3}},
                  {"tau", {0.01, -0.02, 0.005, 0, 0.01, -0.01, 0.02, 0, 0, -0.01, 0.01, 0}}};
  // No position limits: their stiffness is derived from dt (docs/robots.md), which would
  // make the error not converge with dt; the laws hold with them all the same.
  doc["robot"]["urdf_dynamics"] = {{"limits", false}, {"damping", damping}, {"friction", damping}};
  doc["solver"] = {{"type", solver}, {"dt", dt}, {"t_end", 1.0}, {"integrator", integrator}};
  return parse_scene(doc.dump()).model;
}

struct Momenta {
  Vec3d c, P, L;  ///< centre of mass [m], momentum [kg m/s], angular momentum about c [kg m^2/s]
  double M;
};

/// From the body records of instance 0 (mass and inertia per body from the model).
Momenta momenta(const Backend& b, const Model& m) {
  const RobotJointSpace& r = *m.robot;
  const int bodies = r.n() + 1;
  std::vector<double> rec(13 * bodies);
  b.read_states(rec.data());
  const auto mass = [&](int i) { return i == 0 ? r.model.base.mass : r.model.links[i - 1].mass; };
  const auto inertia = [&](int i) { return i == 0 ? r.model.base.inertia_com : r.model.links[i - 1].inertia_com; };
  Momenta out{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, 0};
  for (int i = 0; i < bodies; ++i) {
    const double* x = rec.data() + 13 * i;
    out.M += mass(i);
    out.c += mass(i) * Vec3d{x[0], x[1], x[2]};
    out.P += mass(i) * Vec3d{x[7], x[8], x[9]};
  }
  out.c = (1.0 / out.M) * out.c;
  const Vec3d vc = (1.0 / out.M) * out.P;
  for (int i = 0; i < bodies; ++i) {
    const double* x = rec.data() + 13 * i;
    const Mat3d R = rotation(Quatd{x[3], x[4], x[5], x[6]});
    const Vec3d w_B{x[10], x[11], x[12]};
    out.L += mass(i) * cross(Vec3d{x[0], x[1], x[2]} - out.c, Vec3d{x[7], x[8], x[9]} - vc) + mul(R, mul(inertia(i), w_B));
  }
  return out;
}

double norm_of(const Vec3d& a) { return std::sqrt(dot(a, a)); }

// RK4, dt = 1e-3, 1 s, aba and cga. The joints spin up to ~30 rad/s, so RK4's error is
// not small; measured (aba) and checked to fall 16-fold per halved step, so it is the
// integrator's and not a modelling error: |c - c_ref| 1.6e-10, 1.0e-11, 6.6e-13 m;
// |P - P_ref| / |P| 1.3e-10, 8e-12, 5e-13; |L - L0| / |L0| 1.5e-8, 9.6e-10, 6e-11 at
// dt = 1e-3, 5e-4, 2.5e-4 s. Bounds: 10x the dt = 1e-3 figures. Energy (no damping, no
// friction, no torques) within 1e-9 relative.
TEST(RobotFloatingStep, FreeFallKeepsTheMomentumLaws) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* solver : {"aba", "cga"}) {
    SCOPED_TRACE(solver);
    const Model m = solo(dir, solver, "rk4", 1e-3, true);
    ReducedBackend b(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 1, 1);
    const Momenta m0 = momenta(b, m);
    b.advance(1000);
    const Momenta m1 = momenta(b, m);
    const Vec3d g = m.robot->model.gravity;
    const Vec3d c_ref = m0.c + (1.0 / m0.M) * m0.P + 0.5 * g;
    const Vec3d P_ref = m0.P + m0.M * g;
    EXPECT_LT(norm_of(m1.c - c_ref), 2e-9);
    EXPECT_LT(norm_of(m1.P - P_ref), 2e-9 * norm_of(P_ref));
    EXPECT_LT(norm_of(m1.L - m0.L), 2e-7 * norm_of(m0.L));
    EXPECT_GT(norm_of(m0.L), 1e-3);
    std::vector<double> y(b.state_size());
    b.get_state(nullptr, 1, y.data(), nullptr, nullptr, nullptr, nullptr);
    EXPECT_NEAR(y[3] * y[3] + y[4] * y[4] + y[5] * y[5] + y[6] * y[6], 1.0, 1e-15) << "quat_B unit";
  }
  // Energy: no torques, no damping or friction, no limits reached.
  Model m = solo(dir, "aba", "rk4", 1e-3, false);
  {
    auto r = std::make_shared<RobotJointSpace>(*m.robot);
    r->tau.assign(r->tau.size(), 0.0);
    m.robot = r;
  }
  ReducedBackend b(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 1, 1);
  double e0 = 0, e1 = 0, k0 = 0;
  b.read_energy(&e0, &k0);
  b.advance(1000);
  b.read_energy(&e1, nullptr);
  EXPECT_NEAR(e1, e0, 1e-9 * std::abs(e0));
  EXPECT_GT(k0, 0.1);
}

// The first-order integrators on the floating state: the centre of mass's error against
// c(t) at t = 0.2 s halves with the step (order 1: ratio 2 +- 20 %), and RK4's falls by
// 16 (order 4: +- 25 %), checking euler's and symplectic_euler's base update
// (symplectic: the positions from the new velocities).
TEST(RobotFloatingStep, IntegratorsConvergeAtTheirOrder) {
  SIMPHANT_REQUIRE_ROBOT_DATA(dir);
  for (const char* integrator : {"euler", "symplectic_euler", "rk4"}) {
    SCOPED_TRACE(integrator);
    double err[2];
    for (int half = 0; half < 2; ++half) {
      const double dt = (integrator == std::string("rk4") ? 1e-2 : 2e-3) / (half + 1);
      const Model m = solo(dir, "aba", integrator, dt, true);
      ReducedBackend b(std::make_shared<const std::vector<Model>>(std::vector<Model>{m}), 1, 1);
      const Momenta m0 = momenta(b, m);
      b.advance(static_cast<int>(std::lround(0.2 / dt)));
      const Momenta m1 = momenta(b, m);
      const Vec3d c_ref = m0.c + 0.2 / m0.M * m0.P + 0.02 * m.robot->model.gravity;
      err[half] = norm_of(m1.c - c_ref) + norm_of(m1.L - m0.L);
    }
    const double order = integrator == std::string("rk4") ? 16.0 : 2.0;
    EXPECT_GT(err[0] / err[1], order * (order > 2 ? 0.75 : 0.8)) << err[0] << " " << err[1];
    EXPECT_LT(err[0] / err[1], order * (order > 2 ? 1.25 : 1.2)) << err[0] << " " << err[1];
  }
}

}  // namespace
}  // namespace simphant
