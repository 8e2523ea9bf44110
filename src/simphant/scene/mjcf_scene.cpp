// A scene that is an MJCF file (docs/mjcf.md, "An MJCF file as the scene"): the scene
// document that `simphant run model.xml` and load_scene read in its place.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "simphant/log/log.hpp"
#include "simphant/mjcf/mjcf_import.hpp"
#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::scene_detail {

bool looks_like_xml(const std::string& text) {
  for (const char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '<';
  }
  return false;
}

std::string mjcf_scene_text(const std::string& file) {
  MjcfModel mj;
  try {
    mj = load_mjcf(file);
  } catch (const MjcfError& e) {
    throw SceneError(file, e.what());
  }
  std::error_code ec;
  const std::string path = std::filesystem::absolute(file, ec).lexically_normal().string();
  nlohmann::json robot = {{"mjcf", ec ? file : path}};
  if (mj.model.floating) {
    const Vec3d& p = mj.free_position;
    const Quatd& o = mj.free_orientation;
    robot["base"] = {{"position", {p.x, p.y, p.z}}, {"orientation", {o.w, o.x, o.y, o.z}}};
  }
  if (!mj.actuators.empty()) {  // docs/mjcf.md, "The file's actuators"
    const std::string problem = mjcf_actuators_problem(mj);
    if (problem.empty())
      robot["actuators"] = "mjcf";
    else
      logger().warn("{}: the file's actuators are not applied ({}); write a JSON scene with robot.mjcf to drive "
                    "the joints", file, problem);
  }
  if (mj.options.integrator != "RK4")
    logger().warn("{}: <option integrator=\"{}\">: SimPhant integrates the scene with rk4 (MuJoCo's {} has no "
                  "equivalent here; write a JSON scene with robot.mjcf to choose another integrator)",
                  file, mj.options.integrator, mj.options.integrator);
  const nlohmann::json doc = {
      {"name", mj.model.name},
      {"robot", robot},
      {"solver", {{"type", "aba"}, {"dt", mj.options.timestep}, {"t_end", kMjcfSceneDuration}, {"integrator", "rk4"}}}};
  return doc.dump(2) + "\n";
}

}  // namespace simphant::scene_detail
