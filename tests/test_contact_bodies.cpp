// Contact between bodies (contact/contact_wrench.hpp; docs/contact.md, "Contact between
// bodies" and "Validation"): the pair wrench by hand and on seeded random pairs, then the
// contact model at the body level with free rigid bodies (r, p, v, omega_B; Euler's
// equations) integrated by the test's own RK4, gravity along -z, the ground a half-space:
//  (a) a steel ball dropped on the ground: rebound / impact speed against e (Tsuji with
//      the ball's mass as m*; ExactImpact through the pair's impact-speed slots);
//  (b) two equal steel spheres head-on: Hertz contact duration and peak force;
//  (c) a box on a slope: creep below tan(theta) = mu, the Coulomb rate above;
//  (d) a sphere rolling down a slope: a = (5/7) g sin(theta), with rolling resistance;
//  (e) elastic bounces of a spinning ball without friction: energy within the step bound;
//  (f) Newton's cradle of 3 and 5 balls, touching and with gaps;
//  (g) (A, B) against (B, A), Newton's third law, momentum of a two-body collision;
//  (h) float against double.
// Every tolerance comes from the step, the law's documented accuracy or the precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <random>
#include <vector>

#include "simphant/contact/contact_wrench.hpp"

namespace simphant {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kG = 9.81;
constexpr double kSteelE = 200e9, kSteelNu = 0.3, kSteelRho = 7850;

double sphere_mass(double rho, double R) { return rho * 4.0 / 3.0 * kPi * R * R * R; }

/// Elastic Hertz impact at approach speed v (docs/contact.md, "Choosing K"): maximum
/// penetration, the exact duration (4/5) B(2/5, 1/2) delta_max / v and the time scale
/// t* = (m v^2 / K)^(2/5) / v; RK4's error over one contact is (dt / t*)^(5/2) relative.
double hertz_delta_max(double m, double K, double v) { return std::pow(5 * m * v * v / (4 * K), 0.4); }
double hertz_duration(double m, double K, double v) {
  const double beta = std::tgamma(0.4) * std::tgamma(0.5) / std::tgamma(0.9);
  return 0.8 * beta * hertz_delta_max(m, K, v) / v;
}
double impact_time_scale(double m, double K, double v) { return std::pow(m * v * v / K, 0.4) / v; }

// ---- A free-body world and its RK4 ------------------------------------------------------

template <class T>
struct BodyState {
  Vec3<T> r;  ///< CoM, W
  Quat<T> p;  ///< B -> W
  Vec3<T> v;  ///< CoM velocity, W
  Vec3<T> w;  ///< angular velocity, B
};

template <class T>
struct Pair {
  int a, b;  ///< body indices, -1 the ground
  ContactPairParams<T> params;
  bool slots_on;
  T slot[kMaxContacts];
};

constexpr int kCap = 6;

/// Free rigid bodies (principal axes = body axes) with shapes, the ground's shape and the
/// contact pairs.
template <class T>
struct World {
  int n = 0;
  T mass[kCap];
  Vec3<T> J[kCap];  ///< principal moments [kg m^2]
  Shape<T> shape[kCap];
  BodyState<T> s[kCap];
  Shape<T> ground;
  Vec3<T> g{T(0), T(0), T(-kG)};
  std::vector<Pair<T>> pairs;

