#include "simphant/dynamics/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/pivot_watch.hpp"
#include "simphant/dynamics/forces.hpp"
#include "simphant/formulas/refined_solve.hpp"
#include "simphant/formulas/sparse_cholesky.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {
namespace {

// y = M_k^-1 x for one body's 6 velocity coordinates (force_math.hpp).
inline void apply_body_Minv(const Body& b, const double* x, double* y) { apply_body_Minv(b.mass, b.inertia_inv_B, x, y); }

inline double dot6(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

// C = Phi_q M^-1 Phi_q^T (unregularised) and rhs = Phi_q M^-1 Q - gamma*, from the per-joint row
// blocks: M is block diagonal, so only rows of joints that share a body couple, and
// C(a, b) = sum over shared bodies k of Phi_q,a,k M_k^-1 Phi_q,b,k^T. Each product is
// handed once to add(a, b, r, s, c) (joint a's row r, joint b's row s; a == b for a
// joint's own block, whose every (r, s) comes once; with lower_own only s <= r there,
// what the sparse factorisation reads), which stores it in dense C or in the blocks of
// the sparse path; rhs is formed here. A mimic row (one row, four sides) whose follower
// and leader share a body k meets itself at two sides of k: that pair's product enters
// its diagonal entry twice (Phi_q,a,s M_k^-1 Phi_q,a,t^T and its transpose, equal for
// one row).
template <class Add>
void build_schur(const Model& model, Data& d, bool lower_own, Add add) {
  const int N = model.n_bodies(), S = model.element_sides();
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement jt = model.constraint(a);
    d.minv_jt[a].m = d.rows[a].m;
    for (int side = 0; side < S; ++side) {
      const int k = jt.side_body(side);
      if (k < 0) continue;
      for (int r = 0; r < d.rows[a].m; ++r)
        apply_body_Minv(model.bodies[k], side_row(model, d, a, r, side), side_minv_row(model, d, a, r, side));
    }
  }
  for (int k = 0; k < N; ++k) apply_body_Minv(model.bodies[k], d.Q.data() + 6 * k, d.minv_q.data() + 6 * k);
  d.rhs = -d.gamma_star;
  for (int k = 0; k < N; ++k) {
    for (int p = d.body_joint_start[k]; p < d.body_joint_start[k + 1]; ++p) {
      const int a = d.body_joint[p], sa = d.body_joint_side[p];
      const int ma = d.rows[a].m;
      const int oa = model.constraint(a).row_offset;
      for (int r = 0; r < ma; ++r) d.rhs[oa + r] += dot6(side_row(model, d, a, r, sa), d.minv_q.data() + 6 * k);
      for (int q = p; q < d.body_joint_start[k + 1]; ++q) {
        const int b = d.body_joint[q], sb = d.body_joint_side[q];
        const int mb = d.minv_jt[b].m;
        const bool own = lower_own && q == p;
        const int times = (a == b && q != p) ? 2 : 1;  // a mimic row at two sides of k
        for (int r = 0; r < ma; ++r)
          for (int s = 0; s < (own ? r + 1 : mb); ++s) {
            const double c = dot6(side_row(model, d, a, r, sa), side_minv_row(model, d, b, s, sb));
            for (int t = 0; t < times; ++t) add(a, b, r, s, c);
          }
      }
    }
  }
}

// Dense: C in full (unregularised; its diagonal kept in d.diag_C).
void assemble_schur_dense(const Model& model, Data& d) {
  d.C.setZero();
  build_schur(model, d, false, [&](int a, int b, int r, int s, double c) {
    const int R = model.constraint(a).row_offset + r, S = model.constraint(b).row_offset + s;
    d.C(R, S) += c;
    if (a != b) d.C(S, R) += c;
  });
  d.diag_C = d.C.diagonal();
}

// Eigen's LLT of C + E with E_R = tikhonov_term(eps, C_RR), every pivot checked against
// its floor (refined_solve.hpp). Returns false when a pivot is rejected.
bool factor_schur_dense(Data& d, double eps) {
  for (int R = 0; R < d.C.rows(); ++R) {
    d.reg[R] = tikhonov_term(eps, d.diag_C[R]);
    d.pivot_floor[R] = pivot_floor(d.reg[R], d.diag_C[R]);
    d.C(R, R) = d.diag_C[R] + d.reg[R];
  }
  d.llt.compute(d.C);
  if (d.llt.info() != Eigen::Success) return false;
  for (int R = 0; R < d.C.rows(); ++R) {
    const double l = d.llt.matrixLLT()(R, R);
    if (!pivot_ok(l * l, d.pivot_floor[R])) return false;
  }
  return true;
}

// Sparse: the lower blocks of C in topology order, the diagonal blocks' lower triangles
// (unregularised; diagonal in d.diag_C).
void assemble_schur_sparse(const Model& model, Data& d) {
  const SchurPatternView P = d.schur_pattern.view();
  const std::vector<int>& pos = d.schur_pattern.position;
  std::fill(d.schur_values.begin(), d.schur_values.end(), 0.0);
  int last_a = -1, last_b = -1;  // the products come joint pair by joint pair
  SchurBlockSlot slot{};
  build_schur(model, d, true, [&](int a, int b, int r, int s, double c) {
    if (a != last_a || b != last_b) {
      slot = schur_block_slot(P, pos[a], pos[b]);
      last_a = a;
      last_b = b;
    }
    d.schur_values[slot.base + r * slot.stride_r + s * slot.stride_s] += c;
  });
  for (int p = 0; p < P.n_joints; ++p) {
    const double* D = d.schur_values.data() + P.block_value[P.col_start[p]];
    for (int r = 0; r < P.pos_rows[p]; ++r) d.diag_C[P.pos_row0[p] + r] = D[r * P.pos_rows[p] + r];
  }
}

// sparse_cholesky of C + E as factor_schur_dense. The blocks must hold C on entry.
bool factor_schur_sparse(Data& d, double eps) {
  const SchurPatternView P = d.schur_pattern.view();
  for (int p = 0; p < P.n_joints; ++p) {
    double* D = d.schur_values.data() + P.block_value[P.col_start[p]];
    for (int r = 0; r < P.pos_rows[p]; ++r) {
      const int R = P.pos_row0[p] + r;
      d.reg[R] = tikhonov_term(eps, d.diag_C[R]);
      d.pivot_floor[R] = pivot_floor(d.reg[R], d.diag_C[R]);
      D[r * P.pos_rows[p] + r] += d.reg[R];
    }
  }
  return sparse_cholesky(P, d.schur_values.data(), 1, static_cast<const double*>(d.pivot_floor.data()), 1);
}

// out <- out + scale Phi_q^T x (out: 6 N body-wise [F_W, T_B], x: m rows), joint by
// joint from the row blocks.
void add_jacobian_transpose(const Model& model, const Data& d, const double* x, double scale, double* out) {
  const int S = model.element_sides();
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement jt = model.constraint(a);
    const JointRows<double>& Ja = d.rows[a];
    for (int side = 0; side < S; ++side) {
      const int k = jt.side_body(side);
      if (k < 0) continue;
      for (int r = 0; r < Ja.m; ++r) {
        const double l = scale * x[jt.row_offset + r];
        const double* row = side_row(model, d, a, r, side);
        for (int c = 0; c < 6; ++c) out[6 * k + c] += row[c] * l;
      }
    }
  }
}

