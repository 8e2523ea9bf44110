#pragma once
// Collision geometry of the compliant contact model: for a pair of shapes placed in the
// world, the contact points, normal and penetration depths. Header-only __host__ __device__
// functions (scalar T = double or float), fixed-size and without recursion, shared by the
// CPU reference path and CUDA kernels.
//
// Conventions (docs/contact.md, Geometry):
//  - Every input pose and every output is in the world frame W (ShapePose, shapes.hpp).
//  - ContactSet::normal_W and each contact's normal_W are unit vectors pointing from
//    shape A (the first argument) to shape B: moving B along the normal separates them.
//  - depth > 0 is overlap [m]; a contact with depth in (-margin, 0] is a near contact,
//    reported only when margin > 0. A separated pair (distance >= margin) gives count 0.
//  - distance is the signed distance of the pair [m]: > 0 the gap, < 0 minus the
//    penetration depth, i.e. the length of the smallest translation of B (along
//    normal_W) that separates the shapes; it is set whether or not there are contacts.
//    It is exact for every pair but three: box-box separated reports the largest
//    separating-axis gap (a lower bound on the gap); box-box and capsule-box choose a
//    face axis over an edge-edge axis that is shallower by less than kEdgeAxisBias
//    (relative), so that resting contacts keep a stable face manifold; capsule-cylinder
//    whose axis enters the cylinder reports the smallest overlap over a family of
//    separating axes (faces, side, rim: capsule_axis_in_cylinder), an upper bound on the
//    penetration depth (the shapes separate by it along its normal); exact while the axis
//    is outside, i.e. for overlaps shallower than the capsule's radius.
//  - contact[i].point_W lies midway between the two surfaces: point + depth/2 normal is
//    on (or in) shape A, point - depth/2 normal on (or in) shape B (a capsule axis inside
//    a cylinder: on the plane of the cylinder's face or side, possibly beyond its rim).
//  - The deepest contact has depth -distance, except for deep box-box and capsule-box
//    overlaps whose deepest vertex lies outside the reference face (its clipped manifold
//    is then shallower), and for a capsule nearly parallel to another capsule or along a
//    cylinder (contacts at the ends of the overlap, shallower when the axes cross
//    slightly between them).
//  - Contacts come in no particular order. All contacts of a set share normal_W, except
//    a capsule nearly parallel to another capsule or along a cylinder's side, whose two
//    contacts carry their own closest-point normals.
//
// Pairs (collide() accepts either order and flips the result):
//   plane-sphere, plane-capsule (up to 2: the capsule ends), plane-box (up to 4 corners,
//   the deepest), plane-cylinder (up to 4 rim points), sphere-sphere, sphere-capsule,
//   sphere-box, sphere-cylinder, capsule-capsule (2 when parallel and overlapping),
//   capsule-box (2 when the capsule lies along a face), capsule-cylinder (2 when the
//   capsule lies along the curved side or across an end face), box-box (up to 4:
//   separating axis test over the 15 axes, then the incident face clipped against the
//   reference face), bearing-journal (1: a clearance joint's journal against its bore).
// Not supported (CollideStatus::Unsupported; the loader refuses such pairs): plane-plane,
// box-cylinder, cylinder-cylinder, and a bearing or journal with any other kind.
#include "simphant/contact/shapes.hpp"

