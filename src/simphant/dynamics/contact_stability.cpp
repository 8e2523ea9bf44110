#include "simphant/dynamics/contact_stability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

#include "simphant/contact/contact_wrench.hpp"
#include "simphant/formulas/state.hpp"

namespace simphant {

namespace {

bool is_contact(const ForceElement& f) { return f.type == ForceType::Contact; }

/// Largest eigenvalue of a body's J_B^-1 [1/(kg m^2)].
double largest_inverse_inertia(const Body& b) {
  Eigen::Matrix3d Ji;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) Ji(r, c) = b.inertia_inv_B.m[r][c];
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(Ji, Eigen::EigenvaluesOnly).eigenvalues()[2];
}

/// Lever [m] of a contact point on shape s about its body's centre of mass: along the
/// normal of a sphere (through its centre) or anywhere on the shape.
double lever(const Shape<double>& s, bool normal) {
  const double origin = norm(s.pos_B);
  if (s.kind == ShapeKind::Plane || (normal && s.kind == ShapeKind::Sphere)) return origin;
  return origin + bounding_radius(s);
}

/// Upper bound of a free body's point inverse mass with lever L [1/kg]; 0 for the ground.
double point_inverse_mass(const Model& model, int body, double L) {
  if (body < 0) return 0;
  const Body& b = model.bodies[static_cast<std::size_t>(body)];
  return 1.0 / b.mass + L * L * largest_inverse_inertia(b);
}

/// Largest eigenvalue of a symmetric positive semi-definite 3 x 3 form, clamped at 0 (a
/// body held by its joints along every direction rounds to about -1e-17).
double largest_eigenvalue(const Eigen::Matrix3d& S) {
  return std::max(0.0, Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(0.5 * (S + S.transpose()),
                                                                     Eigen::EigenvaluesOnly)
                           .eigenvalues()[2]);
}

/// The bodies that joints, drivers and mimic rows connect: per body its group's id and
/// the groups' masses [kg], the weight that can rest on one contact of that body.
struct Groups {
  std::vector<int> id;
  std::vector<double> mass;  ///< by group id
};

Groups connected_groups(const Model& model) {
  const int N = model.n_bodies();
  Groups out;
  out.id.resize(static_cast<std::size_t>(N));
  for (int k = 0; k < N; ++k) out.id[static_cast<std::size_t>(k)] = k;
  const auto find = [&out](int k) {
    while (out.id[static_cast<std::size_t>(k)] != k) k = out.id[static_cast<std::size_t>(k)];
    return k;
  };
  for (int a = 0; a < model.n_constraints(); ++a) {
    const ConstraintElement c = model.constraint(a);
    if (c.body_i >= 0 && c.body_j >= 0) out.id[static_cast<std::size_t>(find(c.body_i))] = find(c.body_j);
  }
  for (int k = 0; k < N; ++k) out.id[static_cast<std::size_t>(k)] = find(k);
  out.mass.assign(static_cast<std::size_t>(N), 0.0);
  for (int k = 0; k < N; ++k)
    out.mass[static_cast<std::size_t>(out.id[static_cast<std::size_t>(k)])] += model.bodies[static_cast<std::size_t>(k)].mass;
  return out;
}

/// The inverse masses of one side of a pair: w_n, w_t [1/kg] at its contact point and w_r
/// [1/(kg m^2)] of its rotation. A body in a constraint uses its constrained mobility P
/// (body_mobilities): the point form at the shape origin c, w(c) = lambda_max(J(c) P
/// J(c)^T) with J(c) = [I, -A [c]x] (velocity of the point from (v, omega_B)), and for a
/// point d farther, within the bounding radius rho, sqrt(w) <= sqrt(w(c)) + rho
/// sqrt(lambda_max(P_omega omega)) (the triangle inequality in P's metric).
struct SideMass {
  double n = 0, t = 0, r = 0;
  bool constrained = false;
};

SideMass side_mass(const Model& model, int body, const Shape<double>& shape, const double* Y,
                   const std::vector<Eigen::Matrix<double, 6, 6>>* mobility, const std::vector<char>& constrained) {
  SideMass m;
  if (body < 0) return m;
  const Body& b = model.bodies[static_cast<std::size_t>(body)];
  if (mobility == nullptr || !constrained[static_cast<std::size_t>(body)]) {
    m.n = point_inverse_mass(model, body, lever(shape, true));
    m.t = point_inverse_mass(model, body, lever(shape, false));
    m.r = largest_inverse_inertia(b);
    return m;
  }
  m.constrained = true;
  const Eigen::Matrix<double, 6, 6>& P = (*mobility)[static_cast<std::size_t>(body)];
  const Mat3d A = rotation(normalized(state_p(Y, body)));
  const Vec3d& c = shape.pos_B;
  Eigen::Matrix3d Ae, cx;
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) Ae(r, q) = A.m[r][q];
  cx << 0, -c.z, c.y, c.z, 0, -c.x, -c.y, c.x, 0;  // [c]x
  // The point's velocity from (v, omega_B): v + A (omega_B x c) = v - A [c]x omega_B.
  Eigen::Matrix<double, 3, 6> J;
  J.leftCols<3>().setIdentity();
  J.rightCols<3>() = -Ae * cx;
  const double w_c = largest_eigenvalue(J * P * J.transpose());
  m.r = largest_eigenvalue(P.bottomRightCorner<3, 3>());
  const double rho = shape.kind == ShapeKind::Plane ? 0.0 : bounding_radius(shape);
  const double far = std::sqrt(w_c) + rho * std::sqrt(m.r);
  m.t = far * far;
  m.n = shape.kind == ShapeKind::Sphere || shape.kind == ShapeKind::Plane ? w_c : m.t;
  return m;
}