  int add(T m, const Vec3<T>& J_B, const Shape<T>& sh, const BodyState<T>& st) {
    mass[n] = m;
    J[n] = J_B;
    shape[n] = sh;
    s[n] = st;
    return n++;
  }
  void connect(int a, int b, const ContactPairParams<T>& p, bool slots_on = false) {
    Pair<T> pr{a, b, p, slots_on, {T(0), T(0), T(0), T(0)}};
    pairs.push_back(pr);
  }
};

template <class T>
Shape<T> make_shape(ShapeKind kind, T s0, T s1 = T(0), T s2 = T(0), Quat<T> q = {T(1), T(0), T(0), T(0)}) {
  return {kind, {s0, s1, s2}, zero3<T>(), q};
}

template <class T>
BodyKin<T> kin_of(const BodyState<T>* s, int k) {
  if (k < 0) return ground_kin<T>();
  return make_body_kin(s[k].r, normalized(s[k].p), s[k].v, s[k].w);
}

template <class T>
ContactPairWrench<T> pair_wrench(const World<T>& w, const BodyState<T>* s, const Pair<T>& pr) {
  const Shape<T>& sa = pr.a < 0 ? w.ground : w.shape[pr.a];
  const Shape<T>& sb = pr.b < 0 ? w.ground : w.shape[pr.b];
  return contact_pair_wrench(sa, kin_of(s, pr.a), sb, kin_of(s, pr.b), pr.params, pr.slots_on ? pr.slot : nullptr);
}

/// Time derivative of every body's state: r' = v, p' = 1/2 p (0, w), m v' = F_W,
/// J w' = T_B - w x J w; F_W = m g + contact forces, T_B the contact torques in B.
template <class T>
void rates(const World<T>& w, const BodyState<T>* s, BodyState<T>* d) {
  Vec3<T> F[kCap], M[kCap];
  for (int k = 0; k < w.n; ++k) {
    F[k] = w.mass[k] * w.g;
    M[k] = zero3<T>();
  }
  for (const Pair<T>& pr : w.pairs) {
    const ContactPairWrench<T> c = pair_wrench(w, s, pr);
    if (pr.a >= 0) {
      F[pr.a] += c.a.force_W;
      M[pr.a] += c.a.torque_B;
    }
    if (pr.b >= 0) {
      F[pr.b] += c.b.force_W;
      M[pr.b] += c.b.torque_B;
    }
  }
  for (int k = 0; k < w.n; ++k) {
    const Vec3<T>& om = s[k].w;
    const Vec3<T> Jw{w.J[k].x * om.x, w.J[k].y * om.y, w.J[k].z * om.z};
    const Vec3<T> rhs = M[k] - cross(om, Jw);
    d[k].r = s[k].v;
    d[k].p = quat_rate(s[k].p, om);
    d[k].v = (T(1) / w.mass[k]) * F[k];
    d[k].w = {rhs.x / w.J[k].x, rhs.y / w.J[k].y, rhs.z / w.J[k].z};
  }
}

template <class T>
BodyState<T> axpy(const BodyState<T>& s, T h, const BodyState<T>& d) {
  return {s.r + h * d.r, {s.p.w + h * d.p.w, s.p.x + h * d.p.x, s.p.y + h * d.p.y, s.p.z + h * d.p.z},
          s.v + h * d.v, s.w + h * d.w};
}

/// One RK4 step, quaternions renormalised after it; the impact-speed slots updated from
/// the accepted state (contact_pair_update_impact_slots).
template <class T>
void rk4_step(World<T>& w, T dt) {
  BodyState<T> k1[kCap] = {}, k2[kCap] = {}, k3[kCap] = {}, k4[kCap] = {}, y[kCap] = {};
  rates(w, w.s, k1);
  for (int k = 0; k < w.n; ++k) y[k] = axpy(w.s[k], T(0.5) * dt, k1[k]);
  rates(w, y, k2);
  for (int k = 0; k < w.n; ++k) y[k] = axpy(w.s[k], T(0.5) * dt, k2[k]);
  rates(w, y, k3);
  for (int k = 0; k < w.n; ++k) y[k] = axpy(w.s[k], dt, k3[k]);
  rates(w, y, k4);
  for (int k = 0; k < w.n; ++k) {
    BodyState<T> sum;
    sum.r = k1[k].r + T(2) * k2[k].r + T(2) * k3[k].r + k4[k].r;
    sum.v = k1[k].v + T(2) * k2[k].v + T(2) * k3[k].v + k4[k].v;
    sum.w = k1[k].w + T(2) * k2[k].w + T(2) * k3[k].w + k4[k].w;
    sum.p = {k1[k].p.w + T(2) * k2[k].p.w + T(2) * k3[k].p.w + k4[k].p.w,
             k1[k].p.x + T(2) * k2[k].p.x + T(2) * k3[k].p.x + k4[k].p.x,
             k1[k].p.y + T(2) * k2[k].p.y + T(2) * k3[k].p.y + k4[k].p.y,
             k1[k].p.z + T(2) * k2[k].p.z + T(2) * k3[k].p.z + k4[k].p.z};
    w.s[k] = axpy(w.s[k], dt / T(6), sum);
    w.s[k].p = normalized(w.s[k].p);
  }
  for (Pair<T>& pr : w.pairs)
    if (pr.slots_on) contact_pair_update_impact_slots(pair_wrench(w, w.s, pr), pr.params.normal.v_floor, pr.slot);
}

/// Kinetic + gravitational + elastic energy (the springs K delta^(n+1) / (n+1) of every
/// contact in overlap).
double energy(const World<double>& w) {
  double E = 0;
  for (int k = 0; k < w.n; ++k) {
    const BodyState<double>& s = w.s[k];
    E += 0.5 * w.mass[k] * dot(s.v, s.v) - w.mass[k] * dot(w.g, s.r);
    E += 0.5 * (w.J[k].x * s.w.x * s.w.x + w.J[k].y * s.w.y * s.w.y + w.J[k].z * s.w.z * s.w.z);
  }
  for (const Pair<double>& pr : w.pairs) {
    const ContactPairWrench<double> c = pair_wrench(w, w.s, pr);
    const double n = pr.params.normal.exponent;
    for (int i = 0; i < c.contacts.count; ++i)
      if (c.contacts.contact[i].depth > 0)
        E += pr.params.normal.stiffness * std::pow(c.contacts.contact[i].depth, n + 1) / (n + 1);
  }
  return E;
}

Vec3d linear_momentum(const World<double>& w) {
  Vec3d P = zero3<double>();
  for (int k = 0; k < w.n; ++k) P += w.mass[k] * w.s[k].v;
  return P;
}

/// Angular momentum about the world origin: sum m r x v + A (J w).
Vec3d angular_momentum(const World<double>& w) {
  Vec3d L = zero3<double>();
  for (int k = 0; k < w.n; ++k) {
    const BodyState<double>& s = w.s[k];
    L += w.mass[k] * cross(s.r, s.v);
    L += mul(rotation(s.p), Vec3d{w.J[k].x * s.w.x, w.J[k].y * s.w.y, w.J[k].z * s.w.z});
  }
  return L;
}

FrictionParams<double> no_friction() { return {0.0, 1e-3, 0.0, 1e-2}; }

/// A steel ball of radius R and the Hertz stiffness of steel on steel (sphere-sphere with
/// radius R_other, or the plane: R_other = infinity).
struct Steel {
  double R, m, K;
  explicit Steel(double R_, double R_other = kInf)
      : R(R_),
        m(sphere_mass(kSteelRho, R_)),
        K(hertz_stiffness(effective_modulus(kSteelE, kSteelNu, kSteelE, kSteelNu), effective_radius(R_, R_other))) {}
  Vec3d J() const { return {0.4 * m * R * R, 0.4 * m * R * R, 0.4 * m * R * R}; }
};

Quatd identity_quat() { return {1, 0, 0, 0}; }

// ---- The wrench by hand ---------------------------------------------------------------

TEST(ContactBodies, WrenchOfASlidingSphereOnTheGroundByHand) {
  // A sphere (A) pressed into the ground (B) by delta, sinking at 0.05 m/s, sliding along +x
  // and spinning; the body turned so that its B and W frames differ.
  const double R = 0.1, delta = 1e-4, K = 1e8, D = 2e3, mu = 0.4, v_eps = 1e-3, mu_roll = 2e-3, w_eps = 1e-2;
  ContactPairParams<double> p{{static_cast<int>(NormalLaw::Tsuji), K, 1.5, D, 1e-3}, {mu, v_eps, mu_roll, w_eps}, 0.0};
  const Shape<double> ball = make_shape(ShapeKind::Sphere, R), plane = make_shape(ShapeKind::Plane, 0.0);
  const Quatd q = quat_from_rotvec(Vec3d{0.3, -0.5, 0.8});
  const Vec3d v{0.2, 0, -0.05}, omega_W{0, 1.0, 0.5};
  const BodyKin<double> ka = make_body_kin(Vec3d{1, 2, R - delta}, q, v, mul_t(rotation(q), omega_W));
  const ContactPairWrench<double> w = contact_pair_wrench(ball, ka, plane, ground_kin<double>(), p, nullptr);
  ASSERT_EQ(w.status, CollideStatus::Ok);
  ASSERT_EQ(w.contacts.count, 1);
  const Vec3d n = w.contacts.contact[0].normal_W;  // A -> B: down
  EXPECT_NEAR(n.z, -1.0, 1e-15);
  EXPECT_NEAR(w.contacts.contact[0].point_W.z, -delta / 2, 1e-15);
  // Point velocity of A at x = (1, 2, -delta/2): v + omega x (x - r), omega_W x (0, 0, -(R - delta/2)).
  const Vec3d s_a{0, 0, -(R - delta / 2)};
  const Vec3d V_a = v + cross(omega_W, s_a);
  EXPECT_NEAR(w.delta_dot[0], -dot(-V_a, n), 1e-15);  // v_rel = 0 - V_a; approach rate -(v_rel . n)
  EXPECT_NEAR(w.delta_dot[0], 0.05, 1e-15);            // approaching
  const double Fn = K * std::pow(delta, 1.5) + D * std::pow(delta, 0.25) * 0.05;  // Tsuji
  EXPECT_NEAR(w.normal_force[0], Fn, 1e-12 * Fn);
  // On A: +Fn z, friction against A's slip V_a (tangential), rolling torque against A's
  // tangential rotation (0, 1, 0).
  const Vec3d slip{V_a.x, V_a.y, 0};
  const Vec3d Ft_A = (-mu * Fn / std::sqrt(dot(slip, slip) + v_eps * v_eps)) * slip;
  const Vec3d Mr_A = (-mu_roll * Fn / std::sqrt(1.0 + w_eps * w_eps)) * Vec3d{0, 1.0, 0};
  const Vec3d F_A = Vec3d{0, 0, Fn} + Ft_A;
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(w.a.force_W[c], F_A[c], 1e-12 * Fn) << c;
    EXPECT_EQ(w.b.force_W[c], -w.a.force_W[c]) << c;  // third law, exactly
    EXPECT_NEAR(w.friction_W[0][c], -Ft_A[c], 1e-12 * Fn) << c;
  }
  const Vec3d T_A = cross(s_a, F_A) + Mr_A;
  const Vec3d T_A_B = mul_t(rotation(q), T_A);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(w.a.torque_W[c], T_A[c], 1e-12 * Fn * R) << c;
    EXPECT_NEAR(w.a.torque_B[c], T_A_B[c], 1e-12 * Fn * R) << c;
  }
  // Sliding forward (+x) with the bottom point moving forward (0.2 - 0.1 m/s): friction
  // backward (-x) and a torque about +y that turns the ball towards rolling.
  EXPECT_GT(V_a.x, 0.0);
  EXPECT_LT(w.a.force_W.x, 0.0);
  EXPECT_GT(w.a.torque_W.y - Mr_A.y, 0.0);
  // The ground given as A: the same forces, the roles swapped.
  const ContactPairWrench<double> s = contact_pair_wrench(plane, ground_kin<double>(), ball, ka, p, nullptr);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(s.b.force_W[c], w.a.force_W[c], 1e-12 * Fn) << c;
    EXPECT_NEAR(s.b.torque_B[c], w.a.torque_B[c], 1e-12 * Fn * R) << c;
  }
  // Out of contact: nothing; an unsupported pair: status and zero wrench.
  const BodyKin<double> far = make_body_kin(Vec3d{0, 0, 2 * R}, q, v, Vec3d{0, 0, 0});
  const ContactPairWrench<double> none = contact_pair_wrench(ball, far, plane, ground_kin<double>(), p, nullptr);
  EXPECT_EQ(none.contacts.count, 0);
  EXPECT_EQ(norm(none.a.force_W), 0.0);
  const Shape<double> cyl = make_shape(ShapeKind::Cylinder, 0.1, 0.2), box = make_shape(ShapeKind::Box, 0.1, 0.1, 0.1);
  const ContactPairWrench<double> un = contact_pair_wrench(cyl, ka, box, ka, p, nullptr);
  EXPECT_EQ(un.status, CollideStatus::Unsupported);
  EXPECT_EQ(un.contacts.count, 0);
  EXPECT_EQ(norm(un.b.torque_W), 0.0);
}

