// The collision geometry of src/simphant/contact/collide.hpp, for every supported pair:
//  - the signed distance against a brute-force one built only from this file's support
//    functions of the shapes (distance = -min over unit u of h_A(u) + h_B(-u), minimised
//    over a dense Fibonacci sphere then refined by shrinking grids), at seeded random
//    poses and sizes, overlapping and separated;
//  - the normal is unit, and moving B along it by depth + eps separates the shapes while
//    depth - eps does not; contact points lie midway between the surfaces;
//  - swapping A and B flips the normal and keeps the distance and the contacts;
//  - touching, parallel and degenerate cases by hand; the bounding-sphere pre-test never
//    rejects an overlapping pair; the float instantiation agrees with the double one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "simphant/contact/collide.hpp"

namespace simphant {
namespace {

using V3 = Vec3d;

struct Placed {
  Shape<double> shape;
  ShapePose<double> pose;
};

Shape<double> shape_of(ShapeKind kind, double s0, double s1 = 0, double s2 = 0) {
  Shape<double> s{};
  s.kind = kind;
  s.size[0] = s0;
  s.size[1] = s1;
  s.size[2] = s2;
  s.quat_B = {1, 0, 0, 0};
  return s;
}

Placed placed(const Shape<double>& s, const V3& pos, const Quatd& q = {1, 0, 0, 0}) {
  return {s, {pos, rotation(normalized(q))}};
}

/// Rotation by angle about a unit axis.
Quatd about(const V3& axis, double angle) {
  const double s = std::sin(0.5 * angle);
  return {std::cos(0.5 * angle), s * axis.x, s * axis.y, s * axis.z};
}

const char* kind_name(ShapeKind k) {
  const char* names[] = {"plane", "sphere", "capsule", "box", "cylinder"};
  return names[static_cast<int>(k)];
}

// ---- Reference geometry, written independently of collide.hpp.

/// Support function h(u) = max over the shape of x . u (world u). Not for planes.
double support(const Placed& b, const V3& u) {
  const V3 ul = mul_t(b.pose.rot_W, u);
  const double* s = b.shape.size;
  const double c = dot(b.pose.pos_W, u);
  switch (b.shape.kind) {
    case ShapeKind::Sphere: return c + s[0];
    case ShapeKind::Capsule: return c + s[1] * std::fabs(ul.z) + s[0];
    case ShapeKind::Box: return c + s[0] * std::fabs(ul.x) + s[1] * std::fabs(ul.y) + s[2] * std::fabs(ul.z);
    case ShapeKind::Cylinder: return c + s[1] * std::fabs(ul.z) + s[0] * std::hypot(ul.x, ul.y);
    case ShapeKind::Plane: break;
  }
  ADD_FAILURE() << "support of a plane";
  return 0;
}

/// Signed distance from a world point to the shape (< 0 inside).
double point_distance(const Placed& b, const V3& x) {
  const V3 p = mul_t(b.pose.rot_W, x - b.pose.pos_W);
  const double* s = b.shape.size;
  auto box2 = [](double qx, double qy) {  // 2-D box distance from the excesses qx, qy
    return std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0);
  };
  switch (b.shape.kind) {
    case ShapeKind::Plane: return p.z;
    case ShapeKind::Sphere: return norm(p) - s[0];
    case ShapeKind::Capsule: return std::sqrt(p.x * p.x + p.y * p.y + std::pow(std::max(std::fabs(p.z) - s[1], 0.0), 2)) - s[0];
    case ShapeKind::Box: {
      const double q[3] = {std::fabs(p.x) - s[0], std::fabs(p.y) - s[1], std::fabs(p.z) - s[2]};
      double out = 0;
      for (double qi : q) out += std::pow(std::max(qi, 0.0), 2);
      return std::sqrt(out) + std::min(std::max(q[0], std::max(q[1], q[2])), 0.0);
    }
    case ShapeKind::Cylinder: return box2(std::hypot(p.x, p.y) - s[0], std::fabs(p.z) - s[1]);
  }
  return 0;
}

std::vector<V3> fibonacci_sphere(int n) {
  std::vector<V3> u(n);
  const double golden = M_PI * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - 2.0 * (i + 0.5) / n, r = std::sqrt(1.0 - z * z);
    u[i] = {r * std::cos(golden * i), r * std::sin(golden * i), z};
  }
  return u;
}

V3 unit(const V3& v) { return (1.0 / norm(v)) * v; }

/// Axes of a shape whose support function has kinks: |u . a| for each such axis a, and a
/// cone point at u = +-a for a cylinder's disc.
std::vector<V3> kink_axes(const Placed& b) {
  std::vector<V3> axes;
  if (b.shape.kind == ShapeKind::Box)
    for (int k = 0; k < 3; ++k) axes.push_back(rot_axis(b.pose.rot_W, k));
  if (b.shape.kind == ShapeKind::Capsule || b.shape.kind == ShapeKind::Cylinder) axes.push_back(rot_axis(b.pose.rot_W, 2));
  return axes;
}

/// 1-D minimisation of f over the angle of u = cos t e1 + sin t e2: 4000 samples, then
/// from the 4 best, 13-point grids moved while they improve and halved to 1e-12 rad.
template <class F>
double minimize_on_circle(F f, const V3& e1, const V3& e2, V3* arg) {
  auto at = [&](double t) { return std::cos(t) * e1 + std::sin(t) * e2; };
  const int n = 4000;
  std::vector<std::pair<double, double>> vals(n);
  for (int i = 0; i < n; ++i) vals[i] = {f(at(2 * M_PI * i / n)), 2 * M_PI * i / n};
  std::partial_sort(vals.begin(), vals.begin() + 4, vals.end());
  double best = vals[0].first;
  *arg = at(vals[0].second);
  for (int c = 0; c < 4; ++c) {
    double t = vals[c].second, ft = vals[c].first;
    for (double step = 2 * M_PI / n; step > 1e-12; step *= 0.5)
      for (int moves = 0; moves < 100; ++moves) {
        double ct = t, cf = ft;
        for (int a = -6; a <= 6; ++a) {
          const double fw = f(at(t + a * step));
          if (fw < cf) {
            cf = fw;
            ct = t + a * step;
          }
        }
        if (!(cf < ft)) break;
        t = ct;
        ft = cf;
      }
    if (ft < best) {
      best = ft;
      *arg = at(t);
    }
  }
  return best;
}

