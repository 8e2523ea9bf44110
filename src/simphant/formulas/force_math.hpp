#pragma once
// The applied-force, energy and reaction formulas of SimPhant, written once as header-only
// __host__ __device__ templates shared by the CPU reference (forces.cpp, evaluate.cpp)
// and the batched CUDA kernels (kernels/body_forces.hpp, kernels/frame.hpp).
//
// Generalised force of one body: [F (W) [N], T (B, about the CoM) [N m]] (docs/solver.md,
// Forces); the gyroscopic term is Q_v = -omega_B x (J omega_B) (the original formulation
// prints the opposite sign; the torque-free and heavy-top tests decide it).
#include "simphant/formulas/motion_law.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

/// Accessor k -> p(offset + k) of another accessor P (the x, y, m2 blocks of a table).
template <class P>
struct ShiftedParams {
  P p;
  int offset;
  SP_HD auto operator()(int k) const { return p(offset + k); }
};

/// Accessor over a contiguous array (a CharacteristicTable's p on the host).
template <class T>
struct PointerParams {
  const T* p;
  SP_HD T operator()(int k) const { return p[k]; }
};

/// Force [N] (or torque [N m]) of a spring or damper characteristic at q (deflection from
/// rest [m | rad], or its rate): `coefficient * q` when n == 0 (linear element), else the
/// tabulated characteristic: the natural cubic spline through the n knots (x_k, y_k),
/// continued linearly with its end slope outside [x_0, x_{n-1}]. tab: accessor k -> T over
/// [x (n), y (n), m2 (n)] (CharacteristicTable in model/model.hpp); slope (optional) gets
/// d force / dq.
template <class T, class P>
SP_HD T characteristic_force(const P& tab, int n, T coefficient, T q, T* slope = nullptr) {
  if (n == 0) {
    if (slope) *slope = coefficient;
    return coefficient * q;
  }
  T s, ds, dds;
  spline_eval_at(tab, ShiftedParams<P>{tab, n}, ShiftedParams<P>{tab, 2 * n}, n, q, true, s, ds, dds);
  if (slope) *slope = ds;
  return s;
}

/// Antiderivative G(q) = integral from x_0 to q of a table's characteristic (exact for
/// the piecewise cubic and its linear continuation). Layout as characteristic_force.
template <class T, class P>
SP_HD T characteristic_antiderivative(const P& tab, int n, T q) {
  if (q <= tab(0)) {
    T f0, s0;
    f0 = characteristic_force(tab, n, T(0), tab(0), &s0);
    const T d = q - tab(0);
    return f0 * d + T(0.5) * s0 * d * d;
  }
  T G = T(0);
  for (int k = 0; k + 1 < n; ++k) {
    const T h = tab(k + 1) - tab(k);
    if (q >= tab(k + 1)) {  // the whole interval: h (y_k + y_k+1) / 2 - h^3 (M_k + M_k+1) / 24
      G += h * (T(0.5) * (tab(n + k) + tab(n + k + 1)) - h * h * (tab(2 * n + k) + tab(2 * n + k + 1)) / T(24));
      continue;
    }
    // Part of interval k up to b = (q - x_k) / h: s = A y_k + B y_k+1 + ((A^3 - A) M_k +
    // (B^3 - B) M_k+1) h^2 / 6 with B = (u - x_k) / h, A = 1 - B, integrated over B in [0, b].
    const T b = (q - tab(k)) / h, a = T(1) - b;
    const T intA = b - T(0.5) * b * b, intB = T(0.5) * b * b;
    const T intA3 = (T(1) - a * a * a * a) / T(4) - intA, intB3 = b * b * b * b / T(4) - intB;
    return G + h * (intA * tab(n + k) + intB * tab(n + k + 1) + (intA3 * tab(2 * n + k) + intB3 * tab(2 * n + k + 1)) * h * h / T(6));
  }
  T fn, sn;  // beyond x_{n-1}: the linear continuation
  fn = characteristic_force(tab, n, T(0), tab(n - 1), &sn);
  const T d = q - tab(n - 1);
  return G + fn * d + T(0.5) * sn * d * d;
}

/// Potential energy [J] of a spring characteristic deflected by q from rest: the integral
/// of the force from 0 to q (1/2 k q^2 for n == 0). Layout as characteristic_force.
template <class T, class P>
SP_HD T characteristic_potential(const P& tab, int n, T coefficient, T q) {
  if (n == 0) return T(0.5) * coefficient * q * q;
  return characteristic_antiderivative(tab, n, q) - characteristic_antiderivative(tab, n, T(0));
}

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

