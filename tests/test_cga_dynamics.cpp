// CGA recursive dynamics (src/simphant/reduced/cga/, docs/cga-dynamics.md):
//  1. every hand-expanded G(4,1) product against a generic, slow geometric product over
//     all 32 blades (orthonormal basis e1 e2 e3 e+ e-, null blades built from it);
//  2. motors against rotation matrices and translations (points, lines, composition);
//  3. the cheap inertia transform against the paper's 12-sandwich form (eq. 16, 17, 19);
//  4. cga_aba(cga_rnea(qdd)) = qdd on random trees, closed-form pendulum and slider,
//     RNEA against an independent Lagrangian (finite-difference) computation, and both
//     against the spatial-vector RNEA / ABA (rnea.hpp, aba.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/rnea.hpp"

namespace simphant {
namespace {

using namespace cga;

// ---------------------------------------------------------------------------------
// Generic G(4,1): multivectors on the 32 orthonormal blades (bit 0..4 = e1 e2 e3 e+ e-).

struct MV {
  std::array<double, 32> c{};
};
constexpr int kMetric[5] = {1, 1, 1, 1, -1};

int popcount(unsigned x) {
  int n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
}
/// Sign of e_a e_b = sign * e_(a xor b) for orthonormal blades a, b.
double blade_sign(unsigned a, unsigned b) {
  int swaps = 0;
  for (unsigned x = a >> 1; x; x >>= 1) swaps += popcount(x & b);
  double s = (swaps & 1) ? -1.0 : 1.0;
  for (int i = 0; i < 5; ++i)
    if ((a & b) >> i & 1u) s *= kMetric[i];
  return s;
}
MV gp(const MV& a, const MV& b) {
  MV r;
  for (unsigned i = 0; i < 32; ++i)
    if (a.c[i] != 0)
      for (unsigned j = 0; j < 32; ++j)
        if (b.c[j] != 0) r.c[i ^ j] += blade_sign(i, j) * a.c[i] * b.c[j];
  return r;
}
MV outer(const MV& a, const MV& b) {  // valid in an orthonormal basis
  MV r;
  for (unsigned i = 0; i < 32; ++i)
    for (unsigned j = 0; j < 32; ++j)
      if (!(i & j)) r.c[i ^ j] += blade_sign(i, j) * a.c[i] * b.c[j];
  return r;
}
MV operator+(MV a, const MV& b) {
  for (int i = 0; i < 32; ++i) a.c[i] += b.c[i];
  return a;
}
MV operator-(MV a, const MV& b) {
  for (int i = 0; i < 32; ++i) a.c[i] -= b.c[i];
  return a;
}
MV operator*(double s, MV a) {
  for (double& x : a.c) x *= s;
  return a;
}
MV rev(MV a) {
  for (unsigned i = 0; i < 32; ++i) {
    const int g = popcount(i);
    if ((g * (g - 1) / 2) & 1) a.c[i] = -a.c[i];
  }
  return a;
}

/// The null basis: blade mask over (e0, e1, e2, e3, ei) = bits 0..4, blade = ordered
/// outer product; names as in the paper ("23", "1i", "01", "123i", "" for the scalar).
struct NullBasis {
  std::array<MV, 32> blade;                    // each null blade in orthonormal coordinates
  std::array<std::array<double, 32>, 32> inv;  // orthonormal -> null coordinates
  NullBasis() {
    MV gen[5];
    gen[0].c[16] = 0.5;  // e0 = (e- - e+)/2
    gen[0].c[8] = -0.5;
    gen[1].c[1] = 1;
    gen[2].c[2] = 1;
    gen[3].c[4] = 1;
    gen[4].c[16] = 1;  // ei = e- + e+
    gen[4].c[8] = 1;
    double A[32][64] = {};
    for (unsigned m = 0; m < 32; ++m) {
      MV b;
      b.c[0] = 1;
      for (int g = 0; g < 5; ++g)
        if (m >> g & 1u) b = outer(b, gen[g]);
      blade[m] = b;
      for (int r = 0; r < 32; ++r) A[r][m] = b.c[r];
      A[m][32 + m] = 1;
    }
    for (int col = 0; col < 32; ++col) {  // Gauss-Jordan, partial pivoting
      int piv = col;
      for (int r = col + 1; r < 32; ++r)
        if (std::fabs(A[r][col]) > std::fabs(A[piv][col])) piv = r;
      for (int j = 0; j < 64; ++j) std::swap(A[col][j], A[piv][j]);
      const double d = A[col][col];
      for (int j = 0; j < 64; ++j) A[col][j] /= d;
      for (int r = 0; r < 32; ++r)
        if (r != col && A[r][col] != 0) {
          const double f = A[r][col];
          for (int j = 0; j < 64; ++j) A[r][j] -= f * A[col][j];
        }
    }
    for (int r = 0; r < 32; ++r)
      for (int j = 0; j < 32; ++j) inv[r][j] = A[r][32 + j];
  }
  static unsigned mask(const std::string& name) {
    unsigned m = 0;
    for (char ch : name) m |= 1u << (ch == '0' ? 0 : ch == 'i' ? 4 : ch - '0');
    return m;
  }
  MV of(const std::string& name, double v) const { return v * blade[mask(name)]; }
  std::array<double, 32> coords(const MV& x) const {
    std::array<double, 32> n{};
    for (int r = 0; r < 32; ++r)
      for (int j = 0; j < 32; ++j) n[r] += inv[r][j] * x.c[j];
    return n;
  }
};
const NullBasis& nb() {
  static const NullBasis b;
  return b;
}

const char* const kMotorBlades[8] = {"", "23", "13", "12", "1i", "2i", "3i", "123i"};
const char* const kTwistBlades[6] = {"23", "13", "12", "1i", "2i", "3i"};
const char* const kWrenchBlades[6] = {"23", "13", "12", "01", "02", "03"};

std::array<double, 8> arr(const Motor<double>& m) { return {m.s, m.e23, m.e13, m.e12, m.e1i, m.e2i, m.e3i, m.e123i}; }
MV mv(const Motor<double>& m) {
  MV r;
  const auto a = arr(m);
  for (int k = 0; k < 8; ++k) r = r + nb().of(kMotorBlades[k], a[k]);
  return r;
}
MV mv(const Twist<double>& v) {
  MV r;
  for (int k = 0; k < 6; ++k) r = r + nb().of(kTwistBlades[k], v.c[k]);
  return r;
}
MV mv(const Wrench<double>& w) {
  MV r;
  for (int k = 0; k < 6; ++k) r = r + nb().of(kWrenchBlades[k], w.c[k]);
  return r;
}

/// Null coordinates of x equal `expect` on the named blades and vanish elsewhere, except
/// on blades containing ei when `ei_free` (the wrench quotient).
void expect_coords(const MV& x, const std::vector<std::pair<std::string, double>>& expect, double tol,
                   bool ei_free = false) {
  std::array<double, 32> want{};
  std::array<bool, 32> named{};
  for (const auto& e : expect) {
    want[NullBasis::mask(e.first)] = e.second;
    named[NullBasis::mask(e.first)] = true;
  }
  const auto got = nb().coords(x);
  for (unsigned m = 0; m < 32; ++m) {
    if (!named[m] && ei_free && (m & 16u)) continue;
    EXPECT_NEAR(got[m], want[m], tol) << "null blade mask " << m;
  }
}
std::vector<std::pair<std::string, double>> named(const Motor<double>& m) {
  std::vector<std::pair<std::string, double>> r;
  const auto a = arr(m);
  for (int k = 0; k < 8; ++k) r.push_back({kMotorBlades[k], a[k]});
  return r;
}
std::vector<std::pair<std::string, double>> named(const Twist<double>& v) {
  std::vector<std::pair<std::string, double>> r;
  for (int k = 0; k < 6; ++k) r.push_back({kTwistBlades[k], v.c[k]});
  return r;
}
std::vector<std::pair<std::string, double>> named(const Wrench<double>& w) {
  std::vector<std::pair<std::string, double>> r;
  for (int k = 0; k < 6; ++k) r.push_back({kWrenchBlades[k], w.c[k]});
  return r;
}

// ---------------------------------------------------------------------------------
// Random inputs

struct Rng {
  std::mt19937_64 g;
  explicit Rng(unsigned long long seed) : g(seed) {}
  double u(double lo = -1, double hi = 1) { return std::uniform_real_distribution<double>(lo, hi)(g); }
  int i(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); }
  Vec3d v3(double s = 1) { return {s * u(), s * u(), s * u()}; }
  Vec3d unit() {
    Vec3d a = v3();
    while (norm(a) < 0.1) a = v3();
    return (1.0 / norm(a)) * a;
  }
  Motor<double> motor8() { return {u(), u(), u(), u(), u(), u(), u(), u()}; }
  Twist<double> tw() { return {{u(), u(), u(), u(), u(), u()}}; }
  Wrench<double> wr() { return {{u(), u(), u(), u(), u(), u()}}; }
  Mat3d rot() { return rotation(quat_from_rotvec(v3(3.0))); }
  Motor<double> unit_motor() { return motor_from_rt(rot(), v3(2.0)); }
};

Mat3d matmul(const Mat3d& A, const Mat3d& B) {
  Mat3d C{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) C.m[i][j] += A.m[i][k] * B.m[k][j];
  return C;
}
void expect_mat_near(const Mat3d& A, const Mat3d& B, double tol) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(A.m[i][j], B.m[i][j], tol);
}
void expect_vec_near(const Vec3d& a, const Vec3d& b, double tol) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b[i], tol);
}
template <class V>
void expect6_near(const V& a, const V& b, double tol) {
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.c[k], b.c[k], tol) << "component " << k;
}
bool same_motor(const Motor<double>& a, const Motor<double>& b, double tol) {  // up to the sign of the double cover
  const auto x = arr(a), y = arr(b);
  double dp = 0, dm = 0;
  for (int k = 0; k < 8; ++k) {
    dp = std::max(dp, std::fabs(x[k] - y[k]));
    dm = std::max(dm, std::fabs(x[k] + y[k]));
  }
  return std::min(dp, dm) < tol;
}