// y = C x with C = Phi_q M^-1 Phi_q^T without regularisation, from the joint rows: per
// body k, f_k = sum over the joints at k of Phi_q,a,k^T x_a, then y_a = sum over a's
// bodies of Phi_q,a,k M_k^-1 f_k. O(12 m), no matrix.
void apply_schur(const Model& model, Data& d, const double* x, double* y) {
  d.body_f.setZero();
  add_jacobian_transpose(model, d, x, 1.0, d.body_f.data());
  for (int k = 0; k < model.n_bodies(); ++k)
    apply_body_Minv(model.bodies[k], d.body_f.data() + 6 * k, d.body_w.data() + 6 * k);
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement jt = model.constraint(a);
    const JointRows<double>& Ja = d.rows[a];
    for (int r = 0; r < Ja.m; ++r) {
      double v = 0;
      for (int side = 0; side < model.element_sides(); ++side) {
        const int k = jt.side_body(side);
        if (k >= 0) v += dot6(side_row(model, d, a, r, side), d.body_w.data() + 6 * k);
      }
      y[jt.row_offset + r] = v;
    }
  }
}

// The refined regularised solve (refined_solve.hpp): C assembled, factorised with the
// scene's relative eps or, when a pivot is rejected, with recovery_epsilon (counted in
// d.factorisation_recoveries); then lambda_0 = (C + E)^-1 rhs and the corrections
// lambda_{k+1} = lambda_k + (C + E)^-1 (rhs - C lambda_k) until the error estimate in the
// C norm is below refinement_tolerance() of ||lambda_0||_C, at most refinement_steps of
// them, at least two (refine_corrections, refined_solve.hpp, the loop of every path); the
// relative estimate in d.refine_estimate. Returns false when no attempt factorises.
bool solve_schur(const Model& model, Data& d) {
  const double eps = model.solver.tikhonov_epsilon;
  bool ok;
  if (d.sparse_schur) {
    assemble_schur_sparse(model, d);
    ok = factor_schur_sparse(d, eps);
    for (int t = 1; t <= kRecoveryAttempts && !ok; ++t) {
      assemble_schur_sparse(model, d);  // the failed attempt overwrote the blocks
      ok = factor_schur_sparse(d, recovery_epsilon(eps, t));
      if (ok) ++d.factorisation_recoveries;
    }
  } else {
    assemble_schur_dense(model, d);
    ok = factor_schur_dense(d, eps);
    for (int t = 1; t <= kRecoveryAttempts && !ok; ++t) {
      ok = factor_schur_dense(d, recovery_epsilon(eps, t));
      if (ok) ++d.factorisation_recoveries;
    }
  }
  if (!ok) return false;
  const SchurPatternView P = d.schur_pattern.view();
  const auto solve = [&](double* x) {
    if (d.sparse_schur) {
      sparse_solve(P, static_cast<const double*>(d.schur_values.data()), 1, x, 1);
    } else {
      Eigen::Map<Eigen::VectorXd> v(x, model.n_rows);
      d.llt.solveInPlace(v);
    }
  };
  // w <- w - C x; e2 += x^T C x (as schur_subtract_rows sums it on the batched paths).
  const auto subtract = [&](const double* x, double* w, double& e2) {
    apply_schur(model, d, x, d.c_x.data());
    for (int R = 0; R < model.n_rows; ++R) {
      w[R] -= d.c_x[R];
      e2 += x[R] * d.c_x[R];
    }
  };
  d.correction = d.rhs;
  solve(d.correction.data());
  d.residual = d.rhs;
  d.refine_estimate = refine_corrections(model.n_rows, model.solver.refinement_steps, 1, d.residual.data(),
                                         d.correction.data(), d.lambda.data(), solve, subtract, &d.refine_ratio);
  return true;
}

}  // namespace