/// min over unit u of f(u), where f is a sum of support functions with kinks only at the
/// given axes (|u . a| terms, cone points at u = +-a). The minimum lies at a smooth point,
/// on a kink circle u . a = 0, or where two of them cross, and each is searched on its own:
///  - smooth points: 20000 Fibonacci directions (spacing 0.025 rad), then from the 8 best
///    mutually distant ones 13 x 13 tangent grids, moved while they improve, halved from
///    0.01 rad to 1e-11 rad;
///  - each circle u . a = 0 by the 1-D search above (a kink has no valley in 1-D);
///  - every +-a and +-(a x b).
template <class F>
double minimize_on_sphere(F f, const std::vector<V3>& axes, V3* arg = nullptr) {
  static const std::vector<V3> dirs = fibonacci_sphere(20000);
  std::vector<std::pair<double, int>> vals(dirs.size());
  for (size_t i = 0; i < dirs.size(); ++i) vals[i] = {f(dirs[i]), static_cast<int>(i)};
  std::sort(vals.begin(), vals.end());
  std::vector<V3> starts;
  for (const auto& v : vals) {
    if (starts.size() == 8) break;
    bool distinct = true;
    for (const V3& s : starts) distinct = distinct && dot(s, dirs[v.second]) < std::cos(0.1);
    if (distinct) starts.push_back(dirs[v.second]);
  }
  double best = vals[0].first;
  V3 best_u = dirs[vals[0].second];
  auto offer = [&](const V3& u, double fu) {
    if (fu < best) {
      best = fu;
      best_u = u;
    }
  };
  for (V3 u : starts) {
    double fu = f(u);
    for (double step = 0.01; step > 1e-11; step *= 0.5) {
      for (int moves = 0; moves < 100; ++moves) {  // follow a valley at this step
        const V3 e1 = collide_detail::any_perpendicular(u), e2 = cross(u, e1);
        V3 cu = u;
        double cf = fu;
        for (int a = -6; a <= 6; ++a)
          for (int b = -6; b <= 6; ++b) {
            const V3 w = unit(u + (a * step) * e1 + (b * step) * e2);
            const double fw = f(w);
            if (fw < cf) {
              cf = fw;
              cu = w;
            }
          }
        if (!(cf < fu)) break;
        u = cu;
        fu = cf;
      }
    }
    offer(u, fu);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const V3 e1 = collide_detail::any_perpendicular(axes[i]), e2 = cross(axes[i], e1);
    V3 u;
    const double fu = minimize_on_circle(f, e1, e2, &u);
    offer(u, fu);
    offer(axes[i], f(axes[i]));
    offer(-axes[i], f(-axes[i]));
    for (size_t j = 0; j < i; ++j) {
      const V3 c = cross(axes[i], axes[j]);
      if (norm(c) < 1e-9) continue;
      offer(unit(c), f(unit(c)));
      offer(-unit(c), f(-unit(c)));
    }
  }
  if (arg) *arg = best_u;
  return best;
}

/// Brute-force signed distance of two convex shapes: -min_u (h_A(u) + h_B(-u)) (the gap,
/// or minus the smallest separating translation). A plane pair: the lowest point of the
/// other shape above the plane, from its support function along the plane normal.
double brute_distance(const Placed& A, const Placed& B) {
  if (A.shape.kind == ShapeKind::Plane) {
    const V3 n = rot_axis(A.pose.rot_W, 2);
    return -support(B, -n) - dot(A.pose.pos_W, n);
  }
  if (B.shape.kind == ShapeKind::Plane) return brute_distance(B, A);
  std::vector<V3> axes = kink_axes(A);
  for (const V3& a : kink_axes(B)) axes.push_back(a);
  return -minimize_on_sphere([&](const V3& u) { return support(A, u) + support(B, -u); }, axes);
}

Placed moved(Placed b, const V3& d) {
  b.pose.pos_W += d;
  return b;
}

// ---- Random shapes and poses.

Quatd random_quat(std::mt19937_64& g) {
  std::normal_distribution<double> n;
  return normalized(Quatd{n(g), n(g), n(g), n(g)});
}

V3 random_unit(std::mt19937_64& g) {
  std::normal_distribution<double> n;
  return unit(V3{n(g), n(g), n(g)});
}

Shape<double> random_shape(ShapeKind kind, std::mt19937_64& g) {
  std::uniform_real_distribution<double> size(0.1, 1.0);
  switch (kind) {
    case ShapeKind::Plane: return shape_of(kind, 0);
    case ShapeKind::Sphere: return shape_of(kind, size(g));
    case ShapeKind::Capsule: return shape_of(kind, 0.5 * size(g), size(g));
    case ShapeKind::Box: return shape_of(kind, size(g), size(g), size(g));
    case ShapeKind::Cylinder: return shape_of(kind, size(g), size(g));
  }
  return shape_of(kind, 1);
}

/// A random pair, B placed near A: overlapping about half of the time.
std::pair<Placed, Placed> random_pair(ShapeKind ka, ShapeKind kb, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const Shape<double> sa = random_shape(ka, g), sb = random_shape(kb, g);
  Placed A = placed(sa, {u01(g) - 0.5, u01(g) - 0.5, u01(g) - 0.5}, random_quat(g));
  Placed B = placed(sb, {0, 0, 0}, random_quat(g));
  if (ka == ShapeKind::Plane || kb == ShapeKind::Plane) {
    Placed& plane = ka == ShapeKind::Plane ? A : B;
    Placed& other = ka == ShapeKind::Plane ? B : A;
    const double R = bounding_radius(other.shape);
    const V3 n = rot_axis(plane.pose.rot_W, 2);
    const V3 side = random_unit(g);
    other.pose.pos_W = plane.pose.pos_W + (R * (2.6 * u01(g) - 1.0)) * n + (side - dot(side, n) * n);
  } else {
    const double reach = bounding_radius(sa) + bounding_radius(sb);
    B.pose.pos_W = A.pose.pos_W + (1.3 * reach * u01(g)) * random_unit(g);
  }
  return {A, B};
}

ContactSet<double> collide_d(const Placed& A, const Placed& B, double margin = 0) {
  ContactSet<double> s;
  EXPECT_EQ(collide(A.shape, A.pose, B.shape, B.pose, margin, s), CollideStatus::Ok);
  return s;
}

double scale_of(const Placed& A, const Placed& B) {
  double s = 0;
  for (int i = 0; i < 3; ++i) s += A.shape.size[i] + B.shape.size[i];
  return s;
}

bool has_box_axis_choice(const Placed& A, const Placed& B) {
  const ShapeKind a = A.shape.kind, b = B.shape.kind;
  return (a == ShapeKind::Box && b != ShapeKind::Sphere && b != ShapeKind::Plane) ||
         (b == ShapeKind::Box && a != ShapeKind::Sphere && a != ShapeKind::Plane);
}

/// Pairs whose one contact lies at the exact closest (or deepest) points of both surfaces.
bool exact_points(const Placed& A, const Placed& B) {
  const ShapeKind a = A.shape.kind, b = B.shape.kind;
  const bool smooth = a == ShapeKind::Sphere || b == ShapeKind::Sphere;
  return smooth || (a == ShapeKind::Capsule && b == ShapeKind::Capsule);
}

