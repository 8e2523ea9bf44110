#pragma once
// One group of kReducedLaneWidth robot instances advanced in SIMD lanes: the joint-space
// per-thread function (kernels/reduced_step.hpp's reduced_advance_thread and everything
// it calls in reduced/*.hpp) run once with T = Lanes<double, W> instead of W times with
// T = double. Host only; simd/reduced_lanes.cpp compiles it per x86-64 level.
//
// The group's instances g W + l (l < W) are gathered from the batch (any layout: the
// batch's Strided views) into lane l of a local group batch: state, inputs, their model
// slot's link, joint, base, gravity and runaway rows, and the bookkeeping (status,
// status_step, reason, offset). The group then runs all n_steps of the advance by itself
// (its data stay in cache), and the state and bookkeeping of the real instances are
// scattered back. Lanes past the batch's end (the last group of a batch whose size is not
// a multiple of W) copy the group's first instance, are marked not ok (so never stepped
// into the result) and are never written back.
//
// The integer fields of the rows (link parent and type, actuator mode, limited, mimic)
// steer the code and must be equal in every lane of a group; a group whose instances
// differ in one (a sweep over actuator modes, say) runs its instances one at a time
// with T = double instead (reduced_advance_group returns false).
#include <cstdint>

#include "reduced_step.hpp"  // kernels/ (a private include directory)
#include "simphant/math/lanes.hpp"
#include "simphant/simd/reduced_lane_contact.hpp"
#include "simphant/simd/reduced_lane_math.hpp"