void set_kinematics(const Model& model, Data& d, const double* Y) {
  const int N = model.n_bodies();
  for (int k = 0; k < N; ++k) {
    d.kin[k] = make_body_kin(state_r(Y, k), normalized(state_p(Y, k)), state_v(Y, N, k), state_omega(Y, N, k));
  }
}

void evaluate_constraints(const Model& model, Data& d, double t) {
  const double alpha = model.solver.baumgarte_alpha, beta = model.solver.baumgarte_beta;
  const auto kin = [&](int k) { return k >= 0 ? d.kin[k] : ground_kin<double>(); };
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement e = model.constraint(a);
    JointRows<double>& jr = d.rows[a];
    if (a < model.n_joints()) {
      const Joint& jt = model.joints[a];
      joint_eval(jt.type, jt.frame, kin(e.body_i), kin(e.body_j), jr);
    } else if (a >= model.first_mimic()) {
      // A mimic row (docs/solver.md, "Mimic rows"): Phi = q_f - r q_l - o.
      const Mimic& mi = model.mimics[a - model.first_mimic()];
      mimic_row(mi.coordinate, model.joints[mi.joint].frame, kin(e.body_i), kin(e.body_j), mi.leader_coordinate,
                model.joints[mi.leader].frame, kin(e.body_k), kin(e.body_l), mi.multiplier, mi.offset, mi.q_ref,
                mi.leader_q_ref, jr, d.leader_jac[a - model.first_mimic()].data());
    } else {
      // A driver (docs/solver.md, "Rheonomic drivers"): Phi = coord(q) - s(t).
      const Driver& dr = model.drivers[a - model.n_joints()];
      const MotionLaw& law = model.laws[dr.law];
      double s, sd, sdd;
      motion_law_eval(law.type, law.params.data(), static_cast<int>(law.params.size()), t, s, sd, sdd);
      jr.m = 1;
      driver_row(dr.coordinate, model.joints[dr.joint].frame, kin(e.body_i), kin(e.body_j), s, sd, sdd, jr, 0);
    }
    const int removed = model.removed_mask(a);
    remove_rows(jr, removed);
    if (removed && a >= model.first_mimic()) d.leader_jac[a - model.first_mimic()].fill(0.0);
    for (int r = 0; r < jr.m; ++r) {
      const int row = e.row_offset + r;
      d.phi[row] = jr.phi[r];
      d.phi_dot[row] = jr.phi_dot[r];
      d.gamma_star[row] = row_gamma_star(jr, r, removed, alpha, beta);
    }
  }
}

