#pragma once
// ReducedBackend: runs a URDF robot scene (Model::robot set, solver "aba" or "cga",
// docs/robots.md) in joint coordinates on the CPU. State per instance y = [q (n), qd (n)],
// or with a floating base [p_B (3), quat_B (4), q (n), v_B (3), omega_B (3), qd (n)]
// (reduced/robot_view.hpp); fixed steps of dt with rk4, euler or symplectic_euler
// (model.solver.integrator) of dy/dt = robot_derivative (reduced/robot_dynamics.hpp: the
// joint forces of RobotJointSpace::joints, mimic joints, the spatial-vector or CGA ABA).
// The step is the per-thread function the GPU runs (kernels/reduced_step.hpp), on worker
// threads (ThreadPool: sleeping workers, dynamic chunks) with one fixed-size workspace per
// worker allocated in the constructor: the step loop allocates nothing, and results do
// not depend on the thread count. Two forms of the same function:
//  - lanes (backend `cpu-simd`, and `auto` without a GPU): T = Lanes<double, 8>, groups of
//    8 instances in the lanes of one SIMD vector (simd/reduced_lanes.hpp), the code
//    compiled for SSE2, AVX2 + FMA and AVX-512 and picked at run time; each group runs all
//    the steps of an advance by itself. Equal to the scalar form to round-off (the lane
//    code contracts a * b + c into FMAs, its sin / cos are polynomials: reduced_lane_math.hpp),
//    bitwise the same for any thread count and wherever an instance sits in its group.
//  - scalar (backend `cpu`): T = double, one instance at a time; the reference that the
//    lane form is tested against.
//
// Reads, so the output compares with the DAE path of the same robot (body k = link k, or
// with a floating base body 0 = the base and body k + 1 = link k):
//  - read_states: per body its CoM pose and velocity (robot_body_record,
//    reduced/robot_kinematics.hpp): r = CoM in W [m], p = rotation body frame -> W
//    (w, x, y, z; w >= 0 for links), v = CoM velocity in W [m/s], omega_B = angular velocity
//    in the body frame [rad/s]; the 13-per-body layout of Backend::read_states.
//  - read_reactions: NaN (joint coordinates have no constraint forces; not computed).
//  - read_constraint_violation: 0 (joints hold by construction).
//  - read_energy: kinetic (sum 1/2 m v.v + 1/2 w.I w, plus 1/2 a qd^2 of each joint's
//    armature a) + gravity potential (-m g . c) [J].
//  - read_joint_state: q, qd and tau = the actuator forces after the servo law, effort
//    clamp and velocity cut (robot_actuator_forces), not the passive forces.
//  - read_reductions: energy and contacts (set_reductions).
// Diverged: an instance whose state turns non-finite, or passes a given runaway bound
// (solver.runaway_kinetic_energy), is frozen at its last good state.
// Assembly: nothing to assemble, every instance ok with zero residuals.
// Per-instance state (Backend): y as above; reset returns to the model's q0, qd0 (and
// base_q0, base_v0), mimic followers set from their leaders.
#include <memory>
#include <vector>

#include "simphant/model/robot.hpp"
#include "simphant/reduced/robot_view.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/instance_ids.hpp"

namespace simphant {

namespace batch {
template <class T>
struct ReducedBatchView;  // kernels/reduced_step.hpp
}  // namespace batch
class ThreadPool;  // core/thread_pool.hpp

class ReducedBackend final : public Backend {
 public:
  /// models: size 1 (shared) or n_instances, every one with robot set, the same number
  /// of joints and robot->solver Aba or Cga (of models.front()). threads <= 0: all.
  /// lanes: true steps in SIMD lanes (the `cpu-simd` form), false one instance at a time
  /// (the `cpu` form, the scalar reference); see the file comment. A robot with contact
  /// pairs (reduced/robot_contact.hpp) steps one instance at a time: lanes is refused.
  /// Throws std::invalid_argument otherwise.
  ReducedBackend(std::shared_ptr<const std::vector<Model>> models, int n_instances, int threads, bool lanes = false);
  ~ReducedBackend() override;

  /// "reduced-aba" / "reduced-cga" (scalar), "reduced-aba-lanes" / "reduced-cga-lanes"
  /// (SIMD lanes): the two forms differ in rounding (about 1e-9), so the output, the
  /// checkpoint and `simphant merge` tell them apart.
  const char* name() const override {
    if (solver_ == RobotSolver::Cga) return lanes_ ? "reduced-cga-lanes" : "reduced-cga";
    return lanes_ ? "reduced-aba-lanes" : "reduced-aba";
  }
  /// Whether the CPU joint-space backend steps in SIMD lanes for the requested backend
  /// (cpu: no; cpu-simd: yes; auto: when the batch, auto_instances instances, fills at
  /// least one group of lanes, as for the DAE path; contact pairs included, their geometry
  /// evaluated one lane at a time: simd/reduced_lane_contact.hpp).
  static bool lanes_for(const std::string& backend, long long auto_instances);
  std::string details() const override;
  int n_instances() const override { return n_instances_; }
  /// True when stepping in SIMD lanes (the constructor's `lanes`).
  bool lanes() const { return lanes_; }
  void set_inputs(const double* u) override;
  void advance(int n_steps) override;
  double time() const override { return static_cast<double>(steps_) * dt_; }
  std::int64_t steps_taken() const override { return steps_; }
  void read_states(double* out) const override;
  void read_reactions(double* out) const override;
  void read_constraint_violation(double* out) const override;
  void read_energy(double* total, double* kinetic) const override;
  void read_status(std::int8_t* status, double* status_time, std::int8_t* reason) const override;
  Integrator integrator() const override { return integrator_; }
  /// Fixed step (the constructor refuses the adaptive integrators): one accepted step of dt per step.
  void read_step_statistics(std::int64_t* accepted, std::int64_t* rejected, double* min_step,
                            double* max_step) const override;
  const std::vector<AssemblyResult>& assembly() const override { return assembly_; }
  int n_joint_coordinates() const override { return n_; }
  /// Reductions over time of a joint-space robot: energy and contacts only (sampled by
  /// reduced_reduce_sample, kernels/reduced_step.hpp, at each step's start state of a live
  /// instance and, when read, at its current state); BackendError for another quantity.
  void set_reductions(const std::vector<ReductionQuantity>& quantities) override;
  ReductionLayout reduction_layout() const override { return red_layout_; }
  void read_reductions(double* out) const override;
  void get_reduction_state(double* acc) const override;
  void set_reduction_state(const double* acc) override;
  void read_joint_state(double* q, double* qd, double* tau) const override;

