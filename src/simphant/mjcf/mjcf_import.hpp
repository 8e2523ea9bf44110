#pragma once
// MJCF import: a MuJoCo XML model -> ReducedModel
// (reduced/reduced_model.hpp), the same joint-space tree the URDF importer builds
// (urdf/urdf_import.hpp), so aba / cga and, through maximal_model_from_urdf, the DAE run
// it. The XML is read with tinyxml2; the semantics follow MuJoCo's XML reference
// (mujoco.readthedocs.io, "XML Reference") and its compiler; no MuJoCo code is used.
// docs/mjcf.md is the user-facing form of these rules.
//
// What is read:
//  - <compiler angle (degree | radian; default degree) eulerseq coordinate (local only)
//    inertiafromgeom (true | false | auto) inertiagrouprange (integers) autolimits>.
//  - <option gravity timestep integrator> -> ReducedModel::gravity, MjcfOptions;
//    <option><flag>: refused where it changes what SimPhant computes for the model
//    (gravity, limit, damper / passive, frictionloss, constraint disabled while the model
//    has what they remove; the error names the scene key that does the same), a warning
//    naming the flag otherwise.
//  - <default> classes (nested; `class`, body `childclass`) for joint, geom, tendon and the
//    actuators (motor / position / velocity / general share one actuator default, as in
//    MuJoCo);
//    several top-level <default>s continue class "main" in document order, as in MuJoCo.
//  - <worldbody>: bodies (pos, quat w x y z, euler, axisangle, xyaxes, zaxis), <inertial>
//    (pos, orientation, mass, diaginertia | fullinertia), geoms for the inertia
//    (sphere, capsule, cylinder, box, ellipsoid; size, fromto, pos, orientation,
//    density (1000), mass) as MuJoCo's compiler computes it, hinge / slide joints (pos,
//    axis, range, limited, damping, armature, frictionloss, ref, stiffness, springref,
//    solreflimit: the limit law's time constant and damping ratio),
//    <compiler settotalmass>, <freejoint> / type free
//    on a child of the worldbody (floating base).
//  - Contact shapes (ReducedModel::link_collisions, used by the scene's
//    robot.urdf_collision): sphere, capsule, box and cylinder geoms whose contype or
//    conaffinity is nonzero, on their body's owner, with those bits; every body's frame
//    (ReducedModel::link_frames: robot.collision names bodies); MuJoCo's parent filter and
//    <contact><exclude> as ReducedModel::collision_exclude and collision_exclude_links.
//    Other geom types that could touch, <contact><pair> and the geoms' friction / solver
//    parameters are warned of.
//  - <tendon><fixed> that cannot act (no stiffness, damping, frictionloss, armature or
//    limits; no actuator on it): warned of and imported as nothing (read_tendons in
//    mjcf_import.cpp), since nothing in MuJoCo depends on its length.
//  - Each MuJoCo body's own mass properties on the link that carries it
//    (MjcfModel::body_masses).
//  - <actuator> motor / position / velocity on a joint, and <general> where it equals one
//    of them (read_general in mjcf_import.cpp): MjcfActuator (applied by the scene's
//    robot.actuators "mjcf", scene/mjcf_actuators.cpp).
//
// Tree: a body with joints j1..jn becomes n links, joint frame of link i at the joint's
// point (its pos in the body frame), axes the body's; links 1..n-1 are massless, link n
// (named as the body) carries the body's mass. A body without joints is welded to its
// parent (mass merged, parallel-axis theorem). Intermediate links are named
// "<body>/<joint>"; an unnamed body is "body<id>", an unnamed joint "joint<id>" (MuJoCo's
// ids). Links are in document (depth-first) order, so the joint coordinates are in
// MuJoCo's qpos / qvel order.
//
// MuJoCo's joint `ref`: the body sits at its XML pose when qpos = ref; SimPhant's q = 0
// is that pose, so q = qpos - ref (MjcfModel::qpos_ref, one per link; 0 for most files),
// and the limits are range - ref (MuJoCo's range bounds qpos).
//
// Names are unique per kind (body, joint, actuator; "world" is the world body's), as
// MuJoCo requires; SimPhant's names of unnamed ones ("body<id>", "joint<id>",
// "actuator<id>") must not be given to another element of the kind either.
//
// Refused (MjcfError naming the element and attribute): repeated names, attributes on
// <worldbody>, integer attributes (geom group, inertiagrouprange) that are not integers
// or overflow int, geoms whose derived volume / mass / inertia overflow, the flags above,
// coordinate="global", ball joints,
// free joints not on a child of the worldbody or with other joints on the body, a nonzero
// springdamper, a negative stiffness, a moving joint on the world side of a
// free joint, mesh / hfield geoms that would contribute mass, active equality
// constraints, spatial tendons and fixed ones that act, actuators other than motor / position / velocity
// (or a <general> equal to one) or not on a hinge / slide joint, unknown joints or
// classes, malformed numbers, <include>, <frame>, <replicate>, mocap bodies, gravcomp, the compiler's mass fixes (boundmass,
// boundinertia, balanceinertia; settotalmass is applied as MuJoCo does), a medium (option density / viscosity), and
// the URDF importer's mass rules (urdf_import.hpp): each moving rigid body with mass > 0
// has a positive definite inertia satisfying the triangle inequality, a massless link
// needs mass below it, a floating base needs mass.
// Warned (ReducedModel::warnings, equal findings merged): everything else read past:
// contact and visual attributes, sites, cameras, lights, sensors, keyframes, assets,
// contact pairs, frictionloss (SimPhant's smoothed Coulomb law), nonzero ref, unknown
// attributes and elements.
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "simphant/math/small.hpp"
#include "simphant/reduced/reduced_model.hpp"

