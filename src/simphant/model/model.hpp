#pragma once
// Model: the immutable, validated description of one multibody system (the Model/Data
// split, after MuJoCo's mjModel / Pinocchio's Model). Built by the scene compiler
// (scene/scene_compile.hpp) and shared read-only by every worker. Per-instance state
// and every intermediate live in Data (dynamics/data.hpp).
//
// Units SI; frames as docs/scene-format.md: body frame B at the CoM, world frame W, ground is
// body index -1 and has no coordinates.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "simphant/contact/contact_law.hpp"
#include "simphant/contact/shapes.hpp"
#include "simphant/formulas/joint_law.hpp"
#include "simphant/formulas/motion_law.hpp"
#include "simphant/formulas/refined_solve.hpp"
#include "simphant/joints/joint_coordinate.hpp"
#include "simphant/joints/joint_math.hpp"
#include "simphant/math/small.hpp"
#include "simphant/model/integrator.hpp"
#include "simphant/model/output_settings.hpp"

namespace simphant {

constexpr int kGround = -1;

struct RobotJointSpace;  // model/robot.hpp

/// One moving rigid body.
struct Body {
  std::string name;
  double mass = 0;      ///< [kg] > 0
  Mat3d inertia_B{};    ///< J about the CoM in B [kg m^2], symmetric positive definite
  Mat3d inertia_inv_B{};///< J^-1, computed once
  // Initial state (before assembly).
  Vec3d r0_W{};         ///< CoM position [m]
  Quatd p0{1, 0, 0, 0}; ///< orientation B -> W (w, x, y, z), unit
  Vec3d v0_W{};         ///< CoM velocity [m/s]
  Vec3d omega0_B{};     ///< angular velocity in B [rad/s]
};

/// Initial conditions of a joint in joint terms (scene "initial", docs/scene-format.md,
/// "Joints"): the angle [rad] about v_i and its rate [rad/s] (revolute, cylindrical), the
/// slide [m] along v_i and its velocity [m/s] (prismatic, cylindrical), measured as
/// joints/joint_coordinate.hpp. Assembly holds each given value exactly
/// (dynamics/assembly.hpp).
struct JointInitial {
  bool has_angle = false, has_rate = false, has_slide = false, has_velocity = false;
  double angle = 0, rate = 0, slide = 0, velocity = 0;
  bool any() const { return has_angle || has_rate || has_slide || has_velocity; }
};

/// One joint between body_i and body_j (either may be kGround).
struct Joint {
  std::string name;
  JointType type = JointType::Spherical;
  int body_i = kGround;
  int body_j = kGround;
  JointFrame<double> frame{};  ///< local frames on each body (ground: world)
  int row_offset = 0;          ///< first row of this joint in Phi
  JointInitial initial{};      ///< initial coordinates / rates given in joint terms
};

enum class ForceType : int {
  PointForce = 0,             ///< constant force at a body point
  Torque = 1,                 ///< constant torque
  SpringDamper = 2,           ///< translational spring-damper between two body points
  RotationalSpringDamper = 3, ///< about a revolute / cylindrical joint's axis
  Actuator = 4,               ///< per-instance input along a joint's free axis
  Contact = 5,                ///< compliant contact of a shape pair (docs/contact.md)
  JointStop = 6               ///< end stops on a joint's coordinate (docs/contact.md, "End stops")
};

enum class ActuatorKind : int { Torque = 0, Force = 1 };

/// A tabulated characteristic force(q) of a spring or damper (docs/scene-format.md,
/// "Tabulated characteristics"): the natural cubic spline through (x_k, y_k), continued
/// linearly with its end slope outside [x_0, x_{n-1}]. p = [x (n), y (n), m2 (n)], m2 the
/// spline's second derivatives (natural_spline_m2), computed at compile time per instance.
/// Empty (n = 0): the element uses its scalar coefficient.
struct CharacteristicTable {
  std::vector<double> p;
  int n() const { return static_cast<int>(p.size()) / 3; }
  bool empty() const { return p.empty(); }
};

/// One applied-force element. Only the fields of its type are meaningful.
struct ForceElement {
  std::string name;
  ForceType type = ForceType::PointForce;
  // PointForce / Torque
  int body = kGround;
  bool world_frame = true;  ///< the vector is given in W (else in B)
  Vec3d point_B{};          ///< application point, B, from the CoM [m]
  Vec3d vec{};              ///< force [N] or torque [N m]
  // SpringDamper: points in B of each body (ground: W)
  int body_i = kGround, body_j = kGround;
  Vec3d point_i{}, point_j{};
  double stiffness = 0;  ///< [N/m] or [N m/rad]
  double damping = 0;    ///< [N s/m] or [N m s/rad]
  double rest = 0;       ///< rest length [m] or rest angle [rad]
  /// SpringDamper / RotationalSpringDamper: force [N] (torque [N m]) against the deflection
  /// from rest [m] ([rad]); replaces `stiffness` when not empty.
  CharacteristicTable stiffness_table;
  /// Force [N] (torque [N m]) against the deflection rate [m/s] ([rad/s]); replaces
  /// `damping` when not empty.
  CharacteristicTable damping_table;
  // RotationalSpringDamper / Actuator / JointStop
  int joint = -1;
  /// Actuator: a torque or a force; JointStop: on the angle (Torque) or the slide (Force).
  ActuatorKind kind = ActuatorKind::Torque;
  double value = 0;      ///< actuator default input [N m] or [N]
  int input_index = -1;  ///< actuator: slot in the per-instance input vector
  /// PointForce / Torque / Actuator: index into Model::laws of the load's motion law s(t),
  /// or -1 (constant load). Point force and torque apply vec * s(t); an actuator applies
  /// its per-instance input + s(t) (docs/scene-format.md, "Time-varying loads").
  int law = -1;
  /// Actuator of a robot joint (docs/robots.md, docs/solver.md "Robot joint forces in the
  /// DAE"): when set, the joint receives the generalised force of formulas/joint_law.hpp
  /// (the servo / effort / velocity / damping / friction / limit law of its input u plus
  /// s(t)) instead of u itself; a mimic is a constraint row (Model::mimics), not part of the law.
  bool has_joint_law = false;
  JointLaw<double> joint_law = plain_joint_law<double>();
  // Contact (docs/contact.md, "Contact in the DAE"): shape_i on body_i (ground: placed in
  // W) against shape_j on body_j; shape A of contact_pair_wrench is shape_i. The law's
  // parameters are the pair's, combined from the two materials at compile time (Tsuji's
  // damping with the pair's effective mass).
  Shape<double> shape_i{}, shape_j{};
  ContactPairParams<double> contact{};
  /// Contact: the JSON pointer of the material key that sets the pair's stiffness (the
  /// softer material's), restitution (the lower), slip_speed and rolling_speed (the
  /// larger), in that order: what the step-size check names. JointStop: the stop's
  /// stiffness and restitution keys (/joints/<k>/limits/...).
  std::array<std::string, 4> contact_source{};
  /// JointStop (formulas/joint_stop.hpp): the range [lower, upper] of the coordinate [rad |
  /// m] (an infinite end has no stop); the law is contact.normal (Tsuji, n = 1).
  double lower = 0, upper = 0;
};

/// A motion law s(t) (formulas/motion_law.hpp; scene: docs/scene-format.md, "Motion
/// laws"): its type and flat parameter vector in the layout of motion_law.hpp (a table
/// holds its knots, values and the natural spline's second derivatives, 3 n). The
/// parameter count is fixed by the scene's structure, so it is the same in every instance.
struct MotionLaw {
  MotionLawType type = MotionLawType::ConstantSpeed;
  std::vector<double> params;
};

/// A rheonomic driver (docs/solver.md, "Rheonomic drivers"): the coordinate of one joint
/// prescribed by a motion law, one constraint row Phi = coord(q) - s(t) between the
/// joint's body_i and body_j, after every joint's rows.
struct Driver {
  std::string name;
  int joint = -1;                                    ///< index into Model::joints
  JointCoordinate coordinate = JointCoordinate::Angle;  ///< angle [rad] or slide [m]
  int law = -1;                                      ///< index into Model::laws
  int row_offset = 0;                                ///< its row in Phi
};

/// A URDF <mimic> in the DAE (docs/solver.md, "Mimic rows"): one constraint row
///   Phi = q_f - r q_l - o
/// between the coordinate q_f of joint `joint` (the follower, its body_i and body_j) and
/// q_l of joint `leader` (its body_i and body_j), after the drivers' rows. An angle is read
/// as q = q_ref + wrap(theta - q_ref) in (q_ref - pi, q_ref + pi] (the DAE's reading of
/// a robot joint's coordinate, q_ref its q0), so a multiplier that is not an integer is
/// exact while each joint stays within pi of its q0.
struct Mimic {
  std::string name;                                         ///< the follower joint's name
  int joint = -1;                                           ///< follower, index into Model::joints
  int leader = -1;                                          ///< leader, index into Model::joints
  JointCoordinate coordinate = JointCoordinate::Angle;         ///< the follower's: angle [rad] or slide [m]
  JointCoordinate leader_coordinate = JointCoordinate::Angle;  ///< the leader's
  double multiplier = 1;                                    ///< r (dimensionless for like coordinates)
  double offset = 0;                                        ///< o [rad | m], the follower's unit
  double q_ref = 0, leader_q_ref = 0;                       ///< the angles' wrap centres [rad] (slides: unused)
  int row_offset = 0;                                       ///< its row in Phi
};

/// One element of the constraint machinery (docs/solver.md, "Rheonomic drivers"): a
/// joint, or a driver as a one-row element between its joint's body_i and body_j.
struct ConstraintElement {
  int body_i, body_j;  ///< kGround for ground
  int rows;            ///< m_k: the joint type's rows, 1 for a driver or a mimic
  int row_offset;      ///< first row in Phi
  /// A mimic row's leader joint bodies (sides 2 and 3 of the element; kGround for every
  /// other element and for a ground side).
  int body_k = kGround, body_l = kGround;
  /// The body of side s = 0..3 (body_i, body_j, body_k, body_l).
  int side_body(int s) const { return s == 0 ? body_i : s == 1 ? body_j : s == 2 ? body_k : body_l; }
};


/// Solver settings (scene "solver" section).
/// Projection onto the constraint manifold after each step (docs/solver.md, Projection
/// onto the constraint manifold): none; the velocities onto Phi_q qdot = 0; or the
/// positions onto Phi = 0 (Newton) and then the velocities, each mass-orthogonally; or
/// auto: position_velocity in the fixed steps of an instance of a closed-loop mechanism
/// that come near a configuration where Phi_q loses rank, none elsewhere
/// (dynamics/auto_projection.hpp).
enum class Projection : int { None = 0, Velocity = 1, PositionVelocity = 2, Auto = 3 };

/// "none" | "velocity" | "position_velocity" | "auto" -> Projection; false for any other name.
bool parse_projection(const std::string& name, Projection& out);

/// The scene-format name of a Projection ("none", "velocity", "position_velocity", "auto").
const char* projection_name(Projection p);

/// What the run does with the redundant rows of Phi_q found at assembly (docs/solver.md,
/// "Redundant constraints"): keep them (the regularised solve picks the minimum-norm
/// multipliers) or remove them (their Jacobian row and gamma* set to zero for the run).
enum class RedundantRows : int { Keep = 0, Remove = 1 };

/// "keep" | "remove" -> RedundantRows; false for any other name.
bool parse_redundant_rows(const std::string& name, RedundantRows& out);

/// The scene-format name of a RedundantRows ("keep", "remove").
const char* redundant_rows_name(RedundantRows r);

struct SolverSettings {
  double dt = 1e-3;                ///< grid step [s]: the fixed integrators' step, the adaptive ones' output grid
  double t_end = 1.0;              ///< end time [s]
  double baumgarte_alpha = 10.0;   ///< [1/s]
  double baumgarte_beta = 10.0;    ///< [1/s]
  /// Relative Tikhonov eps: row R of the factorised Schur matrix gets E_R = eps C_RR
  /// (dimensionless; refined_solve.hpp, docs/solver.md "The refined regularised solve").
  double tikhonov_epsilon = 1e-10;
  /// The most iterative-refinement corrections after the first solve on the factor of
  /// C + E (>= 0); a solve stops once its error estimate is below refinement_tolerance
  /// (refined_solve.hpp). 0: the plain regularised solve, unchecked.
  int refinement_steps = kDefaultRefinementSteps;
  /// Redundant rows of Phi_q at the assembled start (dynamics/redundant_rows.hpp).
  RedundantRows redundant_rows = RedundantRows::Remove;
  int record_every = 1;            ///< record one frame every k steps
  double violation_bound = 1e-2;   ///< max |Phi| above which an instance is diverged
  int assembly_max_iterations = 50;
  double assembly_tolerance = 1e-10;  ///< max |Phi| accepted after assembly
  /// Kinetic energy [J] above which an instance is a runaway; 0: derived at load from the
  /// initial energy and the applied loads (dynamics/runaway_bound.hpp).
  double runaway_kinetic_energy = 0;
  /// Run a step size beyond RK4's stability limit for a mode of the model (dynamics/
  /// stability.hpp) instead of refusing it.
  bool allow_unstable = false;
  Projection projection = Projection::Auto;  ///< after each step (docs/solver.md; dynamics/auto_projection.hpp)
  /// auto: the smallest relative pivot (formulas/pivot_watch.hpp) below which a fixed step
  /// projects; set when the run is made (set_auto_projection), 0 (never) before.
  double auto_projection_pivot = 0;
  /// The integrator (model/integrator.hpp; docs/solver.md, "Integrators").
  Integrator integrator = Integrator::Rk4;
  /// Adaptive integrators: relative (> 0) and absolute (>= 0, [m, 1, m/s, rad/s]) error
  /// tolerances on the positions and velocities, quaternion components included.
  double rtol = 1e-6;
  double atol = 1e-9;
  /// Adaptive integrators: the smallest step [s] (0: the round-off floor 16 eps max(|t|, dt));
  /// asking for less stops the instance (status reason step_size_underflow).
  double min_step = 0;
  double max_step = 0;    ///< [s], adaptive integrators' largest step (0: no bound)
  double first_step = 0;  ///< [s], adaptive integrators' first step (0: Hairer's estimate)
  /// Fixed-step integrators: run the batch a second time at dt/2 and store the estimated
  /// global error of positions at the end (docs/solver.md, "Integrators").
  bool error_estimate = false;
};

/// J^-1 of a symmetric positive definite inertia J (made exactly symmetric), for
/// Body::inertia_inv_B.
Mat3d inertia_inverse(const Mat3d& J);

struct Model {
  std::string name;
  std::vector<Body> bodies;          ///< moving bodies; N = bodies.size()
  std::vector<Joint> joints;
  std::vector<ForceElement> forces;
  std::vector<MotionLaw> laws;       ///< motion laws of drivers and loads
  std::vector<Driver> drivers;       ///< rows after the joints' rows
  std::vector<Mimic> mimics;         ///< rows after the drivers' rows (robots in the DAE)
  Vec3d gravity{0, 0, 0};            ///< [m/s^2], W
  /// contact.impact_speed [m/s]: the approach speed the step-size check assumes for the
  /// contacts; 0: estimated from the initial state (dynamics/contact_stability.hpp).
  double contact_impact_speed = 0;
  SolverSettings solver;
  OutputSettings output;             ///< the scene's "output" section (model/output_settings.hpp)
  int n_rows = 0;                    ///< m, total constraint rows
  int n_inputs = 0;                  ///< number of actuators (per-instance inputs)
  /// Set when the scene has a "robot" section (docs/robots.md): the same robot in joint
  /// coordinates (model/robot.hpp); bodies / joints / forces above are its maximal form.
  std::shared_ptr<const RobotJointSpace> robot;
  /// Per constraint element, the rows removed as redundant (bit r: row r of the element;
  /// dynamics/redundant_rows.hpp): their Jacobian row, Phi_dot, gamma and gamma* are zero
  /// for the run, their Phi still measured (remove_rows, row_gamma_star). Empty: none.
  std::vector<int> removed_rows;

