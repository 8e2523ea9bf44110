#pragma once
// Data: every per-evaluation intermediate of the DAE solver for one worker, sized once
// when created from a Model (no allocation inside the step loop).
#include <cstdint>
#include <string>
#include <array>
#include <vector>

#include <Eigen/Dense>

#include "simphant/formulas/refinement_record.hpp"
#include "simphant/formulas/schur_pattern.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/model/model.hpp"

namespace simphant {

/// How evaluate() factorises the Schur matrix C: dense Eigen LLT, the topology-ordered
/// block-sparse Cholesky (sparse_cholesky.hpp), or Auto: whichever
/// prefer_sparse_schur() picks for the model.
enum class SchurFactorization { Auto, Dense, Sparse };

/// The block structure of the model's Schur matrix (build_schur_pattern on its joints).
SchurPattern schur_pattern_of(const Model& model);

/// Parses "auto" | "dense" | "sparse"; throws std::invalid_argument naming the value.
SchurFactorization parse_schur_factorization(const std::string& name);

/// The Auto choice: sparse from m = 30 rows on (the measured crossover, data.cpp).
bool prefer_sparse_schur(const SchurPattern& pattern);

/// Whether a Data made with `schur` for `model` takes the block-sparse path.
bool uses_sparse_schur(const Model& model, SchurFactorization schur);

/// The bytes one Data of `model` made with `schur` holds: the object and every buffer
/// (C and its Cholesky factor (m, m) each on the dense path, the blocks of C and L on
/// the sparse one; the per-joint rows, the RK4 workspace), plus the dense Phi_q (m, 6N)
/// when with_jacobian (a Data that assembles or analyses: assemble_jacobian), without
/// building it. Used by the memory guards (job/memory_estimate.hpp).
double data_bytes(const Model& model, SchurFactorization schur, bool with_jacobian = false);

/// Not copyable or movable in practice: Eigen's LLT leaves its `info` member unset until
/// compute(), so copying a Data whose factor has not been computed reads an invalid enum
/// (UBSan). Hold Data by value where it is made (or in a std::unique_ptr), never in a
/// container that may reallocate.
struct Data {
  explicit Data(const Model& model, SchurFactorization schur = SchurFactorization::Auto);
  Data(const Data&) = delete;
  Data& operator=(const Data&) = delete;

