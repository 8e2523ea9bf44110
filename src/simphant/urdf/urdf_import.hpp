#pragma once
// URDF import: a URDF robot description -> ReducedModel (reduced/reduced_model.hpp), a
// kinematic tree in joint coordinates on a fixed or floating base. The XML is read by
// urdfdom (urdf::parseURDF); nothing of urdfdom appears in this header. docs/robots.md,
// "URDF: what is read", is the user-facing form of these rules.
//
// What is read (URDF spec, wiki.ros.org/urdf/XML):
//  - <link><inertial>: mass [kg], <origin xyz rpy> (CoM and inertia axes in the link
//    frame; R = Rz(yaw) Ry(pitch) Rx(roll)), <inertia ixx ixy ixz iyy iyz izz> about the
//    CoM in the inertial axes [kg m^2]. Stored in the link frame: I_L = R I R^T, com = xyz.
//  - <joint> of type revolute, continuous (a revolute joint without position limits),
//    prismatic, fixed or floating, with <origin> (joint frame in the parent link frame),
//    <axis> (any direction, normalised; default x as in the spec), <limit> (lower <=
//    upper, finite; effort, velocity: ReducedLink's fields, enforced by the joint force
//    law of reduced/joint_forces.hpp as the scene configures it), <dynamics damping
//    friction> (finite, >= 0: ReducedLink::damping, friction) and <mimic joint multiplier
//    offset> (ReducedLink::mimic, resolved to a leader that mimics nothing; a chain of
//    mimics is composed; a mimic of itself, of an unknown, fixed or floating joint, or a
//    cycle of mimics is an error).
//  - Everything else is read past and listed in ReducedModel::warnings, one line per
//    finding (equal findings on several joints merged): <safety_controller>,
//    <calibration>, <transmission>, <gazebo>, attributes outside the spec (Panda's
//    <dynamics K D mu_coulomb mu_viscous>), <axis>/<limit>/<dynamics>/<mimic> of a fixed
//    or floating joint, lower/upper of a continuous joint, the <origin> of a floating
//    joint, inertials welded to the world side of a floating joint, unknown elements, and
//    one count of <visual>/<collision>/<material> elements. See unused_urdf_elements.
//
// Fixed joints are merged: the child link's mass, CoM and inertia are added to its parent
// (parallel-axis theorem, parent frame) and the child's children are re-parented with the
// composed origin. Output links are in depth-first order from the root (parent index < own
// index; siblings ordered by joint name, as urdfdom stores them).
//
// The base. Without a `floating` joint the URDF root link and every link fixed to it form
// the base, fixed to W (base frame = W): ReducedModel::floating = false, and
// ReducedModel::base holds their combined mass properties (mass 0 when they have none, or
// when an inertial among them is bad: a warning says which), used only if
// make_floating_base turns it into a free body. With one `floating` joint, which must
// join the root link (or a link fixed to it) to its child, the child and every link
// fixed to it form the floating base B (frame: the child's link frame); the root side is
// welded to W and dropped, and may carry no moving joint. At most one floating joint.
//
// Mass rules: every <inertial> of a moving link or a floating base (merged links
// included) is either massless (no <inertial>, or mass 0 with a zero inertia) or has
// mass > 0 and an inertia that is positive definite and satisfies the triangle
// inequality of principal moments (relative tolerance 1e-9); so is the merged sum. A
// moving link whose merged mass is 0 (a massless intermediate link, e.g. between two
// revolutes forming a 2-axis joint) is accepted when some link below it has mass: ABA
// and CGA need only a positive articulated inertia along each joint's motion; the
// maximal-coordinate DAE needs mass on every body and refuses it (require_dae_masses,
// maximal_from_urdf.hpp). Degenerate geometry that leaves a joint without inertia (a
// massless link whose only massive child turns about the same axis) is not detected here.
// A floating base needs mass > 0. Links merged into a fixed base are not checked.
#include <stdexcept>
#include <string>