// ---------------------------------------------------------------------------------
// 1. Hand-expanded products against the generic product

TEST(CgaAlgebra, NullBasisMetric) {
  const MV e0 = nb().of("0", 1), ei = nb().of("i", 1);
  EXPECT_NEAR(gp(e0, e0).c[0], 0.0, 1e-15);
  EXPECT_NEAR(gp(ei, ei).c[0], 0.0, 1e-15);
  EXPECT_NEAR(nb().coords(gp(e0, ei))[0], -1.0, 1e-15);  // e0 . ei = -1
  // The pairing of twist and wrench blades: -(e23 . e23) = -(e1i . e01) = 1.
  EXPECT_NEAR(gp(nb().of("23", 1), nb().of("23", 1)).c[0], -1.0, 1e-15);
  EXPECT_NEAR(nb().coords(gp(nb().of("1i", 1), nb().of("01", 1)))[0], -1.0, 1e-15);
}

TEST(CgaAlgebra, MotorProductAndReverse) {
  Rng rng(1);
  for (int t = 0; t < 50; ++t) {
    const Motor<double> m = rng.motor8(), n = rng.motor8();  // any 8-component elements: bilinear
    expect_coords(gp(mv(m), mv(n)), named(m * n), 1e-12);
    expect_coords(rev(mv(m)), named(reverse(m)), 1e-15);
    const Motor<double> r{n.s, n.e23, n.e13, n.e12, 0, 0, 0, 0};  // a rotor-only element
    expect_coords(gp(mv(m), mv(r)), named(mul_rotor(m, r)), 1e-12);
  }
}

