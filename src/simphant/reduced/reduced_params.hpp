#pragma once
// ReducedLinkParams: the plain-data form of a ReducedModel link that the
// __host__ __device__ recursive algorithms (RNEA, CRBA, ABA and their CGA forms) read.
// No std:: containers, so an array of them can live in device memory; the scalar T is
// double (fp64) or float (fp32). Fields and frames as ReducedLink (reduced_model.hpp).
#include "simphant/core/hd.hpp"
#include "simphant/math/small.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// Largest number of links the fixed-size per-thread workspaces of the recursive
/// algorithms hold (a 7-joint arm needs 7; N-link chain benchmarks go to 32).
constexpr int kMaxReducedLinks = 64;

template <class T>
struct ReducedLinkParams {
  int parent;          ///< -1: base
  int type;            ///< ReducedJointType as int (0 revolute, 1 prismatic)
  Mat3<T> R_parent_joint;
  Vec3<T> p_parent_joint;
  Vec3<T> axis;
  T mass;
  Vec3<T> com;
  Mat3<T> inertia_com;
  /// Rotor inertia on the joint coordinate, >= 0 [kg m^2 | kg] (ReducedLink::armature):
  /// the recursions add it to the joint's diagonal of the mass matrix, D_k = S^T U_k + a_k
  /// (ABA), M_kk += a_k (CRBA), tau_k += a_k qdd_k (RNEA), and 1/2 a_k qd_k^2 to the
  /// kinetic energy. 0 adds exact zeros: the results are those without it.
  T armature;
};

/// The floating base's mass properties in its frame B (plain data; ReducedBase).
template <class T>
struct RobotBaseParams {
  T mass;               ///< [kg] > 0
  Vec3<T> com;          ///< CoM in B [m]
  Mat3<T> inertia_com;  ///< about the CoM, B axes [kg m^2]
};

template <class T>
inline Vec3<T> cast3(const Vec3d& a) { return {T(a.x), T(a.y), T(a.z)}; }
template <class T>
inline Mat3<T> cast33(const Mat3d& a) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = T(a.m[i][j]);
  return r;
}

/// Copies link k of `model` into its plain-data form.
template <class T>
inline ReducedLinkParams<T> reduced_link_params(const ReducedModel& model, int k) {
  const ReducedLink& l = model.links[k];
  return {l.parent, static_cast<int>(l.type), cast33<T>(l.R_parent_joint), cast3<T>(l.p_parent_joint),
          cast3<T>(l.axis), T(l.mass), cast3<T>(l.com), cast33<T>(l.inertia_com), T(l.armature)};
}

}  // namespace simphant
