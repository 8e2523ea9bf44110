#include "simphant/dynamics/stability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>
#include <Eigen/QR>

#include "simphant/dynamics/evaluate.hpp"
#include "simphant/formulas/force_math.hpp"

namespace simphant {

namespace {

double rk4_gain(std::complex<double> z) {
  const std::complex<double> R = 1.0 + z * (1.0 + z * (0.5 + z * (1.0 / 6.0 + z / 24.0)));
  return std::abs(R);
}

/// Adds j^T M^-1 (6N) for body k's part: x (6) = [linear (3, W), angular (3, B)].
void add_row(Eigen::VectorXd& j, int k, const Vec3d& lin, const Vec3d& ang) {
  if (k < 0) return;
  for (int c = 0; c < 3; ++c) {
    j[6 * k + c] += lin[c];
    j[6 * k + 3 + c] += ang[c];
  }
}

/// Block-diagonal M^-1 applied to x (6N).
Eigen::VectorXd apply_Minv(const Model& model, const Eigen::VectorXd& x) {
  Eigen::VectorXd y(x.size());
  for (int k = 0; k < model.n_bodies(); ++k)
    apply_body_Minv(model.bodies[k].mass, model.bodies[k].inertia_inv_B, x.data() + 6 * k, y.data() + 6 * k);
  return y;
}

/// The constrained inverse-mass form w(j) = j^T (M^-1 - M^-1 Phi_q^T C^+ Phi_q M^-1) j.
struct InverseMass {
  const Model& model;
  const Eigen::MatrixXd& Phi_q;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> C;
  InverseMass(const Model& m, const Eigen::MatrixXd& J) : model(m), Phi_q(J) {
    if (J.rows() == 0) return;
    Eigen::MatrixXd MinvJt(J.cols(), J.rows());
    for (int r = 0; r < J.rows(); ++r) MinvJt.col(r) = apply_Minv(m, J.row(r).transpose());
    C.setThreshold(1e-12);
    C.compute(J * MinvJt);
  }
  /// Returns w and the unconstrained j^T M^-1 j in `free`.
  double operator()(const Eigen::VectorXd& j, double& free) const {
    const Eigen::VectorXd Mj = apply_Minv(model, j);
    free = j.dot(Mj);
    if (Phi_q.rows() == 0) return free;
    const Eigen::VectorXd g = Phi_q * Mj;
    return free - g.dot(C.solve(g));
  }
};

/// Largest root modulus of s^2 + p s + q (p, q >= 0) and whether the p term dominates.
std::complex<double> fastest_root(double p, double q, bool& damping_dominates) {
  const double disc = p * p - 4.0 * q;
  damping_dominates = disc >= 0 && p > 0;
  if (disc >= 0) return {-0.5 * (p + std::sqrt(disc)), 0.0};
  return {-0.5 * p, 0.5 * std::sqrt(-disc)};
}

StabilityMode finish(StabilityMode m) {
  const double mag = std::abs(m.lambda);
  const double radius = rk4_stability_radius(m.lambda);
  m.dt_max = mag > 0 ? radius / mag : std::numeric_limits<double>::infinity();
  return m;
}

}  // namespace

double largest_slope(const CharacteristicTable& t) {
  const int n = t.n();
  const PointerParams<double> tab{t.p.data()};
  double largest = 0, slope = 0;
  auto at = [&](double q) {
    characteristic_force(tab, n, 0.0, q, &slope);
    largest = std::max(largest, std::abs(slope));
  };
  for (int k = 0; k + 1 < n; ++k) {
    const double x0 = t.p[k], x1 = t.p[k + 1], M0 = t.p[2 * n + k], M1 = t.p[2 * n + k + 1];
    at(x0);
    at(x1);
    // s' is quadratic on the interval; its extremum is where s'' = A M0 + B M1 = 0.
    if ((M0 < 0 && M1 > 0) || (M0 > 0 && M1 < 0)) at(x0 + (x1 - x0) * M0 / (M0 - M1));
  }
  return largest;
}

// An end stop (linear: n = 1) is a spring-damper of its K and damping while it is entered.
double mode_stiffness(const ForceElement& f) {
  if (f.type == ForceType::JointStop) return f.contact.normal.stiffness;
  return f.stiffness_table.empty() ? f.stiffness : largest_slope(f.stiffness_table);
}

double mode_damping(const ForceElement& f) {
  if (f.type == ForceType::JointStop) return f.contact.normal.damping;
  return f.damping_table.empty() ? f.damping : largest_slope(f.damping_table);
}

bool is_spring_like(const ForceElement& f) {
  return f.type == ForceType::SpringDamper || f.type == ForceType::RotationalSpringDamper ||
         f.type == ForceType::JointStop;
}

bool has_spring_dampers(const Model& model) {
  for (const ForceElement& f : model.forces)
    if (is_spring_like(f) && (mode_stiffness(f) > 0 || mode_damping(f) > 0)) return true;
  return false;
}

double rk4_stability_radius(std::complex<double> lambda) {
  const double mag = std::abs(lambda);
  if (!(mag > 0) || lambda.real() > 0) return std::numeric_limits<double>::infinity();
  const std::complex<double> u = lambda / mag;
  // |R| <= 1 on an interval (0, x*] of the ray (RK4's region is star-shaped from 0 along
  // every ray into the closed left half plane); scan, then bisect the first crossing.
  const double step = 1e-3;
  double lo = 0, hi = 0;
  for (double x = step; x <= 4.0; x += step) {
    if (rk4_gain(x * u) > 1.0 + 1e-12) {
      hi = x;
      break;
    }
    lo = x;
  }
  if (hi == 0) return std::numeric_limits<double>::infinity();
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (rk4_gain(mid * u) > 1.0 + 1e-12 ? hi : lo) = mid;
  }
  return lo;
}

