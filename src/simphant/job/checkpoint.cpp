#include "simphant/job/checkpoint.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "simphant/io/h5_file.hpp"
#include "simphant/log/log.hpp"
#include "simphant/scene/scene.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kFormat = 2;
/// A checkpoint that takes more than this share of the interval is reported (once).
constexpr double kWarnShare = 0.02;  ///< layout of /checkpoint (checkpoint.hpp); bump on any change
const char* const kGroup = "checkpoint";

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Copies `from` to `to` (created or truncated, mode 0644): a reflink where the file
/// system shares extents (FICLONE: btrfs, xfs), else copy_file_range(2), else read and
/// write. fsync when `durable`. Throws std::runtime_error naming the file and errno.
void copy_file(const std::string& from, const std::string& to, bool durable) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw std::runtime_error("cannot open " + from + ": " + std::strerror(errno));
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    throw std::runtime_error("cannot create " + to + ": " + std::strerror(err));
  }
  int err = 0;
  if (::ioctl(out, FICLONE, in) != 0) {
    struct stat st {};
    err = ::fstat(in, &st) == 0 ? 0 : errno;
    off_t left = err == 0 ? st.st_size : 0;
    bool plain = false;  // copy_file_range not supported here: read and write
    while (err == 0 && left > 0) {
      ssize_t n = plain ? -1 : ::copy_file_range(in, nullptr, out, nullptr, static_cast<std::size_t>(left), 0);
      if (n < 0 && !plain && (errno == ENOSYS || errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP)) {
        plain = true;
        if (::lseek(in, st.st_size - left, SEEK_SET) < 0) err = errno;
        continue;
      }
      if (plain) {
        static thread_local std::vector<char> buf(std::size_t{1} << 20);
        n = ::read(in, buf.data(), std::min<std::size_t>(buf.size(), static_cast<std::size_t>(left)));
        for (ssize_t done = 0; n > 0 && done < n;) {
          const ssize_t w = ::write(out, buf.data() + done, static_cast<std::size_t>(n - done));
          if (w < 0) {
            err = errno;
            break;
          }
          done += w;
        }
      }
      if (n < 0 && err == 0) err = errno;
      if (n == 0 && err == 0) err = EIO;  // the source shrank under us
      if (n > 0) left -= n;
    }
  }
  if (err == 0 && durable && ::fsync(out) != 0) err = errno;
  ::close(in);
  if (::close(out) != 0 && err == 0) err = errno;
  if (err != 0) throw std::runtime_error("copying " + from + " to " + to + " failed: " + std::strerror(err));
}

void fsync_folder_of(const std::string& path) {
  std::string folder = fs::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // the rename durable too; a file system that cannot is no reason to stop
  ::close(fd);
}

void write_vector(hid_t group, const std::string& name, hid_t type, const std::vector<hsize_t>& dims, const void* data) {
  h5::write_dataset(group, name, type, dims, data);
}

/// Writes the dt/2 batch of an error-estimate run into /checkpoint/error_estimate.
void write_half(hid_t checkpoint, const Simulator& half) {
  const int n = half.n_instances(), S = half.state_size();
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> y(N * static_cast<std::size_t>(S));
  std::vector<std::int64_t> steps(N), status_steps(N);
  std::vector<std::int8_t> status(N), reasons(N);
  half.get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), nullptr, reasons.data());
  h5::Handle g = h5::create_group(checkpoint, "error_estimate");
  const auto I = static_cast<hsize_t>(n);
  write_vector(g.id(), "y", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(S)}, y.data());
  write_vector(g.id(), "steps", H5T_NATIVE_INT64, {I}, steps.data());
  write_vector(g.id(), "status", H5T_NATIVE_INT8, {I}, status.data());
  write_vector(g.id(), "status_steps", H5T_NATIVE_INT64, {I}, status_steps.data());
  write_vector(g.id(), "status_reason", H5T_NATIVE_INT8, {I}, reasons.data());
}