TEST(CgaAlgebra, SandwichOnTwistsAndWrenches) {
  Rng rng(2);
  for (int t = 0; t < 50; ++t) {
    const Motor<double> M = rng.unit_motor();
    const MV Mm = mv(M), Mr = rev(mv(M));
    expect_coords(gp(Mm, Mr), named(motor_identity<double>()), 1e-12);  // unit motor
    const Twist<double> V = rng.tw();
    const Wrench<double> W = rng.wr();
    expect_coords(gp(gp(Mm, mv(V)), Mr), named(sandwich(M, V)), 1e-12);
    expect_coords(gp(gp(Mm, mv(W)), Mr), named(sandwich(M, W)), 1e-12, /*ei_free=*/true);
    // The 6x6 action gives the same maps, and its inverse is the reverse motor's.
    const MotorAction<double> X = motor_action(M);
    expect6_near(apply(X, V), sandwich(M, V), 1e-12);
    expect6_near(apply(X, W), sandwich(M, W), 1e-12);
    expect6_near(apply_inverse(X, V), sandwich(reverse(M), V), 1e-12);
    expect6_near(apply_inverse(X, W), sandwich(reverse(M), W), 1e-12);
  }
}

TEST(CgaAlgebra, CommutatorsAndPower) {
  Rng rng(3);
  for (int t = 0; t < 50; ++t) {
    const Twist<double> V = rng.tw(), U = rng.tw();
    const Wrench<double> W = rng.wr();
    expect_coords(0.5 * (gp(mv(V), mv(U)) - gp(mv(U), mv(V))), named(commutator(V, U)), 1e-12);
    expect_coords(0.5 * (gp(mv(V), mv(W)) - gp(mv(W), mv(V))), named(commutator(V, W)), 1e-12, true);
    EXPECT_NEAR(-nb().coords(gp(mv(V), mv(W)))[0], power(V, W), 1e-12);  // eq. 9
  }
}

