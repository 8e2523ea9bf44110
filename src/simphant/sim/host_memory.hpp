#pragma once
// The host memory a Simulator (sim/simulator.hpp) will hold, worked out before it is
// created, for the memory guards (job/memory_estimate.hpp, `simphant bench`). Counted
// from the same sizes the backends allocate: per worker thread (the cpu backend's Data,
// dynamics/data.hpp: on the dense Schur path C and its factor (m, m), on the sparse one
// the blocks of C and L; the reduced backend's fixed workspace), per instance (state, the kept
// initial state, inputs, status, clocks, assembly result, instance-id checks, with bdf
// CVODE's memory (sim/bdf_support.hpp); on the
// cuda backends the host-assembled batch, pinned frame and staging buffers and packed
// parameters), and what only assembly holds (its own Data with the dense Phi_q (m, 6N)
// and the complete orthogonal decomposition of Phi_q, per assembling thread). The models themselves are not counted
// here (scene.hpp: sweep_bytes). Device memory is checked separately (cuda_check_fits).
#include <algorithm>
#include <string>

#include "simphant/model/model.hpp"
#include "simphant/sim/simulator.hpp"

namespace simphant {

struct HostMemory {
  std::string backend;      ///< the backend `options` selects here: cpu, reduced-aba, reduced-cga (-lanes), cuda, cuda-fused
  int workers = 0;          ///< worker threads (cpu and reduced backends; assembly threads on cuda)
  double per_worker = 0;    ///< [bytes] each worker's workspace (the cpu backend: one Data)
  double per_instance = 0;  ///< [bytes] each instance's buffers
  double assembly = 0;      ///< [bytes] held only while the batch is assembled (with the above)
  long long instances = 0;
  /// The peak: the per-instance buffers, and the larger of assembly and the workers.
  /// Assembly runs when the workers' Data exist but before any step has written their
  /// Schur buffers, and frees its own buffers before the first step.
  double total() const {
    return static_cast<double>(instances) * per_instance + std::max(assembly, workers * per_worker);
  }
};

/// The host memory of Simulator::create(models, options, n_instances) for models of
/// `model`'s shape: one shared model, or one per instance when models_per_instance
/// (varied_params: how many parameters vary per instance, for the cuda packing).
/// options.backend "auto" is resolved as Simulator::create resolves it on this machine.
HostMemory simulator_host_memory(const Model& model, long long n_instances, bool models_per_instance,
                                 int varied_params, const SimulatorOptions& options);

/// Bytes of the decomposition assembly makes of Phi_q (m, 6N) per Newton step: a copy of
/// Phi_q and vectors of its sizes (dense); with joint values given in joint terms four
/// copies of [Phi_q; their rows] (the stacked matrix, its decomposition, and the
/// dependence test's own of each); on the sparse path (uses_sparse_assembly) the sparse
/// Phi_q and its normal matrix with their factor, and with a closed loop the rank-revealing
/// QR that stands in where the normal equations lose rank (RowQR::bytes_bound).
double assembly_decomposition_bytes(const Model& model);

/// Bytes of the redundant-row search (dynamics/redundant_rows.hpp) at set-up: 0 unless
/// the model has a closed loop and solver.redundant_rows is remove (and it runs in
/// maximal coordinates); then a Data without a Schur factor, assembly's decomposition and
/// the rank analysis (the sparse Phi_q and RowQR::bytes_bound).
double redundant_search_bytes(const Model& model);

}  // namespace simphant
