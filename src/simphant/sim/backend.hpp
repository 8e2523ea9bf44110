#pragma once
// The backend interface behind Simulator: the CPU reference path (cpu_backend.hpp) and
// the batched CUDA path (host/cuda_backend.hpp) implement it.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/dynamics/assembly_result.hpp"
#include "simphant/formulas/reductions.hpp"
#include "simphant/formulas/refinement_record.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/model.hpp"
#include "simphant/sim/backend_error.hpp"

namespace simphant {

/// Per-instance status codes, as written to /status. Why an instance is not Ok is its
/// status reason (/status_reason; kReason* in formulas/runaway.hpp): AssemblyFailed has
/// assembly_failure; Diverged has non_finite, constraint_violation, runaway,
/// factorisation_failure or step_size_underflow (or none when set_state wrote the status
/// without a reason).
enum class InstanceStatus : std::int8_t { Ok = 0, AssemblyFailed = 1, Diverged = 2 };

/// Name of a status reason code (0 none, 1 non_finite, 2 constraint_violation, 3 runaway,
/// 4 factorisation_failure, 5 assembly_failure, 6 step_size_underflow), "unknown" for
/// another value.
const char* status_reason_name(std::int8_t reason);

/// Checks set_state's statuses and reasons before anything changes: throws
/// std::invalid_argument ("<call>: ...") for reasons without statuses, a reason out of
/// [0, kReasonCount) or one that does not fit its status (status_reason_fits in formulas/runaway.hpp;
/// a status without a reason: reason_after_set there).
void check_status_reasons(const char* call, int count, const std::int8_t* status, const std::int8_t* reasons);

/// A zero-copy view of a backend's own array (Backend::state_view / inputs_view):
/// element (i, j, k) of the view lives at data + i*strides[0] + j*strides[1] +
/// k*strides[2] elements (strides in elements, not bytes); the dims past ndim have size
/// 1 and stride 0. Valid until the backend is destroyed (its buffers are allocated once,
/// at creation, and never move). Host views can be read and written at any time between
/// calls. A device view is CUDA device memory (device 0) in the backend's stream order:
/// call synchronize() before reading it from the host or another stream, and after
/// writing it from another stream make sure those writes are done (e.g.
/// torch.cuda.synchronize()) and call synchronize() before the backend's next call
/// (which drops the backend's cached frame).
struct ArrayView {
  void* data = nullptr;     ///< nullptr: the backend has no such array in memory
  int dtype_bits = 64;      ///< 64: double, 32: float
  bool device = false;      ///< true: CUDA device memory (device 0)
  int ndim = 0;
  std::int64_t shape[3] = {0, 0, 0};
  std::int64_t strides[3] = {0, 0, 0};
};

/// A 2-D view (rows, cols) of an array of T: row-major (host arrays, one row per
/// instance) or, with instance_fastest, column-major (the device's structure of arrays,
/// element (i, e) at i + e * rows).
template <class T>
ArrayView matrix_view(T* data, std::int64_t rows, std::int64_t cols, bool device, bool instance_fastest) {
  ArrayView v;
  v.data = data;
  v.dtype_bits = 8 * static_cast<int>(sizeof(T));
  v.device = device;
  v.ndim = 2;
  v.shape[0] = rows;
  v.shape[1] = cols;
  v.shape[2] = 1;
  v.strides[0] = instance_fastest ? 1 : cols;
  v.strides[1] = instance_fastest ? rows : 1;
  return v;
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  /// One line for the summary: the name and what the backend runs on.
  virtual std::string details() const { return name(); }
  virtual int n_instances() const = 0;
  /// Sets every instance's actuator inputs; u has shape (n_instances, n_inputs),
  /// row-major, units of each actuator ([N m] or [N]).
  virtual void set_inputs(const double* u) = 0;
  /// As set_inputs, with u in device memory (same shape, double). The array is read
  /// by the device in stream order: keep it unchanged until the next advance() has
  /// returned and synchronize() has been called. Throws BackendError on a host backend.
  virtual void set_inputs_device(const double* d_u) {
    throw BackendError(std::string("set_inputs_device: backend '") + name() + "' has no device memory");
  }
  /// Advances every live instance by n_steps grid steps of model.solver.dt with the
  /// model's integrator (integrator(); docs/solver.md, "Integrators"): a fixed-step one
  /// takes one step of dt per grid step; an adaptive one integrates each instance to the
  /// grid times with its own internal steps and gives the state at each grid time by
  /// interpolation. A device backend may return once the steps are queued; every read
  /// waits for them.
  virtual void advance(int n_steps) = 0;
  /// The integrator that advance() runs (model.solver.integrator).
  virtual Integrator integrator() const { return Integrator::Rk4; }
  /// (n_instances) each, since the instance's last reset: accepted and rejected internal
  /// steps, and the smallest and largest accepted step [s] (an instance without an accepted
  /// step yet: min = max = 0 for an adaptive integrator). Fixed-step integrators: accepted =
  /// the instance's steps, rejected 0, min = max = dt. Any pointer may be null (that part
  /// is not written). Waits for queued steps on a device backend.
  virtual void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                                    double* max_step) const = 0;
  /// Numbers per instance that an adaptive integrator keeps between grid times (the next
  /// step size, its controller's memory, ...): 0 for the fixed-step integrators.
  virtual int integrator_state_size() const { return 0; }
  /// (n_instances, integrator_state_size()): that state, for checkpoints (like
  /// get_reduction_state): set_integrator_state of what this gives, after set_state of the
  /// same instances' state, continues bit-identically. set_state without it restarts the
  /// adaptive integration at the instance's time with the first-step estimate (docs/state.md).
  virtual void get_integrator_state(double* out) const { (void)out; }
  virtual void set_integrator_state(const double* in) { (void)in; }
  /// Waits until the queued steps are done (host backends: nothing to wait for).
  /// Throws BackendError when the device reports a failure.
  virtual void synchronize() {}
  virtual double time() const = 0;
  virtual std::int64_t steps_taken() const = 0;
  /// Evaluations (RK4 stages and frame reads) whose Schur factorisation met a rejected
  /// pivot and was recovered with a larger shift, summed over the instances since the
  /// backend was made (docs/solver.md, "The refined regularised solve"); 0 for backends
  /// without a Schur solve.
  virtual std::int64_t factorisation_recoveries() const { return 0; }
  /// (n_instances) the refined Schur solves of every instance since the backend was made
  /// (formulas/refinement_record.hpp; docs/solver.md, "The refined regularised solve" and
  /// "Rank watch"): how many ended with an error estimate above refinement_tolerance
  /// (solver.refinement_steps corrections did not reach it), the largest relative error
  /// estimate (NaN: a solve was not finite) with the instance time [s] of that solve, and
  /// the smallest relative pivot of their factorisations with its time. An empty record on
  /// a backend without a Schur solve. Waits for queued steps on a device backend.
  virtual void read_refinement(RefinementRecord* out) const {
    for (int i = 0; i < n_instances(); ++i) out[i] = RefinementRecord{};
  }
  /// (n_instances, n_bodies, 13): r, p (w x y z), v, omega_B per body.
  virtual void read_states(double* out) const = 0;
  /// (n_instances, n_joints, 6): force and torque that each joint applies to its body_j
  /// at the anchor, W [N, N m].
  virtual void read_reactions(double* out) const = 0;
  /// Rheonomic drivers of the model (Model::drivers; docs/solver.md, "Rheonomic drivers").
  virtual int n_drivers() const { return 0; }
  /// (n_instances, n_drivers): the driving torque [N m] (angle driver) or force [N] (slide
  /// driver) that each driver applies to its joint's body_j at the current state, positive
  /// along the joint axis v_i; body_i takes the opposite. It is minus the driver row's
  /// multiplier (driver_loads in dynamics/evaluate.hpp); NaN where the instance's
  /// factorisation failed. Nothing is written when n_drivers() is 0.
  virtual void read_driver_loads(double* out) const { (void)out; }
  /// (n_instances): max |Phi| at the current state.
  virtual void read_constraint_violation(double* out) const = 0;
  /// (n_instances) each: total energy = kinetic + gravity potential + spring potential
  /// [J], and the kinetic energy alone when `kinetic` is not null.
  virtual void read_energy(double* total, double* kinetic = nullptr) const = 0;
  /// (n_instances) each: status (InstanceStatus), the instance time at which it was set
  /// [s], and, when `reason` is not null, the status reason (kReason*).
  virtual void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const = 0;
  virtual const std::vector<AssemblyResult>& assembly() const = 0;
  /// Joint coordinates of a robot model (Model::robot set, docs/robots.md): their number
  /// n per instance, 0 when the backend reports none.
  virtual int n_joint_coordinates() const { return 0; }
  /// (n_instances, n) each: joint positions [rad | m], rates [rad/s | m/s] and the
  /// applied joint torques / forces [N m | N] (the actuator inputs). Order: the robot's
  /// links (ReducedModel::links). Nothing is written when n_joint_coordinates() is 0.
  virtual void read_joint_state(double* q, double* qd, double* tau) const {}
  /// Link frames a joint-space robot backend computes itself (the GPU one, on the
  /// device): n moving links (ReducedModel::links order), then the floating base; 0 when
  /// the backend has none (Simulator::read_link_frames then derives them from
  /// read_states, sim/link_frames.hpp).
  virtual int n_link_frames() const { return 0; }
  /// (n_instances, count, 13) for frames[k] in [0, n_link_frames()): the frame's origin
  /// in W [m], its orientation (w, x, y, z; frame -> W), the velocity of its origin in W
  /// [m/s] and its angular velocity in its own axes [rad/s] (the convention of
  /// read_states, at the link frame instead of the CoM). Throws BackendError on a
  /// backend without link frames.
  virtual void read_link_frames(const int* frames, int count, double* out) const {
    (void)frames, (void)count, (void)out;
    throw BackendError(std::string("read_link_frames: backend '") + name() + "' computes no link frames");
  }
  /// As read_link_frames, without a copy to the host: (n_instances, count, 13) in the
  /// backend's precision on the device (see ArrayView), valid until the next call of
  /// link_frames_view; an empty view (data null) on a backend without device link
  /// frames. frames: host array, count <= n_link_frames().
  virtual ArrayView link_frames_view(const int* frames, int count) {
    (void)frames, (void)count;
    return {};
  }

