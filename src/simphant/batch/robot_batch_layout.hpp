#pragma once
// Sizes of the GPU joint-space backend's per-instance arrays (host/cuda_reduced_backend.cuh,
// kernels/reduced_batch.hpp), in a header without CUDA so that the memory estimates
// (sim/host_memory.cpp, cuda_reduced_bytes_per_instance) are the same arithmetic in every build.
#include <cstddef>

#include "simphant/core/hd.hpp"
#include "simphant/reduced/cga/cga_dynamics.hpp"
#include "simphant/reduced/joint_forces.hpp"
#include "simphant/reduced/reduced_params.hpp"
#include "simphant/reduced/robot_view.hpp"

namespace simphant::batch {

/// Link frames a robot offers (read_link_frames): links 0 .. n-1 (ReducedModel::links
/// order), then the base frame B (index n) when it floats.
SP_HD int robot_frame_count(int n, int floating) { return n + (floating ? 1 : 0); }

/// Entries per instance of the frame the backend reads back (reduced_frame_thread): the
/// body records (13 per body), kinetic and total energy, q (n), qd (n) and the actuator
/// forces (n).
SP_HD int robot_frame_size(int n, int floating) { return 13 * robot_n_bodies(n, floating) + 2 + 3 * n; }

/// Device memory per instance [bytes] of the GPU joint-space backend for a robot of n
/// joints in a precision of t bytes, with one model slot per instance when per_instance:
/// the state Y (robot_state_size), the inputs U (n doubles), the frame
/// (robot_frame_size) and the link-frame output (13 robot_frame_count), status, reason
/// and their staging (4 bytes), status step, offset and step staging (3 x 8), an instance
/// id (4), the row staging (max(state size, n) doubles); per slot the n links, their CGA
/// form and joint parameters, the base, gravity, the runaway bound, the initial state and
/// the n_contacts contact pairs (reduced/robot_contact_pair.hpp).
inline std::size_t robot_batch_bytes_per_instance(int n, int floating, bool per_instance, std::size_t t,
                                                  int n_contacts = 0) {
  const std::size_t ny = static_cast<std::size_t>(robot_state_size(n, floating));
  const std::size_t nn = static_cast<std::size_t>(n);
  const std::size_t row = ny > nn ? ny : nn;
  std::size_t bytes = t * (ny + static_cast<std::size_t>(robot_frame_size(n, floating)) +
                           13 * static_cast<std::size_t>(robot_frame_count(n, floating))) +
                      8 * nn + 4 + 3 * 8 + 4 + 8 * row;
  if (per_instance) {
    // The slot sizes are the same in both precisions' layouts up to T: count them in T.
    const std::size_t nc = static_cast<std::size_t>(n_contacts);
    const std::size_t slot_t = t == 4 ? nn * (sizeof(ReducedLinkParams<float>) + sizeof(cga::CgaLink<float>) +
                                              sizeof(RobotJointParams<float>)) +
                                            sizeof(RobotBaseParams<float>) + sizeof(Vec3<float>) + 4 +
                                            nc * sizeof(RobotContactPair<float>)
                                      : nn * (sizeof(ReducedLinkParams<double>) + sizeof(cga::CgaLink<double>) +
                                              sizeof(RobotJointParams<double>)) +
                                            sizeof(RobotBaseParams<double>) + sizeof(Vec3<double>) + 8 +
                                            nc * sizeof(RobotContactPair<double>);
    bytes += slot_t + t * ny;
  }
  return bytes;
}

}  // namespace simphant::batch
