#include "simphant/job/job_checks.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "simphant/job/memory_estimate.hpp"
#include "simphant/job/output_file.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/sim/backend_rules.hpp"
#include "simphant/sim/cpu_simd_engine.hpp"
#include "simphant/sim/cuda_factory.hpp"

namespace simphant::job_detail {

namespace {

void require_one_of(const std::string& value, const char* flag, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return;
    list += (list.empty() ? "" : ", ") + std::string(*a ? a : "\"\"");
  }
  throw SceneError(flag, "must be one of " + list + " (got '" + value + "')");
}

/// Throws SceneError("--<setting>", reason) for settings the backend rules refuse.
void refuse_as_flags(const BackendSettings& settings) {
  if (const std::optional<BackendRefusal> r = refuse_backend_settings(settings))
    throw SceneError("--" + r->setting, r->reason);
}

}  // namespace

void check_options(const JobOptions& o) {
  require_one_of(o.backend, "--backend", {"auto", "cpu", "cpu-simd", "cuda", "cuda-fused"});
  require_one_of(o.precision, "--precision", {"fp64", "fp32"});
  require_one_of(o.solver, "--solver", {"", "dae", "aba", "cga"});
  require_one_of(o.projection, "--projection", {"", "none", "velocity", "position_velocity", "auto"});
  require_one_of(o.integrator, "--integrator", {"", "rk4", "euler", "symplectic_euler", "dopri5", "bdf"});
  const auto g = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return std::string(buf);
  };
  if (o.rtol && !(std::isfinite(*o.rtol) && *o.rtol > 0))
    throw SceneError("--rtol", "must be a finite number > 0 (got " + g(*o.rtol) + ")");
  if (o.atol && !(std::isfinite(*o.atol) && *o.atol >= 0))
    throw SceneError("--atol", "must be a finite number >= 0 (got " + g(*o.atol) + ")");
  if (o.error_estimate && (o.integrator == "dopri5" || o.integrator == "bdf"))
    throw SceneError("--error-estimate", "applies to the fixed-step integrators (rk4, euler, symplectic_euler); "
                                         "--integrator " + o.integrator + " controls its error itself (--rtol, --atol)");
  // The backend rules (sim/backend_rules.hpp) before any work when the flags name the
  // integrator; else once the scene is read, with its integrator (check_backend), so that
  // the first rule broken is the one the service and the Simulator name.
  if (!o.integrator.empty()) {
    BackendSettings settings{o.backend, o.precision, Integrator::Rk4};
    parse_integrator(o.integrator, settings.integrator);
    refuse_as_flags(settings);
  }
  if (o.instances == 0 || o.instances < -1)
    throw SceneError("--instances", "must be >= 1, or -1 for the scene's count (got " + std::to_string(o.instances) + ")");
  if (o.threads < 0) throw SceneError("--threads", "must be >= 0 (got " + std::to_string(o.threads) + ")");
  if (o.has_dt && !std::isfinite(o.dt)) throw SceneError("--dt", "must be a finite number");
  if (o.has_t_end && !std::isfinite(o.t_end)) throw SceneError("--t-end", "must be a finite number");
  if (!(o.checkpoint_every_s >= 0) || !std::isfinite(o.checkpoint_every_s))
    throw SceneError("--checkpoint-every", "must be a finite number of seconds >= 0 (0: no checkpoints)");
  if (o.out.empty() && std::filesystem::path(o.scene).stem().empty())
    throw SceneError("--out", "required when the scene has no file name to derive <scene stem>.h5 from");
}

