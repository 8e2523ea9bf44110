#pragma once
// The checks run_job makes before any work (run_job.hpp): options, the scene with the
// options applied, the output path and the memory of the batch.
#include <string>
#include <vector>

#include "simphant/job/job_options.hpp"
#include "simphant/scene/scene.hpp"

namespace simphant::job_detail {

/// Refuses options no machine runs: an unknown backend, precision, solver or integrator,
/// rtol <= 0 or atol < 0 (or not finite), --error-estimate with an adaptive --integrator,
/// --integrator bdf with a cuda backend, fp32 on
/// the cpu backend, instances 0 or below -1, threads < 0, a non-finite dt or t_end, and
/// no output name (out "" with scene text and no scene name). Throws SceneError whose
/// path is the CLI flag ("--precision: fp32 needs --backend cuda or cuda-fused ...").
void check_options(const JobOptions& o);

/// The scene of the job: read (or parsed from scene_text), then --dt / --t-end /
/// --solver / --projection / --integrator / --rtol / --atol / --error-estimate patched
/// into the document's solver section and re-validated, and --seed. --error-estimate
/// with a scene whose integrator is adaptive: SceneError("--error-estimate", ...).
/// Scene::text stays the text as read. Throws SceneError.
Scene load_job_scene(const JobOptions& o);

/// Robot scenes run on the cpu backend in fp64: throws SceneError("--backend cuda" or
/// "--precision fp32", ...) otherwise; so does the bdf integrator (SceneError("--backend", ...)). Then, for a named cuda backend or fp32, throws
/// BackendError when this machine has no CUDA device or no CUDA build.
void check_backend(const Scene& scene, const JobOptions& o);

/// The output file: options.out, or <scene stem>.h5 in the current folder.
std::string output_path(const JobOptions& o);

/// Refuses an output path, before any work: SceneError(flag, "is an input of the run:
/// ...") when it is one of `inputs` (the same file, through any path or link:
/// job/run_inputs.hpp); std::runtime_error("output <out>: <reason>") when its folder does
/// not exist or is not writable, or it is a folder, a device / pipe / socket or a file
/// that cannot be written. flag: the option that names it (--out, --progress-file).
void check_output_path(const std::string& out, const std::vector<std::string>& inputs, const char* flag = "--out");

/// Refuses a job whose host memory would not fit, before any allocation: the estimate of
/// job/memory_estimate.hpp (every per-worker and per-instance buffer of the backend and
/// solver it will run, the models, the recorder) against 80 % of the machine's physical
/// memory. Throws std::runtime_error("<n> instances need about X GiB (...) ...: use fewer
/// instances ...").
void check_memory(const Scene& scene, const JobOptions& o);

}  // namespace simphant::job_detail
