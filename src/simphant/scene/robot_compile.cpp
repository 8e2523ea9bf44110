// The "robot" section of a scene (docs/robots.md): a URDF or MJCF robot -> the maximal Model
// (urdf/maximal_from_urdf.hpp) plus its joint-space form (model/robot.hpp).
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include <Eigen/Dense>

#include "simphant/log/log.hpp"
#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/json_access.hpp"
#include "simphant/urdf/maximal_from_urdf.hpp"
#include "simphant/urdf/robot_data.hpp"
#include "simphant/urdf/urdf_import.hpp"

namespace simphant::scene_detail {

namespace {

constexpr const char* kErdPrefix = "example-robot-data:";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

/// The URDF file named by robot.urdf: "example-robot-data:<relative path>", or a path
/// (parse_scene made a relative one relative to the scene file's folder).
std::string resolve_urdf(const std::string& ref, const std::string& ptr) {
  if (!starts_with(ref, kErdPrefix)) return ref;
  const std::string rel = ref.substr(std::char_traits<char>::length(kErdPrefix));
  const std::string dir = example_robot_data_dir();
  if (dir.empty())
    throw SceneError(ptr, "\"" + ref + "\" needs the Python package example-robot-data, which is not in the usual "
                          "site-packages folders (docs/robots.md): pip install example-robot-data, or set "
                          "SIMPHANT_ROBOT_DATA to its robots folder");
  const std::string file = dir + "/" + rel;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw SceneError(ptr, "no file \"" + rel + "\" in example-robot-data (" + dir + ")");
  return file;
}

/// load(file) with a per-process cache per loader (a sweep compiles one model per
/// instance); the file's warnings (what it holds and no solver uses, Warnings(model)) are
/// logged once per file and process; an Error becomes SceneError(ptr, ...).
template <class Model_, class Error, class Load, class Warnings>
std::shared_ptr<const Model_> cached_load(const std::string& file, const std::string& ptr, Load load, Warnings warnings) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Model_>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  try {
    auto m = std::make_shared<const Model_>(load(file));
    for (const std::string& w : warnings(*m)) logger().warn("{}: {}", file, w);
    cache.emplace(file, m);
    return m;
  } catch (const Error& e) {
    throw SceneError(ptr, e.what());
  }
}

std::shared_ptr<const ReducedModel> cached_urdf(const std::string& file, const std::string& ptr) {
  return cached_load<ReducedModel, UrdfError>(
      file, ptr, [](const std::string& f) { return load_urdf(f); },
      [](const ReducedModel& rm) -> const std::vector<std::string>& { return rm.warnings; });
}

std::shared_ptr<const MjcfModel> cached_mjcf(const std::string& file, const std::string& ptr) {
  return cached_load<MjcfModel, MjcfError>(
      file, ptr, [](const std::string& f) { return load_mjcf(f); },
      [](const MjcfModel& mj) -> const std::vector<std::string>& { return mj.model.warnings; });
}

std::string joint_names(const ReducedModel& rm) {
  std::string s;
  for (const ReducedLink& l : rm.links) s += (s.empty() ? "" : ", ") + l.joint_name;
  return s;
}

/// An optional array of n numbers (default zeros).
std::vector<double> joint_vector(const json& robot, const std::string& path, const char* key, const ReducedModel& rm) {
  const int n = rm.nq();
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  const json* v = find_key(robot, key);
  if (v == nullptr) return out;
  const std::string p = child_path(path, key);
  expect_array(*v, p);
  if (static_cast<int>(v->size()) != n)
    throw SceneError(p, "must have " + std::to_string(n) + " entries, one per moving joint of '" + rm.name +
                            "' in this order: " + joint_names(rm) + " (got " + std::to_string(v->size()) + ")");
  for (int k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = as_number((*v)[static_cast<std::size_t>(k)], child_path(p, static_cast<std::size_t>(k)));
  return out;
}

void apply_payload(const json& payload, const std::string& path, ReducedModel& rm) {
  expect_object(payload, path);
  check_keys(payload, path, {"link", "mass", "com"});
  const std::string link_ptr = child_path(path, "link");
  const std::string link = as_string(require_key(payload, path, "link"), link_ptr);
  const int k = rm.link_index(link);
  if (k < 0) {
    std::string names;
    for (const ReducedLink& l : rm.links) names += (names.empty() ? "" : ", ") + l.name;
    throw SceneError(link_ptr, "unknown link '" + link + "' (moving links: " + names +
                                   "; a link fixed to a moving link is merged into it: name that one)");
  }
  const std::string mass_ptr = child_path(path, "mass");
  const double m = as_number(require_key(payload, path, "mass"), mass_ptr);
  if (!(m >= 0)) throw SceneError(mass_ptr, "must be >= 0 (got " + format_number(m) + ")");
  const Vec3d com = vec3_or(payload, path, "com", zero3<double>());  // validated even for a zero mass
  if (!(m > 0)) return;
  ReducedLink& l = rm.links[static_cast<std::size_t>(k)];
  add_point_mass(l, m, com);
  // A huge mass or offset overflows the welded mass, CoM or inertia (m |d|^2), or leaves
  // an inertia that is no longer positive definite in floating point: bad input, said
  // here rather than as a failed assembly or a NaN state later.
  bool finite = std::isfinite(l.mass);
  for (int r = 0; r < 3; ++r) {
    finite = finite && std::isfinite(l.com[r]);
    for (int c = 0; c < 3; ++c) finite = finite && std::isfinite(l.inertia_com.m[r][c]);
  }
  if (!finite)
    throw SceneError(mass_ptr, "a payload of " + format_number(m) + " kg at com [" + format_number(com.x) + ", " +
                                   format_number(com.y) + ", " + format_number(com.z) + "] m makes link '" + link +
                                   "''s mass properties overflow (not finite)");
  Eigen::Matrix3d E;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) E(r, c) = l.inertia_com.m[r][c];
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(E, Eigen::EigenvaluesOnly).eigenvalues();
  const Mat3d inv = inertia_inverse(l.inertia_com);
  bool inv_finite = true;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) inv_finite = inv_finite && std::isfinite(inv.m[r][c]);
  if (!(ev[0] > 0) || !inv_finite)
    throw SceneError(mass_ptr, "a payload of " + format_number(m) + " kg makes link '" + link +
                                   "''s inertia about its CoM singular (principal moments " + format_number(ev[0]) +
                                   ", " + format_number(ev[1]) + ", " + format_number(ev[2]) + " kg m^2)");
}

