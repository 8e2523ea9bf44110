#pragma once
// RobotContactPair: one contact pair of a joint-space robot instance as the per-thread
// functions read it (reduced/robot_contact.hpp, through RobotView), plain data for host or
// device arrays. Header-only; T = double or float.
#include "simphant/contact/contact_law.hpp"
#include "simphant/contact/shapes.hpp"

namespace simphant {

/// Owners of a robot contact shape besides a link index k >= 0: the floating base B and
/// the world W (the ground; shapes fixed to a fixed base are refused by the scene).
constexpr int kRobotBaseOwner = -1;
constexpr int kRobotWorldOwner = -2;

/// One contact pair of a robot instance (plain data, host or device arrays): shape_a on
/// owner_a against shape_b on owner_b, shape_a being contact_pair_wrench's A. A shape is
/// placed in its owner's body frame, which sits at the owner's CoM with the link frame's
/// axes (the maximal model's body frame B, urdf/maximal_from_urdf.hpp); a world shape in W.
template <class T>
struct RobotContactPair {
  int owner_a, owner_b;         ///< link index, kRobotBaseOwner or kRobotWorldOwner
  Shape<T> shape_a, shape_b;
  ContactPairParams<T> params;  ///< the pair's law, friction and margin
};

}  // namespace simphant
