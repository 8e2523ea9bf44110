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
//   power                ()      of the loads, drives and dampers [W] (the work rate of
//                                what E leaves out; kernels/power.hpp)
//   contacts             (P, 4)  per contact pair: normal force, friction force, largest
//                                penetration, contact count (contact_pair_summary)
// Accumulator of one instance (1 + 5 C numbers, C channels, and kWorkSlots more with
// power): [count, then per channel max, min, sum, sum of squares, step of the max, then
// with power its first five and last five samples]. The step is the instance step of the
// sampled state (its time = step * dt); the device stores the batch step there and its
// backend converts (host/cuda_backend_state.cuh). NaN is sticky: a NaN sample makes max,
// min, sum and the sum of squares NaN (and the step of the max that sample's).
// A sample enters the double accumulators through value_of (math/lane_ops.hpp). A Dual
// sample (math/dual.hpp) adds its value there and, where the accumulator has tangent
// storage (ReductionAcc::tangent: the forward sensitivities, docs/sensitivities.md), its
// tangents: per channel those of the max (the sample that set it), of the min, of the
// sum and of the sum of squares, and with power the tangents of its first and last five
// samples; reduction_stats_tangent reads them as derivatives of max, min, mean and rms.
#include <cmath>
#include <cstddef>

#include "simphant/contact/contact_wrench.hpp"
#include "simphant/formulas/force_math.hpp"
#include "simphant/formulas/joint_loads.hpp"
#include "simphant/math/dual.hpp"

