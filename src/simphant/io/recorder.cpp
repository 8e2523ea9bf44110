#include "simphant/io/recorder.hpp"

#include <algorithm>
#include <cstring>

#include "simphant/formulas/runaway.hpp"
#include "simphant/io/h5_dims.hpp"
#include "simphant/model/components.hpp"
#include "simphant/model/step_count.hpp"
#include "simphant/model/violation_units.hpp"
#include "simphant/sim/backend.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant {

namespace {


void write_units_list(hid_t obj, const std::vector<std::string>& units) {
  if (units.empty()) return;  // not known (a sweep parameter of another key)
  if (units.size() == 1) {
    h5::write_units(obj, units.front());
  } else {
    h5::write_units(obj, units);
  }
}

h5::Handle open_object(hid_t file, const std::string& path) {
  const hid_t id = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  if (id < 0) throw h5::H5Error("H5Oopen(" + path + ") failed");
  return h5::Handle(id, H5Oclose);
}

/// Dimensions, units and long_name of the dataset at `path`.
void describe(hid_t file, const std::string& path, const std::vector<std::string>& dims,
              const std::vector<std::string>& units, const std::string& long_name = "") {
  h5::attach_dimensions(file, path, dims);
  const h5::Handle obj = open_object(file, path);
  write_units_list(obj.id(), units);
  if (!long_name.empty()) h5::write_attr(obj.id(), "long_name", long_name);
}

}  // namespace

std::string sweep_units(const std::string& path) {
  std::string key = path.substr(path.find_last_of('.') + 1);
  key = key.substr(0, key.find('['));
  // A joint's end stops (joints.<name>.limits.*): rad or m by the joint, restitution 1.
  if (path.find(".limits.") != std::string::npos) return key == "restitution" ? "1" : "";
  static const std::vector<std::pair<const char*, const char*>> table = {
      {"mass", "kg"},          {"inertia", "kg m^2"},    {"position", "m"},        {"velocity", "m/s"},
      {"angular_velocity", "rad/s"}, {"origin", "m"},     {"stiffness", "N/m"},     {"damping", "N s/m"},
      {"rest_length", "m"},    {"force", "N"},           {"torque", "N m"},    {"dt", "s"},              {"t_end", "s"},           {"gravity", "m/s^2"},
      {"violation_bound", "1"}, {"baumgarte_alpha", "1/s"}, {"baumgarte_beta", "1/s"}, {"tikhonov_epsilon", "1"}};
  for (const auto& [name, units] : table)
    if (key == name) return units;
  return "";
}


std::vector<FrameDatasetSpec> Recorder::standard_frame_datasets(const RecorderInfo& info) {
  const auto I = static_cast<hsize_t>(info.n_instances);
  const auto B = static_cast<hsize_t>(info.body_names.size());
  const auto J = static_cast<hsize_t>(info.joint_names.size());
  std::vector<FrameDatasetSpec> specs = {
      {"state", "state", {I, B, 13}, {"instance", "body", "state_component"}, component_units(kStateTable),
       "body state: r (CoM, world), p = (w, x, y, z) body to world, v (CoM, world), omega (body frame)", {}},
      {"reactions", "reactions", {I, J, 6}, {"instance", "joint", "reaction_component"}, component_units(kReactionTable),
       "force and torque each joint applies to its body_j at the anchor, world frame", {}},
      {"constraint_violation", "constraint_violation", {I}, {"instance"}, {kConstraintViolationUnits},
       "max |Phi| over the constraint rows (position rows [m], orientation rows dimensionless)", {}},
      {"energy", "energy", {I}, {"instance"}, {"J"}, "kinetic + gravity potential + spring potential energy", {}},
  };
  if (!info.joint_coordinate_names.empty()) {
    const auto n = static_cast<hsize_t>(info.joint_coordinate_names.size());
    std::vector<std::string> q = info.joint_coordinate_units, qd, tau;
    if (q.size() != info.joint_coordinate_names.size()) q.assign(info.joint_coordinate_names.size(), "1");
    for (const std::string& u : q) {
      qd.push_back(u == "rad" ? "rad/s" : u == "m" ? "m/s" : "1");
      tau.push_back(u == "rad" ? "N m" : u == "m" ? "N" : "1");
    }
    const std::vector<std::string> dims = {"instance", "joint_coordinate"};
    specs.push_back({"joint_state", "joint_state/q", {I, n}, dims, q, "joint positions", {}});
    specs.push_back({"joint_state", "joint_state/qd", {I, n}, dims, qd, "joint rates", {}});
    specs.push_back({"joint_state", "joint_state/tau", {I, n}, dims, tau, "applied joint torques / forces", {}});
  }
  return specs;
}