// ---- (a) restitution of a dropped ball ------------------------------------------------

struct DropResult {
  double e;          ///< rebound / impact speed at ground level
  double t_contact;  ///< time in overlap (steps x dt)
  double tangential_change;  ///< max change of v_x, v_y, omega (no friction: none)
};

/// A steel ball R = 10 mm, its lowest point 0.37 steps above the ground, falling at v_i at
/// ground level, with a sideways velocity and a spin; no friction. RK4 at dt through the
/// pair wrench; the rebound speed at ground level from the free flight's energy.
DropResult drop(NormalLaw law, double e, double v_i, double dt, bool slots) {
  const Steel b(0.01);
  World<double> w;
  w.ground = make_shape(ShapeKind::Plane, 0.0);
  const double y0 = 0.37 * dt * v_i;
  const Vec3d v0{0.3, -0.2, -std::sqrt(v_i * v_i - 2 * kG * y0)}, w0{5, -3, 7};
  w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, b.R), {{0, 0, b.R + y0}, identity_quat(), v0, w0});
  w.connect(0, -1, {normal_law_params(law, b.K, 1.5, e, b.m, v_i, 1e-3), no_friction(), 0.0}, slots);
  int in_contact = 0;
  for (int k = 0; k < 1000000; ++k) {
    rk4_step(w, dt);
    const double y = w.s[0].r.z - b.R;
    if (y < 0) {
      ++in_contact;
    } else if (in_contact > 0) {
      const double vz = w.s[0].v.z;
      double dev = std::max(std::fabs(w.s[0].v.x - v0.x), std::fabs(w.s[0].v.y - v0.y));
      dev = std::max(dev, norm(w.s[0].w - w0) / norm(w0));
      return {std::sqrt(vz * vz + 2 * kG * y) / v_i, in_contact * dt, dev};
    }
  }
  return {std::nan(""), 0, 0};
}

TEST(ContactBodies, DroppedBallReboundsWithTheRequestedRestitution) {
  const Steel b(0.01);
  const double v_i = 2.0;
  const double t_c = hertz_duration(b.m, b.K, v_i), dt = t_c / 200, ts = impact_time_scale(b.m, b.K, v_i);
  std::printf("%-12s %6s %12s %12s %10s\n", "law", "e", "relation", "measured", "tolerance");
  for (NormalLaw law : {NormalLaw::Tsuji, NormalLaw::ExactImpact}) {
    for (double e : {0.3, 0.5, 0.7, 0.9, 0.95}) {
      const auto p = normal_law_params(law, b.K, 1.5, e, b.m, v_i, 1e-3);
      const double e_rel = normal_law_restitution(p, b.m, v_i);
      const DropResult d = drop(law, e, v_i, dt, law != NormalLaw::Tsuji);
      // The law's accuracy under RK4 (docs/contact.md, Validation): (dt/t*)^(5/2), for Tsuji
      // plus its onset 0.25 gamma (dt/t*)^(5/4), gamma = 2 zeta sqrt(n); plus gravity's
      // impulse over the contact g (t_c + dt) / v_i, which the relation leaves out.
      double tol = std::pow(dt / ts, 2.5) + kG * (d.t_contact + dt) / v_i;
      if (law == NormalLaw::Tsuji) tol += 0.25 * p.damping / std::sqrt(b.m * b.K) * std::pow(dt / ts, 1.25);
      std::printf("%-12s %6.2f %12.6f %12.6f %10.1e\n", law == NormalLaw::Tsuji ? "Tsuji" : "ExactImpact", e, e_rel,
                  d.e, tol);
      EXPECT_NEAR(d.e, e_rel, tol) << static_cast<int>(law) << " " << e;
      EXPECT_NEAR(d.e, e, tol) << static_cast<int>(law) << " " << e;
      // No friction: the sideways velocity and the spin pass the impact unchanged (the
      // normal force acts through the centre: torque from rounding only).
      EXPECT_LE(d.tangential_change, 1e-12) << e;
    }
  }
}

// ---- (b) Hertz impact of two spheres ----------------------------------------------------

struct HertzResult {
  double duration, peak, v_a_after, v_b_after;
};

/// Two equal steel spheres R on the line u, approaching at v (each at v / 2), no gravity:
/// the time in overlap (ends located on the cubic Hermite interpolant of the gap), the
/// largest normal force at the steps, and the velocities along u afterwards.
HertzResult hertz_pair(double R, double v, double dt) {
  const Steel b(R, R);
  World<double> w;
  w.g = zero3<double>();
  const Vec3d u = (1.0 / 3.0) * Vec3d{1, 2, 2};
  const Vec3d c{0.3, -0.1, 0.5};
  const double gap0 = 0.37 * dt * v;
  const int A = w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, R),
                      {c - (R + 0.5 * gap0) * u, identity_quat(), (0.5 * v) * u, zero3<double>()});
  const int B = w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, R),
                      {c + (R + 0.5 * gap0) * u, quat_from_rotvec(Vec3d{1, 0, 0}), (-0.5 * v) * u, zero3<double>()});
  const double m_star = effective_mass(b.m, b.m);
  w.connect(A, B, {normal_law_params(NormalLaw::Tsuji, b.K, 1.5, 1.0, m_star, v, 1e-3), no_friction(), 0.0});
  auto gap = [&](double& rate) {
    const Vec3d d = w.s[B].r - w.s[A].r;
    rate = dot(d, w.s[B].v - w.s[A].v) / norm(d);
    return norm(d) - 2 * R;
  };
  auto crossing = [&](double g0, double r0, double g1, double r1) {  // root of the Hermite cubic in [0, 1]
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; ++i) {
      const double s = 0.5 * (lo + hi);
      const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
      const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
      const double gs = h00 * g0 + h10 * dt * r0 + h01 * g1 + h11 * dt * r1;
      ((gs > 0) == (g0 > 0) ? lo : hi) = s;
    }
    return 0.5 * (lo + hi);
  };
  HertzResult res{0, 0, 0, 0};
  double t = 0, t_start = -1, r_prev, g_prev = gap(r_prev);
  for (int k = 0; k < 100000; ++k) {
    rk4_step(w, dt);
    t += dt;
    double r_now;
    const double g_now = gap(r_now);
    res.peak = std::max(res.peak, pair_wrench(w, w.s, w.pairs[0]).normal_force[0]);
    if (t_start < 0 && g_now < 0) t_start = t - dt + crossing(g_prev, r_prev, g_now, r_now) * dt;
    if (t_start >= 0 && g_now >= 0) {
      res.duration = t - dt + crossing(g_prev, r_prev, g_now, r_now) * dt - t_start;
      res.v_a_after = dot(w.s[A].v, u);
      res.v_b_after = dot(w.s[B].v, u);
      return res;
    }
    g_prev = g_now;
    r_prev = r_now;
  }
  return res;
}

TEST(ContactBodies, HertzImpactOfTwoEqualSteelSpheresMatchesDurationAndPeakForce) {
  const double R = 0.01, v = 1.0;
  const Steel b(R, R);
  const double m_star = effective_mass(b.m, b.m);
  const double E_star = effective_modulus(kSteelE, kSteelNu, kSteelE, kSteelNu), R_star = effective_radius(R, R);
  const double t_c = hertz_duration(m_star, b.K, v), dmax = hertz_delta_max(m_star, b.K, v);
  const double F_max = b.K * std::pow(dmax, 1.5);
  const double t_c_book = 2.87 * std::pow(m_star * m_star / (R_star * E_star * E_star * v), 0.2);
  for (int per_contact : {50, 200}) {
    const double dt = t_c / per_contact;
    const HertzResult r = hertz_pair(R, v, dt);
    // RK4 over the contact: (dt/t*)^(5/2); the sampled peak misses the true one by at most
    // (3/16) (dt/tau)^2, tau^2 = m* / (K delta_max^(1/2)) (|t - t_peak| <= dt/2).
    const double step = std::pow(dt / impact_time_scale(m_star, b.K, v), 2.5);
    const double sampling = 3.0 / 16.0 * dt * dt / (m_star / (b.K * std::sqrt(dmax)));
    std::printf("Hertz pair, dt = t_c/%d: t_c %.6e s (exact %.6e: %+.1e, bound %.1e; 2.87 form %.6e: %+.1e), "
                "F_max %.6e N (closed form %.6e: %+.1e, bound %.1e), v after %+.8f %+.8f m/s\n",
                per_contact, r.duration, t_c, r.duration / t_c - 1, step, t_c_book, r.duration / t_c_book - 1, r.peak,
                F_max, r.peak / F_max - 1, step + sampling, r.v_a_after, r.v_b_after);
    EXPECT_NEAR(r.duration / t_c, 1.0, step);
    EXPECT_NEAR(r.duration / t_c_book, 1.0, 0.01);
    EXPECT_NEAR(r.peak / F_max, 1.0, step + sampling);
    EXPECT_NEAR(r.peak / F_max, 1.0, 0.01);
    // Equal masses, e = 1: the velocities are exchanged.
    EXPECT_NEAR(r.v_a_after, -0.5 * v, step * v);
    EXPECT_NEAR(r.v_b_after, 0.5 * v, step * v);
  }
}

