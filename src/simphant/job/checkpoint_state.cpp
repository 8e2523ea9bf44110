#include "simphant/job/checkpoint_state.hpp"

#include <filesystem>

#include "simphant/io/h5_file.hpp"
#include "simphant/scene/scene.hpp"

#ifndef SIMPHANT_VERSION
#define SIMPHANT_VERSION "unknown"
#endif

namespace simphant {

std::string checkpoint_file_name(const std::string& out) {
  const std::filesystem::path p(out);
  return (p.parent_path() / ("." + p.filename().string() + ".checkpoint.h5")).string();
}

namespace job_detail {

namespace {

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

}  // namespace

void write_checkpoint_state(hid_t file, Simulator& sim, const RunStats& stats, const LoopPoint& at,
                 const std::string& options, const Simulator* half) {
  const int n = sim.n_instances(), S = sim.state_size();
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> y(N * static_cast<std::size_t>(S));
  std::vector<std::int64_t> steps(N), status_steps(N);
  std::vector<std::int8_t> status(N), reasons(N);
  std::vector<std::uint64_t> episodes(N);
  sim.get_state(nullptr, n, y.data(), steps.data(), status.data(), status_steps.data(), episodes.data(),
                reasons.data());

  h5::Handle g = h5::create_group(file, kCheckpointGroup);
  const hid_t gid = g.id();
  const auto I = static_cast<hsize_t>(n);
  write_vector(gid, "y", H5T_NATIVE_DOUBLE, {I, static_cast<hsize_t>(S)}, y.data());
  write_vector(gid, "steps", H5T_NATIVE_INT64, {I}, steps.data());
  write_vector(gid, "status", H5T_NATIVE_INT8, {I}, status.data());
  write_vector(gid, "status_steps", H5T_NATIVE_INT64, {I}, status_steps.data());
  write_vector(gid, "status_reason", H5T_NATIVE_INT8, {I}, reasons.data());
  write_vector(gid, "episodes", H5T_NATIVE_UINT64, {I}, episodes.data());
  if (!at.contact_impulse_start.empty())
    write_vector(gid, "contact_impulse_start", H5T_NATIVE_DOUBLE, {I, at.contact_impulse_start.size() / I},
                 at.contact_impulse_start.data());
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
    std::vector<RefinementRecord> rec(N);
    sim.read_refinement(rec.data());
    std::vector<std::int64_t> unconverged(N);
    std::vector<double> worst(N), worst_time(N), min_pivot(N), min_pivot_time(N);
    for (std::size_t i = 0; i < N; ++i) {
      unconverged[i] = rec[i].unconverged;
      worst[i] = rec[i].worst;
      worst_time[i] = rec[i].worst_time;
      min_pivot[i] = rec[i].min_pivot;
      min_pivot_time[i] = rec[i].min_pivot_time;
    }
    h5::Handle rg = h5::create_group(gid, "refinement");
    write_vector(rg.id(), "unconverged", H5T_NATIVE_INT64, {I}, unconverged.data());
    write_vector(rg.id(), "max_error", H5T_NATIVE_DOUBLE, {I}, worst.data());
    write_vector(rg.id(), "max_error_time", H5T_NATIVE_DOUBLE, {I}, worst_time.data());
    write_vector(rg.id(), "min_pivot", H5T_NATIVE_DOUBLE, {I}, min_pivot.data());
    write_vector(rg.id(), "min_pivot_time", H5T_NATIVE_DOUBLE, {I}, min_pivot_time.data());
  }
  const RunStats::Saved s = stats.save();
  h5::Handle sg = h5::create_group(gid, "stats");
  write_vector(sg.id(), "e0", H5T_NATIVE_DOUBLE, {I}, s.e0.data());
  write_vector(sg.id(), "max_violation", H5T_NATIVE_DOUBLE, {I}, s.max_violation.data());
  write_vector(sg.id(), "max_abs_drift", H5T_NATIVE_DOUBLE, {I}, s.max_abs_drift.data());
  write_vector(sg.id(), "max_ke", H5T_NATIVE_DOUBLE, {I}, s.max_ke.data());
  write_vector(sg.id(), "drift_time", H5T_NATIVE_DOUBLE, {I}, s.drift_time.data());
  write_vector(sg.id(), "e_last", H5T_NATIVE_DOUBLE, {I}, s.e_last.data());
  if (half != nullptr) write_half(gid, *half);