/// Same contacts in either order (points within tol, equal depths).
bool same_contacts(const ContactSet<double>& x, const ContactSet<double>& y, double tol) {
  if (x.count != y.count) return false;
  for (int i = 0; i < x.count; ++i) {
    bool found = false;
    for (int j = 0; j < y.count && !found; ++j)
      found = norm(x.contact[i].point_W - y.contact[j].point_W) < tol &&
              std::fabs(x.contact[i].depth - y.contact[j].depth) < tol;
    if (!found) return false;
  }
  return true;
}

struct PairStats {
  int overlapping = 0, separated = 0, multi = 0, shallower_manifold = 0, lower_bound = 0;
  double max_distance_error = 0, max_excess = 0;  ///< max_excess: of an upper-bound depth, relative
};

// The brute-force minimisation agrees to ~1e-15 of the scale (the search ends at 1e-11 rad
// and the minimum is flat or met at a candidate); 1e-9 leaves margin, while a wrong depth
// (a missed axis, a wrong closest point) is off by 1e-4 .. 1 of the scale.
constexpr double kRelTol = 1e-9;

/// All properties of one random pair.
void check_random_pair(const Placed& A, const Placed& B, PairStats& st) {
  const double scale = scale_of(A, B);
  const double tol = kRelTol * scale;
  const ContactSet<double> s = collide_d(A, B);
  const double brute = brute_distance(A, B);
  const bool boxy = has_box_axis_choice(A, B);
  const bool box_box = A.shape.kind == ShapeKind::Box && B.shape.kind == ShapeKind::Box;
  // The face axis is kept over an edge-edge axis shallower by < kEdgeAxisBias (relative).
  const double bias = boxy ? kEdgeAxisBias * std::fabs(s.distance) : 0.0;
  // A capsule whose axis enters a cylinder: the depth is the smallest overlap over the
  // cylinder's face axes and one side axis, an upper bound on the penetration depth.
  const bool capsule_cylinder = (A.shape.kind == ShapeKind::Capsule && B.shape.kind == ShapeKind::Cylinder) ||
                                (A.shape.kind == ShapeKind::Cylinder && B.shape.kind == ShapeKind::Capsule);
  const double capsule_r = A.shape.kind == ShapeKind::Capsule ? A.shape.size[0] : B.shape.size[0];
  const bool axis_inside = capsule_cylinder && -s.distance > capsule_r + tol;

  (s.distance < 0 ? st.overlapping : st.separated)++;
  if (s.count > 1) st.multi++;
  if (axis_inside) st.lower_bound++;
  // (1) the signed distance.
  if (box_box && brute > tol) {
    EXPECT_LE(s.distance, brute + tol) << "box-box gap is a lower bound";
    EXPECT_GT(s.distance, 0.0);
  } else if (axis_inside) {
    EXPECT_LE(s.distance, brute + tol) << "capsule axis in the cylinder: the depth is an upper bound";
    st.max_excess = std::max(st.max_excess, (brute - s.distance) / -brute);
  } else {
    EXPECT_NEAR(s.distance, brute, tol + bias);
    st.max_distance_error = std::max(st.max_distance_error, std::fabs(s.distance - brute));
  }
  EXPECT_EQ(s.count > 0, s.distance < 0) << "margin 0: contacts exactly when overlapping";
  // (2) unit normal; B moved by -distance + eps along it is clear, by -distance - eps not.
  EXPECT_NEAR(norm(s.normal_W), 1.0, 1e-12);
  const double eps = 1e-4 * scale + bias;
  EXPECT_GT(brute_distance(A, moved(B, (-s.distance + eps) * s.normal_W)), 0.0) << "depth + eps separates";
  if (!(box_box && s.distance > 0) && !axis_inside) {
    EXPECT_LT(brute_distance(A, moved(B, (-s.distance - eps) * s.normal_W)), 0.0) << "depth - eps does not";
  }
  // Contacts: unit normals, points midway between the surfaces, none deeper than the pair.
  double deepest = -1e300;
  for (int i = 0; i < s.count; ++i) {
    const ContactPoint<double>& c = s.contact[i];
    EXPECT_NEAR(norm(c.normal_W), 1.0, 1e-12);
    EXPECT_LE(c.depth, -s.distance + tol);
    EXPECT_GE(c.depth, 0.0);
    const double dA = point_distance(A, c.point_W + (0.5 * c.depth) * c.normal_W);
    const double dB = point_distance(B, c.point_W - (0.5 * c.depth) * c.normal_W);
    // A capsule axis in a cylinder: B's point is on the plane of a face or on the side's
    // tangent plane, on the normal's line through A's deepest point (it may lie beyond the rim).
    const Placed& cap = A.shape.kind == ShapeKind::Capsule ? A : B;
    const double d_cap = point_distance(cap, c.point_W + (cap.shape.kind == A.shape.kind ? 0.5 : -0.5) * c.depth * c.normal_W);
    if (axis_inside) {
      EXPECT_NEAR(d_cap, 0.0, tol) << "the capsule's point is on its surface";
    } else {
      EXPECT_LE(dA, tol) << "point + depth/2 n is on or in A";
      EXPECT_LE(dB, tol) << "point - depth/2 n is on or in B";
    }
    if (exact_points(A, B) && s.count == 1) {
      EXPECT_NEAR(dA, 0.0, tol);
      EXPECT_NEAR(dB, 0.0, tol);
    }
    deepest = std::max(deepest, c.depth);
  }
  if (s.count > 0 && deepest < -s.distance - tol) {
    st.shallower_manifold++;
    EXPECT_TRUE(boxy || axis_inside) << "only box and deep capsule-cylinder manifolds may be shallower than the pair";
  }
  // (3) symmetry.
  const ContactSet<double> r = collide_d(B, A);
  EXPECT_NEAR(r.distance, s.distance, 1e-12 * scale);
  EXPECT_LT(norm(r.normal_W + s.normal_W), 1e-9) << "swapped normal is negated";
  EXPECT_TRUE(same_contacts(s, r, 1e-9 * scale)) << "swapped contacts";
  // (5) the bounding-sphere pre-test never rejects a pair with contacts.
  const double margin = 0.05 * scale;
  if (brute < margin) {
    EXPECT_TRUE(bounding_spheres_overlap(A.shape, A.pose, B.shape, B.pose, margin));
  }
  // A margin reports the near contacts; the distance does not change.
  const ContactSet<double> m = collide_d(A, B, margin);
  EXPECT_NEAR(m.distance, s.distance, 1e-12 * scale);
  EXPECT_EQ(m.count > 0, s.distance < margin);
  for (int i = 0; i < m.count; ++i) EXPECT_GT(m.contact[i].depth, -margin);
}