double integrator_stable_step(Integrator integrator, const StabilityMode& m) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (integrator) {
    case Integrator::Rk4: return m.dt_max;
    case Integrator::SymplecticEuler: {
      if (m.q > 0) return (std::sqrt(m.p * m.p + 4.0 * m.q) - m.p) / m.q;
      return m.p > 0 ? 2.0 / m.p : inf;
    }
    case Integrator::Euler: {
      const double mag = std::abs(m.lambda);
      if (!(mag > 0)) return inf;
      // Complex pair: |1 + h lambda|^2 = 1 + 2 h Re(lambda) + h^2 |lambda|^2 <= 1.
      if (m.lambda.imag() != 0.0) return 2.0 * std::abs(m.lambda.real()) / (mag * mag);
      return 2.0 / mag;  // real roots: the fastest one binds
    }
    case Integrator::Dopri5:
    case Integrator::Bdf: return inf;
  }
  return m.dt_max;
}

double euler_blowup_step(const StabilityMode& m) {
  const double mag = std::abs(m.lambda);
  return mag > 0 ? 2.0 / mag : std::numeric_limits<double>::infinity();
}

double euler_gain(const StabilityMode& m, double h) { return std::abs(1.0 + h * m.lambda); }

StabilityMode baumgarte_mode(double alpha, double beta) {
  StabilityMode m;
  bool damping = false;
  m.p = 2.0 * alpha;
  m.q = beta * beta;
  m.lambda = fastest_root(m.p, m.q, damping);
  m.field = damping ? StabilityField::BaumgarteAlpha : StabilityField::BaumgarteBeta;
  return finish(m);
}

StabilityMode spring_mode(int force, double stiffness, double damping, double w) {
  StabilityMode m;
  m.force = force;
  m.inverse_mass = w;
  bool dominated = false;
  m.p = damping * w;
  m.q = stiffness * w;
  m.lambda = fastest_root(m.p, m.q, dominated);
  m.field = dominated ? StabilityField::Damping : StabilityField::Stiffness;
  return finish(m);
}

