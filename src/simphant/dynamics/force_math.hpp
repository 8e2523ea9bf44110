#pragma once
// The applied-force, energy and reaction formulas of SimPhant, written once as header-only
// __host__ __device__ templates shared by the CPU reference (forces.cpp, evaluate.cpp)
// and the batched CUDA kernels (kernels/body_forces.hpp, kernels/frame.hpp).
//
// Generalised force of one body: [F (W) [N], T (B, about the CoM) [N m]] (docs/solver.md,
// Forces); the gyroscopic term is Q_v = -omega_B x (J omega_B) (the original formulation
// prints the opposite sign; the torque-free and heavy-top tests decide it).
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// Body-frame torque about the CoM of a world force F_W applied at the world point P_W:
/// T_B = A^T ((P_W - r) x F_W).
template <class T>
SP_HD Vec3<T> torque_B_of_force_at(const BodyKin<T>& B, const Vec3<T>& F_W, const Vec3<T>& P_W) {
  return mul_t(B.A, cross(P_W - B.r, F_W));
}

/// World position P_W and velocity V_W of a point fixed in a body (point_B from the CoM, B).
template <class T>
SP_HD void body_point_state(const BodyKin<T>& B, const Vec3<T>& point_B, Vec3<T>& P_W, Vec3<T>& V_W) {
  const Vec3<T> s = mul(B.A, point_B);
  P_W = B.r + s;
  V_W = B.v + cross(B.omega_W, s);
}

/// Gyroscopic torque -omega_B x (J omega_B) [N m], B.
template <class T>
SP_HD Vec3<T> gyroscopic_torque(const Mat3<T>& J_B, const Vec3<T>& omega_B) {
  return -cross(omega_B, mul(J_B, omega_B));
}

/// Translational spring-damper between points P_i, P_j with velocities V_i, V_j:
/// tension = k (L - rest) + c e . (V_j - V_i), e = (P_j - P_i) / L. The force on side i is
/// tension * e at P_i, on side j -tension * e at P_j. Returns false (no force) when
/// L < 1e-12 m, where the direction is undefined.
template <class T>
SP_HD bool spring_damper_force(T stiffness, T damping, T rest, const Vec3<T>& P_i, const Vec3<T>& V_i,
                               const Vec3<T>& P_j, const Vec3<T>& V_j, Vec3<T>& F_on_i) {
  const Vec3<T> dvec = P_j - P_i;
  const T L = norm(dvec);
  if (!(L >= T(1e-12))) return false;
  const Vec3<T> e = (T(1) / L) * dvec;
  const T tension = stiffness * (L - rest) + damping * dot(e, V_j - V_i);
  F_on_i = tension * e;
  return true;
}

/// Relative rotation angle of body_j about the joint axis v_i, in (-pi, pi], zero where
/// a_i = a_j: atan2((a_i x a_j) . v_i, a_i . a_j). Frames as JointFrame (B coordinates).
template <class T>
SP_HD T joint_angle(const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  const Vec3<T> v_i = mul(Bi.A, f.v_i);
  const Vec3<T> a_i = mul(Bi.A, f.a_i);
  const Vec3<T> a_j = mul(Bj.A, f.a_j);
  return std::atan2(dot(cross(a_i, a_j), v_i), dot(a_i, a_j));
}

/// Torque [N m] of a rotational spring-damper about a joint's axis v_i (W): applied
/// +tau v_i to body_j and -tau v_i to body_i, tau = -k (theta - rest) - c theta_dot.
template <class T>
SP_HD T rotational_spring_torque(T stiffness, T damping, T rest, const JointFrame<T>& f, const BodyKin<T>& Bi,
                                 const BodyKin<T>& Bj, Vec3<T>& v_i_W) {
  v_i_W = mul(Bi.A, f.v_i);
  const T theta = joint_angle(f, Bi, Bj);
  const T theta_dot = dot(Bj.omega_W - Bi.omega_W, v_i_W);
  return -stiffness * (theta - rest) - damping * theta_dot;
}

/// Potential energy [J] of a spring of stiffness k stretched by `stretch` (m, or rad for a
/// rotational spring): 1/2 k stretch^2.
template <class T>
SP_HD T spring_energy(T stiffness, T stretch) {
  return T(0.5) * stiffness * stretch * stretch;
}

/// Kinetic energy [J] of one rigid body from its CoM velocity v (W) [m/s] and angular
/// velocity omega_B (B) [rad/s]: 1/2 m v.v + 1/2 omega_B . J_B omega_B.
template <class T>
SP_HD T rigid_kinetic_energy(T mass, const Mat3<T>& J_B, const Vec3<T>& v, const Vec3<T>& omega_B) {
  return T(0.5) * mass * dot(v, v) + T(0.5) * dot(omega_B, mul(J_B, omega_B));
}

/// Kinetic energy of one body [J] at its kinematics B (rigid_kinetic_energy).
template <class T>
SP_HD T body_kinetic_energy(T mass, const Mat3<T>& J_B, const BodyKin<T>& B) {
  return rigid_kinetic_energy(mass, J_B, B.v, B.omega_B);
}

/// Reaction of one joint on its body_j, about the anchor, W: out = [F (3) [N], T (3) [N m]].
/// jac: the joint's m rows (12 columns each, JointRows layout, row stride 12), lambda: its
/// m multipliers. The generalised constraint force on body_j is -Phi_q,j^T lambda =
/// [F_W, T_B about the CoM]; about the anchor T_P = A_j T_B - s_j x F, s_j = A_j u_j.
template <class T>
SP_HD void joint_reaction(int m, const T* jac, const T* lambda, const BodyKin<T>& Bj, const Vec3<T>& u_j, T* out) {
  Vec3<T> F = zero3<T>(), T_B = zero3<T>();
  for (int r = 0; r < m; ++r) {
    const T l = lambda[r];
    for (int c = 0; c < 3; ++c) {
      F[c] -= jac[12 * r + 6 + c] * l;
      T_B[c] -= jac[12 * r + 9 + c] * l;
    }
  }
  const Vec3<T> s_j = mul(Bj.A, u_j);
  const Vec3<T> T_P = mul(Bj.A, T_B) - cross(s_j, F);
  for (int c = 0; c < 3; ++c) {
    out[c] = F[c];
    out[3 + c] = T_P[c];
  }
}

/// y = M_k^-1 x for one body's 6 velocity coordinates: x / m on v, J^-1 x on omega.
template <class T>
SP_HD void apply_body_Minv(T mass, const Mat3<T>& J_inv_B, const T* x, T* y) {
  const Vec3<T> w = mul(J_inv_B, Vec3<T>{x[3], x[4], x[5]});
  for (int c = 0; c < 3; ++c) {
    y[c] = x[c] / mass;
    y[3 + c] = w[c];
  }
}

}  // namespace simphant
