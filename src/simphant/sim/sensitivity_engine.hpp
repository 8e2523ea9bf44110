#pragma once
// SensitivityEngine: forward sensitivities of a batch's state and outputs with respect to
// scene parameters (docs/sensitivities.md), by a backend's own per-thread step
// instantiated with T = Dual<double, W> (math/dual.hpp) and run on the CPU, one
// instance at a time on a ThreadPool. There is no second copy of the dynamics: the
// tangents are the exact derivatives of the discrete step (the converged solve
// differentiated, every branch taken on values). Two engines, made by
// make_sensitivity_engine for the model:
//  - the maximal-coordinate DAE (sim/dae_sensitivity_engine.hpp): the cuda-fused path's
//    step (kernels/fused_stage.hpp);
//  - a robot in joint coordinates, solver aba or cga (sim/robot_sensitivity_engine.hpp):
//    the joint-space step (kernels/reduced_step.hpp).
//
// The engine runs beside a Simulator's backend (sim/simulator.hpp) on its own Dual
// state, started from the backend's state after assembly or a reset: its values follow
// the scalar form of the per-thread step, bit for bit the values of the matching CPU
// backend's scalar form and those of every other backend up to their own rounding. Its
// tangents do not depend on how the steps are split into advances nor on the thread
// count.
//
// The parameters run in passes of W tangents each ("chunks"), each with its own Dual
// arrays: W = 1, 4, 8 or 16, the smallest that holds all S (pass_width), and for more than
// kMaxWidth = 16 parameters ceil(S / 16) passes of 16.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "simphant/formulas/reductions.hpp"
#include "simphant/formulas/refinement_record.hpp"
#include "simphant/math/dual.hpp"
#include "simphant/model/model.hpp"
#include "simphant/sim/backend.hpp"
#include "simphant/sim/frame_sensitivities.hpp"
#include "simphant/sim/quaternion_sign.hpp"

namespace simphant {

/// The tangents a sensitivity run starts from, per parameter path (sim/sensitivity_seeds.hpp).
struct SensitivitySeeds {
  std::vector<std::string> paths;  ///< (S) the parameters, in sweep path syntax
  /// (S, n_instances, n_params): d(the engine's packed parameters of instance i's model:
  /// batch::flatten_params for the DAE, batch::robot_flat_params (batch/robot_pack.hpp) for a
  /// joint-space robot) / d(parameter s)
  std::vector<double> dparam;
  /// (S, n_instances, state size): d(initial state y0 after assembly or reset, the
  /// backend's layout) / d(parameter s)
  std::vector<double> dy0;
  /// (S, n_instances, Q, 4): for each of the state's Q unit quaternions
  /// (state_quaternion_offsets, sim/sensitivity_seeds.hpp) the branch dy0 is taken on:
  /// the quaternion of the state at the value + h (quaternion_sign)
  std::vector<double> quaternion_ref;
  /// (S, n_instances, n_inputs): d(default inputs: the actuators' ForceElement::value,
  /// a robot's tau) / d(parameter s)
  std::vector<double> dinput;
};

/// The interface of both engines (the file comment); make_sensitivity_engine makes one.
class SensitivityEngine {
 public:
  /// The most tangents of one Dual pass (pass_width).
  static constexpr int kMaxWidth = 16;
  /// The pass width of an engine for S >= 1 parameters: the smallest of 1, 4, 8 and 16
  /// that holds them, else kMaxWidth. A pass's cost grows with its width, used or not, and
  /// each pass also computes the values again (docs/sensitivities.md, "Cost").
  static constexpr int pass_width(int S) { return S <= 1 ? 1 : S <= 4 ? 4 : S <= 8 ? 8 : kMaxWidth; }
  /// f(std::integral_constant<int, pass_width(S)>{}): the engine type or size of that
  /// width (each width a separate instantiation of the engines).
  template <class F>
  static decltype(auto) with_pass_width(int S, F&& f) {
    switch (pass_width(S)) {
      case 1:
        return f(std::integral_constant<int, 1>{});
      case 4:
        return f(std::integral_constant<int, 4>{});
      case 8:
        return f(std::integral_constant<int, 8>{});
      default:
        return f(std::integral_constant<int, kMaxWidth>{});
    }
  }

  virtual ~SensitivityEngine() = default;

  int n_sensitivities() const { return static_cast<int>(seeds_.paths.size()); }
  const std::vector<std::string>& paths() const { return seeds_.paths; }

