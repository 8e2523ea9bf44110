#include "simphant/dynamics/assembly.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include <Eigen/QR>

#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/dynamics/projection_math.hpp"
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

namespace {

/// A joint frame axis (B, ground: W) in W at the current kinematics d.kin.
Vec3d axis_W(const Data& d, int body, const Vec3d& axis) { return body < 0 ? axis : mul(d.kin[body].A, axis); }

/// Rotation angle [rad] between two unit quaternions.
double rotation_angle(const Quatd& p, const Quatd& q) {
  const double c = std::fabs(p.w * q.w + p.x * q.x + p.y * q.y + p.z * q.z);
  return 2.0 * std::acos(std::min(1.0, c));
}

/// Records in res how far assembly moved Y from its start Y0 (both 13N).
void record_changes(const Model& model, const double* Y0, const double* Y, AssemblyResult& res) {
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k) {
    res.position_change = std::max(res.position_change, norm(state_r(Y, k) - state_r(Y0, k)));
    res.orientation_change = std::max(res.orientation_change, rotation_angle(state_p(Y, k), state_p(Y0, k)));
    const Vec3d v0 = state_v(Y0, N, k), w0 = state_omega(Y0, N, k);
    const double dv = norm(state_v(Y, N, k) - v0), dw = norm(state_omega(Y, N, k) - w0);
    res.velocity_change = std::max(res.velocity_change, dv);
    res.angular_velocity_change = std::max(res.angular_velocity_change, dw);
    double rel = -1;
    if (norm(v0) > 0) rel = dv / norm(v0);
    if (norm(w0) > 0) rel = std::max(rel, dw / norm(w0));
    if (rel >= 0 && (res.velocity_change_body < 0 || rel > res.velocity_change_rel)) {
      res.velocity_change_body = k;
      res.velocity_change_rel = rel;
    }
  }
}

}  // namespace

std::string flipped_joint_message(const Model& model, const Data& d) {
  for (const Joint& j : model.joints) {
    if (j.type == JointType::Spherical) continue;
    // The rows of these joints hold v_i . a_j, v_i . b_j (and a_i . b_j): zero as well
    // for v_j = -v_i (and a_j = -a_i), the flipped roots (docs/solver.md, "Assembly").
    const double vv = dot(axis_W(d, j.body_i, j.frame.v_i), axis_W(d, j.body_j, j.frame.v_j));
    const bool twist = j.type == JointType::Fixed || j.type == JointType::Prismatic;
    const double aa = twist ? dot(axis_W(d, j.body_i, j.frame.a_i), axis_W(d, j.body_j, j.frame.a_j)) : 1.0;
    if (vv > 0 && aa > 0) continue;
    char msg[512];
    if (twist) {
      std::snprintf(msg, sizeof msg,
                    "joint '%s' (%s) assembled to a flipped orientation (z_i . z_j = %.3f, x_i . x_j = %.3f; the "
                    "joint needs both = 1): the bodies start too far from the joint's orientation; start them "
                    "within 90 deg of it",
                    j.name.c_str(), joint_type_name(j.type), vv, aa);
    } else {
      std::snprintf(msg, sizeof msg,
                    "joint '%s' (%s) assembled with its z axis flipped (z_i . z_j = %.3f; the joint needs 1): the "
                    "bodies start too far from the joint's orientation; start them within 90 deg of it",
                    j.name.c_str(), joint_type_name(j.type), vv);
    }
    return msg;
  }
  return "";
}

AssemblyResult assemble(const Model& model, Data& d, double* Y) {
  AssemblyResult res;
  const int N = model.n_bodies();
  const int m = model.n_rows;
  const std::vector<double> Y0(Y, Y + model.ny());
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
    evaluate_constraints(model, d, 0.0);
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
    for (int k = 0; k < N; ++k) apply_position_correction(Y, k, dq.data() + 6 * k);
  }
  // Velocity projection onto Phi_q qdot + Phi_t = 0 (Phi_t: minus a driver's s'(0), zero
  // for a joint's row): qdot <- qdot - Phi_q^+ (Phi_q qdot + Phi_t); d.phi_dot holds
  // Phi_q qdot + Phi_t at this state.
  Eigen::Map<Eigen::VectorXd> qdot(Y + 7 * N, 6 * N);
  const Eigen::VectorXd phi_t = d.phi_dot - d.Phi_q * qdot;
  cod.compute(d.Phi_q);
  qdot -= cod.solve(d.phi_dot);
  res.velocity_residual = (d.Phi_q * qdot + phi_t).cwiseAbs().maxCoeff();
  record_changes(model, Y0.data(), Y, res);
  res.ok = std::isfinite(res.velocity_residual);
  if (res.ok) {
    res.message = flipped_joint_message(model, d);  // d.kin is at the assembled positions
    res.ok = res.message.empty();
  }
  return res;
}

}  // namespace simphant