void check_kinds(ShapeKind ka, ShapeKind kb, unsigned seed, int n = 80) {
  std::mt19937_64 g(seed);
  PairStats st;
  for (int i = 0; i < n && !::testing::Test::HasFailure(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const auto pair = random_pair(ka, kb, g);
    check_random_pair(pair.first, pair.second, st);
  }
  std::printf("%s-%s: %d overlapping (%d with an upper-bound depth), %d separated, %d with several contacts, %d with "
              "a shallower manifold, max |distance - brute force| %.2e (upper bounds: up to %.0f %% deeper)\n",
              kind_name(ka), kind_name(kb), st.overlapping, st.lower_bound, st.separated, st.multi,
              st.shallower_manifold, st.max_distance_error, 100 * st.max_excess);
  EXPECT_GT(st.overlapping, n / 5);
  EXPECT_GT(st.separated, n / 10);
}

TEST(ContactGeometryRandom, PlaneSphere) { check_kinds(ShapeKind::Plane, ShapeKind::Sphere, 11); }
TEST(ContactGeometryRandom, PlaneCapsule) { check_kinds(ShapeKind::Plane, ShapeKind::Capsule, 12); }
TEST(ContactGeometryRandom, PlaneBox) { check_kinds(ShapeKind::Plane, ShapeKind::Box, 13); }
TEST(ContactGeometryRandom, PlaneCylinder) { check_kinds(ShapeKind::Plane, ShapeKind::Cylinder, 14); }
TEST(ContactGeometryRandom, SphereSphere) { check_kinds(ShapeKind::Sphere, ShapeKind::Sphere, 21); }
TEST(ContactGeometryRandom, SphereCapsule) { check_kinds(ShapeKind::Sphere, ShapeKind::Capsule, 22); }
TEST(ContactGeometryRandom, SphereBox) { check_kinds(ShapeKind::Sphere, ShapeKind::Box, 23); }
TEST(ContactGeometryRandom, SphereCylinder) { check_kinds(ShapeKind::Sphere, ShapeKind::Cylinder, 24); }
TEST(ContactGeometryRandom, CapsuleCapsule) { check_kinds(ShapeKind::Capsule, ShapeKind::Capsule, 31); }
TEST(ContactGeometryRandom, CapsuleBox) { check_kinds(ShapeKind::Capsule, ShapeKind::Box, 32); }
TEST(ContactGeometryRandom, CapsuleCylinder) { check_kinds(ShapeKind::Capsule, ShapeKind::Cylinder, 33, 160); }
TEST(ContactGeometryRandom, BoxBox) { check_kinds(ShapeKind::Box, ShapeKind::Box, 41); }
// The other order goes through collide()'s swap.
TEST(ContactGeometryRandom, BoxPlaneAndBoxCapsule) {
  check_kinds(ShapeKind::Box, ShapeKind::Plane, 51, 30);
  check_kinds(ShapeKind::Box, ShapeKind::Capsule, 52, 30);
}

// Plane pairs against a second reference: the lowest of many points on the shape's
// surface, and the contacts against the shape's own corners / ends.
TEST(ContactGeometry, PlaneDistanceMatchesSampledSurface) {
  std::mt19937_64 g(7);
  const int n = 720;  // angular resolution: the lowest rim point is within r (1 - cos(pi / n))
  for (ShapeKind k : {ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box, ShapeKind::Cylinder})
    for (int trial = 0; trial < 10; ++trial) {
      const auto pair = random_pair(ShapeKind::Plane, k, g);
      const Placed &P = pair.first, &B = pair.second;
      const V3 nrm = rot_axis(P.pose.rot_W, 2);
      const double* s = B.shape.size;
      double lowest = 1e300;
      auto visit = [&](const V3& x_local) {
        const V3 x = B.pose.pos_W + mul(B.pose.rot_W, x_local);
        lowest = std::min(lowest, dot(x - P.pose.pos_W, nrm));
      };
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n / 2; ++j) {
          const double phi = 2 * M_PI * i / n, th = M_PI * j / (n / 2);
          const V3 dir = {std::sin(th) * std::cos(phi), std::sin(th) * std::sin(phi), std::cos(th)};
          if (k == ShapeKind::Sphere) visit(s[0] * dir);
          if (k == ShapeKind::Capsule) visit(s[0] * dir + V3{0, 0, (dir.z > 0 ? s[1] : -s[1])});
          if (k == ShapeKind::Box)
            for (double zs : {-1.0, 1.0}) visit({s[0] * (2.0 * i / n - 1), s[1] * (4.0 * j / n - 1), zs * s[2]});
          if (k == ShapeKind::Cylinder) visit({s[0] * std::cos(phi), s[0] * std::sin(phi), (j % 2 ? s[1] : -s[1])});
        }
      const double r = k == ShapeKind::Box ? 0.0 : s[0];
      const double sampling = r * (1 - std::cos(2 * M_PI / n)) + 1e-12;
      const ContactSet<double> c = collide_d(P, B);
      EXPECT_LE(c.distance, lowest + 1e-12) << kind_name(k);
      EXPECT_GE(c.distance, lowest - sampling) << kind_name(k);
    }
}

TEST(ContactGeometry, PlaneBoxContactsAreTheDeepestCorners) {
  std::mt19937_64 g(8);
  for (int trial = 0; trial < 200; ++trial) {
    const auto pair = random_pair(ShapeKind::Plane, ShapeKind::Box, g);
    const Placed &P = pair.first, &B = pair.second;
    const V3 nrm = rot_axis(P.pose.rot_W, 2);
    std::vector<double> below;
    for (int i = 0; i < 8; ++i) {
      V3 x = B.pose.pos_W;
      for (int k = 0; k < 3; ++k) x += ((i >> k & 1 ? 1.0 : -1.0) * B.shape.size[k]) * rot_axis(B.pose.rot_W, k);
      const double h = dot(x - P.pose.pos_W, nrm);
      if (h < 0) below.push_back(-h);
    }
    std::sort(below.rbegin(), below.rend());
    const ContactSet<double> c = collide_d(P, B);
    ASSERT_EQ(c.count, std::min<int>(4, below.size()));
    std::vector<double> depths;
    for (int i = 0; i < c.count; ++i) depths.push_back(c.contact[i].depth);
    std::sort(depths.rbegin(), depths.rend());
    for (int i = 0; i < c.count; ++i) EXPECT_NEAR(depths[i], below[i], 1e-12);
  }
}

// ---- Touching, parallel and degenerate cases by hand.

const V3 kX = {1, 0, 0}, kY = {0, 1, 0}, kZ = {0, 0, 1};