  /// Inputs of the listed instances (ids null: all, in order), u (count, n_inputs), as
  /// Simulator::set_inputs gives them to the backend: constants (zero tangents), where
  /// the default inputs (the actuators' values, a robot's tau) carry the seeds' tangents
  /// (dinput).
  virtual void set_inputs(const int* ids, int count, const double* u) = 0;

  /// The reductions over time to differentiate (the backend's layout, Backend::
  /// reduction_layout; no channel: none). Clears every instance's accumulators, as the
  /// backend's set_reductions does.
  virtual void set_reductions(const ReductionLayout& L) = 0;

  /// Starts the listed instances (ids null: all, in order) from y (count, state size) and
  /// status (count) as Backend::get_state gives them after assembly or a reset, their
  /// tangents at their seeds, their own clock at 0 at batch step batch_step, their
  /// reductions' accumulators cleared.
  virtual void start(const int* ids, int count, const double* y, const std::int8_t* status,
                     std::int64_t batch_step) = 0;

  /// Steps every instance whose status is Ok by n_steps from batch step batch_step (the
  /// backend's steps_taken() before its advance). An instance whose Dual step fails (or
  /// that is not Ok) has no valid tangents until it starts again.
  virtual void advance(std::int64_t batch_step, int n_steps) = 0;

  /// out (n, N, 13, S): d(state in the recorded layout of Backend::read_states: r, p, v,
  /// omega_B per body) / d(parameter s), in the state's units per the parameter's unit;
  /// NaN for an instance without valid tangents (every pass's status Ok, and status[i] Ok
  /// where status, (n) the backend's statuses, is given).
  virtual void read(double* out, const std::int8_t* status = nullptr) const = 0;

  /// A view (n, state size, S) of the engine's own state tangents, d(y)/d(parameter s) in
  /// the backend's state layout (Backend::state_view: y = [q, qdot]), host memory, valid
  /// until the engine is destroyed and followed by every advance and start. The raw
  /// tangents: an instance without valid tangents (read() gives NaN) keeps whatever its
  /// last dual step left. Throws std::invalid_argument when the parameters run in more
  /// than one pass (S > kMaxWidth): each pass holds its own tangents.
  virtual ArrayView state_tangent_view() = 0;

  /// The derivatives d(quantity)/d(parameter s) of a recorded frame at the current state,
  /// at batch step batch_step, for each pointer of `out` that is set
  /// (FrameSensitivities: the reactions as Backend::read_reactions gives them, the joint
  /// and bearing loads of sim/joint_load_frames.hpp, the driver loads, the energy and its
  /// kinetic part, a robot's joint q, qd, tau as Backend::read_joint_state gives them);
  /// NaN as read(), and where the quantity itself is NaN (a robot's reactions).
  virtual void read_frame(const FrameSensitivities& out, const std::int8_t* status, std::int64_t batch_step) = 0;

  /// out (n, C, kReductionTangentStats, S) for the C channels of set_reductions' layout:
  /// d(max, min, mean, rms)/d(parameter s) of each channel (reduction_stats_tangent) over
  /// the engine's step-start samples plus a sample of its current state, as
  /// Backend::read_reductions reads the values (batch step batch_step). The derivative
  /// of a max is that of the sample at the engine's own step of the max. NaN as read().
  virtual void read_reductions(double* out, const std::int8_t* status, std::int64_t batch_step) = 0;

  /// out (n): per instance, the refined Schur solves of its tangents in the steps since
  /// the engine was made; reads record nothing (RefinementRecord: unconverged, worst,
  /// worst_time; the pivot fields left at no pivot). Each parameter's tangent of each
  /// solve counts as a solve of its own, with the larger of its own error estimate and
  /// that of the values it is taken at (the tangent-linear solve, kernels/fused_solve.hpp:
  /// fused_tangent_factor_solve). A tangent whose record ended above the tolerance
  /// carries an error of about `worst` (an estimate) relative to its lambda's (docs/sensitivities.md,
  /// "Method"). Here: every record empty, for an engine without a Schur solve (a robot in
  /// joint coordinates); the DAE engine overrides it. Nothing is checked with
  /// solver.refinement_steps 0 (the whole solve in dual numbers, no corrections).
  virtual void read_refinement(RefinementRecord* out) const {
    for (std::size_t i = 0; i < crossed_.size(); ++i) out[i] = RefinementRecord{};
  }

