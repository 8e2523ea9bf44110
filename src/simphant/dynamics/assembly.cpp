#include "simphant/dynamics/assembly.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include <Eigen/QR>
#include <Eigen/SparseCholesky>

#include "simphant/core/stop_flag.hpp"
#include "simphant/dynamics/coordinate_targets.hpp"
#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/projection_math.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/dynamics/sparse_jacobian.hpp"
#include "simphant/formulas/state.hpp"

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

/// x with 4 significant digits.
std::string format_value(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

/// Rotation angle [rad] between two unit quaternions.
double rotation_angle(const Quatd& p, const Quatd& q) {
  const double c = std::fabs(p.w * q.w + p.x * q.x + p.y * q.y + p.z * q.z);
  return 2.0 * std::acos(std::min(1.0, c));
}

/// "[x, y, z]" with 4 significant digits.
std::string format_vec(const Vec3d& v) {
  return "[" + format_value(v.x) + ", " + format_value(v.y) + ", " + format_value(v.z) + "]";
}

/// Records in res how far assembly moved Y from its start Y0 (both 13N), and a line in
/// res.changed_values for every value the scene gave that changed by more than
/// kGivenValueChange (assembly.hpp): a body's non-zero velocity or angular velocity
/// (relative to its magnitude), and, unless joint coordinates placed the mechanism
/// (placed = true), a body's position (relative to |r_0|, or to the largest |r_0| of the
/// bodies when r_0 = 0) and orientation (rotation angle, relative to 1 rad).
void record_changes(const Model& model, const double* Y0, const double* Y, bool placed, AssemblyResult& res) {
  const int N = model.n_bodies();
  double scale = 0, vscale = 0;
  for (int k = 0; k < N; ++k) {
    scale = std::max(scale, norm(state_r(Y0, k)));
    vscale = std::max({vscale, norm(state_v(Y0, N, k)), norm(state_omega(Y0, N, k))});
  }
  // A given velocity below kRoundOffVelocity of the largest given one is round-off of the
  // scene's own arithmetic (e.g. a robot's forward kinematics), not a value to report.
  constexpr double kRoundOffVelocity = 1e-12;
  const double v_floor = kRoundOffVelocity * vscale;
  auto note = [&](int k, const char* what, const std::string& given, const std::string& achieved, double rel) {
    if (!(rel > kGivenValueChange)) return;
    res.changed_values.push_back("body '" + model.bodies[k].name + "' " + what + ": given " + given +
                                 ", after assembly " + achieved + " (changed by " + format_value(100.0 * rel) +
                                 " %)");
  };
  for (int k = 0; k < N; ++k) {
    const Vec3d r0 = state_r(Y0, k), r = state_r(Y, k);
    const double dr = norm(r - r0), angle = rotation_angle(state_p(Y, k), state_p(Y0, k));
    res.position_change = std::max(res.position_change, dr);
    res.orientation_change = std::max(res.orientation_change, angle);
    const Vec3d v0 = state_v(Y0, N, k), w0 = state_omega(Y0, N, k);
    const Vec3d v = state_v(Y, N, k), w = state_omega(Y, N, k);
    const double dv = norm(v - v0), dw = norm(w - w0);
    res.velocity_change = std::max(res.velocity_change, dv);
    res.angular_velocity_change = std::max(res.angular_velocity_change, dw);
    double rel = -1;
    if (norm(v0) > 0) rel = dv / norm(v0);
    if (norm(w0) > 0) rel = std::max(rel, dw / norm(w0));
    if (rel >= 0 && (res.velocity_change_body < 0 || rel > res.velocity_change_rel)) {
      res.velocity_change_body = k;
      res.velocity_change_rel = rel;
    }
    if (!placed && scale > 0) {
      const double len = norm(r0) > 0 ? norm(r0) : scale;
      note(k, "position [m]", format_vec(r0), format_vec(r), dr / len);
      note(k, "orientation [rad]", "0", format_value(angle), angle);
    }
    if (norm(v0) > v_floor) note(k, "velocity [m/s]", format_vec(v0), format_vec(v), dv / norm(v0));
    if (norm(w0) > v_floor)
      note(k, "angular velocity (body frame) [rad/s]", format_vec(w0), format_vec(w), dw / norm(w0));
  }
  // Joint rates: the rate the given body velocities imply (at the assembled positions)
  // against the assembled one, for each revolute / prismatic / cylindrical coordinate not
  // given in joint terms, when the given velocities move it.
  auto kin = [&](int k, const double* Yv) {
    return k < 0 ? ground_kin<double>()
                 : make_body_kin(state_r(Y, k), state_p(Y, k), state_v(Yv, N, k), state_omega(Yv, N, k));
  };
  for (const Joint& jt : model.joints)
    for (const JointCoordinate c : {JointCoordinate::Angle, JointCoordinate::Slide}) {
      if (!joint_has_coordinate(jt.type, c)) continue;
      if (c == JointCoordinate::Angle ? jt.initial.has_rate : jt.initial.has_velocity) continue;
      CoordinateRow<double> given, achieved;
      joint_coordinate_row(c, jt.frame, kin(jt.body_i, Y0), kin(jt.body_j, Y0), given);
      joint_coordinate_row(c, jt.frame, kin(jt.body_i, Y), kin(jt.body_j, Y), achieved);
      const double rel = std::fabs(achieved.rate - given.rate) / std::fabs(given.rate);
      if (!(std::fabs(given.rate) > v_floor) || !(rel > kGivenValueChange)) continue;
      res.changed_values.push_back("joint '" + jt.name + "' " +
                                   (c == JointCoordinate::Angle ? "rate [rad/s]" : "velocity [m/s]") +
                                   ": given (by the bodies' velocities) " + format_value(given.rate) +
                                   ", after assembly " + format_value(achieved.rate) + " (changed by " +
                                   format_value(100.0 * rel) + " %)");
    }
}

// The velocity projection with given joint rates: qdot <- qdot - A_v^+ (A_v qdot - b) with
// A_v = [Phi_q; the given rates' rows], b = [-Phi_t; rate] (d.phi_dot holds Phi_q qdot +
// Phi_t at this state; Phi_t is minus a driver's s'(0)), the minimum mass-unweighted
// change. Sets res.message (and leaves qdot) when a given rate is already determined.
void project_given_rates(const Model& model, Data& d, const std::vector<CoordinateTarget>& vel,
                         Eigen::Map<Eigen::VectorXd>& qdot, AssemblyResult& res) {
  const int m = model.n_rows, nr = static_cast<int>(vel.size());
  Eigen::MatrixXd Av(m + nr, model.nv()), Cv(nr, model.nv());
  Eigen::VectorXd b = Eigen::VectorXd::Zero(m + nr);
  if (m > 0) {
    Av.topRows(m) = d.Phi_q;
    b.head(m) = d.Phi_q * qdot - d.phi_dot;
  }
  for (int t = 0; t < nr; ++t) {
    const CoordinateRow<double> row = target_row(model, d, vel[t]);
    scatter_target_row(model, vel[t], row.jac, Cv, t);
    b[m + t] = vel[t].value;
  }
  Av.bottomRows(nr) = Cv;
  const int dep = first_dependent_target(Av.topRows(m), Cv);
  if (dep >= 0) {
    res.message = target_name(model, vel[dep], true) + " = " + format_value(vel[dep].value) +
                  ": the mechanism has no freedom left for it (more joint rates given than its mobility; the "
                  "joints and the rates given before it determine this one)";
    return;
  }
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kAssemblyRankThreshold);
  cod.compute(Av);
  qdot -= cod.solve(Av * qdot - b);
  res.velocity_residual = (Av * qdot - b).cwiseAbs().maxCoeff();
}