// ---- (c) a box on a slope ---------------------------------------------------------------

struct SlopeRun {
  double s_settle, s_end;  ///< downhill distance at t_settle and at t_settle + T [m]
  double u_1, u_end;       ///< downhill speed 1 s after t_settle and at the end [m/s]
  double u_max_landing;    ///< largest downhill speed before t_settle
  double u_max;            ///< largest downhill speed after t_settle
  double tilt_max;         ///< largest |sin| of the angle between the box's z and the slope normal
};

/// A 1 kg cube of side 0.1 m on a slope of angle theta (the ground plane turned about y;
/// gravity along -z), from rest at the penetration where its 4 corners share the weight
/// equally, for t_settle + T at dt. Soft Hertz corners: K = 1e7 N/m^1.5, e = 0.5 (Tsuji,
/// m* = m/4 per corner). s, u: distance and speed downhill.
SlopeRun box_on_slope(double tan_theta, double mu, double v_eps, double dt, double t_settle, double T) {
  const double theta = std::atan(tan_theta), h = 0.05, m = 1.0, K = 1e7;
  const Quatd q = quat_from_rotvec(Vec3d{0, theta, 0});
  const Vec3d n = mul(rotation(q), Vec3d{0, 0, 1}), down = mul(rotation(q), Vec3d{1, 0, 0});
  World<double> w;
  w.ground = make_shape(ShapeKind::Plane, 0.0, 0.0, 0.0, q);
  const double delta0 = std::pow(m * kG * std::cos(theta) / (4 * K), 2.0 / 3.0);
  const double Jc = m * (2 * h) * (2 * h) / 6;
  w.add(m, {Jc, Jc, Jc}, make_shape(ShapeKind::Box, h, h, h), {(h - delta0) * n, q, zero3<double>(), zero3<double>()});
  w.connect(0, -1, {normal_law_params(NormalLaw::Tsuji, K, 1.5, 0.5, m / 4, 1.0, 1e-3), {mu, v_eps, 0.0, 1e-2}, 0.0});
  SlopeRun r{0, 0, 0, 0, 0, 0, 0};
  const int k_settle = static_cast<int>(std::lround(t_settle / dt));
  const int k_1 = k_settle + static_cast<int>(std::lround(1 / dt));
  const int steps = k_settle + static_cast<int>(std::lround(T / dt));
  auto s_of = [&] { return dot(w.s[0].r - (h - delta0) * n, down); };
  for (int k = 1; k <= steps; ++k) {
    rk4_step(w, dt);
    const double u = dot(w.s[0].v, down);
    if (k <= k_settle)
      r.u_max_landing = std::max(r.u_max_landing, u);
    else
      r.u_max = std::max(r.u_max, u);
    if (k == k_settle) r.s_settle = s_of();
    if (k == k_1) r.u_1 = u;
    const Vec3d z_box = mul(rotation(w.s[0].p), Vec3d{0, 0, 1});
    r.tilt_max = std::max(r.tilt_max, norm(cross(z_box, n)));
  }
  r.u_end = dot(w.s[0].v, down);
  r.s_end = s_of();
  return r;
}

TEST(ContactBodies, BoxOnASlopeCreepsBelowTheBoundAndSlidesAtTheCoulombRate) {
  const double mu = 0.5, v_eps = 1e-3, T = 10;
  // dt: the corners' normal mode (~600 rad/s) and the friction slope at rest, mu g / v_eps
  // times (1 + m h^2 / J) = 2.5 for the box's pitch, 1.2e4 1/s: RK4 stable below 2.3e-4 s.
  const double dt = 1e-4;
  // Settling: the box starts with equal corner loads, but friction at its base needs the
  // downhill corners to carry more; the pitch and normal modes this starts (zeta = 0.23 at
  // >= 600 rad/s) decay by e^-70 in t_settle = 0.5 s. While they ring, the corners slip
  // faster than the CoM's steady creep.
  const double t_settle = 0.5;
  {
    const double tan_theta = 0.8 * mu;
    const double u_star = friction_creep_speed(mu, tan_theta, v_eps);
    const SlopeRun r = box_on_slope(tan_theta, mu, v_eps, dt, t_settle, T);
    const double creep = r.s_end - r.s_settle;
    std::printf("box, tan(theta) = %.2f: settling 0.5 s: %.4e m, u_max %.4e m/s; then 10 s: creep %.6e m (bound u* T "
                "%.6e), u_max %.9e m/s, u(end) %.9e (u* %.9e), tilt %.1e\n",
                tan_theta, r.s_settle, r.u_max_landing, creep, u_star * T, r.u_max, r.u_end, u_star, r.tilt_max);
    // Settled, the 4 corners slip at the CoM's speed and their normal forces sum to
    // m g cos(theta), so the point-mass bound holds (docs/contact.md, Friction): the speed
    // stays at u* and the creep over T below u* T.
    EXPECT_LE(creep, u_star * T);
    EXPECT_GE(creep, 0.99 * u_star * T);  // it does creep (the law has no stiction)
    EXPECT_LE(r.u_max, u_star * (1 + 1e-6));
    EXPECT_NEAR(r.u_end, u_star, 1e-9 * u_star);
    EXPECT_LT(r.tilt_max, 1e-3);
  }
  {
    const double tan_theta = 1.5 * mu, theta = std::atan(tan_theta);
    const SlopeRun r = box_on_slope(tan_theta, mu, v_eps, dt, t_settle, T);
    const double a_coulomb = kG * (std::sin(theta) - mu * std::cos(theta));
    const double a_mean = (r.u_end - r.u_1) / (T - 1);
    // Above u(1) the friction falls short of mu F_n by at most mu g cos v_eps^2 / (2 u(1)^2).
    const double bound = mu * kG * std::cos(theta) * v_eps * v_eps / (2 * r.u_1 * r.u_1);
    std::printf("box, tan(theta) = %.2f: mean a over 9 s %.9f m/s^2 (Coulomb %.9f, bound %.1e), tilt %.1e\n",
                tan_theta, a_mean, a_coulomb, bound, r.tilt_max);
    EXPECT_GE(a_mean, a_coulomb - 1e-9 * a_coulomb);
    EXPECT_LE(a_mean, a_coulomb + bound);
    EXPECT_LT(r.tilt_max, 1e-3);
  }
}

// ---- (d) a sphere rolling down a slope --------------------------------------------------

struct RollRun {
  double a_mean;    ///< mean acceleration downhill over [t_a, t_end] [m/s^2]
  double slip_end;  ///< downhill velocity of the contact point of the ball at t_end [m/s]
  double R_c;       ///< distance from the centre to the contact point (R - delta0 / 2) [m]
};

