#include "simphant/dynamics/assembly.hpp"

#include <array>
#include <cmath>

#include <Eigen/QR>

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

}  // namespace simphant