namespace simphant {

enum class ReductionQuantity : int {
  Reactions = 0,
  JointLoads = 1,
  BearingLoads = 2,
  DriverLoads = 3,
  ConstraintViolation = 4,
  Energy = 5,
  JointCoordinates = 6,
  Power = 7,
  Contacts = 8
};
constexpr int kReductionQuantities = 9;
/// The statistics read back per channel, in this order: max, min, mean, rms, time_of_max.
constexpr int kReductionStats = 5;
/// Accumulator numbers per channel (max, min, sum, sum of squares, step of the max).
constexpr int kReductionSlots = 5;
/// Accumulator numbers after the channels when power is enabled: its first five and its
/// last five samples (the end corrections of reduction_work).
constexpr int kWorkSlots = 10;
/// Tangent slots per channel and tangent: those of the max, the min, the sum and the sum
/// of squares.
constexpr int kReductionTangentSlots = 4;
/// The derivatives read back per channel (reduction_stats_tangent): of max, min, mean, rms.
constexpr int kReductionTangentStats = 4;

/// Components per instance of quantity q for J joints, D drivers and P contact pairs.
SP_HD constexpr int reduction_components(int q, int n_joints, int n_drivers, int n_pairs) {
  return q == 0 ? 8 * n_joints
         : q == 8 ? kContactSummaryComponents * n_pairs
         : q == 1 ? kJointLoadComponents * n_joints
         : q == 2 ? kBearingLoadComponents * n_joints
         : q == 3 ? n_drivers
         : q == 4 || q == 5 || q == 7 ? 1
                                     : n_joints;
}

/// Which quantities are accumulated and where: offset[q] is quantity q's first channel,
/// -1 when it is not enabled; channels is the total. Trivially copyable (kernel argument).
struct ReductionLayout {
  int offset[kReductionQuantities] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
  int channels = 0;
  /// 1 where the samples fall one per grid step (every integrator but dopri5): the power's
  /// mean is then its time average by reduction_work (reduction_stats).
  int grid_samples = 1;
  SP_HD bool enabled(ReductionQuantity q) const { return offset[static_cast<int>(q)] >= 0; }
  SP_HD bool any() const { return channels > 0; }
  /// Whether a quantity of the joints (reactions, joint or bearing loads, coordinates) is
  /// enabled: a sample then evaluates every joint's reaction (reduction_add_joint).
  SP_HD bool any_joint() const {
    return enabled(ReductionQuantity::Reactions) || enabled(ReductionQuantity::JointLoads) ||
           enabled(ReductionQuantity::BearingLoads) || enabled(ReductionQuantity::JointCoordinates);
  }
  /// Accumulator numbers per instance.
  SP_HD int size() const { return work_slot() + (enabled(ReductionQuantity::Power) ? kWorkSlots : 0); }
  /// The first of the kWorkSlots numbers after the channels.
  SP_HD int work_slot() const { return 1 + kReductionSlots * channels; }
  /// Tangent slots per tangent (ReductionAcc::tangent): kReductionTangentSlots per
  /// channel, then kWorkSlots with power.
  SP_HD int tangent_size() const {
    return kReductionTangentSlots * channels + (enabled(ReductionQuantity::Power) ? kWorkSlots : 0);
  }
};

/// The layout of the enabled quantities (enabled[q] for each ReductionQuantity), its
/// samples one per grid step or not (ReductionLayout::grid_samples).
inline ReductionLayout make_reduction_layout(const bool* enabled, int n_joints, int n_drivers, int n_pairs,
                                             bool grid_samples) {
  ReductionLayout L;
  L.grid_samples = grid_samples ? 1 : 0;
  for (int q = 0; q < kReductionQuantities; ++q) {
    if (!enabled[q]) continue;
    L.offset[q] = L.channels;
    L.channels += reduction_components(q, n_joints, n_drivers, n_pairs);
  }
  return L;
}

/// One instance's accumulator: element e at base[e * stride] (host rows: stride 1;
/// device structure of arrays: base = acc + i, stride n). With tangent (a Dual sample's
/// tangents, W = its number of tangents): tangent slot e (ReductionLayout::tangent_size)
/// of tangent k at tangent[(e * W + k) * stride]; null: values only.
struct ReductionAcc {
  double* base;
  std::size_t stride;
  double* tangent = nullptr;
  SP_HD double& operator()(int e) const { return base[static_cast<std::size_t>(e) * stride]; }
  SP_HD double& d(int e, int k, int W) const {
    return tangent[(static_cast<std::size_t>(e) * W + static_cast<std::size_t>(k)) * stride];
  }
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
  if (L.enabled(ReductionQuantity::Power))
    for (int w = 0; w < kWorkSlots; ++w) acc(L.work_slot() + w) = NAN;
}

/// Adds one sample x of channel c taken at `step`. The first of equal maxima keeps its step.
/// Returns 1 where x set the max, plus 2 where it set the min.
SP_HD int reduction_add_value(const ReductionAcc& acc, int c, double x, double step) {
  const int e = 1 + kReductionSlots * c;
  int set = 0;
  double& mx = acc(e);
  if (x > mx || (x != x && mx == mx)) {
    mx = x;
    acc(e + 4) = step;
    set = 1;
  }
  double& mn = acc(e + 1);
  if (x < mn || x != x) {
    mn = x;
    set += 2;
  }
  acc(e + 2) += x;
  acc(e + 3) += x * x;
  return set;
}

/// Adds one sample x (a number, or a Dual whose tangents go to acc.tangent where it is
/// set) of channel c taken at `step`: the max's and the min's tangents are those of the
/// sample that set them (a discrete peak's derivative is its sample's: the step of the
/// peak does not move under a small change), the sum's add up, the sum of squares' add
/// 2 x x'.
template <class T>
SP_HD void reduction_add(const ReductionAcc& acc, int c, const T& x, double step) {
  const double v = static_cast<double>(value_of(x));  // the accumulators hold values
  const int set = reduction_add_value(acc, c, v, step);
  if constexpr (ad::IsDual<T>::value) {
    if (!acc.tangent) return;
    constexpr int W = T::size;
    const int e = kReductionTangentSlots * c;
    for (int k = 0; k < W; ++k) {
      const double dx = static_cast<double>(x.d[k]);
      if (set & 1) acc.d(e, k, W) = dx;
      if (set & 2) acc.d(e + 1, k, W) = dx;
      acc.d(e + 2, k, W) += dx;
      acc.d(e + 3, k, W) += 2.0 * v * dx;
    }
  }
}

/// The integral over the samples of the power channel, f_0 .. f_N at N + 1 = count
/// consecutive steps of dt [s]: the work [J] by Gregory's rule with its end corrections
/// through fourth differences (N >= 5; exact for polynomials of degree 5, error O(dt^6)
/// from the ends on a smooth power -- the trapezoid's interior error is what the end
/// terms of Euler-Maclaurin's formula give):
///   dt (f_0 / 2 + f_1 + .. + f_{N-1} + f_N / 2) - dt / 12 (nabla f_N - Delta f_0)
///     - dt / 24 (nabla^2 f_N + Delta^2 f_0) - 19 dt / 720 (nabla^3 f_N - Delta^3 f_0)
///     - 3 dt / 160 (nabla^4 f_N + Delta^4 f_0);
/// N = 3, 4: through second differences (exact for cubics); N = 2: Simpson's rule;
/// N = 1: the trapezoid; 0 with one sample, NaN with none. Valid only where every step
/// adds one sample (the fixed-step integrators, not the adaptive ones' steps). sum: of the
/// count samples; a[k] = f_k and z[k] = f_{N-k}, k = 0 .. 4 (the first and the last five).
/// Linear in the samples: the samples' tangents give the work's.
SP_HD double reduction_work_of(double count, double sum, const double* a, const double* z, double dt) {
  if (!(count > 0)) return NAN;
  if (count < 2) return 0.0;
  if (count < 3) return 0.5 * dt * (a[0] + z[0]);
  if (count < 4) return dt / 3.0 * (a[0] + 4.0 * a[1] + z[0]);
  double W = dt * (sum - 0.5 * (a[0] + z[0]));
  W -= dt / 12.0 * ((z[0] - z[1]) - (a[1] - a[0]));
  W -= dt / 24.0 * ((z[0] - 2.0 * z[1] + z[2]) + (a[2] - 2.0 * a[1] + a[0]));
  if (count < 6) return W;
  W -= 19.0 * dt / 720.0 * ((z[0] - 3.0 * z[1] + 3.0 * z[2] - z[3]) - (a[3] - 3.0 * a[2] + 3.0 * a[1] - a[0]));
  W -= 3.0 * dt / 160.0 *
       ((z[0] - 4.0 * z[1] + 6.0 * z[2] - 4.0 * z[3] + z[4]) + (a[4] - 4.0 * a[3] + 6.0 * a[2] - 4.0 * a[1] + a[0]));
  return W;
}

/// reduction_work_of the power channel of acc.
SP_HD double reduction_work(const ReductionLayout& L, const ReductionAcc& acc, double dt) {
  const int e = 1 + kReductionSlots * L.offset[static_cast<int>(ReductionQuantity::Power)];
  const int w = L.work_slot();
  // a[k] = f_k and z[k] = f_{N-k}, k = 0 .. 4 (the first and the last five samples).
  double a[5], z[5];
  for (int k = 0; k < 5; ++k) {
    a[k] = acc(w + k);
    z[k] = acc(w + 9 - k);
  }
  return reduction_work_of(acc(0), acc(e + 2), a, z, dt);
}

/// The statistics of channel c: out5 = [max, min, mean, rms, time_of_max] with mean =
/// sum / count, rms = sqrt(sum of squares / count), time_of_max = step * dt [s]; every
/// entry NaN when there is no sample. The power channel's mean is its time average,
/// reduction_work / ((count - 1) dt), so that mean times the duration is the work, where
/// the samples fall one per grid step (L.grid_samples); elsewhere sum / count.
SP_HD void reduction_stats(const ReductionLayout& L, const ReductionAcc& acc, int c, double dt, double* out5) {
  const double count = acc(0);
  const int e = 1 + kReductionSlots * c;
  if (!(count > 0)) {
    for (int s = 0; s < kReductionStats; ++s) out5[s] = NAN;
    return;
  }
  out5[0] = acc(e);
  out5[1] = acc(e + 1);
  out5[2] = c == L.offset[static_cast<int>(ReductionQuantity::Power)] && L.grid_samples != 0 && count > 1
                ? reduction_work(L, acc, dt) / ((count - 1.0) * dt)
                : acc(e + 2) / count;
  out5[3] = std::sqrt(acc(e + 3) / count);
  out5[4] = acc(e + 4) * dt;
}

/// The derivatives of channel c's statistics along tangent k of W (acc.tangent set):
/// out4 = d[max, min, mean, rms] (the time of the max has none: the step of a discrete
/// peak is constant under a small change). d rms = d(sum of squares) / (2 count rms);
/// NaN where every sample is 0 (rms = |h| sqrt(sum x'^2 / count) along a change h: no
/// derivative unless every x' is 0, which the sums cannot tell). A statistic whose value
/// is NaN (a NaN sample) has a NaN derivative. The power channel's mean is its time
/// average as in reduction_stats. NaN without samples.
SP_HD void reduction_stats_tangent(const ReductionLayout& L, const ReductionAcc& acc, int c, double dt, int k, int W,
                                   double* out4) {
  const double count = acc(0);
  if (!(count > 0)) {
    for (int s = 0; s < kReductionTangentStats; ++s) out4[s] = NAN;
    return;
  }
  const int e = kReductionTangentSlots * c, v = 1 + kReductionSlots * c;
  out4[0] = acc(v) == acc(v) ? acc.d(e, k, W) : NAN;
  out4[1] = acc(v + 1) == acc(v + 1) ? acc.d(e + 1, k, W) : NAN;
  if (c == L.offset[static_cast<int>(ReductionQuantity::Power)] && L.grid_samples != 0 && count > 1) {
    const int w = kReductionTangentSlots * L.channels;
    double a[5], z[5];
    for (int j = 0; j < 5; ++j) {
      a[j] = acc.d(w + j, k, W);
      z[j] = acc.d(w + 9 - j, k, W);
    }
    out4[2] = reduction_work_of(count, acc.d(e + 2, k, W), a, z, dt) / ((count - 1.0) * dt);
  } else {
    out4[2] = acc.d(e + 2, k, W) / count;
  }
  if (acc(v + 2) != acc(v + 2)) out4[2] = NAN;
  const double rms = std::sqrt(acc(v + 3) / count);
  out4[3] = rms > 0 ? acc.d(e + 3, k, W) / (2.0 * count * rms) : NAN;
}

/// Clears the tangents of one instance (W per slot): every slot 0.
SP_HD void reduction_clear_tangent(const ReductionLayout& L, const ReductionAcc& acc, int W) {
  for (int e = 0; e < L.tangent_size(); ++e)
    for (int k = 0; k < W; ++k) acc.d(e, k, W) = 0.0;
}

/// Pushes sample p into the power's first five (while count < 5) and last five samples,
/// element j at slot0[j * step].
SP_HD void reduction_push_work(double* slot0, std::size_t step, double count, double p) {
  if (count < 5) slot0[static_cast<std::size_t>(count) * step] = p;  // the first five
  for (int k = 5; k < 9; ++k) slot0[k * step] = slot0[(k + 1) * step];  // the last five, shifted
  slot0[9 * step] = p;
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
    for (int c = 0; c < 6; ++c) reduction_add(acc, c0 + c, s.reaction[c], step);
    const Vec3<T> F = {s.reaction[0], s.reaction[1], s.reaction[2]};
    const Vec3<T> M = {s.reaction[3], s.reaction[4], s.reaction[5]};
    reduction_add(acc, c0 + 6, output_magnitude(norm(F), F.x, F.y, F.z), step);
    reduction_add(acc, c0 + 7, output_magnitude(norm(M), M.x, M.y, M.z), step);
  }
  if (L.enabled(ReductionQuantity::JointLoads) || L.enabled(ReductionQuantity::BearingLoads)) {
    T loads[kJointLoadComponents], bearing[kBearingLoadComponents];
    joint_loads_from_reaction(s.frame, s.Bi, s.Bj, s.reaction, s.driver_axial_force, s.driver_axial_moment, loads);
    if (L.enabled(ReductionQuantity::JointLoads))
      for (int c = 0; c < kJointLoadComponents; ++c)
        reduction_add(acc, L.offset[1] + kJointLoadComponents * j + c, loads[c], step);
    if (L.enabled(ReductionQuantity::BearingLoads)) {
      bearing_loads_from_joint_loads(loads, bearing);
      for (int c = 0; c < kBearingLoadComponents; ++c)
        reduction_add(acc, L.offset[2] + kBearingLoadComponents * j + c, bearing[c], step);
    }
  }
  if (L.enabled(ReductionQuantity::JointCoordinates))
    reduction_add(acc, L.offset[6] + j, joint_coordinate(s.type, s.frame, s.Bi, s.Bj), step);
}

