#pragma once
// The unit quaternions of a backend's state and the branch their tangents are on: q and
// -q are one rotation, and an assembly or a conversion from a rotation matrix may return
// either (a body turned by about pi has w near 0, whose sign a small change flips). The
// sensitivities' seeds (sim/sensitivity_seeds.hpp) difference two perturbed states with
// q- turned to q+'s branch and keep q+ (SensitivitySeeds::quaternion_ref); a start turns
// each quaternion's tangents to the branch of the state it starts from (the tangent of -q
// is -dq).
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// The offsets of the unit quaternions (4 entries each, w x y z) in a state of `m` in the
/// backend's layout: each DAE body's p (7 k + 3), or a joint-space robot's floating base
/// quat_B (3); none for a fixed-base robot in joint coordinates.
std::vector<int> state_quaternion_offsets(const Model& m);

/// +1 or -1: the sign of q . ref (4 entries each): -1 where q is on the other branch.
inline double quaternion_sign(const double* q, const double* ref) {
  return q[0] * ref[0] + q[1] * ref[1] + q[2] * ref[2] + q[3] * ref[3] < 0 ? -1.0 : 1.0;
}

}  // namespace simphant