TEST(CgaAlgebra, ExpOfTwistMatchesSeries) {
  Rng rng(4);
  for (int t = 0; t < 40; ++t) {
    Twist<double> V = rng.tw();
    const double s = t < 10 ? 1e-7 : (t < 20 ? 1e-3 : 2.5);  // tiny, small and large rotations
    for (int k = 0; k < 3; ++k) V.c[k] *= s;
    if (t == 0) V.c[0] = V.c[1] = V.c[2] = 0;  // a pure translation
    const MV B = -0.5 * mv(V);
    MV sum, term;
    term.c[0] = 1;
    for (int k = 1; k < 60; ++k) {
      sum = sum + term;
      term = (1.0 / k) * gp(term, B);
    }
    expect_coords(sum, named(motor_exp(V)), 1e-12);
  }
}

TEST(CgaAlgebra, JointMotorIsExpOfScrew) {
  Rng rng(5);
  for (int t = 0; t < 20; ++t) {
    const Vec3d a = rng.unit();
    const double q = rng.u(-4, 4);
    for (bool revolute : {true, false}) {
      const Motor<double> M = joint_motor(revolute, a, q);
      EXPECT_TRUE(same_motor(M, motor_exp(q * joint_screw(revolute, a)), 1e-14));
    }
  }
}

// ---------------------------------------------------------------------------------
// 2. Motors against rotation matrices and translations

TEST(CgaMotor, PointsAndLinesMoveAsRxPlusP) {
  Rng rng(6);
  for (int t = 0; t < 30; ++t) {
    const Mat3d A = rng.rot();
    const Vec3d p = rng.v3(2), x = rng.v3(3), d = rng.unit();
    const Motor<double> M = motor_from_rt(A, p);
    expect_mat_near(motor_rotation(M), A, 1e-14);
    expect_vec_near(motor_translation(M), p, 1e-14);
    const Vec3d y = mul(A, x) + p;
    expect_vec_near(motor_apply_point(M, x), y, 1e-13);
    // The conformal point X = e0 + x + x^2/2 ei, moved by the generic sandwich.
    const MV X = nb().of("0", 1) + nb().of("1", x.x) + nb().of("2", x.y) + nb().of("3", x.z) +
                 nb().of("i", 0.5 * dot(x, x));
    expect_coords(gp(gp(mv(M), X), rev(mv(M))),
                  {{"0", 1}, {"1", y.x}, {"2", y.y}, {"3", y.z}, {"i", 0.5 * dot(y, y)}}, 1e-12);
    // A line through x along d as its Plücker twist (d, x x d) moves to (A d, y x A d).
    const Vec3d Ad = mul(A, d);
    expect6_near(sandwich(M, twist(d, cross(x, d))), twist(Ad, cross(y, Ad)), 1e-13);
  }
}

TEST(CgaMotor, JointMotorsMatchTheModelFrames) {
  Rng rng(7);
  for (int t = 0; t < 20; ++t) {
    const Vec3d a = rng.unit(), x = rng.v3();
    const double q = rng.u(-3, 3);
    const Mat3d Rq = rotation(quat_from_rotvec(q * a));  // right-handed rotation by q about a
    expect_vec_near(motor_apply_point(joint_motor(true, a, q), x), mul(Rq, x), 1e-14);
    expect_vec_near(motor_apply_point(joint_motor(false, a, q), x), x + q * a, 1e-14);
  }
}

