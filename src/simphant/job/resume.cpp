#include "simphant/job/resume.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "simphant/core/durable_file.hpp"
#include "simphant/io/h5_file.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant {

namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path, "cannot read the scene file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The stored options, as JobOptions (scene_text, threads, checkpoint_every_s, out and
/// resume are not stored).
JobOptions parse_options(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  JobOptions o;
  o.scene = j.at("scene").get<std::string>();
  o.instances = j.at("instances").get<int>();
  o.has_dt = j.at("has_dt").get<bool>();
  o.dt = j.at("dt").get<double>();
  o.has_t_end = j.at("has_t_end").get<bool>();
  o.t_end = j.at("t_end").get<double>();
  o.has_seed = j.at("has_seed").get<bool>();
  o.seed = j.at("seed").get<std::uint64_t>();
  o.backend = j.at("backend").get<std::string>();
  o.precision = j.at("precision").get<std::string>();
  o.solver = j.at("solver").get<std::string>();
  o.projection = j.value("projection", std::string());
  o.integrator = j.value("integrator", std::string());
  if (j.contains("rtol") && j["rtol"].is_number()) o.rtol = j["rtol"].get<double>();
  if (j.contains("atol") && j["atol"].is_number()) o.atol = j["atol"].get<double>();
  o.error_estimate = j.value("error_estimate", false);
  o.shard_index = j.at("shard_index").get<int>();
  o.shard_count = j.at("shard_count").get<int>();
  o.datasets = j.value("datasets", std::string());
  o.frames = j.value("frames", std::string());
  o.reductions = j.value("reductions", std::string());
  // Absent, null or -1 (checkpoints of earlier versions): the flag was not given.
  if (j.contains("compression") && j["compression"].is_number_integer() && j["compression"].get<int>() != -1)
    o.compression = j["compression"].get<int>();
  return o;
}

template <class T>
std::string str(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "'" + v + "'";
  } else {
    std::ostringstream s;
    s.precision(17);
    s << v;
    return s.str();
  }
}

/// Refuses a given option whose value differs from the run's.
template <class T>
void same(bool given, const T& given_value, bool stored, const T& stored_value, const char* flag,
          const std::string& source) {
  if (!given || (stored && given_value == stored_value)) return;
  throw SceneError(flag, "the run to resume (" + source + ") ran with " +
                             (stored ? str(stored_value) : std::string("the scene's value (no ") + flag + ")") +
                             ", got " + str(given_value) + "; leave it out or give the same value");
}

}  // namespace

bool resumable(const std::string& out) {
  std::error_code ec;
  if (fs::exists(checkpoint_file_name(out), ec)) return true;
  if (!fs::exists(out, ec)) return false;
  try {
    h5::Handle f = h5::open_file_readonly(out);
    return h5::attr_exists(f.id(), "interrupted") && h5::read_attr_int64(f.id(), "interrupted") != 0 &&
           h5::exists(f.id(), job_detail::kCheckpointGroup);
  } catch (const h5::H5Error&) {
    return false;
  }
}