/// A 1 kg sphere of radius 0.05 m (J = 2/5 m R^2) from rest at its static penetration on a
/// slope tan(theta) = 0.4, mu = 0.5, v_eps = 1 mm/s, rolling resistance mu_roll [m]
/// (w_eps = 0.01 rad/s); soft Hertz contact (K = 1e7 N/m^1.5, e = 0.5, m* = m).
RollRun roll(double mu_roll, double dt, double t_a, double t_end) {
  const double tan_theta = 0.4, theta = std::atan(tan_theta), R = 0.05, m = 1.0, K = 1e7;
  const Quatd q = quat_from_rotvec(Vec3d{0, theta, 0});
  const Vec3d n = mul(rotation(q), Vec3d{0, 0, 1}), down = mul(rotation(q), Vec3d{1, 0, 0});
  World<double> w;
  w.ground = make_shape(ShapeKind::Plane, 0.0, 0.0, 0.0, q);
  const double delta0 = std::pow(m * kG * std::cos(theta) / K, 2.0 / 3.0);
  const double Jc = 0.4 * m * R * R;
  w.add(m, {Jc, Jc, Jc}, make_shape(ShapeKind::Sphere, R),
        {(R - delta0) * n, identity_quat(), zero3<double>(), zero3<double>()});
  w.connect(0, -1, {normal_law_params(NormalLaw::Tsuji, K, 1.5, 0.5, m, 1.0, 1e-3), {0.5, 1e-3, mu_roll, 1e-2}, 0.0});
  const int steps = static_cast<int>(std::lround(t_end / dt)), k_a = static_cast<int>(std::lround(t_a / dt));
  double u_a = 0;
  for (int k = 1; k <= steps; ++k) {
    rk4_step(w, dt);
    if (k == k_a) u_a = dot(w.s[0].v, down);
  }
  const double R_c = R - 0.5 * delta0;
  const Vec3d omega_W = mul(rotation(w.s[0].p), w.s[0].w);
  const Vec3d V_contact = w.s[0].v + cross(omega_W, (-R_c) * n);
  return {(dot(w.s[0].v, down) - u_a) / (t_end - t_a), dot(V_contact, down), R_c};
}

TEST(ContactBodies, SphereRollsDownASlopeAtFiveSeventhsOfGSinTheta) {
  const double theta = std::atan(0.4), mu = 0.5, v_eps = 1e-3, R = 0.05, dt = 1e-4;
  const double s = std::sin(theta), c = std::cos(theta);
  // The friction that rolling needs is (2/7) m g sin(theta) < mu m g cos(theta): the ball
  // slips at the steady speed where the regularised law supplies it, v_eps r / sqrt(1 - r^2),
  // r = (2/7) tan(theta) / mu, reached at the rate (7/2) mu g cos(theta) / v_eps ~ 1.5e4 1/s
  // (RK4 stable at dt = 1e-4 s; the normal mode, ~400 rad/s with zeta = 0.23, has decayed by
  // e^-45 at 0.5 s).
  // The friction acts at the contact point, midway between the surfaces: R_c = R - delta0/2
  // from the centre (delta0 the static penetration, 9.4e-5 m). The compliant ball therefore
  // rolls on the radius R_c: a = g sin / (1 + J / (m R_c^2)), which is the rigid ball's
  // (5/7) g sin(theta) times 1 - (2/7) delta0 / R + 0.53 (delta0 / 2R)^2 + .... Bounds:
  // against the R_c form rounding (1e-9 relative); against (5/7) g sin(theta) the law's
  // departure (2/7) (delta0 / R) (1 + delta0 / R) (5.4e-4 here). The friction force is then
  // m g sin k / (1 + k), k = J / (m R_c^2), and the slip v_eps r / sqrt(1 - r^2) with
  // r = k / (1 + k) tan(theta) / mu.
  const double a_rigid = 5.0 / 7.0 * kG * s;
  const RollRun r = roll(0.0, dt, 0.5, 3.0);
  const double delta0 = 2 * (R - r.R_c);
  const double k = 0.4 * R * R / (r.R_c * r.R_c);
  const double a_Rc = kG * s / (1 + k);
  const double departure = 2.0 / 7.0 * delta0 / R * (1 + delta0 / R);
  const double r_fric = k / (1 + k) * std::tan(theta) / mu;
  const double slip = v_eps * r_fric / std::sqrt(1 - r_fric * r_fric);
  std::printf("rolling: a %.12f m/s^2 (R_c form %.12f: %+.1e; 5/7 g sin %.12f: %+.3e, bound %.3e), slip %.9e m/s "
              "(steady %.9e)\n",
              r.a_mean, a_Rc, r.a_mean / a_Rc - 1, a_rigid, r.a_mean / a_rigid - 1, departure,
              r.slip_end, slip);
  EXPECT_NEAR(r.a_mean, a_Rc, 1e-9 * a_Rc);
  EXPECT_NEAR(r.a_mean, a_rigid, departure * a_rigid);
  EXPECT_NEAR(r.slip_end, slip, 1e-6 * slip);
  // Without the friction torque the ball would accelerate at g sin(theta): 40 % more.
  EXPECT_GT(std::fabs(kG * s - r.a_mean), 0.1);
  // Rolling resistance mu_roll (a couple mu_roll F_n against the rolling):
  // a = g (sin - (mu_roll / R_c) cos) / (1 + J / (m R_c^2)), rigid (5/7) g (sin - (mu_roll/R) cos).
  // The regularised torque falls short of mu_roll F_n by mu_roll F_n w_eps^2 / (2 w^2), with
  // w >= w(0.5 s) ~ 25 rad/s: 8e-8 of it.
  const double mu_roll = 1e-3, w_eps = 1e-2;
  const RollRun rr = roll(mu_roll, dt, 0.5, 3.0);
  const double a_rr = kG * (s - mu_roll / rr.R_c * c) / (1 + 0.4 * R * R / (rr.R_c * rr.R_c));
  const double a_rr_rigid = 5.0 / 7.0 * kG * (s - mu_roll / R * c);
  const double w_a = 0.5 * a_rr / rr.R_c;
  const double bound = 5.0 / 7.0 * kG * mu_roll / R * c * w_eps * w_eps / (2 * w_a * w_a) + 1e-9 * a_rr;
  std::printf("rolling resistance mu_roll = %.0e m: a %.12f m/s^2 (R_c form %.12f: %+.1e, bound %.1e; rigid %.12f: "
              "%+.1e)\n",
              mu_roll, rr.a_mean, a_rr, rr.a_mean / a_rr - 1, bound / a_rr, a_rr_rigid, rr.a_mean / a_rr_rigid - 1);
  EXPECT_NEAR(rr.a_mean, a_rr, bound);
  EXPECT_NEAR(rr.a_mean, a_rr_rigid, 2 * departure * a_rr_rigid);
  EXPECT_LT(rr.a_mean, r.a_mean - 0.5 * (a_rigid - a_rr_rigid));  // the resistance is felt
}

// ---- (e) energy through elastic bounces -------------------------------------------------

TEST(ContactBodies, ElasticBouncesOfASpinningBallConserveEnergy) {
  // A steel ball dropped at 0.5 m/s with a sideways velocity and a spin, e = 1, no friction:
  // five bounces. RK4 is exact in the free flights (a quadratic path, a constant spin of an
  // isotropic body), so the energy error is the contacts': (dt/t*)^(5/2) each.
  const Steel b(0.01);
  const double v_i = 0.5, dt = hertz_duration(b.m, b.K, v_i) / 200;
  const double bound_per_contact = std::pow(dt / impact_time_scale(b.m, b.K, v_i), 2.5);
  World<double> w;
  w.ground = make_shape(ShapeKind::Plane, 0.0);
  const double y0 = 0.37 * dt * v_i;
  w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, b.R),
        {{0, 0, b.R + y0}, identity_quat(), {0.2, 0.1, -std::sqrt(v_i * v_i - 2 * kG * y0)}, {20, -10, 30}});
  w.connect(0, -1, {normal_law_params(NormalLaw::Tsuji, b.K, 1.5, 1.0, b.m, v_i, 1e-3), no_friction(), 0.0});
  const double E0 = energy(w);
  double worst = 0, v_up_last = 0;
  int bounces = 0;
  bool was_in = false;
  while (bounces < 5) {
    rk4_step(w, dt);
    const bool in = w.s[0].r.z < b.R;
    if (was_in && !in) {
      ++bounces;
      v_up_last = std::sqrt(w.s[0].v.z * w.s[0].v.z + 2 * kG * (w.s[0].r.z - b.R));
      worst = std::max(worst, std::fabs(energy(w) - E0) / E0);
    }
    if (in) worst = std::max(worst, std::fabs(energy(w) - E0) / E0);
    was_in = in;
  }
  std::printf("5 elastic bounces: max |dE| / E %.2e (bound %.2e), last rebound %.9f m/s\n", worst,
              5 * bound_per_contact, v_up_last);
  EXPECT_LE(worst, 5 * bound_per_contact);
  EXPECT_NEAR(v_up_last / v_i, 1.0, 5 * bound_per_contact);
}