Scene load_job_scene(const JobOptions& o) {
  Scene scene = o.scene_text.empty() ? load_scene(o.scene)
                                     : parse_scene(o.scene_text, o.scene.empty() ? std::string("<scene>") : o.scene);
  if (!o.solver.empty() && !scene.doc.contains("robot"))
    throw SceneError("--solver", "'" + o.solver + "' applies to robot scenes (a \"robot\" section, docs/robots.md); " +
                                     (o.scene.empty() ? std::string("the scene") : o.scene) + " has none");
  const bool integrator_options = !o.integrator.empty() || o.rtol || o.atol || o.error_estimate;
  if (o.error_estimate && o.integrator.empty()) {
    Integrator k = Integrator::Rk4;
    const nlohmann::json* s = scene.doc.contains("solver") ? &scene.doc["solver"] : nullptr;
    if (s && s->is_object() && s->contains("integrator") && (*s)["integrator"].is_string())
      parse_integrator((*s)["integrator"].get<std::string>(), k);
    if (is_adaptive(k))
      throw SceneError("--error-estimate", std::string("applies to the fixed-step integrators (rk4, euler, "
                                                       "symplectic_euler); the scene's integrator \"") +
                                               integrator_name(k) + "\" controls its error itself (solver.rtol, solver.atol)");
  }
  if (o.has_dt || o.has_t_end || !o.solver.empty() || !o.projection.empty() || integrator_options) {
    nlohmann::json doc = scene.doc;
    if (o.has_dt) doc["solver"]["dt"] = o.dt;
    if (o.has_t_end) doc["solver"]["t_end"] = o.t_end;
    if (!o.solver.empty()) doc["solver"]["type"] = o.solver;
    if (!o.projection.empty()) doc["solver"]["projection"] = o.projection;
    if (!o.integrator.empty()) doc["solver"]["integrator"] = o.integrator;
    if (o.rtol) doc["solver"]["rtol"] = *o.rtol;
    if (o.atol) doc["solver"]["atol"] = *o.atol;
    if (o.error_estimate) doc["solver"]["error_estimate"] = true;
    std::string text = std::move(scene.text);
    scene = parse_scene(doc.dump(), o.scene.empty() ? std::string("<scene>") : o.scene);
    scene.text = std::move(text);
  }
  if (!o.sensitivities.empty()) {
    nlohmann::json doc = scene.doc;
    nlohmann::json paths = nlohmann::json::array();
    std::size_t start = 0;
    while (start <= o.sensitivities.size()) {
      const std::size_t comma = std::min(o.sensitivities.find(',', start), o.sensitivities.size());
      const std::string path = o.sensitivities.substr(start, comma - start);
      if (path.empty()) throw SceneError("--sensitivities", "an empty path in \"" + o.sensitivities + "\"");
      paths.push_back(path);
      start = comma + 1;
    }
    doc["sensitivities"] = {{"parameters", paths}};
    std::string text = std::move(scene.text);
    try {
      scene = parse_scene(doc.dump(), o.scene.empty() ? std::string("<scene>") : o.scene);
    } catch (const SceneError& e) {
      throw SceneError("--sensitivities", e.what());
    }
    scene.text = std::move(text);
  }
  if (!o.datasets.empty() || !o.frames.empty() || !o.reductions.empty() || o.compression.has_value()) {
    nlohmann::json doc = scene.doc;
    apply_output_flags(doc, o.datasets, o.frames, o.reductions, o.compression);
    std::string text = std::move(scene.text);
    scene = parse_scene(doc.dump(), o.scene.empty() ? std::string("<scene>") : o.scene);
    scene.text = std::move(text);
  }
  if (o.has_seed) scene.sweep.seed = o.seed;
  return scene;
}

void check_backend(const Scene& scene, const JobOptions& o) {
  const bool named_cuda = o.backend == "cuda" || o.backend == "cuda-fused";
  // Combinations that no machine runs are bad input, before any device check: the
  // backend rules with the integrator the run steps with (the flag's or the scene's).
  refuse_as_flags({o.backend, o.precision, scene.model.solver.integrator});
  // A robot in joint coordinates (solver aba / cga) runs on cpu-simd in the joint-space
  // backend's lanes (docs/robots.md); the DAE engine's limits apply to the rest.
  const bool joint_space = scene.model.robot && scene.model.robot->solver != RobotSolver::Dae;
  if (o.backend == "cpu-simd" && !joint_space) {
    const std::string why = cpu_simd_unsupported(scene.model);
    if (!why.empty()) throw SceneError("--backend", "cpu-simd: the scene's " + why + "; use --backend cpu");
  }
  // The device, before any work or file.
  if (named_cuda) require_cuda_device(o.backend);
  const std::string no_cuda = o.precision == "fp32" ? cuda_unavailable_reason() : "";
  if (!no_cuda.empty())
    throw BackendError("--precision fp32 runs on the cuda backend only: " + no_cuda + "; use --precision fp64");
}

std::string output_path(const JobOptions& o) {
  return o.out.empty() ? std::filesystem::path(o.scene).stem().string() + ".h5" : o.out;
}

void check_output_path(const std::string& out, const std::vector<std::string>& inputs, const char* flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A symbolic link: the file it leads to is what the run writes (OutputFile).
  const fs::path p(fs::is_symlink(out, ec) ? resolve_output_links(out) : out);
  // An input, however named (a relative path, a link, "./"): the same file when both
  // exist, the same normalised path otherwise.
  const fs::path out_norm = fs::weakly_canonical(p, ec);
  for (const std::string& in : inputs) {
    std::error_code e1, e2;
    const bool same = fs::exists(p, e1) && fs::exists(in, e2) ? fs::equivalent(p, fs::path(in), e1)
                                                              : !out_norm.empty() && out_norm == fs::weakly_canonical(in, e2);
    if (same) throw SceneError(flag, out + " is an input of the run (" + in + "): choose another output file");
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::runtime_error("output " + out + ": " + dir.string() + " is not a folder");
  if (!fs::is_directory(dir, ec)) throw std::runtime_error("output " + out + ": folder " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw std::runtime_error("output " + out + ": folder " + dir.string() + " is not writable");
  if (fs::is_directory(p, ec)) throw std::runtime_error("output " + out + ": is a folder");
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw std::runtime_error("output " + out + ": exists and is not a regular file (a device, pipe or socket)");
  if (fs::exists(p, ec) && ::access(p.c_str(), W_OK) != 0)
    throw std::runtime_error("output " + out + ": exists and is not writable");
}

void check_memory(const Scene& scene, const JobOptions& o) {
  const MemoryEstimate e = estimate_run_memory(scene, o);
  check_memory_fits(e, std::to_string(e.instances) + (e.instances == 1 ? " instance" : " instances"),
                    "use fewer instances" + std::string(e.simulator.workers > 1 ? " or fewer --threads" : ""));
}

}  // namespace simphant::job_detail