std::vector<FrameDatasetSpec> Recorder::selected_frame_datasets() const {
  std::vector<FrameDatasetSpec> out;
  if (info_.output.frames == FrameSelection::None) return out;
  std::vector<FrameDatasetSpec> all = standard_frame_datasets(info_);
  all.insert(all.end(), info_.frame_datasets.begin(), info_.frame_datasets.end());
  for (FrameDatasetSpec& s : all)
    if (info_.output.wants_dataset(s.selection)) out.push_back(std::move(s));
  FrameDatasetSpec time;
  time.selection = "time";
  time.path = "time";
  time.units = {"s"};
  time.long_name = "time of the frame";
  out.push_back(std::move(time));  // written last (see the header)
  return out;
}

Recorder::Recorder(const std::string& path, const RecorderInfo& info) : path_(path), info_(info) {
  file_ = h5::create_file(path);
  const hid_t f = file_.id();
  const auto I = static_cast<hsize_t>(info.n_instances);

  // The T datasets: K frames per chunk from the largest frame (see the header).
  std::vector<FrameDatasetSpec> specs = selected_frame_datasets();
  std::uint64_t largest = 8;
  for (const FrameDatasetSpec& s : specs) {
    std::uint64_t bytes = 8;
    for (hsize_t d : s.shape) bytes *= d;
    largest = std::max(largest, bytes);
  }
  chunk_frames_ = info.output.frames == FrameSelection::FirstLast
                      ? 2
                      : std::clamp<hsize_t>(kChunkBytes / largest, 1, kMaxChunkFrames);
  h5::ChunkOptions chunking;
  chunking.frames_per_chunk = chunk_frames_;
  chunking.deflate = info.output.compression;
  for (FrameDatasetSpec& s : specs) {
    const std::size_t slash = s.path.rfind('/');
    if (slash != std::string::npos && !h5::exists(f, s.path.substr(0, slash))) h5::create_group(f, s.path.substr(0, slash));
    Slot slot;
    slot.data = h5::ExtendibleDataset(f, s.path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.shape, chunking);
    slot.frame_elems = 1;
    for (hsize_t d : s.shape) slot.frame_elems *= d;
    slot.buffer.resize(slot.frame_elems * chunk_frames_);
    slot.spec = std::move(s);
    slots_.push_back(std::move(slot));
  }
  if (h5::exists(f, "joint_state")) {
    const h5::Handle group(H5Gopen2(f, "joint_state", H5P_DEFAULT), H5Gclose);
    h5::write_attr(group.id(), "joint_names", info.joint_coordinate_names);
  }
  if (slots_.empty()) chunk_frames_ = 0;

  reserve(10 * static_cast<std::uint64_t>(I) + (std::uint64_t{64} << 10), "the status datasets");
  std::vector<std::int8_t> status(I, 0);
  std::vector<double> status_time(I, 0.0);
  h5::write_dataset(f, "status", H5T_NATIVE_INT8, {I}, status.data());
  h5::write_dataset(f, "status_time", H5T_NATIVE_DOUBLE, {I}, status_time.data());
  h5::write_dataset(f, "status_reason", H5T_NATIVE_INT8, {I}, status.data());
  {
    std::vector<std::string> codes;
    for (int c = 0; c < kReasonCount; ++c) codes.emplace_back(status_reason_name(static_cast<std::int8_t>(c)));
    const h5::Handle reason(H5Dopen2(f, "status_reason", H5P_DEFAULT), H5Dclose);
    if (!reason.valid()) throw h5::H5Error("H5Dopen2 failed: status_reason");
    h5::write_attr(reason.id(), "codes", codes);
  }
  h5::create_group(f, "params");
  if (!info.params_problem.empty()) {
    const h5::Handle params(H5Gopen2(f, "params", H5P_DEFAULT), H5Gclose);
    if (!params.valid()) throw h5::H5Error("H5Gopen2 failed: params");
    h5::write_attr(params.id(), "problem", info.params_problem);
  }
  describe_datasets();
  write_root_attributes();
  h5::flush(f);
  last_write_ = std::chrono::steady_clock::now();
}

