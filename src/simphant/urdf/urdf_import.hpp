#pragma once
// URDF import: a URDF robot description -> ReducedModel (reduced/reduced_model.hpp), a
// fixed-base kinematic tree in joint coordinates. The XML is read by urdfdom
// (urdf::parseURDF); nothing of urdfdom appears in this header.
//
// What is read (URDF spec, wiki.ros.org/urdf/XML):
//  - <link><inertial>: mass [kg], <origin xyz rpy> (CoM and inertia axes in the link
//    frame; R = Rz(yaw) Ry(pitch) Rx(roll)), <inertia ixx ixy ixz iyy iyz izz> about the
//    CoM in the inertial axes [kg m^2]. Stored in the link frame: I_L = R I R^T, com = xyz.
//  - <joint> of type revolute, continuous (a revolute joint without position limits),
//    prismatic or fixed, with <origin> (joint frame in the parent link frame), <axis>
//    (any direction, normalised; default x as in the spec) and <limit> (lower, upper,
//    effort, velocity: stored in ReducedLink, NOT enforced by any solver). <dynamics>,
//    <mimic>, <safety_controller>, <calibration>, visuals, collisions and sensors are
//    ignored (a mimic joint becomes an independent coordinate).
//
// Fixed joints are merged: the child link's mass, CoM and inertia are added to its parent
// (parallel-axis theorem, parent frame) and the child's children are re-parented with the
// composed origin. The URDF root link and every link fixed to it (directly or through
// fixed joints) form the base, which is the world frame W, and are dropped. Output links
// are in depth-first order from the root (parent index < own index; siblings ordered by
// joint name, as urdfdom stores them).
//
// Mass rules: the child link of a moving joint needs an <inertial> with mass > 0 and an
// inertia that is positive definite and satisfies the triangle inequality of principal
// moments (relative tolerance 1e-9). A link merged into a moving link by fixed joints may
// have no <inertial>, or mass 0 with a zero inertia (a massless frame such as a tool
// flange); with mass > 0 it is checked like a moving link. Links merged into the base
// are not checked.
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
/// Gravity is set to (0, 0, -9.81) m/s^2 (URDF has none).
/// Errors (UrdfError, naming the element): a NUL byte, elements nested deeper than
/// kMaxXmlDepth, more than kMaxUrdfLinks links or kMaxUrdfJoints joints (checked before
/// any tree is built); XML that urdfdom rejects (malformed XML, duplicate names, a joint
/// naming a missing link, more than one root, a revolute or prismatic joint without
/// <limit>, ...: urdfdom's message is wrapped); a joint type other than revolute /
/// continuous / prismatic / fixed (floating, planar); a zero or non-finite axis; a
/// kinematic loop (a link with two parent joints, or a cycle of joints: refused before
/// urdfdom links the tree, which would leak it); a mass or inertia that breaks the mass
/// rules above. Every walk over the tree is a loop (no recursion), so a deep chain within
/// the limits costs no stack.
/// Thread-safety: urdfdom reports errors through console_bridge's global output handler,
/// which parse_urdf replaces while it parses; calls are serialised by a mutex.
ReducedModel parse_urdf(const std::string& xml_text, const std::string& source_name);

/// Welds a point mass `mass` [kg] at `com_L` (link frame) [m] onto `link`: its mass, CoM
/// and inertia about the new CoM change by the parallel-axis theorem (the arithmetic that
/// merges fixed URDF children). Precondition: link.mass + mass > 0.
void add_point_mass(ReducedLink& link, double mass, const Vec3d& com_L);

}  // namespace simphant
