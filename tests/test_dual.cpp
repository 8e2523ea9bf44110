// The dual-number type Dual<T, P> (math/dual.hpp) and forward sensitivities through the
// existing per-thread functions, instantiated with T = Dual (no second copy of the
// dynamics):
//  - every operation and function against its analytic derivative and against
//    Richardson-extrapolated central differences, the value part bit-identical to the
//    double expression; the same expressions with T = Dual<Lanes<double, 2>, 2> per lane
//    and with T = Dual<float, 1>; comparisons (bool on values), lane_select, lane_any,
//    lane_isfinite, the plain-data properties;
//  - the articulated-body algorithm (aba, aba_floating, and the CGA form cga_aba on links
//    from cga_link), CRBA and RNEA on a seeded random 7-link tree with P = 1, 2, 4
//    tangents seeded on joint positions, link masses and joint-frame origins: tangents
//    against central differences of the double functions, values bit-identical to the
//    double instantiation;
//  - a joint's constraint rows (joint_eval): d(Phi)/d(position, rotation) against the
//    analytic Phi_q, all six joint types;
//  - 0.5 s of RK4 (the backends' reduced_fixed_step, kernels/reduced_step.hpp) of a
//    fixed-base 2-link robot with a servo, damping and smoothed friction, seeded on a link
//    mass and a servo gain, through robot_derivative's spatial and CGA forms: the final
//    state's tangents against central differences of two double runs, the values
//    bit-identical to the double run.
// A timing of aba<Dual<double, P>> against aba<double> (P = 1, 4, 8) is printed, not
// asserted (this file compiles at -O1 in Release builds: tests/CMakeLists.txt).
//
// Tolerances (fp64, eps = 2.2e-16):
//  - analytic derivatives: the tangent is the same formula evaluated in a different
//    order, a few eps of the derivative's size: 1e-14 relative (to max(|g|, 1)).
//  - unit tests vs differences: central differences D(h) with h = 1e-3, extrapolated
//    (4 D(h/2) - D(h)) / 3: truncation O(h^4) ~ 1e-12 |f^(5)|, rounding ~ eps |f| / h ~
//    1e-13; the functions are evaluated where their derivatives are O(1): 1e-10 relative.
//  - dynamics vs differences: plain central differences with h = 1e-5 on O(1) parameters
//    (rad, m, kg): truncation h^2 |f'''| / 6 ~ 1e-10, rounding eps |qdd| / h ~ 1e-10 for
//    accelerations of O(10). The error of one parameter is max |tangent - difference| over
//    the outputs relative to max(max |difference|, 1) (a derivative that is structurally
//    zero, e.g. along a prismatic root joint, leaves only the differences' rounding).
//    Bounds: 1e-8 for one call of a tree algorithm (measured worst 5.3e-10 on x86-64, GCC
//    12), 1e-6 for the 500-step RK4 trajectory (measured 6.5e-9; relative to
//    max |difference| alone). The measured values are printed.
//  - joint rows: the tangents of Phi and the analytic Phi_q are two exact formulas of O(1)
//    quantities: 1e-12 absolute.
//  - Lanes: each lane of a Dual of lanes equals the Dual<double> of that lane bit for bit
//    except through sin / cos, which the lanes compute with their own polynomial (1 ulp):
//    1e-15 relative for the unit tests, 1e-12 relative for the ABA (cond(M) amplifies).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>
#include <vector>

#include "reduced_step.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/dual.hpp"
#include "simphant/math/lanes.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/crba.hpp"
#include "simphant/reduced/lane_math.hpp"
#include "simphant/reduced/rnea.hpp"
#include "simphant/reduced/robot_dynamics.hpp"
#include "simphant/simd/reduced_lane_math.hpp"
#include "body_side.hpp"
#include "test_support.hpp"