/// robot.armature: {"<moving joint name>": a >= 0} sets those joints' armature (rotor
/// inertia on the joint coordinate, docs/robots.md "Armature") over the file's value.
/// Also checks the file's values (finite, >= 0), naming the file key.
void apply_armature(const json& robot, const std::string& path, const std::string& file_ptr, ReducedModel& rm) {
  for (const ReducedLink& l : rm.links)
    if (!(l.armature >= 0) || !std::isfinite(l.armature))
      throw SceneError(file_ptr, "joint '" + l.joint_name + "': armature must be finite and >= 0 (got " +
                                     format_number(l.armature) + ")");
  const json* v = find_key(robot, "armature");
  if (v == nullptr) return;
  const std::string p = child_path(path, "armature");
  expect_object(*v, p);
  for (auto it = v->begin(); it != v->end(); ++it) {
    const std::string jp = child_path(p, it.key());
    int k = -1;
    for (int j = 0; j < rm.nq() && k < 0; ++j)
      if (rm.links[static_cast<std::size_t>(j)].joint_name == it.key()) k = j;
    if (k < 0)
      throw SceneError(jp, "unknown joint '" + printable(it.key()) + "' (moving joints: " + joint_names(rm) + ")");
    const double a = as_number(it.value(), jp);
    if (!(a >= 0)) throw SceneError(jp, "must be >= 0 [kg m^2 | kg] (got " + format_number(a) + ")");
    rm.links[static_cast<std::size_t>(k)].armature = a;
  }
}

}  // namespace

