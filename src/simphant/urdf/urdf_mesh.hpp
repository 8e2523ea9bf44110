#pragma once
// The mesh files a URDF names (docs/robots.md, "Contact"): where a `filename` points, and
// the bounding box of a mesh's vertices, with which a mesh <collision> becomes a box
// contact shape (robot.urdf_collision). The files are read by Assimp.
#include <string>

#include "simphant/math/small.hpp"

namespace simphant {

/// The file that a URDF `filename` names, for a URDF in folder `urdf_dir`: a plain path
/// (relative ones from urdf_dir) or file:// path as it is; package://PKG/REST as
/// DIR/PKG/REST for the first DIR in ROS_PACKAGE_PATH (':'-separated) that holds it, else
/// the first file of A/PKG/REST and A/REST for A = urdf_dir and each folder above it,
/// nearest first (how example-robot-data and other package trees are laid out, a
/// package's folder named after it or not). "" when the scheme is another one or no
/// candidate of a package:// name exists. The one rule for the scene compiler, the run's
/// input list and the service's 3D replay (simphant._simphant.resolve_urdf_filename).
std::string resolve_urdf_filename(const std::string& name, const std::string& urdf_dir);

/// The axis-aligned bounding box of a mesh's vertices in the mesh file's frame [m, as
/// the file's units], each node's transform applied: lower and upper corners.
struct MeshBounds {
  Vec3d lower{};
  Vec3d upper{};
};

/// Reads `file` (STL, OBJ, Collada, ... : what Assimp imports) and returns the bounds of
/// all its vertices, in the file's own axes (a Collada <up_axis> is not applied, its
/// <unit> is). Throws std::runtime_error with the reason (cannot be read, not a
/// mesh format, no vertex, a vertex that is not finite).
MeshBounds mesh_bounds(const std::string& file);

}  // namespace simphant
