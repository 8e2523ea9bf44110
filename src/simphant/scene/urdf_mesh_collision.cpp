// A URDF mesh <collision> as the box that bounds its vertices (robot.urdf_collision;
// docs/robots.md, "Contact").
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <tuple>
#include <mutex>
#include <stdexcept>
#include <string>

#include "simphant/scene/compile_parts.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/urdf/urdf_mesh.hpp"

namespace simphant::scene_detail {

namespace {

/// mesh_bounds(file) with a per-process cache (a sweep compiles one model per instance),
/// keyed by the path, the file's size and its modification time: an edited file is read
/// again.
MeshBounds cached_mesh_bounds(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::uintmax_t, std::int64_t>, MeshBounds> cache;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  const auto mtime = std::filesystem::last_write_time(file, ec).time_since_epoch().count();
  const auto key = std::make_tuple(file, ec ? 0 : size, ec ? 0 : static_cast<std::int64_t>(mtime));
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const MeshBounds b = mesh_bounds(file);
  cache.emplace(key, b);
  return b;
}

}  // namespace

LinkCollision mesh_bounding_box(const LinkCollision& c, const std::string& urdf_path, const std::string& path) {
  const std::string where = "link '" + c.link + "' <collision> " + std::to_string(c.index) + " mesh \"" + c.mesh + "\"";
  const std::string urdf_dir = std::filesystem::path(urdf_path).parent_path().string();
  const std::string file = resolve_urdf_filename(c.mesh, urdf_dir);
  if (file.empty())
    throw SceneError(path, where + ": names no file this program finds (a plain or file:// path, or package://PKG/REST "
                                   "under ROS_PACKAGE_PATH, or as PKG/REST or REST in the URDF's folder or one above "
                                   "it); give the link's shapes in robot.collision instead");
  MeshBounds b;
  try {
    b = cached_mesh_bounds(file);
  } catch (const std::exception& e) {
    // The file as found from the URDF's folder (no other folder of this machine is named).
    std::error_code ec;
    std::string shown = std::filesystem::path(file).lexically_relative(std::filesystem::absolute(urdf_dir, ec)).string();
    if (shown.empty()) shown = c.mesh;
    throw SceneError(path, where + " (" + shown + "): " + e.what() + " (give the link's shapes in robot.collision instead)");
  }
  LinkCollision out = c;
  out.kind = ShapeKind::Box;
  const double lo[3] = {b.lower.x, b.lower.y, b.lower.z}, hi[3] = {b.upper.x, b.upper.y, b.upper.z};
  const double s[3] = {c.scale.x, c.scale.y, c.scale.z};
  double centre[3];
  for (int k = 0; k < 3; ++k) {
    out.size[k] = 0.5 * std::fabs(s[k]) * (hi[k] - lo[k]);
    centre[k] = 0.5 * s[k] * (hi[k] + lo[k]);
  }
  // The box's centre in S, placed on the owner: x_owner = R x_S + p.
  out.p = c.p + mul(c.R, Vec3d{centre[0], centre[1], centre[2]});
  out.mesh.clear();
  return out;
}

}  // namespace simphant::scene_detail