namespace simphant {
namespace {

using D2 = Dual<double, 2>;
using L2 = Lanes<double, 2>;
using DL = Dual<L2, 2>;
using F1 = Dual<float, 1>;

bool same_bits(double a, double b) {
  std::uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

// ---- plain-data properties, seeding, comparisons ------------------------------------

static_assert(std::is_trivially_copyable_v<D2> && std::is_trivially_default_constructible_v<D2> &&
                  std::is_standard_layout_v<D2>,
              "Dual is plain data");
static_assert(sizeof(Dual<double, 4>) == 5 * sizeof(double), "value and tangents, nothing else");
static_assert(std::is_same_v<lane_scalar_t<D2>, double> && std::is_same_v<lane_scalar_t<DL>, double> &&
                  std::is_same_v<lane_scalar_t<F1>, float>,
              "the scalar of a Dual is its value type's");
static_assert(std::is_same_v<decltype(D2() < D2()), bool> && std::is_same_v<decltype(D2() == 1.0), bool> &&
                  std::is_same_v<decltype(2 >= D2()), bool>,
              "comparisons of a scalar Dual give bool");
static_assert(std::is_same_v<decltype(DL() < DL()), LaneMask<double, 2>>, "comparisons of lanes give a mask");

TEST(Dual, ConstantsAndSeeds) {
  const D2 c = 2.5;
  EXPECT_EQ(c.v, 2.5);
  EXPECT_EQ(c.d[0], 0.0);
  EXPECT_EQ(c.d[1], 0.0);
  const D2 x = D2::variable(0.7, 1);
  EXPECT_EQ(x.v, 0.7);
  EXPECT_EQ(x.d[0], 0.0);
  EXPECT_EQ(x.d[1], 1.0);
  EXPECT_EQ(ad::value(x), 0.7);
  EXPECT_EQ(ad::value(0.25), 0.25);
  const D2 i = 3;  // integers convert
  EXPECT_EQ(i.v, 3.0);
}

TEST(Dual, ComparisonsAreOnValues) {
  D2 a = D2::variable(1.0, 0), b = D2::variable(1.0, 1);
  b.d[1] = 5.0;
  EXPECT_TRUE(a == b);  // equal values, different tangents
  EXPECT_FALSE(a != b);
  EXPECT_TRUE(a <= b && a >= b && !(a < b) && !(a > b));
  const D2 c = D2::variable(2.0, 0);
  EXPECT_TRUE(a < c && c > a && a <= c && c >= a && a != c);
  EXPECT_TRUE(a < 1.5 && 1.5 > a && a <= 1 && 1 >= a && a == 1.0 && 1.0 == a && a != 2 && 2.0 != a);
  EXPECT_FALSE(a > 1.5 || 1.5 < a);
  EXPECT_TRUE(lane_any(c > 0.0));
  EXPECT_FALSE(lane_any(c < 0.0));
  EXPECT_TRUE(lane_all(c > a));
  // Branches take the value's side; the selected operand brings its tangents.
  const D2 s = lane_select(a < c, a, c);
  EXPECT_EQ(s.v, 1.0);
  EXPECT_EQ(s.d[0], 1.0);
  EXPECT_EQ(s.d[1], 0.0);
  // Standard algorithms that only compare work unchanged.
  EXPECT_EQ(std::max(a, c).v, 2.0);
  EXPECT_EQ(std::min(c, a).v, 1.0);
}

TEST(Dual, FinitenessCoversTangents) {
  D2 x = D2::variable(0.7, 0);
  EXPECT_TRUE(lane_isfinite(x));
  EXPECT_TRUE(isfinite(x));
  x.d[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(lane_isfinite(x));
  EXPECT_FALSE(isfinite(x));
  x.d[1] = 0.0;
  x.v = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(lane_isfinite(x));
  // sqrt at 0: an infinite derivative (0 * inf = NaN tangents), documented, and caught.
  EXPECT_FALSE(lane_isfinite(sqrt(D2::variable(0.0, 0))));
}

// ---- every operation and function --------------------------------------------------

template <class T>
T compound(T a, const T& b, int op) {
  switch (op) {
    case 0: a += b; break;
    case 1: a -= b; break;
    case 2: a *= b; break;
    default: a /= b; break;
  }
  return a;
}
template <class T>
T compound_scalar(T a, int op) {
  switch (op) {
    case 0: a += 2.5; break;
    case 1: a -= 2.5; break;
    case 2: a *= 2.5; break;
    default: a /= 2.5; break;
  }
  return a;
}
template <class T>
T sin_part(const T& x) {
  T s, c;
  lane_sincos(x, s, c);
  return s;
}
template <class T>
T cos_part(const T& x) {
  T s, c;
  lane_sincos(x, s, c);
  return c;
}

/// f(x, y) written once, instantiated with double, D2 and DL, with its analytic partial
/// derivatives (NaN: none given) at the point (x0, y0).
struct Case {
  const char* name;
  double x0, y0;
  double (*f)(double, double);
  D2 (*fd)(D2, D2);
  DL (*fl)(DL, DL);
  void (*grad)(double, double, double&, double&);
};

// The standard functions for double, the Dual ones by argument-dependent lookup (the
// pattern that lets generic code call sqrt(x) for any number type).
#define SP_USING_STD                                                                                      \
  using std::sqrt; using std::sin; using std::cos; using std::tan; using std::asin; using std::acos;     \
  using std::atan; using std::atan2; using std::exp; using std::log; using std::pow; using std::fabs;    \
  using std::abs; using std::fmin; using std::fmax; using std::tanh; using std::hypot;                   \
  using std::copysign; using std::floor; using std::ceil;
#define SP_CASE(label, X0, Y0, expr, gx, gy)                                                       \
  Case {                                                                                           \
    label, X0, Y0, [](double x, double y) -> double { SP_USING_STD return expr; },                  \
        [](D2 x, D2 y) -> D2 { SP_USING_STD return expr; }, [](DL x, DL y) -> DL { SP_USING_STD return expr; }, \
        [](double x, double y, double& dx, double& dy) {                                           \
          SP_USING_STD dx = gx;                                                                    \
          dy = gy;                                                                                 \
          (void)x;                                                                                 \
          (void)y;                                                                                 \
        }                                                                                          \
  }

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::vector<Case> cases() {
  const double X = 0.7, Y = -1.3;
  return {
      SP_CASE("x + y", X, Y, x + y, 1.0, 1.0),
      SP_CASE("x - y", X, Y, x - y, 1.0, -1.0),
      SP_CASE("x * y", X, Y, x * y, y, x),
      SP_CASE("x / y", X, Y, x / y, 1.0 / y, -x / (y * y)),
      SP_CASE("-x", X, Y, -x, -1.0, 0.0),
      SP_CASE("+y", X, Y, +y, 0.0, 1.0),
      SP_CASE("x + 2.5", X, Y, x + 2.5, 1.0, 0.0),
      SP_CASE("2.5 + y", X, Y, 2.5 + y, 0.0, 1.0),
      SP_CASE("x - 2.5", X, Y, x - 2.5, 1.0, 0.0),
      SP_CASE("2.5 - y", X, Y, 2.5 - y, 0.0, -1.0),
      SP_CASE("x * 2.5", X, Y, x * 2.5, 2.5, 0.0),
      SP_CASE("2.5 * y", X, Y, 2.5 * y, 0.0, 2.5),
      SP_CASE("x * 3", X, Y, x * 3, 3.0, 0.0),
      SP_CASE("x / 2.5", X, Y, x / 2.5, 1.0 / 2.5, 0.0),
      SP_CASE("2.5 / y", X, Y, 2.5 / y, 0.0, -2.5 / (y * y)),
      SP_CASE("a += y", X, Y, compound(x, y, 0), 1.0, 1.0),
      SP_CASE("a -= y", X, Y, compound(x, y, 1), 1.0, -1.0),
      SP_CASE("a *= y", X, Y, compound(x, y, 2), y, x),
      SP_CASE("a /= y", X, Y, compound(x, y, 3), 1.0 / y, -x / (y * y)),
      SP_CASE("a += 2.5", X, Y, compound_scalar(x, 0), 1.0, 0.0),
      SP_CASE("a -= 2.5", X, Y, compound_scalar(x, 1), 1.0, 0.0),
      SP_CASE("a *= 2.5", X, Y, compound_scalar(y, 2), 0.0, 2.5),
      SP_CASE("a /= 2.5", X, Y, compound_scalar(y, 3), 0.0, 1.0 / 2.5),
      SP_CASE("sqrt", X, Y, sqrt(x), 0.5 / sqrt(x), 0.0),
      SP_CASE("lane_sqrt", X, Y, lane_sqrt(x * x + y * y), x / sqrt(x * x + y * y), y / sqrt(x * x + y * y)),
      SP_CASE("sin", X, Y, sin(x * y), y * cos(x * y), x * cos(x * y)),
      SP_CASE("cos", X, Y, cos(x * y), -y * sin(x * y), -x * sin(x * y)),
      SP_CASE("lane_sincos s", X, Y, sin_part(x * y), y * cos(x * y), x * cos(x * y)),
      SP_CASE("lane_sincos c", X, Y, cos_part(x * y), -y * sin(x * y), -x * sin(x * y)),
      SP_CASE("tan", X, Y, tan(x), 1.0 / (cos(x) * cos(x)), 0.0),
      SP_CASE("asin", X, Y, asin(x), 1.0 / sqrt(1.0 - x * x), 0.0),
      SP_CASE("acos", X, Y, acos(x), -1.0 / sqrt(1.0 - x * x), 0.0),
      SP_CASE("atan", X, Y, atan(y), 0.0, 1.0 / (1.0 + y * y)),
      SP_CASE("atan2", X, Y, atan2(y, x), -y / (x * x + y * y), x / (x * x + y * y)),
      SP_CASE("atan2(y, 2)", X, Y, atan2(y, 2.0), 0.0, 2.0 / (4.0 + y * y)),
      SP_CASE("atan2(2, x)", X, Y, atan2(2.0, x), -2.0 / (x * x + 4.0), 0.0),
      SP_CASE("exp", X, Y, exp(x * y), y * exp(x * y), x * exp(x * y)),
      SP_CASE("log", X, Y, log(x), 1.0 / x, 0.0),
      SP_CASE("pow(x, y)", X, Y, pow(x, y), y * pow(x, y - 1.0), pow(x, y) * log(x)),
      SP_CASE("pow(x, 2.5)", X, Y, pow(x, 2.5), 2.5 * pow(x, 1.5), 0.0),
      SP_CASE("pow(2.5, y)", X, Y, pow(2.5, y), 0.0, pow(2.5, y) * log(2.5)),
      SP_CASE("pow(y, 3)", X, Y, pow(y, 3), 0.0, 3.0 * y * y),
      SP_CASE("fabs(y < 0)", X, Y, fabs(y), 0.0, -1.0),
      SP_CASE("abs(x > 0)", X, Y, abs(x), 1.0, 0.0),
      SP_CASE("lane_abs(y < 0)", X, Y, lane_abs(y), 0.0, -1.0),
      SP_CASE("fmin", X, Y, fmin(x, y), 0.0, 1.0),
      SP_CASE("fmax", X, Y, fmax(x, y), 1.0, 0.0),
      SP_CASE("fmin(x, 2)", X, Y, fmin(x, 2.0), 1.0, 0.0),
      SP_CASE("fmax(2, y)", X, Y, fmax(2.0, y), 0.0, 0.0),
      SP_CASE("lane_min", X, Y, lane_min(x, y), 0.0, 1.0),
      SP_CASE("lane_max", X, Y, lane_max(x, y), 1.0, 0.0),
      SP_CASE("tanh", X, Y, tanh(x * y), y * (1.0 - tanh(x * y) * tanh(x * y)), x * (1.0 - tanh(x * y) * tanh(x * y))),
      SP_CASE("lane_tanh", X, Y, lane_tanh(y), 0.0, 1.0 - tanh(y) * tanh(y)),
      SP_CASE("hypot", X, Y, hypot(x, y), x / hypot(x, y), y / hypot(x, y)),
      SP_CASE("copysign(x, y)", X, Y, copysign(x, y), -1.0, 0.0),
      SP_CASE("copysign(y, x)", X, Y, copysign(y, x), 0.0, -1.0),
      SP_CASE("copysign(x, 1)", X, Y, copysign(x, 1.0), 1.0, 0.0),
      SP_CASE("floor", X, Y, floor(3.0 * x), 0.0, 0.0),
      SP_CASE("ceil", X, Y, ceil(3.0 * y), 0.0, 0.0),
      SP_CASE("lane_select", X, Y, lane_select(x < y, x, y), 0.0, 1.0),
      SP_CASE("composite", X, Y, sqrt(x * x + y * y) * exp(-x) / (2.0 + tanh(y)) - atan2(x, y) * pow(x, 1.5),
              kNone, kNone),
  };
}

/// Central difference of g at t, step h, extrapolated: (4 D(h/2) - D(h)) / 3.
template <class G>
double richardson(G g, double t, double h) {
  const double d1 = (g(t + h) - g(t - h)) / (2 * h);
  const double d2 = (g(t + h / 2) - g(t - h / 2)) / h;
  return (4 * d2 - d1) / 3;
}

TEST(Dual, EveryOperationMatchesAnalyticAndFiniteDifferences) {
  double worst_analytic = 0, worst_fd = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const D2 r = c.fd(D2::variable(c.x0, 0), D2::variable(c.y0, 1));
    EXPECT_TRUE(same_bits(r.v, c.f(c.x0, c.y0))) << r.v << " vs " << c.f(c.x0, c.y0);
    double gx, gy;
    c.grad(c.x0, c.y0, gx, gy);
    if (!std::isnan(gx)) {
      const double ex = std::fabs(r.d[0] - gx) / std::max(std::fabs(gx), 1.0);
      const double ey = std::fabs(r.d[1] - gy) / std::max(std::fabs(gy), 1.0);
      EXPECT_LE(ex, 1e-14) << r.d[0] << " vs " << gx;
      EXPECT_LE(ey, 1e-14) << r.d[1] << " vs " << gy;
      worst_analytic = std::max({worst_analytic, ex, ey});
    }
    const double fx = richardson([&](double t) { return c.f(t, c.y0); }, c.x0, 1e-3);
    const double fy = richardson([&](double t) { return c.f(c.x0, t); }, c.y0, 1e-3);
    const double ex = std::fabs(r.d[0] - fx) / std::max(std::fabs(fx), 1.0);
    const double ey = std::fabs(r.d[1] - fy) / std::max(std::fabs(fy), 1.0);
    EXPECT_LE(ex, 1e-10) << r.d[0] << " vs " << fx;
    EXPECT_LE(ey, 1e-10) << r.d[1] << " vs " << fy;
    worst_fd = std::max({worst_fd, ex, ey});
  }
  std::printf("[ dual ops ] worst relative error: analytic %.2e, differences %.2e\n", worst_analytic, worst_fd);
}

L2 lanes_of(double a, double b) {
  L2 l;
  l.set(0, a);
  l.set(1, b);
  return l;
}

TEST(Dual, LanesEqualScalarDualPerLane) {
  // Lane 1 at a second point with the same signs and branch sides as lane 0.
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const double xs[2] = {c.x0, 0.9 * c.x0}, ys[2] = {c.y0, 1.1 * c.y0};
    DL x = DL::variable(lanes_of(xs[0], xs[1]), 0), y = DL::variable(lanes_of(ys[0], ys[1]), 1);
    const DL r = c.fl(x, y);
    for (int l = 0; l < 2; ++l) {
      const D2 s = c.fd(D2::variable(xs[l], 0), D2::variable(ys[l], 1));
      EXPECT_NEAR(r.v[l], s.v, 1e-15 * std::max(std::fabs(s.v), 1.0)) << "lane " << l;
      for (int k = 0; k < 2; ++k)
        EXPECT_NEAR(r.d[k][l], s.d[k], 1e-15 * std::max(std::fabs(s.d[k]), 1.0)) << "lane " << l << " tangent " << k;
    }
  }
}

TEST(Dual, FloatValueType) {
  // fp32: tangents within a few float ulps (eps 1.2e-7) of the fp64 analytic derivative.
  const float x0 = 0.7f;
  const F1 x = F1::variable(x0, 0);
  using std::sqrt;
  const double xd = x0;
  struct R {
    F1 r;
    double g;
  };
  const R rs[] = {{sqrt(x), 0.5 / std::sqrt(xd)},
                  {sin(x) * cos(x), std::cos(2 * xd)},
                  {exp(x) / x, std::exp(xd) * (xd - 1) / (xd * xd)},
                  {atan2(x, 2.0f), 2.0 / (xd * xd + 4)},
                  {lane_tanh(x) * 3.0f + 1.0f, 3.0 * (1 - std::tanh(xd) * std::tanh(xd))},
                  {pow(x, 2.5f), 2.5 * std::pow(xd, 1.5)}};
  for (const R& r : rs) EXPECT_NEAR(r.r.d[0], r.g, 1e-6 * std::max(std::fabs(r.g), 1.0));
  static_assert(std::is_same_v<decltype(rs[0].r.v), float>, "float values");
}

// ---- a random kinematic tree ----------------------------------------------------------

using Links = std::vector<ReducedLinkParams<double>>;

/// n links: parent uniform in [-1, k-1], about one joint in three prismatic (joint n / 2
/// always), oblique unit axes, offsets within 0.5 m, masses 0.5-3 kg, CoM within 0.3 m,
/// SPD inertias (principal moments 0.02-0.2, triangle inequality), armature 0.05 on every
/// other joint.
Links random_tree(std::mt19937_64& g, int n) {
  std::uniform_real_distribution<double> u01(0.0, 1.0), mass(0.5, 3.0), mom(0.01, 0.1);
  Links links(n);
  for (int k = 0; k < n; ++k) {
    ReducedLinkParams<double>& l = links[k];
    l = ReducedLinkParams<double>{};
    l.parent = std::uniform_int_distribution<int>(-1, k - 1)(g);
    l.type = (u01(g) < 1.0 / 3.0 || k == n / 2) ? 1 : 0;
    l.R_parent_joint = rotation(test::random_quat(g));
    l.p_parent_joint = test::random_vec(g, 0.5);
    const Vec3d a = test::random_vec(g);
    l.axis = (1.0 / norm(a)) * a;
    l.mass = mass(g);
    l.com = test::random_vec(g, 0.3);
    const double d0 = mom(g), d1 = mom(g), d2 = mom(g), dmax = std::max({d0, d1, d2});
    const double d[3] = {d0 + dmax, d1 + dmax, d2 + dmax};
    const Mat3d R = rotation(test::random_quat(g));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = 0;
        for (int c = 0; c < 3; ++c) s += R.m[i][c] * d[c] * R.m[j][c];
        l.inertia_com.m[i][j] = s;
      }
    l.armature = k % 2 ? 0.05 : 0.0;
  }
  return links;
}

template <class T>
Vec3<T> cast_vec(const Vec3d& a) { return {T(a.x), T(a.y), T(a.z)}; }
template <class T>
Mat3<T> cast_mat(const Mat3d& a) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = T(a.m[i][j]);
  return r;
}
template <class T>
ReducedLinkParams<T> cast_link(const ReducedLinkParams<double>& l) {
  ReducedLinkParams<T> r;
  r.parent = l.parent;
  r.type = l.type;
  r.R_parent_joint = cast_mat<T>(l.R_parent_joint);
  r.p_parent_joint = cast_vec<T>(l.p_parent_joint);
  r.axis = cast_vec<T>(l.axis);
  r.mass = T(l.mass);
  r.com = cast_vec<T>(l.com);
  r.inertia_com = cast_mat<T>(l.inertia_com);
  r.armature = T(l.armature);
  return r;
}

