#pragma once
// Link frames of a robot model (Model::robot; docs/robots.md, "Link frames"): the pose and
// twist of chosen links (e.g. the end effector) at the link frame's origin, from the body
// states every backend reads (Backend::read_states). The GPU joint-space backend computes
// the same records on the device (kernels/reduced_batch.hpp: robot_link_frame_record);
// the other backends go through this conversion.
//
// Frame indices: 0 .. n-1 the moving links in ReducedModel::links order, n the floating
// base's frame B (floating models only). Body of frame f: f + 1 with a floating base
// (body 0 is the base), f otherwise; the base frame is body 0.
#include <string>
#include <vector>

#include "simphant/model/model.hpp"

namespace simphant {

/// Frames a robot model offers: n (+ 1 with a floating base); 0 for a model without a robot.
int link_frame_count(const Model& model);

/// The tree of a robot model's link frames, in frame order: names[f] the URDF link of
/// frame f, parents[f] the frame of its parent link, or -1 for a link on the fixed base
/// (W) and for the floating base's own frame; floating: the last frame is the floating
/// base (a link on it has that frame as its parent). Empty for a model without a robot.
struct LinkTree {
  std::vector<std::string> names;
  std::vector<int> parents;
  bool floating = false;
};
LinkTree link_tree(const Model& model);

/// The frame index of a URDF link name: a moving link (ReducedModel::links), or the base
/// link of a floating robot (ReducedBase::link). Throws std::invalid_argument
/// ("link_frames: unknown link '<name>' (links: ...)") for another name, naming the
/// links it knows; a link merged into its parent by URDF fixed joints is named by that parent.
int link_frame_index(const Model& model, const std::string& name);

/// Records of frames[0 .. count) of one instance from its body states (n_bodies, 13:
/// CoM r, p (body -> W), CoM v, omega_B; Backend::read_states) into out (count, 13):
/// origin o = r - R com [m] (W), the orientation (p; for a link with w >= 0), the
/// origin's velocity v - (R omega_B) x (R com) [m/s] (W) and omega_B [rad/s] (frame axes).
/// com: the link's CoM in its frame (ReducedLink::com, ReducedBase::com). Throws
/// std::invalid_argument for a frame out of range.
void link_frames_from_states(const Model& model, const double* states, const int* frames, int count, double* out);

}  // namespace simphant