// ---- (f) Newton's cradle ----------------------------------------------------------------

/// 1-D reference: balls on a line, Hertz forces K delta^1.5 between neighbours, RK4 at dt.
std::vector<double> chain_1d(int N, double R, double K, double m, double v, double gap, double gap0, double dt,
                             double t_end) {
  std::vector<double> x(N), u(N, 0.0);
  x[0] = -(2 * R + gap0);
  for (int i = 1; i < N; ++i) x[i] = (i - 1) * (2 * R + gap);
  u[0] = v;
  auto acc = [&](const std::vector<double>& X, std::vector<double>& a) {
    std::fill(a.begin(), a.end(), 0.0);
    for (int i = 0; i + 1 < N; ++i) {
      const double d = 2 * R - (X[i + 1] - X[i]);
      if (d > 0) {
        const double f = K * d * std::sqrt(d);
        a[i] -= f / m;
        a[i + 1] += f / m;
      }
    }
  };
  std::vector<double> a1(N), a2(N), a3(N), a4(N), X(N);
  const int steps = static_cast<int>(std::lround(t_end / dt));
  for (int k = 0; k < steps; ++k) {
    acc(x, a1);
    for (int i = 0; i < N; ++i) X[i] = x[i] + 0.5 * dt * u[i];
    acc(X, a2);
    for (int i = 0; i < N; ++i) X[i] = x[i] + 0.5 * dt * (u[i] + 0.5 * dt * a1[i]);
    acc(X, a3);
    for (int i = 0; i < N; ++i) X[i] = x[i] + dt * (u[i] + 0.5 * dt * a2[i]);
    acc(X, a4);
    for (int i = 0; i < N; ++i) {
      x[i] += dt / 6 * (u[i] + 2 * (u[i] + 0.5 * dt * a1[i]) + 2 * (u[i] + 0.5 * dt * a2[i]) + (u[i] + dt * a3[i]));
      u[i] += dt / 6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
    }
  }
  return u;
}

/// N steel balls R = 10 mm along x (no gravity: the strings only hold them up), the
/// striker at v, the others at rest with the given gap between neighbours (0: touching);
/// pairs between neighbours, e = 1 (Tsuji with zeta = 0: pure Hertz). Final velocities.
std::vector<double> cradle(int N, double v, double gap, double dt, double t_end, double* energy_dev) {
  const Steel b(0.01, 0.01);
  World<double> w;
  w.g = zero3<double>();
  const double gap0 = 0.37 * dt * v;
  w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, b.R), {{-(2 * b.R + gap0), 0, 0}, identity_quat(), {v, 0, 0},
                                                          zero3<double>()});
  for (int i = 1; i < N; ++i)
    w.add(b.m, b.J(), make_shape(ShapeKind::Sphere, b.R),
          {{(i - 1) * (2 * b.R + gap), 0, 0}, identity_quat(), zero3<double>(), zero3<double>()});
  const auto law = normal_law_params(NormalLaw::Tsuji, b.K, 1.5, 1.0, effective_mass(b.m, b.m), v, 1e-3);
  for (int i = 0; i + 1 < N; ++i) w.connect(i, i + 1, {law, no_friction(), 0.0});
  const double E0 = energy(w);
  *energy_dev = 0;
  const int steps = static_cast<int>(std::lround(t_end / dt));
  for (int k = 0; k < steps; ++k) {
    rk4_step(w, dt);
    *energy_dev = std::max(*energy_dev, std::fabs(energy(w) - E0) / E0);
  }
  std::vector<double> u(N);
  for (int i = 0; i < N; ++i) u[i] = w.s[i].v.x;
  return u;
}

TEST(ContactBodies, NewtonsCradleTouchingAndWithGaps) {
  const Steel b(0.01, 0.01);
  const double v = 1.0, m_star = effective_mass(b.m, b.m);
  const double t_c = hertz_duration(m_star, b.K, v), dt = t_c / 200;
  const double step = std::pow(dt / impact_time_scale(m_star, b.K, v), 2.5);
  for (int N : {3, 5}) {
    // With gaps (1 mm, 40 delta_max): N - 1 separate binary elastic impacts of equal masses,
    // each an exact exchange up to its step error: the last ball leaves at v, the others
    // stop, within (N - 1) (dt/t*)^(5/2) v.
    {
      const double gap = 1e-3, t_end = (N - 1) * (gap / v + t_c) + 2 * t_c;
      double dE;
      const std::vector<double> u = cradle(N, v, gap, dt, t_end, &dE);
      std::printf("cradle N = %d, gaps 1 mm:", N);
      for (double ui : u) std::printf(" %+.3e", ui / v);
      std::printf(" (x v; tolerance %.1e), max |dE|/E %.1e\n", (N - 1) * step, dE);
      for (int i = 0; i + 1 < N; ++i) EXPECT_NEAR(u[i], 0.0, (N - 1) * step * v) << N << " " << i;
      EXPECT_NEAR(u[N - 1], v, (N - 1) * step * v) << N;
    }
    // Touching: the compliant chain is not N - 1 binary impacts. The pulse disperses and the
    // balls separate with velocities that depend on n alone (Hertz scaling removes K, m, v).
    // The body-level result is the 1-D Hertz chain's: the same ODE with the same RK4 at the
    // same dt agrees to rounding; the chain at dt / 10 gives the step error.
    {
      const double t_end = 4 * N * t_c;
      double dE;
      const std::vector<double> u = cradle(N, v, 0.0, dt, t_end, &dE);
      const double gap0 = 0.37 * dt * v;
      const std::vector<double> u1 = chain_1d(N, b.R, b.K, b.m, v, 0.0, gap0, dt, t_end);
      const std::vector<double> u10 = chain_1d(N, b.R, b.K, b.m, v, 0.0, gap0, dt / 10, t_end);
      double P = 0, E = 0;
      std::printf("cradle N = %d, touching:", N);
      for (int i = 0; i < N; ++i) {
        std::printf(" %+.6f", u[i] / v);
        P += u[i];
        E += u[i] * u[i];
        EXPECT_NEAR(u[i], u1[i], 1e-12 * v) << N << " " << i;
        EXPECT_NEAR(u[i], u10[i], N * step * v) << N << " " << i;
      }
      std::printf(" (x v), momentum %.12f, energy %.12f (x initial), max |dE|/E %.1e\n", P / v, E / (v * v), dE);
      EXPECT_NEAR(P, v, 1e-12 * v);
      EXPECT_NEAR(E, v * v, N * step * v * v);
      // Far from the rigid ideal in the first balls, but the last one carries most of it.
      EXPECT_GT(u[N - 1], 0.8 * v);
      EXPECT_GT(std::fabs(u[0]) + std::fabs(u[1]), 1e-3 * v);
    }
  }
}

// ---- (g) symmetry, third law, momentum ----------------------------------------------------

Quatd random_quat(std::mt19937_64& g) {
  std::normal_distribution<double> n(0, 1);
  return normalized(Quatd{n(g), n(g), n(g), n(g)});
}
Vec3d random_vec(std::mt19937_64& g, double s) {
  std::uniform_real_distribution<double> u(-s, s);
  return {u(g), u(g), u(g)};
}
template <class T>
Shape<T> shape_cast(const Shape<double>& s) {
  return {s.kind, {T(s.size[0]), T(s.size[1]), T(s.size[2])}, {T(s.pos_B.x), T(s.pos_B.y), T(s.pos_B.z)},
          {T(s.quat_B.w), T(s.quat_B.x), T(s.quat_B.y), T(s.quat_B.z)}};
}
template <class T>
Vec3<T> vec_cast(const Vec3d& v) {
  return {T(v.x), T(v.y), T(v.z)};
}

/// A random overlapping configuration of two shapes of the given kinds (sizes 0.1-0.3 m,
/// each off its body's CoM) with random twists, each overlap at least 1 % of the size.
struct RandomPair {
  Shape<double> sa, sb;
  Vec3d ra, va, wa, rb, vb, wb;
  Quatd pa, pb;
};

Shape<double> random_shape(ShapeKind k, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(0.1, 0.3);
  Shape<double> s{k, {u(g), u(g), u(g)}, random_vec(g, 0.05), random_quat(g)};
  if (k == ShapeKind::Capsule) s.size[1] *= 1.5;
  return s;
}