namespace simphant {

/// Capacity of a ContactSet: the most contacts one pair produces.
constexpr int kMaxContacts = 4;

/// Relative depth by which an edge-edge separating axis must beat the best face axis to
/// be chosen (box-box, capsule-box); below it the face manifold is kept.
constexpr double kEdgeAxisBias = 1e-4;

/// One contact point (world frame).
template <class T>
struct ContactPoint {
  Vec3<T> point_W;   ///< midway between the two surfaces [m]
  Vec3<T> normal_W;  ///< unit, from shape A to shape B
  T depth;           ///< overlap along normal_W [m]; < 0 only within a margin
};

/// The contacts of one pair (world frame).
template <class T, int N = kMaxContacts>
struct ContactSet {
  int count;             ///< contacts in contact[0 .. count)
  T distance;            ///< signed distance of the pair [m] (< 0: overlap)
  Vec3<T> normal_W;      ///< unit, from A to B: the direction of `distance`
  ContactPoint<T> contact[N];
};

enum class CollideStatus : int { Ok = 0, Unsupported = 1 };

namespace collide_detail {

SP_HD constexpr double machine_eps(double) { return 2.220446049250313e-16; }
SP_HD constexpr float machine_eps(float) { return 1.1920929e-7f; }

template <class T> SP_HD T clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
template <class T> SP_HD T sign_of(T x) { return x < T(0) ? T(-1) : T(1); }

/// A unit vector perpendicular to v (z when v = 0).
template <class T>
SP_HD Vec3<T> any_perpendicular(const Vec3<T>& v) {
  const T ax = lane_abs(v.x), ay = lane_abs(v.y), az = lane_abs(v.z);
  const Vec3<T> e = (ax <= ay && ax <= az) ? Vec3<T>{T(1), T(0), T(0)}
                    : (ay <= az)           ? Vec3<T>{T(0), T(1), T(0)}
                                           : Vec3<T>{T(0), T(0), T(1)};
  const Vec3<T> p = cross(v, e);
  const T n = norm(p);
  return n > T(0) ? (T(1) / n) * p : Vec3<T>{T(0), T(0), T(1)};
}

template <class T, int N = kMaxContacts>
SP_HD ContactSet<T, N> no_contact(T distance, const Vec3<T>& normal_W) {
  ContactSet<T, N> s = {};
  s.distance = distance;
  s.normal_W = normal_W;
  return s;
}

template <class T, int N>
SP_HD void push(ContactSet<T, N>& s, const Vec3<T>& point_W, const Vec3<T>& normal_W, T depth) {
  if (s.count < N) {
    s.contact[s.count] = {point_W, normal_W, depth};
    ++s.count;
  }
}

/// The same contacts seen from the other shape: normals negated.
template <class T, int N>
SP_HD ContactSet<T, N> flipped(ContactSet<T, N> s) {
  s.normal_W = -s.normal_W;
  for (int i = 0; i < s.count; ++i) s.contact[i].normal_W = -s.contact[i].normal_W;
  return s;
}

/// Closest points of the segments P1 + s d1 and P2 + t d2, s, t in [0, 1] (either may have
/// zero length). Parallel segments get one of the closest pairs.
template <class T>
SP_HD void closest_segments(const Vec3<T>& P1, const Vec3<T>& d1, const Vec3<T>& P2, const Vec3<T>& d2, T& s,
                            T& t) {
  const Vec3<T> r = P1 - P2;
  const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  s = T(0);
  t = T(0);
  if (a <= T(0) && e <= T(0)) return;
  if (a <= T(0)) {
    t = clamp(f / e, T(0), T(1));
    return;
  }
  const T c = dot(d1, r);
  if (e <= T(0)) {
    s = clamp(-c / a, T(0), T(1));
    return;
  }
  const T b = dot(d1, d2);
  const T denom = a * e - b * b;  // a e sin^2 of the angle between the segments
  s = denom > machine_eps(T()) * a * e ? clamp((b * f - c * e) / denom, T(0), T(1)) : T(0);
  t = (b * s + f) / e;
  if (t < T(0)) {
    t = T(0);
    s = clamp(-c / a, T(0), T(1));
  } else if (t > T(1)) {
    t = T(1);
    s = clamp((b - c) / a, T(0), T(1));
  }
}

/// Parameter in [0, 1] of the point of the segment P + t d closest to x.
template <class T>
SP_HD T closest_on_segment(const Vec3<T>& P, const Vec3<T>& d, const Vec3<T>& x) {
  const T a = dot(d, d);
  return a > T(0) ? clamp(dot(x - P, d) / a, T(0), T(1)) : T(0);
}

/// Two spheres: the core of every pair of dilated points and segments. n_fallback (unit)
/// is the normal when the centres coincide.
template <class T>
SP_HD ContactSet<T> spheres(const Vec3<T>& cA, T rA, const Vec3<T>& cB, T rB, const Vec3<T>& n_fallback, T margin) {
  const Vec3<T> d = cB - cA;
  const T len = norm(d);
  const T tiny = T(16) * machine_eps(T()) * (rA + rB + norm(cA) + norm(cB));
  const Vec3<T> n = len > tiny ? (T(1) / len) * d : n_fallback;
  const T dist = len - rA - rB;
  ContactSet<T> s = no_contact(dist, n);
  if (dist < margin) push(s, T(0.5) * ((cA + rA * n) + (cB - rB * n)), n, -dist);
  return s;
}

/// Keeps the contact (point, depth) in a list of at most 4, replacing the shallowest one
/// when the list is full and the new contact is deeper.
template <class T>
SP_HD void keep_deepest4(Vec3<T> (&pts)[4], T (&depths)[4], int& n, const Vec3<T>& p, T depth) {
  if (n < 4) {
    pts[n] = p;
    depths[n] = depth;
    ++n;
    return;
  }
  int k = 0;
  for (int i = 1; i < 4; ++i)
    if (depths[i] < depths[k]) k = i;
  if (depth > depths[k]) {
    pts[k] = p;
    depths[k] = depth;
  }
}

/// Points of a convex solid (given by its surface points x below the plane at heights
/// h = (x - o) . n) as plane contacts: midway between x and its projection on the plane.
template <class T>
SP_HD ContactSet<T> plane_contacts(const Vec3<T> (&x)[8], const T (&h)[8], int nx, const Vec3<T>& n, T dist,
                                   T margin) {
  ContactSet<T> s = no_contact(dist, n);
  if (!(dist < margin)) return s;
  Vec3<T> pts[4];
  T depths[4];
  int np = 0;
  for (int i = 0; i < nx; ++i)
    if (-h[i] > -margin) keep_deepest4(pts, depths, np, x[i] - (T(0.5) * h[i]) * n, -h[i]);
  for (int i = 0; i < np; ++i) push(s, pts[i], n, depths[i]);
  return s;
}

/// Whether an edge-edge axis with separation edge_sep replaces the best face axis
/// (separation face_sep); scale: a length of the shapes for the roundoff allowance.
template <class T>
SP_HD bool edge_axis_wins(T edge_sep, T face_sep, T scale) {
  return edge_sep > face_sep + T(kEdgeAxisBias) * lane_abs(face_sep) + T(64) * machine_eps(T()) * scale;
}

/// Clips the parameter range [t0, t1] of x(t) = P + t D to the slab |x_j| <= h. Returns
/// false if the range becomes empty.
template <class T>
SP_HD bool clip_to_slab(const Vec3<T>& P, const Vec3<T>& D, int j, T h, T& t0, T& t1) {
  if (D[j] == T(0)) return lane_abs(P[j]) <= h;
  T ta = (-h - P[j]) / D[j], tb = (h - P[j]) / D[j];
  if (ta > tb) {
    const T tmp = ta;
    ta = tb;
    tb = tmp;
  }
  t0 = lane_max(t0, ta);
  t1 = lane_min(t1, tb);
  return t0 <= t1;
}

/// Squared distance from x to the box |x_i| <= h_i (box frame).
template <class T>
SP_HD T box_sq_distance(const Vec3<T>& x, const T (&h)[3]) {
  T f = T(0);
  for (int i = 0; i < 3; ++i) {
    const T e = lane_abs(x[i]) - h[i];
    if (e > T(0)) f += e * e;
  }
  return f;
}

/// Parameter t in [0, 1] of the point of the segment P + t D (box frame) closest to the
/// box |x_i| <= h_i, and its squared distance f. The squared distance is a convex
/// piecewise quadratic in t with breaks where a coordinate crosses +-h_i: each piece is
/// minimised in closed form.
template <class T>
SP_HD T segment_box_closest(const Vec3<T>& P, const Vec3<T>& D, const T (&h)[3], T& f_min) {
  T ts[8];
  int nt = 0;
  ts[nt++] = T(0);
  for (int i = 0; i < 3; ++i) {
    if (D[i] == T(0)) continue;
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      const T t = (T(sgn) * h[i] - P[i]) / D[i];
      if (t > T(0) && t < T(1)) ts[nt++] = t;
    }
  }
  ts[nt++] = T(1);
  for (int i = 1; i < nt; ++i)  // insertion sort of at most 8 values
    for (int k = i; k > 0 && ts[k] < ts[k - 1]; --k) {
      const T tmp = ts[k];
      ts[k] = ts[k - 1];
      ts[k - 1] = tmp;
    }
  T t_best = T(0);
  f_min = box_sq_distance(P, h);
  for (int k = 0; k + 1 < nt; ++k) {
    const T ta = ts[k], tb = ts[k + 1];
    const T tm = T(0.5) * (ta + tb);
    T num = T(0), den = T(0);
    for (int i = 0; i < 3; ++i) {
      const T xm = P[i] + tm * D[i];
      if (lane_abs(xm) > h[i]) {
        const T target = xm > T(0) ? h[i] : -h[i];
        num += D[i] * (P[i] - target);
        den += D[i] * D[i];
      }
    }
    const T t = den > T(0) ? clamp(-num / den, ta, tb) : tm;
    const T f = box_sq_distance(P + t * D, h);
    if (f < f_min) {
      f_min = f;
      t_best = t;
    }
  }
  return t_best;
}

/// Capsule contacts along a face of a box (box frame): the capsule segment P + t D,
/// t in [t0, t1] (already clipped to the face), against the face sigma x_k = h_k whose
/// outward normal n = sigma e_k points from the box to the capsule.
template <class T>
SP_HD void push_face_segment(ContactSet<T>& s, const ShapePose<T>& box_W, const Vec3<T>& P, const Vec3<T>& D,
                             T t0, T t1, int k, T sigma, T hk, T r, T margin, T scale) {
  Vec3<T> n = zero3<T>();
  n[k] = sigma;
  const Vec3<T> n_W = mul(box_W.rot_W, n);
  const int ends = norm((t1 - t0) * D) > T(1e-6) * scale ? 2 : 1;
  for (int e = 0; e < ends; ++e) {
    const T t = e == 0 ? t0 : t1;
    const Vec3<T> x = P + t * D;
    const T height = sigma * x[k] - hk;
    if (r - height > -margin)
      push(s, box_W.pos_W + mul(box_W.rot_W, x - (T(0.5) * (r + height)) * n), n_W, r - height);
  }
}

/// Separation of two boxes along the unit axis L (A's frame): C[i][j] = a_i . b_j, t the
/// centre of B in A's frame; sigma gets the sign of L that points from A to B.
template <class T>
SP_HD T box_box_separation(const Vec3<T>& L, const T (&hA)[3], const T (&hB)[3], const Mat3<T>& C,
                           const Vec3<T>& t, T& sigma) {
  const T rA = hA[0] * lane_abs(L.x) + hA[1] * lane_abs(L.y) + hA[2] * lane_abs(L.z);
  T rB = T(0);
  for (int j = 0; j < 3; ++j) rB += hB[j] * lane_abs(L.x * C.m[0][j] + L.y * C.m[1][j] + L.z * C.m[2][j]);
  const T proj = dot(t, L);
  sigma = sign_of(proj);
  return lane_abs(proj) - rA - rB;
}

/// Twice the signed area of the triangle (a, b, c) seen along n.
template <class T>
SP_HD T signed_area(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c, const Vec3<T>& n) {
  return dot(cross(b - a, c - a), n);
}

/// Among the points whose score is within a relative 1e-6 of the largest positive score,
/// the deepest (so that near-ties do not depend on the order of the points); -1 if no
/// score is positive.
template <class T>
SP_HD int best_scored(const T (&score)[8], const T (&depth)[8], int np) {
  T top = T(0);
  for (int i = 0; i < np; ++i) top = lane_max(top, score[i]);
  int best = -1;
  for (int i = 0; i < np; ++i)
    if (top > T(0) && score[i] >= top * T(1 - 1e-6) && (best < 0 || depth[i] > depth[best])) best = i;
  return best;
}

/// Reduces at most 8 coplanar contact points (plane normal n) to 4 that span a large area:
/// the deepest, the one farthest from it, the one farthest from the line through these
/// two, and the one that adds the most area to their triangle. The choice depends neither
/// on the sign of n nor on the order of the points.
template <class T>
SP_HD void reduce_to_4(const Vec3<T> (&p)[8], const T (&depth)[8], int np, const Vec3<T>& n, int (&keep)[4],
                       int& nk) {
  nk = 0;
  if (np <= 4) {
    for (int i = 0; i < np; ++i) keep[nk++] = i;
    return;
  }
  int i0 = 0;
  for (int i = 1; i < np; ++i)
    if (depth[i] > depth[i0]) i0 = i;
  keep[nk++] = i0;
  T score[8];
  for (int i = 0; i < np; ++i) score[i] = dot(p[i] - p[i0], p[i] - p[i0]);
  const int i1 = best_scored(score, depth, np);
  if (i1 < 0) return;
  keep[nk++] = i1;
  for (int i = 0; i < np; ++i) score[i] = lane_abs(signed_area(p[i0], p[i1], p[i], n));
  const int i2 = best_scored(score, depth, np);
  if (i2 < 0) return;
  keep[nk++] = i2;
  // p_i outside an edge of the triangle adds the area of the triangle it spans with it.
  const T orient = sign_of(signed_area(p[i0], p[i1], p[i2], n));
  for (int i = 0; i < np; ++i)
    score[i] = -lane_min(orient * signed_area(p[i0], p[i1], p[i], n),
                         lane_min(orient * signed_area(p[i1], p[i2], p[i], n),
                                  orient * signed_area(p[i2], p[i0], p[i], n)));
  const int i3 = best_scored(score, depth, np);
  if (i3 >= 0) keep[nk++] = i3;
}

/// Gradient at x (cylinder frame) of the signed distance to the solid cylinder
/// rho <= rc, |z| <= half (> 0 outside, < 0 inside; a convex function of x): the outward
/// unit normal towards x from its nearest surface point (x inside: of the nearest surface;
/// on the axis the radial direction is taken along x).
template <class T>
SP_HD Vec3<T> cylinder_distance_gradient(const Vec3<T>& x, T rc, T half) {
  const T rho = lane_sqrt(x.x * x.x + x.y * x.y);
  const Vec3<T> radial = rho > T(0) ? Vec3<T>{x.x / rho, x.y / rho, T(0)} : Vec3<T>{T(1), T(0), T(0)};
  const Vec3<T> axial = {T(0), T(0), sign_of(x.z)};
  const T dr = rho - rc, dz = lane_abs(x.z) - half;
  const T out_r = lane_max(dr, T(0)), out_z = lane_max(dz, T(0));
  const T out = lane_sqrt(out_r * out_r + out_z * out_z);
  if (out > T(0)) return (out_r / out) * radial + (out_z / out) * axial;
  return dr > dz ? radial : axial;
}

/// Bisection steps of segment_cylinder_deepest: the bracket halves per step, to 1e-18
/// of the segment after 60, below double rounding of its points.
constexpr int kDeepestBisections = 60;

/// Parameter t in [0, 1] of the point of the segment P + t D (cylinder frame) with the
/// smallest signed distance to the solid cylinder (rc, half). The signed distance to a
/// convex set is convex along a line, so its derivative along the segment (the gradient
/// cylinder_distance_gradient dotted with D) is nondecreasing: the minimum is an end
/// where that derivative points outward, else where it changes sign, found by bisection.
template <class T>
SP_HD T segment_cylinder_deepest(const Vec3<T>& P, const Vec3<T>& D, T rc, T half) {
  const auto slope = [&](T t) { return dot(cylinder_distance_gradient(P + t * D, rc, half), D); };
  if (!(slope(T(0)) < T(0))) return T(0);
  if (!(slope(T(1)) > T(0))) return T(1);
  T a = T(0), b = T(1);
  for (int k = 0; k < kDeepestBisections; ++k) {
    const T m = T(0.5) * (a + b);
    const T g = slope(m);
    if (g < T(0)) {
      a = m;
    } else if (g > T(0)) {
      b = m;
    } else {
      return m;
    }
  }
  return T(0.5) * (a + b);
}

}  // namespace collide_detail

