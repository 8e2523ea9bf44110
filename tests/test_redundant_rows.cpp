// Redundant constraint removal (docs/solver.md, "Redundant constraints";
// simphant/dynamics/redundant_rows.hpp), against references that do not use it:
//  * Bricard's orthogonal linkage (six revolutes in one loop, redundant everywhere: 30
//    rows, rank 29) is conservative: with its redundant row removed RK4 at the example's
//    dt keeps the energy to 1e-8 relative over 3 s, where the kept row lets the
//    regularised solve's null-space share leak energy (measured below, the mutation
//    check: with keep the bound fails);
//  * the free Bennett linkage (four revolutes, a spatial loop redundant everywhere)
//    likewise, at every eps, where keeping its rows leaks energy as 1 / eps;
//  * the shipped four-bar with its three redundant rows removed moves as with them kept,
//    and the removed rows' multipliers are 0 (its non-redundant twin:
//    RefinedSolve.RedundantLoopWithRowsRemovedFollowsItsTwin);
//  * a parallelogram started in its flat (singular) configuration loses only the rows
//    redundant along its motion, and swings down holding every row of the full model;
//  * a row removed wrongly (by hand) shows in the violation the run measures;
//  * the setting's parsing and the runs that keep or remove (Simulator::create).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/constraint_analysis.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/redundant_rows.hpp"
#include "simphant/dynamics/rk4.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/formulas/state.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/simulator.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

using nlohmann::json;

std::string example(const std::string& name) { return std::string(SIMPHANT_SOURCE_DIR) + "/examples/" + name; }

Model with_setting(const std::string& file, const char* redundant_rows) {
  json doc = load_scene(example(file)).doc;
  doc["solver"]["redundant_rows"] = redundant_rows;
  return parse_scene(doc.dump()).model;
}

// The largest relative change of the total energy over t_end at the scene's dt (RK4 from
// the assembled start), with the model's removed rows as set_removed_rows sets them.
double relative_energy_drift(Model model, double t_end) {
  std::vector<Model> one = {model};
  set_removed_rows(one);
  model = one.front();
  Data d(model);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  EXPECT_TRUE(assemble(model, d, Y.data()).ok);
  set_kinematics(model, d, Y.data());
  const double E0 = total_energy(model, d);
  double worst = 0;
  const double dt = model.solver.dt;
  const int n = static_cast<int>(std::lround(t_end / dt));
  for (int s = 0; s < n; ++s) {
    EXPECT_TRUE(rk4_step(model, d, s * dt, Y.data(), nullptr, dt)) << "step " << s;
    set_kinematics(model, d, Y.data());
    worst = std::max(worst, std::fabs(total_energy(model, d) - E0) / std::fabs(E0));
  }
  return worst;
}

// Bricard over 3 s at dt 5e-4 (no damping, no drive: conservative). Removed: measured
// 3.8e-12 relative (RK4's dt^4 error). Kept: measured 4.5e-7 with the residual-controlled
// refinement (the redundant direction's share of an inconsistent right-hand side, 1 / E
// times larger, is what the corrections move along).
TEST(RedundantRows, BricardConservesEnergyWithItsRedundantRowRemoved) {
  const Model removed = with_setting("bricard.json", "remove"), kept = with_setting("bricard.json", "keep");
  const RedundantRowsFound found = find_redundant_rows(removed);
  ASSERT_EQ(found.rows, std::vector<int>{29});
  const double e_removed = relative_energy_drift(removed, 3.0), e_kept = relative_energy_drift(kept, 3.0);
  std::printf("  bricard, 3 s at dt %.1e: relative energy drift %.2e removed, %.2e kept\n", removed.solver.dt,
              e_removed, e_kept);
  EXPECT_LT(e_removed, 1e-8);
  EXPECT_GT(e_kept, 10 * e_removed);
}