/// One evaluation point of the tree algorithms: the links, a floating base and the inputs.
template <class T>
struct TreeCase {
  std::vector<ReducedLinkParams<T>> links;
  RobotBaseParams<T> base;
  Vec3<T> gravity, p_B, v_B, omega_B;
  Quat<T> quat_B;
  std::vector<T> q, qd, tau, qdd;
};

TreeCase<double> random_case(std::mt19937_64& g, int n) {
  TreeCase<double> c;
  c.links = random_tree(g, n);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  c.base.mass = 3.0;
  c.base.com = test::random_vec(g, 0.2);
  c.base.inertia_com = {{{0.3, 0.01, -0.02}, {0.01, 0.25, 0.015}, {-0.02, 0.015, 0.2}}};
  c.gravity = {0.3, -0.2, -9.81};
  c.p_B = test::random_vec(g);
  c.v_B = test::random_vec(g);
  c.omega_B = test::random_vec(g);
  c.quat_B = test::random_quat(g);
  for (int k = 0; k < n; ++k) {
    c.q.push_back(u(g));
    c.qd.push_back(u(g));
    c.tau.push_back(3 * u(g));
    c.qdd.push_back(2 * u(g));
  }
  return c;
}

template <class T>
TreeCase<T> cast_case(const TreeCase<double>& c) {
  TreeCase<T> r;
  for (const auto& l : c.links) r.links.push_back(cast_link<T>(l));
  r.base = {T(c.base.mass), cast_vec<T>(c.base.com), cast_mat<T>(c.base.inertia_com)};
  r.gravity = cast_vec<T>(c.gravity);
  r.p_B = cast_vec<T>(c.p_B);
  r.v_B = cast_vec<T>(c.v_B);
  r.omega_B = cast_vec<T>(c.omega_B);
  r.quat_B = {T(c.quat_B.w), T(c.quat_B.x), T(c.quat_B.y), T(c.quat_B.z)};
  for (double x : c.q) r.q.push_back(T(x));
  for (double x : c.qd) r.qd.push_back(T(x));
  for (double x : c.tau) r.tau.push_back(T(x));
  for (double x : c.qdd) r.qdd.push_back(T(x));
  return r;
}