/// Cheap pre-test: false only if the shapes' bounding spheres (a plane: its half-space) are
/// farther apart than margin, so that collide() would give no contact. Two planes: false.
template <class T>
SP_HD bool bounding_spheres_overlap(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                    const ShapePose<T>& b_W, T margin) {
  const T ra = bounding_radius(a), rb = bounding_radius(b);
  if (ra < T(0) && rb < T(0)) return false;
  if (ra < T(0)) return dot(b_W.pos_W - a_W.pos_W, rot_axis(a_W.rot_W, 2)) <= rb + margin;
  if (rb < T(0)) return dot(a_W.pos_W - b_W.pos_W, rot_axis(b_W.rot_W, 2)) <= ra + margin;
  const Vec3<T> d = b_W.pos_W - a_W.pos_W;
  const T reach = ra + rb + margin;
  return dot(d, d) <= reach * reach;
}

// ---- Pair functions. A and B are given as (shape, world pose); only the kind and sizes of
// a Shape are read (its body-frame pose is already in the ShapePose). margin >= 0 [m].

/// Plane (A) - sphere (B): one contact.
template <class T>
SP_HD ContactSet<T> collide_plane_sphere(const Shape<T>&, const ShapePose<T>& a_W, const Shape<T>& b,
                                         const ShapePose<T>& b_W, T margin) {
  const Vec3<T> n = rot_axis(a_W.rot_W, 2);
  const T r = b.size[0];
  const T h = dot(b_W.pos_W - a_W.pos_W, n);
  ContactSet<T> s = collide_detail::no_contact(h - r, n);
  if (h - r < margin) collide_detail::push(s, b_W.pos_W - (T(0.5) * (h + r)) * n, n, r - h);
  return s;
}

/// Plane (A) - capsule (B): one contact per capsule end within the margin (2 when lying).
template <class T>
SP_HD ContactSet<T> collide_plane_capsule(const Shape<T>&, const ShapePose<T>& a_W, const Shape<T>& b,
                                          const ShapePose<T>& b_W, T margin) {
  const Vec3<T> n = rot_axis(a_W.rot_W, 2);
  const T r = b.size[0];
  const Vec3<T> half = b.size[1] * rot_axis(b_W.rot_W, 2);
  const Vec3<T> ends[2] = {b_W.pos_W - half, b_W.pos_W + half};
  const T h[2] = {dot(ends[0] - a_W.pos_W, n), dot(ends[1] - a_W.pos_W, n)};
  ContactSet<T> s = collide_detail::no_contact(lane_min(h[0], h[1]) - r, n);
  const int n_ends = b.size[1] > T(0) ? 2 : 1;
  for (int i = 0; i < n_ends; ++i)
    if (h[i] - r < margin) collide_detail::push(s, ends[i] - (T(0.5) * (h[i] + r)) * n, n, r - h[i]);
  return s;
}