TEST(CgaMotor, CompositionIsAssociativeAndMatchesMatrices) {
  Rng rng(8);
  for (int t = 0; t < 30; ++t) {
    const Mat3d A1 = rng.rot(), A2 = rng.rot(), A3 = rng.rot();
    const Vec3d p1 = rng.v3(), p2 = rng.v3(), p3 = rng.v3();
    const Motor<double> M1 = motor_from_rt(A1, p1), M2 = motor_from_rt(A2, p2), M3 = motor_from_rt(A3, p3);
    const auto l = arr((M1 * M2) * M3), r = arr(M1 * (M2 * M3));
    for (int k = 0; k < 8; ++k) EXPECT_NEAR(l[k], r[k], 1e-14);
    const Motor<double> M12 = M1 * M2;  // apply M2 first: x -> A1 (A2 x + p2) + p1
    expect_mat_near(motor_rotation(M12), matmul(A1, A2), 1e-14);
    expect_vec_near(motor_translation(M12), mul(A1, p2) + p1, 1e-14);
    const Twist<double> V = rng.tw();
    expect6_near(sandwich(M12, V), sandwich(M1, sandwich(M2, V)), 1e-13);
  }
}

// ---------------------------------------------------------------------------------
// 3. The inertia tensor

Mat3d random_spd(Rng& rng) {
  const Mat3d Q = rng.rot();
  const double d0 = rng.u(0.05, 1), d1 = rng.u(0.05, 1), d2 = rng.u(std::fabs(d0 - d1) + 0.01, d0 + d1);
  Mat3d I{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) I.m[i][j] = Q.m[i][0] * d0 * Q.m[j][0] + Q.m[i][1] * d1 * Q.m[j][1] + Q.m[i][2] * d2 * Q.m[j][2];
  return I;
}
Inertia<double> random_inertia6(Rng& rng) {  // any symmetric 6x6 (articulated inertias are general)
  Inertia<double> I;
  for (int i = 0; i < 6; ++i)
    for (int j = i; j < 6; ++j) I.el[i].c[j] = I.el[j].c[i] = rng.u();
  return I;
}
void expect_inertia_near(const Inertia<double>& A, const Inertia<double>& B, double tol) {
  for (int k = 0; k < 6; ++k) expect6_near(A.el[k], B.el[k], tol);
}

TEST(CgaInertia, CheapTransformEqualsTwelveSandwiches) {
  Rng rng(9);
  for (int t = 0; t < 30; ++t) {
    const Motor<double> M = rng.unit_motor();
    const Inertia<double> I = random_inertia6(rng);
    const Inertia<double> fast = transform(motor_action(M), I), ref = transform_sandwich(M, I);
    expect_inertia_near(fast, ref, 1e-12);
    // Equivariance, eq. 17: M I[V] ~M = (M * I)[M V ~M].
    const Twist<double> V = rng.tw();
    expect6_near(sandwich(M, apply(I, V)), apply(fast, sandwich(M, V)), 1e-12);
  }
}

TEST(CgaInertia, BodyInertiaIsEq19AndMatchesSpatial) {
  Rng rng(10);
  for (int t = 0; t < 20; ++t) {
    const double m = rng.u(0.5, 5);
    const Vec3d c = rng.v3(0.5);
    const Mat3d Ic = random_spd(rng);
    const Inertia<double> I = body_inertia(m, c, Ic);
    expect_inertia_near(I, transform_sandwich(translator(c), inertia_at_com(m, Ic)), 1e-13);
    // The same momentum as the spatial inertia (Featherstone eq. 2.63) in the coordinates
    // of motor.hpp's file comment.
    const RigidInertia<double> Is = rigid_inertia(m, c, Ic);
    const Vec3d w = rng.v3(), v = rng.v3();
    const SpatialForce<double> h = mul(Is, SpatialMotion<double>{w, v});
    expect6_near(apply(I, twist(w, v)), wrench(h.ang, h.lin), 1e-13);
    // Kinetic energy 1/2 <V, I[V]> > 0.
    EXPECT_GT(power(twist(w, v), apply(I, twist(w, v))), 0.0);
  }
}

// ---------------------------------------------------------------------------------
// 4. Dynamics

using Links = std::vector<ReducedLinkParams<double>>;