// A free Bennett linkage: four revolutes in one spatial loop, link lengths a, b, a, b
// and twists alpha, beta, alpha, beta with a / sin(alpha) = b / sin(beta) (Bennett's
// condition), the fourth link the ground. Denavit-Hartenberg frames F_k = F_{k-1}
// Rz(theta_k) Tx(a_k) Rx(alpha_k) close (F_4 = F_0) along the one-parameter motion
// theta_3 = -theta_1, theta_4 = -theta_2, tan(theta_1 / 2) tan(theta_2 / 2) =
// sin((beta + alpha) / 2) / sin((beta - alpha) / 2) (Bennett 1903; Baker, "The Bennett
// linkage and its associated quadric surfaces", 1988). Three moving links of 6
// coordinates against 20 rows: three rows are redundant everywhere.
json bennett_linkage(double theta1, double spin) {
  const double alpha = M_PI / 3, beta = M_PI / 6, a = 1.0, b = a * std::sin(beta) / std::sin(alpha);
  const double theta2 = 2 * std::atan(std::sin(0.5 * (beta + alpha)) / std::sin(0.5 * (beta - alpha)) /
                                      std::tan(0.5 * theta1));
  const double theta[4] = {theta1, theta2, -theta1, -theta2}, len[4] = {a, b, a, b}, twist[4] = {alpha, beta, alpha, beta};
  // Frames as (R columns x, y, z; origin o).
  struct Frame { double x[3], y[3], z[3], o[3]; };
  std::vector<Frame> F(5);
  F[0] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, 0}};
  for (int k = 0; k < 4; ++k) {
    const Frame& P = F[k];
    const double c = std::cos(theta[k]), s = std::sin(theta[k]), ca = std::cos(twist[k]), sa = std::sin(twist[k]);
    Frame& N = F[k + 1];
    for (int i = 0; i < 3; ++i) {
      const double xr = c * P.x[i] + s * P.y[i];   // Rz(theta): the rotated x
      const double yr = -s * P.x[i] + c * P.y[i];  // and y
      N.x[i] = xr;
      N.y[i] = ca * yr + sa * P.z[i];  // Rx(alpha)
      N.z[i] = -sa * yr + ca * P.z[i];
      N.o[i] = P.o[i] + len[k] * xr;
    }
  }
  for (int i = 0; i < 3; ++i) {  // the loop closes
    EXPECT_NEAR(F[4].o[i], F[0].o[i], 1e-13);
    EXPECT_NEAR(F[4].z[i], F[0].z[i], 1e-13);
    EXPECT_NEAR(F[4].x[i], F[0].x[i], 1e-13);
  }
  const auto vec = [](const double* v) { return json::array({v[0], v[1], v[2]}); };
  json bodies = json::array(), joints = json::array();
  for (int k = 1; k <= 3; ++k)
    bodies.push_back({{"name", "link" + std::to_string(k)},
                      {"mass", 1.0},
                      {"inertia", {0.02, 0.02, 0.02}},
                      {"position", {0.5 * (F[k - 1].o[0] + F[k].o[0]), 0.5 * (F[k - 1].o[1] + F[k].o[1]),
                                    0.5 * (F[k - 1].o[2] + F[k].o[2])}}});
  // Link 1 spins about joint 1 (the z axis through the origin); assembly makes the
  // velocities consistent with the loop.
  const json& c1 = bodies[0]["position"];
  bodies[0]["angular_velocity_world"] = {0.0, 0.0, spin};
  bodies[0]["velocity"] = {-spin * c1[1].get<double>(), spin * c1[0].get<double>(), 0.0};
  const char* names[5] = {"ground", "link1", "link2", "link3", "ground"};
  for (int j = 0; j < 4; ++j)
    joints.push_back({{"name", "R" + std::to_string(j + 1)},
                      {"type", "revolute"},
                      {"body_i", names[j]},
                      {"body_j", names[j + 1]},
                      {"frame", {{"origin", vec(F[j].o)}, {"z", vec(F[j].z)}, {"x", vec(F[j].x)}}}});
  return {{"name", "Bennett linkage"}, {"gravity", {0.0, 0.0, -9.81}}, {"bodies", bodies}, {"joints", joints},
          {"solver", {{"dt", 1e-3}, {"t_end", 5.0}}}};
}

// The free Bennett linkage swinging under gravity for 5 s at dt = 1 ms (conservative).
// Removed (the default): 3 rows found, energy drift 4.4e-11 of |E0| (measured) at every
// eps from 1e-12 to 1e-8. Kept, the regularised solve's share along the redundant
// directions leaks energy as 1 / eps: measured 2.5e-1, 2.7e-3 and 3.0e-5 of |E0| at
// eps = 1e-12, 1e-10, 1e-8 (the mutation check: with keep the bound fails).
TEST(RedundantRows, BennettLinkageConservesEnergyWithItsRedundantRowsRemoved) {
  for (const double eps : {1e-12, 1e-10, 1e-8}) {
    json doc = bennett_linkage(0.8, 2.0);
    doc["solver"]["tikhonov_epsilon"] = eps;
    const Model removed = parse_scene(doc.dump()).model;
    doc["solver"]["redundant_rows"] = "keep";
    const Model kept = parse_scene(doc.dump()).model;
    EXPECT_EQ(find_redundant_rows(removed).rows.size(), 3u);
    const double e_removed = relative_energy_drift(removed, 5.0), e_kept = relative_energy_drift(kept, 5.0);
    std::printf("  Bennett, 5 s at dt 1e-3, eps %.0e: relative energy drift %.2e removed, %.2e kept\n", eps,
                e_removed, e_kept);
    EXPECT_LT(e_removed, 1e-8) << eps;
    EXPECT_GT(e_kept, 1e-6) << eps;
  }
}