namespace simphant {

namespace batch {
/// Lanes<double, W> as reduced_advance_thread sees it (kernels/reduced_step.hpp): a group
/// of W instances, inputs as lane vectors, per-lane masks.
template <int W>
struct ReducedLanes<Lanes<double, W>> {
  static constexpr int width = W;
  using input = Lanes<double, W>;
  using mask = LaneMask<double, W>;
  static bool get(mask m, int l) { return m.v[l] != 0; }
  static mask make(const bool* b) {
    mask m;
    for (int l = 0; l < W; ++l) m.v[l] = b[l] ? -1 : 0;
    return m;
  }
};
}  // namespace batch

namespace simd {

/// Instances per group of the joint-space lane path (one AVX-512 register of doubles).
constexpr int kReducedLaneWidth = kSimdLanes<double>;
using ReducedLane = Lanes<double, kReducedLaneWidth>;

/// Scratch of one worker for groups of robots with at most Cap links: the lane
/// workspace, the gathered rows and state of one group, and a scalar workspace for the
/// groups that run one instance at a time. Fixed size, allocated once per worker.
template <int Cap>
struct ReducedGroupScratch {
  static constexpr int W = kReducedLaneWidth;
  using L = ReducedLane;
  batch::ReducedStepWorkspace<L, Cap> ws;
  batch::ReducedStepWorkspace<double, Cap> ws_scalar;
  ReducedLinkParams<L> links[Cap];
  cga::CgaLink<L> cga_links[Cap];
  RobotJointParams<L> joints[Cap];
  RobotBaseParams<L> base;
  Vec3<L> gravity;
  L runaway;
  L Y[2 * Cap + 13];
  L U[Cap];
  std::int8_t status[W], reason[W];
  std::int64_t status_step[W], offset[W];
  /// Per lane, its model slot's contact pairs in the batch (RobotView::lane_contacts).
  const RobotContactPair<double>* lane_contacts[W];
  /// The model slot whose rows `links` ... `runaway` hold when every lane reads it
  /// (n_slots == 1), so a shared model is broadcast once per advance; -1: none.
  int broadcast_slot = -1;
};

/// reduced_reduce_sample (kernels/reduced_step.hpp) of instance i of the batch b at state y
/// (a lane's, in double) and instance step `step`, into its accumulator: one lane's sample
/// of the reductions over time. Compiled once (simd/reduced_lane_contact.cpp), not again
/// in each x86-64 level of the lane code.
void reduced_lane_sample(const batch::ReducedBatchView<double>& b, int i, const double* y, double step,
                         RobotWorkspace<double, kMaxReducedLinks>& ws);

namespace reduced_group_detail {

using L = ReducedLane;
constexpr int W = kReducedLaneWidth;

inline void put(L& d, int l, double v) { d.set(l, v); }
inline void put(Vec3<L>& d, int l, const Vec3d& v) {
  d.x.set(l, v.x);
  d.y.set(l, v.y);
  d.z.set(l, v.z);
}
inline void put(Mat3<L>& d, int l, const Mat3d& v) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d.m[i][j].set(l, v.m[i][j]);
}
inline void put(cga::Motor<L>& d, int l, const cga::Motor<double>& v) {
  d.s.set(l, v.s);
  d.e23.set(l, v.e23);
  d.e13.set(l, v.e13);
  d.e12.set(l, v.e12);
  d.e1i.set(l, v.e1i);
  d.e2i.set(l, v.e2i);
  d.e3i.set(l, v.e3i);
  d.e123i.set(l, v.e123i);
}
inline void put(cga::Inertia<L>& d, int l, const cga::Inertia<double>& v) {
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 6; ++j) d.el[k].c[j].set(l, v.el[k].c[j]);
}

/// Lane l of d = s; false when an integer field differs from lane 0's (l > 0).
inline bool put(ReducedLinkParams<L>& d, int l, const ReducedLinkParams<double>& s) {
  if (l == 0) {
    d.parent = s.parent;
    d.type = s.type;
  } else if (d.parent != s.parent || d.type != s.type) {
    return false;
  }
  put(d.R_parent_joint, l, s.R_parent_joint);
  put(d.p_parent_joint, l, s.p_parent_joint);
  put(d.axis, l, s.axis);
  put(d.mass, l, s.mass);
  put(d.com, l, s.com);
  put(d.inertia_com, l, s.inertia_com);
  put(d.armature, l, s.armature);
  return true;
}
inline bool put(cga::CgaLink<L>& d, int l, const cga::CgaLink<double>& s) {
  if (l == 0) {
    d.parent = s.parent;
    d.type = s.type;
  } else if (d.parent != s.parent || d.type != s.type) {
    return false;
  }
  put(d.axis, l, s.axis);
  put(d.M_parent_joint, l, s.M_parent_joint);
  put(d.I, l, s.I);
  put(d.armature, l, s.armature);
  return true;
}
inline bool put(RobotJointParams<L>& d, int l, const RobotJointParams<double>& s) {
  if (l == 0) {
    d.mode = s.mode;
    d.limited = s.limited;
    d.mimic = s.mimic;
  } else if (d.mode != s.mode || d.limited != s.limited || d.mimic != s.mimic) {
    return false;
  }
  put(d.kp, l, s.kp);
  put(d.kd, l, s.kd);
  put(d.effort, l, s.effort);
  put(d.velocity, l, s.velocity);
  put(d.damping, l, s.damping);
  put(d.friction, l, s.friction);
  put(d.friction_velocity, l, s.friction_velocity);
  put(d.lower, l, s.lower);
  put(d.upper, l, s.upper);
  put(d.limit_stiffness, l, s.limit_stiffness);
  put(d.limit_damping, l, s.limit_damping);
  put(d.mimic_multiplier, l, s.mimic_multiplier);
  put(d.mimic_offset, l, s.mimic_offset);
  put(d.stiffness, l, s.stiffness);
  put(d.spring_q, l, s.spring_q);
  return true;
}
inline void put(RobotBaseParams<L>& d, int l, const RobotBaseParams<double>& s) {
  put(d.mass, l, s.mass);
  put(d.com, l, s.com);
  put(d.inertia_com, l, s.inertia_com);
}

/// The rows of model slot `slot` into lane l of the scratch; false when an integer field
/// differs from lane 0's.
template <int Cap>
bool gather_rows(const batch::ReducedBatchView<double>& b, int slot, int l, ReducedGroupScratch<Cap>& g) {
  const std::int64_t o = static_cast<std::int64_t>(slot) * b.n;
  bool uniform = true;
  for (int k = 0; k < b.n; ++k) {
    uniform = put(g.links[k], l, b.links[o + k]) && uniform;
    if (b.use_cga) uniform = put(g.cga_links[k], l, b.cga_links[o + k]) && uniform;
    uniform = put(g.joints[k], l, b.joints[o + k]) && uniform;
  }
  if (b.floating) put(g.base, l, b.base[slot]);
  put(g.gravity, l, b.gravity[slot]);
  put(g.runaway, l, b.runaway_kinetic_energy[slot]);
  g.lane_contacts[l] = b.n_contacts > 0 ? b.contacts + static_cast<std::int64_t>(slot) * b.n_contacts : nullptr;
  for (int p = 0; p < b.n_contacts; ++p)  // the pairs' owners steer the generalised forces' walk
    uniform = uniform && g.lane_contacts[l][p].owner_a == g.lane_contacts[0][p].owner_a &&
              g.lane_contacts[l][p].owner_b == g.lane_contacts[0][p].owner_b;
  return uniform;
}

}  // namespace reduced_group_detail