RobotSolver compile_solver_type(const json& solver, const std::string& path) {
  const json* t = solver.is_object() ? find_key(solver, "type") : nullptr;
  if (t == nullptr) return RobotSolver::Dae;
  const std::string p = child_path(path, "type");
  const std::string s = as_string(*t, p);
  if (s == "dae") return RobotSolver::Dae;
  if (s == "aba") return RobotSolver::Aba;
  if (s == "cga") return RobotSolver::Cga;
  throw SceneError(p, "unknown solver type \"" + s + "\" (dae, aba or cga)");
}

void resolve_robot_paths(json& doc, const std::string& source) {
  if (!doc.is_object()) return;
  const auto robot = doc.find("robot");
  if (robot == doc.end() || !robot->is_object()) return;
  for (const char* key : {"urdf", "mjcf"}) {  // robot.urdf or robot.mjcf, relative to the scene file
    const auto file = robot->find(key);
    if (file == robot->end() || !file->is_string()) continue;
    const std::string ref = file->get<std::string>();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (ref.empty() || starts_with(ref, kErdPrefix) || fs::path(ref).is_absolute() || !fs::is_regular_file(source, ec))
      continue;
    *file = fs::absolute(fs::path(source).parent_path() / ref, ec).lexically_normal().string();
  }
}

