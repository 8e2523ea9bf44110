#include "simphant/dynamics/auto_projection.hpp"

#include <algorithm>
#include <cmath>

#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/topology.hpp"

namespace simphant {

double start_relative_pivot(const Model& model) {
  if (model.n_rows == 0) return no_schur_pivot<double>();
  std::vector<double> Y(static_cast<std::size_t>(model.ny())), Ydot(Y.size());
  initial_state(model, Y.data());
  {
    Data d(model);
    assemble(model, d, Y.data());  // a start that does not assemble is measured as given
  }
  double rho = no_schur_pivot<double>();
  for (SchurFactorization order : {SchurFactorization::Dense, SchurFactorization::Sparse}) {
    Data d(model, order);
    evaluate(model, d, 0.0, Y.data(), nullptr, Ydot.data());
    rho = smaller_pivot(rho, d.refinement.min_pivot);
  }
  return rho;
}

double auto_projection_pivot(double rho0) {
  const double r = kAutoProjectionRatio * rho0;
  if (!(r > 0)) return 0;  // a singular start, or no measure: never
  return std::min(kAutoProjectionPivot, std::pow(10.0, std::ceil(std::log10(r))));
}

void set_auto_projection(std::vector<Model>& models) {
  const Model& m0 = models.front();
  if (m0.solver.projection != Projection::Auto) return;
  const bool joint_space = m0.robot && m0.robot->solver != RobotSolver::Dae;
  double pivot = 0;
  Projection mode = Projection::None;
  if (m0.n_rows > 0 && !joint_space && !is_adaptive(m0.solver.integrator) && has_closed_loop(m0)) {
    pivot = auto_projection_pivot(start_relative_pivot(m0));
    mode = Projection::Auto;
  }
  for (Model& m : models) {
    m.solver.projection = mode;
    m.solver.auto_projection_pivot = pivot;
  }
}

}  // namespace simphant