namespace simphant {

/// An MJCF document that cannot be imported. what() is "MJCF <source>: <element>: <reason>",
/// the element a path such as "worldbody/body[cart]/joint[slider]" and, where one
/// attribute is at fault, "attribute 'stiffness'".
class MjcfError : public std::runtime_error {
 public:
  explicit MjcfError(const std::string& message) : std::runtime_error(message) {}
};

/// <option> values the scene reads (timestep: the default solver.dt; the two flags:
/// robot.actuators "mjcf", scene/mjcf_actuators.cpp); integrator is recorded only.
struct MjcfOptions {
  double timestep = 0.002;           ///< [s], <option timestep>
  std::string integrator = "Euler";  ///< <option integrator>: Euler, RK4, implicit, implicitfast
  Vec3d gravity{0, 0, -9.81};        ///< [m/s^2], also in ReducedModel::gravity
  bool actuation = true;             ///< false: <flag actuation="disable"> (no actuator acts)
  bool clampctrl = true;             ///< false: <flag clampctrl="disable"> (ctrl not clamped to ctrlrange)
  /// false: <flag refsafe="disable">; true: a joint's solreflimit time constant is at least
  /// 2 timestep, as MuJoCo raises it (ReducedLink::limit_time_constant).
  bool refsafe = true;
};

enum class MjcfActuatorType : int { Motor = 0, Position = 1, Velocity = 2 };

/// One <actuator> element on a joint, as written (defaults applied); the scene applies it
/// with robot.actuators "mjcf" (scene/mjcf_actuators.cpp).
/// MuJoCo's actuator force f: motor gain ctrl; position kp ctrl - kp gear q - kv gear qdot;
/// velocity kv ctrl - kv gear qdot; clamped to forcerange when forcelimited; gear f is the
/// joint's generalised force (q is MuJoCo's qpos = SimPhant's q + ref).
struct MjcfActuator {
  std::string name;                  ///< name attribute ("actuator<id>" if none)
  MjcfActuatorType type = MjcfActuatorType::Motor;
  std::string joint;                 ///< joint name
  int link = -1;                     ///< ReducedModel::links index of that joint
  double gear = 1;                   ///< first gear component
  bool ctrllimited = false;
  double ctrl_lower = 0, ctrl_upper = 0;
  bool forcelimited = false;
  double force_lower = 0, force_upper = 0;
  double kp = 0, kv = 0;             ///< position: kp (default 1), kv (0); velocity: kv (default 1)
  double gain = 1;                   ///< motor: force = gain * ctrl (gainprm[0] of a <general> without bias; 1 for <motor>)
};

/// One MuJoCo body's own mass properties (MuJoCo's body_mass, body_ipos, body_inertia:
/// from its geoms or <inertial>, <compiler settotalmass> applied, the bodies welded to it
/// not included), placed on the rigid frame that carries the body: `owner`, the link it
/// moves with (a ReducedModel::links name, the floating base's link, or "world" for a
/// body welded to W). Read with that frame (Simulator.link_frames) for what MuJoCo
/// reports per body (cinert, xipos, cvel).
struct MjcfBodyMass {
  std::string name;     ///< the MuJoCo body's name (an unnamed one: "body<id>")
  std::string owner;
  double mass = 0;      ///< [kg]
  Vec3d com{0, 0, 0};   ///< [m], in the owner's frame
  Mat3d inertia_com{};  ///< about com, along the owner's axes [kg m^2]
};

/// What an MJCF file holds for SimPhant.
struct MjcfModel {
  /// Per MuJoCo body, in its id order from 1 (the world body, id 0, excluded); empty under
  /// <compiler fusestatic="true">, whose MuJoCo model fuses the bodies without joints into
  /// their parents.
  std::vector<MjcfBodyMass> body_masses;
  ReducedModel model;
  MjcfOptions options;
  std::vector<MjcfActuator> actuators;
  /// Per link (ReducedModel::links order): MuJoCo's joint ref [rad | m]; q = qpos - ref.
  std::vector<double> qpos_ref;
  /// Per link: <joint actuatorfrcrange> (lower, upper) [N m | N] where actuatorfrclimited,
  /// else (0, 0); MuJoCo clamps the joint's total actuator force to it (applied with the
  /// scene's robot.actuators "mjcf" as the joint's effort bound).
  std::vector<std::array<double, 2>> actuator_force_range;
  /// A floating base: the free body's XML pose in W (MuJoCo's qpos0 of the free joint).
  Vec3d free_position{0, 0, 0};
  Quatd free_orientation{1, 0, 0, 0};
};

/// Imports the MJCF document `xml`; `source` (a file name) only labels errors.
MjcfModel import_mjcf(const std::string& xml, const std::string& source);
/// Reads and imports an MJCF file (MjcfError if it cannot be read: missing, a folder, over
/// kMaxInputFileBytes).
MjcfModel load_mjcf(const std::string& path);

/// The ReducedModel alone.
ReducedModel import_mjcf_string(const std::string& xml, const std::string& source);
ReducedModel import_mjcf_file(const std::string& path);

}  // namespace simphant
