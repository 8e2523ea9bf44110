#pragma once
// Assembles every instance of a batch on the host with the CPU reference's Newton
// assembly (dynamics/assembly.hpp), in parallel over instances (core/thread_pool.hpp:
// dynamic chunks; each instance's numbers do not depend on the worker). Every backend
// starts from these states.
#include <cstdint>
#include <vector>

#include "simphant/core/thread_pool.hpp"
#include "simphant/sim/backend.hpp"

namespace simphant {

struct AssembledBatch {
  std::vector<double> Y;                ///< (n_instances, 13 N) assembled states
  std::vector<AssemblyResult> results;  ///< (n_instances)
  std::vector<std::int8_t> status;      ///< (n_instances) Ok or AssemblyFailed
  std::vector<std::int8_t> reason;      ///< (n_instances) kReasonNone or kReasonAssemblyFailure (formulas/runaway.hpp)
  std::vector<double> runaway;          ///< (n_instances, 2) a, b of the runaway bound (dynamics/runaway_bound.hpp)
};

/// models: size 1 (shared: assembled once and copied to every instance) or n_instances.
/// Runs on `pool`'s workers.
AssembledBatch assemble_batch(const std::vector<Model>& models, int n_instances, ThreadPool& pool);
/// The same on a pool of its own: threads <= 0 means default_thread_count()
/// (core/thread_pool.hpp), and no more threads than instances.
AssembledBatch assemble_batch(const std::vector<Model>& models, int n_instances, int threads);

}  // namespace simphant
