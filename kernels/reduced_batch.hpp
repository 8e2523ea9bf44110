#pragma once
// The reads of the GPU joint-space backend (host/cuda_reduced_backend.cuh; docs/cuda-backend.md,
// "Robots") as per-thread functions over kernels/reduced_step.hpp's batch: the frame it
// brings back to the host (body states, energies, joint state) and the link frames
// (pose and twist of chosen links, e.g. the end effector). Header-only SP_HD; the device
// runs them one thread per instance, tests/test_reduced_batch_grid.cpp over the whole grid
// on the CPU.
#include <cstddef>
#include <cstdint>

#include "reduced_step.hpp"
#include "simphant/batch/robot_batch_layout.hpp"
#include "simphant/core/hd.hpp"
#include "simphant/reduced/robot_kinematics.hpp"

namespace simphant::batch {

/// Frame f's record (read_link_frames): link f's frame L_f (f < n) or the floating base's
/// frame B (f == n), at the frame's origin: rec = [origin (W) [m], orientation (frame -> W,
/// w x y z: w >= 0 for a link, the state's quat_B for the base), velocity of the origin (W)
/// [m/s], angular velocity in the frame's own axes [rad/s]] (read_states' convention, at
/// the link frame instead of the CoM). kin: y's robot_link_kinematics.
template <class T, int Cap>
SP_HD void robot_link_frame_record(const RobotView<T>& r, const T* y, const RobotLinkKinematics<T, Cap>& kin, int f,
                                   T* rec) {
  using namespace robot_detail;
  Vec3<T> o, v, w;
  Quat<T> p;
  if (f >= r.n) {
    o = base_position(y);
    p = base_quat(y);
    v = base_velocity(y, r.n);
    w = base_omega(y, r.n);
  } else {
    o = kin.o[f];
    p = quat_from_rotation(kin.R[f]);
    v = kin.vo[f];
    w = kin.w[f];
  }
  const T out[13] = {o.x, o.y, o.z, p.w, p.x, p.y, p.z, v.x, v.y, v.z, w.x, w.y, w.z};
  for (int e = 0; e < 13; ++e) rec[e] = out[e];
}

/// tid = instance i: the records of frames[0 .. count) (robot_link_frame_record; each in
/// [0, robot_frame_count)) into out (n_instances, 13 count), strided.
template <class T, int Cap>
SP_HD void reduced_link_frames_thread(int tid, const ReducedBatchView<T>& b, const int* frames, int count,
                                      Strided<T> out, ReducedStepWorkspace<T, Cap>& ws) {
  if (tid >= b.n_instances) return;
  const int i = tid;
  const RobotView<T> r = reduced_robot_view(b, i);
  const int N = robot_state_size(r.n, r.floating);
  for (int e = 0; e < N; ++e) ws.y[e] = b.Y(i, e);
  robot_link_kinematics(r, ws.y, ws.robot.kin);
  for (int c = 0; c < count; ++c) {
    T rec[13];
    robot_link_frame_record(r, ws.y, ws.robot.kin, frames[c], rec);
    for (int e = 0; e < 13; ++e) out(i, 13 * c + e) = rec[e];
  }
}

/// tid = instance i: the frame of instance i, frame (robot_frame_size, n_instances)
/// structure of arrays: the body records (reduced_body_states_thread), kinetic and total
/// energy (reduced_energy_thread), then q, qd and the actuator forces
/// (reduced_joint_state_thread).
template <class T, int Cap>
SP_HD void reduced_frame_thread(int tid, const ReducedBatchView<T>& b, T* frame, ReducedStepWorkspace<T, Cap>& ws) {
  if (tid >= b.n_instances) return;
  const std::int64_t n = b.n_instances;
  const std::int64_t e0 = 13 * static_cast<std::int64_t>(robot_n_bodies(b.n, b.floating));
  reduced_body_states_thread(tid, b, structure_of_arrays(frame, b.n_instances), ws);
  reduced_energy_thread(tid, b, frame + (e0 + 1) * n, frame + e0 * n, ws);
  reduced_joint_state_thread(tid, b, structure_of_arrays(frame + (e0 + 2) * n, b.n_instances),
                             structure_of_arrays(frame + (e0 + 2 + b.n) * n, b.n_instances),
                             structure_of_arrays(frame + (e0 + 2 + 2 * b.n) * n, b.n_instances), ws);
}

/// tid = k < count: row k of rows_out (count, width) doubles = column ids[k] of soa_in
/// (width, n) in T (ids null: column k).
template <class T>
SP_HD void gather_rows_as_double_thread(int tid, int n, int width, int count, const int* ids, const T* soa_in,
                                        double* rows_out) {
  if (tid >= count) return;
  const std::size_t i = static_cast<std::size_t>(ids ? ids[tid] : tid);
  for (int e = 0; e < width; ++e)
    rows_out[static_cast<std::size_t>(tid) * width + e] = static_cast<double>(soa_in[static_cast<std::size_t>(e) * n + i]);
}

}  // namespace simphant::batch