void Recorder::describe_datasets() {
  const hid_t f = file_.id();
  std::vector<std::int64_t> instances(static_cast<std::size_t>(info_.n_instances));
  for (std::size_t k = 0; k < instances.size(); ++k) instances[k] = info_.instance_offset + static_cast<std::int64_t>(k);
  h5::ensure_coordinate(f, "instance", instances);
  h5::ensure_coordinate(f, "body", info_.body_names);
  h5::ensure_coordinate(f, "joint", info_.joint_names);
  h5::ensure_coordinate(f, "state_component", component_names(kStateTable));
  h5::ensure_coordinate(f, "reaction_component", component_names(kReactionTable));
  if (!info_.joint_coordinate_names.empty()) h5::ensure_coordinate(f, "joint_coordinate", info_.joint_coordinate_names);
  for (const char* c : {"instance", "body", "joint", "state_component", "reaction_component", "joint_coordinate"})
    if (h5::exists(f, c)) h5::write_attr(open_object(f, c).id(), "long_name", std::string(c) == "instance"
                                                                                  ? "instance number in the design"
                                                                                  : std::string(c) + " name");
  for (Slot& s : slots_)
    for (const auto& [name, labels] : s.spec.coordinates) h5::ensure_coordinate(f, name, labels);
  // /time first: it is the scale the others attach to.
  for (Slot& s : slots_) {
    if (s.spec.path != "time") continue;
    h5::make_dimension_scale(f, "time", "time");
    describe(f, "time", {"time"}, s.spec.units, s.spec.long_name);
  }
  for (Slot& s : slots_) {
    if (s.spec.path == "time") continue;
    std::vector<std::string> dims = {"time"};
    dims.insert(dims.end(), s.spec.dims.begin(), s.spec.dims.end());
    describe(f, s.spec.path, dims, s.spec.units, s.spec.long_name);
  }
  describe(f, "status", {"instance"}, {"1"}, "instance status: 0 ok, 1 assembly failed, 2 diverged");
  describe(f, "status_time", {"instance"}, {"s"}, "time at which the status was set");
  describe(f, "status_reason", {"instance"}, {"1"}, "why the status is not ok (attribute codes)");
}