  h5::write_attr(gid, "format", kCheckpointFormat);
  h5::write_attr(gid, "version", SIMPHANT_VERSION);
  h5::write_attr(gid, "options", options);
  h5::write_attr(gid, "steps_done", at.steps_done);
  h5::write_attr(gid, "since_record", at.since_record);
  h5::write_attr(gid, "frames", at.frames);
  h5::write_attr(gid, "wall_time_s", at.wall_s);
  h5::write_attr(gid, "loop_wall_time_s", at.loop_wall_s);
  h5::write_attr(gid, "stats_have_e0", s.have_e0 ? 1 : 0);
}

LoopPoint read_loop_point(hid_t g) {
  LoopPoint at;
  at.steps_done = h5::read_attr_int64(g, "steps_done");
  at.since_record = h5::read_attr_int64(g, "since_record");
  at.frames = h5::read_attr_int64(g, "frames");
  at.wall_s = h5::read_attr_double(g, "wall_time_s");
  at.loop_wall_s = h5::read_attr_double(g, "loop_wall_time_s");
  if (h5::exists(g, "contact_impulse_start")) {
    std::size_t count = 1;
    for (hsize_t d : h5::dataset_dims(g, "contact_impulse_start")) count *= d;
    at.contact_impulse_start.resize(count);
    h5::read_dataset(g, "contact_impulse_start", H5T_NATIVE_DOUBLE, at.contact_impulse_start.data(), count);
  }
  return at;
}

BatchState read_checkpoint_state(hid_t file) {
  BatchState b;
  h5::Handle g(H5Gopen2(file, kCheckpointGroup, H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw h5::H5Error("H5Gopen2(/checkpoint) failed");
  const hid_t gid = g.id();
  b.at = read_loop_point(gid);
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
    std::vector<std::int64_t> unconverged(N);
    std::vector<double> worst(N), worst_time(N), min_pivot(N, no_schur_pivot<double>()), min_pivot_time(N, 0.0);
    h5::read_dataset(rg.id(), "unconverged", H5T_NATIVE_INT64, unconverged.data(), N);
    h5::read_dataset(rg.id(), "max_error", H5T_NATIVE_DOUBLE, worst.data(), N);
    h5::read_dataset(rg.id(), "max_error_time", H5T_NATIVE_DOUBLE, worst_time.data(), N);
    if (h5::exists(rg.id(), "min_pivot")) {  // a checkpoint written before the rank watch has none
      h5::read_dataset(rg.id(), "min_pivot", H5T_NATIVE_DOUBLE, min_pivot.data(), N);
      h5::read_dataset(rg.id(), "min_pivot_time", H5T_NATIVE_DOUBLE, min_pivot_time.data(), N);
    }
    b.refinement.resize(N);
    for (std::size_t i = 0; i < N; ++i)
      b.refinement[i] = {unconverged[i], worst[i], worst_time[i], min_pivot[i], min_pivot_time[i]};
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
  // E at the last frame (the energy balance); NaN in a checkpoint written before it was kept.
  b.stats.e_last.assign(N, std::nan(""));
  if (h5::exists(sg.id(), "e_last")) h5::read_dataset(sg.id(), "e_last", H5T_NATIVE_DOUBLE, b.stats.e_last.data(), N);
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
  if (!b.refinement.empty()) sim.set_refinement_before(b.refinement.data());
}

}  // namespace job_detail
}  // namespace simphant
