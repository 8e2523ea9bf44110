#pragma once
// Joint-frame loads of one joint (docs/solver.md, "Bearing loads"), written once as
// header-only __host__ __device__ templates shared by the host (the recorded frames,
// sim/joint_load_frames.hpp) and the per-instance reductions of every backend
// (formulas/reductions.hpp, kernels/reduce.hpp).
//
// Input: the joint's reaction (formulas/force_math.hpp, joint_reaction): the force F and
// the moment T_Pj about the anchor P_j = r_j + A_j u_j that the joint applies to body_j, W.
// The constraint rows of every joint type depend only on the relative pose of the two
// bodies, so (Newton's third law) the joint applies -F to body_i and, about P_j, the
// moment -T_Pj. Moved to body_i's anchor P_i = r_i + A_i u_i the moment is
//   M_i = -T_Pj - (P_j - P_i) x F,
// the moment transfer that matters where the anchors differ (prismatic, cylindrical,
// planar: P_j slides along the joint; for the others it vanishes with Phi). Both are
// expressed on body_i's joint frame, axes (a_i, b_i, v_i) in W = A_i (a_i, b_i, v_i):
//   loads   = [F.a, F.b, F.v, M.a, M.b, M.v]                       [N, N m]
//   bearing = [F.v (axial force, signed), |(F.a, F.b)| (radial force),
//              M.v (axial moment, signed), |(M.a, M.b)| (bending moment)].
// A driver on the joint (its own constraint row, not part of the joint's rows) applies
// +tau v_i to body_j and -tau v_i to body_i: its load is added to the axial moment
// (revolute, cylindrical angle) or the axial force (prismatic slide) with that sign.
#include <cmath>

#include "simphant/formulas/force_math.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/dual.hpp"

namespace simphant {

/// Number of joint-frame load components (loads) and bearing components (bearing).
constexpr int kJointLoadComponents = 6;
constexpr int kBearingLoadComponents = 4;

/// The joint loads on body_i (see the file comment): out6 = [f_a, f_b, f_v, m_a, m_b, m_v]
/// [N, N m] about body_i's anchor on body_i's joint frame. reaction: [F (3), T_Pj (3)] on
/// body_j, W. driver_axial_force [N] / driver_axial_moment [N m]: a driver's load on
/// body_j along / about v_i (0 without a driver); body_i gets its negative.
template <class T>
SP_HD void joint_loads_from_reaction(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj,
                                     const T* reaction, T driver_axial_force, T driver_axial_moment, T* out6) {
  const Vec3<T> F = {reaction[0], reaction[1], reaction[2]};
  const Vec3<T> T_Pj = {reaction[3], reaction[4], reaction[5]};
  const Vec3<T> P_i = Bi.r + mul(Bi.A, f.u_i);
  const Vec3<T> P_j = Bj.r + mul(Bj.A, f.u_j);
  const Vec3<T> F_i = -F;
  const Vec3<T> M_i = -T_Pj - cross(P_j - P_i, F);
  const Vec3<T> a = mul(Bi.A, f.a_i), b = mul(Bi.A, f.b_i), v = mul(Bi.A, f.v_i);
  out6[0] = dot(F_i, a);
  out6[1] = dot(F_i, b);
  out6[2] = dot(F_i, v) - driver_axial_force;
  out6[3] = dot(M_i, a);
  out6[4] = dot(M_i, b);
  out6[5] = dot(M_i, v) - driver_axial_moment;
}

/// An output's magnitude m = sqrt(sum of x^2) of its components x (a radial force, a
/// bending moment, a reaction's |f|) as computed: m itself, except for a Dual exactly at
/// 0, which gets the tangents of magnitude_at_zero (0 for a magnitude that stays 0, NaN
/// for one that moves off 0) instead of sqrt's NaN. Every other number type: m, bit for bit.
template <class T, class... C>
SP_HD T output_magnitude(const T& m, const C&... x) {
  if constexpr (ad::IsDual<T>::value) {
    if (m.v == 0) {
      const T* components[] = {&x...};
      return ad::magnitude_at_zero(components, static_cast<int>(sizeof...(C)));
    }
  }
  return m;
}

/// The bearing split of joint loads (out4 = [axial_force, radial_force, axial_moment,
/// bending_moment] [N, N, N m, N m]): axial along / about v_i (signed), radial and
/// bending the magnitudes perpendicular to v_i, which do not depend on the choice of
/// a_i, b_i.
template <class T>
SP_HD void bearing_loads_from_joint_loads(const T* loads6, T* out4) {
  using std::sqrt;  // unqualified: a number type's own sqrt by argument-dependent lookup (math/dual.hpp)
  out4[0] = loads6[2];
  out4[1] = output_magnitude(sqrt(loads6[0] * loads6[0] + loads6[1] * loads6[1]), loads6[0], loads6[1]);
  out4[2] = loads6[5];
  out4[3] = output_magnitude(sqrt(loads6[3] * loads6[3] + loads6[4] * loads6[4]), loads6[3], loads6[4]);
}

/// The joint coordinate of the reductions (docs/solver.md, "Reductions over time"):
/// revolute and cylindrical: the angle of body_j about v_i from a_i to a_j, (-pi, pi]
/// [rad]; prismatic: the slide (P_j - P_i) . v_i [m] (coordinate_angle_value,
/// coordinate_slide_value in joints/joint_coordinate.hpp); every other type NaN.
template <class T>
SP_HD T joint_coordinate(JointType type, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  if (type == JointType::Revolute || type == JointType::Cylindrical) return coordinate_angle_value(f, Bi, Bj);
  if (type == JointType::Prismatic) return coordinate_slide_value(f, Bi, Bj);
  return T(NAN);
}

}  // namespace simphant