void compile_robot(const json& robot, const std::string& path, RobotSolver solver_type, Model& model) {
  expect_object(robot, path);
  check_keys(robot, path, {"urdf", "mjcf", "q0", "qd0", "tau", "payload", "gravity", "floating_base", "base", "servos",
                          "urdf_dynamics", "friction_velocity", "armature", "actuators", "collision", "urdf_collision",
                          "limit_law"});
  // The robot file: robot.urdf or robot.mjcf, exactly one of them.
  const bool has_urdf = find_key(robot, "urdf") != nullptr, has_mjcf = find_key(robot, "mjcf") != nullptr;
  if (has_urdf && has_mjcf) throw SceneError(path, "give \"urdf\" or \"mjcf\", not both (one robot file)");
  if (!has_urdf && !has_mjcf)
    throw SceneError(child_path(path, "urdf"), "required key is missing (the robot's URDF file; or give \"mjcf\", "
                                               "an MJCF file)");
  const std::string urdf_ptr = child_path(path, has_urdf ? "urdf" : "mjcf");
  auto rj = std::make_shared<RobotJointSpace>();
  Vec3d file_gravity{0, 0, -9.81};  // URDF has none; an MJCF file's <option gravity>
  std::string file;
  std::shared_ptr<const MjcfModel> mj;
  if (has_urdf) {
    if (find_key(robot, "actuators") != nullptr)
      throw SceneError(child_path(path, "actuators"), "applies to an MJCF robot (robot.mjcf); a URDF has no actuators");
    file = resolve_urdf(as_string(require_key(robot, path, "urdf"), urdf_ptr), urdf_ptr);
    rj->model = *cached_urdf(file, urdf_ptr);
  } else {
    file = as_string(require_key(robot, path, "mjcf"), urdf_ptr);
    if (file.empty()) throw SceneError(urdf_ptr, "must name an MJCF file");
    mj = cached_mjcf(file, urdf_ptr);
    rj->model = mj->model;
    file_gravity = mj->options.gravity;
  }
  rj->urdf_path = file;
  rj->file_key = has_urdf ? "urdf" : "mjcf";
  rj->solver = solver_type;
  ReducedModel& rm = rj->model;
  if (rm.nq() > kMaxRobotJoints)
    throw SceneError(urdf_ptr, "the robot has " + std::to_string(rm.nq()) + " moving joints; at most " +
                                   std::to_string(kMaxRobotJoints) + " are supported");
  rm.gravity = vec3_or(robot, path, "gravity", file_gravity);
  rj->q0 = joint_vector(robot, path, "q0", rm);
  rj->qd0 = joint_vector(robot, path, "qd0", rm);
  rj->tau = joint_vector(robot, path, "tau", rm);
  if (const json* payload = find_key(robot, "payload")) apply_payload(*payload, child_path(path, "payload"), rm);
  apply_armature(robot, path, urdf_ptr, rm);
  compile_robot_base(robot, path, *rj);
  if (rm.nq() == 0 && !rm.floating)
    throw SceneError(child_path(path, "floating_base"),
                     "the robot has no moving joint and its base is fixed: nothing moves (leave robot.floating_base "
                     "out or set it true to load the file as a free body, an object)");
  // robot.actuators "mjcf": the file's position / velocity actuators join robot.servos.
  json servos = find_key(robot, "servos") != nullptr ? robot.at("servos") : json::object();
  const json given = servos;
  if (mj && apply_mjcf_actuators(*mj, robot, path, servos, rm)) {
    rj->servo_from_file.assign(static_cast<std::size_t>(rm.nq()), 0);
    for (std::size_t k = 0; k < rm.links.size(); ++k) {
      rj->servo_from_file[k] = servos.contains(rm.links[k].joint_name) && !given.contains(rm.links[k].joint_name);
      if (rj->servo_from_file[k] && rj->tau[k] != 0)
        throw SceneError(child_path(child_path(path, "tau"), k),
                         "joint '" + rm.links[k].joint_name + "' is driven by the file's position or velocity "
                         "actuator (robot.actuators \"mjcf\"): its input is the servo's target, so its tau entry "
                         "must be 0 (got " + format_number(rj->tau[k]) + ")");
    }
    json with_servos = robot;
    with_servos["servos"] = servos;
    compile_robot_joints(with_servos, path, model.solver.dt, *rj);
  } else {
    compile_robot_joints(robot, path, model.solver.dt, *rj);
  }

  if (solver_type == RobotSolver::Dae) {
    try {
      require_dae_masses(rm);
    } catch (const UrdfError& e) {
      throw SceneError(urdf_ptr, e.what());
    }
    const std::string armature = dae_armature_error(rm);
    if (!armature.empty()) {
      // Named where the value comes from: robot.armature.<joint>, else the robot file.
      const json* scene_armature = find_key(robot, "armature");
      std::string ptr = urdf_ptr;
      for (const ReducedLink& l : rm.links)
        if (l.armature > 0) {
          if (scene_armature != nullptr && scene_armature->contains(l.joint_name))
            ptr = child_path(child_path(path, "armature"), l.joint_name);
          break;
        }
      throw SceneError(ptr, armature);
    }
  }
  Model m = maximal_model_from_urdf(rm, rj->q0, rj->qd0, rj->base_q0, rj->base_v0);
  m.name = model.name.empty() ? rm.name : model.name;
  m.solver = model.solver;
  m.output = model.output;
  // One actuator per joint carries tau: the DAE path applies it as a force element, the
  // reduced backend reads the same per-instance inputs.
  for (int k = 0; k < rm.nq(); ++k) {
    ForceElement f;
    f.name = "tau_" + rm.links[static_cast<std::size_t>(k)].joint_name;
    f.type = ForceType::Actuator;
    f.joint = k;
    f.kind = rm.links[static_cast<std::size_t>(k)].type == ReducedJointType::Revolute ? ActuatorKind::Torque
                                                                                      : ActuatorKind::Force;
    f.value = rj->tau[static_cast<std::size_t>(k)];
    f.input_index = k;
    m.forces.push_back(f);
  }
  m.n_inputs = rm.nq();
  m.robot = std::move(rj);
  model = std::move(m);
}

double robot_mjcf_timestep(const json& robot, const std::string& ptr) {
  const json* mjcf = robot.is_object() ? find_key(robot, "mjcf") : nullptr;
  if (mjcf == nullptr || !mjcf->is_string() || mjcf->get<std::string>().empty() || find_key(robot, "urdf") != nullptr)
    return std::numeric_limits<double>::quiet_NaN();
  return cached_mjcf(mjcf->get<std::string>(), ptr)->options.timestep;
}

}  // namespace simphant::scene_detail
