#pragma once
// The CUDA backend as the core library sees it (defined in host/cuda_backend.cu when
// the build has CUDA, in sim/cuda_unavailable.cpp otherwise), so that nothing outside
// host/ and kernels/ needs the CUDA headers.
#include <memory>
#include <string>
#include <vector>

#include "simphant/sim/assemble_batch.hpp"
#include "simphant/sim/backend.hpp"

namespace simphant {

/// True when this build has the CUDA backend.
bool cuda_backend_built();

/// Number of usable CUDA devices; 0 without a device, a driver, or a CUDA build.
int cuda_device_count();

/// Checks, before any work, that n_instances of `model` fit on device 0 in `precision`
/// (and that the kernels' thread counts fit an int). n_varied: the parameters stored per
/// instance (batch::count_varied_params). Throws BackendError saying how many fit.
void cuda_check_fits(const Model& model, int n_instances, int n_varied, const std::string& precision);

/// Creates the `cuda` backend (design.md §4) on device 0 for the assembled batch.
/// precision: "fp64" or "fp32". use_graph: capture one step as a CUDA graph and replay
/// it (false: plain launches, for the graph-vs-launch test).
/// Throws BackendError (no device, device too small: the message says how many
/// instances fit, a CUDA / cuSOLVER call failed) and std::invalid_argument.
std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const std::vector<Model>> models, int n_instances,
                                           AssembledBatch assembled, const std::string& precision, bool use_graph);

}  // namespace simphant