/// A parameter of a TreeCase to differentiate with respect to.
struct Param {
  enum Kind { Q, Qd, Tau, Mass, Origin, Com, BaseMass } kind;
  int link;  ///< link or joint index
  int comp;  ///< vector component (Origin, Com)
};

template <class T>
T& param_ref(const Param& p, TreeCase<T>& c) {
  switch (p.kind) {
    case Param::Q: return c.q[p.link];
    case Param::Qd: return c.qd[p.link];
    case Param::Tau: return c.tau[p.link];
    case Param::Mass: return c.links[p.link].mass;
    case Param::Origin: return c.links[p.link].p_parent_joint[p.comp];
    case Param::Com: return c.links[p.link].com[p.comp];
    default: return c.base.mass;
  }
}

/// Every joint position, every link mass, one joint-frame origin component of every link,
/// and (floating) the base mass.
std::vector<Param> tree_params(int n, bool floating) {
  std::vector<Param> ps;
  for (int k = 0; k < n; ++k) ps.push_back({Param::Q, k, 0});
  for (int k = 0; k < n; ++k) ps.push_back({Param::Mass, k, 0});
  for (int k = 0; k < n; ++k) ps.push_back({Param::Origin, k, k % 3});
  ps.push_back({Param::Qd, 1, 0});
  ps.push_back({Param::Tau, 2, 0});
  ps.push_back({Param::Com, 3, 1});
  if (floating) ps.push_back({Param::BaseMass, 0, 0});
  return ps;
}

