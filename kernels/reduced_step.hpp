#pragma once
// Per-thread functions of the joint-space robot step (docs/robots.md): one thread per
// instance advances that instance's state y = robot_state_size entries
// (reduced/robot_dynamics.hpp: [q, qd] fixed base, [p_B, quat_B, q, v_B, omega_B, qd]
// floating) by fixed steps of dt with rk4, euler or symplectic_euler (docs/solver.md,
// "Integrators"), and keeps the per-instance status as the other backends do
// (docs/solver.md, "Instance status"). The CPU backend (sim/reduced_backend.cpp) runs these
// functions over its instances on its worker threads (ThreadPool), and the same functions
// with T = Lanes<double, 8> over groups of 8 instances (simd/reduced_lanes.cpp); the CUDA backend
// (host/cuda_reduced_backend.cu) wraps each in a thin kernel; tests run them over a whole
// grid on the CPU (tests/cpu_grid_exec.hpp).
//
// Layout: every per-instance array is strided, element e of instance i at
// p[i * stride_i + e * stride_e]: the CPU backend's row-major (stride_i = width,
// stride_e = 1), a GPU's structure of arrays (stride_i = 1, stride_e = n_instances).
// Model slots: the model arrays hold n_slots rows; instance i reads slot 0 when
// n_slots == 1 (one shared model) and slot i otherwise (one per instance: sweeps).
//
// No allocation: each thread owns a ReducedStepWorkspace<T, Cap>, Cap >= n the link
// capacity of its fixed arrays (kReducedCapacities; reduced_capacity(n) picks the smallest
// that fits, so the GPU keeps a small per-thread workspace). The arithmetic does not depend
// on Cap: every capacity gives bitwise the same result.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "simphant/core/hd.hpp"
#include "simphant/math/lane_ops.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/formulas/runaway.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/reduced/robot_dynamics.hpp"
#include "simphant/reduced/robot_kinematics.hpp"

namespace simphant::ad {
template <class T, int P>
struct Dual;  // math/dual.hpp
}  // namespace simphant::ad