/// Advances group g (instances g W .. g W + W - 1 that are < b.n_instances) in lanes by
/// n_steps steps from batch step step0, as reduced_advance_thread<double> does for each
/// of them (same commit, status and freezing rules; with reductions, b.red_acc, each live
/// lane's step-start state sampled in double by reduced_reduce_sample); returns true.
/// Returns false, having changed nothing in b, when the group's instances differ in an
/// integer field of their rows: the caller then runs them one at a time. Cap >= b.n.
template <int Cap>
bool reduced_advance_group(const batch::ReducedBatchView<double>& b, int g, std::int64_t step0, int n_steps,
                           ReducedGroupScratch<Cap>& s) {
  using namespace reduced_group_detail;
  const int i0 = g * W;
  const int count = b.n_instances - i0 < W ? b.n_instances - i0 : W;
  bool any_ok = false;
  for (int l = 0; l < count; ++l) any_ok = any_ok || b.status[i0 + l] == 0;
  if (!any_ok) return true;
  bool uniform = true;
  if (b.n_slots == 1) {
    if (s.broadcast_slot != 0) {
      for (int l = 0; l < W && uniform; ++l) uniform = gather_rows(b, 0, l, s);
      s.broadcast_slot = uniform ? 0 : -1;
    }
  } else {
    s.broadcast_slot = -1;
    for (int l = 0; l < W && uniform; ++l) uniform = gather_rows(b, l < count ? i0 + l : i0, l, s);
  }
  if (!uniform) return false;
  const int N = robot_state_size(b.n, b.floating);
  for (int l = 0; l < W; ++l) {
    const int i = l < count ? i0 + l : i0;
    for (int e = 0; e < N; ++e) s.Y[e].set(l, b.Y(i, e));
    for (int k = 0; k < b.n; ++k) s.U[k].set(l, b.U(i, k));
    s.status[l] = l < count ? b.status[i] : static_cast<std::int8_t>(1);
    s.reason[l] = b.reason[i];
    s.status_step[l] = b.status_step[i];
    s.offset[l] = b.offset[i];
  }
  batch::ReducedBatchView<L> v;
  v.n_instances = 1;
  v.n = b.n;
  v.floating = b.floating;
  v.use_cga = b.use_cga;
  v.integrator = b.integrator;
  v.dt = L(b.dt);
  v.n_slots = 1;
  v.links = s.links;
  v.cga_links = s.cga_links;
  v.joints = s.joints;
  v.base = &s.base;
  v.gravity = &s.gravity;
  v.runaway_kinetic_energy = &s.runaway;
  v.y_init = nullptr;  // not read by the advance
  v.n_contacts = b.n_contacts;
  v.lane_contacts = s.lane_contacts;
  v.Y = {s.Y, 0, 1};
  v.U = {s.U, 0, 1};
  v.status = s.status;
  v.status_step = s.status_step;
  v.reason = s.reason;
  v.offset = s.offset;
  // With reductions, the samples of each step's start state, one lane at a time in double
  // (the scalar form's batch rows and function), then that step in the lanes; without, all
  // n_steps at once. One call site of the lane step: the code is compiled once per level.
  const bool sample = b.red_acc != nullptr;
  double y[2 * Cap + 13];
  for (int k = 0; k < (sample ? n_steps : 1); ++k) {
    for (int l = 0; sample && l < count; ++l) {
      if (s.status[l] != 0) continue;
      for (int e = 0; e < N; ++e) y[e] = s.Y[e][l];
      reduced_lane_sample(b, i0 + l, y, static_cast<double>(step0 + k - s.offset[l]), s.ws_scalar.robot);
    }
    batch::reduced_advance_thread(0, v, step0 + k, sample ? 1 : n_steps, s.ws);
  }
  for (int l = 0; l < count; ++l) {
    const int i = i0 + l;
    for (int e = 0; e < N; ++e) b.Y(i, e) = s.Y[e][l];
    b.status[i] = s.status[l];
    b.reason[i] = s.reason[l];
    b.status_step[i] = s.status_step[l];
  }
  return true;
}

}  // namespace simd
}  // namespace simphant