/// Two sides' inverse masses: their sum for independent bodies; where a constraint can
/// couple them, (sqrt(w_i) + sqrt(w_j))^2 bounds the relative motion's form.
double combine(double wi, double wj, bool coupled) {
  return coupled ? (std::sqrt(wi) + std::sqrt(wj)) * (std::sqrt(wi) + std::sqrt(wj)) : wi + wj;
}

/// Per body, the radius [m] about its centre of mass of a sphere holding all its shapes
/// (-1: a body without shapes).
std::vector<double> shape_radii(const Model& model) {
  std::vector<double> rho(static_cast<std::size_t>(model.n_bodies()), -1.0);
  const auto add = [&](int body, const Shape<double>& s) {
    if (body >= 0 && s.kind != ShapeKind::Plane)
      rho[static_cast<std::size_t>(body)] = std::max(rho[static_cast<std::size_t>(body)], lever(s, false));
  };
  for (const ForceElement& f : model.forces)
    if (is_contact(f)) {
      add(f.body_i, f.shape_i);
      add(f.body_j, f.shape_j);
    }
  return rho;
}

}  // namespace

double contact_reference_speed(const Model& model, const double* Y) {
  if (std::none_of(model.forces.begin(), model.forces.end(), is_contact)) return 0;
  if (model.contact_impact_speed > 0) return model.contact_impact_speed;
  const std::vector<double> rho = shape_radii(model);
  const int N = model.n_bodies();
  const double g = norm(model.gravity);
  const Vec3d up = g > 0 ? (-1.0 / g) * model.gravity : zero3<double>();
  double v0 = 0;
  for (int k = 0; k < N; ++k)
    if (rho[static_cast<std::size_t>(k)] >= 0)
      v0 = std::max(v0, norm(state_v(Y, N, k)) + norm(state_omega(Y, N, k)) * rho[static_cast<std::size_t>(k)]);
  // The drop: from the highest lowest point of a shape to the lowest point of any shape or
  // of the ground below a shape.
  double top = -std::numeric_limits<double>::infinity(), bottom = -top;
  const auto shape = [&](int body, const Shape<double>& s) {
    // A clearance joint's bore and journal do not fall onto anything: their impacts come
    // from the mechanism's motion (v0 above, or contact.impact_speed).
    if (body < 0 || s.kind == ShapeKind::Plane || s.kind == ShapeKind::Bearing || s.kind == ShapeKind::Journal) return;
    const double low = dot(up, shape_pose_W(s, state_r(Y, body), state_p(Y, body)).pos_W) - bounding_radius(s);
    top = std::max(top, low);
    bottom = std::min(bottom, low);
  };
  for (const ForceElement& f : model.forces) {
    if (!is_contact(f)) continue;
    shape(f.body_i, f.shape_i);
    shape(f.body_j, f.shape_j);
    if (f.body_i >= 0 || f.body_j < 0 || f.shape_i.kind != ShapeKind::Plane) continue;
    // The ground below shape j, along -up, where the ground plane faces up.
    const Vec3d n = rot_axis(rotation(f.shape_i.quat_B), 2);
    const double facing = dot(n, up);
    if (!(facing > 0)) continue;
    const Vec3d c = shape_pose_W(f.shape_j, state_r(Y, f.body_j), state_p(Y, f.body_j)).pos_W;
    bottom = std::min(bottom, dot(up, c) - dot(n, c - f.shape_i.pos_B) / facing);
  }
  const double H = top > bottom ? top - bottom : 0.0;
  return std::sqrt(v0 * v0 + 2.0 * g * H);
}

