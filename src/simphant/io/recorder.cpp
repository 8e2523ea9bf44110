#include "simphant/io/recorder.hpp"

#include <cstring>

#include "simphant/dynamics/runaway.hpp"
#include "simphant/sim/backend.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant {

Recorder::Recorder(const std::string& path, const RecorderInfo& info) : path_(path), info_(info) {
  file_ = h5::create_file(path);
  const hid_t f = file_.id();
  const auto I = static_cast<hsize_t>(info.n_instances);
  const auto B = static_cast<hsize_t>(info.body_names.size());
  const auto J = static_cast<hsize_t>(info.joint_names.size());

  time_ = h5::ExtendibleDataset(f, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {});
  state_ = h5::ExtendibleDataset(f, "state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, B, 13});
  reactions_ = h5::ExtendibleDataset(f, "reactions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, J, 6});
  violation_ = h5::ExtendibleDataset(f, "constraint_violation", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I});
  energy_ = h5::ExtendibleDataset(f, "energy", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I});
  if (!info.driver_names.empty()) {
    const auto D = static_cast<hsize_t>(info.driver_names.size());
    driver_loads_ = h5::ExtendibleDataset(f, "driver_loads", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, D});
    h5::write_attr(f, "driver_names", info.driver_names);
  }
  if (!info.joint_coordinate_names.empty()) {
    const auto n = static_cast<hsize_t>(info.joint_coordinate_names.size());
    h5::Handle group = h5::create_group(f, "joint_state");
    h5::write_attr(group.id(), "joint_names", info.joint_coordinate_names);
    joint_q_ = h5::ExtendibleDataset(group.id(), "q", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
    joint_qd_ = h5::ExtendibleDataset(group.id(), "qd", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
    joint_tau_ = h5::ExtendibleDataset(group.id(), "tau", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
  }

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

  const SolverSettings& s = info.solver;
  h5::write_attr(f, "scene", info.scene_text);
  h5::write_attr(f, "scene_file", info.scene_file);
  h5::write_attr(f, "dt", s.dt);
  h5::write_attr(f, "t_end", s.t_end);
  h5::write_attr(f, "baumgarte_alpha", s.baumgarte_alpha);
  h5::write_attr(f, "baumgarte_beta", s.baumgarte_beta);
  h5::write_attr(f, "tikhonov_epsilon", s.tikhonov_epsilon);
  h5::write_attr(f, "refinement_steps", s.refinement_steps);
  h5::write_attr(f, "record_every", s.record_every);
  h5::write_attr(f, "violation_bound", s.violation_bound);
  h5::write_attr(f, "projection", projection_name(s.projection));
  h5::write_attr(f, "backend", info.backend);
  h5::write_attr(f, "version", SIMPHANT_VERSION);
  h5::write_attr(f, "seed", info.seed);
  h5::write_attr(f, "n_instances", info.n_instances);
  h5::write_attr(f, "body_names", info.body_names);
  h5::write_attr(f, "joint_names", info.joint_names);
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
  h5::flush(f);
  compute_frame_reserve();
}

Recorder::Recorder(const std::string& path, const RecorderInfo& info, std::int64_t frames) : path_(path), info_(info) {
  file_ = h5::open_file_readwrite(path);
  const hid_t f = file_.id();
  const auto I = static_cast<hsize_t>(info.n_instances);
  const auto B = static_cast<hsize_t>(info.body_names.size());
  const auto J = static_cast<hsize_t>(info.joint_names.size());
  using h5::ExtendibleDataset;
  time_ = ExtendibleDataset::open(f, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {});
  state_ = ExtendibleDataset::open(f, "state", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, B, 13});
  reactions_ = ExtendibleDataset::open(f, "reactions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, J, 6});
  violation_ = ExtendibleDataset::open(f, "constraint_violation", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I});
  energy_ = ExtendibleDataset::open(f, "energy", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I});
  if (!info.driver_names.empty())
    driver_loads_ = ExtendibleDataset::open(f, "driver_loads", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                                            {I, static_cast<hsize_t>(info.driver_names.size())});
  if (!info.joint_coordinate_names.empty()) {
    const auto n = static_cast<hsize_t>(info.joint_coordinate_names.size());
    joint_q_ = ExtendibleDataset::open(f, "joint_state/q", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
    joint_qd_ = ExtendibleDataset::open(f, "joint_state/qd", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
    joint_tau_ = ExtendibleDataset::open(f, "joint_state/tau", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {I, n});
  }
  const auto kept = static_cast<hsize_t>(frames);
  for (h5::ExtendibleDataset* d : {&time_, &state_, &reactions_, &violation_, &energy_, &joint_q_, &joint_qd_, &joint_tau_, &driver_loads_}) {
    if (d->id() < 0) continue;
    if (frames < 0 || d->frames() < kept)
      throw h5::H5Error(path + ": a dataset holds " + std::to_string(d->frames()) + " frames, fewer than the " +
                        std::to_string(frames) + " to continue from");
    if (d->frames() > kept && !d->truncate(kept)) throw h5::H5Error(path + ": cannot drop the frames after " + std::to_string(frames));
  }
  frames_ = frames;
  h5::write_attr(f, "wall_time_s", 0.0);
  h5::write_attr(f, "frames", frames_);
  h5::write_attr(f, "interrupted", 1);
  h5::write_attr(f, "stop_reason", "running");
  h5::flush(f);
  compute_frame_reserve();
}

void Recorder::compute_frame_reserve() {
  frame_reserve_bytes_ = 0;
  for (const h5::ExtendibleDataset* d : {&time_, &state_, &reactions_, &violation_, &energy_, &joint_q_, &joint_qd_, &joint_tau_, &driver_loads_})
    frame_reserve_bytes_ += d->append_bytes();
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
  return h5::close_file_first(file_, {&time_.handle(), &state_.handle(), &reactions_.handle(), &violation_.handle(),
                                      &energy_.handle(), &joint_q_.handle(), &joint_qd_.handle(), &joint_tau_.handle(),
                                      &driver_loads_.handle()});
}

void Recorder::write_params(const std::vector<std::string>& paths, const std::vector<std::vector<double>>& values) {
  std::uint64_t bytes = 0;
  for (const std::vector<double>& v : values) bytes += 8 * v.size() + 4096;  // data and its object header
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
  }
  h5::flush(file_.id());
}

void Recorder::write_assembly(const std::vector<double>& position_residual,
                              const std::vector<double>& velocity_residual, const std::vector<std::int32_t>& iterations) {
  const hsize_t n = static_cast<hsize_t>(info_.n_instances);
  if (position_residual.size() != n || velocity_residual.size() != n || iterations.size() != n)
    throw h5::H5Error("/assembly: expected one value per instance");
  reserve(20 * static_cast<std::uint64_t>(n) + 3 * 4096, "/assembly");
  h5::Handle group = h5::create_group(file_.id(), "assembly");
  h5::write_dataset(group.id(), "position_residual", H5T_NATIVE_DOUBLE, {n}, position_residual.data());
  h5::write_dataset(group.id(), "velocity_residual", H5T_NATIVE_DOUBLE, {n}, velocity_residual.data());
  h5::write_dataset(group.id(), "iterations", H5T_NATIVE_INT32, {n}, iterations.data());
  h5::flush(file_.id());
}

void Recorder::write_assembly_changes(const std::vector<double>& position, const std::vector<double>& orientation,
                                      const std::vector<double>& velocity, const std::vector<double>& angular_velocity) {
  const hsize_t n = static_cast<hsize_t>(info_.n_instances);
  if (position.size() != n || orientation.size() != n || velocity.size() != n || angular_velocity.size() != n)
    throw h5::H5Error("/assembly: expected one value per instance");
  reserve(32 * static_cast<std::uint64_t>(n) + 4 * 4096, "/assembly");
  const h5::Handle group(H5Gopen2(file_.id(), "assembly", H5P_DEFAULT), H5Gclose);
  if (!group.valid()) throw h5::H5Error("H5Gopen2 failed: /assembly (write_assembly first)");
  h5::write_dataset(group.id(), "position_change", H5T_NATIVE_DOUBLE, {n}, position.data());
  h5::write_dataset(group.id(), "orientation_change", H5T_NATIVE_DOUBLE, {n}, orientation.data());
  h5::write_dataset(group.id(), "velocity_change", H5T_NATIVE_DOUBLE, {n}, velocity.data());
  h5::write_dataset(group.id(), "angular_velocity_change", H5T_NATIVE_DOUBLE, {n}, angular_velocity.data());
  h5::flush(file_.id());
}

void Recorder::write_status(const std::int8_t* status, const double* status_time, const std::int8_t* reason) {
  h5::overwrite_dataset(file_.id(), "status", H5T_NATIVE_INT8, status);
  h5::overwrite_dataset(file_.id(), "status_time", H5T_NATIVE_DOUBLE, status_time);
  h5::overwrite_dataset(file_.id(), "status_reason", H5T_NATIVE_INT8, reason);
  h5::flush(file_.id());
}

void Recorder::record(double time, const double* states, const double* reactions, const double* violation,
                      const double* energy, const double* joint_q, const double* joint_qd, const double* joint_tau,
                      const double* driver_loads) {
  // Checked before any append, so that every dataset keeps the same frame count.
  if (!info_.joint_coordinate_names.empty() && (!joint_q || !joint_qd || !joint_tau))
    throw h5::H5Error("/joint_state: record() needs q, qd and tau");
  if (!info_.driver_names.empty() && !driver_loads) throw h5::H5Error("/driver_loads: record() needs the driver loads");
  reserve(frame_reserve_bytes_, "frame " + std::to_string(frames_));
  try {
    // /time is appended last: a reader that sees frame k in /time sees it everywhere.
    state_.append(states);
    reactions_.append(reactions);
    violation_.append(violation);
    energy_.append(energy);
    if (!info_.driver_names.empty()) driver_loads_.append(driver_loads);
    if (!info_.joint_coordinate_names.empty()) {
      joint_q_.append(joint_q);
      joint_qd_.append(joint_qd);
      joint_tau_.append(joint_tau);
    }
    time_.append(&time);
    h5::write_attr(file_.id(), "frames", frames_ + 1);
    h5::flush(file_.id());
  } catch (const h5::H5Error&) {
    // Every T dataset back to the frames before this one (its extent may have grown
    // before its write failed).
    const auto kept = static_cast<hsize_t>(frames_);
    for (h5::ExtendibleDataset* d : {&time_, &state_, &reactions_, &violation_, &energy_, &joint_q_, &joint_qd_, &joint_tau_, &driver_loads_})
      if (d->id() >= 0) d->truncate(kept);
    throw;
  }
  frames_ = static_cast<std::int64_t>(time_.frames());
}

void Recorder::finalize(const std::int8_t* status, const double* status_time, const std::int8_t* reason,
                        double wall_time_s, const std::string& stop_reason) {
  if (!file_.valid()) return;
  write_status(status, status_time, reason);
  h5::write_attr(file_.id(), "wall_time_s", wall_time_s);
  h5::write_attr(file_.id(), "frames", frames_);
  h5::write_attr(file_.id(), "stop_reason", stop_reason);
  h5::write_attr(file_.id(), "interrupted", stop_reason == "completed" ? 0 : 1);
  h5::flush(file_.id());
  if (!close()) throw h5::H5Error("closing " + path_ + " failed");
}

}  // namespace simphant