namespace job_detail {

std::string backend_option(const std::string& backend, const std::string& requested) {
  if (backend == "cpu" || backend == "cpu-simd" || backend == "cuda" || backend == "cuda-fused") return backend;
  const auto ends_with = [&](const std::string& tail) {
    return backend.size() >= tail.size() && backend.compare(backend.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (backend.rfind("cuda-reduced-", 0) == 0) return "cuda";                   // the GPU joint-space backend
  if (backend.rfind("reduced-", 0) == 0) return ends_with("-lanes") ? "cpu-simd" : "cpu";  // its CPU forms
  return requested;
}

std::string stored_options(const JobOptions& o, const std::string& backend) {
  nlohmann::json j;
  j["scene"] = o.scene;
  j["instances"] = o.instances;
  j["has_dt"] = o.has_dt;
  j["dt"] = o.dt;
  j["has_t_end"] = o.has_t_end;
  j["t_end"] = o.t_end;
  j["has_seed"] = o.has_seed;
  j["seed"] = o.seed;
  j["backend"] = backend_option(backend, o.backend);
  j["precision"] = o.precision;
  j["solver"] = o.solver;
  j["projection"] = o.projection;
  j["integrator"] = o.integrator;
  j["rtol"] = o.rtol ? nlohmann::json(*o.rtol) : nlohmann::json(nullptr);
  j["atol"] = o.atol ? nlohmann::json(*o.atol) : nlohmann::json(nullptr);
  j["error_estimate"] = o.error_estimate;
  j["shard_index"] = o.shard_index;
  j["shard_count"] = o.shard_count;
  j["datasets"] = o.datasets;
  j["frames"] = o.frames;
  j["reductions"] = o.reductions;
  j["compression"] = o.compression ? nlohmann::json(*o.compression) : nlohmann::json(nullptr);
  return j.dump();
}

ResumePoint find_resume(const JobOptions& given) {
  const std::string out = given.resume;
  const std::string ckpt = checkpoint_file_name(out);
  std::error_code ec;
  ResumePoint r;
  const bool from_checkpoint = fs::exists(ckpt, ec);
  if (!from_checkpoint && !fs::exists(out, ec))
    throw SceneError("--resume", out + ": no such file, and no checkpoint " + ckpt + " beside it");
  r.source = from_checkpoint ? ckpt : out;
  std::string options_text, scene_text;
  try {
    h5::Handle f = h5::open_file_readonly(r.source);
    if (!h5::attr_exists(f.id(), "interrupted") || !h5::attr_exists(f.id(), "scene"))
      throw SceneError("--resume", r.source + ": not the output of simphant run (no interrupted / scene attribute)");
    if (!from_checkpoint && h5::read_attr_int64(f.id(), "interrupted") == 0)
      throw SceneError("--resume", out + ": the run completed (stop_reason \"completed\"): there is nothing to resume");
    if (!h5::exists(f.id(), kCheckpointGroup))
      throw SceneError("--resume", r.source + ": holds no checkpoint (stop_reason \"" +
                                       h5::read_attr_string(f.id(), "stop_reason") +
                                       "\"); a run can be resumed after a stop signal, or from the checkpoint file that "
                                       "--checkpoint-every writes beside its output");
    h5::Handle g(H5Gopen2(f.id(), kCheckpointGroup, H5P_DEFAULT), H5Gclose);
    if (!g.valid()) throw h5::H5Error("H5Gopen2(/checkpoint) failed");
    const std::int64_t format = h5::read_attr_int64(g.id(), "format");
    const std::string version = h5::read_attr_string(g.id(), "version");
    if (version != SIMPHANT_VERSION)
      throw SceneError("--resume", r.source + ": written by simphant " + version + ", this is simphant " +
                                       SIMPHANT_VERSION + " (a run continues only with the version that started it)");
    if (format != kCheckpointFormat)
      throw SceneError("--resume", r.source + ": checkpoint format " + std::to_string(format) +
                                       ", this simphant reads format " + std::to_string(kCheckpointFormat));
    options_text = h5::read_attr_string(g.id(), "options");
    r.at = read_loop_point(g.id());
    scene_text = h5::read_attr_string(f.id(), "scene");
    if (h5::attr_exists(f.id(), "sweep_design_crc64")) r.design_crc64 = h5::read_attr_string(f.id(), "sweep_design_crc64");
    if (h5::attr_exists(f.id(), "input_files")) r.input_files = h5::read_attr_string(f.id(), "input_files");
  } catch (const h5::H5Error& e) {
    throw SceneError("--resume", r.source + ": cannot read its checkpoint: " + e.what());
  }
  JobOptions stored;
  try {
    stored = parse_options(options_text);
  } catch (const nlohmann::json::exception& e) {
    throw SceneError("--resume", r.source + ": the stored options cannot be read: " + e.what());
  }

  // The given scene, if any, must be the run's.
  if (!given.scene_text.empty() || !given.scene.empty()) {
    const std::string text = given.scene_text.empty() ? read_text(given.scene) : given.scene_text;
    if (text != scene_text)
      throw SceneError("scene", (given.scene.empty() ? std::string("the given scene text") : given.scene) +
                                    " differs from the scene of the run to resume (stored in " + r.source + ")");
  }
  const std::string& src = r.source;
  same(given.instances != -1, given.instances, stored.instances != -1, stored.instances, "--instances", src);
  same(given.has_dt, given.dt, stored.has_dt, stored.dt, "--dt", src);
  same(given.has_t_end, given.t_end, stored.has_t_end, stored.t_end, "--t-end", src);
  same(given.has_seed, given.seed, stored.has_seed, stored.seed, "--seed", src);
  same(given.backend != "auto", given.backend, true, stored.backend, "--backend", src);
  same(given.precision != "fp64", given.precision, true, stored.precision, "--precision", src);
  same(!given.solver.empty(), given.solver, !stored.solver.empty(), stored.solver, "--solver", src);
  same(!given.projection.empty(), given.projection, !stored.projection.empty(), stored.projection, "--projection", src);
  same(!given.integrator.empty(), given.integrator, !stored.integrator.empty(), stored.integrator, "--integrator", src);
  same(given.rtol.has_value(), given.rtol.value_or(0), stored.rtol.has_value(), stored.rtol.value_or(0), "--rtol", src);
  same(given.atol.has_value(), given.atol.value_or(0), stored.atol.has_value(), stored.atol.value_or(0), "--atol", src);
  same(given.error_estimate, given.error_estimate, stored.error_estimate, stored.error_estimate, "--error-estimate", src);
  same(!given.datasets.empty(), given.datasets, !stored.datasets.empty(), stored.datasets, "--datasets", src);
  same(!given.frames.empty(), given.frames, !stored.frames.empty(), stored.frames, "--frames", src);
  same(!given.reductions.empty(), given.reductions, !stored.reductions.empty(), stored.reductions, "--reductions", src);
  same(given.compression.has_value(), given.compression.value_or(0), stored.compression.has_value(),
       stored.compression.value_or(0), "--compression", src);
  const auto shard_text = [](const JobOptions& o) { return std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count); };
  same(given.shard_count != 1 || given.shard_index != 0, shard_text(given), stored.shard_count != 1, shard_text(stored),
       "--shard", src);
  if (!given.out.empty() && fs::weakly_canonical(given.out, ec) != fs::weakly_canonical(out, ec))
    throw SceneError("--out", "a resumed run writes the output it continues (" + out + "), got " + given.out);

  r.options = stored;
  r.options.scene_text = scene_text;
  r.options.threads = given.threads;
  r.options.checkpoint_every_s = given.checkpoint_every_s;
  r.options.out = out;
  r.options.resume.clear();
  return r;
}

void check_resumed_design(const ResumePoint& resume, const SweepSpec& sweep) {
  if (resume.design_crc64 == sweep.design_crc64) return;
  throw SceneError("/sweep/file", sweep.design_file + ": the design file differs from the one the run to resume read (CRC-64 " +
                                      (sweep.design_crc64.empty() ? std::string("none") : sweep.design_crc64) +
                                      ", stored in " + resume.source + ": " +
                                      (resume.design_crc64.empty() ? std::string("none") : resume.design_crc64) +
                                      "); restore it, or start a new run");
}

BatchState take_checkpoint(const ResumePoint& resume, const std::string& partial) {
  copy_file(resume.source, partial, false);
  try {
    h5::Handle f = h5::open_file_readwrite(partial);
    BatchState b = read_checkpoint_state(f.id());
    h5::remove_link(f.id(), kCheckpointGroup);
    if (!f.close()) throw h5::H5Error("closing " + partial + " failed");
    return b;
  } catch (const h5::H5Error& e) {
    throw std::runtime_error("resuming from " + resume.source + ": " + e.what());
  }
}

}  // namespace job_detail
}  // namespace simphant