#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// Limits on a URDF document, checked before it is parsed into a tree (docs/reliability.md,
/// "URDF"): links and joints (fixed joints included), element nesting depth. A URDF file
/// is at most kMaxInputFileBytes (core/input_file.hpp, 64 MiB).
constexpr int kMaxUrdfLinks = 4096;
constexpr int kMaxUrdfJoints = 4096;
constexpr int kMaxXmlDepth = 256;

/// A URDF that cannot be imported. what() is "URDF <source>: <element>: <reason>", the
/// element being e.g. "link 'panda_link3': inertial" or "joint 'j2'"; errors that urdfdom
/// itself reports carry urdfdom's message, which names the joint or link.
class UrdfError : public std::runtime_error {
 public:
  explicit UrdfError(const std::string& message) : std::runtime_error(message) {}
};

/// Reads and imports the URDF file at `path` (see parse_urdf).
/// Errors: UrdfError("URDF <path>: <reason>") if the file cannot be read: missing, a
/// folder, not a regular file (a device, FIFO or socket), over kMaxInputFileBytes
/// (core/input_file.hpp); and every error of parse_urdf.
ReducedModel load_urdf(const std::string& path);

/// Imports the URDF document `xml_text`; `source_name` (a file name) only labels errors.
/// Gravity is set to (0, 0, -9.81) m/s^2 (URDF has none); `warnings` lists what was read
/// and is not used (above).
/// Errors (UrdfError, naming the element): a NUL byte, elements nested deeper than
/// kMaxXmlDepth, more than kMaxUrdfLinks links or kMaxUrdfJoints joints (checked before
/// any tree is built); XML that urdfdom rejects (malformed XML, duplicate names, a joint
/// naming a missing link, more than one root, a revolute or prismatic joint without
/// <limit>, ...: urdfdom's message is wrapped); a `planar` joint; a zero or non-finite
/// axis; limits that are not finite or lower > upper; a negative or non-finite damping or
/// friction; a bad <mimic> (above); two floating joints, a floating joint not at the
/// root, a moving joint on the world side of a floating joint; a kinematic loop (a link
/// with two parent joints, or a cycle of joints: refused before urdfdom links the tree,
/// which would leak it); a mass or inertia that breaks the mass rules above. Every walk over the tree is a loop (no recursion), so a deep chain within
/// the limits costs no stack.
/// Thread-safety: urdfdom reports errors through console_bridge's global output handler,
/// which parse_urdf replaces while it parses; calls are serialised by a mutex.
ReducedModel parse_urdf(const std::string& xml_text, const std::string& source_name);

/// Makes the base of `rm` a free body (ReducedModel::floating = true): the URDF root link
/// and the links fixed to it, with the mass properties the import stored in rm.base, the
/// way Pinocchio's JointModelFreeFlyer root makes a fixed-base URDF floating. Links with
/// parent -1 then hang from B = the root link's frame. No-op if rm.floating already.
/// Errors: UrdfError naming the base link if rm.base has no usable mass (mass 0, a bad
/// inertial among the base links: the import's warnings say which) or its inertia is not
/// positive definite / breaks the triangle inequality.
void make_floating_base(ReducedModel& rm);

/// Fixes the base of `rm` to W (ReducedModel::floating = false): the base frame B
/// becomes W, so a URDF `floating` joint's child sits at the world origin; rm.base is kept
/// (unused). No-op if the base is fixed already.
void make_fixed_base(ReducedModel& rm);

/// Welds a point mass `mass` [kg] at `com_L` (link frame) [m] onto `link`: its mass, CoM
/// and inertia about the new CoM change by the parallel-axis theorem (the arithmetic that
/// merges fixed URDF children). Precondition: link.mass + mass > 0.
void add_point_mass(ReducedLink& link, double mass, const Vec3d& com_L);

}  // namespace simphant