/// Writes /checkpoint into `file` (the group must not exist).
void write_state(hid_t file, Simulator& sim, const RunStats& stats, const job_detail::LoopPoint& at,
                 const std::string& options, const Simulator* half) {
  const int n = sim.n_instances(), S = sim.state_size();
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> y(N * static_cast<std::size_t>(S));
  std::vector<std::int64_t> steps(N), status_steps(N);
  std::vector<std::int8_t> status(N), reasons(N);
  std::vector<std::uint64_t> episodes(N);
  sim.get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data(),
                reasons.data());

  h5::Handle g = h5::create_group(file, kGroup);
  const hid_t gid = g.id();
  const auto I = static_cast<hsize_t>(n);
  write_vector(gid, "y", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(S)}, y.data());
  write_vector(gid, "steps", H5T_NATIVE_INT64, {I}, steps.data());
  write_vector(gid, "status", H5T_NATIVE_INT8, {I}, status.data());
  write_vector(gid, "status_steps", H5T_NATIVE_INT64, {I}, status_steps.data());
  write_vector(gid, "status_reason", H5T_NATIVE_INT8, {I}, reasons.data());
  write_vector(gid, "episodes", H5T_NATIVE_UINT64, {I}, episodes.data());
  const ArrayView v = sim.inputs_view();
  if (v.data != nullptr && !v.device && v.dtype_bits == 64 && v.ndim == 2 && v.shape[1] > 0) {
    const auto U = static_cast<std::size_t>(v.shape[1]);
    std::vector<double> u(N * U);
    const auto* src = static_cast<const double*>(v.data);
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < U; ++j) u[i * U + j] = src[i * v.strides[0] + j * v.strides[1]];
    write_vector(gid, "inputs", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(U)}, u.data());
  }
  const ReductionLayout L = sim.reduction_layout();
  if (L.any()) {  // the accumulators of the reductions over time, so that a resumed run's equal an uninterrupted run's
    std::vector<double> acc(N * static_cast<std::size_t>(L.size()));
    sim.get_reduction_state(acc.data());
    write_vector(gid, "reductions", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(L.size())}, acc.data());
  }
  if (const int W = sim.integrator_state_size(); W > 0) {  // an adaptive integrator's steps continue as they were
    std::vector<double> integ(N * static_cast<std::size_t>(W));
    sim.get_integrator_state(integ.data());
    write_vector(gid, "integrator_state", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(W)}, integ.data());
  }
  {  // the refined solves so far, so that a resumed run's /refinement equals an uninterrupted run's
    std::vector<std::int64_t> unconverged(N);
    std::vector<double> worst(N), worst_time(N);
    sim.read_refinement(unconverged.data(), worst.data(), worst_time.data());
    h5::Handle rg = h5::create_group(gid, "refinement");
    write_vector(rg.id(), "unconverged", H5T_NATIVE_INT64, {I}, unconverged.data());
    write_vector(rg.id(), "max_error", H5T_NATIVE_DOUBLE, {I}, worst.data());
    write_vector(rg.id(), "max_error_time", H5T_NATIVE_DOUBLE, {I}, worst_time.data());
  }
  const RunStats::Saved s = stats.save();
  h5::Handle sg = h5::create_group(gid, "stats");
  write_vector(sg.id(), "e0", H5T_NATIVE_DOUBLE, {I}, s.e0.data());
  write_vector(sg.id(), "max_violation", H5T_NATIVE_DOUBLE, {I}, s.max_violation.data());
  write_vector(sg.id(), "max_abs_drift", H5T_NATIVE_DOUBLE, {I}, s.max_abs_drift.data());
  write_vector(sg.id(), "max_ke", H5T_NATIVE_DOUBLE, {I}, s.max_ke.data());
  write_vector(sg.id(), "drift_time", H5T_NATIVE_DOUBLE, {I}, s.drift_time.data());
  if (half != nullptr) write_half(gid, *half);

  h5::write_attr(gid, "format", kFormat);
  h5::write_attr(gid, "version", SIMPHANT_VERSION);
  h5::write_attr(gid, "options", options);
  h5::write_attr(gid, "steps_done", at.steps_done);
  h5::write_attr(gid, "since_record", at.since_record);
  h5::write_attr(gid, "frames", at.frames);
  h5::write_attr(gid, "wall_time_s", at.wall_s);
  h5::write_attr(gid, "loop_wall_time_s", at.loop_wall_s);
  h5::write_attr(gid, "stats_have_e0", s.have_e0 ? 1 : 0);
}