// The algorithms under test as functions of a TreeCase<T> -> their outputs.
constexpr int kCap = 8;

struct RunAba {
  template <class T>
  std::vector<T> operator()(const TreeCase<T>& c) const {
    const int n = int(c.links.size());
    auto ws = std::make_unique<AbaWorkspace<T, kCap>>();
    std::vector<T> qdd(n);
    aba(n, c.links.data(), c.gravity, c.q.data(), c.qd.data(), c.tau.data(), qdd.data(), *ws);
    return qdd;
  }
};
struct RunAbaFloating {
  template <class T>
  std::vector<T> operator()(const TreeCase<T>& c) const {
    const int n = int(c.links.size());
    auto ws = std::make_unique<AbaWorkspace<T, kCap>>();
    std::vector<T> out(n + 6);
    Vec3<T> vdot, wdot;
    aba_floating(n, c.links.data(), c.base, c.gravity, c.p_B, c.quat_B, c.v_B, c.omega_B, c.q.data(), c.qd.data(),
                 c.tau.data(), vdot, wdot, out.data() + 6, *ws);
    for (int e = 0; e < 3; ++e) {
      out[e] = vdot[e];
      out[3 + e] = wdot[e];
    }
    return out;
  }
};
struct RunCrba {
  template <class T>
  std::vector<T> operator()(const TreeCase<T>& c) const {
    const int n = int(c.links.size());
    auto ws = std::make_unique<CrbaWorkspace<T>>();
    std::vector<T> out(n * n + n);
    crba(n, c.links.data(), c.gravity, c.q.data(), c.qd.data(), out.data(), out.data() + n * n, *ws);
    return out;
  }
};
struct RunRnea {
  template <class T>
  std::vector<T> operator()(const TreeCase<T>& c) const {
    const int n = int(c.links.size());
    auto ws = std::make_unique<RneaWorkspace<T>>();
    std::vector<T> tau(n);
    rnea(n, c.links.data(), c.gravity, c.q.data(), c.qd.data(), c.qdd.data(), tau.data(), *ws);
    return tau;
  }
};
/// The CGA ABA on precomputed links (cga_link, also run with T = Dual).
struct RunCgaAba {
  template <class T>
  std::vector<T> operator()(const TreeCase<T>& c) const {
    const int n = int(c.links.size());
    std::vector<cga::CgaLink<T>> cl;
    for (const auto& l : c.links) cl.push_back(cga::cga_link(l));
    auto ws = std::make_unique<cga::CgaWorkspace<T, kCap>>();
    std::vector<T> qdd(n);
    cga::cga_aba(n, cl.data(), c.gravity, c.q.data(), c.qd.data(), c.tau.data(), qdd.data(), *ws);
    return qdd;
  }
};