// The shipped four-bar (four revolutes about z: rows 1, 3, 4 of the last joint, its
// out-of-plane rows, are combinations of the others) with its redundant rows removed
// against the same run with them kept: the motion is the same (the kept rows fix it; in
// this exactly planar loop the out-of-plane rows carry no force either way, and the
// states measured equal bit for bit), and the removed rows' multipliers are exactly 0.
// The twin comparison of a loop with out-of-plane inertias is in test_refined_solve.cpp.
TEST(RedundantRows, FourBarMovesAsWithTheRowsKept) {
  const Model removed_scene = with_setting("four_bar.json", "remove"), kept = with_setting("four_bar.json", "keep");
  std::vector<Model> one = {removed_scene};
  set_removed_rows(one);
  const Model& removed = one.front();
  const std::vector<std::string> names = removed_row_names(removed);
  ASSERT_EQ(names.size(), 3u);
  std::vector<double> Yr(removed.ny()), Yk(kept.ny());
  Data dr(removed), dk(kept);
  initial_state(removed, Yr.data());
  initial_state(kept, Yk.data());
  ASSERT_TRUE(assemble(removed, dr, Yr.data()).ok);
  ASSERT_TRUE(assemble(kept, dk, Yk.data()).ok);
  const double dt = kept.solver.dt;
  double worst = 0, scale = 0;
  for (int s = 0; s < 1000; ++s) {
    ASSERT_TRUE(rk4_step(removed, dr, s * dt, Yr.data(), nullptr, dt));
    ASSERT_TRUE(rk4_step(kept, dk, s * dt, Yk.data(), nullptr, dt));
  }
  for (int e = 0; e < removed.ny(); ++e) {
    worst = std::max(worst, std::fabs(Yr[e] - Yk[e]));
    scale = std::max(scale, std::fabs(Yk[e]));
  }
  std::printf("  four_bar after %d steps: max |Y_removed - Y_kept| %.2e of %.2e\n", 1000, worst, scale);
  EXPECT_LT(worst, 1e-9 * scale);
  std::vector<double> ydot(removed.ny());
  ASSERT_TRUE(evaluate(removed, dr, 1.0, Yr.data(), nullptr, ydot.data()));
  int zero = 0;
  for (int a = 0; a < removed.n_joints(); ++a)
    for (int r = 0; r < removed.constraint(a).rows; ++r)
      if (removed.removed_mask(a) & (1 << r)) {
        EXPECT_EQ(dr.lambda[removed.constraint(a).row_offset + r], 0.0);
        ++zero;
      }
  EXPECT_EQ(zero, 3);
}

// A parallelogram (two rockers of 0.5 m on pivots 1 m apart, a 1 m coupler; revolutes
// about y) started at rest in its flat configuration, every bar on the x axis: there
// Phi_q (20 rows) has rank 16, one below the rank 17 of every other configuration. Only
// the 3 rows redundant along the motion are removed (the start's fourth is not confirmed
// at a configuration moved along the free motion). Released under gravity it swings
// down with every row of the full model held: max |Phi| of all 20 rows stays below 1e-8
// over 1 s (removing the fourth row would free the coupler's slide along the bars).
TEST(RedundantRows, SingularStartRemovesOnlyTheRowsRedundantAlongTheMotion) {
  const auto revolute = [](const std::string& name, const std::string& bi, const std::string& bj, double x) {
    return json{{"name", name}, {"type", "revolute"}, {"body_i", bi}, {"body_j", bj},
                {"frame", {{"origin", {x, 0.0, 0.0}}, {"z", {0.0, 1.0, 0.0}}, {"x", {1.0, 0.0, 0.0}}}}};
  };
  const auto bar = [](const std::string& name, double x, double length) {
    const double J = length * length / 12;
    return json{{"name", name}, {"mass", 1.0}, {"inertia", {J, J, J}}, {"position", {x, 0.0, 0.0}}};
  };
  json doc;
  doc["gravity"] = {0.0, 0.0, -9.81};
  doc["bodies"] = {bar("rocker0", 0.25, 0.5), bar("rocker1", 1.25, 0.5), bar("coupler", 1.0, 1.0)};
  doc["joints"] = {revolute("pivot0", "ground", "rocker0", 0.0), revolute("pivot1", "ground", "rocker1", 1.0),
                   revolute("left", "rocker0", "coupler", 0.5), revolute("right", "rocker1", "coupler", 1.5)};
  doc["solver"] = {{"dt", 1e-3}, {"t_end", 1.0}};
  const Model full = parse_scene(doc.dump()).model;
  {
    Data d(full);
    std::vector<double> Y(full.ny());
    initial_state(full, Y.data());
    ASSERT_TRUE(assemble(full, d, Y.data()).ok);
    EXPECT_EQ(analyse_constraints(full, d, Y.data()).redundant_rows.size(), 4u);  // the flat start
  }
  std::vector<Model> one = {full};
  set_removed_rows(one);
  const Model& model = one.front();
  EXPECT_EQ(removed_row_names(model).size(), 3u);
  Data d(model), check(full);
  std::vector<double> Y(model.ny());
  initial_state(model, Y.data());
  ASSERT_TRUE(assemble(model, d, Y.data()).ok);
  double worst = 0;
  for (int s = 0; s < 1000; ++s) {
    ASSERT_TRUE(rk4_step(model, d, s * 1e-3, Y.data(), nullptr, 1e-3)) << "step " << s;
    set_kinematics(full, check, Y.data());
    evaluate_constraints(full, check, 0.0);
    worst = std::max(worst, max_violation(check));
  }
  std::printf("  flat parallelogram, 1 s: max |Phi| of the full model %.2e, rocker0 at %.3f m height\n", worst,
              Y[2]);
  EXPECT_LT(worst, 1e-8);
  EXPECT_LT(Y[2], -0.05);  // it swung down
}