/// Adds driver k's load (driver_loads: its torque [N m] or force [N] on body_j along v_i)
/// of one sample, when driver_loads is enabled.
template <class T>
SP_HD void reduction_add_driver(const ReductionLayout& L, const ReductionAcc& acc, int k, T load, double step) {
  if (L.enabled(ReductionQuantity::DriverLoads))
    reduction_add(acc, L.offset[3] + k, load, step);
}

/// Adds contact pair p's channels (contacts, when enabled) of one sample: summary from
/// contact_pair_summary of the pair's wrench at the sampled state.
template <class T>
SP_HD void reduction_add_contact(const ReductionLayout& L, const ReductionAcc& acc, int p, const T* summary,
                                 double step) {
  if (!L.enabled(ReductionQuantity::Contacts)) return;
  for (int c = 0; c < kContactSummaryComponents; ++c)
    reduction_add(acc, L.offset[8] + kContactSummaryComponents * p + c, summary[c], step);
}

/// Adds the instance-wide channels of one sample (constraint_violation, energy, power,
/// those enabled) and counts the sample. Call once per sample, after the joints, the
/// drivers and the contact pairs.
template <class T>
SP_HD void reduction_add_instance(const ReductionLayout& L, const ReductionAcc& acc, T violation, T energy, T power,
                                  double step) {
  if (L.enabled(ReductionQuantity::ConstraintViolation))
    reduction_add(acc, L.offset[4], violation, step);
  if (L.enabled(ReductionQuantity::Energy)) reduction_add(acc, L.offset[5], energy, step);
  if (L.enabled(ReductionQuantity::Power)) {
    reduction_add(acc, L.offset[7], power, step);
    const double count = acc(0);
    reduction_push_work(&acc(L.work_slot()), acc.stride, count, static_cast<double>(value_of(power)));
    if constexpr (ad::IsDual<T>::value) {
      constexpr int W = T::size;
      if (acc.tangent)
        for (int k = 0; k < W; ++k)
          reduction_push_work(&acc.d(kReductionTangentSlots * L.channels, k, W), W * acc.stride, count,
                              static_cast<double>(power.d[k]));
    }
  }
  acc(0) += 1.0;
}

}  // namespace simphant
