#include "simphant/bench/cost_model.hpp"

#include <stdexcept>
#include <vector>

#include "simphant/dynamics/data.hpp"

namespace simphant::bench {

namespace {

// FLOP estimates of the per-thread functions' pieces, counted by reading them (adds and
// multiplies 1, FMA 2, divide / square root 1); approximate to about +-30 %.
constexpr double kBodyKinFlops = 57;     // soa_body_kin: normalise p (12), A(p) (30), omega_W = A omega_B (15)
constexpr double kSideWorldFlops = 120;  // joint_eval: side_world on both sides, 4 A x (15) each
constexpr double kSphericalFlops = 105;  // rows_spherical: Phi, 2 double crosses, 3 x 2 crosses, gamma
constexpr double kDot1Flops = 105;       // row_dot1: 2 crosses, 2 A^T x, gamma's 4 crosses and 3 dots
constexpr double kDot2Flops = 150;       // row_dot2: d, d_dot, d_cent, 2 A^T x, gamma
constexpr double kRowTailFlops = 29;     // per row: Phi_dot = Phi_q qdot (24), Baumgarte gamma* (5)
constexpr double kBodyForceFlops = 90;   // body_forces_thread: kinematics, m g, gyroscopic J omega x omega
constexpr double kMinvFlops = 18;        // apply_body_Minv: F / m (3), J^-1 T (15)
constexpr double kDot6Flops = 12;        // detail::dot6 and the accumulation
constexpr double kQuatRateFlops = 28;    // quat_rate: 1/2 p (0, omega)
constexpr double kRk4StageFlops = 2;     // per state entry: y + h k
constexpr double kRk4FinalFlops = 8;     // per state entry: y + dt/6 (k1 + 2 k2 + 2 k3 + k4)
constexpr double kNormaliseFlops = 12;   // per quaternion

/// Flops of the row groups of joint_eval for one joint type (the rows are listed there).
double joint_row_flops(JointType t) {
  switch (t) {
    case JointType::Spherical: return kSphericalFlops;
    case JointType::Revolute: return kSphericalFlops + 2 * kDot1Flops;
    case JointType::Prismatic: return 3 * kDot1Flops + 2 * kDot2Flops;
    case JointType::Cylindrical: return 2 * kDot1Flops + 2 * kDot2Flops;
    case JointType::Planar: return 2 * kDot1Flops + kDot2Flops;
    case JointType::Fixed: return kSphericalFlops + 3 * kDot1Flops;
  }
  return 0;
}

/// Flops that one force element adds to each body it acts on (force_math.hpp formulas,
/// including the kinematics of the bodies it reads).
double force_flops_per_body(ForceType t) {
  switch (t) {
    case ForceType::PointForce: return 60;
    case ForceType::Torque: return 40;
    case ForceType::SpringDamper: return 260;
    case ForceType::RotationalSpringDamper: return 250;
    case ForceType::Actuator: return 150;
    case ForceType::Contact: return 700;  // shape poses, one pair function, law per contact (contact/)
    case ForceType::JointStop: return 250;  // as a rotational spring-damper
  }
  return 0;
}

int moving(int body) { return body >= 0 ? 1 : 0; }

/// Sizes of the Schur system's storage and factorisation for one path.
struct SchurCost {
  double V_C = 0;           ///< values the schur phase writes
  double V_L = 0;           ///< values of the stored factor
  double factor_flops = 0;  ///< factorisation + the two triangular solves
  bool both_triangles = true;  ///< the schur phase forms both triangles of C
};

SchurCost schur_cost(const Model& model, bool fused) {
  const double m = model.n_rows;
  SchurCost s;
  if (!fused) {
    s.V_C = m * m;
    s.V_L = m * (m + 1) / 2;
    s.factor_flops = m * m * m / 3 + 2 * m * m;
    return s;
  }
  const SchurPattern P = schur_pattern_of(model);
  s.V_C = s.V_L = P.n_values;
  s.factor_flops = 2.0 * static_cast<double>(P.factor_flops()) + 4.0 * P.n_values;
  s.both_triangles = false;
  return s;
}

/// Flops of one evaluation (joint rows, forces, Schur system, factorisation and solve,
/// accelerations) of one instance.
double evaluation_flops(const Model& model, const SchurCost& sc) {
  const int N = model.n_bodies(), J = model.n_joints();
  std::vector<int> body_rows(static_cast<std::size_t>(N), 0);  // rows of the joints at each body
  std::vector<std::vector<int>> body_joints(static_cast<std::size_t>(N));
  double f = 0;
  for (int j = 0; j < J; ++j) {
    const Joint& jt = model.joints[static_cast<std::size_t>(j)];
    const int mj = joint_rows(jt.type);
    f += kBodyKinFlops * (moving(jt.body_i) + moving(jt.body_j)) + kSideWorldFlops + joint_row_flops(jt.type) +
         kRowTailFlops * mj;
    for (int k : {jt.body_i, jt.body_j})
      if (k >= 0) {
        body_rows[static_cast<std::size_t>(k)] += mj;
        body_joints[static_cast<std::size_t>(k)].push_back(j);
      }
  }
  f += kBodyForceFlops * N;
  for (const ForceElement& fe : model.forces) {
    int bodies = 0;
    if (fe.type == ForceType::PointForce || fe.type == ForceType::Torque) bodies = moving(fe.body);
    else if (fe.type == ForceType::SpringDamper || fe.type == ForceType::Contact) bodies = moving(fe.body_i) + moving(fe.body_j);
    else if (fe.joint >= 0) bodies = moving(model.joints[static_cast<std::size_t>(fe.joint)].body_i) +
                                     moving(model.joints[static_cast<std::size_t>(fe.joint)].body_j);
    f += force_flops_per_body(fe.type) * bodies;
  }
  if (model.n_rows > 0) {
    // The Schur phase: rhs (M^-1 Q per body of the joint, one dot6 per row), the coupled
    // blocks (M^-1 once per row of the higher joint, one dot6 per entry; each off-diagonal
    // block once when only the lower triangle is formed), eps.
    for (int a = 0; a < J; ++a) {
      const Joint& ja = model.joints[static_cast<std::size_t>(a)];
      const double ma = joint_rows(ja.type);
      for (int k : {ja.body_i, ja.body_j}) {
        if (k < 0) continue;
        f += kMinvFlops + kDot6Flops * ma;
        for (int b : body_joints[static_cast<std::size_t>(k)]) {
          const double mb = joint_rows(model.joints[static_cast<std::size_t>(b)].type);
          const double share = sc.both_triangles || a == b ? 1.0 : 0.5;
          f += share * (kMinvFlops * (a <= b ? mb : ma) + kDot6Flops * ma * mb);
        }
      }
      f += 2 * ma;
    }
    f += sc.factor_flops;
  }
  // accelerations_thread: Q - Phi_q^T lambda, M^-1, the quaternion rate.
  for (int k = 0; k < N; ++k) f += kDot6Flops * body_rows[static_cast<std::size_t>(k)] + kMinvFlops + kQuatRateFlops;
  return f;
}

/// Elements (of T) one evaluation's phases read and write (cost_model.hpp); `ints`
/// accumulates the 4-byte words.
double evaluation_elements(const Model& model, const SchurCost& sc, double& ints) {
  const double N = model.n_bodies(), m = model.n_rows, u = model.n_inputs;
  const double cols = 6.0 * model.element_sides();  // Phi_q entries per row (12; 24 with mimic rows)
  double e = 13 * N + (cols + 2) * m;  // joint_rows
  e += 13 * N + u + 6 * N;         // body_forces
  e += 10 * N + 6 * N + 13 * N;    // accelerations without the constraint terms
  if (m > 0) {
    e += cols * m + 6 * N + m + sc.V_C + m;  // schur
    e += 2 * sc.V_L;                       // factorisation
    e += 2 * sc.V_L + 2 * m;               // solve
    e += cols * m + m;                       // accelerations: Phi_q^T lambda
    ints += 2;                             // info written by the factorisation, read by accelerations
  }
  return e;
}

}  // namespace

StepCost modelled_step_cost(const Model& model, const std::string& backend, const std::string& precision,
                            const std::string& schur) {
  if (precision != "fp64" && precision != "fp32")
    throw std::invalid_argument("modelled_step_cost: unknown precision '" + precision + "' (fp64 or fp32)");
  if (backend != "cuda" && backend != "cuda-fused" && backend != "cpu" && backend != "cpu-simd")
    throw std::invalid_argument("modelled_step_cost: unknown backend '" + backend +
                                "' (cuda, cuda-fused, cpu or cpu-simd)");
  // The block-sparse (fused) figures: cuda-fused, cpu-simd, and cpu with the sparse Schur
  // factorisation (the one dynamics/data.cpp picks for "auto" at the model's row count).
  const bool sparse = backend == "cuda-fused" || backend == "cpu-simd" ||
                      (backend == "cpu" && uses_sparse_schur(model, parse_schur_factorization(schur)));
  const double E = precision == "fp64" ? 8 : 4;
  const double N = model.n_bodies(), m = model.n_rows;
  const double ny = 13 * N;
  const SchurCost sc = schur_cost(model, sparse);
  StepCost c;
  c.flops = 4 * evaluation_flops(model, sc) + m + 3 * kRk4StageFlops * ny + kRk4FinalFlops * ny + kNormaliseFlops * N;
  double ints = 2;                       // commit: fail read and cleared
  double elements = 0;
  for (int s = 0; s < 4; ++s) elements += evaluation_elements(model, sc, ints);
  elements += m + 1;                     // violation
  elements += 3 * 3 * ny + 6 * ny;       // three stage updates, the final combination
  elements += 2 * ny + 1;                // commit: candidate in, Y out, violation
  c.bytes = E * elements + 4 * ints + 1;  // + the status byte
  return c;
}

}  // namespace simphant::bench
