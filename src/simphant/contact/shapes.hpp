#pragma once
// Collision shapes of the compliant contact model: their kinds, a plain-data description
// (kind, sizes, pose in the body frame) and the world placement that the pair functions
// of contact/collide.hpp take. Header-only __host__ __device__ code, scalar T = double or
// float, like the joint math.
//
// Frames: a shape has its own frame S, placed in its body frame B by (pos_B, quat_B);
// the body is placed in the world W by its state (r, p) (docs/solver.md, State and
// coordinates). ShapePose is S in W: x_W = rot_W x_S + pos_W.
//
// Sizes, as MuJoCo's geom `size` names them (SI units, metres), in the shape frame S:
//   Plane    -               half-space z_S <= 0: the outward normal is +z_S and the
//                            surface passes through the shape origin (infinite extent)
//   Sphere   {radius}        centred at the origin
//   Capsule  {radius, half_length}   segment from -half_length to +half_length along z_S,
//                                    dilated by radius
//   Box      {hx, hy, hz}    half-extents along x_S, y_S, z_S, centred at the origin
//   Cylinder {radius, half_length}   solid, axis z_S, flat ends at z_S = +-half_length
//   Bearing  {radius}        the bore of a journal bearing: the solid outside the
//                            infinite cylinder of that radius about z_S (a clearance
//                            joint's side i, docs/contact.md "Joint clearance")
//   Journal  {radius}        the journal (pin) in a Bearing: an infinite solid cylinder
//                            about z_S (the clearance joint's side j)
// Unused size entries are ignored. Preconditions: sizes > 0 (a capsule half-length may be 0).
// A Bearing touches a Journal only, and a Journal a Bearing only.
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

enum class ShapeKind : int { Plane = 0, Sphere = 1, Capsule = 2, Box = 3, Cylinder = 4, Bearing = 5, Journal = 6 };

/// Number of shape kinds (ShapeKind values are 0 .. kShapeKinds - 1).
constexpr int kShapeKinds = 7;

/// One collision shape of a body (plain data; the model stores one per geom).
template <class T>
struct Shape {
  ShapeKind kind;
  T size[3];       ///< kind-dependent sizes (table above) [m]
  Vec3<T> pos_B;   ///< shape origin in the body frame B [m]
  Quat<T> quat_B;  ///< rotation shape frame S -> body frame B, unit (w, x, y, z)
};

/// A shape frame S placed in the world: x_W = rot_W x_S + pos_W.
template <class T>
struct ShapePose {
  Vec3<T> pos_W;  ///< shape origin in W [m]
  Mat3<T> rot_W;  ///< rotation S -> W (columns: the shape's axes in W)
};

/// Column k of a rotation matrix: axis k of the rotated frame, in the outer frame.
template <class T>
SP_HD Vec3<T> rot_axis(const Mat3<T>& R, int k) {
  return {R.m[0][k], R.m[1][k], R.m[2][k]};
}

/// World placement of a shape on a body at CoM position r_W with orientation p (B -> W).
template <class T>
SP_HD ShapePose<T> shape_pose_W(const Shape<T>& s, const Vec3<T>& r_W, const Quat<T>& p) {
  ShapePose<T> pose;
  pose.pos_W = r_W + mul(rotation(p), s.pos_B);
  pose.rot_W = rotation(normalized(qmul(p, s.quat_B)));
  return pose;
}

/// Radius of the smallest sphere about the shape origin that holds the shape [m]; a plane
/// is unbounded and gives -1.
template <class T>
SP_HD T bounding_radius(ShapeKind kind, const T size[3]) {
  switch (kind) {
    case ShapeKind::Sphere: return size[0];
    case ShapeKind::Capsule: return size[0] + size[1];
    case ShapeKind::Box: return lane_sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]);
    case ShapeKind::Cylinder: return lane_sqrt(size[0] * size[0] + size[1] * size[1]);
    // A clearance joint's two sides: their centres stay within the clearance of each
    // other (the joint's planar rows hold them in one plane), so the bore's and the
    // journal's radii make spheres that always overlap: the narrow phase always runs.
    case ShapeKind::Bearing:
    case ShapeKind::Journal: return size[0];
    case ShapeKind::Plane: break;
  }
  return T(-1);
}

template <class T>
SP_HD T bounding_radius(const Shape<T>& s) {
  return bounding_radius(s.kind, s.size);
}

}  // namespace simphant