/// Plane (A) - box (B): the corners within the margin, at most the 4 deepest.
template <class T>
SP_HD ContactSet<T> collide_plane_box(const Shape<T>&, const ShapePose<T>& a_W, const Shape<T>& b,
                                      const ShapePose<T>& b_W, T margin) {
  const Vec3<T> n = rot_axis(a_W.rot_W, 2);
  const T hc = dot(b_W.pos_W - a_W.pos_W, n);
  Vec3<T> x[8];
  T h[8];
  T dist = hc;
  for (int i = 0; i < 8; ++i) {
    x[i] = b_W.pos_W;
    h[i] = hc;
    for (int k = 0; k < 3; ++k) {
      const T sgn = (i >> k) & 1 ? T(1) : T(-1);
      const Vec3<T> e = (sgn * b.size[k]) * rot_axis(b_W.rot_W, k);
      x[i] += e;
      h[i] += dot(e, n);
    }
    dist = lane_min(dist, h[i]);
  }
  return collide_detail::plane_contacts(x, h, 8, n, dist, margin);
}

/// Plane (A) - cylinder (B): up to 4 rim points: on the lower end disc the lowest point and
/// the points 90 and 180 degrees from it, and the lowest point of the upper disc (a
/// cylinder standing on its end gets 4 contacts, one lying on its side 2).
template <class T>
SP_HD ContactSet<T> collide_plane_cylinder(const Shape<T>&, const ShapePose<T>& a_W, const Shape<T>& b,
                                           const ShapePose<T>& b_W, T margin) {
  const Vec3<T> n = rot_axis(a_W.rot_W, 2);
  const Vec3<T> ax = rot_axis(b_W.rot_W, 2);
  const T r = b.size[0], half = b.size[1];
  const T cs = dot(ax, n);
  const Vec3<T> w = n - cs * ax;  // the plane normal's part across the axis
  const T wl = norm(w);
  const Vec3<T> down = wl > T(16) * collide_detail::machine_eps(T()) ? (T(-1) / wl) * w
                                                                    : collide_detail::any_perpendicular(ax);
  const Vec3<T> side = cross(ax, down);
  const T sgn = collide_detail::sign_of(cs);
  const Vec3<T> c_low = b_W.pos_W - (sgn * half) * ax, c_high = b_W.pos_W + (sgn * half) * ax;
  const Vec3<T> x[8] = {c_low + r * down, c_low + r * side, c_low - r * side, c_low - r * down, c_high + r * down};
  T h[8];
  for (int i = 0; i < 5; ++i) h[i] = dot(x[i] - a_W.pos_W, n);
  const T dist = dot(b_W.pos_W - a_W.pos_W, n) - lane_abs(cs) * half - r * wl;
  return collide_detail::plane_contacts(x, h, 5, n, dist, margin);
}

/// Sphere (A) - sphere (B): one contact.
template <class T>
SP_HD ContactSet<T> collide_sphere_sphere(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                          const ShapePose<T>& b_W, T margin) {
  return collide_detail::spheres(a_W.pos_W, a.size[0], b_W.pos_W, b.size[0], Vec3<T>{T(0), T(0), T(1)}, margin);
}

/// Sphere (A) - capsule (B): one contact.
template <class T>
SP_HD ContactSet<T> collide_sphere_capsule(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                           const ShapePose<T>& b_W, T margin) {
  const Vec3<T> ax = rot_axis(b_W.rot_W, 2);
  const Vec3<T> P = b_W.pos_W - b.size[1] * ax, D = (T(2) * b.size[1]) * ax;
  const Vec3<T> q = P + collide_detail::closest_on_segment(P, D, a_W.pos_W) * D;
  return collide_detail::spheres(a_W.pos_W, a.size[0], q, b.size[0], collide_detail::any_perpendicular(ax), margin);
}

/// Capsule (A) - capsule (B): one contact at the closest points of the axes, or, when the
/// axes are parallel (within 1e-3 rad) and overlap along their length, one at each end of
/// the overlap.
template <class T>
SP_HD ContactSet<T> collide_capsule_capsule(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                            const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T rA = a.size[0], rB = b.size[0];
  const Vec3<T> axA = rot_axis(a_W.rot_W, 2), axB = rot_axis(b_W.rot_W, 2);
  const Vec3<T> P1 = a_W.pos_W - a.size[1] * axA, d1 = (T(2) * a.size[1]) * axA;
  const Vec3<T> P2 = b_W.pos_W - b.size[1] * axB, d2 = (T(2) * b.size[1]) * axB;
  T s, t;
  closest_segments(P1, d1, P2, d2, s, t);
  const Vec3<T> c = cross(axA, axB);
  const T sin2 = dot(c, c);
  const Vec3<T> fallback = sin2 > T(1e-12) ? (T(1) / lane_sqrt(sin2)) * c : any_perpendicular(axA);
  const ContactSet<T> closest = spheres(P1 + s * d1, rA, P2 + t * d2, rB, fallback, margin);
  const T a2 = dot(d1, d1), e2 = dot(d2, d2);
  if (closest.count == 0 || !(a2 > T(0)) || !(e2 > T(0)) || sin2 > T(1e-6)) return closest;
  // Parallel: the part of B's segment that faces A's, as a parameter range on A's.
  const T sq0 = dot(P2 - P1, d1) / a2, sq1 = dot(P2 + d2 - P1, d1) / a2;
  const T lo = lane_max(T(0), lane_min(sq0, sq1)), hi = lane_min(T(1), lane_max(sq0, sq1));
  if (!((hi - lo) * lane_sqrt(a2) > T(1e-3) * (rA + rB))) return closest;
  ContactSet<T> out = no_contact(closest.distance, closest.normal_W);
  for (int e = 0; e < 2; ++e) {
    const Vec3<T> pa = P1 + (e == 0 ? lo : hi) * d1;
    const Vec3<T> pb = P2 + closest_on_segment(P2, d2, pa) * d2;
    const ContactSet<T> end = spheres(pa, rA, pb, rB, closest.normal_W, margin);
    if (end.count > 0) push(out, end.contact[0].point_W, end.contact[0].normal_W, end.contact[0].depth);
  }
  return out.count > 0 ? out : closest;
}

/// Sphere (A) - box (B): one contact; a centre inside the box leaves by the nearest face.
template <class T>
SP_HD ContactSet<T> collide_sphere_box(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                       const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T r = a.size[0];
  const T h[3] = {b.size[0], b.size[1], b.size[2]};
  const Vec3<T> p = mul_t(b_W.rot_W, a_W.pos_W - b_W.pos_W);  // sphere centre, box frame
  Vec3<T> q = {clamp(p.x, -h[0], h[0]), clamp(p.y, -h[1], h[1]), clamp(p.z, -h[2], h[2])};
  const T d = norm(p - q);
  const T tiny = T(16) * machine_eps(T()) * (h[0] + h[1] + h[2] + norm(p));
  Vec3<T> n;  // box -> sphere, box frame
  T dist;
  if (d > tiny) {
    n = (T(1) / d) * (p - q);
    dist = d - r;
  } else {  // centre inside: leave by the nearest face
    int k = 0;
    for (int i = 1; i < 3; ++i)
      if (h[i] - lane_abs(p[i]) < h[k] - lane_abs(p[k])) k = i;
    n = zero3<T>();
    n[k] = sign_of(p[k]);
    q[k] = n[k] * h[k];
    dist = -(h[k] - lane_abs(p[k])) - r;
  }
  const Vec3<T> n_W = mul(b_W.rot_W, n);
  ContactSet<T> s = no_contact(dist, -n_W);
  if (dist < margin) {
    const Vec3<T> mid = T(0.5) * ((p - r * n) + q);
    push(s, b_W.pos_W + mul(b_W.rot_W, mid), -n_W, -dist);
  }
  return s;
}

