#pragma once
// Per-thread functions that fill a recorded frame on the device (recorded quantities as
// the CPU reference's read_reactions / read_energy, sim/cpu_backend.cpp):
//   reactions: one thread per (instance, joint), from lambda at the current state;
//   energy:    one thread per instance, kinetic + gravity potential + spring potential.
// The shared formulas are simphant/formulas/force_math.hpp and the joint math.
#include <type_traits>

#include "batch_state.hpp"
#include "body_forces.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/force_math.hpp"

namespace simphant::batch {

/// tid = j * n + i. jac_in (m, mv.jac_cols(), n) and lambda_in (layout lambda_soa: lambda_at)
/// evaluated at y_in; info_in
/// (n). reactions_out (6 J, n): [F (W) [N], T about the anchor (W) [N m]] that joint j
/// applies to its body_j; NaN where the instance's factorisation failed.
template <class T>
SP_HD void reaction_thread(int tid, const ModelView<T>& mv, const T* y_in, const T* jac_in, const T* lambda_in,
                           int lambda_soa, const int* info_in, T* reactions_out) {
  const int n = mv.n_instances;
  if (tid >= n * mv.n_joints) return;
  const int i = tid % n, j = tid / n;
  const int o = mv.row_offset[j], m = mv.rows_of(j), w = mv.jac_cols();
  T jac[kMaxJointRows * 12], lambda[kMaxJointRows], out[6];
  for (int r = 0; r < m; ++r) {
    lambda[r] = lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, o + r);
    for (int c = 0; c < 12; ++c) jac[12 * r + c] = soa(jac_in, w * (o + r) + c, n, i);
  }
  const BodyKin<T> Bj = soa_body_kin(y_in, n, i, mv.n_bodies, mv.body_of(j, 1));
  joint_reaction(m, jac, lambda, Bj, mv.frame(j, i).u_j, out);
  const bool failed = info_in[i] != 0;
  for (int c = 0; c < 6; ++c) soa(reactions_out, 6 * j + c, n, i) = failed ? T(NAN) : out[c];
}

/// tid = d * n + i. lambda_in (layout lambda_soa: lambda_at) at the current state, info_in
/// (n). driver_loads_out (D, n): the driving torque [N m] or force [N] driver d applies to
/// its joint's body_j, positive along v_i: -lambda of its row (driver_loads in
/// dynamics/evaluate.hpp); NaN where the instance's factorisation failed.
template <class T>
SP_HD void driver_load_thread(int tid, const ModelView<T>& mv, const T* lambda_in, int lambda_soa, const int* info_in,
                              T* driver_loads_out) {
  const int n = mv.n_instances;
  if (tid >= n * mv.n_drivers) return;
  const int i = tid % n, d = tid / n;
  const T l = lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, mv.row_offset[mv.n_joints + d]);
  soa(driver_loads_out, d, n, i) = info_in[i] != 0 ? T(NAN) : -l;
}

/// Energy of instance i at y (13 N, n): returns kinetic + gravity potential (-m g . r) +
/// spring potential [J] and sets kinetic [J]; summed in the CPU reference's order
/// (total_energy in dynamics/evaluate.cpp).
template <class T>
SP_HD T soa_energy(const ModelView<T>& mv, const T* y_in, int i, T& kinetic) {
  const int n = mv.n_instances, N = mv.n_bodies;
  kinetic = T(0);
  for (int k = 0; k < N; ++k) kinetic += body_kinetic_energy(mv.mass(k, i), mv.inertia_B(k, i), soa_body_kin(y_in, n, i, N, k));
  T springs = T(0);
  for (int f = 0; f < mv.n_forces; ++f) {
    const ForceTopo& ft = mv.force[f];
    const int p = mv.force_param(f);
    if (ft.type == 2) {
      Vec3<T> Pi, Vi, Pj, Vj;
      body_point_state(soa_body_kin(y_in, n, i, N, ft.body_i), mv.param3(p + 6, i), Pi, Vi);
      body_point_state(soa_body_kin(y_in, n, i, N, ft.body_j), mv.param3(p + 9, i), Pj, Vj);
      springs += characteristic_potential(LawParams<T>{&mv, ft.stiffness_table, i}, ft.stiffness_n,
                                          mv.param(p + 12, i), norm(Pj - Pi) - mv.param(p + 14, i));
    } else if (ft.type == 3) {
      const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
      const T theta = coordinate_angle_value(mv.frame(ft.joint, i), soa_body_kin(y_in, n, i, N, bi), soa_body_kin(y_in, n, i, N, bj));
      springs += characteristic_potential(LawParams<T>{&mv, ft.stiffness_table, i}, ft.stiffness_n,
                                          mv.param(p + 12, i), theta - mv.param(p + 14, i));
    } else if (ft.type == 6) {
      if constexpr (std::is_floating_point<T>::value) {
        const int bi = mv.body_of(ft.joint, 0), bj = mv.body_of(ft.joint, 1);
        T lower, upper, q, qd;
        const NormalLawParams<T> law = joint_stop_params(mv, ft, i, lower, upper);
        joint_stop_coordinate(ft.kind == 0, mv.frame(ft.joint, i), soa_body_kin(y_in, n, i, N, bi),
                              soa_body_kin(y_in, n, i, N, bj), joint_stop_middle(lower, upper), q, qd);
        springs += joint_stop_potential(law, lower, upper, q);
      } else {
        springs = T(NAN);  // no dual-number or lane form of the law (body_forces.hpp)
      }
    } else if (ft.type == 5) {
      if constexpr (std::is_floating_point<T>::value) {
        springs += contact_pair_potential(detail::contact_wrench(mv, ft, i, soa_body_kin(y_in, n, i, N, ft.body_i),
                                                                 soa_body_kin(y_in, n, i, N, ft.body_j)),
                                          contact_params(mv, ft, i));
      } else {
        springs = T(NAN);  // no dual-number or lane form of the geometry (body_forces.hpp)
      }
    }
  }
  T total = kinetic + springs;
  const Vec3<T> g = mv.gravity(i);
  for (int k = 0; k < N; ++k) total -= mv.mass(k, i) * dot(g, soa_body_kin(y_in, n, i, N, k).r);
  return total;
}

/// tid = i. total_out[i] = kinetic + gravity potential (-m g . r) + spring potential [J];
/// kinetic_out[i] = kinetic [J]; at y_in (soa_energy).
template <class T>
SP_HD void energy_thread(int tid, const ModelView<T>& mv, const T* y_in, T* total_out, T* kinetic_out) {
  if (tid >= mv.n_instances) return;
  T kinetic;
  total_out[tid] = soa_energy(mv, y_in, tid, kinetic);
  kinetic_out[tid] = kinetic;
}

}  // namespace simphant::batch
