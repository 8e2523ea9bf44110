#pragma once
// ReducedModel: a kinematic tree in joint coordinates on a fixed or a floating base, the model of the
// reduced-coordinate solvers (spatial-vector RNEA / CRBA / ABA, Featherstone, Rigid
// Body Dynamics Algorithms ch. 5-7, and their conformal-geometric-algebra form, Löw &
// Calinon, "Recursive Forward Dynamics of Serial Kinematic Chains using Conformal
// Geometric Algebra"; docs/cga-dynamics.md). Built from a URDF
// (urdf/urdf_import.hpp): links joined by fixed joints are merged, so every link here
// has exactly one moving joint (revolute or prismatic; URDF "continuous" is revolute
// without limits).
//
// Frames: every link has a frame L (the URDF link frame after merging). The root
// link of the URDF is the base, not a ReducedLink: fixed, it is the world W; floating
// (ReducedModel::floating), a free body B whose pose and twist are state (docs/robots.md,
// "Floating base"). Link k's
// joint frame sits in its parent's frame at (R_parent_joint, p_parent_joint)
// (URDF joint <origin>, rpy as R = Rz(yaw) Ry(pitch) Rx(roll)); the joint moves about /
// along `axis` (unit, joint frame); the link frame coincides with the joint frame at
// q = 0, so X_parent_link(q) = (R_parent_joint * Rot(axis, q), p_parent_joint) for a
// revolute joint and (R_parent_joint, p_parent_joint + R_parent_joint axis q) for a
// prismatic one. Units SI.
#include <string>
#include <utility>
#include <vector>

#include "simphant/contact/shapes.hpp"
#include "simphant/math/small.hpp"