/// Seeds the parameters in chunks of P (tangent s of a chunk = parameter start + s), runs
/// `run` with T = Dual<double, P>, and checks each chunk's values bitwise against the
/// double run and each tangent against central differences (step h) of the double run.
/// Unused tangents of the last chunk must stay exactly 0. Returns the worst relative error.
template <int P, class Run>
double check_sensitivities(const TreeCase<double>& c0, const std::vector<Param>& params, Run run, const char* what) {
  using D = Dual<double, P>;
  const std::vector<double> y0 = run(c0);
  const double h = 1e-5;
  double worst = 0;
  for (std::size_t start = 0; start < params.size(); start += P) {
    TreeCase<D> cd = cast_case<D>(c0);
    for (int s = 0; s < P && start + s < params.size(); ++s) param_ref(params[start + s], cd).d[s] = 1.0;
    const std::vector<D> yd = run(cd);
    EXPECT_EQ(yd.size(), y0.size());
    for (std::size_t e = 0; e < y0.size(); ++e)
      EXPECT_TRUE(same_bits(yd[e].v, y0[e])) << what << " output " << e << ": " << yd[e].v << " vs " << y0[e];
    for (int s = 0; s < P; ++s) {
      if (start + s >= params.size()) {
        for (const D& y : yd) EXPECT_EQ(y.d[s], 0.0);
        continue;
      }
      const Param& p = params[start + s];
      TreeCase<double> cp = c0, cm = c0;
      param_ref(p, cp) += h;
      param_ref(p, cm) -= h;
      const std::vector<double> yp = run(cp), ym = run(cm);
      double diff = 0, scale = 0;
      for (std::size_t e = 0; e < y0.size(); ++e) {
        const double fd = (yp[e] - ym[e]) / (2 * h);
        diff = std::max(diff, std::fabs(yd[e].d[s] - fd));
        scale = std::max(scale, std::fabs(fd));
      }
      const double rel = diff / std::max(scale, 1.0);
      EXPECT_LE(rel, 1e-8) << what << " P=" << P << " parameter kind " << p.kind << " link " << p.link;
      worst = std::max(worst, rel);
    }
  }
  return worst;
}

template <class Run>
void check_all_p(const TreeCase<double>& c, const std::vector<Param>& params, Run run, const char* what) {
  const double e1 = check_sensitivities<1>(c, params, run, what);
  const double e2 = check_sensitivities<2>(c, params, run, what);
  const double e4 = check_sensitivities<4>(c, params, run, what);
  std::printf("[ dual %s ] %zu parameters, worst relative error vs central differences: P=1 %.2e, P=2 %.2e, P=4 %.2e\n",
              what, params.size(), e1, e2, e4);
}

TEST(DualDynamics, AbaSensitivities) {
  std::mt19937_64 g(2024);
  const TreeCase<double> c = random_case(g, 7);
  check_all_p(c, tree_params(7, false), RunAba{}, "aba");
}

TEST(DualDynamics, AbaFloatingSensitivities) {
  // The base's 6x6 articulated inertia is solved by Cholesky (spd6_solve): the tangents
  // flow through the factorisation like any other arithmetic.
  std::mt19937_64 g(2025);
  const TreeCase<double> c = random_case(g, 7);
  check_all_p(c, tree_params(7, true), RunAbaFloating{}, "aba_floating");
}

TEST(DualDynamics, CrbaAndRneaSensitivities) {
  std::mt19937_64 g(2024);
  const TreeCase<double> c = random_case(g, 7);
  check_all_p(c, tree_params(7, false), RunCrba{}, "crba");
  check_all_p(c, tree_params(7, false), RunRnea{}, "rnea");
}

TEST(DualDynamics, CgaAbaSensitivities) {
  std::mt19937_64 g(2024);
  const TreeCase<double> c = random_case(g, 7);
  check_all_p(c, tree_params(7, false), RunCgaAba{}, "cga_aba");
}

TEST(DualDynamics, AbaInDualLanes) {
  // T = Dual<Lanes<double, 2>, 2>: two instances (different q) in the lanes of one call.
  // Values equal aba<Lanes> lane for lane, bit for bit; tangents equal the scalar Dual's of
  // each lane up to the lanes' own sin / cos (1 ulp).
  std::mt19937_64 g(2028);
  const TreeCase<double> c0 = random_case(g, 7);
  TreeCase<double> c1 = c0;
  for (double& q : c1.q) q = 0.8 * q + 0.1;
  const Param p0{Param::Q, 2, 0}, p1{Param::Mass, 4, 0};
  auto lanes_case = [&](auto tag) {
    using T = decltype(tag);
    TreeCase<T> a = cast_case<T>(c0);
    for (int k = 0; k < 7; ++k) {
      L2 q;
      q.set(0, c0.q[k]);
      q.set(1, c1.q[k]);
      a.q[k] = T(q);
    }
    return a;
  };
  const TreeCase<L2> cl = lanes_case(L2{});
  TreeCase<DL> cdl = lanes_case(DL{});
  param_ref(p0, cdl).d[0] = L2(1.0);
  param_ref(p1, cdl).d[1] = L2(1.0);
  const std::vector<L2> yl = RunAba{}(cl);
  const std::vector<DL> ydl = RunAba{}(cdl);
  for (int l = 0; l < 2; ++l) {
    TreeCase<D2> cd = cast_case<D2>(l == 0 ? c0 : c1);
    param_ref(p0, cd).d[0] = 1.0;
    param_ref(p1, cd).d[1] = 1.0;
    const std::vector<D2> yd = RunAba{}(cd);
    for (int e = 0; e < 7; ++e) {
      EXPECT_TRUE(same_bits(ydl[e].v[l], yl[e][l])) << "lane " << l << " output " << e;
      for (int s = 0; s < 2; ++s)
        EXPECT_NEAR(ydl[e].d[s][l], yd[e].d[s], 1e-12 * std::max(std::fabs(yd[e].d[s]), 1.0)) << "lane " << l;
    }
  }
}

