#pragma once
// Private to scene/: the stages of compile_model (scene_compile.cpp), one per file.
// Each reads one section of the scene document (docs/scene-format.md), validates it and
// fills its part of the Model; every error is SceneError(json_pointer, reason).
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/model/model.hpp"
#include "simphant/model/robot.hpp"

namespace simphant::scene_detail {

/// The 3x3 inertia tensor from one of the three forms ([Ixx,Iyy,Izz], 6 values, 3x3),
/// checked symmetric (3x3 form: within 1e-9 relative), positive definite and satisfying
/// the triangle inequality of principal moments (relative tolerance 1e-9). [kg m^2]
Mat3d compile_inertia(const nlohmann::json& j, const std::string& path);

/// A unit quaternion [w, x, y, z]; normalised when | |q| - 1 | <= 1e-3, else an error.
Quatd compile_quaternion(const nlohmann::json& j, const std::string& path);

/// A motion law object (docs/scene-format.md, "Motion laws") at `path` validated and
/// appended to model.laws; returns its index. Errors name the field and reason: unknown
/// type or key, a missing field, a non-finite number, duration <= 0, more than 8
/// coefficients, a table with fewer than 2 knots, unequal lengths, or time not strictly
/// increasing ("<path>/time/3: must be greater than time[2] ...").
int compile_motion_law(const nlohmann::json& law, const std::string& path, Model& model);

/// The "drivers" array (docs/scene-format.md, "Drivers") -> model.drivers, their laws
/// appended to model.laws, one row each after the joints' rows (model.n_rows grows).
/// Precondition: the joints are compiled. Errors name the field: unknown joint, a
/// coordinate the joint type lacks, two drivers on one coordinate, a bad law.
void compile_drivers(const nlohmann::json& drivers, const std::string& path, Model& model);

/// A body's optional "visual" (docs/scene-format.md, "Visual shapes"): one shape object
/// or a non-empty array of them, each {type: box | cylinder | sphere | capsule | mesh, its
/// dimensions (> 0), origin?, color?}; checked only (the Model does not hold it).
void check_visual(const nlohmann::json& visual, const std::string& path);

/// The "bodies" array -> model.bodies (names unique, "ground" reserved).
void compile_bodies(const nlohmann::json& bodies, const std::string& path, Model& model);

/// Local joint frames from the world form {origin, z, x?} given at the initial
/// configuration: u = A^T (origin - r), v = A^T z, a = A^T x, b = v x a per side (ground:
/// A = I, r = 0). Without x, x = normalise(z x e) with e the world axis least aligned to z.
JointFrame<double> compile_world_frame(const nlohmann::json& frame, const std::string& path, const Model& model,
                                       int body_i, int body_j);

/// Local joint frames from the local form frame_i / frame_j {origin, z, x} (Gram-Schmidt
/// on x, b = v x a).
JointFrame<double> compile_local_frames(const nlohmann::json& frame_i, const std::string& path_i,
                                        const nlohmann::json& frame_j, const std::string& path_j);

/// The "joints" array -> model.joints with local frames, row offsets and model.n_rows.
/// Precondition: model.bodies filled.
void compile_joints(const nlohmann::json& joints, const std::string& path, Model& model);

/// Refuses a driver or a force element (actuator, rotational spring-damper) that names a
/// joint with a clearance (docs/contact.md, "Joint clearance": its journal moves freely,
/// so the joint has no angle), at the element's "joint" key. doc: the scene document.
void check_clearance_joint_refs(const nlohmann::json& doc);

/// robot.floating_base and robot.base (docs/robots.md, "Floating base") -> rj.model.floating,
/// rj.base_q0 / base_v0 (empty for a fixed base). Errors: a base on a fixed-base robot, a
/// zero orientation quaternion, wrong array lengths, unknown keys.
void compile_robot_base(const nlohmann::json& robot, const std::string& path, RobotJointSpace& rj);

/// robot.servos, robot.urdf_dynamics and robot.friction_velocity -> rj.joints and
/// rj.effective_inertia (scene/robot_joint_params.hpp, derived at rj.q0 with step dt); a
/// servo joint's input slot rj.tau[k] starts at its target. Precondition: rj.model (payload
/// merged), q0 and tau compiled. Errors name the JSON pointer (unknown joint or mode, a
/// negative gain, kp on a velocity servo, a nonzero tau entry for a servo joint,
/// friction_velocity <= 0, a singular joint-space mass matrix at q0).
void compile_robot_joints(const nlohmann::json& robot, const std::string& path, double dt, RobotJointSpace& rj);

/// The "forces" array -> model.forces, actuator input slots and model.n_inputs.
/// Precondition: model.bodies and model.joints filled.
void compile_forces(const nlohmann::json& forces, const std::string& path, Model& model);

/// joints[k].limits (docs/scene-format.md, "Joint"; docs/contact.md, "End stops") -> one
/// ForceType::JointStop element per joint with limits, appended to model.forces in joint
/// order. Precondition: model.bodies and model.joints compiled. Errors name the JSON
/// pointer: a joint type without an angle or slide, a cylindrical joint without its
/// "coordinate", neither lower nor upper, lower >= upper, an angle limit outside (-pi, pi),
/// stiffness <= 0, restitution outside (0, 1], limits beside a clearance.
void compile_joint_stops(const nlohmann::json& doc, Model& model);

/// A URDF mesh <collision> c (LinkCollision::mesh set) as the box that bounds its
/// vertices, scaled, in the mesh's frame (urdf/urdf_mesh.hpp: the file resolved from the
/// URDF at urdf_path, read once per process): kind Box, the half edges, the box's centre
/// placed on the owner. Errors name `path` (robot.urdf_collision), the link and the file:
/// not found, not readable as a mesh, no vertex.
LinkCollision mesh_bounding_box(const LinkCollision& c, const std::string& urdf_path, const std::string& path);

/// Logs `message` as a warning once per process (a sweep compiles one model per
/// instance).
void warn_once(const std::string& message);

/// The bodies' "collision" shapes (a robot scene: robot.collision, shapes in URDF link
/// frames on the maximal model's bodies, and with robot.urdf_collision the URDF's own
/// <collision> primitives) and the "contact" section (docs/scene-format.md,
/// "Contact") -> one ForceType::Contact element per pair of shapes that may touch,
/// appended to model.forces: the ground plane (side i) with each body shape, then the
/// shapes of bodies a < b (shape i on a); pairs whose contype / conaffinity filter refuses
/// them, excluded body pairs and bodies joined by a joint are left out. Nothing without
/// either key. Precondition: bodies, joints and forces compiled. Errors name the JSON
/// pointer: collision without contact (or contact without collision) at /contact, a bad
/// shape or material value, an unknown material or body, an unsupported pair of kinds, a
/// pair whose materials do not combine (mixed stiffness forms, unequal exponents, Hertz on
/// flat or cylindrical shapes).
void compile_contacts(const nlohmann::json& doc, Model& model);

/// The "solver" object -> SolverSettings. file_dt: the robot file's step (an MJCF file's
/// <option timestep>), used when the object has no "dt"; nullptr: "dt" is required.
SolverSettings compile_solver(const nlohmann::json& solver, const std::string& path, const double* file_dt = nullptr);

/// robot.actuators "mjcf" (mjcf_actuators.cpp, docs/mjcf.md "The file's actuators"): the
/// file's position and velocity actuators added to `servos` (robot.servos' object form),
/// and the effort bounds of the actuated links in rm; false (nothing changed) without the
/// key. Errors: another value, two actuators on one joint, a joint also in robot.servos,
/// an asymmetric forcerange (or a motor's ctrlrange), a zero gear.
bool apply_mjcf_actuators(const MjcfModel& mj, const nlohmann::json& robot, const std::string& path,
                          nlohmann::json& servos, ReducedModel& rm);
/// Why the file's actuators cannot be applied ("" if they can): two on one joint, a zero
/// or non-finite gear, an asymmetric forcerange or motor ctrlrange.
std::string mjcf_actuators_problem(const MjcfModel& mj);

/// The <option timestep> [s] of the MJCF file a robot section names (robot.mjcf, a string;
/// read through the per-process model cache, errors naming `ptr`), or NaN when `robot` is
/// not an object with a non-empty string "mjcf" and no "urdf" (compile_robot reports those).
double robot_mjcf_timestep(const nlohmann::json& robot, const std::string& ptr);

/// The "output" object -> OutputSettings (output_compile.cpp): unknown dataset or
/// quantity names list the valid ones, compression must be 0..9.
OutputSettings compile_output(const nlohmann::json& output, const std::string& path);

/// "solver.type" -> RobotSolver (absent: Dae); SceneError for another string.
RobotSolver compile_solver_type(const nlohmann::json& solver, const std::string& path);

/// The "robot" section (docs/robots.md) -> model: the URDF's maximal Model (bodies,
/// joints, one actuator per joint carrying tau) with model.robot set. Keeps model.name
/// and model.solver. Errors name the JSON pointer: /robot/urdf (file missing, URDF
/// errors wrapped, example-robot-data not installed), /robot/q0 (length), /robot/payload/link, ...
/// robot_compile.cpp.
void compile_robot(const nlohmann::json& robot, const std::string& path, RobotSolver solver_type, Model& model);

/// Makes a relative robot.urdf path absolute against the folder of the scene file
/// `source` (when `source` is an existing file); anything else is left as is.
void resolve_robot_paths(nlohmann::json& doc, const std::string& source);

/// The duration [s] of a scene that is an MJCF file (MJCF states none): solver.t_end.
constexpr double kMjcfSceneDuration = 1.0;

/// Whether a scene file's text is XML (its first non-space character is '<'): an MJCF
/// file given as the scene (mjcf_scene.cpp).
bool looks_like_xml(const std::string& text);

/// The scene document of an MJCF file given as the scene (docs/mjcf.md, "An MJCF file as
/// the scene"): robot.mjcf = the file (absolute), a floating base at the free body's XML
/// pose, solver aba with the file's <option timestep> as dt, t_end kMjcfSceneDuration,
/// rk4 (another <option integrator> is warned of). Throws SceneError(file, the MjcfError).
std::string mjcf_scene_text(const std::string& file);

}  // namespace simphant::scene_detail