namespace simphant::batch {

/// One strided per-instance array (see the header comment).
template <class T>
struct Strided {
  T* p;
  std::int64_t stride_i, stride_e;
  SP_HD T& operator()(int i, int e) const { return p[i * stride_i + e * stride_e]; }
};

/// Row-major (n_instances, width): the CPU backend's layout.
template <class T>
SP_HD Strided<T> row_major(T* p, int width) { return {p, width, 1}; }
/// Structure of arrays (width, n_instances): element e of instance i at p[e * n_instances + i].
template <class T>
SP_HD Strided<T> structure_of_arrays(T* p, int n_instances) { return {p, 1, n_instances}; }

/// How the per-thread functions see the scalar type T: one instance per thread for float
/// and double (width 1; inputs u read as doubles in both precisions). The SIMD lane vector
/// Lanes<double, W> (simd/reduced_lane_math.hpp specialises this) is W instances per
/// "thread": a group, whose per-instance bookkeeping (status, status_step, reason,
/// offset) is W consecutive entries, instance lane l of group g at g * W + l.
template <class T>
struct ReducedLanes {
  static constexpr int width = 1;
  using input = double;     ///< element type of ReducedBatchView::U
  using mask = bool;        ///< what comparisons of T give
  SP_HD static bool get(bool m, int) { return m; }
  SP_HD static bool make(const bool* b) { return b[0]; }
};

/// A dual number (math/dual.hpp; the sensitivity engine, sim/robot_sensitivity_engine.cpp)
/// is one instance per thread, as a double; its inputs are dual numbers too, so that
/// the default inputs carry tangents.
template <class T, int P>
struct ReducedLanes<ad::Dual<T, P>> {
  static constexpr int width = 1;
  using input = ad::Dual<T, P>;
  using mask = bool;
  SP_HD static bool get(bool m, int) { return m; }
  SP_HD static bool make(const bool* b) { return b[0]; }
};

/// The batch of robot instances the per-thread functions read and write (plain data:
/// host or device pointers; T double or float).
template <class T>
struct ReducedBatchView {
  int n_instances;
  int n;           ///< moving joints per instance, 0 (a free body) .. kMaxReducedLinks
  int floating;    ///< 1: floating base (robot_dynamics.hpp's state layout)
  int use_cga;     ///< 0: spatial-vector ABA, 1: CGA ABA
  int integrator;  ///< Integrator (model/integrator.hpp) as int: Rk4, Euler or SymplecticEuler
  T dt;            ///< step [s] (shared by all instances)
  int n_slots;     ///< 1: every instance reads slot 0; n_instances: instance i reads slot i
  const ReducedLinkParams<T>* links;     ///< (n_slots, n) row-major
  const cga::CgaLink<T>* cga_links;      ///< (n_slots, n) row-major, read when use_cga
  const RobotJointParams<T>* joints;     ///< (n_slots, n) row-major
  const RobotBaseParams<T>* base;        ///< (n_slots), read when floating
  const Vec3<T>* gravity;                ///< (n_slots) [m/s^2], W
  /// (n_slots) > 0: the runaway bound K_max [J] (solver.runaway_kinetic_energy) on the
  /// kinetic energy of each new state; <= 0: no runaway test (docs/solver.md, "Runaway bound").
  const T* runaway_kinetic_energy;
  /// (n_slots, robot_state_size) row-major: the state reduced_reset_thread restores
  /// (q0, qd0 and the base's initial pose and twist).
  const T* y_init;
  /// Contact pairs per slot (reduced/robot_contact.hpp); 0: the robot has none.
  int n_contacts = 0;
  const RobotContactPair<T>* contacts = nullptr;  ///< (n_slots, n_contacts) row-major; T scalar
  /// T = SIMD lanes: per lane, its instance's n_contacts pairs (RobotView::lane_contacts)
  const RobotContactPair<double>* const* lane_contacts = nullptr;
  /// Reductions over time (formulas/reductions.hpp; a joint-space robot has energy and
  /// contacts): with red_acc set, reduced_advance_thread samples each live step's start
  /// state into instance i's accumulator (reduced_reduction_acc), T scalar or Dual (the
  /// SIMD lanes sample one lane at a time: simd/reduced_group.hpp); null: no reductions.
  ReductionLayout red;
  double* red_acc = nullptr;
  std::int64_t red_stride_i = 0;  ///< between instances (the CPU's rows: red.size())
  std::int64_t red_stride_e = 1;  ///< between accumulator elements (the CPU's rows: 1)
  /// T = Dual<double, W>: the samples' tangents (ReductionAcc::tangent, W per tangent
  /// slot, element stride red_stride_e), instance i's from red_tangent + i *
  /// red_tangent_stride_i; null: none kept.
  double* red_tangent = nullptr;
  std::int64_t red_tangent_stride_i = 0;
  Strided<T> Y;                 ///< (n_instances, robot_state_size): the state
  /// (n_instances, n): the inputs u (joint_forces.hpp), ReducedLanes<T>::input: doubles in
  /// both precisions, lane vectors of doubles for T = Lanes, dual numbers for a Dual T
  Strided<const typename ReducedLanes<T>::input> U;
  std::int8_t* status;          ///< (n_instances) InstanceStatus: 0 ok, 2 diverged (others are left alone)
  std::int64_t* status_step;    ///< (n_instances) the instance step at which the status was set
  std::int8_t* reason;          ///< (n_instances) kReason* (formulas/runaway.hpp)
  std::int64_t* offset;         ///< (n_instances) the batch step of the instance's step 0
};

/// The link capacities the step is instantiated for (the GPU picks one per robot).
constexpr int kReducedCapacities[4] = {8, 16, 32, 64};
static_assert(kMaxReducedLinks == 64, "kReducedCapacities ends at kMaxReducedLinks");

/// The smallest of kReducedCapacities >= n (n <= kMaxReducedLinks).
SP_HD int reduced_capacity(int n) { return n <= 8 ? 8 : (n <= 16 ? 16 : (n <= 32 ? 32 : 64)); }

/// State entries of one instance of the batch.
template <class T>
SP_HD int reduced_state_size(const ReducedBatchView<T>& b) { return robot_state_size(b.n, b.floating); }

/// The model slot of instance i.
template <class T>
SP_HD int reduced_slot(const ReducedBatchView<T>& b, int i) { return b.n_slots == 1 ? 0 : i; }

/// Instance i's robot (pointers into slot reduced_slot(b, i)).
template <class T>
SP_HD RobotView<T> reduced_robot_view(const ReducedBatchView<T>& b, int i) {
  const int s = reduced_slot(b, i);
  const std::int64_t o = static_cast<std::int64_t>(s) * b.n;
  RobotView<T> r;
  r.n = b.n;
  r.floating = b.floating;
  r.use_cga = b.use_cga;
  r.links = b.links + o;
  r.cga_links = b.cga_links ? b.cga_links + o : nullptr;
  r.joints = b.joints + o;
  if (b.floating) r.base = b.base[s];
  r.gravity = b.gravity[s];
  r.n_contacts = b.n_contacts;
  r.contacts = b.n_contacts > 0 && b.contacts ? b.contacts + static_cast<std::int64_t>(s) * b.n_contacts : nullptr;
  r.lane_contacts = b.lane_contacts;
  return r;
}

/// Instance i's accumulator of the reductions over time (b.red_acc set).
template <class T>
SP_HD ReductionAcc reduced_reduction_acc(const ReducedBatchView<T>& b, int i) {
  return {b.red_acc + i * b.red_stride_i, static_cast<std::size_t>(b.red_stride_e),
          b.red_tangent ? b.red_tangent + i * b.red_tangent_stride_i : nullptr};
}

/// The energy [J] of a robot at state y: kinetic K (robot_kinetic_energy) + gravity
/// potential + the elastic energy of its contacts (robot_contact_potential), K returned in
/// *kinetic; leaves y's kinematics in ws.kin. What /energy records and the energy reduction
/// samples.
template <class T, int Cap>
SP_HD T reduced_energy(const RobotView<T>& r, const T* y, RobotWorkspace<T, Cap>& ws, T* kinetic) {
  const T K = robot_kinetic_energy(r, y, ws.kin);  // leaves the kinematics in ws.kin
  *kinetic = K;
  return K + (robot_potential_energy(r, y, ws.kin) + robot_contact_potential(r, y, ws.kin));
}

/// One sample of the reductions over time (formulas/reductions.hpp) of a robot at state y
/// (robot_state_size) into acc, taken at instance step `step`: per contact pair its
/// contact_pair_summary (contacts: normal force [N], friction force [N], largest
/// penetration [m], count), and the energy [J] that reduced_energy_thread reads (kinetic +
/// gravity potential + contact potential). Counts the sample. T double or float, or a
/// Dual (the sensitivity engine's: the energy with its tangents, into acc.tangent where
/// set; a robot with sensitivities has no contact pairs). The collision geometry has no
/// lane form: for lanes nothing is added, and the backends sample such a batch one
/// instance at a time.
template <class T, int Cap>
SP_HD void reduced_reduce_sample(const RobotView<T>& r, const ReductionLayout& L, const T* y, const ReductionAcc& acc,
                                 double step, RobotWorkspace<T, Cap>& ws) {
  if constexpr (std::is_floating_point<T>::value || ad::IsDual<T>::value) {
    T K, energy = T(0);
    if (L.enabled(ReductionQuantity::Energy))
      energy = reduced_energy(r, y, ws, &K);  // leaves y's kinematics in ws.kin
    else
      robot_link_kinematics(r, y, ws.kin);
    if constexpr (std::is_floating_point<T>::value) {
      if (L.enabled(ReductionQuantity::Contacts))
        for (int p = 0; p < r.n_contacts; ++p) {
          T summary[kContactSummaryComponents];
          contact_pair_summary(robot_contact_pair(r, y, ws.kin, p), summary);
          reduction_add_contact(L, acc, p, summary, step);
        }
    }
    reduction_add_instance(L, acc, T(0), energy, T(0), step);
  }
}

/// Per-thread scratch of the step; fixed size, Cap >= n links.
template <class T, int Cap>
struct ReducedStepWorkspace {
  static constexpr int kState = 2 * Cap + 13;
  RobotWorkspace<T, Cap> robot;
  T y[kState];        ///< the state at the step's start
  T y_new[kState];    ///< the candidate after the step
  T y_stage[kState];  ///< an RK4 stage's state
  T k[kState];        ///< one evaluation's dy/dt
  T acc[kState];      ///< RK4: k1 + 2 k2 + 2 k3 + k4
  T u[Cap];           ///< the inputs as T
};

/// One step h [s] of `integrator` (Integrator as int) from y (robot_state_size) with inputs
/// u (n), into y_new (may not alias y), then robot_normalize_state:
///   rk4               y_new = y + h/6 (k1 + 2 k2 + 2 k3 + k4), stages at y + h/2 k1,
///                     y + h/2 k2, y + h k3 (stage states are not normalised)
///   euler             y_new = y + h f(y)
///   symplectic_euler  v_new = v + h dv/dt(y), then the positions from v_new:
///                     q_new = q + h qdot(q, v_new) (robot_position_rate)
/// Uses ws.k, ws.acc, ws.y_stage and ws.robot (not ws.y / ws.y_new / ws.u, so those may be
/// passed as y, y_new and u).
template <class T, int Cap>
SP_HD void reduced_fixed_step(const RobotView<T>& r, int integrator, T h, const T* y, const T* u, T* y_new,
                              ReducedStepWorkspace<T, Cap>& ws) {
  const int N = robot_state_size(r.n, r.floating);
  const int nq = robot_q_size(r.n, r.floating);
  const bool rk4 = integrator == static_cast<int>(Integrator::Rk4);
  const T c[3] = {T(0.5) * h, T(0.5) * h, h};
  const T w[4] = {T(1), T(2), T(2), T(1)};
  // One call site of robot_derivative for every integrator (rk4: 4 stages, else 1), so
  // code that inlines the whole step holds one copy of the dynamics.
  for (int s = 0; s < (rk4 ? 4 : 1); ++s) {
    const T* ys = y;
    if (s > 0) {
      for (int e = 0; e < N; ++e) ws.y_stage[e] = y[e] + c[s - 1] * ws.k[e];
      ys = ws.y_stage;
    }
    robot_derivative(r, ys, u, ws.k, ws.robot);
    if (!rk4) break;
    if (s == 0)
      for (int e = 0; e < N; ++e) ws.acc[e] = ws.k[e];
    else
      for (int e = 0; e < N; ++e) ws.acc[e] = ws.acc[e] + w[s] * ws.k[e];
  }
  if (rk4) {
    const T h6 = h / T(6);
    for (int e = 0; e < N; ++e) y_new[e] = y[e] + h6 * ws.acc[e];
  } else if (integrator == static_cast<int>(Integrator::SymplecticEuler)) {
    for (int e = nq; e < N; ++e) y_new[e] = y[e] + h * ws.k[e];
    robot_position_rate(r, y, y_new + nq, ws.k);
    for (int e = 0; e < nq; ++e) y_new[e] = y[e] + h * ws.k[e];
  } else {
    for (int e = 0; e < N; ++e) y_new[e] = y[e] + h * ws.k[e];
  }
  robot_normalize_state(r, y_new);
}

/// tid = instance i. Advances a live instance (status ok) by n_steps steps of b.dt, the
/// batch being at step step0 before the call: each step's candidate is committed when all
/// its entries are finite and, with a runaway bound, its kinetic energy is within it;
/// otherwise the instance is marked diverged (status 2) with status_step = its own step
/// count at the failing step (step0 + s - offset) and reason non_finite or runaway, keeps
/// its last good state and takes no further steps. Instances not ok and threads past
/// n_instances return at once. With reductions (b.red_acc; T scalar or Dual), each step's start
/// state of a live instance is sampled first (reduced_reduce_sample).
/// T = Lanes<double, W> (ReducedLanes): tid = group i of W instances, every value a lane
/// vector, the bookkeeping per lane (entries i * W + l); a lane that is not ok or has
/// diverged keeps its state (the group's commit is a select), and the group stops when
/// no lane is live. Each lane computes exactly what the lane-vector arithmetic gives for
/// that instance alone, whatever the other lanes hold.
template <class T, int Cap>
SP_HD void reduced_advance_thread(int tid, const ReducedBatchView<T>& b, std::int64_t step0, int n_steps,
                                  ReducedStepWorkspace<T, Cap>& ws) {
  using LT = ReducedLanes<T>;
  constexpr int W = LT::width;
  if (tid >= b.n_instances) return;
  const int i = tid;
  bool live[W];
  bool any_live = false;
  for (int l = 0; l < W; ++l) {
    live[l] = b.status[i * W + l] == static_cast<std::int8_t>(0);
    any_live = any_live || live[l];
  }
  if (!any_live) return;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  for (int k = 0; k < r.n; ++k) ws.u[k] = static_cast<T>(b.U(i, k));
  const T K_max = b.runaway_kinetic_energy[reduced_slot(b, i)];
  const auto bounded = K_max > T(0);
  for (int s = 0; s < n_steps; ++s) {
    if constexpr (W == 1) {
      if (b.red_acc)
        reduced_reduce_sample(r, b.red, ws.y, reduced_reduction_acc(b, i), static_cast<double>(step0 + s - b.offset[i]),
                              ws.robot);
    }
    reduced_fixed_step(r, b.integrator, b.dt, ws.y, ws.u, ws.y_new, ws);
    auto finite = lane_isfinite(ws.y_new[0]);
    for (int e = 1; e < N; ++e) finite = finite && lane_isfinite(ws.y_new[e]);
    auto runaway = finite && bounded;
    if (lane_any(runaway)) runaway = runaway && robot_kinetic_energy(r, ws.y_new, ws.robot.kin) > K_max;
    any_live = false;
    for (int l = 0; l < W; ++l) {
      if (!live[l]) continue;
      const bool ok = LT::get(finite, l), ran_away = LT::get(runaway, l);
      if (!ok || ran_away) {
        const int j = i * W + l;
        b.status[j] = static_cast<std::int8_t>(2);
        b.status_step[j] = step0 + s - b.offset[j];
        b.reason[j] = ran_away ? kReasonRunaway : kReasonNonFinite;
        live[l] = false;
      }
      any_live = any_live || live[l];
    }
    const typename LT::mask commit = LT::make(live);
    for (int e = 0; e < N; ++e) ws.y[e] = lane_select(commit, ws.y_new[e], ws.y[e]);
    if (!any_live) break;
  }
  for (int e = 0; e < N; ++e) b.Y(i, e) = ws.y[e];
}

/// tid = k < count: instance i = ids[k] (ids null: i = k) returns to its slot's y_init
/// (then robot_normalize_state), status ok, reason none, status_step 0, offset = step (the
/// batch's current step), and its reductions' accumulator (b.red_acc set) to no samples.
template <class T>
SP_HD void reduced_reset_thread(int tid, const ReducedBatchView<T>& b, const int* ids, int count, std::int64_t step) {
  if (tid >= count) return;
  const int i = ids ? ids[tid] : tid;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  const T* y0 = b.y_init + static_cast<std::int64_t>(reduced_slot(b, i)) * N;
  T y[2 * kMaxReducedLinks + 13];
  for (int e = 0; e < N; ++e) y[e] = y0[e];
  robot_normalize_state(r, y);
  for (int e = 0; e < N; ++e) b.Y(i, e) = y[e];
  b.status[i] = static_cast<std::int8_t>(0);
  b.reason[i] = kReasonNone;
  b.status_step[i] = 0;
  b.offset[i] = step;
  if (b.red_acc) reduction_clear(b.red, reduced_reduction_acc(b, i));
}

/// tid = instance i, the batch at step `step`: copies its reductions' accumulator (b.red_acc)
/// to out, in b.red_acc's layout, and adds to the copy, when the instance is ok, the
/// sample of its current state (reduced_reduce_sample at its own step, step - offset):
/// what a read's statistics are computed from (reduction_stats), the stored samples left
/// as they are. T double or float, or a Dual with b.red_tangent: the tangents are copied
/// to tangent_out (b.red_tangent's layout) and the sample's added there.
template <class T, int Cap>
SP_HD void reduced_reduce_read_thread(int tid, const ReducedBatchView<T>& b, std::int64_t step, double* out,
                                      ReducedStepWorkspace<T, Cap>& ws, double* tangent_out = nullptr) {
  if (tid >= b.n_instances || !b.red_acc) return;
  const int i = tid;
  const ReductionAcc acc = reduced_reduction_acc(b, i);
  ReductionAcc copy{out + i * b.red_stride_i, acc.stride};
  for (int e = 0; e < b.red.size(); ++e) copy(e) = acc(e);
  if constexpr (ad::IsDual<T>::value) {
    if (acc.tangent && tangent_out) {
      constexpr int W = T::size;
      copy.tangent = tangent_out + i * b.red_tangent_stride_i;
      for (int e = 0; e < b.red.tangent_size(); ++e)
        for (int k = 0; k < W; ++k) copy.d(e, k, W) = acc.d(e, k, W);
    }
  }
  if (b.status[i] != static_cast<std::int8_t>(0)) return;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  reduced_reduce_sample(r, b.red, ws.y, copy, static_cast<double>(step - b.offset[i]), ws.robot);
}

/// tid = instance i. Joint state of instance i: q, qd (the state's) and tau = the actuator
/// forces robot_actuator_forces (what /joint_state/tau records), each (n_instances, n),
/// strided; any may be null.
template <class T, int Cap>
SP_HD void reduced_joint_state_thread(int tid, const ReducedBatchView<T>& b, Strided<T> q, Strided<T> qd,
                                      Strided<T> tau, ReducedStepWorkspace<T, Cap>& ws) {
  if (tid >= b.n_instances) return;
  const int i = tid;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  const int q0 = r.floating ? 7 : 0, v0 = robot_q_size(r.n, r.floating) + (r.floating ? 6 : 0);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  for (int k = 0; k < r.n; ++k) ws.u[k] = static_cast<T>(b.U(i, k));
  if (tau.p) robot_actuator_forces(r, ws.y, ws.u, ws.k);
  for (int k = 0; k < r.n; ++k) {
    if (q.p) q(i, k) = ws.y[q0 + k];
    if (qd.p) qd(i, k) = ws.y[v0 + k];
    if (tau.p) tau(i, k) = ws.k[k];
  }
}

/// tid = instance i. The body records of instance i into out (n_instances,
/// robot_n_bodies * 13), strided: per body (the base first when floating, then link k) its
/// CoM position r (W) [m], orientation p (body frame -> W, w x y z; w >= 0 for links, the
/// state's quat_B for the base), CoM velocity v (W) [m/s] and angular velocity omega_B
/// (body frame) [rad/s] (robot_body_records; Backend::read_states' layout).
template <class T, int Cap>
SP_HD void reduced_body_states_thread(int tid, const ReducedBatchView<T>& b, Strided<T> out,
                                      ReducedStepWorkspace<T, Cap>& ws) {
  if (tid >= b.n_instances) return;
  const int i = tid;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  robot_link_kinematics(r, ws.y, ws.robot.kin);
  const int n_bodies = robot_n_bodies(r.n, r.floating);
  for (int body = 0; body < n_bodies; ++body) {
    T rec[13];
    robot_body_record(r, ws.y, ws.robot.kin, body, rec);
    for (int c = 0; c < 13; ++c) out(i, 13 * body + c) = rec[c];
  }
}

/// tid = instance i. total[i] = the energy [J] of instance i (reduced_energy), kinetic[i]
/// (kinetic may be null) = its kinetic energy.
template <class T, int Cap>
SP_HD void reduced_energy_thread(int tid, const ReducedBatchView<T>& b, T* total, T* kinetic,
                                 ReducedStepWorkspace<T, Cap>& ws) {
  if (tid >= b.n_instances) return;
  const int i = tid;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  T K;
  total[i] = reduced_energy(r, ws.y, ws.robot, &K);
  if (kinetic) kinetic[i] = K;
}

}  // namespace simphant::batch
