#include "simphant/dynamics/data.hpp"

#include <stdexcept>

namespace simphant {

SchurPattern schur_pattern_of(const Model& model) {
  std::vector<int> joint_body, rows, row_offset;
  const int S = model.element_sides();
  for (int a = 0; a < model.n_constraints(); ++a) {  // the joints, the drivers, the mimic rows
    const ConstraintElement e = model.constraint(a);
    for (int s = 0; s < S; ++s) joint_body.push_back(e.side_body(s));
    rows.push_back(e.rows);
    row_offset.push_back(e.row_offset);
  }
  return build_schur_pattern(model.n_constraints(), S, joint_body.data(), rows.data(), row_offset.data());
}

SchurFactorization parse_schur_factorization(const std::string& name) {
  if (name == "auto") return SchurFactorization::Auto;
  if (name == "dense") return SchurFactorization::Dense;
  if (name == "sparse") return SchurFactorization::Sparse;
  throw std::invalid_argument("unknown Schur factorisation '" + name + "' (auto, dense or sparse)");
}

// Crossover measured with bench/bench_cpu_step (BM_Rk4StepSchur, one RK4 step of one
// instance, CPU time, this project's 2-core x86-64 dev machine, 2026-11-30): dense vs
// sparse [us] chain_1 (m 5) 1.7 / 1.8, chain_4 (m 20) 10.7 / 11.6, four-bar (m 20) 10.1 /
// 11.0, Bricard (m 30) 19.5 / 17.2, arm7 (m 35) 33.0 / 22.0, chain_8 (m 40) 34.4 / 24.6,
// chain_32 (m 160) 535 / 106. Below m = 30 the sparse path's block bookkeeping costs more
// than the small dense factorisation saves.
bool prefer_sparse_schur(const SchurPattern& pattern) { return pattern.n_rows >= 30; }

bool uses_sparse_schur(const Model& model, SchurFactorization schur) {
  SchurPattern rows_only;  // prefer_sparse_schur reads the row count alone
  rows_only.n_rows = model.n_rows;
  return schur == SchurFactorization::Sparse || (schur == SchurFactorization::Auto && prefer_sparse_schur(rows_only));
}

double data_bytes(const Model& model, SchurFactorization schur, bool with_jacobian) {
  const double m = model.n_rows, nv = model.nv(), ny = model.ny(), N = model.n_bodies(), J = model.n_constraints();
  double b = sizeof(Data);
  b += N * sizeof(BodyKin<double>) + 2 * J * sizeof(JointRows<double>) + 2 * 12 * 8 * model.n_mimics();
  if (with_jacobian) b += 8 * (m * nv);  // Phi_q
  // Q, minv_q, qddot, body_f, body_w; phi, phi_dot, gamma_star, rhs, lambda, diag_C, reg,
  // pivot_floor, residual, correction, c_x; RK4 stages
  b += 8 * (5 * nv + 11 * m + 5 * ny);
  b += 4 * (N + 1 + 2 * model.element_sides() * J);  // body_joint_start, body_joint, body_joint_side
  if (!uses_sparse_schur(model, schur)) return b + 8 * (2 * m * m);  // C and its Cholesky factor
  // The sparse path: the blocks of C (joints sharing a body, and the diagonal) and the
  // pattern's index arrays, a few ints per block. Counted without the fill-in of closed
  // loops (build_schur_pattern's ordering is not run here: it costs O(J^3)); a closed
  // loop adds a few blocks.
  std::vector<std::vector<int>> at_body(static_cast<std::size_t>(model.n_bodies()));
  for (int a = 0; a < model.n_constraints(); ++a)
    for (int s = 0; s < model.element_sides(); ++s)
      if (const int k = model.constraint(a).side_body(s); k >= 0) at_body[static_cast<std::size_t>(k)].push_back(a);
  double values = 0, blocks = 0;
  for (int a = 0; a < model.n_constraints(); ++a) values += static_cast<double>(model.constraint(a).rows) * model.constraint(a).rows;
  blocks += J;
  for (const std::vector<int>& joints : at_body)
    for (std::size_t x = 0; x < joints.size(); ++x)
      for (std::size_t y = x + 1; y < joints.size(); ++y) {
        values += static_cast<double>(model.constraint(joints[x]).rows) * model.constraint(joints[y]).rows;
        blocks += 1;
      }
  return b + 8 * values + 4 * (6 * blocks + 5 * J);
}

Data::Data(const Model& model, SchurFactorization schur)
    : kin(model.n_bodies()),
      rows(model.n_constraints()),
      minv_jt(model.n_constraints()),
      leader_jac(model.n_mimics()),
      leader_minv(model.n_mimics()),
      Q(Eigen::VectorXd::Zero(model.nv())),
      phi(Eigen::VectorXd::Zero(model.n_rows)),
      phi_dot(Eigen::VectorXd::Zero(model.n_rows)),
      gamma_star(Eigen::VectorXd::Zero(model.n_rows)),
      minv_q(Eigen::VectorXd::Zero(model.nv())),
      // Only the dense path has C and its factor. Both are sized here and written by the
      // first step (solve_schur_dense zeroes C), so their pages are touched only then,
      // after assembly has freed its own buffers (sim/host_memory.hpp). The factor is
      // sized in place (never assigned from a default LLT, whose info member is not set
      // before compute()).
      C(uses_sparse_schur(model, schur) ? 0 : model.n_rows, uses_sparse_schur(model, schur) ? 0 : model.n_rows),
      diag_C(Eigen::VectorXd::Zero(model.n_rows)),
      reg(Eigen::VectorXd::Zero(model.n_rows)),
      pivot_floor(Eigen::VectorXd::Zero(model.n_rows)),
      residual(Eigen::VectorXd::Zero(model.n_rows)),
      correction(Eigen::VectorXd::Zero(model.n_rows)),
      c_x(Eigen::VectorXd::Zero(model.n_rows)),
      rhs(Eigen::VectorXd::Zero(model.n_rows)),
      llt(C.rows()),
      schur_pattern(schur_pattern_of(model)),
      lambda(Eigen::VectorXd::Zero(model.n_rows)),
      body_f(Eigen::VectorXd::Zero(model.nv())),
      body_w(Eigen::VectorXd::Zero(model.nv())),
      qddot(Eigen::VectorXd::Zero(model.nv())),
      k1(model.ny()),
      k2(model.ny()),
      k3(model.ny()),
      k4(model.ny()),
      y_stage(model.ny()) {
  sparse_schur = schur == SchurFactorization::Sparse ||
                 (schur == SchurFactorization::Auto && prefer_sparse_schur(schur_pattern));
  // Eigen's LLT leaves its ComputationInfo unset until compute(), and copying or moving
  // it (a std::vector<Data> growing, an assignment) reads that enum: undefined behaviour
  // that UBSan reports. A factorisation of the identity (dense path: C is m x m, as the
  // step needs it) or of an empty matrix (sparse path: C and its factor are not used) sets it.
  if (sparse_schur) {
    schur_values.assign(schur_pattern.n_values, 0.0);
    llt.compute(Eigen::MatrixXd(0, 0));
  } else {
    llt.compute(Eigen::MatrixXd::Identity(model.n_rows, model.n_rows));
  }
  const int N = model.n_bodies();
  body_joint_start.assign(N + 1, 0);
  const int S = model.element_sides();
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement e = model.constraint(a);
    for (int side = 0; side < S; ++side)
      if (e.side_body(side) >= 0) ++body_joint_start[e.side_body(side) + 1];
  }
  for (int k = 0; k < N; ++k) body_joint_start[k + 1] += body_joint_start[k];
  body_joint.resize(body_joint_start[N]);
  body_joint_side.resize(body_joint_start[N]);
  std::vector<int> fill(body_joint_start.begin(), body_joint_start.end() - 1);
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement e = model.constraint(a);
    for (int side = 0; side < S; ++side) {
      const int k = e.side_body(side);
      if (k < 0) continue;
      body_joint[fill[k]] = a;
      body_joint_side[fill[k]++] = side;
    }
  }
}

}  // namespace simphant
