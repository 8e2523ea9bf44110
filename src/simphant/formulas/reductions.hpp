#pragma once
// Per-instance reductions over time (docs/solver.md, "Reductions over time"): max, min,
// mean, rms and time of the max of the recorded quantities, accumulated inside the step
// loop from every step's start state (the first RK4 stage's evaluation: its lambda, no
// extra solve) and, when read, the current (end) state. Written once as header-only
// __host__ __device__ functions used by the CPU reference (sim/cpu_backend.cpp through
// dynamics/reduce_sample.hpp) and the device (kernels/reduce.hpp).
//
// Channels: the enabled quantities' components in the order of ReductionQuantity, each
// quantity's components in the layout of one frame of its dataset without T:
//   reactions            (J, 8)  f_x f_y f_z tau_x tau_y tau_z |f| |tau| on body_j about the anchor, W
//   joint_loads          (J, 6)  formulas/joint_loads.hpp
//   bearing_loads        (J, 4)  formulas/joint_loads.hpp
//   driver_loads         (D)     a driver's load on body_j [N m | N]
//   constraint_violation ()      max |Phi|
//   energy               ()      kinetic + gravity + spring potential [J]
//   joint_coordinates    (J)     formulas/joint_loads.hpp, joint_coordinate
// Accumulator of one instance (1 + 5 C numbers, C channels): [count, then per channel
// max, min, sum, sum of squares, step of the max]. The step is the instance step of the
// sampled state (its time = step * dt); the device stores the batch step there and its
// backend converts (host/cuda_backend_state.cuh). NaN is sticky: a NaN sample makes max,
// min, sum and the sum of squares NaN (and the step of the max that sample's).
#include <cmath>
#include <cstddef>

#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_loads.hpp"

