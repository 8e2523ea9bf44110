#pragma once
// The files a run reads, so that none of them is taken as its output (job_checks.hpp,
// check_output_path) and whose fingerprints a resumed run compares (job/input_digests.hpp):
// the scene file, a sweep's design file, the bodies' visual meshes, the robot's URDF and
// the mesh files the URDF names.
#include <string>
#include <vector>

#include "simphant/scene/scene.hpp"

namespace simphant {

/// The input files of a job on `scene` loaded from `scene_file` ("" when the scene came
/// as text): scene_file, the sweep's design file, the mesh file of every visual shape of
/// type mesh (relative paths taken from scene_file's folder, docs/scene-format.md "Visual
/// shapes"), the URDF of a robot scene (Model::robot->urdf_path), and every
/// `filename="..."` of the URDF (meshes) as resolve_urdf_filename finds it (plain and
/// file:// paths, relative ones from the URDF's folder, and package:// names). Paths as
/// found; plain paths to files that do not exist are listed too.
std::vector<std::string> run_input_files(const Scene& scene, const std::string& scene_file);

}  // namespace simphant
