#include "simphant/dynamics/contact_stability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Eigenvalues>

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
  double v0 = 0, top = -std::numeric_limits<double>::infinity(), bottom = -top;
  for (int k = 0; k < N; ++k) {
    const double r = rho[static_cast<std::size_t>(k)];
    if (r < 0) continue;
    v0 = std::max(v0, norm(state_v(Y, N, k)) + norm(state_omega(Y, N, k)) * r);
    const double h = dot(up, state_r(Y, k));
    top = std::max(top, h + r);
    bottom = std::min(bottom, h - r);
  }
  // The ground below each shape-bearing body, along -up, for every ground plane that faces up.
  for (const ForceElement& f : model.forces) {
    if (!is_contact(f) || f.body_i >= 0 || f.body_j < 0) continue;
    const Vec3d n = rot_axis(rotation(f.shape_i.quat_B), 2);
    const double facing = dot(n, up);
    if (!(facing > 0)) continue;
    const Vec3d r = state_r(Y, f.body_j);
    bottom = std::min(bottom, dot(up, r) - dot(n, r - f.shape_i.pos_B) / facing);
  }
  const double H = top > bottom ? top - bottom : 0.0;
  return std::sqrt(v0 * v0 + 2.0 * g * H);
}

std::vector<StabilityMode> contact_modes(const Model& model, const double* Y) {
  std::vector<StabilityMode> modes;
  const double v = contact_reference_speed(model, Y);
  double shape_mass = 0;  // all shape-bearing bodies: the heaviest static load of a contact
  const std::vector<double> rho = shape_radii(model);
  for (int k = 0; k < model.n_bodies(); ++k)
    if (rho[static_cast<std::size_t>(k)] >= 0) shape_mass += model.bodies[static_cast<std::size_t>(k)].mass;
  const double F_rest = norm(model.gravity) * shape_mass;
  for (int f = 0; f < static_cast<int>(model.forces.size()); ++f) {
    const ForceElement& fe = model.forces[static_cast<std::size_t>(f)];
    if (!is_contact(fe)) continue;
    const NormalLawParams<double>& law = fe.contact.normal;
    const FrictionParams<double>& fr = fe.contact.friction;
    const double K = law.stiffness, n = law.exponent;
    const double w_n = point_inverse_mass(model, fe.body_i, lever(fe.shape_i, true)) +
                       point_inverse_mass(model, fe.body_j, lever(fe.shape_j, true));
    const double w_t = point_inverse_mass(model, fe.body_i, lever(fe.shape_i, false)) +
                       point_inverse_mass(model, fe.body_j, lever(fe.shape_j, false));
    double w_r = 0;
    for (const int b : {fe.body_i, fe.body_j})
      if (b >= 0) w_r += largest_inverse_inertia(model.bodies[static_cast<std::size_t>(b)]);
    // Penetration of an undamped impact at v (energy v^2 / (2 w_n) into K delta^(n+1) / (n + 1))
    // and under the static load.
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

}  // namespace simphant