job_detail::LoopPoint read_point(hid_t g) {
  job_detail::LoopPoint at;
  at.steps_done = h5::read_attr_int64(g, "steps_done");
  at.since_record = h5::read_attr_int64(g, "since_record");
  at.frames = h5::read_attr_int64(g, "frames");
  at.wall_s = h5::read_attr_double(g, "wall_time_s");
  at.loop_wall_s = h5::read_attr_double(g, "loop_wall_time_s");
  return at;
}

job_detail::BatchState read_state(hid_t file) {
  job_detail::BatchState b;
  h5::Handle g(H5Gopen2(file, kGroup, H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw h5::H5Error("H5Gopen2(/checkpoint) failed");
  const hid_t gid = g.id();
  b.at = read_point(gid);
  const std::vector<hsize_t> dims = h5::dataset_dims(gid, "y");
  if (dims.size() != 2) throw h5::H5Error("/checkpoint/y: not 2-D");
  b.n_instances = static_cast<int>(dims[0]);
  b.state_size = static_cast<int>(dims[1]);
  const auto N = static_cast<std::size_t>(b.n_instances);
  b.y.resize(N * static_cast<std::size_t>(b.state_size));
  b.steps.resize(N);
  b.status_steps.resize(N);
  b.status.resize(N);
  b.reasons.resize(N);
  b.episodes.resize(N);
  h5::read_dataset(gid, "y", H5T_NATIVE_DOUBLE, b.y.data(), b.y.size());
  h5::read_dataset(gid, "steps", H5T_NATIVE_INT64, b.steps.data(), N);
  h5::read_dataset(gid, "status", H5T_NATIVE_INT8, b.status.data(), N);
  h5::read_dataset(gid, "status_steps", H5T_NATIVE_INT64, b.status_steps.data(), N);
  h5::read_dataset(gid, "status_reason", H5T_NATIVE_INT8, b.reasons.data(), N);
  h5::read_dataset(gid, "episodes", H5T_NATIVE_UINT64, b.episodes.data(), N);
  if (h5::exists(gid, "inputs")) {
    const std::vector<hsize_t> udims = h5::dataset_dims(gid, "inputs");
    if (udims.size() != 2 || udims[0] != N) throw h5::H5Error("/checkpoint/inputs: not (instances, inputs)");
    b.n_inputs = static_cast<int>(udims[1]);
    b.inputs.resize(N * udims[1]);
    h5::read_dataset(gid, "inputs", H5T_NATIVE_DOUBLE, b.inputs.data(), b.inputs.size());
  }
  if (h5::exists(gid, "reductions")) {
    const std::vector<hsize_t> rdims = h5::dataset_dims(gid, "reductions");
    if (rdims.size() != 2 || rdims[0] != N) throw h5::H5Error("/checkpoint/reductions: not (instances, accumulator)");
    b.reduction_size = static_cast<int>(rdims[1]);
    b.reductions.resize(N * rdims[1]);
    h5::read_dataset(gid, "reductions", H5T_NATIVE_DOUBLE, b.reductions.data(), b.reductions.size());
  }
  if (h5::exists(gid, "integrator_state")) {
    const std::vector<hsize_t> idims = h5::dataset_dims(gid, "integrator_state");
    if (idims.size() != 2 || idims[0] != N) throw h5::H5Error("/checkpoint/integrator_state: not (instances, state)");
    b.integrator_state_size = static_cast<int>(idims[1]);
    b.integrator_state.resize(N * idims[1]);
    h5::read_dataset(gid, "integrator_state", H5T_NATIVE_DOUBLE, b.integrator_state.data(), b.integrator_state.size());
  }
  if (h5::exists(gid, "refinement")) {
    h5::Handle rg(H5Gopen2(gid, "refinement", H5P_DEFAULT), H5Gclose);
    if (!rg.valid()) throw h5::H5Error("H5Gopen2(/checkpoint/refinement) failed");
    b.refine_unconverged.resize(N);
    b.refine_worst.resize(N);
    b.refine_worst_time.resize(N);
    h5::read_dataset(rg.id(), "unconverged", H5T_NATIVE_INT64, b.refine_unconverged.data(), N);
    h5::read_dataset(rg.id(), "max_error", H5T_NATIVE_DOUBLE, b.refine_worst.data(), N);
    h5::read_dataset(rg.id(), "max_error_time", H5T_NATIVE_DOUBLE, b.refine_worst_time.data(), N);
  }
  h5::Handle sg(H5Gopen2(gid, "stats", H5P_DEFAULT), H5Gclose);
  if (!sg.valid()) throw h5::H5Error("H5Gopen2(/checkpoint/stats) failed");
  b.stats.have_e0 = h5::read_attr_int64(gid, "stats_have_e0") != 0;
  for (auto [name, v] : {std::pair{"e0", &b.stats.e0}, std::pair{"max_violation", &b.stats.max_violation},
                         std::pair{"max_abs_drift", &b.stats.max_abs_drift}, std::pair{"max_ke", &b.stats.max_ke}}) {
    v->resize(N);
    h5::read_dataset(sg.id(), name, H5T_NATIVE_DOUBLE, v->data(), N);
  }
  // The time of the largest drift (job/energy_check.hpp); NaN in a checkpoint written before it was kept.
  b.stats.drift_time.assign(N, std::nan(""));
  if (h5::exists(sg.id(), "drift_time")) h5::read_dataset(sg.id(), "drift_time", H5T_NATIVE_DOUBLE, b.stats.drift_time.data(), N);
  if (h5::exists(gid, "error_estimate")) {
    h5::Handle hg(H5Gopen2(gid, "error_estimate", H5P_DEFAULT), H5Gclose);
    if (!hg.valid()) throw h5::H5Error("H5Gopen2(/checkpoint/error_estimate) failed");
    const std::vector<hsize_t> hdims = h5::dataset_dims(hg.id(), "y");
    if (hdims != dims) throw h5::H5Error("/checkpoint/error_estimate/y: not the shape of /checkpoint/y");
    b.has_half = true;
    b.half_y.resize(b.y.size());
    b.half_steps.resize(N);
    b.half_status_steps.resize(N);
    b.half_status.resize(N);
    b.half_reasons.resize(N);
    h5::read_dataset(hg.id(), "y", H5T_NATIVE_DOUBLE, b.half_y.data(), b.half_y.size());
    h5::read_dataset(hg.id(), "steps", H5T_NATIVE_INT64, b.half_steps.data(), N);
    h5::read_dataset(hg.id(), "status", H5T_NATIVE_INT8, b.half_status.data(), N);
    h5::read_dataset(hg.id(), "status_steps", H5T_NATIVE_INT64, b.half_status_steps.data(), N);
    h5::read_dataset(hg.id(), "status_reason", H5T_NATIVE_INT8, b.half_reasons.data(), N);
  }
  return b;
}

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

std::string checkpoint_file_name(const std::string& out) {
  const fs::path p(out);
  return (p.parent_path() / ("." + p.filename().string() + ".checkpoint.h5")).string();
}

bool resumable(const std::string& out) {
  std::error_code ec;
  if (fs::exists(checkpoint_file_name(out), ec)) return true;
  if (!fs::exists(out, ec)) return false;
  try {
    h5::Handle f = h5::open_file_readonly(out);
    return h5::attr_exists(f.id(), "interrupted") && h5::read_attr_int64(f.id(), "interrupted") != 0 &&
           h5::exists(f.id(), kGroup);
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
    if (!h5::exists(f.id(), kGroup))
      throw SceneError("--resume", r.source + ": holds no checkpoint (stop_reason \"" +
                                       h5::read_attr_string(f.id(), "stop_reason") +
                                       "\"); a run can be resumed after a stop signal, or from the checkpoint file that "
                                       "--checkpoint-every writes beside its output");
    h5::Handle g(H5Gopen2(f.id(), kGroup, H5P_DEFAULT), H5Gclose);
    if (!g.valid()) throw h5::H5Error("H5Gopen2(/checkpoint) failed");
    const std::int64_t format = h5::read_attr_int64(g.id(), "format");
    const std::string version = h5::read_attr_string(g.id(), "version");
    if (version != SIMPHANT_VERSION)
      throw SceneError("--resume", r.source + ": written by simphant " + version + ", this is simphant " +
                                       SIMPHANT_VERSION + " (a run continues only with the version that started it)");
    if (format != kFormat)
      throw SceneError("--resume", r.source + ": checkpoint format " + std::to_string(format) +
                                       ", this simphant reads format " + std::to_string(kFormat));
    options_text = h5::read_attr_string(g.id(), "options");
    r.at = read_point(g.id());
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
    BatchState b = read_state(f.id());
    h5::remove_link(f.id(), kGroup);
    if (!f.close()) throw h5::H5Error("closing " + partial + " failed");
    return b;
  } catch (const h5::H5Error& e) {
    throw std::runtime_error("resuming from " + resume.source + ": " + e.what());
  }
}

void restore_batch(const BatchState& b, Simulator& sim, RunStats& stats, Simulator* half) {
  if (b.n_instances != sim.n_instances() || b.state_size != sim.state_size())
    throw SceneError("--resume", "the checkpoint holds " + std::to_string(b.n_instances) + " instances of " +
                                     std::to_string(b.state_size) + " state numbers, the rebuilt run " +
                                     std::to_string(sim.n_instances()) + " of " + std::to_string(sim.state_size()) +
                                     " (did a file the scene reads, e.g. its URDF, change?)");
  const int n = sim.n_instances();
  sim.set_steps_taken(b.at.steps_done);
  sim.set_state(nullptr, n, b.y.data(), b.steps.data(), b.status.data(), b.status_steps.data(), b.episodes.data(),
                b.reasons.data());
  if (b.n_inputs > 0) {
    const ArrayView v = sim.inputs_view();
    if (v.ndim != 2 || v.shape[1] != b.n_inputs)
      throw SceneError("--resume", "the checkpoint holds " + std::to_string(b.n_inputs) + " inputs per instance, the "
                                       "rebuilt run " + std::to_string(v.ndim == 2 ? v.shape[1] : 0));
    sim.set_inputs(nullptr, n, b.inputs.data());
  }
  // After set_state (which restarts an adaptive integration): the integrator's own state,
  // so that its steps continue as they were.
  if (const int W = sim.integrator_state_size(); W > 0) {
    if (b.integrator_state_size != W)
      throw SceneError("--resume", "the checkpoint holds " + std::to_string(b.integrator_state_size) +
                                       " integrator state numbers per instance, the rebuilt run " + std::to_string(W));
    sim.set_integrator_state(b.integrator_state.data());
  }
  const int w = sim.reduction_layout().size();
  if (sim.reduction_layout().any()) {  // the job enabled the run's reductions before restoring
    if (b.reduction_size != w)
      throw SceneError("--resume", "the checkpoint holds " + std::to_string(b.reduction_size) +
                                       " reduction accumulators per instance, the rebuilt run " + std::to_string(w));
    sim.set_reduction_state(b.reductions.data());
  }
  if (half != nullptr) {
    if (!b.has_half)
      throw SceneError("--resume", "the run estimates its error (solver.error_estimate) but the checkpoint holds no "
                                   "dt/2 batch (/checkpoint/error_estimate)");
    half->set_steps_taken(2 * b.at.steps_done);
    half->set_state(nullptr, n, b.half_y.data(), b.half_steps.data(), b.half_status.data(),
                    b.half_status_steps.data(), nullptr, b.half_reasons.data());
  }
  stats.restore(b.stats);
  if (!b.refine_unconverged.empty())
    sim.set_refinement_before(b.refine_unconverged.data(), b.refine_worst.data(), b.refine_worst_time.data());
}

Checkpointer::Checkpointer(const std::string& out, double every_s, std::string options)
    : out_(out), path_(checkpoint_file_name(out)), temp_(path_ + ".tmp"), options_(std::move(options)), every_s_(every_s),
      last_(now_s()) {}

void Checkpointer::start() { last_ = now_s(); }

bool Checkpointer::due() const { return every_s_ > 0 && now_s() - last_ >= every_s_; }

void Checkpointer::save(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                        const Simulator* half) {
  const double t0 = now_s();
  try {
    h5::flush(recorder.file_id());
    copy_file(recorder.path(), temp_, false);
    {
      h5::Handle f = h5::open_file_readwrite(temp_);
      write_state(f.id(), sim, stats, at, options_, half);
      if (!f.close()) throw h5::H5Error("closing " + temp_ + " failed");
    }
    const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
      const int err = errno;
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("fsync " + temp_ + ": " + std::strerror(err));
    }
    ::close(fd);
    if (::rename(temp_.c_str(), path_.c_str()) != 0)
      throw std::runtime_error("cannot rename " + temp_ + " onto " + path_ + ": " + std::strerror(errno));
    fsync_folder_of(path_);
    ++count_;
    const double took = now_s() - t0;
    std::error_code ec;
    const double bytes = static_cast<double>(fs::file_size(path_, ec));
    logger().debug("checkpoint {} at step {} ({} frames, {:.0f} bytes) in {:.4f} s", path_, at.steps_done, at.frames,
                   bytes, took);
    // The copy grows with the file: say so once when it takes a noticeable share of the run.
    if (!warned_cost_ && took > kWarnShare * every_s_) {
      warned_cost_ = true;
      logger().warn("checkpoint of {:.0f} MB took {:.2f} s, {:.1f} % of the --checkpoint-every interval of {:g} s; "
                    "--checkpoint-every {:.0f} keeps it near 1 % (docs/checkpoints.md)",
                    bytes / 1e6, took, 100 * took / every_s_, every_s_, std::ceil(100 * took));
    }
  } catch (const std::exception& e) {
    ::unlink(temp_.c_str());
    // Warned once per reason: a full disk stays full for many intervals.
    const std::string why = e.what();
    if (why != failure_) {
      logger().warn("checkpoint {} not written: {}; the run goes on{}", path_, why,
                    count_ > 0 ? " (the previous checkpoint is kept)" : "");
    } else {
      logger().debug("checkpoint {} not written again: {}", path_, why);
    }
    failure_ = why;
  }
  const double t1 = now_s();
  seconds_ += t1 - t0;
  last_ = t1;
}

void Checkpointer::store(const Recorder& recorder, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                         const Simulator* half) {
  write_state(recorder.file_id(), sim, stats, at, options_, half);
  h5::flush(recorder.file_id());
}

void Checkpointer::discard() {
  ::unlink(temp_.c_str());
  ::unlink(path_.c_str());
  // Temporary files of killed runs of this output: superseded now, and no other run can
  // be writing one (this run still holds the output's lock).
  std::error_code ec;
  const std::string prefix = "." + fs::path(out_).filename().string() + ".partial-";
  const fs::path folder = fs::path(out_).parent_path().empty() ? fs::path(".") : fs::path(out_).parent_path();
  try {
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() &&
          name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
        fs::remove(e.path(), ec);
    }
  } catch (const fs::filesystem_error& e) {
    logger().debug("cleaning temporary files beside {}: {}", out_, e.what());  // they stay, recognisable
  }
}

}  // namespace job_detail
}  // namespace simphant
