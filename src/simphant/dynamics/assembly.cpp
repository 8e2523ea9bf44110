#include "simphant/dynamics/assembly.hpp"

#include <array>
#include <cmath>

#include <Eigen/QR>
#include <Eigen/SVD>

#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/state.hpp"

namespace simphant {

void initial_state(const Model& model, double* Y) {
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k) {
    const Body& b = model.bodies[k];
    double* q = Y + 7 * k;
    q[0] = b.r0_W.x; q[1] = b.r0_W.y; q[2] = b.r0_W.z;
    q[3] = b.p0.w; q[4] = b.p0.x; q[5] = b.p0.y; q[6] = b.p0.z;
    double* qd = Y + 7 * N + 6 * k;
    qd[0] = b.v0_W.x; qd[1] = b.v0_W.y; qd[2] = b.v0_W.z;
    qd[3] = b.omega0_B.x; qd[4] = b.omega0_B.y; qd[5] = b.omega0_B.z;
  }
}

AssemblyResult assemble(const Model& model, Data& d, double* Y) {
  AssemblyResult res;
  const int N = model.n_bodies();
  const int m = model.n_rows;
  if (m == 0) {
    res.ok = true;
    return res;
  }
  const double tol = model.solver.assembly_tolerance;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(1e-10);
  Eigen::VectorXd dq(6 * N);
  // Residuals of the last kAssemblyStallWindow + 1 iterations (a ring), for the stall test.
  std::array<double, kAssemblyStallWindow + 1> history{};
  // Newton on Phi(q) = 0: dq = -Phi_q^+ Phi (minimum norm).
  for (res.iterations = 0;; ++res.iterations) {
    if (stop_requested()) return res;
    set_kinematics(model, d, Y);
    evaluate_constraints(model, d);
    assemble_jacobian(model, d);
    res.position_residual = max_violation(d);
    if (!std::isfinite(res.position_residual)) return res;
    if (res.position_residual <= tol) break;
    if (res.iterations >= model.solver.assembly_max_iterations) return res;
    history[res.iterations % history.size()] = res.position_residual;
    if (res.iterations >= kAssemblyStallWindow) {
      const double earlier = history[(res.iterations - kAssemblyStallWindow) % history.size()];
      if (!(res.position_residual <= kAssemblyStallFactor * earlier)) return res;  // stalled
    }
    cod.compute(d.Phi_q);
    dq = -cod.solve(d.phi);
    for (int k = 0; k < N; ++k) {
      for (int c = 0; c < 3; ++c) Y[7 * k + c] += dq[6 * k + c];
      const Quatd p = normalized(qmul(state_p(Y, k), quat_from_rotvec(Vec3d{dq[6 * k + 3], dq[6 * k + 4], dq[6 * k + 5]})));
      Y[7 * k + 3] = p.w; Y[7 * k + 4] = p.x; Y[7 * k + 5] = p.y; Y[7 * k + 6] = p.z;
    }
  }
  // Velocity projection: qdot <- qdot - Phi_q^+ (Phi_q qdot).
  Eigen::Map<Eigen::VectorXd> qdot(Y + 7 * N, 6 * N);
  cod.compute(d.Phi_q);
  qdot -= cod.solve(d.Phi_q * qdot);
  res.velocity_residual = (d.Phi_q * qdot).cwiseAbs().maxCoeff();
  res.ok = std::isfinite(res.velocity_residual);
  return res;
}

ConstraintAnalysis analyse_constraints(const Model& model, Data& d, const double* Y) {
  ConstraintAnalysis a;
  a.rows = model.n_rows;
  a.dof = model.nv();
  if (a.rows == 0) return a;
  set_kinematics(model, d, Y);
  evaluate_constraints(model, d);
  assemble_jacobian(model, d);
  auto rank_of = [](const Eigen::MatrixXd& A) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(A);
    const auto& s = svd.singularValues();
    if (s.size() == 0 || s[0] == 0.0) return 0;
    int r = 0;
    for (int i = 0; i < s.size(); ++i) r += s[i] > 1e-9 * s[0];
    return r;
  };
  a.rank = rank_of(d.Phi_q);
  a.dof = model.nv() - a.rank;
  // A row is redundant when adding it to the rows before it does not raise the rank.
  int prev = 0;
  for (int r = 0; r < a.rows; ++r) {
    const int rk = rank_of(d.Phi_q.topRows(r + 1));
    if (rk == prev) a.redundant_rows.push_back(r);
    prev = rk;
  }
  return a;
}

}  // namespace simphant