/// x = A^T (A A^T)^-1 r, the minimum-norm solution of A x = r for A of full row rank:
/// a sparse LDL^T of A A^T and one refinement step. False when the factorisation fails,
/// a pivot is below kSparseAssemblyPivot of the largest, or x is not finite.
bool sparse_min_norm(const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& r, Eigen::VectorXd& x) {
  const Eigen::SparseMatrix<double> S = A * A.transpose();
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(S);
  if (ldlt.info() != Eigen::Success) return false;
  const Eigen::VectorXd D = ldlt.vectorD();
  const double largest = D.cwiseAbs().maxCoeff();
  if (!(largest > 0) || !(D.minCoeff() > kSparseAssemblyPivot * largest)) return false;
  Eigen::VectorXd y = ldlt.solve(r);
  y += ldlt.solve(r - S * y);
  x = A.transpose() * y;
  return x.allFinite();
}

}  // namespace

bool uses_sparse_assembly(const Model& model) {
  return model.n_rows > kDenseAssemblyRows && coordinate_targets(model, false).empty() &&
         coordinate_targets(model, true).empty();
}

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
  const std::vector<CoordinateTarget> pos = coordinate_targets(model, false);
  const std::vector<CoordinateTarget> vel = coordinate_targets(model, true);
  const int np = static_cast<int>(pos.size()), nr = static_cast<int>(vel.size());
  if (m == 0 && np == 0 && nr == 0) {
    res.ok = true;
    return res;
  }
  const double tol = model.solver.assembly_tolerance;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod;
  cod.setThreshold(kAssemblyRankThreshold);
  Eigen::VectorXd dq(6 * N);
  // [Phi_q; the given coordinates' rows] and [Phi; coord - value] (assembly.hpp); without
  // given coordinates the decomposition reads d.Phi_q and d.phi themselves (no copies:
  // the memory estimate counts one Phi_q, job/memory_estimate.cpp).
  Eigen::MatrixXd A(np > 0 ? m + np : 0, 6 * N), C(np, 6 * N);
  Eigen::VectorXd r(np > 0 ? m + np : 0);
  double coord_residual = 0;
  int worst_target = -1;
  const bool sparse = uses_sparse_assembly(model);
  Eigen::SparseMatrix<double> A_sparse;
  // The minimum-norm x of Phi_q x = rhs at the linearised state: sparse where it may be
  // (where the sparse normal equations lose rank, redundant rows of a closed loop: the
  // rank-revealing QR of the rows, dynamics/row_qr.hpp), else the dense decomposition.
  const auto min_norm = [&](const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    if (sparse && sparse_min_norm(A_sparse, rhs, x)) return;
    if (sparse) {
      // The Newton loop polls the stop flag.
      x = RowQR(Eigen::SparseMatrix<double, Eigen::RowMajor>(A_sparse), false).min_norm_solution(rhs);
      return;
    }
    if (d.Phi_q.rows() != m) assemble_jacobian(model, d);
    cod.compute(d.Phi_q);
    x = cod.solve(rhs);
  };
  auto linearise = [&] {
    set_kinematics(model, d, Y);
    if (m > 0) {
      evaluate_constraints(model, d, 0.0);
      if (sparse) {
        A_sparse = sparse_jacobian(model, d);
        d.Phi_q.resize(0, 0);  // stale: min_norm makes it again should it need it
      } else {
        assemble_jacobian(model, d);
      }
      if (np > 0) {
        A.topRows(m) = d.Phi_q;
        r.head(m) = d.phi;
      }
    }
    coord_residual = 0;
    for (int t = 0; t < np; ++t) {
      const CoordinateRow<double> row = target_row(model, d, pos[t]);
      scatter_target_row(model, pos[t], row.jac, C, t);
      const double e = row.value - pos[t].value;
      r[m + t] = pos[t].coordinate == JointCoordinate::Angle ? wrap_angle(e) : e;
      if (std::fabs(r[m + t]) >= coord_residual) worst_target = t;
      coord_residual = std::max(coord_residual, std::fabs(r[m + t]));
    }
    if (np > 0) A.bottomRows(np) = C;
  };
  // Residuals of the last kAssemblyStallWindow + 1 iterations (a ring), for the stall test.
  std::array<double, kAssemblyStallWindow + 1> history{};
  // Newton on [Phi(q); coord(q) - value] = 0: dq = -A^+ r (minimum norm).
  bool converged = false;
  for (res.iterations = 0;; ++res.iterations) {
    if (stop_requested()) return res;
    linearise();
    res.position_residual = m > 0 ? max_violation(d) : 0.0;
    const double residual = std::max(res.position_residual, coord_residual);
    if (!std::isfinite(residual)) break;
    if (residual <= tol) {
      converged = true;
      break;
    }
    if (res.iterations >= model.solver.assembly_max_iterations) break;
    history[res.iterations % history.size()] = residual;
    if (res.iterations >= kAssemblyStallWindow) {
      const double earlier = history[(res.iterations - kAssemblyStallWindow) % history.size()];
      if (!(residual <= kAssemblyStallFactor * earlier)) break;  // stalled
    }
    if (np > 0) {
      cod.compute(A);
      dq = -cod.solve(r);
    } else {
      min_norm(d.phi, dq);
      dq = -dq;
    }
    for (int k = 0; k < N; ++k) apply_position_correction(Y, k, dq.data() + 6 * k);
  }
  if (np > 0 && std::isfinite(res.position_residual) && std::isfinite(coord_residual)) {
    // A given coordinate that the joints and the other given coordinates already
    // determine is a conflicting request, whether or not the values happen to agree.
    const int dep = first_dependent_target(A.topRows(m), C);
    if (dep >= 0) {
      res.ok = false;
      res.message = target_name(model, pos[dep], false) + " = " + format_value(pos[dep].value) +
                    ": the mechanism has no freedom left for it (more joint coordinates given than its mobility; "
                    "the joints and the coordinates given before it determine this one)";
      return res;
    }
    if (!converged && worst_target >= 0) {
      res.message = target_name(model, pos[worst_target], false) + " = " + format_value(pos[worst_target].value) +
                    " cannot be reached: assembly stopped at max |Phi| = " + format_value(res.position_residual) +
                    ", coordinate error " + format_value(coord_residual) + " after " +
                    std::to_string(res.iterations) + " iterations";
      return res;
    }
  }
  if (!converged) return res;
  // Velocity projection onto [Phi_q; the given rates' rows] qdot = [-Phi_t; rate]
  // (Phi_t: minus a driver's s'(0), zero for a joint's row; d.phi_dot holds Phi_q qdot +
  // Phi_t at this state): qdot <- qdot - A_v^+ (A_v qdot - b), the minimum
  // mass-unweighted change.
  Eigen::Map<Eigen::VectorXd> qdot(Y + 7 * N, 6 * N);
  if (nr > 0) {
    project_given_rates(model, d, vel, qdot, res);
    if (!res.message.empty()) return res;
  } else if (m > 0) {  // no given rates: on Phi_q itself, as the positions above
    const auto times_qdot = [&] {
      return sparse && d.Phi_q.rows() != m ? Eigen::VectorXd(A_sparse * qdot) : Eigen::VectorXd(d.Phi_q * qdot);
    };
    const Eigen::VectorXd b = times_qdot() - d.phi_dot;
    Eigen::VectorXd correction(6 * N);
    min_norm(times_qdot() - b, correction);
    qdot -= correction;
    res.velocity_residual = (times_qdot() - b).cwiseAbs().maxCoeff();
  }
  record_changes(model, Y0.data(), Y, np > 0 || model.n_drivers() > 0, res);
  res.ok = std::isfinite(res.velocity_residual);
  if (res.ok) {
    res.message = flipped_joint_message(model, d);  // d.kin is at the assembled positions
    res.ok = res.message.empty();
  }
  return res;
}

}  // namespace simphant