void Recorder::write_root_attributes() {
  const hid_t f = file_.id();
  const RecorderInfo& info = info_;
  const SolverSettings& s = info.solver;
  h5::write_attr(f, "scene", info.scene_text);
  h5::write_attr(f, "scene_file", info.scene_file);
  h5::write_attr(f, "dt", s.dt);
  h5::write_attr(f, "t_end", s.t_end);
  h5::write_attr(f, "t_end_simulated", simulated_t_end(s));
  h5::write_attr(f, "baumgarte_alpha", s.baumgarte_alpha);
  h5::write_attr(f, "baumgarte_beta", s.baumgarte_beta);
  h5::write_attr(f, "tikhonov_epsilon", s.tikhonov_epsilon);
  h5::write_attr(f, "refinement_steps", s.refinement_steps);
  h5::write_attr(f, "record_every", s.record_every);
  h5::write_attr(f, "violation_bound", s.violation_bound);
  h5::write_attr(f, "projection", projection_name(s.projection));
  if (s.projection == Projection::Auto) h5::write_attr(f, "auto_projection_pivot", s.auto_projection_pivot);
  // The integrator's settings (docs/solver.md, "Integrators"; the root attribute
  // `integrator` and the step figures are written by job/step_report.hpp).
  h5::write_attr(f, "rtol", s.rtol);
  h5::write_attr(f, "atol", s.atol);
  h5::write_attr(f, "min_step", s.min_step);
  h5::write_attr(f, "max_step", s.max_step);
  h5::write_attr(f, "first_step", s.first_step);
  h5::write_attr(f, "error_estimate", s.error_estimate ? 1 : 0);
  h5::write_attr(f, "backend", info.backend);
  h5::write_attr(f, "version", SIMPHANT_VERSION);
  h5::write_attr(f, "seed", info.seed);
  h5::write_attr(f, "n_instances", info.n_instances);
  h5::write_attr(f, "body_names", info.body_names);
  h5::write_attr(f, "joint_names", info.joint_names);
  if (!info.driver_names.empty()) h5::write_attr(f, "driver_names", info.driver_names);
  h5::write_attr(f, "output_datasets", info.output.datasets);
  h5::write_attr(f, "output_frames", frame_selection_name(info.output.frames));
  h5::write_attr(f, "output_reductions", info.output.reductions);
  h5::write_attr(f, "output_compression", info.output.compression);
  h5::write_attr(f, "git_commit", info.git_commit);
  h5::write_attr(f, "command_line", info.command_line);
  h5::write_attr(f, "host", info.host);
  h5::write_attr(f, "device", info.device);
  h5::write_attr(f, "start_time", info.start_time);
  h5::write_attr(f, "wall_time_s", 0.0);
  h5::write_attr(f, "frames", 0);
  h5::write_attr(f, "interrupted", 1);
  h5::write_attr(f, "stop_reason", "running");
  if (info.shard_count > 1) {
    h5::write_attr(f, "shard_index", info.shard_index);
    h5::write_attr(f, "shard_count", info.shard_count);
    h5::write_attr(f, "instance_offset", info.instance_offset);
    h5::write_attr(f, "n_instances_total", info.n_instances_total);
  }
  h5::write_attr(f, "sweep_mode", info.sweep_mode);
  if (info.sweep_mode == "saltelli") {
    h5::write_attr(f, "saltelli_base", info.saltelli_base);
    h5::write_attr(f, "saltelli_second_order", info.saltelli_second_order);
  }
  if (!info.sweep_design_crc64.empty()) {
    h5::write_attr(f, "sweep_design_file", info.sweep_design_file);
    h5::write_attr(f, "sweep_design_crc64", info.sweep_design_crc64);
  }
  if (!info.input_files.empty()) h5::write_attr(f, "input_files", info.input_files);
}

Recorder::Recorder(const std::string& path, const RecorderInfo& info, std::int64_t frames) : path_(path), info_(info) {
  file_ = h5::open_file_readwrite(path);
  const hid_t f = file_.id();
  for (FrameDatasetSpec& s : selected_frame_datasets()) {
    Slot slot;
    slot.data = h5::ExtendibleDataset::open(f, s.path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, s.shape);
    slot.frame_elems = 1;
    for (hsize_t d : s.shape) slot.frame_elems *= d;
    chunk_frames_ = slot.data.chunk_frames();
    slot.spec = std::move(s);
    slots_.push_back(std::move(slot));
  }
  for (Slot& s : slots_) s.buffer.resize(s.frame_elems * chunk_frames_);
  const auto kept = static_cast<hsize_t>(frames);
  for (Slot& s : slots_) {
    h5::ExtendibleDataset& d = s.data;
    if (frames < 0 || d.frames() < kept)
      throw h5::H5Error(path + ": a dataset holds " + std::to_string(d.frames()) + " frames, fewer than the " +
                        std::to_string(frames) + " to continue from");
    if (d.frames() > kept && !d.truncate(kept)) throw h5::H5Error(path + ": cannot drop the frames after " + std::to_string(frames));
  }
  frames_ = slots_.empty() ? 0 : frames;
  h5::write_attr(f, "wall_time_s", 0.0);
  h5::write_attr(f, "frames", frames_);
  h5::write_attr(f, "interrupted", 1);
  h5::write_attr(f, "stop_reason", "running");
  h5::flush(f);
  last_write_ = std::chrono::steady_clock::now();
}