  int n_bodies() const { return static_cast<int>(bodies.size()); }
  int n_joints() const { return static_cast<int>(joints.size()); }
  int n_drivers() const { return static_cast<int>(drivers.size()); }
  int n_mimics() const { return static_cast<int>(mimics.size()); }
  /// Contact pairs: the Contact force elements (docs/contact.md).
  int contact_pair_count() const {
    int c = 0;
    for (const ForceElement& f : forces) c += f.type == ForceType::Contact ? 1 : 0;
    return c;
  }
  /// Constraint elements: joints 0 .. n_joints() - 1, then the drivers, then the mimic
  /// rows; the rows of element a are row_offset .. row_offset + rows - 1 (Phi, lambda,
  /// Data::rows[a]).
  int n_constraints() const { return n_joints() + n_drivers() + n_mimics(); }
  /// The first mimic element, n_joints() + n_drivers().
  int first_mimic() const { return n_joints() + n_drivers(); }
  ConstraintElement constraint(int a) const {
    if (a < n_joints()) {
      const Joint& j = joints[static_cast<std::size_t>(a)];
      return {j.body_i, j.body_j, joint_rows(j.type), j.row_offset};
    }
    if (a < first_mimic()) {
      const Driver& d = drivers[static_cast<std::size_t>(a - n_joints())];
      const Joint& j = joints[static_cast<std::size_t>(d.joint)];
      return {j.body_i, j.body_j, 1, d.row_offset};
    }
    const Mimic& mi = mimics[static_cast<std::size_t>(a - first_mimic())];
    const Joint& f = joints[static_cast<std::size_t>(mi.joint)];
    const Joint& l = joints[static_cast<std::size_t>(mi.leader)];
    return {f.body_i, f.body_j, 1, mi.row_offset, l.body_i, l.body_j};
  }
  /// Sides per constraint element in the row-block layout: 4 with a mimic row, else 2
  /// (kMaxElementSides; the Phi_q row blocks hold 6 element_sides() columns).
  int element_sides() const { return mimics.empty() ? 2 : kMaxElementSides; }
  /// The removed-row bits of constraint element a (0: none removed).
  int removed_mask(int a) const { return removed_rows.empty() ? 0 : removed_rows[static_cast<std::size_t>(a)]; }
  int nq() const { return 7 * n_bodies(); }   ///< position coordinates
  int nv() const { return 6 * n_bodies(); }   ///< velocity coordinates
  int ny() const { return 13 * n_bodies(); }  ///< state size
  /// Index of a body by name, kGround for "ground", -2 if unknown.
  int body_index(const std::string& body_name) const;
  int joint_index(const std::string& joint_name) const;
};

}  // namespace simphant
