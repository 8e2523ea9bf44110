#pragma once
// ReducedBackend: runs a URDF robot scene (Model::robot set, solver "aba" or "cga",
// docs/robots.md) in joint coordinates. State per instance y = [q (n), qd (n)]; fixed-step
// RK4 of dy/dt = [qd, qdd(q, qd, tau)] with qdd from the spatial-vector ABA
// (reduced/aba.hpp) or the CGA ABA (reduced/cga/cga_dynamics.hpp). Instances are spread
// over worker threads (OpenMP, static schedule), one fixed-size workspace per worker
// allocated in the constructor: the step loop allocates nothing, and results do not
// depend on the thread count.
//
// Reads, so the output compares with the DAE path of the same robot (body k = link k):
//  - read_states: per link its CoM pose and velocity from forward kinematics
//    (reduced/forward_kinematics.hpp): r = CoM in W [m], p = rotation link frame -> W
//    (w, x, y, z; w >= 0), v = CoM velocity in W [m/s], omega_B = angular velocity in
//    the link frame [rad/s]; the 13-per-body layout of Backend::read_states.
//  - read_reactions: NaN (joint coordinates have no constraint forces; not computed).
//  - read_constraint_violation: 0 (joints hold by construction).
//  - read_energy: kinetic (sum 1/2 m v.v + 1/2 w.I w) + gravity potential (-m g . c) [J].
//  - read_joint_state: q, qd and tau (the actuator inputs, set_inputs) per instance.
// Diverged: an instance whose state turns non-finite is frozen at its last finite state.
// Assembly: nothing to assemble, every instance ok with zero residuals.
// Per-instance state (Backend): y = [q (n), qd (n)]; reset returns to the model's q0, qd0.
#include <memory>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/aba.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"

namespace simphant {

class ReducedBackend final : public Backend {
 public:
  /// models: size 1 (shared) or n_instances, every one with robot set, the same number
  /// of joints and robot->solver Aba or Cga (of models.front()). threads <= 0: all.
  /// Throws std::invalid_argument otherwise.
  ReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads);
  ~ReducedBackend() override;

  const char* name() const override { return solver_ == RobotSolver::Cga ? "reduced-cga" : "reduced-aba"; }
  std::string details() const override;
  int n_instances() const override { return n_instances_; }
  void set_inputs(const double* u) override;
  void advance(int n_steps) override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  void read_states(double* out) const override;
  void read_reactions(double* out) const override;
  void read_constraint_violation(double* out) const override;
  void read_energy(double* total, double* kinetic) const override;
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const override;
  /// RK4 only (the constructor refuses another integrator): one accepted step of dt per step.
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                            double* max_step) const override;
  const std::vector<AssemblyResult>& assembly() const override { return assembly_; }
  int n_joint_coordinates() const override { return n_; }
  void read_joint_state(double* q, double* qd, double* tau) const override;

  int state_size() const override { return 2 * n_; }
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::int8_t* reasons) const override;
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::int8_t* reasons) override;
  void reset(const int* ids, int count) override;
  /// The first call makes the model storage (and the link rows) per instance; the
  /// listed instances' link parameters, gravity and inputs (robot tau) are rebuilt.
  void set_models(const int* ids, int count, const Model* models) override;
  void set_inputs(const int* ids, int count, const double* u) override;
  /// Y itself: (n_instances, 2n) doubles, row-major.
  ArrayView state_view() override;
  /// The joint torques / forces tau: (n_instances, n) doubles, row-major.
  ArrayView inputs_view() override;

  struct Worker;  ///< per-thread scratch (reduced_backend.cpp)
  /// [bytes] of one worker's scratch (fixed size, kMaxRobotJoints).
  static double worker_bytes();
  /// [bytes] of one model slot's link rows and gravity for `model` (a robot model).
  static double model_row_bytes(const Model& model);

 private:
  int model_of(int i) const { return models_->size() == 1 ? 0 : i; }
  /// qdd of instance i at (q, qd) with its inputs, into qdd.
  void joint_accelerations(int i, const double* q, const double* qd, double* qdd, Worker& w) const;
  /// Kinetic energy [J] of instance i at Y = [q, qd] (leaves the kinematics in w).
  double kinetic_energy(int i, const double* Y, Worker& w) const;
  /// Throws std::invalid_argument unless m is a robot model this batch can run.
  void check_model(const Model& m, const std::string& who) const;
  /// Link rows (links_, cga_links_) and gravity_ of model slot `slot` from m.
  void write_model_rows(std::size_t slot, const Model& m);
  std::shared_ptr<const std::vector<Model>> models_;
  RobotSolver solver_;
  int n_instances_;
  int threads_;
  int n_;  ///< joints per instance
  double dt_;
  std::int64_t steps_ = 0;
  std::vector<ReducedLinkParams<double>> links_;   ///< (n_models, n)
  std::vector<cga::CgaLink<double>> cga_links_;    ///< (n_models, n)
  std::vector<Vec3d> gravity_;                     ///< (n_models)
  std::vector<double> Y_;                          ///< (n_instances, 2n): q then qd
  std::vector<double> inputs_;                     ///< (n_instances, n): tau
  std::vector<std::int8_t> status_;
  std::vector<std::int64_t> status_step_;          ///< (n_instances) instance step at which the status was set
  std::vector<std::int8_t> reason_;                ///< (n_instances) status reason (kReason*, dynamics/runaway.hpp)
  std::vector<std::int64_t> offset_;               ///< (n_instances) batch step of the instance's step 0
  std::vector<AssemblyResult> assembly_;
  std::vector<Model>* owned_models_ = nullptr;     ///< models_ once set_models made it per instance
  mutable std::vector<std::unique_ptr<Worker>> workers_;
  InstanceIds ids_;
};

}  // namespace simphant