// ---- joint constraint rows ----------------------------------------------------------

/// A body side as BodyKin<T>: position r + dr and orientation p (1, dtheta / 2)
/// normalised, with dr, dtheta the seeds `offset` .. offset + 5 (T = Dual<double, 12>) or
/// zero (T = double). The derivative of A along dtheta_k is A e_k^, the body-frame
/// rotation of the Jacobian's omega_B columns.
template <class T>
BodyKin<T> seeded_kin(const test::Side& s, int offset) {
  Vec3<T> r = cast_vec<T>(s.r), th = zero3<T>();
  if constexpr (!std::is_same_v<T, double>) {
    for (int e = 0; e < 3; ++e) {
      r[e].d[offset + e] = 1.0;
      th[e].d[offset + 3 + e] = 1.0;
    }
  }
  const Quat<T> p0{T(s.p.w), T(s.p.x), T(s.p.y), T(s.p.z)};
  const Quat<T> p = normalized(qmul(p0, Quat<T>{T(1), T(0.5) * th.x, T(0.5) * th.y, T(0.5) * th.z}));
  return make_body_kin(r, p, cast_vec<T>(s.v), cast_vec<T>(s.omega_B));
}

template <class T>
JointFrame<T> cast_frame(const JointFrame<double>& f) {
  return {cast_vec<T>(f.u_i), cast_vec<T>(f.v_i), cast_vec<T>(f.a_i), cast_vec<T>(f.b_i),
          cast_vec<T>(f.u_j), cast_vec<T>(f.v_j), cast_vec<T>(f.a_j), cast_vec<T>(f.b_j)};
}

TEST(DualJoints, PhiTangentsEqualAnalyticJacobian) {
  using D12 = Dual<double, 12>;
  double worst = 0;
  for (int t = 0; t < 6; ++t) {
    const JointType type = static_cast<JointType>(t);
    std::mt19937_64 g(77 + t);
    for (int trial = 0; trial < 10; ++trial) {
      const JointFrame<double> f = test::random_frame(g);
      const test::Side si = test::random_side(g, false), sj = test::random_side(g, false);
      const bool i_ground = trial == 3;  // ground on side i: its columns are not seeded
      JointRows<double> jr{};
      joint_eval(type, f, i_ground ? ground_kin<double>() : seeded_kin<double>(si, 0), seeded_kin<double>(sj, 6), jr);
      JointRows<D12> jd{};
      joint_eval(type, cast_frame<D12>(f), i_ground ? ground_kin<D12>() : seeded_kin<D12>(si, 0),
                 seeded_kin<D12>(sj, 6), jd);
      ASSERT_EQ(jd.m, jr.m);
      for (int r = 0; r < jr.m; ++r) {
        EXPECT_TRUE(same_bits(jd.phi[r].v, jr.phi[r]));
        EXPECT_TRUE(same_bits(jd.gamma[r].v, jr.gamma[r]));
        EXPECT_TRUE(same_bits(jd.phi_dot[r].v, jr.phi_dot[r]));
        for (int col = i_ground ? 6 : 0; col < 12; ++col) {
          EXPECT_TRUE(same_bits(jd.jac[r][col].v, jr.jac[r][col]));
          const double e = std::fabs(jd.phi[r].d[col] - jr.jac[r][col]);
          EXPECT_LE(e, 1e-12) << joint_type_name(type) << " row " << r << " column " << col;
          worst = std::max(worst, e);
        }
      }
    }
  }
  std::printf("[ dual joint rows ] worst |dPhi/dq (dual) - Phi_q (analytic)| = %.2e\n", worst);
}

// ---- RK4 through the backends' step function ----------------------------------------

/// A fixed-base 2-link arm (random geometry, one revolute and one prismatic joint):
/// joint 0 a position servo (kp, kd) towards u_0, joint 1 with damping and smoothed
/// Coulomb friction; RobotView over the given arrays.
struct Arm {
  std::vector<ReducedLinkParams<double>> links;
  std::vector<RobotJointParams<double>> joints;
  std::vector<double> y0, u;
};

Arm make_arm() {
  std::mt19937_64 g(99);
  Arm a;
  a.links = random_tree(g, 2);
  a.links[1].parent = 0;
  a.joints.assign(2, plain_joint_params<double>());
  a.joints[0].mode = static_cast<int>(ActuatorMode::Position);
  a.joints[0].kp = 20.0;
  a.joints[0].kd = 2.0;
  a.joints[1].damping = 0.3;
  a.joints[1].friction = 0.4;
  a.joints[1].friction_velocity = 0.5;
  a.y0 = {0.3, -0.2, 0.5, 0.8};
  a.u = {0.6, 0.0};
  return a;
}

