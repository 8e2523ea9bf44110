#pragma once
// What a job will hold in host memory, worked out before any of it is allocated, and the
// guard that refuses a job that would not fit (docs/reliability.md, "Memory"). Used by
// `simphant run` (run_job), `simphant check` (check_scene) and `simphant bench`.
//
// A run counts: the sampled sweep values and one compiled Model per instance when the
// sweep varies the model (scene.hpp: sweep_bytes); the Simulator's buffers
// (sim/host_memory.hpp: per worker Data with, on the dense Schur path, C and its factor;
// per instance state, kept initial state, inputs, status; assembly's own Data with the
// dense Phi_q and its decomposition); the recorder's frame buffers (states,
// reactions, violation, energies, joint coordinates), the statistics and the status
// copies of the job; and HDF5's caches (a chunk of each extendible dataset, at most
// 1 MiB each, and 2 MiB of metadata). A run with solver.error_estimate holds a second batch
// at dt/2 (job/error_estimate.hpp): its models and Simulator again, and one more state
// frame and status copy per instance for the comparison.
// Tested against the peak resident memory of real runs (tests/test_memory_estimate.cpp:
// within 25 % for a small model with many instances, a large model with few, and bench
// rows on the dense Schur path).
#include <string>

#include "simphant/job/job_options.hpp"
#include "simphant/scene/scene.hpp"
#include "simphant/sim/host_memory.hpp"

namespace simphant {


struct MemoryEstimate {
  long long instances = 0;
  double models = 0;     ///< [bytes] sampled values and per-instance models (0 when one model is shared)
  HostMemory simulator;  ///< the Simulator's (or check's analysis') buffers
  double recorder = 0;   ///< [bytes] frame buffers, statistics, status copies, HDF5 caches
  /// [bytes] the dt/2 batch of solver.error_estimate (its models, Simulator and comparison
  /// buffers); 0 without it
  double error_estimate = 0;
  /// [bytes] the forward sensitivities' engine and seeds (sim/sensitivity_engine.hpp); 0
  /// without a "sensitivities" section
  double sensitivities = 0;
  double total() const { return models + simulator.total() + recorder + error_estimate + sensitivities; }
  /// "4.2 GiB: models 1.1 GiB, cpu backend 3.0 GiB (2 workers x 1.4 GiB, 1000 instances x 208 B,
  /// assembly 0.2 GiB), recorder 0.1 GiB[, error estimate (dt/2 batch) 4.1 GiB][, sensitivities
  /// 0.5 GiB]".
  std::string describe() const;
};

/// The estimate for a Simulator of `scene` (job/scene_simulator.hpp make_simulator, as
/// Python's simphant.Simulator builds it): the sampled values and per-instance models and
/// the backend's buffers, for n_instances (<= 0: the scene's sweep.instances).
MemoryEstimate estimate_simulator_memory(const Scene& scene, long long n_instances, const SimulatorOptions& options);

/// The estimate for run_job(o) on `scene` (the options applied: instances, backend,
/// threads, solver).
MemoryEstimate estimate_run_memory(const Scene& scene, const JobOptions& o);

/// The estimate for check_scene(scene): every sweep instance's model, one dense Data,
/// the assembly's decomposition and the rank analysis' copy of Phi_q^T.
MemoryEstimate estimate_check_memory(const Scene& scene);

/// The estimate for one `simphant bench` row: a Simulator of n_instances sharing `model`.
MemoryEstimate estimate_bench_memory(const Model& model, long long n_instances, const SimulatorOptions& options);

/// Throws std::runtime_error("<what> needs about X GiB (<describe>); this machine has Y GiB
/// (at most 80 % may be planned): <advice>") when the estimate exceeds kMemoryFraction of
/// physical memory (core/system_memory.hpp).
void check_memory_fits(const MemoryEstimate& estimate, const std::string& what, const std::string& advice);

}  // namespace simphant