/// Sphere (A) - cylinder (B): one contact; a centre inside leaves by the nearest surface.
template <class T>
SP_HD ContactSet<T> collide_sphere_cylinder(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                            const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T R = a.size[0], rc = b.size[0], half = b.size[1];
  const Vec3<T> p = mul_t(b_W.rot_W, a_W.pos_W - b_W.pos_W);  // sphere centre, cylinder frame
  const T rho = lane_sqrt(p.x * p.x + p.y * p.y);
  const Vec3<T> radial = rho > T(0) ? Vec3<T>{p.x / rho, p.y / rho, T(0)} : Vec3<T>{T(1), T(0), T(0)};
  // Closest point of the solid cylinder (a disc times an interval): clamp each part.
  Vec3<T> q = rho > rc ? Vec3<T>{rc * radial.x, rc * radial.y, p.z} : p;
  q.z = clamp(p.z, -half, half);
  const T d = norm(p - q);
  const T tiny = T(16) * machine_eps(T()) * (rc + half + norm(p));
  Vec3<T> n;  // cylinder -> sphere, cylinder frame
  T dist;
  if (d > tiny) {
    n = (T(1) / d) * (p - q);
    dist = d - R;
  } else if (rc - rho < half - lane_abs(p.z)) {  // inside, nearest the curved side
    n = radial;
    q = Vec3<T>{rc * radial.x, rc * radial.y, p.z};
    dist = -(rc - rho) - R;
  } else {  // inside, nearest an end
    n = Vec3<T>{T(0), T(0), sign_of(p.z)};
    q.z = n.z * half;
    dist = -(half - lane_abs(p.z)) - R;
  }
  const Vec3<T> n_W = mul(b_W.rot_W, n);
  ContactSet<T> s = no_contact(dist, -n_W);
  if (dist < margin) push(s, b_W.pos_W + mul(b_W.rot_W, T(0.5) * ((p - R * n) + q)), -n_W, -dist);
  return s;
}

/// Overlap [m] along the unit direction u (cylinder frame) of the cylinder (rc, half) and
/// the capsule of radius r on the segment [P, Q]: h_cylinder(u) + h_capsule(-u).
template <class T>
SP_HD T capsule_cylinder_overlap(const Vec3<T>& P, const Vec3<T>& Q, T r, T rc, T half, const Vec3<T>& u) {
  return half * lane_abs(u.z) + rc * lane_sqrt(u.x * u.x + u.y * u.y) + r - lane_min(dot(P, u), dot(Q, u));
}

/// Samples and golden-section steps of the angle search of capsule_axis_in_cylinder.
constexpr int kAxisAngleSamples = 32, kAxisAngleRefinements = 40;

/// Capsule (A) - cylinder (B) whose axis P + t D (cylinder frame, t in [0, 1]) enters the
/// cylinder (rc, half); P + t_star D is the axis's point deepest in it. Separating axes: in
/// the vertical planes through the cylinder's axis and four radial directions (to the
/// segment's projection's nearest point, to the deepest point, to each end), every direction from
/// the one end face's normal over the side to the other's (33 samples of the angle, then
/// golden-section steps about the best). These hold the end faces, the side and the rim
/// edge towards those points, so the depth goes on continuously from the exact shallow
/// one as the axis enters over a face, the side or the rim. The smallest overlap is the
/// depth (the shapes separate by it along its axis: an upper bound on the penetration
/// depth), its axis the normal. Contacts: the segment's end deepest along the normal; or,
/// the segment within 1e-3 rad of perpendicular to it, the two ends of its part inside
/// the solid cylinder (the deepest point where that part is shorter than 1e-3 (r + rc));
/// each midway between the capsule's surface point and the cylinder's support plane on the
/// normal's line through it (so that the depth's rate is the normal velocity there; the
/// plane's point may lie beyond the rim). Normals from A to B.
template <class T>
SP_HD ContactSet<T> capsule_axis_in_cylinder(const Vec3<T>& P, const Vec3<T>& D, T t_star, T r, T rc, T half,
                                              const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  using std::cos;  // as math/small.hpp calls them
  using std::sin;
  const Vec3<T> Q = P + D;
  const T scale = rc + half + r + norm(D) + norm(P);
  const T tiny = T(16) * machine_eps(T()) * scale;
  // Radial directions: to the projected segment's nearest point to the axis (across the
  // axis: perpendicular to the projection), to the deepest point, to each end.
  const T dxy = D.x * D.x + D.y * D.y;
  const T tq = dxy > T(0) ? clamp(-(P.x * D.x + P.y * D.y) / dxy, T(0), T(1)) : T(0);
  const Vec3<T> q = P + tq * D;
  Vec3<T> radial[4] = {q, P + t_star * D, P, Q};
  int n_radial = 0;
  for (int k = 0; k < 4; ++k) {
    const T l = lane_sqrt(radial[k].x * radial[k].x + radial[k].y * radial[k].y);
    if (l > tiny) radial[n_radial++] = Vec3<T>{radial[k].x / l, radial[k].y / l, T(0)};
  }
  if (n_radial == 0)  // the segment on the axis: any radial direction
    radial[n_radial++] = dxy > T(0) ? Vec3<T>{-D.y / lane_sqrt(dxy), D.x / lane_sqrt(dxy), T(0)}
                                    : Vec3<T>{T(1), T(0), T(0)};
  const T pi = T(3.14159265358979323846);
  const Vec3<T> z = {T(0), T(0), T(1)};
  T depth = T(0);
  Vec3<T> n = z;  // cylinder -> capsule
  for (int k = 0; k < n_radial; ++k) {
    const auto at = [&](T angle) { return cos(angle) * radial[k] + sin(angle) * z; };
    const auto overlap = [&](T angle) { return capsule_cylinder_overlap(P, Q, r, rc, half, at(angle)); };
    T best = -pi / T(2), f_best = overlap(best);
    for (int j = 1; j <= kAxisAngleSamples; ++j) {
      const T angle = -pi / T(2) + T(j) * pi / T(kAxisAngleSamples);
      const T f = overlap(angle);
      if (f < f_best) {
        f_best = f;
        best = angle;
      }
    }
    const T g = T(0.6180339887498949);  // (sqrt 5 - 1) / 2
    T lo = lane_max(best - pi / T(kAxisAngleSamples), -pi / T(2)), hi = lane_min(best + pi / T(kAxisAngleSamples), pi / T(2));
    T a1 = hi - g * (hi - lo), a2 = lo + g * (hi - lo), f1 = overlap(a1), f2 = overlap(a2);
    for (int j = 0; j < kAxisAngleRefinements; ++j) {
      if (f1 <= f2) {
        hi = a2;
        a2 = a1;
        f2 = f1;
        a1 = hi - g * (hi - lo);
        f1 = overlap(a1);
      } else {
        lo = a1;
        a1 = a2;
        f1 = f2;
        a2 = lo + g * (hi - lo);
        f2 = overlap(a2);
      }
    }
    if (f1 < f_best) {
      f_best = f1;
      best = a1;
    }
    if (f2 < f_best) {
      f_best = f2;
      best = a2;
    }
    if (k == 0 || f_best < depth) {
      depth = f_best;
      n = at(best);
    }
  }
  const Vec3<T> n_W = mul(b_W.rot_W, n);
  ContactSet<T> s = no_contact(-depth, -n_W);
  if (!(-depth < margin)) return s;
  // The contacts' points of the segment, t: the deeper end; or, the segment lying across
  // the normal (every point equally deep along it), the two ends of its part inside the
  // solid cylinder (within the disc's radius and the faces' heights), or the deepest
  // point where that part is too short.
  const T h = half * lane_abs(n.z) + rc * lane_sqrt(n.x * n.x + n.y * n.y);  // the cylinder's support along n
  const T dn = dot(D, n), len = norm(D);
  T ts[2] = {dn >= T(0) ? T(0) : T(1), T(0)};
  int nt = 1;
  if (lane_abs(dn) <= T(1e-3) * len) {
    T lo = T(0), hi = T(1);
    // |P_xy + t D_xy| <= rc: the roots of dxy t^2 + 2 qb t + qc = 0.
    const T qb = P.x * D.x + P.y * D.y, qc = P.x * P.x + P.y * P.y - rc * rc, disc = qb * qb - dxy * qc;
    if (dxy > T(0)) {
      const T sq = lane_sqrt(lane_max(disc, T(0)));
      lo = lane_max(lo, (-qb - sq) / dxy);
      hi = lane_min(hi, (-qb + sq) / dxy);
    }
    if (D.z != T(0)) {
      const T a = (-half - P.z) / D.z, b = (half - P.z) / D.z;
      lo = lane_max(lo, lane_min(a, b));
      hi = lane_min(hi, lane_max(a, b));
    }
    if ((hi - lo) * len > T(1e-3) * (r + rc)) {
      ts[0] = lo;
      ts[1] = hi;
      nt = 2;
    } else {
      ts[0] = t_star;
    }
  }
  for (int e = 0; e < nt; ++e) {
    const Vec3<T> p = P + ts[e] * D;
    const Vec3<T> on_capsule = p - r * n, on_plane = p + (h - dot(p, n)) * n;
    const T d = h + r - dot(p, n);
    if (-d < margin) push(s, b_W.pos_W + mul(b_W.rot_W, T(0.5) * (on_capsule + on_plane)), -n_W, d);
  }
  return s;
}