void expect_vec(const V3& a, const V3& b, double tol = 1e-12) {
  EXPECT_NEAR(a.x, b.x, tol);
  EXPECT_NEAR(a.y, b.y, tol);
  EXPECT_NEAR(a.z, b.z, tol);
}

/// The contact of s nearest to p, checked against (p, depth).
void expect_contact_at(const ContactSet<double>& s, const V3& p, double depth, double tol = 1e-12) {
  int best = -1;
  for (int i = 0; i < s.count; ++i)
    if (best < 0 || norm(s.contact[i].point_W - p) < norm(s.contact[best].point_W - p)) best = i;
  ASSERT_GE(best, 0);
  expect_vec(s.contact[best].point_W, p, tol);
  EXPECT_NEAR(s.contact[best].depth, depth, tol);
}

TEST(ContactGeometry, ParallelCapsulesGiveTwoContacts) {
  const Quatd along_x = about(kY, M_PI / 2);  // the capsule axis z_S along world x
  const Placed A = placed(shape_of(ShapeKind::Capsule, 0.2, 1.0), {0, 0, 0}, along_x);
  for (double turn : {0.0, M_PI}) {  // parallel and anti-parallel
    const Placed B = placed(shape_of(ShapeKind::Capsule, 0.3, 0.5), {0.4, 0.45, 0}, qmul(about(kZ, turn), along_x));
    const ContactSet<double> s = collide_d(A, B);
    ASSERT_EQ(s.count, 2);
    EXPECT_NEAR(s.distance, -0.05, 1e-12);
    expect_vec(s.normal_W, kY);
    expect_contact_at(s, {-0.1, 0.175, 0}, 0.05);
    expect_contact_at(s, {0.9, 0.175, 0}, 0.05);
    EXPECT_TRUE(same_contacts(s, collide_d(B, A), 1e-12));
  }
  // Parallel without overlap along the axis: the nearest ends, one contact.
  const Placed C = placed(shape_of(ShapeKind::Capsule, 0.3, 0.5), {1.8, 0.3, 0}, along_x);
  const ContactSet<double> s = collide_d(A, C);
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, std::hypot(0.3, 0.3) - 0.5, 1e-12);
  // Collinear, end to end: the normal along the axis.
  const Placed E = placed(shape_of(ShapeKind::Capsule, 0.3, 0.5), {1.95, 0, 0}, along_x);
  const ContactSet<double> e = collide_d(A, E);
  ASSERT_EQ(e.count, 1);
  EXPECT_NEAR(e.distance, -0.05, 1e-12);
  expect_vec(e.normal_W, kX);
  // Coincident axes: any normal across the axis, depth rA + rB.
  const ContactSet<double> c = collide_d(A, placed(shape_of(ShapeKind::Capsule, 0.3, 0.5), {0.2, 0, 0}, along_x));
  EXPECT_NEAR(c.distance, -0.5, 1e-12);
  EXPECT_NEAR(dot(c.normal_W, kX), 0.0, 1e-12);
  EXPECT_NEAR(norm(c.normal_W), 1.0, 1e-12);
}

TEST(ContactGeometry, CapsuleAgainstCylinder) {
  const Quatd along_x = about(kY, M_PI / 2);  // a capsule axis z_S along world x
  const Placed cyl = placed(shape_of(ShapeKind::Cylinder, 0.5, 0.4), {0, 0, 0});  // axis z, |z| <= 0.4
  // Across the curved side (axis along y, perpendicular to the cylinder's): one contact.
  const Placed across = placed(shape_of(ShapeKind::Capsule, 0.1, 1.0), {0.55, 0, 0.1}, about(kX, M_PI / 2));
  ContactSet<double> s = collide_d(across, cyl);
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, -0.05, 1e-12);
  expect_vec(s.normal_W, -kX);
  expect_contact_at(s, {0.475, 0, 0.1}, 0.05);
  // Along the side (axes parallel), overlapping z in [-0.4, 0.2]: the two ends of the overlap.
  const Placed along = placed(shape_of(ShapeKind::Capsule, 0.1, 0.5), {0, 0.58, -0.3});
  s = collide_d(along, cyl);
  ASSERT_EQ(s.count, 2);
  EXPECT_NEAR(s.distance, -0.02, 1e-12);
  expect_contact_at(s, {0, 0.49, -0.4}, 0.02);
  expect_contact_at(s, {0, 0.49, 0.2}, 0.02);
  for (int i = 0; i < 2; ++i) expect_vec(s.contact[i].normal_W, -kY);
  // Lying across the top face, its axis through the centre: the axis clipped to the disc.
  const Placed lying = placed(shape_of(ShapeKind::Capsule, 0.1, 1.0), {0.2, 0, 0.47}, along_x);
  s = collide_d(lying, cyl);
  ASSERT_EQ(s.count, 2);
  EXPECT_NEAR(s.distance, -0.03, 1e-12);
  expect_contact_at(s, {-0.5, 0, 0.385}, 0.03);
  expect_contact_at(s, {0.5, 0, 0.385}, 0.03);
  EXPECT_TRUE(same_contacts(s, collide_d(cyl, lying), 1e-12));
  // Tilted off the face by 0.01 rad: no longer parallel to it, one contact.
  const Placed tilted = placed(shape_of(ShapeKind::Capsule, 0.1, 1.0), {0.2, 0, 0.47}, about(kY, M_PI / 2 + 0.01));
  EXPECT_EQ(collide_d(tilted, cyl).count, 1);
  // Pointing end-on at the rim (axis at 45 degrees in the xz plane): the end ball touches
  // the rim circle, the distance from the end to (0.5, 0, 0.4).
  const V3 dir = unit(V3{1, 0, 1});
  const V3 end = V3{0.5, 0, 0.4} + 0.12 * dir;
  const Placed rim = placed(shape_of(ShapeKind::Capsule, 0.1, 0.3), end + 0.3 * dir, about(kY, M_PI / 4));
  s = collide_d(rim, cyl, 0.05);
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, 0.02, 1e-12);
  expect_vec(s.normal_W, -dir, 1e-9);
  // The axis through the cylinder: the smallest overlap of the faces' and the side's axes.
  const Placed through = placed(shape_of(ShapeKind::Capsule, 0.1, 1.0), {0, 0.3, 0.0}, along_x);
  s = collide_d(through, cyl);
  ASSERT_EQ(s.count, 2);  // at the ends of the axis's part inside the cylinder, x = +-0.4
  EXPECT_NEAR(s.distance, -0.3, 1e-9);  // side: 0.5 + 0.1 - 0.3; faces: 0.4 + 0.1
  expect_vec(s.normal_W, -kY, 1e-9);
  expect_contact_at(s, {-0.4, 0.35, 0}, 0.3, 1e-9);
  expect_contact_at(s, {0.4, 0.35, 0}, 0.3, 1e-9);
  // Pressed through the top face (the axis 1 mm below it), level or tilted a little, and
  // through the side: the depth goes on from the shallow side's (r + 1 mm), one contact
  // whose normal still pushes the capsule out the way it came in.
  // Level or tilted a little: two contacts at the ends of the chord over the disc (level:
  // x = +-0.5), the separating axis perpendicular to the rod.
  for (double tilt : {0.0, 5e-4, -5e-4, 2e-3}) {
    const Placed pressed = placed(shape_of(ShapeKind::Capsule, 0.1, 1.0), {0.2, 0, 0.399}, about(kY, M_PI / 2 + tilt));
    s = collide_d(pressed, cyl);
    ASSERT_EQ(s.count, 2) << tilt;
    // Tilted, the separating axis leans with the rod (towards the rim under its lower
    // end), a little shallower than the face's overlap.
    EXPECT_GT(dot(s.normal_W, -kZ), std::cos(2 * std::fabs(tilt)) - 1e-12) << tilt;
    EXPECT_LE(s.distance, -0.101 + 1e-9) << tilt;
    EXPECT_GE(s.distance, -(0.101 + std::sin(std::fabs(tilt)) * (tilt > 0 ? 1.2 : 0.8)) - 1e-9) << tilt;
    if (tilt == 0.0) {
      EXPECT_NEAR(s.distance, -0.101, 1e-9);
      expect_contact_at(s, {-0.5, 0, 0.3495}, 0.101, 1e-9);
      expect_contact_at(s, {0.5, 0, 0.3495}, 0.101, 1e-9);
    }
  }
  // Along the side 1 mm past its radius: the two ends of its part within the side's height.
  const Placed beside = placed(shape_of(ShapeKind::Capsule, 0.1, 0.5), {0, 0.499, -0.3});
  s = collide_d(beside, cyl);
  ASSERT_EQ(s.count, 2);
  EXPECT_NEAR(s.distance, -0.101, 1e-9);
  expect_vec(s.normal_W, -kY, 1e-9);
  expect_contact_at(s, {0, 0.4495, -0.4}, 0.101, 1e-9);
  expect_contact_at(s, {0, 0.4495, 0.2}, 0.101, 1e-9);
  // Entering over the rim (the axis along (-1, 0, 1) through the rim point (0.5, 0, 0.4)):
  // the depth goes on from the shallow side's r as the axis crosses the rim.
  const V3 entry = unit(V3{-1, 0, 1}), out = unit(V3{1, 0, 1});
  for (double delta : {-1e-6, 1e-9, 1e-6, 1e-3}) {
    const Placed rim = placed(shape_of(ShapeKind::Capsule, 0.1, 0.3), V3{0.5, 0, 0.4} - delta * out,
                              qmul(about(kY, -M_PI / 4), Quatd{1, 0, 0, 0}));
    ASSERT_NEAR(dot(rot_axis(rim.pose.rot_W, 2), entry), 1.0, 1e-12);
    s = collide_d(rim, cyl);
    EXPECT_NEAR(s.distance, -(0.1 + delta), 1e-7) << delta;
    expect_vec(s.normal_W, -out, 1e-3);
  }
}