  // --- Per-instance reductions over time (formulas/reductions.hpp; docs/solver.md,
  // "Reductions over time"): accumulated inside advance() from every step's start state
  // of every live instance (the first RK4 stage's evaluation), plus the current state
  // when read.

  /// Enables the listed quantities (each once) and clears every instance's accumulator;
  /// an empty list turns the reductions off. Call before advance(). reset() and
  /// set_models() clear the listed instances' accumulators. Throws BackendError on a
  /// backend without reductions for a non-empty list, or without the listed ones (the
  /// joint-space robots have energy and contacts only).
  virtual void set_reductions(const std::vector<ReductionQuantity>& quantities) {
    if (!quantities.empty())
      throw BackendError(std::string("set_reductions: backend '") + name() +
                         "' has no reductions over time");
  }
  /// The channels accumulated (set_reductions); no channel by default.
  virtual ReductionLayout reduction_layout() const { return {}; }
  /// (n_instances, channels, kReductionStats): max, min, mean, rms, time_of_max [s] of
  /// each channel (reduction_stats), over the step-start samples so far plus, for an
  /// instance whose status is Ok, a sample of its current state (not stored: reading
  /// twice gives the same numbers, and advancing on goes on from the stored samples).
  virtual void read_reductions(double* out) const {}
  /// The accumulators themselves, (n_instances, reduction_layout().size()), the step of
  /// each max in instance steps (for checkpoints: set_reduction_state of what this gives,
  /// after set_state of the same instances' state, continues bit-identically).
  virtual void get_reduction_state(double* acc) const {}
  virtual void set_reduction_state(const double* acc) {}

