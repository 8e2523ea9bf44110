// A chain of parallelogram cells swinging through the configuration where every link
// lies flat (Phi_q loses rank there; tests/parallelogram_chain.hpp), against its reduced
// one-degree-of-freedom Lagrangian integrated independently: the energy and the driving
// rocker's angle after 20 s, with and without the projection onto the constraint
// manifold (docs/solver.md, Projection onto the constraint manifold).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "parallelogram_chain.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/scene/scene.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

struct ChainRun {
  bool ok = true;                 ///< every step succeeded
  double energy_error = 0;        ///< max over the run of |E - E0| / (peak kinetic energy)
  double angle_error = 0;         ///< |theta(t_end) - theta_ref(t_end)| [rad]
  double max_violation = 0;       ///< max over the run of max |Phi|
  int flat_passages = 0;          ///< times the driving rocker crossed theta = 0 or -pi
};

ChainRun run_chain(const test::ParallelogramChain& ch, double dt, double t_end, const char* projection,
                   const nlohmann::json& solver = nlohmann::json::object()) {
  nlohmann::json doc = ch.scene(dt, t_end, projection);
  doc["solver"].update(solver);
  const Model model = parse_scene(doc.dump()).model;
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  EXPECT_TRUE(assemble(model, d, Y.data()).ok);
  set_kinematics(model, d, Y.data());
  const double E0 = total_energy(model, d);
  EXPECT_NEAR(E0, ch.energy(ch.theta0(), ch.theta_dot0()), 1e-12 * std::abs(E0));
  const double scale = ch.energy(0.0, ch.theta_dot0()) - ch.energy(ch.theta0(), 0.0);  // peak kinetic energy
  const int rocker = model.body_index("rocker0");
  auto angle = [&]() { return std::atan2(Y[7 * rocker + 2], Y[7 * rocker + 0]); };  // pivot at the origin
  double prev = angle(), theta = ch.theta0();
  ChainRun res;
  const long n = std::lround(t_end / dt);
  for (long s = 0; s < n; ++s) {
    if (!rk4_step(model, d, Y.data(), nullptr, dt)) {
      res.ok = false;
      break;
    }
    set_kinematics(model, d, Y.data());
    evaluate_constraints(model, d);
    res.max_violation = std::max(res.max_violation, max_violation(d));
    res.energy_error = std::max(res.energy_error, std::abs(total_energy(model, d) - E0) / scale);
    const double a = angle();
    const double next = theta + test::angle_step(prev, a);
    // Flat: theta crosses 0 or -pi (theta stays in (-3 pi / 2, pi / 2) on this swing).
    if ((theta < 0) != (next < 0) || (theta < -M_PI) != (next < -M_PI)) ++res.flat_passages;
    theta = next;
    prev = a;
  }
  const double ref = test::reduced_chain_solution(ch, t_end, 1e-5).first;
  res.angle_error = std::abs(theta - ref);
  return res;
}

TEST(ParallelogramChain, Explore) {
  for (int cells : {8}) {
    for (double eps : {1e-10}) {
      for (double ab : {10.0}) {
        test::ParallelogramChain ch;
        ch.cells = cells;
        const double dt = 1e-3;
        const ChainRun r = run_chain(ch, dt, 20.0, "position_velocity",
                                     {{"tikhonov_epsilon", eps}, {"baumgarte_alpha", ab}, {"baumgarte_beta", ab}});
        std::printf("N=%d eps=%g ab=%g dt=%g ok=%d E=%.3g angle=%.3g viol=%.3g flats=%d\n", cells, eps, ab, dt, r.ok,
                    r.energy_error, r.angle_error, r.max_violation, r.flat_passages);
      }
    }
  }
}

}  // namespace
}  // namespace simphant
