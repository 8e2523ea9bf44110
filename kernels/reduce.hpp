#pragma once
// The per-thread function of the per-instance reductions over time on the device
// (formulas/reductions.hpp; docs/solver.md, "Reductions over time"): one sample of
// instance i from an evaluation already in the batch buffers -- the first RK4 stage of
// a step (batch_step.hpp, enqueue_step, and fused_stage_thread's stage 0) or, for a
// read, the current state (enqueue_reduce_read). The formulas are the CPU reference's
// (dynamics/reduce_sample.cpp): joint_reaction, joint_loads_from_reaction, the energy
// of frame.hpp, the violation of instance_status.hpp and the contact pairs' summaries
// (contact_pair_summary of body_forces.hpp's contact_wrench).
#include <cstdint>
#include <type_traits>

#include "batch_buffers.hpp"
#include "batch_state.hpp"
#include "body_forces.hpp"
#include "frame.hpp"
#include "power.hpp"
#include "simphant/batch/model_view.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/joints/joint_coordinate.hpp"

namespace simphant::batch {

/// The loads of the drivers on joint j, load(k) [N m | N] of driver k on body_j along
/// v_i, added to the joint's axial moment (an angle driver) or axial force (JointSample's
/// driver_axial_moment / driver_axial_force); both start at 0.
template <class T, class Load>
SP_HD void driver_axial_loads(const ModelView<T>& mv, int j, Load load, T& axial_force, T& axial_moment) {
  axial_force = T(0);
  axial_moment = T(0);
  for (int k = 0; k < mv.n_drivers; ++k)
    if (mv.driver[3 * k] == j)
      (mv.driver[3 * k + 1] == static_cast<int>(JointCoordinate::Angle) ? axial_moment : axial_force) += load(k);
}

/// tid = i. Adds instance i's sample at y_in (its time t [s], inputs_in (n_inputs, n)) to
/// acc (L.size(), n) doubles, structure of arrays, at time `step` in steps of dt (the
/// time of each maximum): jac_in (m, mv.jac_cols(), n)
/// and lambda_in (lambda_at layout lambda_soa) evaluated at y_in, violation_in (n) its
/// max |Phi|. Skipped for an instance whose status_in is not Ok or whose factorisation
/// failed (info_in != 0; a model without constraint rows has no solve and no info). Nothing to do when L has no channel. (The adaptive path samples
/// at each accepted step's end, at its own time: kernels/dopri5_step.hpp.)
/// tangent_acc: null, or for a Dual T the tangents (L.tangent_size() * T::size, n),
/// structure of arrays (ReductionAcc::tangent).
template <class T>
SP_HD void reduce_sample_thread(int tid, const ModelView<T>& mv, const ReductionLayout& L, const T* y_in, T t,
                                const T* inputs_in, const T* jac_in, const T* lambda_in, int lambda_soa, const int* info_in,
                                const T* violation_in, const std::int8_t* status_in, double step, double* acc,
                                double* tangent_acc = nullptr) {
  const int n = mv.n_instances, N = mv.n_bodies;
  if (tid >= n || !L.any()) return;
  const int i = tid;
  if (status_in[i] != kStatusOk || (mv.n_rows > 0 && info_in[i] != 0)) return;
  const ReductionAcc a{acc + i, static_cast<std::size_t>(n), tangent_acc ? tangent_acc + i : nullptr};
  for (int j = 0; L.any_joint() && j < mv.n_joints; ++j) {
    const int o = mv.row_offset[j], m = mv.rows_of(j), w = mv.jac_cols();
    T jac[kMaxJointRows * 12], lambda[kMaxJointRows];
    for (int r = 0; r < m; ++r) {
      lambda[r] = lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, o + r);
      for (int c = 0; c < 12; ++c) jac[12 * r + c] = soa(jac_in, w * (o + r) + c, n, i);
    }
    JointSample<T> s;
    s.type = static_cast<JointType>(mv.joint_type[j]);
    s.frame = mv.frame(j, i);
    s.Bi = soa_body_kin(y_in, n, i, N, mv.body_of(j, 0));
    s.Bj = soa_body_kin(y_in, n, i, N, mv.body_of(j, 1));
    joint_reaction(m, jac, lambda, s.Bj, s.frame.u_j, s.reaction);
    // A driver on the joint adds its load (-lambda of its row, driver_load_thread).
    driver_axial_loads(
        mv, j,
        [&](int k) { return -lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, mv.row_offset[mv.n_joints + k]); },
        s.driver_axial_force, s.driver_axial_moment);
    reduction_add_joint(L, a, j, s, step);
  }
  for (int k = 0; k < mv.n_drivers; ++k)
    reduction_add_driver(L, a, k, -lambda_at(lambda_in, lambda_soa, mv.n_rows, n, i, mv.row_offset[mv.n_joints + k]), step);
  if constexpr (std::is_floating_point<T>::value) {  // the collision geometry has no lane or dual form
    if (L.enabled(ReductionQuantity::Contacts))
      for (int f = 0, p = 0; f < mv.n_forces; ++f) {
        const ForceTopo& ft = mv.force[f];
        if (ft.type != 5) continue;  // Contact
        T summary[kContactSummaryComponents];
        contact_pair_summary(detail::contact_wrench(mv, ft, i, soa_body_kin(y_in, n, i, N, ft.body_i),
                                                    soa_body_kin(y_in, n, i, N, ft.body_j)),
                             summary);
        reduction_add_contact(L, a, p++, summary, step);
      }
  }
  T kinetic = T(0);
  const T energy = L.enabled(ReductionQuantity::Energy) ? soa_energy(mv, y_in, i, kinetic) : T(0);
  const T power = L.enabled(ReductionQuantity::Power)
                      ? nonconservative_power(i, mv, t, y_in, inputs_in, jac_in, lambda_in, lambda_soa)
                      : T(0);
  reduction_add_instance<T>(L, a, violation_in[i], energy, power, step);
}

/// tid = i. reduce_sample_thread (tangent_acc as there) at batch step *step_in and the
/// instance time t_in[i]:
/// the fixed step's sample of its start state (the first RK4 stage's evaluation); the
/// CPU reference samples only a successful first evaluation, and a failed one
/// (info_in != 0) fails the step.
template <class T>
SP_HD void reduce_thread(int tid, const ModelView<T>& mv, const ReductionLayout& L, const T* y_in, const T* t_in,
                         const T* inputs_in, const T* jac_in,
                         const T* lambda_in, int lambda_soa, const int* info_in, const T* violation_in,
                         const std::int8_t* status_in, const std::int64_t* step_in, double* acc,
                         double* tangent_acc = nullptr) {
  if (tid >= mv.n_instances || !L.any()) return;
  reduce_sample_thread(tid, mv, L, y_in, t_in[tid], inputs_in, jac_in, lambda_in, lambda_soa, info_in, violation_in,
                       status_in, static_cast<double>(*step_in), acc, tangent_acc);
}

/// tid = i. acc (L.size(), n) set to no samples (reduction_clear) for the listed
/// instances: ids (count) or, with ids null, every instance (count = n).
template <class T>
SP_HD void reduce_clear_thread(int tid, const ModelView<T>& mv, const ReductionLayout& L, const int* ids, int count,
                               double* acc) {
  if (tid >= count) return;
  const int i = ids ? ids[tid] : tid;
  reduction_clear(L, ReductionAcc{acc + i, static_cast<std::size_t>(mv.n_instances)});
}

}  // namespace simphant::batch
