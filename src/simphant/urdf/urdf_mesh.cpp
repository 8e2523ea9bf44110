#include "simphant/urdf/urdf_mesh.hpp"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace simphant {

namespace fs = std::filesystem;

namespace {

/// A regular file at p (no exception: an unreadable folder is "no").
bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::string resolve_urdf_filename(const std::string& name, const std::string& urdf_dir) {
  std::string rest = name;
  if (rest.rfind("file://", 0) == 0) return rest.substr(7);
  if (rest.rfind("package://", 0) == 0) {
    rest = rest.substr(10);
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return "";
    const std::string package = rest.substr(0, slash), inside = rest.substr(slash + 1);
    if (const char* ros = std::getenv("ROS_PACKAGE_PATH")) {
      std::stringstream dirs(ros);
      for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && is_file(fs::path(dir) / package / inside)) return (fs::path(dir) / package / inside).string();
    }
    std::error_code ec;
    fs::path start = fs::absolute(fs::path(urdf_dir), ec);
    if (ec) return "";
    for (fs::path a = start.lexically_normal(); !a.empty(); a = a.parent_path()) {
      if (is_file(a / package / inside)) return (a / package / inside).string();
      if (is_file(a / inside)) return (a / inside).string();
      if (a == a.parent_path()) break;
    }
    return "";
  }
  if (rest.find("://") != std::string::npos) return "";
  const fs::path p(rest);
  return (p.is_absolute() ? p : fs::path(urdf_dir) / p).string();
}

namespace {

/// Extends b by the vertices of `node` and its children, each under its transform T.
void add_node(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent, MeshBounds& b, std::size_t& count) {
  const aiMatrix4x4 T = parent * node.mTransformation;
  for (unsigned k = 0; k < node.mNumMeshes; ++k) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[k]];
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      const aiVector3D x = T * mesh.mVertices[v];
      if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
        throw std::runtime_error("vertex " + std::to_string(v) + " of mesh " + std::to_string(k) + " is not finite");
      b.lower = {std::min(b.lower.x, double(x.x)), std::min(b.lower.y, double(x.y)), std::min(b.lower.z, double(x.z))};
      b.upper = {std::max(b.upper.x, double(x.x)), std::max(b.upper.y, double(x.y)), std::max(b.upper.z, double(x.z))};
      ++count;
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) add_node(scene, *node.mChildren[c], T, b, count);
}

}  // namespace

MeshBounds mesh_bounds(const std::string& file) {
  if (!is_file(file)) throw std::runtime_error("no such file");
  Assimp::Importer importer;
  // The mesh's frame is the file's own, as the URDF means it (and as RViz reads it): a
  // Collada file's <up_axis> does not turn it (its <unit> still scales it).
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // Only the vertices are used: no post-processing beyond what the importer does.
  const aiScene* scene = importer.ReadFile(file, 0);
  if (scene == nullptr || scene->mRootNode == nullptr)
    throw std::runtime_error(std::string("not read as a mesh (") + importer.GetErrorString() + ")");
  const double inf = std::numeric_limits<double>::infinity();
  MeshBounds b{{inf, inf, inf}, {-inf, -inf, -inf}};
  std::size_t count = 0;
  add_node(*scene, *scene->mRootNode, aiMatrix4x4(), b, count);
  if (count == 0) throw std::runtime_error("the file has no vertex");
  return b;
}

}  // namespace simphant