/// Line of a translational spring-damper between points P_i, P_j with velocities V_i,
/// V_j: length L, unit direction e = (P_j - P_i) / L and rate L' = e . (V_j - V_i).
/// Returns false when L < 1e-12 m, where the direction is undefined (no force).
template <class T>
SP_HD bool spring_line(const Vec3<T>& P_i, const Vec3<T>& V_i, const Vec3<T>& P_j, const Vec3<T>& V_j, T& L,
                       Vec3<T>& e, T& rate) {
  const Vec3<T> dvec = P_j - P_i;
  L = norm(dvec);
  if (!(L >= T(1e-12))) return false;
  e = (T(1) / L) * dvec;
  rate = dot(e, V_j - V_i);
  return true;
}

/// Translational spring-damper between points P_i, P_j with velocities V_i, V_j:
/// tension = F_k(L - rest) + F_c(L'), with F_k, F_c the stiffness and damping
/// characteristics (characteristic_force: k q and c q, or the tables ktab (nk knots) and
/// ctab (nc knots)), e and L' as spring_line. The force on side i is tension * e at P_i,
/// on side j -tension * e at P_j. Returns false (no force) when L < 1e-12 m.
template <class T, class PK, class PC>
SP_HD bool spring_damper_force(const PK& ktab, int nk, T stiffness, const PC& ctab, int nc, T damping, T rest,
                               const Vec3<T>& P_i, const Vec3<T>& V_i, const Vec3<T>& P_j, const Vec3<T>& V_j,
                               Vec3<T>& F_on_i) {
  T L, rate;
  Vec3<T> e;
  if (!spring_line(P_i, V_i, P_j, V_j, L, e, rate)) return false;
  const T tension = characteristic_force(ktab, nk, stiffness, L - rest) + characteristic_force(ctab, nc, damping, rate);
  F_on_i = tension * e;
  return true;
}

/// The linear spring-damper: tension = k (L - rest) + c L' (spring_damper_force above).
template <class T>
SP_HD bool spring_damper_force(T stiffness, T damping, T rest, const Vec3<T>& P_i, const Vec3<T>& V_i,
                               const Vec3<T>& P_j, const Vec3<T>& V_j, Vec3<T>& F_on_i) {
  const PointerParams<T> none{nullptr};
  return spring_damper_force(none, 0, stiffness, none, 0, damping, rest, P_i, V_i, P_j, V_j, F_on_i);
}

/// Torque [N m] of a rotational spring-damper about a joint's axis v_i (W): applied
/// +tau v_i to body_j and -tau v_i to body_i, tau = -F_k(theta - rest) - F_c(theta_dot),
/// F_k, F_c the characteristics (characteristic_force: k q, c q or the tables).
template <class T, class PK, class PC>
SP_HD T rotational_spring_torque(const PK& ktab, int nk, T stiffness, const PC& ctab, int nc, T damping, T rest,
                                 const JointFrame<T>& f, const BodyKin<T>& Bi, const BodyKin<T>& Bj, Vec3<T>& v_i_W) {
  v_i_W = mul(Bi.A, f.v_i);
  const T theta = coordinate_angle_value(f, Bi, Bj);
  const T theta_dot = dot(Bj.omega_W - Bi.omega_W, v_i_W);
  return -characteristic_force(ktab, nk, stiffness, theta - rest) - characteristic_force(ctab, nc, damping, theta_dot);
}

/// The linear rotational spring-damper: tau = -k (theta - rest) - c theta_dot.
template <class T>
SP_HD T rotational_spring_torque(T stiffness, T damping, T rest, const JointFrame<T>& f, const BodyKin<T>& Bi,
                                 const BodyKin<T>& Bj, Vec3<T>& v_i_W) {
  const PointerParams<T> none{nullptr};
  return rotational_spring_torque(none, 0, stiffness, none, 0, damping, rest, f, Bi, Bj, v_i_W);
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

/// y = M_k^-1 x for one body's 6 velocity coordinates: x (1 / m) on v (one division),
/// J^-1 x on omega.
template <class T>
SP_HD void apply_body_Minv(T mass, const Mat3<T>& J_inv_B, const T* x, T* y) {
  const Vec3<T> w = mul(J_inv_B, Vec3<T>{x[3], x[4], x[5]});
  const T inv_mass = T(1) / mass;
  for (int c = 0; c < 3; ++c) {
    y[c] = x[c] * inv_mass;
    y[3 + c] = w[c];
  }
}

}  // namespace simphant