/// Capsule (A) - cylinder (B): one contact at the point of the capsule's axis deepest
/// towards the cylinder (segment_cylinder_deepest), as a sphere of the capsule's radius
/// there against the cylinder (collide_sphere_cylinder). Two contacts, at the ends of the
/// overlap, when the axis is parallel to the cylinder's (within 1e-3 rad) against the
/// curved side, or perpendicular to it (within 1e-3 rad) against an end face. An axis
/// that enters the cylinder: capsule_axis_in_cylinder.
template <class T>
SP_HD ContactSet<T> collide_capsule_cylinder(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                             const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T r = a.size[0], rc = b.size[0], half = b.size[1];
  const Mat3<T>& R = b_W.rot_W;
  // The capsule axis P + t D, t in [0, 1], in the cylinder frame.
  const Vec3<T> ax = mul_t(R, rot_axis(a_W.rot_W, 2));
  const Vec3<T> P = mul_t(R, a_W.pos_W - b_W.pos_W) - a.size[1] * ax;
  const Vec3<T> D = (T(2) * a.size[1]) * ax;
  const T t_star = segment_cylinder_deepest(P, D, rc, half);
  Shape<T> ball = a;
  ball.kind = ShapeKind::Sphere;
  const auto ball_at = [&](T t) {
    return collide_sphere_cylinder(ball, ShapePose<T>{b_W.pos_W + mul(R, P + t * D), a_W.rot_W}, b, b_W, margin);
  };
  const ContactSet<T> deepest = ball_at(t_star);
  if (deepest.distance < -r) return capsule_axis_in_cylinder(P, D, t_star, r, rc, half, b_W, margin);
  const T len = norm(D);
  if (deepest.count == 0 || !(len > T(0))) return deepest;
  // The parameter range [lo, hi] of the axis that lies along the touched surface, if any.
  const Vec3<T> n = mul_t(R, deepest.normal_W);  // capsule -> cylinder, cylinder frame
  const T cz = ax.z;                             // cosine of the angle between the axes
  T lo = T(0), hi = T(0);
  if (T(1) - lane_abs(cz) < T(5e-7) && lane_abs(n.z) < T(0.5)) {  // along the curved side
    const T z0 = P.z, z1 = P.z + D.z;
    lo = clamp((-half - z0) / (z1 - z0), T(0), T(1));
    hi = clamp((half - z0) / (z1 - z0), T(0), T(1));
  } else if (lane_abs(cz) < T(1e-3) && lane_abs(n.z) > T(0.5)) {  // across an end face
    // |P_xy + t D_xy| <= rc: the roots of a t^2 + 2 b t + c = 0.
    const T qa = D.x * D.x + D.y * D.y, qb = P.x * D.x + P.y * D.y, qc = P.x * P.x + P.y * P.y - rc * rc;
    const T disc = qb * qb - qa * qc;
    if (qa > T(0) && disc > T(0)) {
      const T sq = lane_sqrt(disc);
      lo = clamp((-qb - sq) / qa, T(0), T(1));
      hi = clamp((-qb + sq) / qa, T(0), T(1));
    }
  }
  if (lo > hi) {
    const T tmp = lo;
    lo = hi;
    hi = tmp;
  }
  if (!((hi - lo) * len > T(1e-3) * (r + rc))) return deepest;
  ContactSet<T> out = no_contact(deepest.distance, deepest.normal_W);
  for (int e = 0; e < 2; ++e) {
    const ContactSet<T> end = ball_at(e == 0 ? lo : hi);
    if (end.count > 0) push(out, end.contact[0].point_W, end.contact[0].normal_W, end.contact[0].depth);
  }
  return out.count > 0 ? out : deepest;
}

/// Capsule (A) - box (B). A capsule axis outside the box: the closest points of the axis
/// and the box (exact), with a second contact when the closest box feature is a face and
/// the capsule lies along it. An axis that enters the box: the separating-axis test over
/// the 3 face normals and the 3 axis x edge directions; a face gives the axis clipped to
/// that face (up to 2 contacts), an edge one contact.
template <class T>
SP_HD ContactSet<T> collide_capsule_box(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                        const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T r = a.size[0];
  const T h[3] = {b.size[0], b.size[1], b.size[2]};
  const Mat3<T>& R = b_W.rot_W;
  // The capsule axis P + t D, t in [0, 1], in the box frame.
  const Vec3<T> ax = mul_t(R, rot_axis(a_W.rot_W, 2));
  const Vec3<T> P = mul_t(R, a_W.pos_W - b_W.pos_W) - a.size[1] * ax;
  const Vec3<T> D = (T(2) * a.size[1]) * ax;
  const T scale = h[0] + h[1] + h[2] + a.size[1] + r;
  const T tiny = T(64) * machine_eps(T()) * (scale + norm(P));
  T f_min;
  const T t_star = segment_box_closest(P, D, h, f_min);
  ContactSet<T> s;  // normals from box to capsule, flipped at the end
  if (f_min > tiny * tiny) {
    // The axis misses the box: closest points.
    const Vec3<T> p = P + t_star * D;
    const Vec3<T> q = {clamp(p.x, -h[0], h[0]), clamp(p.y, -h[1], h[1]), clamp(p.z, -h[2], h[2])};
    const T d = lane_sqrt(f_min);
    const Vec3<T> n = (T(1) / d) * (p - q);
    s = no_contact(d - r, mul(R, n));
    if (!(d - r < margin)) return flipped(s);
    int outside = 0, k = 0;
    for (int i = 0; i < 3; ++i)
      if (lane_abs(p[i]) > h[i]) {
        ++outside;
        k = i;
      }
    T t0 = T(0), t1 = T(1);
    bool on_face = outside == 1;
    for (int j = 0; j < 3 && on_face; ++j)
      if (j != k) on_face = clip_to_slab(P, D, j, h[j], t0, t1);
    if (on_face)
      push_face_segment(s, b_W, P, D, t0, t1, k, sign_of(p[k]), h[k], r, margin, scale);
    if (s.count == 0)
      push(s, b_W.pos_W + mul(R, T(0.5) * ((p - r * n) + q)), s.normal_W, r - d);
    return flipped(s);
  }
  // The axis enters the box: separating axes, the face normals first.
  int face_k = 0, edge_j = -1;
  T face_sep = T(0), face_sigma = T(1), edge_sep = T(0), edge_sigma = T(1);
  Vec3<T> edge_L = zero3<T>();
  const T lenD = norm(D);
  for (int i = 0; i < 6; ++i) {
    Vec3<T> L = zero3<T>();
    if (i < 3) {
      L[i] = T(1);
    } else {
      Vec3<T> e = zero3<T>();
      e[i - 3] = T(1);
      L = cross(D, e);
      const T l = norm(L);
      if (!(l > T(10) * lane_sqrt(machine_eps(T())) * lenD)) continue;  // axis parallel to this edge
      L = (T(1) / l) * L;
    }
    const T rb = h[0] * lane_abs(L.x) + h[1] * lane_abs(L.y) + h[2] * lane_abs(L.z);
    const T s0 = dot(P, L), s1 = dot(P + D, L);
    const T sep_plus = lane_min(s0, s1) - rb, sep_minus = -lane_max(s0, s1) - rb;
    const T sep = lane_max(sep_plus, sep_minus);
    const T sigma = sep_plus >= sep_minus ? T(1) : T(-1);
    if (i < 3) {
      if (i == 0 || sep > face_sep) {
        face_sep = sep;
        face_k = i;
        face_sigma = sigma;
      }
    } else if (edge_j < 0 || sep > edge_sep) {
      edge_sep = sep;
      edge_j = i - 3;
      edge_sigma = sigma;
      edge_L = L;
    }
  }
  if (edge_j >= 0 && edge_axis_wins(edge_sep, face_sep, scale)) {
    const Vec3<T> n = edge_sigma * edge_L;
    s = no_contact(edge_sep - r, mul(R, n));
    // The box edge along e_j that is farthest along n.
    Vec3<T> E0;
    for (int i = 0; i < 3; ++i) E0[i] = i == edge_j ? -h[i] : sign_of(n[i]) * h[i];
    Vec3<T> dE = zero3<T>();
    dE[edge_j] = T(2) * h[edge_j];
    T sc, te;
    closest_segments(P, D, E0, dE, sc, te);
    const Vec3<T> mid = T(0.5) * ((P + sc * D - r * n) + (E0 + te * dE));
    push(s, b_W.pos_W + mul(R, mid), s.normal_W, r - edge_sep);
    return flipped(s);
  }
  Vec3<T> n = zero3<T>();
  n[face_k] = face_sigma;
  s = no_contact(face_sep - r, mul(R, n));
  T t0 = T(0), t1 = T(1);
  bool inside = true;
  for (int j = 0; j < 3 && inside; ++j)
    if (j != face_k) inside = clip_to_slab(P, D, j, h[j], t0, t1);
  if (!inside) t0 = t1 = t_star;
  push_face_segment(s, b_W, P, D, t0, t1, face_k, face_sigma, h[face_k], r, margin, scale);
  return flipped(s);
}