template <class T>
RobotJointParams<T> cast_joint(const RobotJointParams<double>& p) {
  RobotJointParams<T> r;
  r.mode = p.mode;
  r.kp = T(p.kp);
  r.kd = T(p.kd);
  r.effort = T(p.effort);
  r.velocity = T(p.velocity);
  r.damping = T(p.damping);
  r.friction = T(p.friction);
  r.friction_velocity = T(p.friction_velocity);
  r.limited = p.limited;
  r.lower = T(p.lower);
  r.upper = T(p.upper);
  r.limit_stiffness = T(p.limit_stiffness);
  r.limit_damping = T(p.limit_damping);
  r.mimic = p.mimic;
  r.mimic_multiplier = T(p.mimic_multiplier);
  r.mimic_offset = T(p.mimic_offset);
  r.stiffness = T(p.stiffness);
  r.spring_q = T(p.spring_q);
  return r;
}

/// The state after `steps` RK4 steps of h from the arm's y0, with link 1's mass and
/// joint 0's kp shifted by dm, dkp (double) or seeded as tangents 0 and 1 (Dual).
template <class T>
std::vector<T> run_arm(const Arm& a, int use_cga, int steps, double h, double dm, double dkp) {
  std::vector<ReducedLinkParams<T>> links;
  for (const auto& l : a.links) links.push_back(cast_link<T>(l));
  std::vector<RobotJointParams<T>> joints;
  for (const auto& j : a.joints) joints.push_back(cast_joint<T>(j));
  links[1].mass += dm;
  joints[0].kp += dkp;
  if constexpr (!std::is_same_v<T, double>) {
    links[1].mass.d[0] = 1.0;
    joints[0].kp.d[1] = 1.0;
  }
  std::vector<cga::CgaLink<T>> cga_links;
  for (const auto& l : links) cga_links.push_back(cga::cga_link(l));
  RobotView<T> r{};
  r.n = 2;
  r.floating = 0;
  r.use_cga = use_cga;
  r.links = links.data();
  r.cga_links = cga_links.data();
  r.joints = joints.data();
  r.gravity = {T(0.0), T(0.0), T(-9.81)};
  auto ws = std::make_unique<batch::ReducedStepWorkspace<T, 2>>();
  std::vector<T> y, y_new(4), u;
  for (double x : a.y0) y.push_back(T(x));
  for (double x : a.u) u.push_back(T(x));
  for (int s = 0; s < steps; ++s) {
    batch::reduced_fixed_step(r, static_cast<int>(Integrator::Rk4), T(h), y.data(), u.data(), y_new.data(), *ws);
    std::swap(y, y_new);
  }
  return y;
}

TEST(DualDynamics, Rk4TrajectorySensitivities) {
  const Arm a = make_arm();
  const int steps = 500;
  const double h = 1e-3, hp = 1e-5;
  for (int use_cga : {0, 1}) {
    const std::vector<D2> yd = run_arm<D2>(a, use_cga, steps, h, 0.0, 0.0);
    const std::vector<double> y0 = run_arm<double>(a, use_cga, steps, h, 0.0, 0.0);
    double worst = 0;
    for (int s = 0; s < 2; ++s) {
      const double dm = s == 0 ? hp : 0.0, dkp = s == 1 ? hp : 0.0;
      const std::vector<double> yp = run_arm<double>(a, use_cga, steps, h, dm, dkp);
      const std::vector<double> ym = run_arm<double>(a, use_cga, steps, h, -dm, -dkp);
      double diff = 0, scale = 0;
      for (int e = 0; e < 4; ++e) {
        const double fd = (yp[e] - ym[e]) / (2 * hp);
        diff = std::max(diff, std::fabs(yd[e].d[s] - fd));
        scale = std::max(scale, std::fabs(fd));
      }
      const double rel = diff / scale;
      EXPECT_LE(rel, 1e-6) << "use_cga " << use_cga << " seed " << s;
      worst = std::max(worst, rel);
    }
    for (int e = 0; e < 4; ++e) EXPECT_TRUE(same_bits(yd[e].v, y0[e])) << "state " << e;
    std::printf("[ dual rk4 %s ] y(0.5 s) = (%.6f, %.6f, %.6f, %.6f), d/dmass_1 = (%.4f, %.4f, %.4f, %.4f), "
                "worst relative error vs central differences %.2e\n",
                use_cga ? "cga" : "aba", y0[0], y0[1], y0[2], y0[3], yd[0].d[0], yd[1].d[0], yd[2].d[0], yd[3].d[0],
                worst);
  }
}

// ---- cost of a Dual ABA call ---------------------------------------------------------

template <class T>
double aba_ns_per_call(const TreeCase<T>& c, int calls) {
  const int n = int(c.links.size());
  auto ws = std::make_unique<AbaWorkspace<T, kCap>>();
  std::vector<T> qdd(n), q = c.q;
  double best = 1e300;
  volatile double sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
      q[0] = q[0] + 1e-9;  // a dependence between calls
      aba(n, c.links.data(), c.gravity, q.data(), c.qd.data(), c.tau.data(), qdd.data(), *ws);
      sink = sink + ad::value(qdd[n - 1]);
    }
    const auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  return best;
}

template <int P>
double dual_aba_ns(const TreeCase<double>& c, int calls) {
  TreeCase<Dual<double, P>> cd = cast_case<Dual<double, P>>(c);
  for (int s = 0; s < P; ++s) cd.q[s % 7].d[s] = 1.0;
  return aba_ns_per_call(cd, calls);
}

TEST(DualDynamics, AbaCostPrinted) {
  std::mt19937_64 g(2024);
  const TreeCase<double> c = random_case(g, 7);
  const int calls = 2000;
  const double t0 = aba_ns_per_call(c, calls);
  const double t1 = dual_aba_ns<1>(c, calls), t4 = dual_aba_ns<4>(c, calls), t8 = dual_aba_ns<8>(c, calls);
  std::printf("[ dual cost ] 7-link aba per call: double %.0f ns; Dual P=1 %.0f ns (x%.1f), P=4 %.0f ns (x%.1f), "
              "P=8 %.0f ns (x%.1f)\n",
              t0, t1, t1 / t0, t4, t4 / t0, t8, t8 / t0);
  EXPECT_GT(t0, 0.0);
}

}  // namespace
}  // namespace simphant
