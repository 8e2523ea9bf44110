#pragma once
// The checks run_job makes before any work (run_job.hpp): options, the scene with the
// options applied, the output path and the memory of the batch.
#include <string>

#include "simphant/job/run_job.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::job_detail {

/// Refuses options no machine runs: an unknown backend, precision or solver, fp32 on
/// the cpu backend, instances 0 or below -1, threads < 0, a non-finite dt or t_end, and
/// no output name (out "" with scene text and no scene name). Throws SceneError whose
/// path is the CLI flag ("--precision: fp32 needs --backend cuda or cuda-fused ...").
void check_options(const JobOptions& o);

/// The scene of the job: read (or parsed from scene_text), then --dt / --t-end /
/// --solver patched into the document's solver section and re-validated, and --seed.
/// Scene::text stays the text as read. Throws SceneError.
Scene load_job_scene(const JobOptions& o);

/// Robot scenes run on the cpu backend in fp64: throws SceneError("--backend cuda" or
/// "--precision fp32", ...) otherwise. Then, for a named cuda backend or fp32, throws
/// BackendError when this machine has no CUDA device or no CUDA build.
void check_backend(const Scene& scene, const JobOptions& o);

/// The output file: options.out, or <scene stem>.h5 in the current folder.
std::string output_path(const JobOptions& o);

/// Refuses an output path that cannot be written, before any work: its folder must
/// exist and be writable, and it must not be a folder, a device / pipe / socket or the
/// scene file itself. Throws std::runtime_error("output <out>: <reason>").
void check_output_path(const std::string& out, const std::string& scene_file);

/// Refuses a batch whose memory would not fit, before any allocation: an estimate of
/// the bytes per instance (its model when the sweep varies it, its state, one recorded
/// frame, statistics) against 80 % of the machine's physical memory. Throws
/// std::runtime_error("... use fewer instances").
void check_memory(const Scene& scene, int instances);

}  // namespace simphant::job_detail
