#pragma once
// The power of the loads, drives and dampers of one instance (formulas/power_math.hpp),
// for the power channel of the reductions over time (reduce.hpp) and with it the work in
// the energy balance (docs/solver.md, "Energy check"). The CPU reference's
// nonconservative_power (dynamics/forces.cpp) sums the same terms in the same order.
#include <type_traits>

#include "batch_state.hpp"
#include "body_forces.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/power_math.hpp"

namespace simphant::batch {

/// Instance i at the state y_in (13 N, n) and its time t [s]: the power [W] of its force
/// elements' non-conservative parts (point forces, torques, actuators and robot joint
/// laws with inputs_in (n_inputs, n), the damping of the spring-dampers) and of its
/// drivers' constraint forces, lambda_in (lambda_at layout lambda_soa) and jac_in
/// (m, mv.jac_cols(), n) evaluated at y_in (a mimic row does no work: it does not depend
/// on time).
template <class T>
SP_HD T nonconservative_power(int i, const ModelView<T>& mv, T t, const T* y_in, const T* inputs_in, const T* jac_in,
                              const T* lambda_in, int lambda_soa) {
  const int n = mv.n_instances, N = mv.n_bodies;
  const auto kin = [&](int b) { return soa_body_kin(y_in, n, i, N, b); };
  T P = T(0);
  for (int f = 0; f < mv.n_forces; ++f) {
    const ForceTopo& ft = mv.force[f];
    const int p = mv.force_param(f);
    switch (ft.type) {
      case 0:    // PointForce
      case 1: {  // Torque
        const BodyKin<T> B = kin(ft.body);
        const Vec3<T> vec = ft.law >= 0 ? detail::law_factor(mv, ft.law, i, t) * mv.param3(p + 3, i)
                                        : mv.param3(p + 3, i);
        const Vec3<T> V_W = ft.world_frame ? vec : mul(B.A, vec);
        P += ft.type == 0 ? point_force_power(B, V_W, B.r + mul(B.A, mv.param3(p, i))) : dot(V_W, B.omega_W);
        break;
      }
      case 2: {  // SpringDamper: its damping
        Vec3<T> Pi, Vi, Pj, Vj;
        body_point_state(kin(ft.body_i), mv.param3(p + 6, i), Pi, Vi);
        body_point_state(kin(ft.body_j), mv.param3(p + 9, i), Pj, Vj);
        P += spring_damping_power(LawParams<T>{&mv, ft.damping_table, i}, ft.damping_n, mv.param(p + 13, i), Pi, Vi,
                                  Pj, Vj);
        break;
      }
      case 3:    // RotationalSpringDamper: its damping
      case 4: {  // Actuator
        const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
        const BodyKin<T> Bi = kin(bi), Bj = kin(bj);
        const JointFrame<T> fr = mv.frame(ft.joint, i);
        if (ft.type == 3) {
          P += rotational_damping_power(LawParams<T>{&mv, ft.damping_table, i}, ft.damping_n, mv.param(p + 13, i), fr,
                                        Bi, Bj);
          break;
        }
        T u = soa(inputs_in, ft.input_index, n, i);
        if (ft.law >= 0) u += detail::law_factor(mv, ft.law, i, t);  // the input plus s(t)
        if (ft.joint_law < 0) {
          P += actuator_power(ft.kind == 0, u, fr, Bi, Bj);
          break;
        }
        const JointLaw<T> L = joint_law_from<T>(LawParams<T>{&mv, ft.joint_law, i});
        JointLoad<T> self;
        joint_law_loads(L, u, ft.kind == 0, fr, Bi, Bj, self);
        P += joint_load_power(self, Bi, Bj);
        break;
      }
      case 6: {  // JointStop: its damping, the force less its elastic part
        const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
        const BodyKin<T> Bi = kin(bi), Bj = kin(bj);
        const JointFrame<T> fr = mv.frame(ft.joint, i);
        if constexpr (std::is_floating_point<T>::value) {
          T lower, upper, q, qd, elastic;
          const NormalLawParams<T> law = joint_stop_params(mv, ft, i, lower, upper);
          joint_stop_coordinate(ft.kind == 0, fr, Bi, Bj, joint_stop_middle(lower, upper), q, qd);
          const T u = joint_stop_force(law, lower, upper, q, qd, &elastic);
          P += actuator_power(ft.kind == 0, u - elastic, fr, Bi, Bj);
        } else {
          P = T(NAN);  // no dual-number or lane form of the law (body_forces.hpp)
        }
        break;
      }
      case 5: {  // Contact: its damping, friction and rolling resistance
        if constexpr (std::is_floating_point<T>::value) {
          const BodyKin<T> Bi = kin(ft.body_i), Bj = kin(ft.body_j);
          P += contact_pair_dissipation_power(detail::contact_wrench(mv, ft, i, Bi, Bj), contact_params(mv, ft, i), Bi,
                                              Bj);
        } else {
          P = T(NAN);  // no dual-number or lane form of the geometry (body_forces.hpp)
        }
        break;
      }
      default:
        break;
    }
  }
  for (int k = 0; k < mv.n_drivers; ++k) {
    const int j = mv.n_joints + k, R = mv.row_offset[j], w = mv.jac_cols();
    P += driver_power(lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, R),
                      [&](int c) { return soa(jac_in, w * R + c, n, i); }, kin(mv.body_of(j, 0)),
                      kin(mv.body_of(j, 1)));
  }
  return P;
}

}  // namespace simphant::batch