std::vector<StabilityMode> contact_modes(const Model& model, const double* Y,
                                        const std::vector<Eigen::Matrix<double, 6, 6>>* mobility) {
  std::vector<StabilityMode> modes;
  const double v = contact_reference_speed(model, Y);
  const Groups groups = connected_groups(model);
  const double g = norm(model.gravity);
  std::vector<char> constrained(static_cast<std::size_t>(model.n_bodies()), 0);
  for (int a = 0; a < model.n_constraints(); ++a)
    for (const int b : {model.constraint(a).body_i, model.constraint(a).body_j})
      if (b >= 0) constrained[static_cast<std::size_t>(b)] = 1;
  for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
    const ForceElement& fe = model.forces[static_cast<std::size_t>(f)];
    if (!is_contact(fe)) continue;
    const NormalLawParams<double>& law = fe.contact.normal;
    const FrictionParams<double>& fr = fe.contact.friction;
    const double K = law.stiffness, n = law.exponent;
    const SideMass si = side_mass(model, fe.body_i, fe.shape_i, Y, mobility, constrained);
    const SideMass sj = side_mass(model, fe.body_j, fe.shape_j, Y, mobility, constrained);
    const bool coupled = si.constrained || sj.constrained;
    const double w_n = combine(si.n, sj.n, coupled), w_t = combine(si.t, sj.t, coupled);
    const double w_r = combine(si.r, sj.r, coupled);
    // Penetration of an undamped impact at v (energy v^2 / (2 w_n) into K delta^(n+1) / (n + 1))
    // and under the static load: the weight of what the two sides' joints connect.
    const int gi = fe.body_i >= 0 ? groups.id[static_cast<std::size_t>(fe.body_i)] : -1;
    const int gj = fe.body_j >= 0 ? groups.id[static_cast<std::size_t>(fe.body_j)] : -1;
    double resting = gi >= 0 ? groups.mass[static_cast<std::size_t>(gi)] : 0.0;
    if (gj >= 0 && gj != gi) resting += groups.mass[static_cast<std::size_t>(gj)];
    const double F_rest = g * resting;
    const double d_impact = v > 0 ? std::pow((n + 1.0) * v * v / (2.0 * w_n * K), 1.0 / (n + 1.0)) : 0.0;
    const double d_rest = F_rest > 0 ? std::pow(F_rest / K, 1.0 / n) : 0.0;
    const double delta = std::max(d_impact, d_rest);
    const double F = K * std::pow(delta, n);
    const double k_tangent = n == 1.0 ? K : n * K * std::pow(delta, n - 1.0);
    double c = 0;
    switch (static_cast<NormalLaw>(law.law)) {
      case NormalLaw::Tsuji: c = law.damping * std::pow(delta, 0.5 * (n - 1.0)); break;
      case NormalLaw::HuntCrossley: c = law.damping * F; break;
      default: c = law.damping / std::max(v, law.v_floor) * F; break;
    }
    StabilityMode normal = spring_mode(f, k_tangent, c, w_n);
    StabilityMode slip = spring_mode(f, 0.0, fr.mu * F / fr.v_eps, w_t);
    slip.field = StabilityField::SlipSpeed;
    StabilityMode roll = spring_mode(f, 0.0, w_r > 0 ? fr.mu_roll * F / fr.w_eps : 0.0, w_r);
    roll.field = StabilityField::RollingSpeed;
    for (StabilityMode* m : {&normal, &slip, &roll}) {
      m->contact_speed = v;
      m->contact_force = F;
      modes.push_back(*m);
    }
  }
  return modes;
}

std::vector<ContactOverlap> contact_overlaps(const Model& model, const double* Y) {
  std::vector<ContactOverlap> out;
  const int N = model.n_bodies();
  const auto kin = [&](int k) { return state_body_kin(Y, N, k); };
  for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
    const ForceElement& fe = model.forces[static_cast<std::size_t>(f)];
    if (!is_contact(fe)) continue;
    const ContactPairWrench<double> w =
        contact_pair_wrench(fe.shape_i, kin(fe.body_i), fe.shape_j, kin(fe.body_j), fe.contact, nullptr, true);
    if (w.contacts.count == 0) continue;
    ContactOverlap o;
    o.force = f;
    for (int c = 0; c < w.contacts.count; ++c) {
      o.depth = std::max(o.depth, w.contacts.contact[c].depth);
      o.normal_force += w.normal_force[c];
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace simphant