  std::vector<BodyKin<double>> kin;         ///< (N) body kinematics at the evaluated state
  /// (n_constraints: the joints, then the drivers; Model::constraint) per-element Phi,
  /// Phi_q (x12), gamma
  std::vector<JointRows<double>> rows;
  std::vector<JointRows<double>> minv_jt;   ///< (n_constraints) jac field: rows of Phi_q,k M_k^-1 per side
  /// (n_mimics) a mimic row's leader columns (sides 2 and 3: body_k, body_l; Model::mimics)
  /// and their M_k^-1 products; its follower columns are in rows / minv_jt (side_row).
  std::vector<std::array<double, 12>> leader_jac, leader_minv;
  /// Constraint elements touching each body, CSR: body k's entries are [body_joint_start[k],
  /// body_joint_start[k+1]) of body_joint (joint index) and body_joint_side (0: body_i,
  /// 1: body_j, 2: body_k, 3: body_l of a mimic row), elements in order, each element's
  /// sides in order. Derived from the model once; the Schur matrix only couples rows of
  /// elements that share a body.
  std::vector<int> body_joint_start, body_joint, body_joint_side;
  Eigen::VectorXd Q;                        ///< (6N) applied + gyroscopic generalised forces [F_W, T_B]
  Eigen::MatrixXd Phi_q;                    ///< (m, 6N) dense Jacobian, empty until assemble_jacobian sizes it (assembly,
                                            ///< rank analysis; a step never uses it)
  Eigen::VectorXd phi;                      ///< (m) Phi
  Eigen::VectorXd phi_dot;                  ///< (m) Phi_q qdot
  Eigen::VectorXd gamma_star;               ///< (m) Baumgarte-stabilised gamma*
  Eigen::VectorXd minv_q;                   ///< (6N) M^-1 Q
  Eigen::MatrixXd C;                        ///< (m, m) Phi_q M^-1 Phi_q^T + E (dense path, set by evaluate; empty on the sparse one)
  Eigen::VectorXd diag_C;                   ///< (m) diagonal of C without E
  Eigen::VectorXd reg;                      ///< (m) E, the regularisation of the last factorisation (refined_solve.hpp)
  Eigen::VectorXd pivot_floor;              ///< (m) smallest pivot accepted from it (pivot_floor)
  Eigen::VectorXd residual;                 ///< (m) refinement workspace: rhs - C lambda
  Eigen::VectorXd correction;               ///< (m) refinement workspace: the correction delta_k
  Eigen::VectorXd c_x;                      ///< (m) refinement workspace: C delta_k
  Eigen::VectorXd rhs;                      ///< (m) Phi_q M^-1 Q - gamma*
  Eigen::LLT<Eigen::MatrixXd> llt;          ///< Cholesky factor of C (dense path)
  SchurPattern schur_pattern;               ///< block structure of C and L in topology order
  bool sparse_schur = false;                ///< evaluate() uses the block-sparse path (C is not formed)
  std::vector<double> schur_values;         ///< (schur_pattern.n_values) blocks of C, then of L (sparse path; empty on the dense one)
  Eigen::VectorXd lambda;                   ///< (m) Lagrange multipliers
  Eigen::VectorXd body_f, body_w;           ///< (6N) each: workspace of the product C lambda (evaluate.cpp)
  /// Evaluations whose first factorisation met a rejected pivot and that a larger shift
  /// recovered (docs/solver.md, "The refined regularised solve"); never reset by evaluate.
  long long factorisation_recoveries = 0;
  /// The relative error estimate of the last refined solve (refine_corrections in
  /// refined_solve.hpp; -1: not checked, solver.refinement_steps 0).
  double refine_estimate = -1;
  /// The ratio of its last two corrections (refine_corrections; 0 when fewer were made).
  double refine_ratio = 0;
  /// Every refined solve since its owner last cleared it, at the time evaluate() or the
  /// projection gave (CpuBackend clears it before stepping an instance and keeps it per
  /// instance).
  RefinementRecord refinement;
  /// The smallest relative pivot (formulas/pivot_watch.hpp) of the Schur factorisations of
  /// the current fixed step so far: reset by begin_step, lowered by every factorisation; the
  /// auto projection's indicator (projection.hpp).
  double step_pivot = no_schur_pivot<double>();
  Eigen::VectorXd qddot;                    ///< (6N) [a_W, omegadot_B]
  double violation_start = 0;               ///< max |Phi| at the start of the last RK4 step
  std::int8_t failure = 0;                  ///< why the last RK4 step failed (kReason*, formulas/runaway.hpp), 0 after a good one
  // RK4 workspace, (13N) each.
  std::vector<double> k1, k2, k3, k4, y_stage;
};

/// Row r of constraint element a's Phi_q block on side s (6 columns, [v (W), omega (B)]):
/// sides 0 and 1 in d.rows[a], a mimic row's sides 2 and 3 in d.leader_jac (r = 0).
inline const double* side_row(const Model& model, const Data& d, int a, int r, int s) {
  return s < 2 ? d.rows[static_cast<std::size_t>(a)].jac[r] + 6 * s
               : d.leader_jac[static_cast<std::size_t>(a - model.first_mimic())].data() + 6 * (s - 2);
}

/// The same row times M_k^-1 of the side's body (d.minv_jt, d.leader_minv).
inline double* side_minv_row(const Model& model, Data& d, int a, int r, int s) {
  return s < 2 ? d.minv_jt[static_cast<std::size_t>(a)].jac[r] + 6 * s
               : d.leader_minv[static_cast<std::size_t>(a - model.first_mimic())].data() + 6 * (s - 2);
}

}  // namespace simphant