/// A random tree: random parents, oblique axes, about one prismatic joint in four.
Links random_tree(Rng& rng, int n) {
  Links L(n);
  for (int k = 0; k < n; ++k) {
    ReducedLinkParams<double>& l = L[k];
    l.parent = k == 0 ? -1 : rng.i(-1, k - 1);
    l.type = rng.u(0, 1) < 0.25 ? 1 : 0;
    l.R_parent_joint = rng.rot();
    l.p_parent_joint = rng.v3(0.5);
    l.axis = rng.unit();
    l.mass = rng.u(0.5, 5);
    l.com = rng.v3(0.3);
    l.inertia_com = random_spd(rng);
  }
  return L;
}
struct State {
  std::vector<double> q, qd, qdd, tau;
};
State random_state(Rng& rng, int n) {
  State s{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
  for (int k = 0; k < n; ++k) {
    s.q[k] = rng.u(-3, 3);
    s.qd[k] = rng.u(-2, 2);
    s.qdd[k] = rng.u(-5, 5);
    s.tau[k] = rng.u(-10, 10);
  }
  return s;
}
double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::fabs(v));
  return m;
}
const Vec3d kGravity{0.3, -1.2, -9.81};  // oblique on purpose

TEST(CgaDynamics, AbaInvertsRneaOnRandomTrees) {
  Rng rng(11);
  static CgaWorkspace<double> ws;
  for (int n : {1, 2, 7, 20}) {
    for (int t = 0; t < 10; ++t) {
      const Links L = random_tree(rng, n);
      std::vector<CgaLink<double>> C(n);
      for (int k = 0; k < n; ++k) C[k] = cga_link(L[k]);
      const State s = random_state(rng, n);
      std::vector<double> tau(n), qdd(n, NAN), tau2(n), qdd2(n, NAN);
      cga_rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), tau.data(), ws);
      cga_aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), tau.data(), qdd.data(), ws);
      cga_rnea(n, C.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), tau2.data(), ws);
      cga_aba(n, C.data(), kGravity, s.q.data(), s.qd.data(), tau.data(), qdd2.data(), ws);
      for (int k = 0; k < n; ++k) {
        EXPECT_NEAR(qdd[k], s.qdd[k], 1e-10) << "n " << n << " link " << k;
        EXPECT_NEAR(qdd2[k], qdd[k], 1e-12 * std::max(1.0, max_abs(qdd)));
        EXPECT_NEAR(tau2[k], tau[k], 1e-12 * std::max(1.0, max_abs(tau)));
      }
    }
  }
}

/// A rod of mass m, CoM at (l, 0, 0) of the link, about a z-axis hinge at the origin;
/// gravity -g along y: (Izz + m l^2) qdd = tau - m g l cos q.
TEST(CgaDynamics, ClosedFormPendulumAndSlider) {
  static CgaWorkspace<double> ws;
  const double m = 1.7, l = 0.6, g = 9.81, Izz = 0.05;
  ReducedLinkParams<double> p{};
  p.parent = -1;
  p.type = 0;
  p.R_parent_joint = identity3<double>();
  p.p_parent_joint = {0.2, -0.1, 0.4};
  p.axis = {0, 0, 1};
  p.mass = m;
  p.com = {l, 0, 0};
  p.inertia_com = {{{0.002, 0, 0}, {0, 0.05, 0}, {0, 0, Izz}}};
  for (double q : {-2.0, -0.3, 0.0, 0.7, 2.9}) {
    const double qd = 1.3, tau = 0.8, qdd_ref = (tau - m * g * l * std::cos(q)) / (Izz + m * l * l);
    double qdd = NAN, tau_back = NAN;
    cga_aba(1, &p, Vec3d{0, -g, 0}, &q, &qd, &tau, &qdd, ws);
    EXPECT_NEAR(qdd, qdd_ref, 1e-13);
    cga_rnea(1, &p, Vec3d{0, -g, 0}, &q, &qd, &qdd_ref, &tau_back, ws);
    EXPECT_NEAR(tau_back, tau, 1e-13);
  }
  // A prismatic slider along the link z axis under gravity -g z: qdd = tau / m - g.
  p.type = 1;
  const double q = 0.4, qd = -0.7, tau = 3.0;
  double qdd = NAN;
  cga_aba(1, &p, Vec3d{0, 0, -g}, &q, &qd, &tau, &qdd, ws);
  EXPECT_NEAR(qdd, tau / m - g, 1e-13);
}