std::vector<StabilityMode> stability_modes(const Model& model, Data& d, const double* Y) {
  std::vector<StabilityMode> modes;
  const SolverSettings& s = model.solver;
  set_kinematics(model, d, Y);
  Eigen::MatrixXd none(0, model.nv());
  if (model.n_rows > 0 && (s.baumgarte_alpha > 0 || s.baumgarte_beta > 0))
    modes.push_back(baumgarte_mode(s.baumgarte_alpha, s.baumgarte_beta));
  if (!has_spring_dampers(model)) return modes;
  // Above kMaxProjectedRows the unconstrained j M^-1 j^T (an upper bound) stands in.
  const bool project = model.n_rows > 0 && model.n_rows <= kMaxProjectedRows;
  if (project) {
    evaluate_constraints(model, d, 0.0);
    assemble_jacobian(model, d);
  }
  const InverseMass W(model, project ? d.Phi_q : none);
  const int nv = model.nv();
  for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
    const ForceElement& fe = model.forces[f];
    if (!(mode_stiffness(fe) > 0 || mode_damping(fe) > 0)) continue;
    double w = 0, free = 0;
    if (fe.type == ForceType::SpringDamper) {
      const BodyKin<double> Bi = fe.body_i >= 0 ? d.kin[fe.body_i] : ground_kin<double>();
      const BodyKin<double> Bj = fe.body_j >= 0 ? d.kin[fe.body_j] : ground_kin<double>();
      Vec3d Pi, Vi, Pj, Vj;
      body_point_state(Bi, fe.point_i, Pi, Vi);
      body_point_state(Bj, fe.point_j, Pj, Vj);
      // Velocity of a body point P: v + A (omega_B x s_B) -> n . that = n . v + (s_B x A^T n) . omega_B.
      auto row = [&](const Vec3d& n) {
        Eigen::VectorXd j = Eigen::VectorXd::Zero(nv);
        add_row(j, fe.body_j, n, cross(fe.point_j, mul_t(Bj.A, n)));
        add_row(j, fe.body_i, -n, -1.0 * cross(fe.point_i, mul_t(Bi.A, n)));
        return j;
      };
      const Vec3d dP = Pj - Pi;
      const double L = norm(dP);
      if (L > 1e-9) {
        w = W(row((1.0 / L) * dP), free);
      } else {  // zero length: the largest eigenvalue of the 3x3 point inverse mass
        Eigen::Matrix3d P3;
        for (int a = 0; a < 3; ++a) {
          Vec3d ea = zero3<double>();
          ea[a] = 1;
          for (int b = 0; b < 3; ++b) {
            Vec3d eb = zero3<double>();
            eb[b] = 1;
            const Eigen::VectorXd ja = row(ea), jb = row(eb);
            double fa = 0, fb = 0, fab = 0;
            const double wa = W(ja, fa), wb = W(jb, fb), wab = W(ja + jb, fab);
            P3(a, b) = 0.5 * (wab - wa - wb);  // polarisation of the quadratic form
            free = std::max(free, fa);
          }
        }
        w = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(P3, Eigen::EigenvaluesOnly).eigenvalues()[2];
      }
    } else if (fe.type == ForceType::RotationalSpringDamper ||
               (fe.type == ForceType::JointStop && fe.kind == ActuatorKind::Torque)) {
      const Joint& jt = model.joints[fe.joint];
      const Mat3d Ai = jt.body_i >= 0 ? d.kin[jt.body_i].A : ground_kin<double>().A;
      const Mat3d Aj = jt.body_j >= 0 ? d.kin[jt.body_j].A : ground_kin<double>().A;
      const Vec3d axis = mul(Ai, jt.frame.v_i);  // W; the angle's rate is axis . (omega_j - omega_i)
      Eigen::VectorXd j = Eigen::VectorXd::Zero(nv);
      add_row(j, jt.body_j, zero3<double>(), mul_t(Aj, axis));
      add_row(j, jt.body_i, zero3<double>(), -1.0 * mul_t(Ai, axis));
      w = W(j, free);
    } else if (fe.type == ForceType::JointStop) {  // on the slide: along the axis at the anchors
      const Joint& jt = model.joints[fe.joint];
      const Mat3d Ai = jt.body_i >= 0 ? d.kin[jt.body_i].A : ground_kin<double>().A;
      const Mat3d Aj = jt.body_j >= 0 ? d.kin[jt.body_j].A : ground_kin<double>().A;
      const Vec3d axis = mul(Ai, jt.frame.v_i);
      Eigen::VectorXd j = Eigen::VectorXd::Zero(nv);
      add_row(j, jt.body_j, axis, cross(jt.frame.u_j, mul_t(Aj, axis)));
      add_row(j, jt.body_i, -1.0 * axis, -1.0 * cross(jt.frame.u_i, mul_t(Ai, axis)));
      w = W(j, free);
    } else {
      continue;
    }
    if (!(w > 1e-12 * free)) continue;  // the constraints hold this line fixed
    modes.push_back(spring_mode(f, mode_stiffness(fe), mode_damping(fe), w));
  }
  std::sort(modes.begin(), modes.end(),
            [](const StabilityMode& a, const StabilityMode& b) { return a.dt_max < b.dt_max; });
  return modes;
}

std::vector<Eigen::Matrix<double, 6, 6>> body_mobilities(const Model& model, Data& d, const double* Y) {
  const int N = model.n_bodies(), nv = model.nv();
  std::vector<Eigen::Matrix<double, 6, 6>> out(static_cast<std::size_t>(N), Eigen::Matrix<double, 6, 6>::Zero());
  for (int k = 0; k < N; ++k) {
    const Body& b = model.bodies[static_cast<std::size_t>(k)];
    out[static_cast<std::size_t>(k)].topLeftCorner<3, 3>().diagonal().setConstant(1.0 / b.mass);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) out[static_cast<std::size_t>(k)](3 + r, 3 + c) = b.inertia_inv_B.m[r][c];
  }
  if (model.n_rows == 0 || model.n_rows > kMaxProjectedRows) return out;
  set_kinematics(model, d, Y);
  evaluate_constraints(model, d, 0.0);
  assemble_jacobian(model, d);
  const InverseMass W(model, d.Phi_q);
  // G = Phi_q M^-1 (m x 6N): row r is M^-1 applied to Phi_q's row r (M^-1 is symmetric).
  Eigen::MatrixXd G(model.n_rows, nv);
  for (int r = 0; r < model.n_rows; ++r) G.row(r) = apply_Minv(model, d.Phi_q.row(r).transpose()).transpose();
  for (int k = 0; k < N; ++k) {
    const Eigen::MatrixXd Gk = G.middleCols(6 * k, 6);
    out[static_cast<std::size_t>(k)] -= Gk.transpose() * W.C.solve(Gk);
  }
  return out;
}

std::vector<StabilityMode> rescale_modes(const std::vector<StabilityMode>& modes, const Model& other) {
  std::vector<StabilityMode> out;
  out.reserve(modes.size());
  for (const StabilityMode& m : modes) {
    if (m.force < 0) {
      out.push_back(baumgarte_mode(other.solver.baumgarte_alpha, other.solver.baumgarte_beta));
    } else {
      const ForceElement& f = other.forces[static_cast<std::size_t>(m.force)];
      out.push_back(spring_mode(m.force, mode_stiffness(f), mode_damping(f), m.inverse_mass));
    }
  }
  return out;
}

}  // namespace simphant