  int state_size() const override { return state_size_; }
  void get_state(const int* ids, int count, double* y, std::int64_t* steps, std::int8_t* status,
                 std::int64_t* status_steps, std::int8_t* reasons) const override;
  void set_state(const int* ids, int count, const double* y, const std::int64_t* steps, const std::int8_t* status,
                 const std::int64_t* status_steps, const std::int8_t* reasons) override;
  void reset(const int* ids, int count) override;
  /// The first call makes the model storage (and the link rows) per instance; the
  /// listed instances' link parameters, gravity and inputs (robot tau) are rebuilt.
  void set_models(const int* ids, int count, const Model* models) override;
  void set_inputs(const int* ids, int count, const double* u) override;
  /// Y itself: (n_instances, state_size()) doubles, row-major.
  ArrayView state_view() override;
  /// The joint inputs u (torques / forces, or servo targets): (n_instances, n) doubles, row-major.
  ArrayView inputs_view() override;

  struct Worker;  ///< per-thread scratch (reduced_backend.cpp)
  /// [bytes] of one worker's scratch (fixed size, kMaxRobotJoints).
  static double worker_bytes();
  /// [bytes] of one model slot's rows (links, joints, base, gravity, bound, initial
  /// state) for `model` (a robot model).
  static double model_row_bytes(const Model& model);
  /// [bytes] per instance of state and inputs for `model` (a robot model).
  static double instance_bytes(const Model& model);

 private:
  int model_of(int i) const { return models_->size() == 1 ? 0 : i; }
  /// The batch as the per-thread functions read it (kernels/reduced_step.hpp).
  batch::ReducedBatchView<double> view() const;
  /// Throws std::invalid_argument unless m is a robot model this batch can run.
  void check_model(const Model& m, const std::string& who) const;
  /// The rows of model slot `slot` from m.
  void write_model_rows(std::size_t slot, const Model& m);
  std::shared_ptr<const std::vector<Model>> models_;
  bool lanes_;  ///< step in SIMD lanes (cpu-simd) or one instance at a time (cpu)
  RobotSolver solver_;
  Integrator integrator_;
  int n_instances_;
  int threads_;
  int n_;  ///< joints per instance
  int floating_;
  int state_size_;
  double dt_;
  std::int64_t steps_ = 0;
  // Model slots (n_slots = models_->size()): rows of the per-thread functions.
  std::vector<ReducedLinkParams<double>> links_;   ///< (n_slots, n)
  std::vector<cga::CgaLink<double>> cga_links_;    ///< (n_slots, n)
  std::vector<RobotJointParams<double>> joints_;   ///< (n_slots, n)
  std::vector<RobotBaseParams<double>> base_;      ///< (n_slots)
  std::vector<Vec3d> gravity_;                     ///< (n_slots)
  std::vector<double> runaway_;                    ///< (n_slots) solver.runaway_kinetic_energy
  std::vector<double> y_init_;                     ///< (n_slots, state_size)
  int n_contacts_ = 0;                             ///< contact pairs per slot
  std::vector<RobotContactPair<double>> contacts_;  ///< (n_slots, n_contacts)
  ReductionLayout red_layout_;                     ///< the reductions over time (set_reductions)
  // Instances.
  std::vector<double> red_acc_;                    ///< (n_instances, red_layout_.size()) accumulators
  std::vector<double> Y_;                          ///< (n_instances, state_size)
  std::vector<double> inputs_;                     ///< (n_instances, n): u
  std::vector<std::int8_t> status_;
  std::vector<std::int64_t> status_step_;          ///< (n_instances) instance step at which the status was set
  std::vector<std::int8_t> reason_;                ///< (n_instances) status reason (kReason*, formulas/runaway.hpp)
  std::vector<std::int64_t> offset_;               ///< (n_instances) batch step of the instance's step 0
  std::vector<AssemblyResult> assembly_;
  std::vector<Model>* owned_models_ = nullptr;     ///< models_ once set_models made it per instance
  mutable std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<ThreadPool> pool_;               ///< threads_ workers (the caller included)
  InstanceIds ids_;
};

}  // namespace simphant