TEST(ContactGeometry, BoxRestingFaceOnFaceGivesFourEqualDepths) {
  const Placed A = placed(shape_of(ShapeKind::Box, 1.0, 1.0, 0.5), {0, 0, 0});
  for (double yaw : {0.0, 0.3, M_PI / 4}) {
    const Placed B = placed(shape_of(ShapeKind::Box, 0.3, 0.2, 0.1), {0.1, -0.2, 0.59}, about(kZ, yaw));
    const ContactSet<double> s = collide_d(A, B);
    ASSERT_EQ(s.count, 4) << yaw;
    EXPECT_NEAR(s.distance, -0.01, 1e-12);
    expect_vec(s.normal_W, kZ);
    for (int sx = -1; sx <= 1; sx += 2)
      for (int sy = -1; sy <= 1; sy += 2) {
        const V3 corner = B.pose.pos_W + mul(B.pose.rot_W, V3{0.3 * sx, 0.2 * sy, -0.1});
        expect_contact_at(s, corner + V3{0, 0, 0.005}, 0.01);
      }
    const ContactSet<double> r = collide_d(B, A);
    expect_vec(r.normal_W, -kZ);
    EXPECT_TRUE(same_contacts(s, r, 1e-12));
  }
  // Equal boxes, one turned 45 degrees: the clipped octagon reduced to 4 points.
  const Placed C = placed(shape_of(ShapeKind::Box, 1.0, 1.0, 0.5), {0, 0, 0.99}, about(kZ, M_PI / 4));
  const ContactSet<double> s = collide_d(A, C);
  ASSERT_EQ(s.count, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s.contact[i].depth, 0.01, 1e-12);
    EXPECT_NEAR(s.contact[i].point_W.z, 0.495, 1e-12);
  }
  // Equal boxes exactly stacked (coincident side faces).
  const ContactSet<double> e = collide_d(A, placed(shape_of(ShapeKind::Box, 1.0, 1.0, 0.5), {0, 0, 0.99}));
  ASSERT_EQ(e.count, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(e.contact[i].depth, 0.01, 1e-12);
}

TEST(ContactGeometry, BoxEdgeOnEdge) {
  // A's top edge along x, B's bottom edge along y, crossing at the origin's vertical.
  const double d = 0.02, h = 0.5 * std::sqrt(2.0);
  const Placed A = placed(shape_of(ShapeKind::Box, 0.5, 0.5, 0.5), {0, 0, 0}, about(kX, M_PI / 4));
  const Placed B = placed(shape_of(ShapeKind::Box, 0.5, 0.5, 0.5), {0, 0, 2 * h - d}, about(kY, M_PI / 4));
  const ContactSet<double> s = collide_d(A, B);
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, -d, 1e-12);
  expect_vec(s.normal_W, kZ);
  expect_contact_at(s, {0, 0, h - 0.5 * d}, d);
  EXPECT_TRUE(same_contacts(s, collide_d(B, A), 1e-12));
}

TEST(ContactGeometry, SphereCentreInsideBox) {
  const Placed box = placed(shape_of(ShapeKind::Box, 1.0, 0.5, 0.3), {0, 0, 0});
  const Placed ball = placed(shape_of(ShapeKind::Sphere, 0.1), {0.2, 0.1, 0.25});
  const ContactSet<double> s = collide_d(ball, box);
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, -0.15, 1e-12);
  expect_vec(s.normal_W, -kZ);  // moving the box down frees the ball through the top face
  expect_contact_at(s, {0.2, 0.1, 0.225}, 0.15);
  // At the box centre: the nearest face is the thinnest side.
  const ContactSet<double> c = collide_d(box, placed(shape_of(ShapeKind::Sphere, 0.1), {0, 0, 0}));
  EXPECT_NEAR(c.distance, -0.4, 1e-12);
  EXPECT_NEAR(std::fabs(c.normal_W.z), 1.0, 1e-12);
}

