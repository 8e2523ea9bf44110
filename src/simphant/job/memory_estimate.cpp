#include "simphant/job/memory_estimate.hpp"

#include "simphant/batch/batch_pack.hpp"
#include "simphant/sim/robot_sensitivity_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "simphant/core/system_memory.hpp"
#include "simphant/core/thread_pool.hpp"
#include "simphant/dynamics/assembly.hpp"
#include "simphant/dynamics/data.hpp"
#include "simphant/dynamics/row_qr.hpp"
#include "simphant/model/robot.hpp"
#include "simphant/model/topology.hpp"
#include "simphant/sim/reduction_names.hpp"

namespace simphant {

namespace {

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, bytes >= (1 << 30) / 10.0 ? "%.1f GiB" : "%.0f MiB",
                bytes >= (1 << 30) / 10.0 ? bytes / (1 << 30) : bytes / (1 << 20));
  return buf;
}

std::string bytes_text(double bytes) {
  char buf[32];
  if (bytes < 10000)
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  else
    return gib(bytes);
  return buf;
}

/// Recorded doubles per instance and frame (run_job.cpp: Frame): state (13 per body),
/// reactions (6 per joint), violation, energy, kinetic energy, q, qd, tau per joint
/// coordinate of a robot, and one load per driver.
double frame_doubles(const Model& m) {
  const double coords = m.robot ? m.n_joints() : 0;
  return 13.0 * m.n_bodies() + 6.0 * m.n_joints() + 3 + 3 * coords + m.n_drivers();
}

/// The recorder's frame buffer and HDF5's caches while the file is written: per
/// extendible dataset K buffered frames (io/recorder.hpp: K = 1 MiB / the largest frame,
/// 1 .. 256; at least one frame) and one chunk in its chunk cache (at most 1 MiB), and
/// the metadata cache (2 MiB). S sensitivity parameters add the frame derivatives'
/// datasets (state, reactions, joint loads, bearing loads, driver loads, energy, and a
/// robot's joint q, qd, tau; S each).
double hdf5_cache_bytes(const Model& m, long long n, double S) {
  const double coords = m.robot ? m.n_joints() : 0, B = m.n_bodies(), J = m.n_joints(), D = m.n_drivers();
  const double per_frame[] = {1,
                              13.0 * B * n,
                              6.0 * J * n,
                              1.0 * n,
                              1.0 * n,
                              coords * n,
                              coords * n,
                              coords * n,
                              D * n,
                              13 * B * S * n,
                              6 * J * S * n,
                              6 * J * S * n,
                              4 * J * S * n,
                              D * S * n,
                              S * n,
                              coords * S * n,
                              coords * S * n,
                              coords * S * n};
  double largest = 8;
  for (double values : per_frame) largest = std::max(largest, 8 * values);
  const double K = std::clamp(std::floor((1 << 20) / largest), 1.0, 256.0);
  double b = 2.0 * (1 << 20);
  for (double values : per_frame)
    if (values > 0) b += K * 8 * values + std::min(1.0 * (1 << 20), K * 8 * values);
  return b;
}

}  // namespace

std::string MemoryEstimate::describe() const {
  std::string s = gib(total()) + ": ";
  if (models > 0) s += "instance models " + gib(models) + ", ";
  s += simulator.backend + " backend " + gib(simulator.total()) + " (";
  if (simulator.per_worker > 0)
    s += std::to_string(simulator.workers) + (simulator.workers == 1 ? " worker" : " workers") + " x " +
         bytes_text(simulator.per_worker) + ", ";
  s += std::to_string(instances) + (instances == 1 ? " instance" : " instances") + " x " + bytes_text(simulator.per_instance);
  if (simulator.assembly > 0) s += ", assembly " + bytes_text(simulator.assembly);
  s += ")";
  if (recorder > 0) s += ", recorder " + gib(recorder);
  if (error_estimate > 0) s += ", error estimate (dt/2 batch) " + gib(error_estimate);
  if (sensitivities > 0) s += ", sensitivities " + gib(sensitivities);
  return s;
}