// Independent check of the inverse dynamics: Lagrange's equations with the mass matrix
// from world-frame geometric Jacobians (rotation matrices only, no spatial or CGA
// algebra) and its derivatives by central differences:
//   tau = M qdd + (dM/dt) qd - 1/2 qd^T (dM/dq) qd + dV/dq.
struct Lagrange {
  const Links& L;
  int n;
  void fk(const std::vector<double>& q, std::vector<Mat3d>& R, std::vector<Vec3d>& o) const {
    R.resize(n);
    o.resize(n);
    for (int k = 0; k < n; ++k) {
      const ReducedLinkParams<double>& l = L[k];
      Mat3d Rl = l.R_parent_joint;
      Vec3d ol = l.p_parent_joint;
      if (l.type == 0) Rl = matmul(Rl, rotation(quat_from_rotvec(q[k] * l.axis)));
      else ol = ol + q[k] * mul(l.R_parent_joint, l.axis);
      if (l.parent < 0) {
        R[k] = Rl;
        o[k] = ol;
      } else {
        R[k] = matmul(R[l.parent], Rl);
        o[k] = o[l.parent] + mul(R[l.parent], ol);
      }
    }
  }
  /// Mass matrix (row-major n x n) and the gravity torque dV/dq.
  void mass(const std::vector<double>& q, std::vector<double>& M, std::vector<double>* dV, const Vec3d& g) const {
    std::vector<Mat3d> R;
    std::vector<Vec3d> o;
    fk(q, R, o);
    M.assign(n * n, 0.0);
    if (dV) dV->assign(n, 0.0);
    for (int k = 0; k < n; ++k) {
      const Vec3d x = o[k] + mul(R[k], L[k].com);
      std::vector<Vec3d> Jv(n, zero3<double>()), Jw(n, zero3<double>());
      for (int j = k; j >= 0; j = L[j].parent) {
        const Vec3d z = mul(R[j], L[j].axis);
        if (L[j].type == 0) {
          Jw[j] = z;
          Jv[j] = cross(z, x - o[j]);
        } else {
          Jv[j] = z;
        }
      }
      const Mat3d Iw = matmul(matmul(R[k], L[k].inertia_com), [&] {
        Mat3d Rt;
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) Rt.m[a][b] = R[k].m[b][a];
        return Rt;
      }());
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) M[i * n + j] += L[k].mass * dot(Jv[i], Jv[j]) + dot(Jw[i], mul(Iw, Jw[j]));
      if (dV)
        for (int j = 0; j < n; ++j) (*dV)[j] -= L[k].mass * dot(g, Jv[j]);
    }
  }
  std::vector<double> tau(const State& s, const Vec3d& g) const {
    const double h = 1e-6;
    std::vector<double> M, Mp, Mm, dV, tau(n, 0.0);
    mass(s.q, M, &dV, g);
    std::vector<double> qp = s.q, qm = s.q;
    for (int k = 0; k < n; ++k) {
      qp[k] += h * s.qd[k];
      qm[k] -= h * s.qd[k];
    }
    mass(qp, Mp, nullptr, g);
    mass(qm, Mm, nullptr, g);
    for (int i = 0; i < n; ++i) {
      tau[i] = dV[i];
      for (int j = 0; j < n; ++j) tau[i] += M[i * n + j] * s.qdd[j] + (Mp[i * n + j] - Mm[i * n + j]) / (2 * h) * s.qd[j];
    }
    for (int k = 0; k < n; ++k) {  // - 1/2 qd^T dM/dq_k qd
      std::vector<double> a = s.q, b = s.q;
      a[k] += h;
      b[k] -= h;
      mass(a, Mp, nullptr, g);
      mass(b, Mm, nullptr, g);
      double e = 0;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) e += s.qd[i] * (Mp[i * n + j] - Mm[i * n + j]) / (2 * h) * s.qd[j];
      tau[k] -= 0.5 * e;
    }
    return tau;
  }
};

TEST(CgaDynamics, RneaMatchesLagrangeEquations) {
  Rng rng(12);
  static CgaWorkspace<double> ws;
  for (int n : {1, 2, 7}) {
    for (int t = 0; t < 5; ++t) {
      const Links L = random_tree(rng, n);
      const State s = random_state(rng, n);
      std::vector<double> tau(n);
      cga_rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), tau.data(), ws);
      const std::vector<double> ref = Lagrange{L, n}.tau(s, kGravity);
      for (int k = 0; k < n; ++k) EXPECT_NEAR(tau[k], ref[k], 1e-6 * std::max(1.0, max_abs(ref))) << "n " << n;
    }
  }
}