// A removed row that the others do not imply is never silent: a pendulum (one revolute)
// whose row 0 (a translation row: nothing else holds the bob along it) is removed by hand
// falls off its hinge: the violation the run measures (max |Phi| over every row, the
// removed one included) passes solver.violation_bound (1e-2) and the step is refused as a
// constraint violation (measured at step 165; the run marks such an instance diverged),
// where the intact pendulum keeps it below 1e-8 for 1 s.
TEST(RedundantRows, AWronglyRemovedRowShowsAsViolation) {
  const Model intact = load_scene(example("pendulum.json")).model;
  Model wrong = intact;
  wrong.removed_rows.assign(static_cast<std::size_t>(wrong.n_constraints()), 0);
  wrong.removed_rows[0] = 1;  // row 0 of the hinge
  double worst[2] = {0, 0};
  bool failed[2] = {false, false};
  for (int k = 0; k < 2; ++k) {
    const Model& m = k == 0 ? intact : wrong;
    Data d(m);
    std::vector<double> Y(m.ny());
    initial_state(m, Y.data());
    ASSERT_TRUE(assemble(intact, d, Y.data()).ok);
    for (int s = 0; s < static_cast<int>(std::lround(1.0 / m.solver.dt)); ++s) {
      if (!rk4_step(m, d, s * m.solver.dt, Y.data(), nullptr, m.solver.dt)) {
        std::printf("  step %d refused, reason %d\n", s, d.failure);
        EXPECT_EQ(d.failure, kReasonConstraintViolation);
        failed[k] = true;
        break;
      }
      set_kinematics(m, d, Y.data());
      evaluate_constraints(m, d, 0.0);
      worst[k] = std::max(worst[k], max_violation(d));
    }
  }
  std::printf("  pendulum, 1 s: max |Phi| %.2e intact, %.2e with row 0 wrongly removed\n", worst[0], worst[1]);
  EXPECT_FALSE(failed[0]);
  EXPECT_LT(worst[0], 1e-8);
  EXPECT_TRUE(failed[1]);
  EXPECT_GT(worst[1], 1e-3);
}

// The setting: remove is the default, keep leaves every row, any other value is refused
// naming the field; a scene without redundant rows gets no mask either way; the
// Simulator removes the rows for the run and keeps the mask when instances are resampled.
TEST(RedundantRows, SettingAndSimulator) {
  EXPECT_EQ(load_scene(example("four_bar.json")).model.solver.redundant_rows, RedundantRows::Remove);
  json doc = load_scene(example("four_bar.json")).doc;
  doc["solver"]["redundant_rows"] = "drop";
  try {
    parse_scene(doc.dump());
    ADD_FAILURE() << "accepted redundant_rows \"drop\"";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("/solver/redundant_rows"), std::string::npos) << e.what();
  }
  std::vector<Model> kept = {with_setting("four_bar.json", "keep")};
  set_removed_rows(kept);
  EXPECT_TRUE(kept.front().removed_rows.empty());
  std::vector<Model> pendulum = {load_scene(example("pendulum.json")).model};
  set_removed_rows(pendulum);
  EXPECT_TRUE(pendulum.front().removed_rows.empty());
  SimulatorOptions o;
  o.backend = "cpu";
  o.threads = 1;
  const auto sim = Simulator::create({load_scene(example("bricard.json")).model}, o, 2);
  EXPECT_EQ(removed_row_names(sim->model()), std::vector<std::string>{"joint R6 row 4"});
}

}  // namespace
}  // namespace simphant