namespace simphant {

enum class ReducedJointType : int { Revolute = 0, Prismatic = 1 };

/// One moving link and the joint that attaches it to its parent.
struct ReducedLink {
  std::string name;        ///< URDF link name (the child of `joint_name`)
  std::string joint_name;  ///< URDF joint name
  int parent = -1;         ///< index of the parent link in ReducedModel::links; -1: the base
  ReducedJointType type = ReducedJointType::Revolute;
  Mat3d R_parent_joint{};  ///< joint frame orientation in the parent frame
  Vec3d p_parent_joint{};  ///< joint frame origin in the parent frame [m]
  Vec3d axis{0, 0, 1};     ///< unit joint axis, joint (= link) frame
  double mass = 0;         ///< [kg] > 0 (merged fixed children included); 0 for a massless link with mass below it (urdf_import.hpp)
  Vec3d com{};             ///< centre of mass in the link frame [m]
  Mat3d inertia_com{};     ///< inertia about the CoM, link-frame axes [kg m^2], SPD
  bool continuous = false; ///< URDF "continuous": no position limits
  double lower = 0, upper = 0;       ///< position limits [rad or m] (docs/robots.md, "Joint limits")
  /// The limit law's time constant [s] and damping ratio: MJCF <joint solreflimit>
  /// (timeconst, dampratio), MuJoCo's default (0.02, 1); 0 (URDF): the step's gains
  /// (docs/robots.md, "Limit gains").
  double limit_time_constant = 0, limit_damping_ratio = 1;
  double effort = 0, velocity = 0;   ///< effort [N m or N] and velocity limits; <= 0: none
  double damping = 0;      ///< URDF <dynamics damping>: viscous [N m s/rad | N s/m], >= 0
  double friction = 0;     ///< URDF <dynamics friction>: Coulomb [N m | N], >= 0
  /// A joint spring: torque -stiffness (q - spring_q) [N m | N] (MJCF <joint stiffness
  /// springref>: spring_q = springref - ref in SimPhant's q). URDF has none (0).
  double stiffness = 0;    ///< [N m/rad | N/m], >= 0
  double spring_q = 0;     ///< [rad | m]
  /// Armature: a rotor inertia a >= 0 on the joint coordinate [kg m^2 (revolute) | kg
  /// (prismatic)], MuJoCo's dof_armature: M_kk += a and kinetic energy + 1/2 a qd^2; the
  /// joint-space solvers only (docs/robots.md, "Armature"). URDF has none (0).
  double armature = 0;
  int mimic = -1;          ///< URDF <mimic>: index of the link whose coordinate this one follows; -1: none
  double mimic_multiplier = 1;  ///< q_this = multiplier q_mimic + offset
  double mimic_offset = 0;      ///< [rad | m]
};

/// The floating base (ReducedModel::floating): the URDF root link with every link fixed
/// to it merged in, a free rigid body whose frame B is the root link's frame.
struct ReducedBase {
  std::string link;        ///< URDF root link (or the child of the URDF `floating` joint)
  double mass = 0;         ///< [kg] > 0
  Vec3d com{};             ///< centre of mass in B [m]
  Mat3d inertia_com{};     ///< inertia about the CoM, B axes [kg m^2], SPD
};

/// Where a URDF link's frame L lies on the model (fixed joints merge links into their
/// parent's body): in the frame of `owner` (a link index into ReducedModel::links; -1
/// the base, B of a floating base or W of a fixed one; -2 a link welded to W on the world
/// side of a `floating` joint), x_owner = R x_L + p.
struct LinkFrame {
  std::string link;   ///< URDF link name
  int owner = -1;
  Mat3d R{};          ///< rotation L -> owner frame
  Vec3d p{};          ///< origin of L in the owner frame [m]
};

/// A collision shape of the robot file: a URDF <collision> element or an MJCF <geom>,
/// placed on the link that owns it after fixed-joint (URDF) or weld (MJCF) merging
/// (LinkFrame's owner convention): x_owner = R x_S + p, S the geometry's frame (URDF: the
/// box centred, the cylinder's axis z, centred; a mesh's own frame; MJCF: the geom's
/// frame, capsule and cylinder axis z). Sizes as Shape (contact/shapes.hpp, MuJoCo's geom
/// sizes): sphere {r}, capsule and cylinder {r, half-length}, box half edges; as read,
/// not checked (robot.urdf_collision checks them when the scene uses them). A URDF mesh
/// has `mesh` (its filename as written) and `scale`, and no size: robot.urdf_collision
/// bounds its vertices by a box (urdf/urdf_mesh.hpp).
struct LinkCollision {
  std::string link;  ///< URDF link / MJCF body that declares it
  int index = 0;     ///< its position among that link's <collision> elements (MJCF: <geom>s)
  int owner = -1;
  ShapeKind kind = ShapeKind::Sphere;
  double size[3] = {0, 0, 0};
  Mat3d R{};
  Vec3d p{};
  std::string mesh;          ///< a mesh's filename, "" for a primitive
  Vec3d scale{1, 1, 1};      ///< a mesh's scale per axis of S
  /// MuJoCo's contact filter bits (contact.md, "Pairs"): a URDF shape is contype 1,
  /// conaffinity 0 (it touches the ground, not the robot's other shapes); an MJCF geom
  /// has its own (MuJoCo's default 1, 1).
  long long contype = 1, conaffinity = 0;
  std::string label;    ///< short name in pair names: "link[urdf k]", "body[geom name]"
  std::string element;  ///< the element in messages: "link 'x' <collision> k", an MJCF element path
};

struct ReducedModel {
  std::string name;                ///< URDF robot name
  std::string base_link;           ///< name of the URDF root link (fixed to W)
  std::vector<ReducedLink> links;  ///< topological order: links[k].parent < k
  Vec3d gravity{0, 0, -9.81};      ///< [m/s^2], W (= the base frame of a fixed base)
  /// Floating base: links with parent -1 hang from `base`, a free body (state: its pose
  /// and twist, docs/robots.md "Floating base"); false: they hang from W (fixed base).
  bool floating = false;
  ReducedBase base;                ///< valid when floating
  /// Every URDF link's (MJCF body's) frame on its owner, in the import's walk order.
  /// Read by link_frame.
  std::vector<LinkFrame> link_frames;
  /// The file's collision shapes, in walk order: the URDF's <collision> elements (sphere,
  /// box, cylinder, mesh); the MJCF geoms of type sphere, capsule, box and cylinder whose
  /// contype or conaffinity is nonzero.
  std::vector<LinkCollision> link_collisions;
  /// Owner pairs (LinkFrame's convention, lower first) whose shapes never touch beside the
  /// links of one joint: MJCF, a body and its parent body where joints lie between them
  /// on more than one link (MuJoCo's parent filter, <option><flag filterparent>).
  std::vector<std::pair<int, int>> collision_exclude;
  /// Pairs of links (MJCF bodies, named as in LinkCollision::link and LinkFrame::link)
  /// whose own shapes never touch each other: MJCF <contact><exclude body1 body2>, per body
  /// as in MuJoCo (a welded body's shapes apart from those of the body it is welded to);
  /// "world" stands for the scene's ground.
  std::vector<std::pair<std::string, std::string>> collision_exclude_links;
  /// One line per URDF element (or attribute) that was read and is not used by any
  /// solver (e.g. "<safety_controller> of joint 'j1'"), for the loader to log once.
  std::vector<std::string> warnings;

  /// Moving-joint coordinates: one per link, q[k] belongs to links[k]. A floating base's
  /// 7 pose / 6 twist coordinates are not counted (robot_state_size, robot_dynamics.hpp).
  int nq() const { return static_cast<int>(links.size()); }
  int nv() const { return nq(); }
  /// The frame of a link by name: from link_frames, else a moving link's own frame or the
  /// base's (identity). Returns false if no link has that name.
  bool link_frame(const std::string& link_name, LinkFrame& out) const {
    for (const LinkFrame& f : link_frames)
      if (f.link == link_name) {
        out = f;
        return true;
      }
    const int k = link_index(link_name);
    if (k < 0 && link_name != base_link && !(floating && link_name == base.link)) return false;
    out = LinkFrame{link_name, k, identity3<double>(), zero3<double>()};
    return true;
  }
  /// Index of a link by name, -1 if unknown.
  int link_index(const std::string& link_name) const {
    for (int k = 0; k < nq(); ++k)
      if (links[k].name == link_name) return k;
    return -1;
  }
};

}  // namespace simphant