MemoryEstimate estimate_simulator_memory(const Scene& scene, long long n_instances, const SimulatorOptions& options) {
  MemoryEstimate e;
  e.instances = n_instances > 0 ? n_instances : scene.sweep.instances;
  e.models = sweep_bytes(scene, e.instances);
  const bool per_instance = !scene.sweep.parameters.empty();
  e.simulator = simulator_host_memory(scene.model, e.instances, per_instance,
                                      static_cast<int>(scene.sweep.parameters.size()), options);
  const int S = static_cast<int>(scene.sensitivities.paths.size());
  if (S > 0 && scene.model.robot && scene.model.robot->solver != RobotSolver::Dae) {
    // The joint-space engine (sim/robot_sensitivity_engine.hpp): its slots, state and
    // seeds per instance, and one step workspace in Dual numbers per worker; per pass the
    // reductions' accumulators with their tangents (and one more such set, the copy a
    // read samples into).
    const auto bytes = [&](auto instance, auto worker) {
      return static_cast<double>(e.instances) * instance(scene.model, S) + resolve_thread_count(options.threads) * worker();
    };
    e.sensitivities = SensitivityEngine::with_pass_width(S, [&](auto W) {
      return bytes(RobotSensitivityEngine<W()>::instance_bytes, RobotSensitivityEngine<W()>::worker_bytes);
    });
    const ReductionLayout L = estimated_reduction_layout(scene.model);
    const int W = SensitivityEngine::pass_width(S), passes = (S + W - 1) / W;
    if (L.any())
      e.sensitivities += static_cast<double>(e.instances) * (passes + 1) * 8.0 * (L.size() + L.tangent_size() * W);
  } else if (S > 0) {
    // Per pass of W = SensitivityEngine::pass_width(S) tangents the cuda-fused batch's arrays in Dual
    // numbers (sim/dae_sensitivity_engine.cpp) and the reductions' accumulators with their
    // tangents in double (and one more such set, the copy a read samples into), and per
    // parameter the seeds in double with each body quaternion's branch.
    const Model& m = scene.model;
    const ReductionLayout L = estimated_reduction_layout(m);
    const int W = SensitivityEngine::pass_width(S);
    const double reductions = L.any() ? 8.0 * (L.size() + L.tangent_size() * W) : 0.0;
    const double N = m.n_bodies(), rows = m.n_rows, params = static_cast<double>(batch::flatten_params(m).size());
    const double per_pass = 7 * 13 * N + (7 + 6.0 * m.element_sides()) * rows + 6 * N + schur_pattern_of(m).n_values +
                            params + m.n_inputs + 16 + 13 * N + 6 * m.n_joints() + 4 + m.n_drivers();
    const int passes = (S + W - 1) / W;
    e.sensitivities = static_cast<double>(e.instances) *
                      (passes * (per_pass * 8.0 * (1 + W) + reductions) + reductions +
                       8.0 * S * (params + 13 * N + 4 * N + m.n_inputs));
  }
  return e;
}

MemoryEstimate estimate_run_memory(const Scene& scene, const JobOptions& o) {
  const Model& m = scene.model;
  SimulatorOptions so;
  so.backend = o.backend;
  so.threads = o.threads;
  so.precision = o.precision;
  MemoryEstimate e = estimate_simulator_memory(scene, o.instances, so);
  // Frame buffers, the statistics (RunStats: 4 doubles), status, status reason and status
  // time, and the assembly residuals and changes written to the file (6 doubles and an int).
  // With sensitivities the frame's derivatives (state, reactions, joint and bearing loads,
  // driver loads, energy, a robot's joint q, qd, tau) and, at the end, the reductions'
  // derivatives and the writer's copy of one quantity's (at most all C channels).
  const double S = static_cast<double>(scene.sensitivities.paths.size());
  const double C = S > 0 ? estimated_reduction_layout(m).channels : 0;
  const double coords = m.robot ? m.n_joints() : 0;
  const double per_instance_job = 8 * frame_doubles(m) + 8 * 4 + 10 + 52 +
                                  8.0 * S * (13 * m.n_bodies() + 16 * m.n_joints() + m.n_drivers() + 1 + 3 * coords) +
                                  8.0 * S * C * kReductionTangentStats * 2;
  e.recorder = static_cast<double>(e.instances) * per_instance_job + hdf5_cache_bytes(m, e.instances, S);
  if (m.solver.error_estimate) {
    // The dt/2 batch: its own copy of the models and a second Simulator of the same
    // backend, plus the two state frames, statuses and estimates of the comparison.
    const double compare = 8 * 13.0 * m.n_bodies() * 2 + 2 + 8 * 3;
    e.error_estimate = e.models + e.simulator.total() + static_cast<double>(e.instances) * compare;
  }
  return e;
}

MemoryEstimate estimate_check_memory(const Scene& scene) {
  const Model& m = scene.model;
  MemoryEstimate e;
  e.instances = scene.sweep.instances;
  e.models = sweep_bytes(scene, e.instances);
  e.simulator.backend = "check";
  e.simulator.workers = 1;
  // One Data (dense up to kDenseAssemblyRows: check reads the dense C), assembly's
  // decomposition, and with a closed loop the rank analysis: the sparse Phi_q and its
  // factorisation (dynamics/row_qr.hpp; a forest without mimic rows is analysed joint by
  // joint). All live at once in the worst case: counted as the one worker's.
  const bool dense = m.n_rows <= kDenseAssemblyRows, qr = has_closed_loop(m) || m.n_mimics() > 0;
  e.simulator.per_worker =
      data_bytes(m, dense ? SchurFactorization::Dense : SchurFactorization::Auto, !uses_sparse_assembly(m)) +
      assembly_decomposition_bytes(m) +
      (qr ? 6.0 * m.element_sides() * 12 * m.n_rows + RowQR::bytes_bound(m.n_rows, m.nv()) : 0.0);
  return e;
}

MemoryEstimate estimate_bench_memory(const Model& model, long long n_instances, const SimulatorOptions& options) {
  MemoryEstimate e;
  e.instances = n_instances;
  e.simulator = simulator_host_memory(model, n_instances, false, 0, options);
  return e;
}

void check_memory_fits(const MemoryEstimate& estimate, const std::string& what, const std::string& advice) {
  const double have = physical_memory_bytes();
  if (!(have > 0) || estimate.total() <= kMemoryFraction * have) return;
  char tail[160];
  std::snprintf(tail, sizeof tail, "; this machine has %.1f GiB (at most %.0f %% may be planned)", have / (1 << 30),
                100 * kMemoryFraction);
  throw std::runtime_error(what + " needs about " + estimate.describe() + tail + ": " + advice);
}

}  // namespace simphant
