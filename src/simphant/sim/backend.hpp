#pragma once
// The backend interface behind Simulator: the CPU reference path (cpu_backend.hpp) and
// the batched CUDA path (host/cuda_backend.hpp) implement it.
#include <cstdint>
#include <string>
#include <vector>

#include "simphant/model/model.hpp"
#include "simphant/sim/backend_error.hpp"

namespace simphant {

/// Per-instance status codes, as written to /status.
enum class InstanceStatus : std::int8_t { Ok = 0, AssemblyFailed = 1, Diverged = 2 };

/// Result of assembling one instance (positions onto Phi = 0, velocities onto
/// Phi_q qdot = 0).
struct AssemblyResult {
  bool ok = false;
  int iterations = 0;
  double position_residual = 0;  ///< max |Phi| after assembly [m or 1]
  double velocity_residual = 0;  ///< max |Phi_q qdot| after projection
};

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
  /// Advances every live instance by n_steps fixed RK4 steps of model.solver.dt. A
  /// device backend may return once the steps are queued; every read waits for them.
  virtual void advance(int n_steps) = 0;
  /// Waits until the queued steps are done (host backends: nothing to wait for).
  /// Throws BackendError when the device reports a failure.
  virtual void synchronize() {}
  virtual double time() const = 0;
  virtual std::int64_t steps_taken() const = 0;
  /// (n_instances, n_bodies, 13): r, p (w x y z), v, omega_B per body.
  virtual void read_states(double* out) const = 0;
  /// (n_instances, n_joints, 6): force and torque that each joint applies to its body_j
  /// at the anchor, W [N, N m].
  virtual void read_reactions(double* out) const = 0;
  /// (n_instances): max |Phi| at the current state.
  virtual void read_constraint_violation(double* out) const = 0;
  /// (n_instances) each: total energy = kinetic + gravity potential + spring potential
  /// [J], and the kinetic energy alone when `kinetic` is not null.
  virtual void read_energy(double* total, double* kinetic = nullptr) const = 0;
  /// (n_instances) each.
  virtual void read_status(std::int8_t* status, double* status_time) const = 0;
  virtual const std::vector<AssemblyResult>& assembly() const = 0;
  /// Joint coordinates of a robot model (Model::robot set, docs/robots.md): their number
  /// n per instance, 0 when the backend reports none.
  virtual int n_joint_coordinates() const { return 0; }
  /// (n_instances, n) each: joint positions [rad | m], rates [rad/s | m/s] and the
  /// applied joint torques / forces [N m | N] (the actuator inputs). Order: the robot's
  /// links (ReducedModel::links). Nothing is written when n_joint_coordinates() is 0.
  virtual void read_joint_state(double* q, double* qd, double* tau) const {}
};

}  // namespace simphant
