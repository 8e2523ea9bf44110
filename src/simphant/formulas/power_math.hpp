#pragma once
// The power [W] of what the recorded energy E leaves out (docs/solver.md, "Energy
// check"): E is kinetic + gravity + spring potential, so along the exact motion
//   dE/dt = P,  P = the power of the loads, drives and dampers
// -- point forces and torques, actuators and robot joint laws, the damping part of every
// spring-damper, and each rheonomic driver's constraint force -- while ideal joints,
// gravity, the springs' stiffness and the gyroscopic torque are in E or do no work. Its
// integral is the work W, and E(t) - E(0) - W(t) is the energy balance of the run.
// __host__ __device__ formulas shared by the CPU reference (dynamics/forces.cpp,
// nonconservative_power) and the kernels (kernels/power.hpp).
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_law.hpp"

namespace simphant {

/// Power of the wrench [F_W (W), T_B (B, about the CoM)] on a body: F_W . v + T_B . omega_B.
template <class T>
SP_HD T wrench_power(const BodyKin<T>& B, const Vec3<T>& F_W, const Vec3<T>& T_B) {
  return dot(F_W, B.v) + dot(T_B, B.omega_B);
}

/// Power of a force F_W (W) at the world point P_W of a body: F_W . (v + omega_W x (P_W - r)).
template <class T>
SP_HD T point_force_power(const BodyKin<T>& B, const Vec3<T>& F_W, const Vec3<T>& P_W) {
  return dot(F_W, B.v + cross(B.omega_W, P_W - B.r));
}

/// Power of the damping part of a translational spring-damper (spring_damper_force):
/// -F_c(L') L', its stiffness part being in E; 0 where L < 1e-12 m (no force).
template <class T, class PC>
SP_HD T spring_damping_power(const PC& ctab, int nc, T damping, const Vec3<T>& P_i, const Vec3<T>& V_i,
                             const Vec3<T>& P_j, const Vec3<T>& V_j) {
  T L, rate;
  Vec3<T> e;
  if (!spring_line(P_i, V_i, P_j, V_j, L, e, rate)) return T(0);
  return -characteristic_force(ctab, nc, damping, rate) * rate;
}

/// Power of the damping part of a rotational spring-damper (rotational_spring_torque):
/// -F_c(theta_dot) theta_dot, theta_dot the rate of body_j relative to body_i about v_i.
template <class T, class PC>
SP_HD T rotational_damping_power(const PC& ctab, int nc, T damping, const JointFrame<T>& f, const BodyKin<T>& Bi,
                                 const BodyKin<T>& Bj) {
  const T theta_dot = dot(Bj.omega_W - Bi.omega_W, mul(Bi.A, f.v_i));
  return -characteristic_force(ctab, nc, damping, theta_dot) * theta_dot;
}

/// Power of an actuator's input u on its joint (frame f between Bi and Bj): a torque
/// u v_i on body_j and -u v_i on body_i; a force u v_i on body_j and -u v_i on body_i,
/// both at body_j's anchor P_j (dynamics/forces.cpp).
template <class T>
SP_HD T actuator_power(bool torque, T u, const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  const Vec3<T> v_i = mul(Bi.A, f.v_i);
  if (torque) return u * dot(v_i, Bj.omega_W - Bi.omega_W);
  const Vec3<T> P = Bj.r + mul(Bj.A, f.u_j);
  return point_force_power(Bj, u * v_i, P) - point_force_power(Bi, u * v_i, P);
}

/// Power of a generalised joint force (joint_law_loads) on its joint's bodies Bi, Bj.
template <class T>
SP_HD T joint_load_power(const JointLoad<T>& J, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  Vec3<T> F_W, T_B;
  joint_load_wrench(J, true, Bj, F_W, T_B);
  T p = wrench_power(Bj, F_W, T_B);
  joint_load_wrench(J, false, Bi, F_W, T_B);
  return p + wrench_power(Bi, F_W, T_B);
}

/// Power of a rheonomic driver's constraint force -Phi_q^T lambda: -lambda Phi_q qdot,
/// Phi_q qdot = jac12 . [v_i, omega_B,i, v_j, omega_B,j] from its row's 12 Jacobian
/// columns (JointRows layout, `stride` apart) and the bodies' twists (s'(t) on the
/// constraint manifold).
template <class T, class Jac>
SP_HD T driver_power(T lambda, const Jac& jac12, const BodyKin<T>& Bi, const BodyKin<T>& Bj) {
  T rate = T(0);
  for (int c = 0; c < 3; ++c)
    rate += jac12(c) * Bi.v[c] + jac12(3 + c) * Bi.omega_B[c] + jac12(6 + c) * Bj.v[c] + jac12(9 + c) * Bj.omega_B[c];
  return -lambda * rate;
}

}  // namespace simphant
