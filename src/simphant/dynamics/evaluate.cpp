#include "simphant/dynamics/evaluate.hpp"

#include <cmath>

#include "simphant/dynamics/forces.hpp"
#include "simphant/dynamics/state.hpp"

namespace simphant {
namespace {

// Rows r0..r0+m of out (an m x 6N matrix) receive the 12 local columns of one joint;
// a ground side's columns are dropped.
void scatter_rows(const Joint& jt, const JointRows<double>& jr, Eigen::MatrixXd& Phi_q) {
  for (int r = 0; r < jr.m; ++r) {
    const int row = jt.row_offset + r;
    for (int c = 0; c < 6; ++c) {
      if (jt.body_i >= 0) Phi_q(row, 6 * jt.body_i + c) += jr.jac[r][c];
      if (jt.body_j >= 0) Phi_q(row, 6 * jt.body_j + c) += jr.jac[r][6 + c];
    }
  }
}

}  // namespace

void set_kinematics(const Model& model, Data& d, const double* Y) {
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k) {
    d.kin[k] = make_body_kin(state_r(Y, k), normalized(state_p(Y, k)), state_v(Y, N, k), state_omega(Y, N, k));
  }
}

void evaluate_constraints(const Model& model, Data& d) {
  const double alpha = model.solver.baumgarte_alpha, beta = model.solver.baumgarte_beta;
  d.Phi_q.setZero();
  for (int j = 0; j < model.n_joints(); ++j) {
    const Joint& jt = model.joints[j];
    const BodyKin<double> Bi = jt.body_i >= 0 ? d.kin[jt.body_i] : ground_kin<double>();
    const BodyKin<double> Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
    JointRows<double>& jr = d.rows[j];
    joint_eval(jt.type, jt.frame, Bi, Bj, jr);
    scatter_rows(jt, jr, d.Phi_q);
    for (int r = 0; r < jr.m; ++r) {
      const int row = jt.row_offset + r;
      d.phi[row] = jr.phi[r];
      d.phi_dot[row] = jr.phi_dot[r];
      d.gamma_star[row] = baumgarte_gamma(jr.gamma[r], jr.phi_dot[r], jr.phi[r], alpha, beta);
    }
  }
}

bool evaluate(const Model& model, Data& d, const double* Y, const double* inputs, double* Ydot) {
  const int N = model.n_bodies();
  const int m = model.n_rows;
  set_kinematics(model, d, Y);
  compute_forces(model, d, inputs);
  // M^-1 applied block by block: 1/m on translations, J^-1 on rotations.
  auto apply_Minv = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> y) {
    for (int k = 0; k < N; ++k) {
      const Body& b = model.bodies[k];
      const Vec3d w = mul(b.inertia_inv_B, Vec3d{x[6 * k + 3], x[6 * k + 4], x[6 * k + 5]});
      for (int c = 0; c < 3; ++c) {
        y[6 * k + c] = x[6 * k + c] / b.mass;
        y[6 * k + 3 + c] = w[c];
      }
    }
  };
  if (m > 0) {
    evaluate_constraints(model, d);
    for (int r = 0; r < m; ++r) apply_Minv(d.Phi_q.row(r).transpose(), d.Minv_PhiT.col(r));
    d.C.noalias() = d.Phi_q * d.Minv_PhiT;
    d.C.diagonal().array() += model.solver.tikhonov_epsilon;
    d.rhs.noalias() = d.Minv_PhiT.transpose() * d.Q;  // Phi_q M^-1 Q (M^-1 symmetric)
    d.rhs -= d.gamma_star;
    d.llt.compute(d.C);
    if (d.llt.info() != Eigen::Success) return false;
    d.lambda = d.llt.solve(d.rhs);
    d.Q.noalias() -= d.Phi_q.transpose() * d.lambda;  // Q - Phi_q^T lambda
  }
  apply_Minv(d.Q, d.qddot);
  // Ydot = [rdot = v, pdot = 1/2 p (0, omega), qddot].
  bool finite = true;
  for (int k = 0; k < N; ++k) {
    const Vec3d v = state_v(Y, N, k);
    const Quatd pd = quat_rate(state_p(Y, k), state_omega(Y, N, k));
    double* o = Ydot + 7 * k;
    o[0] = v.x; o[1] = v.y; o[2] = v.z;
    o[3] = pd.w; o[4] = pd.x; o[5] = pd.y; o[6] = pd.z;
  }
  for (int i = 0; i < 6 * N; ++i) {
    Ydot[7 * N + i] = d.qddot[i];
    finite = finite && std::isfinite(d.qddot[i]);
  }
  return finite;
}

void joint_reactions(const Model& model, const Data& d, double* out) {
  for (int j = 0; j < model.n_joints(); ++j) {
    const Joint& jt = model.joints[j];
    const JointRows<double>& jr = d.rows[j];
    const BodyKin<double> Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
    // Generalised constraint force on body_j: -Phi_q,j^T lambda = [F_W, T_B about CoM].
    Vec3d F = zero3<double>(), T_B = zero3<double>();
    for (int r = 0; r < jr.m; ++r) {
      const double l = d.lambda[jt.row_offset + r];
      for (int c = 0; c < 3; ++c) {
        F[c] -= jr.jac[r][6 + c] * l;
        T_B[c] -= jr.jac[r][9 + c] * l;
      }
    }
    // Torque about the anchor: T_P = A T_B + (r_j - P) x F = A T_B - s_j x F.
    const Vec3d s_j = mul(Bj.A, jt.frame.u_j);
    const Vec3d T_P = mul(Bj.A, T_B) - cross(s_j, F);
    for (int c = 0; c < 3; ++c) {
      out[6 * j + c] = F[c];
      out[6 * j + 3 + c] = T_P[c];
    }
  }
}

double total_energy(const Model& model, const Data& d) {
  double E = spring_potential(model, d);
  for (int k = 0; k < model.n_bodies(); ++k) {
    const Body& b = model.bodies[k];
    const BodyKin<double>& B = d.kin[k];
    E += 0.5 * b.mass * dot(B.v, B.v) + 0.5 * dot(B.omega_B, mul(b.inertia_B, B.omega_B));
    E -= b.mass * dot(model.gravity, B.r);
  }
  return E;
}

double max_violation(const Data& d) { return d.phi.size() ? d.phi.cwiseAbs().maxCoeff() : 0.0; }

}  // namespace simphant