Recorder::~Recorder() { close(); }

void Recorder::reserve(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t total = bytes + kFinalizeReserveBytes;
  if (const int err = h5::reserve_space(file_.id(), total); err != 0)
    throw h5::H5Error("reserving " + std::to_string(total) + " bytes for " + what + " of " + path_ +
                          " failed: " + std::strerror(err),
                      err);
}

bool Recorder::close() {
  // The file first, then its datasets (h5::close_file_first).
  bool ok = file_.close();
  for (Slot& s : slots_) ok = s.data.handle().close() && ok;
  return ok;
}

void Recorder::write_params(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values) {
  std::uint64_t bytes = 0;
  for (const std::vector<double>& v : values) bytes += 8 * v.size() + 8192;  // data, its object header and attributes
  reserve(bytes, "/params");
  h5::Handle group(H5Gopen2(file_.id(), "params", H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw h5::H5Error("H5Gopen2(params) failed");
  for (std::size_t p = 0; p < paths.size() && p < values.size(); ++p) {
    if (values[p].size() != static_cast<std::size_t>(info_.n_instances))
      throw h5::H5Error("/params/" + paths[p] + ": expected one value per instance");
    // '/' would make a sub-group; sweep paths never hold one, but keep the name flat.
    std::string name = paths[p];
    for (char& c : name)
      if (c == '/') c = '|';
    h5::write_dataset(group.id(), name, H5T_NATIVE_DOUBLE, {values[p].size()}, values[p].data());
    const std::string units = sweep_units(paths[p]);
    describe(file_.id(), "params/" + name, {"instance"}, units.empty() ? std::vector<std::string>{}
                                                                       : std::vector<std::string>{units},
             "sampled sweep value of " + paths[p]);
  }
  h5::flush(file_.id());
}

void Recorder::write_assembly(const std::vector<double>& position_residual,
                              const std::vector<double>& velocity_residual, const std::vector<std::int32_t>& iterations) {
  const hsize_t n = static_cast<hsize_t>(info_.n_instances);
  if (position_residual.size() != n || velocity_residual.size() != n || iterations.size() != n)
    throw h5::H5Error("/assembly: expected one value per instance");
  reserve(20 * static_cast<std::uint64_t>(n) + 3 * 8192, "/assembly");
  h5::Handle group = h5::create_group(file_.id(), "assembly");
  h5::write_dataset(group.id(), "position_residual", H5T_NATIVE_DOUBLE, {n}, position_residual.data());
  h5::write_dataset(group.id(), "velocity_residual", H5T_NATIVE_DOUBLE, {n}, velocity_residual.data());
  h5::write_dataset(group.id(), "iterations", H5T_NATIVE_INT32, {n}, iterations.data());
  describe(file_.id(), "assembly/position_residual", {"instance"}, {"m"}, "max |Phi| after assembly");
  describe(file_.id(), "assembly/velocity_residual", {"instance"}, {"m/s"}, "max |Phi_q qdot| after assembly");
  describe(file_.id(), "assembly/iterations", {"instance"}, {"1"}, "Newton iterations of the position assembly");
  h5::flush(file_.id());
}

void Recorder::write_assembly_changes(const std::vector<double>& position, const std::vector<double>& orientation,
                                      const std::vector<double>& velocity, const std::vector<double>& angular_velocity) {
  const hsize_t n = static_cast<hsize_t>(info_.n_instances);
  if (position.size() != n || orientation.size() != n || velocity.size() != n || angular_velocity.size() != n)
    throw h5::H5Error("/assembly: expected one value per instance");
  reserve(32 * static_cast<std::uint64_t>(n) + 4 * 8192, "/assembly");
  const h5::Handle group(H5Gopen2(file_.id(), "assembly", H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw h5::H5Error("H5Gopen2 failed: /assembly (write_assembly first)");
  h5::write_dataset(group.id(), "position_change", H5T_NATIVE_DOUBLE, {n}, position.data());
  h5::write_dataset(group.id(), "orientation_change", H5T_NATIVE_DOUBLE, {n}, orientation.data());
  h5::write_dataset(group.id(), "velocity_change", H5T_NATIVE_DOUBLE, {n}, velocity.data());
  h5::write_dataset(group.id(), "angular_velocity_change", H5T_NATIVE_DOUBLE, {n}, angular_velocity.data());
  const hid_t f = file_.id();
  describe(f, "assembly/position_change", {"instance"}, {"m"}, "how far assembly moved the bodies: max |r - r_0|");
  describe(f, "assembly/orientation_change", {"instance"}, {"rad"}, "max rotation from the given orientation");
  describe(f, "assembly/velocity_change", {"instance"}, {"m/s"}, "max |v - v_0| over the bodies");
  describe(f, "assembly/angular_velocity_change", {"instance"}, {"rad/s"}, "max |omega_B - omega_0B| over the bodies");
  h5::flush(file_.id());
}

void Recorder::write_status(const std::int8_t* status, const double* status_time, const std::int8_t* reason) {
  h5::overwrite_dataset(file_.id(), "status", H5T_NATIVE_INT8, status);
  h5::overwrite_dataset(file_.id(), "status_time", H5T_NATIVE_DOUBLE, status_time);
  h5::overwrite_dataset(file_.id(), "status_reason", H5T_NATIVE_INT8, reason);
  h5::flush(file_.id());
}

void Recorder::write_instance_dataset(const std::string& path, const std::vector<hsize_t>& shape, const double* data,
                                      const std::vector<std::string>& dims, const std::vector<std::string>& units,
                                      const std::vector<std::pair<std::string, std::vector<std::string>>>& coordinates) {
  write_instance_values(path, shape, H5T_NATIVE_DOUBLE, data, dims, units, coordinates);
}

void Recorder::write_long_names(const std::string& group,
                                const std::vector<std::pair<std::string, std::string>>& names) {
  for (const auto& [name, what] : names) {
    const std::string path = group + "/" + name;
    const h5::Handle d(H5Dopen2(file_.id(), path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!d.valid()) throw h5::H5Error("H5Dopen2(/" + path + ") failed");
    h5::write_attr(d.id(), "long_name", what);
  }
}

void Recorder::write_instance_dataset(const std::string& path, const std::vector<hsize_t>& shape,
                                      const std::int64_t* data, const std::vector<std::string>& dims,
                                      const std::vector<std::string>& units) {
  write_instance_values(path, shape, H5T_NATIVE_INT64, data, dims, units, {});
}

void Recorder::write_instance_values(const std::string& path, const std::vector<hsize_t>& shape, hid_t type,
                                     const void* data, const std::vector<std::string>& dims,
                                     const std::vector<std::string>& units,
                                     const std::vector<std::pair<std::string, std::vector<std::string>>>& coordinates) {
  std::uint64_t bytes = 8;
  for (hsize_t d : shape) bytes *= d;
  std::uint64_t labels = 0;
  for (const auto& c : coordinates) labels += 64 * c.second.size() + 8192;
  reserve(bytes + labels + 8192, "/" + path);
  const hid_t f = file_.id();
  for (const auto& [name, values] : coordinates) h5::ensure_coordinate(f, name, values);
  const std::size_t slash = path.rfind('/');
  if (slash != std::string::npos && !h5::exists(f, path.substr(0, slash))) h5::create_group(f, path.substr(0, slash));
  h5::write_dataset(f, path, type, shape, data);
  describe(f, path, dims, units);
  h5::flush(f);
}

void Recorder::record(double time, const double* states, const double* reactions, const double* violation,
                      const double* energy, const double* joint_q, const double* joint_qd, const double* joint_tau,
                      const FrameValues& more) {
  FrameValues values = {{"state", states},         {"reactions", reactions},     {"constraint_violation", violation},
                        {"energy", energy},        {"joint_state/q", joint_q},   {"joint_state/qd", joint_qd},
                        {"joint_state/tau", joint_tau}};
  values.insert(values.end(), more.begin(), more.end());
  record(time, values);
}

void Recorder::record(double time, const FrameValues& values) {
  if (slots_.empty() || write_failed_) return;
  // Every value found before anything is buffered, so that every dataset keeps the same frame count.
  std::vector<const double*> src(slots_.size(), nullptr);
  for (std::size_t k = 0; k < slots_.size(); ++k) {
    if (slots_[k].spec.path == "time") {
      src[k] = &time;
      continue;
    }
    for (const auto& [path, ptr] : values)
      if (path == slots_[k].spec.path) src[k] = ptr;
    if (src[k] == nullptr && slots_[k].frame_elems > 0)
      throw h5::H5Error("/" + slots_[k].spec.path + ": record() got no values for it");
  }
  const bool first_last = info_.output.frames == FrameSelection::FirstLast;
  // "first_last": the first frame is written at once, every later one held as the last.
  const hsize_t at = first_last && frames() > 0 ? 0 : buffered_;
  for (std::size_t k = 0; k < slots_.size(); ++k)
    if (slots_[k].frame_elems > 0)
      std::copy(src[k], src[k] + slots_[k].frame_elems, slots_[k].buffer.begin() + at * slots_[k].frame_elems);
  if (first_last && frames() > 0) {
    last_held_ = true;
    return;
  }
  ++buffered_;
  const bool chunk_full = static_cast<hsize_t>(frames()) % chunk_frames_ == 0 || buffered_ == chunk_frames_ ||
                          (info_.buffer_frames > 0 && buffered_ >= info_.buffer_frames);
  const bool first = frames_ == 0;
  const bool late = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_write_).count() >= kFlushSeconds;
  if (chunk_full || first || late) write_buffer();
}

void Recorder::write_buffer() {
  if (buffered_ == 0 || write_failed_) return;
  const hsize_t n = buffered_;
  buffered_ = 0;  // dropped if the write fails (the datasets go back to frames_)
  try {
    std::uint64_t bytes = 0;
    for (const Slot& s : slots_) bytes += s.data.block_bytes(n);
    reserve(bytes, "frames " + std::to_string(frames_) + ".." + std::to_string(frames_ + static_cast<std::int64_t>(n) - 1));
    for (Slot& s : slots_) s.data.append_frames(s.buffer.data(), n);  // /time is the last slot
    h5::write_attr(file_.id(), "frames", frames_ + static_cast<std::int64_t>(n));
    h5::flush(file_.id());
  } catch (const h5::H5Error&) {
    // Every T dataset back to the frames before this block (its extent may have grown
    // before its write failed); no frame is written after a failure (finalize() only
    // marks the file).
    const auto kept = static_cast<hsize_t>(frames_);
    for (Slot& s : slots_)
      if (s.data.id() >= 0) s.data.truncate(kept);
    write_failed_ = true;
    last_held_ = false;
    throw;
  }
  frames_ += static_cast<std::int64_t>(n);
  last_write_ = std::chrono::steady_clock::now();
}

void Recorder::flush() {
  if (file_.valid()) write_buffer();
}

void Recorder::finish_frames() {
  if (!file_.valid() || write_failed_) return;
  write_buffer();
  if (last_held_) {
    last_held_ = false;
    buffered_ = 1;
    write_buffer();
  }
}

void Recorder::finalize(const std::int8_t* status, const double* status_time, const std::int8_t* reason,
                        double wall_time_s, const std::string& stop_reason) {
  if (!file_.valid()) return;
  finish_frames();
  write_status(status, status_time, reason);
  h5::write_attr(file_.id(), "wall_time_s", wall_time_s);
  h5::write_attr(file_.id(), "frames", frames_);
  h5::write_attr(file_.id(), "stop_reason", stop_reason);
  h5::write_attr(file_.id(), "interrupted", stop_reason == "completed" ? 0 : 1);
  h5::flush(file_.id());
  if (!close()) throw h5::H5Error("closing " + path_ + " failed");
}

}  // namespace simphant
