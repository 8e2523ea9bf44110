#include "simphant/dynamics/shift_choice.hpp"

#include <algorithm>
#include <cmath>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/refined_solve.hpp"
#include "simphant/model/robot.hpp"

namespace simphant {

double shift_contraction(const Model& model, double eps) {
  if (model.n_rows == 0) return 0;
  Model m = model;
  m.solver.tikhonov_epsilon = eps;
  m.solver.refinement_steps = kMaxRefinementSteps;
  Data d(m);
  std::vector<double> Y(m.ny());
  initial_state(m, Y.data());
  set_kinematics(m, d, Y.data());
  evaluate_constraints(m, d, 0.0);
  // The projection's form of the solve (Q = 0, gamma* = -r) with r = Phi_q a for the
  // body accelerations a of alternating signs [m/s^2 | rad/s^2]: a right-hand side in the
  // range of Phi_q, as a step's, that moves every body (an r with a share along a kept
  // redundant row's null space would read as a contraction of 1).
  d.Q.setZero();
  const auto a = [](int body, int c) { return ((body + c) % 2 == 0) ? 1.0 : -1.0; };
  for (int j = 0; j < m.n_constraints(); ++j) {
    const ConstraintElement e = m.constraint(j);
    const JointRows<double>& jr = d.rows[j];
    for (int r = 0; r < jr.m; ++r) {
      double v = 0;
      for (int side = 0; side < m.element_sides(); ++side) {
        const int k = e.side_body(side);
        if (k < 0) continue;
        const double* row = side_row(m, d, j, r, side);
        for (int c = 0; c < 6; ++c) v += row[c] * a(k, c);
      }
      d.gamma_star[e.row_offset + r] = -v;
    }
  }
  if (!solve_accelerations(m, d, 0.0)) return 1;  // no factorisation: as slow as can be
  return d.refine_ratio;
}

ShiftChoice choose_shift(const Model& model) {
  ShiftChoice c;
  c.epsilon = model.solver.tikhonov_epsilon;
  c.contraction = c.contraction_given = shift_contraction(model, c.epsilon);
  for (int round = 1; round < kShiftRounds && c.contraction > kShiftContraction && c.epsilon > kMinShiftEpsilon;
       ++round) {
    // q / (1 - q) = E / sigma: scale E so that this ratio becomes the target's.
    const double q = std::min(c.contraction, 1 - 1e-6);
    const double factor = (kShiftContraction / (1 - kShiftContraction)) / (q / (1 - q));
    // A power of ten at or below that (instances whose q differs a little choose alike).
    const double eps = std::max(kMinShiftEpsilon, std::pow(10.0, std::floor(std::log10(c.epsilon * factor))));
    const double q_new = shift_contraction(model, eps);
    c.epsilon = eps;
    c.contraction = q_new;
  }
  return c;
}

void set_run_shift(std::vector<Model>& models) {
  const Model& m0 = models.front();
  if (m0.n_rows == 0 || !(m0.solver.tikhonov_epsilon > 0) || m0.solver.refinement_steps == 0) return;
  if (m0.robot && m0.robot->solver != RobotSolver::Dae) return;
  const double eps = choose_shift(m0).epsilon;
  for (Model& m : models) m.solver.tikhonov_epsilon = eps;
}

}  // namespace simphant