TEST(CgaDynamics, MatchesSpatialVectorAlgorithms) {
  Rng rng(13);
  static CgaWorkspace<double> ws;
  static RneaWorkspace<double> rws;
  static AbaWorkspace<double> aws;
  for (int n : {1, 2, 7, 20, 64}) {
    for (int t = 0; t < 10; ++t) {
      const Links L = random_tree(rng, n);
      const State s = random_state(rng, n);
      std::vector<double> tc(n), ts(n), ac(n, NAN), as(n, NAN);
      cga_rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), tc.data(), ws);
      rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), ts.data(), rws);
      cga_aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), ac.data(), ws);
      aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), as.data(), aws);
      const double st = max_abs(ts), sa = max_abs(as);
      for (int k = 0; k < n; ++k) {
        EXPECT_NEAR(tc[k], ts[k], 1e-12 * st) << "n " << n << " link " << k;
        EXPECT_NEAR(ac[k], as[k], 1e-12 * sa) << "n " << n << " link " << k;
      }
      // The link twists agree too, in the coordinates of motor.hpp.
      for (int k = 0; k < n; ++k) expect6_near(ws.v[k], twist(rws.v[k].ang, rws.v[k].lin), 1e-12 * 100);
    }
  }
}

TEST(CgaDynamics, FloatInstantiation) {
  Rng rng(14);
  const int n = 7;
  const Links L = random_tree(rng, n);
  const State s = random_state(rng, n);
  std::vector<ReducedLinkParams<float>> Lf(n);
  for (int k = 0; k < n; ++k) {
    const ReducedLinkParams<double>& l = L[k];
    Lf[k] = {l.parent, l.type, cast33<float>(l.R_parent_joint), cast3<float>(l.p_parent_joint), cast3<float>(l.axis),
             float(l.mass), cast3<float>(l.com), cast33<float>(l.inertia_com), float(l.armature)};
  }
  std::vector<float> q(s.q.begin(), s.q.end()), qd(s.qd.begin(), s.qd.end()), tau(s.tau.begin(), s.tau.end());
  std::vector<float> qdd(n);
  std::vector<double> qdd_d(n);
  static CgaWorkspace<float> wsf;
  static CgaWorkspace<double> ws;
  cga_aba(n, Lf.data(), cast3<float>(kGravity), q.data(), qd.data(), tau.data(), qdd.data(), wsf);
  cga_aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), qdd_d.data(), ws);
  for (int k = 0; k < n; ++k) EXPECT_NEAR(qdd[k], qdd_d[k], 2e-3 * std::max(1.0, max_abs(qdd_d)));
}

TEST(CgaDynamics, SmallCapacityWorkspacesGiveIdenticalResults) {
  // The capacity parameter only sizes the arrays: a 7-link workspace (what a GPU thread
  // uses for a 7-joint arm) runs the same arithmetic as the 64-link default, so the
  // results are bit-identical.
  Rng rng(15);
  const int n = 7;
  static CgaWorkspace<double> ws;
  static CgaWorkspace<double, 7> ws7;
  static AbaWorkspace<double> aws;
  static AbaWorkspace<double, 7> aws7;
  static_assert(CgaWorkspace<double, 7>::kCapacity == 7 && AbaWorkspace<double, 7>::kCapacity == 7, "capacity");
  static_assert(sizeof(AbaWorkspace<double, 7>) < sizeof(AbaWorkspace<double>) / 8, "small workspace");
  for (int t = 0; t < 5; ++t) {
    const Links L = random_tree(rng, n);
    const State s = random_state(rng, n);
    std::vector<double> a(n), b(n), c(n), d(n), e(n), f(n);
    cga_aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), a.data(), ws);
    cga_aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), b.data(), ws7);
    aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), c.data(), aws);
    aba(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.tau.data(), d.data(), aws7);
    cga_rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), e.data(), ws);
    cga_rnea(n, L.data(), kGravity, s.q.data(), s.qd.data(), s.qdd.data(), f.data(), ws7);
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(a[k], b[k]);
      EXPECT_EQ(c[k], d[k]);
      EXPECT_EQ(e[k], f[k]);
    }
  }
}

}  // namespace
}  // namespace simphant