TEST(ContactGeometry, CoincidentSpheresHaveAUnitNormal) {
  const ContactSet<double> s = collide_d(placed(shape_of(ShapeKind::Sphere, 0.2), {1, 2, 3}),
                                         placed(shape_of(ShapeKind::Sphere, 0.3), {1, 2, 3}));
  ASSERT_EQ(s.count, 1);
  EXPECT_NEAR(s.distance, -0.5, 1e-12);
  EXPECT_NEAR(norm(s.normal_W), 1.0, 1e-12);
}

TEST(ContactGeometry, CapsuleLyingOnPlaneGivesTwoContacts) {
  const Placed ground = placed(shape_of(ShapeKind::Plane, 0), {0, 0, 0});
  const Placed cap = placed(shape_of(ShapeKind::Capsule, 0.1, 0.5), {0.3, 0, 0.09}, about(kY, M_PI / 2));
  const ContactSet<double> s = collide_d(ground, cap);
  ASSERT_EQ(s.count, 2);
  EXPECT_NEAR(s.distance, -0.01, 1e-12);
  expect_contact_at(s, {-0.2, 0, -0.005}, 0.01);
  expect_contact_at(s, {0.8, 0, -0.005}, 0.01);
  // Standing on one end: one contact.
  EXPECT_EQ(collide_d(ground, placed(shape_of(ShapeKind::Capsule, 0.1, 0.5), {0, 0, 0.59})).count, 1);
  // A tilted plane: the same contacts, rotated with everything.
  const Quatd q = about(unit(V3{1, 2, 3}), 0.7);
  const Mat3d R = rotation(q);
  const ContactSet<double> t =
      collide_d(placed(shape_of(ShapeKind::Plane, 0), {0, 0, 0}, q),
                placed(shape_of(ShapeKind::Capsule, 0.1, 0.5), mul(R, V3{0.3, 0, 0.09}), qmul(q, about(kY, M_PI / 2))));
  ASSERT_EQ(t.count, 2);
  expect_contact_at(t, mul(R, V3{-0.2, 0, -0.005}), 0.01);
  expect_contact_at(t, mul(R, V3{0.8, 0, -0.005}), 0.01);
}

TEST(ContactGeometry, CylinderOnPlane) {
  const Placed ground = placed(shape_of(ShapeKind::Plane, 0), {0, 0, 0});
  const ContactSet<double> standing = collide_d(ground, placed(shape_of(ShapeKind::Cylinder, 0.2, 0.5), {0, 0, 0.49}));
  ASSERT_EQ(standing.count, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(standing.contact[i].depth, 0.01, 1e-12);
    EXPECT_NEAR(std::hypot(standing.contact[i].point_W.x, standing.contact[i].point_W.y), 0.2, 1e-12);
  }
  const ContactSet<double> lying =
      collide_d(ground, placed(shape_of(ShapeKind::Cylinder, 0.2, 0.5), {0, 0, 0.19}, about(kX, M_PI / 2)));
  ASSERT_EQ(lying.count, 2);
  expect_contact_at(lying, {0, -0.5, -0.005}, 0.01);
  expect_contact_at(lying, {0, 0.5, -0.005}, 0.01);
}