void assemble_jacobian(const Model& model, Data& d) {
  d.Phi_q.setZero(model.n_rows, model.nv());  // sized on first use (a step's Data never holds it)
  for (int j = 0; j < model.n_constraints(); ++j) {
    const ConstraintElement jt = model.constraint(j);
    const JointRows<double>& jr = d.rows[j];
    for (int r = 0; r < jr.m; ++r)
      for (int side = 0; side < model.element_sides(); ++side) {
        const int k = jt.side_body(side);
        if (k < 0) continue;
        const double* row = side_row(model, d, j, r, side);
        for (int c = 0; c < 6; ++c) d.Phi_q(jt.row_offset + r, 6 * k + c) += row[c];  // a mimic's sides may share k
      }
  }
}

namespace {

// The smallest relative pivot L_RR^2 / C_RR of the last factorisation (pivot_watch.hpp),
// from the dense factor (Eigen's, column-major) or the sparse one.
double smallest_relative_pivot(const Data& d) {
  if (d.sparse_schur)
    return sparse_smallest_pivot(d.schur_pattern.view(), d.schur_values.data(), 1, d.diag_C.data(), 1);
  return dense_smallest_pivot(static_cast<int>(d.C.rows()), d.llt.matrixLLT().data(), d.diag_C.data(), 1);
}

}  // namespace

bool solve_accelerations(const Model& model, Data& d, double t) {
  const int N = model.n_bodies();
  if (model.n_rows > 0) {
    if (!solve_schur(model, d)) return false;
    d.refinement.add(d.refine_estimate, t);
    const double rho = smallest_relative_pivot(d);
    d.refinement.add_pivot(rho, t);
    d.step_pivot = smaller_pivot(d.step_pivot, rho);
    add_jacobian_transpose(model, d, d.lambda.data(), -1.0, d.Q.data());  // Q <- Q - Phi_q^T lambda
  }
  for (int k = 0; k < N; ++k) apply_body_Minv(model.bodies[k], d.Q.data() + 6 * k, d.qddot.data() + 6 * k);
  return true;
}

bool evaluate(const Model& model, Data& d, double t, const double* Y, const double* inputs, double* Ydot) {
  const int N = model.n_bodies();
  set_kinematics(model, d, Y);
  compute_forces(model, d, t, inputs);
  if (model.n_rows > 0) evaluate_constraints(model, d, t);
  if (!solve_accelerations(model, d, t)) return false;
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
    const BodyKin<double> Bj = jt.body_j >= 0 ? d.kin[jt.body_j] : ground_kin<double>();
    joint_reaction(d.rows[j].m, &d.rows[j].jac[0][0], d.lambda.data() + jt.row_offset, Bj, jt.frame.u_j, out + 6 * j);
  }
}

void driver_loads(const Model& model, const Data& d, double* out) {
  for (int k = 0; k < model.n_drivers(); ++k) out[k] = -d.lambda[model.drivers[k].row_offset];
}

double kinetic_energy(const Model& model, const Data& d) {
  double T = 0;
  for (int k = 0; k < model.n_bodies(); ++k) {
    T += body_kinetic_energy(model.bodies[k].mass, model.bodies[k].inertia_B, d.kin[k]);
  }
  return T;
}

double total_energy(const Model& model, const Data& d) {
  double E = kinetic_energy(model, d) + spring_potential(model, d);
  for (int k = 0; k < model.n_bodies(); ++k) E -= model.bodies[k].mass * dot(model.gravity, d.kin[k].r);
  return E;
}

double max_violation(const Data& d) { return d.phi.size() ? d.phi.cwiseAbs().maxCoeff() : 0.0; }

}  // namespace simphant