/// Box (A) - box (B): separating-axis test over the 3 + 3 face normals and the 9 edge-edge
/// directions. A face axis gives the incident face of the other box (the one most against
/// the normal) clipped to the reference face's side planes: its vertices within the margin,
/// at most 4; an edge-edge axis gives one contact at the closest points of the two edges.
template <class T>
SP_HD ContactSet<T> collide_box_box(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                    const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const T hA[3] = {a.size[0], a.size[1], a.size[2]}, hB[3] = {b.size[0], b.size[1], b.size[2]};
  const T scale = hA[0] + hA[1] + hA[2] + hB[0] + hB[1] + hB[2];
  // B in A's frame: C[i][j] = a_i . b_j; column j is B's axis j.
  Mat3<T> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = dot(rot_axis(a_W.rot_W, i), rot_axis(b_W.rot_W, j));
  const Vec3<T> t = mul_t(a_W.rot_W, b_W.pos_W - a_W.pos_W);
  int face = -1;  // 0..2: A's face normals, 3..5: B's
  T face_sep = T(0), face_sigma = T(1);
  for (int f = 0; f < 6; ++f) {
    const Vec3<T> L = f < 3 ? Vec3<T>{T(f == 0), T(f == 1), T(f == 2)}
                            : Vec3<T>{C.m[0][f - 3], C.m[1][f - 3], C.m[2][f - 3]};
    T sigma;
    const T sep = box_box_separation(L, hA, hB, C, t, sigma);
    if (face < 0 || sep > face_sep) {
      face = f;
      face_sep = sep;
      face_sigma = sigma;
    }
  }
  int edge = -1;  // 3 i + j: A's edge i with B's edge j
  T edge_sep = T(0), edge_sigma = T(1);
  Vec3<T> edge_L = zero3<T>();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Vec3<T> e = zero3<T>();
      e[i] = T(1);
      Vec3<T> L = cross(e, Vec3<T>{C.m[0][j], C.m[1][j], C.m[2][j]});
      const T l = norm(L);
      if (!(l > T(10) * lane_sqrt(machine_eps(T())))) continue;  // parallel edges
      L = (T(1) / l) * L;
      T sigma;
      const T sep = box_box_separation(L, hA, hB, C, t, sigma);
      if (edge < 0 || sep > edge_sep) {
        edge = 3 * i + j;
        edge_sep = sep;
        edge_sigma = sigma;
        edge_L = L;
      }
    }
  if (edge >= 0 && edge_axis_wins(edge_sep, face_sep, scale)) {
    const Vec3<T> n = mul(a_W.rot_W, edge_sigma * edge_L);
    ContactSet<T> s = no_contact(edge_sep, n);
    if (!(edge_sep < margin)) return s;
    const int i = edge / 3, j = edge % 3;
    // A's edge along a_i farthest along n, B's edge along b_j farthest along -n.
    Vec3<T> PA = a_W.pos_W - hA[i] * rot_axis(a_W.rot_W, i), PB = b_W.pos_W - hB[j] * rot_axis(b_W.rot_W, j);
    for (int k = 0; k < 3; ++k) {
      if (k != i) PA += (sign_of(dot(rot_axis(a_W.rot_W, k), n)) * hA[k]) * rot_axis(a_W.rot_W, k);
      if (k != j) PB -= (sign_of(dot(rot_axis(b_W.rot_W, k), n)) * hB[k]) * rot_axis(b_W.rot_W, k);
    }
    const Vec3<T> dA = (T(2) * hA[i]) * rot_axis(a_W.rot_W, i), dB = (T(2) * hB[j]) * rot_axis(b_W.rot_W, j);
    T sa, sb;
    closest_segments(PA, dA, PB, dB, sa, sb);
    push(s, T(0.5) * ((PA + sa * dA) + (PB + sb * dB)), n, -edge_sep);
    return s;
  }
  // Face axis: reference box ref (owner of the face), incident box inc.
  const bool ref_is_A = face < 3;
  const int k = face % 3;
  const ShapePose<T>& ref = ref_is_A ? a_W : b_W;
  const ShapePose<T>& inc = ref_is_A ? b_W : a_W;
  const T* h_ref = ref_is_A ? hA : hB;
  const T* h_inc = ref_is_A ? hB : hA;
  const Vec3<T> n_AB = mul(a_W.rot_W, face < 3 ? face_sigma * Vec3<T>{T(k == 0), T(k == 1), T(k == 2)}
                                               : face_sigma * Vec3<T>{C.m[0][k], C.m[1][k], C.m[2][k]});
  ContactSet<T> s = no_contact(face_sep, n_AB);
  if (!(face_sep < margin)) return s;
  const Vec3<T> n_ref = ref_is_A ? n_AB : -n_AB;  // from ref to inc, W
  const T sigma = dot(n_ref, rot_axis(ref.rot_W, k)) >= T(0) ? T(1) : T(-1);
  // Incident face: the face of inc whose outward normal is most against n_ref.
  int m = 0;
  for (int i = 1; i < 3; ++i)
    if (lane_abs(dot(rot_axis(inc.rot_W, i), n_ref)) > lane_abs(dot(rot_axis(inc.rot_W, m), n_ref))) m = i;
  const T dm = dot(rot_axis(inc.rot_W, m), n_ref);
  const Vec3<T> fc = inc.pos_W - (sign_of(dm) * h_inc[m]) * rot_axis(inc.rot_W, m);
  const int u = (m + 1) % 3, v = (m + 2) % 3;
  const Vec3<T> eu = h_inc[u] * rot_axis(inc.rot_W, u), ev = h_inc[v] * rot_axis(inc.rot_W, v);
  // Its vertices in the reference frame, in cyclic order, clipped to |x_j| <= h_ref[j], j != k.
  Vec3<T> poly[8], tmp[8];
  int np = 4;
  poly[0] = mul_t(ref.rot_W, fc + eu + ev - ref.pos_W);
  poly[1] = mul_t(ref.rot_W, fc - eu + ev - ref.pos_W);
  poly[2] = mul_t(ref.rot_W, fc - eu - ev - ref.pos_W);
  poly[3] = mul_t(ref.rot_W, fc + eu - ev - ref.pos_W);
  for (int j = 0; j < 3; ++j) {
    if (j == k) continue;
    for (int side = -1; side <= 1; side += 2) {
      int nt = 0;
      for (int i = 0; i < np; ++i) {
        const Vec3<T>& cur = poly[i];
        const Vec3<T>& prev = poly[(i + np - 1) % np];
        const T dc = T(side) * cur[j] - h_ref[j], dp = T(side) * prev[j] - h_ref[j];
        if ((dc <= T(0)) != (dp <= T(0)) && nt < 8) tmp[nt++] = prev + (dp / (dp - dc)) * (cur - prev);
        if (dc <= T(0) && nt < 8) tmp[nt++] = cur;
      }
      np = nt;
      for (int i = 0; i < np; ++i) poly[i] = tmp[i];
    }
  }
  // Vertices within the margin of the reference face, as contacts midway to the face.
  Vec3<T> pts[8];
  T depth[8];
  int nc = 0;
  for (int i = 0; i < np; ++i) {
    const T height = sigma * poly[i][k] - h_ref[k];
    if (-height > -margin) {
      Vec3<T> x = poly[i];
      x[k] -= T(0.5) * height * sigma;
      pts[nc] = ref.pos_W + mul(ref.rot_W, x);
      depth[nc] = -height;
      ++nc;
    }
  }
  if (nc == 0) {  // nothing of the incident face over the reference face: its deepest corner
    Vec3<T> x = inc.pos_W;
    for (int i = 0; i < 3; ++i)
      x -= (sign_of(dot(rot_axis(inc.rot_W, i), n_ref)) * h_inc[i]) * rot_axis(inc.rot_W, i);
    push(s, x + (T(-0.5) * face_sep) * n_ref, n_AB, -face_sep);
    return s;
  }
  int keep[4], nk;
  reduce_to_4(pts, depth, nc, n_AB, keep, nk);
  for (int i = 0; i < nk; ++i) push(s, pts[keep[i]], n_AB, depth[keep[i]]);
  return s;
}

