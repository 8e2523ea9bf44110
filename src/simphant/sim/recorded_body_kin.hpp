#pragma once
// A body's kinematics from a recorded frame (Backend::read_states: 13 numbers per body,
// r, p (w x y z), v, omega_B), for the quantities the host computes from every
// backend's frames (sim/joint_load_frames.hpp, sim/contact_frames.hpp).
#include "simphant/joints/joint_math.hpp"

namespace simphant {

/// Body k of a frame's records `rec` (B x 13); the ground (k < 0) is ground_kin.
inline BodyKin<double> recorded_body_kin(const double* rec, int k) {
  if (k < 0) return ground_kin<double>();
  const double* b = rec + 13 * k;
  return make_body_kin(Vec3d{b[0], b[1], b[2]}, normalized(Quatd{b[3], b[4], b[5], b[6]}), Vec3d{b[7], b[8], b[9]},
                       Vec3d{b[10], b[11], b[12]});
}

}  // namespace simphant