TEST(ContactGeometry, BoxRestingOnPlaneGivesFourCorners) {
  const Placed ground = placed(shape_of(ShapeKind::Plane, 0), {0, 0, 0});
  const ContactSet<double> s = collide_d(ground, placed(shape_of(ShapeKind::Box, 0.3, 0.2, 0.1), {0, 0, 0.09}));
  ASSERT_EQ(s.count, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(s.contact[i].depth, 0.01, 1e-12);
}

TEST(ContactGeometry, CapsuleOnAndThroughBox) {
  const Placed box = placed(shape_of(ShapeKind::Box, 0.5, 0.5, 0.5), {0, 0, 0});
  const Quatd along_x = about(kY, M_PI / 2);
  // Lying on the top face: two contacts at the capsule ends.
  const ContactSet<double> on = collide_d(box, placed(shape_of(ShapeKind::Capsule, 0.1, 0.2), {0.1, 0, 0.59}, along_x));
  ASSERT_EQ(on.count, 2);
  expect_vec(on.normal_W, kZ);
  expect_contact_at(on, {-0.1, 0, 0.495}, 0.01);
  expect_contact_at(on, {0.3, 0, 0.495}, 0.01);
  // Overhanging the edge: the part over the face.
  const ContactSet<double> over =
      collide_d(box, placed(shape_of(ShapeKind::Capsule, 0.1, 0.3), {0.5, 0, 0.59}, along_x));
  ASSERT_EQ(over.count, 2);
  expect_contact_at(over, {0.2, 0, 0.495}, 0.01);
  expect_contact_at(over, {0.5, 0, 0.495}, 0.01);
  // The axis through the box centre: out through the nearest side (depth 0.5 + r).
  const ContactSet<double> through = collide_d(box, placed(shape_of(ShapeKind::Capsule, 0.1, 0.2), {0, 0, 0}, along_x));
  EXPECT_NEAR(through.distance, -0.6, 1e-12);
  EXPECT_NEAR(std::fabs(through.normal_W.x), 0.0, 1e-12);
  ASSERT_EQ(through.count, 2);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(through.contact[i].depth, 0.6, 1e-12);
  // Across a box edge (axis along y over the edge x = z = 0.5): one edge contact.
  const ContactSet<double> edge = collide_d(
      box, placed(shape_of(ShapeKind::Capsule, 0.1, 0.3), V3{0.5, 0, 0.5} + (0.09 / std::sqrt(2.0)) * V3{1, 0, 1},
                  about(kX, M_PI / 2)));
  ASSERT_EQ(edge.count, 1);
  EXPECT_NEAR(edge.distance, -0.01, 1e-12);
  expect_vec(edge.normal_W, unit(V3{1, 0, 1}));
}

TEST(ContactGeometry, MarginGivesNearContacts) {
  const Placed a = placed(shape_of(ShapeKind::Sphere, 0.2), {0, 0, 0});
  const Placed b = placed(shape_of(ShapeKind::Sphere, 0.3), {0.51, 0, 0});
  const ContactSet<double> none = collide_d(a, b);
  EXPECT_EQ(none.count, 0);
  EXPECT_NEAR(none.distance, 0.01, 1e-12);
  expect_vec(none.normal_W, kX);
  const ContactSet<double> near = collide_d(a, b, 0.02);
  ASSERT_EQ(near.count, 1);
  EXPECT_NEAR(near.contact[0].depth, -0.01, 1e-12);
  expect_vec(near.contact[0].point_W, {0.205, 0, 0});
  const Placed box = placed(shape_of(ShapeKind::Box, 1.0, 1.0, 0.5), {0, 0, 0});
  const Placed top = placed(shape_of(ShapeKind::Box, 0.3, 0.2, 0.1), {0, 0, 0.61});
  EXPECT_EQ(collide_d(box, top).count, 0);
  const ContactSet<double> hover = collide_d(box, top, 0.02);
  ASSERT_EQ(hover.count, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(hover.contact[i].depth, -0.01, 1e-12);
}

TEST(ContactGeometry, UnsupportedPairsAreRefused) {
  const ShapeKind kinds[] = {ShapeKind::Plane, ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box,
                             ShapeKind::Cylinder};
  for (ShapeKind a : kinds)
    for (ShapeKind b : kinds) {
      const auto cylinder_with = [](ShapeKind k) {
        return k == ShapeKind::Plane || k == ShapeKind::Sphere || k == ShapeKind::Capsule;
      };
      const bool expected = !(a == ShapeKind::Plane && b == ShapeKind::Plane) &&
                            !(a == ShapeKind::Cylinder && !cylinder_with(b)) &&
                            !(b == ShapeKind::Cylinder && !cylinder_with(a));
      EXPECT_EQ(collide_supported(a, b), expected) << kind_name(a) << "-" << kind_name(b);
      ContactSet<double> s;
      const CollideStatus st = collide(shape_of(a, 0.5, 0.5, 0.5), ShapePose<double>{{0, 0, 0}, identity3<double>()},
                                       shape_of(b, 0.5, 0.5, 0.5), ShapePose<double>{{0, 0, 0.1}, identity3<double>()},
                                       0.0, s);
      EXPECT_EQ(st, expected ? CollideStatus::Ok : CollideStatus::Unsupported);
      if (!expected) {
        EXPECT_EQ(s.count, 0);
      }
    }
}

// ---- The pre-test and the shape helpers.

TEST(ContactGeometry, BoundingRadiusIsTheFarthestPoint) {
  std::mt19937_64 g(5);
  for (ShapeKind k : {ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box, ShapeKind::Cylinder})
    for (int trial = 0; trial < 5; ++trial) {
      const Placed b = placed(random_shape(k, g), {0, 0, 0}, random_quat(g));
      const double farthest = -minimize_on_sphere([&](const V3& u) { return -support(b, u); }, kink_axes(b));
      EXPECT_NEAR(bounding_radius(b.shape), farthest, 1e-9) << kind_name(k);
    }
  EXPECT_LT(bounding_radius(shape_of(ShapeKind::Plane, 0)), 0.0);
  EXPECT_FALSE(bounding_spheres_overlap(shape_of(ShapeKind::Sphere, 0.5), ShapePose<double>{{0, 0, 0}, identity3<double>()},
                                        shape_of(ShapeKind::Box, 0.1, 0.1, 0.1),
                                        ShapePose<double>{{0.7, 0, 0}, identity3<double>()}, 0.0));
}

TEST(ContactGeometry, ShapePoseComposesBodyAndShapeFrames) {
  Shape<double> s = shape_of(ShapeKind::Capsule, 0.1, 0.5);
  s.pos_B = {0.1, 0.2, 0.3};
  s.quat_B = about(kY, M_PI / 2);
  const ShapePose<double> p = shape_pose_W(s, V3{1, 0, 0}, about(kZ, M_PI / 2));
  expect_vec(p.pos_W, {0.8, 0.1, 0.3});
  expect_vec(rot_axis(p.rot_W, 2), kY);  // capsule axis: z_S -> x_B -> y_W
}

// ---- float.

TEST(ContactGeometry, FloatAgreesWithDouble) {
  auto to_float = [](const Placed& p) {
    Shape<float> s{};
    s.kind = p.shape.kind;
    for (int i = 0; i < 3; ++i) s.size[i] = static_cast<float>(p.shape.size[i]);
    s.quat_B = {1, 0, 0, 0};
    ShapePose<float> pose;
    pose.pos_W = {float(p.pose.pos_W.x), float(p.pose.pos_W.y), float(p.pose.pos_W.z)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) pose.rot_W.m[r][c] = static_cast<float>(p.pose.rot_W.m[r][c]);
    return std::make_pair(s, pose);
  };
  std::mt19937_64 g(77);
  const ShapeKind kinds[] = {ShapeKind::Plane, ShapeKind::Sphere, ShapeKind::Capsule, ShapeKind::Box,
                             ShapeKind::Cylinder};
  double worst = 0;
  for (ShapeKind a : kinds)
    for (ShapeKind b : kinds) {
      if (!collide_supported(a, b)) continue;
      for (int trial = 0; trial < 100; ++trial) {
        const auto pair = random_pair(a, b, g);
        const ContactSet<double> d = collide_d(pair.first, pair.second, 0.01);
        const auto fa = to_float(pair.first), fb = to_float(pair.second);
        ContactSet<float> f;
        ASSERT_EQ(collide(fa.first, fa.second, fb.first, fb.second, 0.01f, f), CollideStatus::Ok);
        const double scale = scale_of(pair.first, pair.second);
        // float rounding of poses and arithmetic: ~1e-7 of the scale per operation.
        const double tol = 2e-5 * scale + kEdgeAxisBias * std::fabs(d.distance);
        EXPECT_NEAR(f.distance, d.distance, tol) << kind_name(a) << "-" << kind_name(b) << " " << trial;
        worst = std::max(worst, std::fabs(f.distance - d.distance) / scale);
        // A capsule axis inside a cylinder takes the axis of the smallest of its overlaps
        // (the end faces', the side's), which jumps where two are equal: either is right.
        const bool capsule_axis_inside =
            (a == ShapeKind::Capsule && b == ShapeKind::Cylinder && -d.distance > pair.first.shape.size[0]) ||
            (b == ShapeKind::Capsule && a == ShapeKind::Cylinder && -d.distance > pair.second.shape.size[0]);
        if (std::fabs(d.distance) > 1e-3 * scale && d.count == f.count && !capsule_axis_inside) {
          const V3 nf = {f.normal_W.x, f.normal_W.y, f.normal_W.z};
          EXPECT_GT(dot(nf, d.normal_W), 1 - 1e-4) << kind_name(a) << "-" << kind_name(b) << " " << trial;
        }
      }
    }
  std::printf("float vs double: max |distance difference| / scale %.2e\n", worst);
}

}  // namespace
}  // namespace simphant