namespace simphant {

enum class ReductionQuantity : int {
  Reactions = 0,
  JointLoads = 1,
  BearingLoads = 2,
  DriverLoads = 3,
  ConstraintViolation = 4,
  Energy = 5,
  JointCoordinates = 6
};
constexpr int kReductionQuantities = 7;
/// The statistics read back per channel, in this order: max, min, mean, rms, time_of_max.
constexpr int kReductionStats = 5;
/// Accumulator numbers per channel (max, min, sum, sum of squares, step of the max).
constexpr int kReductionSlots = 5;

/// Components per instance of quantity q for J joints and D drivers.
SP_HD constexpr int reduction_components(int q, int n_joints, int n_drivers) {
  return q == 0 ? 8 * n_joints
         : q == 1 ? kJointLoadComponents * n_joints
         : q == 2 ? kBearingLoadComponents * n_joints
         : q == 3 ? n_drivers
         : q == 4 || q == 5 ? 1
                            : n_joints;
}

/// Which quantities are accumulated and where: offset[q] is quantity q's first channel,
/// -1 when it is not enabled; channels is the total. Trivially copyable (kernel argument).
struct ReductionLayout {
  int offset[kReductionQuantities] = {-1, -1, -1, -1, -1, -1, -1};
  int channels = 0;
  SP_HD bool enabled(ReductionQuantity q) const { return offset[static_cast<int>(q)] >= 0; }
  SP_HD bool any() const { return channels > 0; }
  /// Accumulator numbers per instance.
  SP_HD int size() const { return 1 + kReductionSlots * channels; }
};

/// The layout of the enabled quantities (enabled[q] for each ReductionQuantity).
inline ReductionLayout make_reduction_layout(const bool* enabled, int n_joints, int n_drivers) {
  ReductionLayout L;
  for (int q = 0; q < kReductionQuantities; ++q) {
    if (!enabled[q]) continue;
    L.offset[q] = L.channels;
    L.channels += reduction_components(q, n_joints, n_drivers);
  }
  return L;
}

/// One instance's accumulator: element e at base[e * stride] (host rows: stride 1;
/// device structure of arrays: base = acc + i, stride n).
struct ReductionAcc {
  double* base;
  std::size_t stride;
  SP_HD double& operator()(int e) const { return base[static_cast<std::size_t>(e) * stride]; }
};

/// Sets an accumulator to no samples.
SP_HD void reduction_clear(const ReductionLayout& L, const ReductionAcc& acc) {
  acc(0) = 0.0;
  for (int c = 0; c < L.channels; ++c) {
    const int e = 1 + kReductionSlots * c;
    acc(e) = -INFINITY;
    acc(e + 1) = INFINITY;
    acc(e + 2) = 0.0;
    acc(e + 3) = 0.0;
    acc(e + 4) = NAN;
  }
}

/// Adds one sample x of channel c taken at `step`. The first of equal maxima keeps its step.
SP_HD void reduction_add(const ReductionAcc& acc, int c, double x, double step) {
  const int e = 1 + kReductionSlots * c;
  double& mx = acc(e);
  if (x > mx || (x != x && mx == mx)) {
    mx = x;
    acc(e + 4) = step;
  }
  double& mn = acc(e + 1);
  if (x < mn || x != x) mn = x;
  acc(e + 2) += x;
  acc(e + 3) += x * x;
}

/// The statistics of channel c: out5 = [max, min, mean, rms, time_of_max] with mean =
/// sum / count, rms = sqrt(sum of squares / count), time_of_max = step * dt [s]; every
/// entry NaN when there is no sample.
SP_HD void reduction_stats(const ReductionAcc& acc, int c, double dt, double* out5) {
  const double count = acc(0);
  const int e = 1 + kReductionSlots * c;
  if (!(count > 0)) {
    for (int s = 0; s < kReductionStats; ++s) out5[s] = NAN;
    return;
  }
  out5[0] = acc(e);
  out5[1] = acc(e + 1);
  out5[2] = acc(e + 2) / count;
  out5[3] = std::sqrt(acc(e + 3) / count);
  out5[4] = acc(e + 4) * dt;
}

/// What one joint contributes to a sample.
template <class T>
struct JointSample {
  JointType type;
  JointFrame<T> frame;
  BodyKin<T> Bi, Bj;
  T reaction[6];            ///< joint_reaction: [F, T about the anchor] on body_j, W
  T driver_axial_force;     ///< a prismatic driver's force on body_j along v_i [N], else 0
  T driver_axial_moment;    ///< an angle driver's torque on body_j about v_i [N m], else 0
};

/// Adds joint j's channels (reactions, joint_loads, bearing_loads, joint_coordinates,
/// those enabled) of one sample.
template <class T>
SP_HD void reduction_add_joint(const ReductionLayout& L, const ReductionAcc& acc, int j, const JointSample<T>& s,
                               double step) {
  if (L.enabled(ReductionQuantity::Reactions)) {
    const int c0 = L.offset[0] + 8 * j;
    for (int c = 0; c < 6; ++c) reduction_add(acc, c0 + c, static_cast<double>(s.reaction[c]), step);
    const Vec3<T> F = {s.reaction[0], s.reaction[1], s.reaction[2]};
    const Vec3<T> M = {s.reaction[3], s.reaction[4], s.reaction[5]};
    reduction_add(acc, c0 + 6, static_cast<double>(norm(F)), step);
    reduction_add(acc, c0 + 7, static_cast<double>(norm(M)), step);
  }
  if (L.enabled(ReductionQuantity::JointLoads) || L.enabled(ReductionQuantity::BearingLoads)) {
    T loads[kJointLoadComponents], bearing[kBearingLoadComponents];
    joint_loads_from_reaction(s.frame, s.Bi, s.Bj, s.reaction, s.driver_axial_force, s.driver_axial_moment, loads);
    if (L.enabled(ReductionQuantity::JointLoads))
      for (int c = 0; c < kJointLoadComponents; ++c)
        reduction_add(acc, L.offset[1] + kJointLoadComponents * j + c, static_cast<double>(loads[c]), step);
    if (L.enabled(ReductionQuantity::BearingLoads)) {
      bearing_loads_from_joint_loads(loads, bearing);
      for (int c = 0; c < kBearingLoadComponents; ++c)
        reduction_add(acc, L.offset[2] + kBearingLoadComponents * j + c, static_cast<double>(bearing[c]), step);
    }
  }
  if (L.enabled(ReductionQuantity::JointCoordinates))
    reduction_add(acc, L.offset[6] + j, static_cast<double>(joint_coordinate(s.type, s.frame, s.Bi, s.Bj)), step);
}

/// Adds driver k's load (driver_loads: its torque [N m] or force [N] on body_j along v_i)
/// of one sample, when driver_loads is enabled.
template <class T>
SP_HD void reduction_add_driver(const ReductionLayout& L, const ReductionAcc& acc, int k, T load, double step) {
  if (L.enabled(ReductionQuantity::DriverLoads)) reduction_add(acc, L.offset[3] + k, static_cast<double>(load), step);
}

/// Adds the instance-wide channels of one sample (constraint_violation, energy, those
/// enabled) and counts the sample. Call once per sample, after the joints and drivers.
template <class T>
SP_HD void reduction_add_instance(const ReductionLayout& L, const ReductionAcc& acc, T violation, T energy, double step) {
  if (L.enabled(ReductionQuantity::ConstraintViolation)) reduction_add(acc, L.offset[4], static_cast<double>(violation), step);
  if (L.enabled(ReductionQuantity::Energy)) reduction_add(acc, L.offset[5], static_cast<double>(energy), step);
  acc(0) += 1.0;
}

}  // namespace simphant
