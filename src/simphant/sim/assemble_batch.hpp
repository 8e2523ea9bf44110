#pragma once
// Assembles every instance of a batch on the host with the CPU reference's Newton
// assembly (dynamics/assembly.hpp), in parallel over instances (OpenMP, static
// schedule). Every backend starts from these states.
#include <cstdint>
#include <vector>

#include "simphant/sim/backend.hpp"

namespace simphant {

struct AssembledBatch {
  std::vector<double> Y;                ///< (n_instances, 13 N) assembled states
  std::vector<AssemblyResult> results;  ///< (n_instances)
  std::vector<std::int8_t> status;      ///< (n_instances) Ok or AssemblyFailed
  std::vector<std::int8_t> reason;      ///< (n_instances) kReasonNone or kReasonAssemblyFailure (dynamics/runaway.hpp)
  std::vector<double> runaway;          ///< (n_instances, 2) a, b of the runaway bound (dynamics/runaway_bound.hpp)
};

/// models: size 1 (shared: assembled once and copied to every instance) or n_instances.
/// threads <= 0: all hardware threads.
AssembledBatch assemble_batch(const std::vector<Model>& models, int n_instances, int threads);

}  // namespace simphant