  // --- Per-instance state: RL episodes, warm starts, checkpoints (docs/state.md).
  // `ids`: count instance indices in [0, n_instances), no repeats; ids == nullptr means
  // every instance in order (count must then be n_instances). Buffers are the caller's,
  // row k for ids[k]. Throws std::invalid_argument for an id out of range, a repeated id
  // or a count that does not match; nothing is changed then. Time: time() and
  // steps_taken() stay the batch clock; an instance's own clock counts the steps since
  // its last reset (instance time = steps * dt), and read_status' status_time is on it.

  /// Numbers per instance in the state vector y, which is the integrator's own state:
  /// DAE backends 13 N, y = [q (7 N): per body r (3, W) then p (w x y z); qdot (6 N):
  /// per body v (3, W) then omega (3, B)] (docs/solver.md, formulas/state.hpp; read_states
  /// gives the same numbers per body instead); joint-space backends 2 n, y = [q (n),
  /// qd (n)] in the order of read_joint_state, with a floating base 2 n + 13,
  /// y = [p_B (3), quat_B (4), q (n), v_B (3), omega_B (3), qd (n)] (reduced/robot_view.hpp).
  virtual int state_size() const = 0;
  /// Copies the listed instances' state: y (count, state_size()), steps (count): steps
  /// taken since the instance's last reset, status (count, InstanceStatus),
  /// status_steps (count): the instance step at which the status was set (0 after a
  /// reset), reasons (count): the status reason (kReason*). Any output pointer may be
  /// null (then that part is not written). Waits for queued steps on a device backend.
  virtual void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                         std::int64_t* status_steps, std::int8_t* reasons) const = 0;
  /// Writes the listed instances' state (the layout of get_state). A state read by
  /// get_state and written back continues bit-identically to a run that never stopped
  /// (fp32 device backends store y in float: a value read from them round-trips
  /// exactly; other values are rounded to float). y is taken as given (no projection
  /// onto the constraints); a status other than Ok freezes the instance, Ok lets it
  /// step again. Null inputs leave that part unchanged. reasons need status and must fit
  /// it (check_status_reasons); status without reasons: reason_after_set. The actuator
  /// inputs are not part of the state (set_inputs).
  virtual void set_state(const int* ids, int count, const double* y, const std::int64_t* steps,
                         const std::int8_t* status, const std::int64_t* status_steps, const std::int8_t* reasons) = 0;
  /// The listed instances return to their assembled initial state (kept from creation
  /// or from the last set_models), instance step 0 and the status of their assembly
  /// (Ok, or AssemblyFailed) with its reason. Inputs are left as they are.
  virtual void reset(const int* ids, int count) = 0;
  /// Replaces the listed instances' models (same topology and dt as the batch: see
  /// model/topology.hpp; domain randomisation) and assembles them: their initial state,
  /// assembly result (assembly()) and actuator inputs (each actuator's model value, as
  /// at creation) change, and they are reset as by reset(). models: count models,
  /// models[k] for ids[k]. Throws std::invalid_argument (naming models[k]) for a model
  /// of another topology or dt, before anything changes.
  virtual void set_models(const int* ids, int count, const Model* models) = 0;
  /// Sets the listed instances' actuator inputs: u (count, n_inputs), row k for ids[k].
  virtual void set_inputs(const int* ids, int count, const double* u) = 0;
  /// The state array itself, without a copy, ndim 2: (n_instances, state_size()) in
  /// the layout of get_state's y; host backends row-major doubles, device backends
  /// structure of arrays (strides (1, n_instances)) in their precision. Writing
  /// through it is as set_state of y (see ArrayView for device memory).
  virtual ArrayView state_view() { return {}; }
  /// The actuator inputs, without a copy, ndim 2: (n_instances, n_inputs) in the
  /// backend's precision (dtype_bits), writable; writing through it is as set_inputs.
  /// Host backends row-major doubles, device backends structure of arrays (strides
  /// (1, n_instances)). An empty view (data null) when the backend keeps no such array.
  virtual ArrayView inputs_view() { return {}; }
};

}  // namespace simphant