bool make_random_pair(ShapeKind ka, ShapeKind kb, std::mt19937_64& g, RandomPair& rp) {
  rp.sa = random_shape(ka, g);
  rp.sb = random_shape(kb, g);
  rp.ra = random_vec(g, 1.0);
  rp.pa = random_quat(g);
  rp.pb = random_quat(g);
  rp.va = random_vec(g, 1.0);
  rp.vb = random_vec(g, 1.0);
  rp.wa = random_vec(g, 3.0);
  rp.wb = random_vec(g, 3.0);
  rp.rb = rp.ra + random_vec(g, 0.35);
  const BodyKin<double> a = make_body_kin(rp.ra, rp.pa, rp.va, rp.wa), b = make_body_kin(rp.rb, rp.pb, rp.vb, rp.wb);
  ContactSet<double> cs;
  collide(rp.sa, shape_pose_W(rp.sa, a), rp.sb, shape_pose_W(rp.sb, b), 0.0, cs);
  if (cs.count == 0) return false;
  for (int i = 0; i < cs.count; ++i)
    if (cs.contact[i].depth < 0.01) return false;
  return true;
}

template <class T>
ContactPairParams<T> random_pair_params() {
  // K for 1 % overlaps of ~100 N; Tsuji e = 0.5 at m* = 1 kg; friction and rolling.
  return {normal_law_params(NormalLaw::Tsuji, T(1e5), T(1.5), T(0.5), T(1), T(1), T(1e-3)),
          {T(0.6), T(1e-2), T(2e-3), T(1e-1)}, T(0)};
}

template <class T>
ContactPairWrench<T> wrench_of(const RandomPair& rp, bool swap) {
  const Shape<T> sa = shape_cast<T>(rp.sa), sb = shape_cast<T>(rp.sb);
  const BodyKin<T> a = make_body_kin(vec_cast<T>(rp.ra), Quat<T>{T(rp.pa.w), T(rp.pa.x), T(rp.pa.y), T(rp.pa.z)},
                                     vec_cast<T>(rp.va), vec_cast<T>(rp.wa));
  const BodyKin<T> b = make_body_kin(vec_cast<T>(rp.rb), Quat<T>{T(rp.pb.w), T(rp.pb.x), T(rp.pb.y), T(rp.pb.z)},
                                     vec_cast<T>(rp.vb), vec_cast<T>(rp.wb));
  const ContactPairParams<T> p = random_pair_params<T>();
  return swap ? contact_pair_wrench(sb, b, sa, a, p, static_cast<const T*>(nullptr))
              : contact_pair_wrench(sa, a, sb, b, p, static_cast<const T*>(nullptr));
}

/// Whether a pair is a capsule whose axis has entered a cylinder (an overlap deeper than the
/// capsule's radius): collide() then takes the smallest overlap over the cylinder's face
/// and side axes (docs/contact.md, "A capsule axis inside a cylinder"), whose normal
/// jumps where two overlaps are equal.
bool capsule_axis_in_cylinder(const RandomPair& rp, double distance) {
  const bool cc = (rp.sa.kind == ShapeKind::Capsule && rp.sb.kind == ShapeKind::Cylinder) ||
                  (rp.sa.kind == ShapeKind::Cylinder && rp.sb.kind == ShapeKind::Capsule);
  const double r = rp.sa.kind == ShapeKind::Capsule ? rp.sa.size[0] : rp.sb.size[0];
  return cc && -distance > r;
}

/// The supported pairs without a plane (plane pairs: the ground tests above).
std::vector<std::pair<ShapeKind, ShapeKind>> body_pairs() {
  const ShapeKind ks[] = {ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box, ShapeKind::Cylinder};
  std::vector<std::pair<ShapeKind, ShapeKind>> out;
  for (ShapeKind a : ks)
    for (ShapeKind b : ks)
      if (collide_supported(a, b)) out.push_back({a, b});
  return out;
}

TEST(ContactBodies, SwappedPairGivesEqualAndOppositeWrenchesAndTheThirdLawHolds) {
  std::mt19937_64 g(11);
  double worst_swap = 0, worst_moment = 0, worst_rate = 0;
  int configs = 0, capsule_cylinder_rates = 0;
  for (const auto& kinds : body_pairs()) {
    int found = 0;
    for (int tries = 0; found < 40 && tries < 20000; ++tries) {
      RandomPair rp;
      if (!make_random_pair(kinds.first, kinds.second, g, rp)) continue;
      ++found;
      const ContactPairWrench<double> w = wrench_of<double>(rp, false), s = wrench_of<double>(rp, true);
      ASSERT_EQ(w.status, CollideStatus::Ok);
      double F = 0;
      for (int i = 0; i < w.contacts.count; ++i) F += w.normal_force[i];
      const double L = 1.0 + norm(rp.ra) + norm(rp.rb);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(w.a.force_W[c], -w.b.force_W[c]);  // exact by construction
      // Total moment about the world origin: r x F + T of both bodies, zero up to rounding.
      const Vec3d M = cross(rp.ra, w.a.force_W) + w.a.torque_W + cross(rp.rb, w.b.force_W) + w.b.torque_W;
      worst_moment = std::max(worst_moment, norm(M) / (F * L));
      EXPECT_LE(norm(M), 1e-13 * F * L);
      // torque_B = A^T torque_W.
      const Vec3d tb = mul_t(rotation(rp.pb), w.b.torque_W);
      EXPECT_LE(norm(tb - w.b.torque_B), 1e-14 * F * L);
      // (B, A) gives B what (A, B) gave it, and A likewise. collide() keeps points and
      // depths to rounding under the swap (box-box recomputes in the other box's frame).
      ASSERT_EQ(s.contacts.count, w.contacts.count);
      const double d_swap = std::max({norm(s.a.force_W - w.b.force_W), norm(s.b.force_W - w.a.force_W),
                                      norm(s.a.torque_W - w.b.torque_W) / L, norm(s.b.torque_W - w.a.torque_W) / L});
      worst_swap = std::max(worst_swap, d_swap / F);
      EXPECT_LE(d_swap, 1e-10 * F) << static_cast<int>(kinds.first) << "-" << static_cast<int>(kinds.second);
      // Per contact: F_n >= 0, friction in the tangent plane, below mu F_n, against the slip.
      for (int i = 0; i < w.contacts.count; ++i) {
        const Vec3d n = w.contacts.contact[i].normal_W;
        EXPECT_GE(w.normal_force[i], 0.0);
        EXPECT_LE(std::fabs(dot(w.friction_W[i], n)), 1e-14 * F);
        EXPECT_LE(norm(w.friction_W[i]), 0.6 * w.normal_force[i] * (1 + 1e-14));
      }
      // A single contact: delta_dot is the rate of the penetration (-distance) along the
      // twists (central differences, h = 1e-6 s: error O(h^2) of the distance's curvature).
      if (w.contacts.count == 1) {
        if (kinds.first == ShapeKind::Capsule && kinds.second == ShapeKind::Cylinder) ++capsule_cylinder_rates;
        auto dist = [&](double h) {
          const Vec3d wa_W = mul(rotation(rp.pa), rp.wa), wb_W = mul(rotation(rp.pb), rp.wb);
          const Quatd pa = normalized(qmul(quat_from_rotvec(h * wa_W), rp.pa));
          const Quatd pb = normalized(qmul(quat_from_rotvec(h * wb_W), rp.pb));
          const BodyKin<double> a = make_body_kin(rp.ra + h * rp.va, pa, rp.va, rp.wa);
          const BodyKin<double> b = make_body_kin(rp.rb + h * rp.vb, pb, rp.vb, rp.wb);
          ContactSet<double> cs;
          collide(rp.sa, shape_pose_W(rp.sa, a), rp.sb, shape_pose_W(rp.sb, b), 0.0, cs);
          return cs.distance;
        };
        const double h = 1e-6, rate = -(dist(h) - dist(-h)) / (2 * h);
        worst_rate = std::max(worst_rate, std::fabs(rate - w.delta_dot[0]));
        EXPECT_NEAR(rate, w.delta_dot[0], 1e-6)
            << static_cast<int>(kinds.first) << "-" << static_cast<int>(kinds.second);
      }
      ++configs;
    }
    EXPECT_EQ(found, 40) << static_cast<int>(kinds.first) << "-" << static_cast<int>(kinds.second);
  }
  std::printf("%d random pairs: swap |dF| / F_n <= %.1e, total moment / (F_n L) <= %.1e, |delta_dot - rate| <= %.1e "
              "(%d capsule-cylinder rates)\n",
              configs, worst_swap, worst_moment, worst_rate, capsule_cylinder_rates);
  EXPECT_GE(capsule_cylinder_rates, 5);
}