/// A journal (shape B, pose b_W) in a bearing's bore (shape A, pose a_W; its axis z is
/// the joint's): the radial clearance joint of Flores, Ambrosio, Claro and Lankarani,
/// Kinematics and Dynamics of Multibody Systems with Imperfect Joints (Springer, 2008),
/// ch. 3. With d the journal's centre less the bearing's, projected on the bearing's plane
/// (e = d - (d . z) z, the eccentricity), and c = R_A - R_B the radial clearance:
/// distance c - |e|; at contact one point, normal -e / |e| (from the bore's wall towards
/// the journal's centre: the force on the journal pushes it back), depth |e| - c, the
/// point midway between the wall (bearing centre + R_A e / |e|, in the journal's plane)
/// and the journal's surface (journal centre + R_B e / |e|). e = 0 (centred) is no
/// contact for any clearance > margin, its normal then the bearing's x axis.
template <class T>
SP_HD ContactSet<T> collide_bearing_journal(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b,
                                            const ShapePose<T>& b_W, T margin) {
  using namespace collide_detail;
  const Vec3<T> z = rot_axis(a_W.rot_W, 2);
  const Vec3<T> d = b_W.pos_W - a_W.pos_W;
  const Vec3<T> e = d - dot(d, z) * z;
  const T L = norm(e);
  const T dist = (a.size[0] - b.size[0]) - L;
  const Vec3<T> u = L > T(0) ? (T(1) / L) * e : rot_axis(a_W.rot_W, 0);
  ContactSet<T> s = no_contact(dist, -u);
  if (dist < margin) {
    const Vec3<T> wall = a_W.pos_W + dot(d, z) * z + a.size[0] * u, surface = b_W.pos_W + b.size[0] * u;
    push(s, T(0.5) * (wall + surface), -u, -dist);
  }
  return s;
}

/// Whether collide() handles a pair of kinds (in either order).
SP_HD constexpr bool collide_supported(ShapeKind a, ShapeKind b) {
  const int lo = static_cast<int>(a) < static_cast<int>(b) ? static_cast<int>(a) : static_cast<int>(b);
  const int hi = static_cast<int>(a) < static_cast<int>(b) ? static_cast<int>(b) : static_cast<int>(a);
  if (hi >= static_cast<int>(ShapeKind::Bearing))  // a clearance joint's pair only
    return lo == static_cast<int>(ShapeKind::Bearing) && hi == static_cast<int>(ShapeKind::Journal);
  if (lo == static_cast<int>(ShapeKind::Plane)) return hi != static_cast<int>(ShapeKind::Plane);
  if (hi == static_cast<int>(ShapeKind::Cylinder))
    return lo == static_cast<int>(ShapeKind::Sphere) || lo == static_cast<int>(ShapeKind::Capsule);
  return true;
}

/// Contacts of shape A (pose a_W) and shape B (pose b_W), either order of kinds; normals
/// from A to B. Unsupported pairs return CollideStatus::Unsupported and an empty set.
template <class T>
SP_HD CollideStatus collide(const Shape<T>& a, const ShapePose<T>& a_W, const Shape<T>& b, const ShapePose<T>& b_W,
                            T margin, ContactSet<T>& out) {
  using collide_detail::flipped;
  out = collide_detail::no_contact(T(0), Vec3<T>{T(0), T(0), T(1)});
  if (!collide_supported(a.kind, b.kind)) return CollideStatus::Unsupported;
  const bool swap = static_cast<int>(a.kind) > static_cast<int>(b.kind);
  const Shape<T>& p = swap ? b : a;
  const Shape<T>& q = swap ? a : b;
  const ShapePose<T>& p_W = swap ? b_W : a_W;
  const ShapePose<T>& q_W = swap ? a_W : b_W;
  ContactSet<T> s;
  switch (p.kind) {
    case ShapeKind::Plane:
      switch (q.kind) {
        case ShapeKind::Sphere: s = collide_plane_sphere(p, p_W, q, q_W, margin); break;
        case ShapeKind::Capsule: s = collide_plane_capsule(p, p_W, q, q_W, margin); break;
        case ShapeKind::Box: s = collide_plane_box(p, p_W, q, q_W, margin); break;
        default: s = collide_plane_cylinder(p, p_W, q, q_W, margin); break;
      }
      break;
    case ShapeKind::Sphere:
      switch (q.kind) {
        case ShapeKind::Sphere: s = collide_sphere_sphere(p, p_W, q, q_W, margin); break;
        case ShapeKind::Capsule: s = collide_sphere_capsule(p, p_W, q, q_W, margin); break;
        case ShapeKind::Box: s = collide_sphere_box(p, p_W, q, q_W, margin); break;
        default: s = collide_sphere_cylinder(p, p_W, q, q_W, margin); break;
      }
      break;
    case ShapeKind::Capsule:
      switch (q.kind) {
        case ShapeKind::Capsule: s = collide_capsule_capsule(p, p_W, q, q_W, margin); break;
        case ShapeKind::Box: s = collide_capsule_box(p, p_W, q, q_W, margin); break;
        default: s = collide_capsule_cylinder(p, p_W, q, q_W, margin); break;
      }
      break;
    case ShapeKind::Bearing: s = collide_bearing_journal(p, p_W, q, q_W, margin); break;
    default: s = collide_box_box(p, p_W, q, q_W, margin); break;
  }
  out = swap ? flipped(s) : s;
  return CollideStatus::Ok;
}

}  // namespace simphant
