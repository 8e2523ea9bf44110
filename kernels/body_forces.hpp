#pragma once
// Per-thread function of the body-forces kernel: one thread per (instance, body) sums
// that body's generalised force Q_k = [F (W), T (B, about the CoM)]: gravity, the
// gyroscopic term, and every force element acting on it, in element order, with the
// shared formulas of simphant/formulas/force_math.hpp (the CPU reference's
// compute_forces sums the same terms in the same order).
#include <type_traits>

#include "batch_state.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/contact/contact_wrench.hpp"
#include "simphant/formulas/joint_stop.hpp"
#include "simphant/formulas/force_math.hpp"

namespace simphant::batch {

namespace detail {

template <class T>
SP_HD void add_wrench(T* Qk, const Vec3<T>& F_W, const Vec3<T>& T_B) {
  for (int c = 0; c < 3; ++c) {
    Qk[c] += F_W[c];
    Qk[3 + c] += T_B[c];
  }
}

/// s(t) of a load's motion law for instance i at its time t (the factor of a point
/// force or torque, the offset of an actuator; docs/scene-format.md, "Time-varying loads").
template <class T>
SP_HD T law_factor(const ModelView<T>& mv, int law, int i, T t) {
  T s, sd, sdd;
  motion_law_value(mv, law, i, t, s, sd, sdd);
  return s;
}

/// Adds to Qk body k's share of a robot joint's law with input u (joint_law_loads): the
/// wrenches on its joint's body_j then body_i, in the CPU reference's order
/// (dynamics/forces.cpp).
template <class T>
SP_HD void add_joint_law(const ModelView<T>& mv, const ForceTopo& ft, T u, int i, int k, const BodyKin<T>& B,
                         const BodyKin<T>& Bi, const BodyKin<T>& Bj, const JointFrame<T>& fr, T* Qk) {
  const JointLaw<T> L = joint_law_from<T>(LawParams<T>{&mv, ft.joint_law, i});
  JointLoad<T> self;
  joint_law_loads(L, u, ft.kind == 0, fr, Bi, Bj, self);
  const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
  Vec3<T> F_W, T_B;
  if (bj == k) {
    joint_load_wrench(self, true, B, F_W, T_B);
    add_wrench(Qk, F_W, T_B);
  }
  if (bi == k) {
    joint_load_wrench(self, false, B, F_W, T_B);
    add_wrench(Qk, F_W, T_B);
  }
}

/// The wrenches of contact pair ft of instance i on its two bodies (kinematics Bi, Bj;
/// ground_kin for the ground), with the broad phase (contact_pair_wrench).
template <class T>
SP_HD ContactPairWrench<T> contact_wrench(const ModelView<T>& mv, const ForceTopo& ft, int i, const BodyKin<T>& Bi,
                                          const BodyKin<T>& Bj) {
  return contact_pair_wrench(contact_shape(mv, ft, 0, i), Bi, contact_shape(mv, ft, 1, i), Bj,
                             contact_params(mv, ft, i), static_cast<const T*>(nullptr), true);
}

}  // namespace detail

/// Body k of instance i without force elements: gravity m g (W) and the gyroscopic
/// torque -omega_B x J_B omega_B (B) into Qk[6], for any T (the SIMD lanes of simd/ run it
/// for the bodies that no force element touches). omega_B: the body's angular velocity (B).
template <class T>
SP_HD void body_base_wrench(int i, int k, const ModelView<T>& mv, const Vec3<T>& omega_B, T* Qk) {
  for (int c = 0; c < 6; ++c) Qk[c] = T(0);
  detail::add_wrench(Qk, mv.mass(k, i) * mv.gravity(i), gyroscopic_torque(mv.inertia_B(k, i), omega_B));
}

/// Body k of instance i: body_forces_thread's Q_k with the bodies' kinematics from kin(b)
/// (BodyKin<T> of body b at the state, ground_kin for b = -1), so that a caller summing
/// several bodies of one instance computes each body's kinematics once.
template <class T, class Kin>
SP_HD void body_forces_of(int i, int k, const ModelView<T>& mv, const T* t_in, const T* inputs_in, const Kin& kin,
                          T* Q_out) {
  const int n = mv.n_instances;
  const BodyKin<T> B = kin(k);
  T Qk[6];
  body_base_wrench(i, k, mv, B.omega_B, Qk);
  const Vec3<T> zero = zero3<T>();
  for (int f = 0; f < mv.n_forces; ++f) {
    const ForceTopo& ft = mv.force[f];
    const int p = mv.force_param(f);
    switch (ft.type) {
      case 0: {  // PointForce
        if (ft.body != k) break;
        const Vec3<T> vec = ft.law >= 0 ? detail::law_factor(mv, ft.law, i, t_in[i]) * mv.param3(p + 3, i)
                                        : mv.param3(p + 3, i);
        const Vec3<T> F_W = ft.world_frame ? vec : mul(B.A, vec);
        detail::add_wrench(Qk, F_W, torque_B_of_force_at(B, F_W, B.r + mul(B.A, mv.param3(p, i))));
        break;
      }
      case 1: {  // Torque
        if (ft.body != k) break;
        const Vec3<T> vec = ft.law >= 0 ? detail::law_factor(mv, ft.law, i, t_in[i]) * mv.param3(p + 3, i)
                                        : mv.param3(p + 3, i);
        const Vec3<T> T_W = ft.world_frame ? vec : mul(B.A, vec);
        detail::add_wrench(Qk, zero, mul_t(B.A, T_W));
        break;
      }
      case 2: {  // SpringDamper
        if (ft.body_i != k && ft.body_j != k) break;
        Vec3<T> Pi, Vi, Pj, Vj, F_i;
        body_point_state(kin(ft.body_i), mv.param3(p + 6, i), Pi, Vi);
        body_point_state(kin(ft.body_j), mv.param3(p + 9, i), Pj, Vj);
        if (!spring_damper_force(LawParams<T>{&mv, ft.stiffness_table, i}, ft.stiffness_n, mv.param(p + 12, i),
                                 LawParams<T>{&mv, ft.damping_table, i}, ft.damping_n, mv.param(p + 13, i),
                                 mv.param(p + 14, i), Pi, Vi, Pj, Vj, F_i))
          break;
        if (ft.body_i == k) detail::add_wrench(Qk, F_i, torque_B_of_force_at(B, F_i, Pi));
        if (ft.body_j == k) detail::add_wrench(Qk, -F_i, torque_B_of_force_at(B, -F_i, Pj));
        break;
      }
      case 3:    // RotationalSpringDamper
      case 4:    // Actuator
      case 6: {  // JointStop
        const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
        if (bi != k && bj != k) break;
        const BodyKin<T> Bi = kin(bi), Bj = kin(bj);
        const JointFrame<T> fr = mv.frame(ft.joint, i);
        Vec3<T> v_i;
        T u;
        if (ft.type == 3) {
          u = rotational_spring_torque(LawParams<T>{&mv, ft.stiffness_table, i}, ft.stiffness_n, mv.param(p + 12, i),
                                       LawParams<T>{&mv, ft.damping_table, i}, ft.damping_n, mv.param(p + 13, i),
                                       mv.param(p + 14, i), fr, Bi, Bj, v_i);
        } else if (ft.type == 6) {
          v_i = mul(Bi.A, fr.v_i);
          if constexpr (std::is_floating_point<T>::value) {
            T lower, upper, q, qd;
            const NormalLawParams<T> law = joint_stop_params(mv, ft, i, lower, upper);
            joint_stop_coordinate(ft.kind == 0, fr, Bi, Bj, joint_stop_middle(lower, upper), q, qd);
            u = joint_stop_force(law, lower, upper, q, qd);
          } else {
            u = T(NAN);  // the law branches on values: no dual-number or lane form (as contact)
          }
        } else {
          v_i = mul(Bi.A, fr.v_i);
          u = soa(inputs_in, ft.input_index, n, i);
          if (ft.law >= 0) u += detail::law_factor(mv, ft.law, i, t_in[i]);  // the input plus s(t)
          if (ft.joint_law >= 0) {
            detail::add_joint_law(mv, ft, u, i, k, B, Bi, Bj, fr, Qk);
            break;
          }
        }
        if (ft.type != 3 && ft.kind == 1) {
          // Force actuator or slide stop: equal and opposite forces along v_i at body_j's anchor.
          const Vec3<T> P = Bj.r + mul(Bj.A, fr.u_j);
          if (bj == k) detail::add_wrench(Qk, u * v_i, torque_B_of_force_at(B, u * v_i, P));
          if (bi == k) detail::add_wrench(Qk, -(u * v_i), torque_B_of_force_at(B, -(u * v_i), P));
        } else {
          if (bj == k) detail::add_wrench(Qk, zero, mul_t(B.A, u * v_i));
          if (bi == k) detail::add_wrench(Qk, zero, mul_t(B.A, -(u * v_i)));
        }
        break;
      }
      case 5: {  // Contact
        if (ft.body_i != k && ft.body_j != k) break;
        if constexpr (std::is_floating_point<T>::value) {
          const ContactPairWrench<T> w = detail::contact_wrench(mv, ft, i, kin(ft.body_i), kin(ft.body_j));
          if (ft.body_i == k) detail::add_wrench(Qk, w.a.force_W, w.a.torque_B);
          if (ft.body_j == k) detail::add_wrench(Qk, w.b.force_W, w.b.torque_B);
        } else {
          // The collision geometry branches on values: it has no dual-number or lane form,
          // so a contact force through such a T would be wrong; NaN makes that visible.
          for (int c = 0; c < 6; ++c) Qk[c] = T(NAN);
        }
        break;
      }
      default:
        break;
    }
  }
  for (int c = 0; c < 6; ++c) soa(Q_out, 6 * k + c, n, i) = Qk[c];
}

/// tid = k * n + i. t_in: (n) instance times [s] (the loads' motion laws read them);
/// y_in: (13 N, n); inputs_in: (n_inputs, n) actuator values. Q_out: (6 N, n). Threads
/// past n N return.
template <class T>
SP_HD void body_forces_thread(int tid, const ModelView<T>& mv, const T* t_in, const T* y_in, const T* inputs_in,
                              T* Q_out) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n * N) return;
  const int i = tid % n, k = tid / n;
  body_forces_of(i, k, mv, t_in, inputs_in, [&](int b) { return soa_body_kin(y_in, n, i, N, b); }, Q_out);
}

}  // namespace simphant::batch