TEST(ContactBodies, TwoBodyCollisionConservesMomentum) {
  // A box and a capsule, both spinning, meet obliquely without gravity: e = 0.5, mu = 0.6,
  // rolling resistance. Each stage applies equal and opposite forces, so the linear momentum
  // changes by rounding only (bound: 4 roundings of the momenta a step, N steps). The
  // angular momentum about the origin is conserved by the equations but not exactly by RK4
  // (it is not linear in the state): it changes by the step's error over the contact,
  // (dt/t*)^(5/2) with t* = t_c / 3.22 (as the energy of (e)).
  World<double> w;
  w.g = zero3<double>();
  const double m_a = 2.0, m_b = 1.2, dt = 2e-5;
  w.add(m_a, {m_a * (0.04 + 0.09) / 3, m_a * (0.01 + 0.09) / 3, m_a * (0.01 + 0.04) / 3},
        make_shape(ShapeKind::Box, 0.1, 0.2, 0.3), {{0, 0, 0}, quat_from_rotvec(Vec3d{0.2, 0.4, -0.1}), {0.5, 0.1, 0},
                                                    {1, -2, 0.5}});
  w.add(m_b, {0.02, 0.02, 0.004}, make_shape(ShapeKind::Capsule, 0.08, 0.2),
        {{0.6, 0.15, 0.05}, quat_from_rotvec(Vec3d{1.2, 0.3, 0}), {-1.0, 0, 0.05}, {0, 3, -1}});
  ContactPairParams<double> p = random_pair_params<double>();
  p.normal = normal_law_params(NormalLaw::Tsuji, 1e6, 1.5, 0.5, effective_mass(m_a, m_b), 1.0, 1e-3);
  w.connect(0, 1, p);
  const Vec3d P0 = linear_momentum(w), L0 = angular_momentum(w);
  int steps_in_contact = 0;
  const int steps = 40000;
  double worst_P = 0, worst_L = 0;
  for (int k = 0; k < steps; ++k) {
    rk4_step(w, dt);
    if (pair_wrench(w, w.s, w.pairs[0]).contacts.count > 0) ++steps_in_contact;
    worst_P = std::max(worst_P, norm(linear_momentum(w) - P0));
    worst_L = std::max(worst_L, norm(angular_momentum(w) - L0));
  }
  const Vec3d dv = w.s[1].v - Vec3d{-1.0, 0, 0.05};
  std::printf("two-body collision: %d steps in contact, |dv_B| %.3f m/s; max |dP| %.1e (|P| %.3f), max |dL| %.1e "
              "(|L| %.3f)\n",
              steps_in_contact, norm(dv), worst_P, norm(P0), worst_L, norm(L0));
  ASSERT_GT(steps_in_contact, 10);
  EXPECT_GT(norm(dv), 0.1);  // they did collide
  EXPECT_LE(worst_P, 4.0 * steps * 2.2e-16 * (norm(P0) + m_a * 1.0 + m_b * 1.0));
  const double t_star = steps_in_contact * dt / 3.22;
  EXPECT_LE(worst_L, std::pow(dt / t_star, 2.5) * norm(L0));
}

// ---- (h) float against double ------------------------------------------------------------

TEST(ContactBodies, FloatWrenchAgreesWithDouble) {
  // Random overlapping pairs (depths >= 1 % of the ~0.2 m sizes, coordinates ~1 m). The
  // float geometry's distance is within 2e-5 of the scale (docs/contact.md, Geometry,
  // measured 2.7e-7): with delta >= 2e-3 m, F ~ delta^1.5 moves by 1.5 * 2e-5 / 2e-3 = 1.5 %
  // at most; the friction direction and the lever arms by float rounding of the poses.
  // Bound: 1.5 % of the largest force; the measured agreement is far tighter.
  std::mt19937_64 g(12);
  double worst_F = 0, worst_T = 0;
  int compared = 0;
  for (const auto& kinds : body_pairs()) {
    int found = 0;
    for (int tries = 0; found < 40 && tries < 20000; ++tries) {
      RandomPair rp;
      if (!make_random_pair(kinds.first, kinds.second, g, rp)) continue;
      ++found;
      const ContactPairWrench<double> d = wrench_of<double>(rp, false);
      const ContactPairWrench<float> f = wrench_of<float>(rp, false);
      if (f.contacts.count != d.contacts.count) continue;  // a corner at the clipping boundary
      if (capsule_axis_in_cylinder(rp, d.contacts.distance)) continue;  // the normal may differ at a tie
      double F = 0;
      for (int i = 0; i < d.contacts.count; ++i) F += d.normal_force[i];
      const double L = 1.0 + norm(rp.ra) + norm(rp.rb);
      double dF = 0, dT = 0;
      for (int c = 0; c < 3; ++c) {
        dF = std::max({dF, std::fabs(double(f.a.force_W[c]) - d.a.force_W[c])});
        dT = std::max({dT, std::fabs(double(f.a.torque_B[c]) - d.a.torque_B[c]),
                       std::fabs(double(f.b.torque_B[c]) - d.b.torque_B[c])});
      }
      worst_F = std::max(worst_F, dF / F);
      worst_T = std::max(worst_T, dT / (F * L));
      EXPECT_LE(dF, 0.015 * F) << static_cast<int>(kinds.first) << "-" << static_cast<int>(kinds.second);
      EXPECT_LE(dT, 0.015 * F * L) << static_cast<int>(kinds.first) << "-" << static_cast<int>(kinds.second);
      ++compared;
    }
  }
  std::printf("float vs double, %d random pairs: |dF| / F_n <= %.1e, |dT| / (F_n L) <= %.1e\n", compared, worst_F,
              worst_T);
  EXPECT_GT(compared, 300);
}

TEST(ContactBodies, FloatDropMatchesDouble) {
  // The ball of (a) with e = 0.7 at t_c / 200, both number types through the same code.
  // Float resolves the ball's height (0.01 m) to 9.3e-10 m, 2.2e-5 of delta_max = 4.2e-5 m,
  // and each of the ~200 contact steps rounds the height and the velocity: a random walk
  // of sqrt(200) such errors, ~3e-4 of e. Bound 1e-3.
  const Steel b(0.01);
  const double v_i = 2.0, dt = hertz_duration(b.m, b.K, v_i) / 200;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    World<T> w;
    w.g = {T(0), T(0), T(-kG)};
    w.ground = make_shape<T>(ShapeKind::Plane, T(0));
    const double y0 = 0.37 * dt * v_i;
    w.add(T(b.m), vec_cast<T>(b.J()), make_shape<T>(ShapeKind::Sphere, T(b.R)),
          {{T(0), T(0), T(b.R + y0)}, {T(1), T(0), T(0), T(0)}, {T(0), T(0), T(-std::sqrt(v_i * v_i - 2 * kG * y0))},
           zero3<T>()});
    const auto law = normal_law_params(NormalLaw::Tsuji, b.K, 1.5, 0.7, b.m, v_i, 1e-3);
    w.connect(0, -1, {{law.law, T(law.stiffness), T(law.exponent), T(law.damping), T(law.v_floor)},
                      {T(0), T(1e-3), T(0), T(1e-2)}, T(0)});
    bool in = false;
    for (int k = 0; k < 100000; ++k) {
      rk4_step(w, T(dt));
      const double y = double(w.s[0].r.z) - b.R;
      if (y < 0) in = true;
      else if (in) return std::sqrt(double(w.s[0].v.z) * double(w.s[0].v.z) + 2 * kG * y) / v_i;
    }
    return std::nan("");
  };
  const double e_d = run(0.0), e_f = run(0.0f);
  std::printf("drop e = 0.7: double %.7f, float %.7f (%+.1e)\n", e_d, e_f, e_f - e_d);
  EXPECT_NEAR(e_f, e_d, 1e-3);
  EXPECT_NEAR(e_d, 0.7, 1e-3);
}

}  // namespace
}  // namespace simphant