  /// (n) 1 where instance i's trajectory has crossed a discontinuity of a robot joint law
  /// since it started (joint_law_jumps between the joint_law_branch of two step ends,
  /// reduced/joint_forces.hpp: the velocity cut switching at the velocity limit, a damped
  /// position limit entered; docs/sensitivities.md): the force jumps there at a time that
  /// moves with the parameters, which the tangents of the discrete step do not see, so
  /// every read gives NaN for the instance until it starts again, and the engine stops
  /// stepping it. A change made by set_inputs is not a crossing.
  const std::vector<std::uint8_t>& crossed() const { return crossed_; }

 protected:
  explicit SensitivityEngine(SensitivitySeeds seeds) : seeds_(std::move(seeds)) {}
  /// When an instance's joint law branches are taken (note_branches).
  enum class BranchCheck { Start, Inputs, Step };
  /// Instance i's joint law branches now, `branch` (n_laws_: joint_law_branch of each
  /// watched law at its state and inputs): stored; at a Start the mark is cleared, after a
  /// Step a jump from the stored ones (joint_law_jumps) marks the instance crossed (an
  /// Inputs change does not).
  void note_branches(std::size_t i, const std::uint8_t* branch, BranchCheck when);
  SensitivitySeeds seeds_;
  std::vector<std::uint8_t> crossed_;  ///< (n) crossed()
  std::vector<std::uint8_t> branch_;   ///< (n, n_laws) each instance's joint law branches at its last check
  int n_laws_ = 0;                     ///< joint laws with a discontinuity per instance (0: none to watch)
  /// state_quaternion_offsets (sim/sensitivity_seeds.hpp) of the models: a start turns each
  /// quaternion's seeds to its value's branch (quaternion_sign, seeds_.quaternion_ref).
  std::vector<int> quaternions_;
  /// Turns the tangents of instance i's quaternions to the branch of its state y (the
  /// backend's layout): tangent(s, e) returns the tangent of parameter s at state entry e.
  template <class Tangent>
  void turn_quaternion_seeds(std::size_t i, std::size_t n, const double* y, Tangent tangent) const {
    const std::size_t Q = quaternions_.size();
    for (int s = 0; s < n_sensitivities(); ++s)
      for (std::size_t k = 0; k < Q; ++k) {
        const int o = quaternions_[k];
        const double* ref = seeds_.quaternion_ref.data() + ((static_cast<std::size_t>(s) * n + i) * Q + k) * 4;
        if (quaternion_sign(y + o, ref) < 0)
          for (int e = o; e < o + 4; ++e) tangent(s, e) = -tangent(s, e);
      }
  }
};

/// The state_tangent_view of a pass of W tangents stored as Dual<double, W> (a value, then
/// its W tangents), S of them in use: element (i, e, t) at Y + i * stride_i + e *
/// stride_e (in Dual numbers), tangent t. Throws std::invalid_argument for more than one
/// pass (n_passes > 1).
template <int W>
ArrayView dual_tangent_view(Dual<double, W>* Y, int n, int ny, std::int64_t stride_i, std::int64_t stride_e, int S,
                            std::size_t n_passes) {
  static_assert(sizeof(Dual<double, W>) == (W + 1) * sizeof(double), "a Dual is its value and tangents, unpadded");
  if (n_passes > 1)
    throw std::invalid_argument("state_tangent_view: the " + std::to_string(S) + " parameters run in " +
                                std::to_string(n_passes) + " passes of " + std::to_string(W) +
                                " tangents; a view holds one pass (at most " + std::to_string(W) +
                                " parameters: read the state sensitivities instead)");
  ArrayView v;
  v.data = reinterpret_cast<double*>(Y) + 1;  // tangent 0 of element 0
  v.ndim = 3;
  v.shape[0] = n;
  v.shape[1] = ny;
  v.shape[2] = S;
  v.strides[0] = stride_i * (W + 1);
  v.strides[1] = stride_e * (W + 1);
  v.strides[2] = 1;
  return v;
}

/// The engine for `models` (one per instance or one shared: the Simulator's, as created;
/// sensitivity_unsupported empty): a robot with solver aba or cga gets the joint-space
/// engine, every other model the DAE engine. seeds: S >= 1 parameters for n_instances.
/// threads: ThreadPool workers (<= 0: default_thread_count()). Throws
/// std::invalid_argument when the seeds' sizes do not fit.
std::unique_ptr<SensitivityEngine> make_sensitivity_engine(std::shared_ptr<const std::vector<Model>> models,
                                                           int n_instances, SensitivitySeeds seeds, int threads);

}  // namespace simphant
